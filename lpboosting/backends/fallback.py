"""The one fallback policy: which backends solve a master again when an answer fails.

Every place that falls back asks here:

- the loop, when the master rejects a session's answer
  (:func:`lpboosting.colgen.verify.verified`): :func:`fallback_backends`,
  each solving the restricted master afresh over its columns (:func:`resolve`);
- a dedicated session, when its own solver's answer fails its check (the
  minimax dual simplex, :mod:`~lpboosting.backends.dedicated.minimax_session`;
  the Newton projection, :mod:`~lpboosting.backends.dedicated.newton_projection`):
  :func:`session_fallbacks`, each solving the round's problem again;
- the entropy session, choosing who solves its LP over the chosen columns
  (:mod:`~lpboosting.backends.entropy_session`): :func:`backend_for`.

What to try, in order, is what the master declares
(:attr:`Master.fallback_backends <lpboosting.masters.base.Master.fallback_backends>`,
:attr:`Master.session_fallbacks <lpboosting.masters.base.Master.session_fallbacks>`),
kept where these rules allow it:

1. a backend whose solver is not installed is skipped (the solvers' records,
   :mod:`lpboosting.backends.solvers`);
2. the backend that failed is not asked again, unless it keeps a live model
   between rounds in its solver's default configuration (``"highspy"``):
   then a fresh model of it is tried, since the live one may have drifted;
3. a master defined outside the library (a subclass that may change its
   statement) is solved afresh only through its cvxpy statement: the other
   sessions solve the library's formulation, which would be another problem.
   A session's own fallback solves the problem that session solves, so this
   rule is not applied to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from lpboosting.backends.registry import get_backend
from lpboosting.backends.solvers import SOLVERS, install_hint, records
from lpboosting.errors import SolverError, SolverNotInstalledError
from lpboosting.masters.base import LP_FALLBACKS, Master, MasterSolution
from lpboosting.status import SolveStatus

__all__ = ["backend_for", "declared", "fallback_backends", "installed", "library_master", "resolve", "session_fallbacks"]


def installed(name: str) -> bool:
    """Whether the solvers behind backend ``name`` are installed (by their records; a backend
    plugged in answers for itself)."""
    found = records(name)
    if not found:
        return get_backend(name).is_available()
    return all(record.installed() for record in found)


def library_master(master: Master) -> bool:
    """Whether ``master``'s class is one of the library's (its statement is the library's)."""
    return type(master).__module__.startswith("lpboosting.")


def _asked_again(name: str, failed: str | None) -> bool:
    """Rule 2: ``name`` may be tried after ``failed`` failed."""
    return name != failed or (name in SOLVERS and get_backend(name).incremental)


def _kept(master: Master, chain: Iterable[str], failed: str | None) -> Iterator[str]:
    """Rules 1 and 2 over ``chain``, in its order, each name once (and only backends that have a
    session for ``master``); lazily, so that a solver is imported only when it is asked about."""
    seen: set[str] = set()
    for name in chain:
        if (name not in seen and _asked_again(name, failed) and installed(name)
                and get_backend(name).solves(master)):
            seen.add(name)
            yield name


def _afresh(master: Master, chain: Iterable[str]) -> tuple[str, ...]:
    """Rule 3: a master defined outside the library only through its cvxpy statement."""
    if library_master(master):
        return tuple(chain)
    return tuple(name for name in chain if name.split(":", 1)[0] == "cvxpy")


def declared(master: Master) -> tuple[str, ...]:
    """The fallback backends ``master`` declares; when it declares none (None), those of its kind:
    :data:`~lpboosting.masters.base.LP_FALLBACKS` for an LP master, none for another kind."""
    chain = master.fallback_backends
    if chain is None:
        return LP_FALLBACKS if master.kind == "lp" else ()
    return tuple(chain)


def fallback_backends(master: Master, failed: str | None = None) -> list[str]:
    """The backends that solve ``master`` again afresh, in order, after backend ``failed`` gave an
    answer the master rejected (its :attr:`~lpboosting.masters.base.Master.fallback_backends`
    under the three rules)."""
    return list(_kept(master, _afresh(master, declared(master)), failed))


def session_fallbacks(master: Master, failed: str | None = None) -> list[str]:
    """The backends that solve a round's problem again, in order, inside a session of backend
    ``failed`` whose own solver's answer failed its check (the master's
    :attr:`~lpboosting.masters.base.Master.session_fallbacks` under rules 1 and 2)."""
    return list(_kept(master, master.session_fallbacks, failed))


def backend_for(master: Master) -> str:
    """The backend that solves ``master``: its default when installed, else the first installed
    of its fallbacks (under the same rules).  Raises :class:`SolverNotInstalledError`, saying
    what to install, when none is."""
    chain = _afresh(master, (master.default_backend, *declared(master)))
    for name in _kept(master, chain, None):
        return name
    raise SolverNotInstalledError(
        f"no backend that solves the {master.name} master is installed (tried {', '.join(chain)}); "
        f"run `{install_hint(chain[0]) if chain else 'pip install cvxpy'}`")


def resolve(master: Master, U: np.ndarray, name: str) -> MasterSolution:
    """``master`` over the columns of U solved afresh, in a new session of backend ``name``; a
    failed solution (status ERROR, ``control.message`` saying why) when the backend raises."""
    try:
        session = get_backend(name).open(master, U.shape[0])
        for m in range(U.shape[1]):
            session.add_column(U[:, m])
        solution = session.solve()
    except (SolverError, ValueError, ArithmeticError) as exc:
        solution = MasterSolution.failed(U.shape[0], SolveStatus.ERROR, str(exc))
        solution.backend = name
    return solution
