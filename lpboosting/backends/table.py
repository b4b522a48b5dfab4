"""The one table of which solver code runs a master.

:data:`SESSIONS` maps (solver, master class) to the session that solves that
master with that solver; a master class is looked up along its MRO, so a
subclass of a master gets its parent's sessions.  :data:`BACKENDS` maps each
backend name to its class.  Everything about capabilities is derived from
the two: what a backend can solve (:meth:`Backend.solves
<lpboosting.backends.base.Backend.solves>`, its ``kinds``),
:func:`lpboosting.backends.available`, the capability errors and the
command line's choices.

Sessions and backend classes are named by ``"module:attribute"`` and
imported when first used: the table is plain data, importing it loads no
solver, and the solver modules (which import the backend base class) can be
listed here without an import cycle.  A new backend is its solver file plus
its lines here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Callable

from lpboosting.backends import solvers
from lpboosting.backends.solvers import ORTOOLS_REQUIREMENT, cvxpy_records  # noqa: F401 (its old home)
from lpboosting.errors import UnknownBackendError
from lpboosting.masters.base import Master
from lpboosting.masters.entropy import EntropyMaster
from lpboosting.masters.erlpboost import ERLPBoost
from lpboosting.masters.lpboost import LPBoost
from lpboosting.masters.multiclass import MulticlassLPBoost
from lpboosting.masters.multiclass_erlpboost import MulticlassERLPBoost
from lpboosting.masters.registry import MASTERS
from lpboosting.masters.rmboost import RMBoost
from lpboosting.masters.softboost import SoftBoost

if TYPE_CHECKING:  # pragma: no cover
    from lpboosting.backends.base import Backend

__all__ = [
    "BACKENDS", "HIGHS_VARIANTS", "KIND_NAMES", "SESSIONS", "SOLVER_KINDS", "SOLVER_PACKAGES",
    "UNLISTED_SOLVERS", "capable", "construct", "find", "install_hint", "kinds_of", "known_backends",
    "nameable_backends", "session_factory",
]

_B = "lpboosting.backends."

#: (solver, master class) -> the session factory ``factory(master, n_samples, backend)``, named
#: by "module:attribute" (or given as the callable itself, e.g. by a plug-in at run time)
SESSIONS: dict[tuple[str, type[Master]], Any] = {
    ("highspy", LPBoost): _B + "highs.sifting:HighsSiftingLP",
    ("highspy-rows", LPBoost): _B + "highs.lpboost:HighsEdgeLP",
    ("highspy-delta", LPBoost): _B + "highs.lpboost:HighsDeltaEdgeLP",
    ("highspy", MulticlassLPBoost): _B + "highs.pair_sifting:HighsPairSiftingLP",
    ("highspy-delta", MulticlassLPBoost): _B + "highs.multiclass:HighsPairEdgeLP",
    ("highspy", RMBoost): _B + "highs.minimax_sifting:minimax_session",
    ("minimax-simplex", RMBoost): _B + "dedicated.minimax_session:MinimaxSimplexSession",
    ("newton", SoftBoost): _B + "dedicated.newton_projection:softboost_session",
    ("newton", ERLPBoost): _B + "dedicated.newton_projection:erlpboost_session",
    ("newton", MulticlassERLPBoost): _B + "dedicated.newton_projection:group_erlpboost_session",
    ("cvxpy", EntropyMaster): _B + "cvxpy_backend:entropy_session",
    ("cvxpy", Master): _B + "cvxpy_parametric:cvxpy_session",
}

#: backend name -> its class (by "module:attribute", or the class itself); "cvxpy:SOLVER" and
#: "dedicated:SOLVER" name variants, built as ``cls(variant, **options)``
BACKENDS: dict[str, Any] = {
    "highspy": _B + "highs.model:HighspyBackend",
    "dedicated": _B + "dedicated.backend:DedicatedBackend",
    "cvxpy": _B + "cvxpy_backend:CvxpyBackend",
}

#: cvxpy solvers and the problem classes they handle (a view of their records,
#: :mod:`lpboosting.backends.solvers`)
SOLVER_KINDS: dict[str, frozenset[str]] = {r.solver: r.kinds for r in cvxpy_records()}

#: the pip requirement that provides each cvxpy solver, for error messages (a view of the records)
SOLVER_PACKAGES: dict[str, str] = {r.solver: r.requirement for r in cvxpy_records()}

#: cvxpy solvers that can be named (``"cvxpy:PDLP"``) but are left out of :func:`known_backends`,
#: so that nothing picks them automatically (the capability lists, the catalog's checks), and why
#: (a view of the records)
UNLISTED_SOLVERS: dict[str, str] = {r.solver: r.unlisted for r in cvxpy_records() if r.unlisted}

#: named HiGHS configurations listed by :func:`known_backends` (see
#: :data:`lpboosting.backends.highs.model.VARIANTS`)
HIGHS_VARIANTS = ("highspy:ipm", "highspy:pdlp", "highspy:dual", "highspy:primal", "highspy:delta",
                  "highspy:rows")

#: what each kind of problem is, for listings and error messages
KIND_NAMES: dict[str, str] = {
    "lp": "LP (LPBoost, RMBoost)",
    "exp_cone": "exponential cone / relative entropy (SoftBoost, TotalBoost, ERLPBoost)",
}


def _load(entry: Any) -> Any:
    """The object a table entry names: ``"module:attribute"`` imported, anything else as it is."""
    if not isinstance(entry, str):
        return entry
    module, attribute = entry.split(":")
    return getattr(importlib.import_module(module), attribute)


def find(solvers: tuple[str, ...], cls: type[Master]) -> Any:
    """The session of the first of ``solvers`` that has one for ``cls`` (or a base class of it)."""
    for solver in solvers:
        for base in cls.__mro__:
            entry = SESSIONS.get((solver, base))
            if entry is not None:
                return entry
    return None


def session_factory(entry: Any) -> Callable[..., Any]:
    """The session class or function a :data:`SESSIONS` entry names."""
    return _load(entry)


def kinds_of(backend: "Backend") -> frozenset[str]:
    """The problem kinds of which ``backend`` solves every registered master."""
    kinds = {spec.cls.kind for spec in MASTERS.values()}
    return frozenset(k for k in kinds
                     if all(backend.solves(s.cls) for s in MASTERS.values() if s.cls.kind == k))


def other_masters(backend: "Backend") -> tuple[str, ...]:
    """Registered masters outside ``backend.kinds`` that it solves all the same."""
    kinds = backend.kinds
    return tuple(sorted(s.name for s in MASTERS.values()
                        if s.cls.kind not in kinds and backend.solves(s.cls)))


def known_backends() -> list[str]:
    """Every backend name :func:`available` lists (installed or not).

    The backends of :data:`BACKENDS`, the named HiGHS configurations of
    :data:`HIGHS_VARIANTS` (interior point without crossover ``highspy:ipm``,
    RMBoost's default; the first-order ``highspy:pdlp``; dual and primal
    simplex; LPBoost's model with dense rows over all examples
    ``highspy:delta``, ``highspy:rows``) and one ``cvxpy:SOLVER`` per solver of
    :data:`SOLVER_KINDS` but those of :data:`UNLISTED_SOLVERS`.
    """
    return (list(BACKENDS) + list(HIGHS_VARIANTS)
            + [f"cvxpy:{s}" for s in SOLVER_KINDS if s not in UNLISTED_SOLVERS])


def nameable_backends() -> list[str]:
    """:func:`known_backends` and the cvxpy solvers of :data:`UNLISTED_SOLVERS`."""
    return known_backends() + [f"cvxpy:{s}" for s in UNLISTED_SOLVERS]


def construct(name: str, **options: Any) -> "Backend":
    """The backend named ``name``: a key of :data:`BACKENDS`, or ``family:variant``
    (``cvxpy:CLARABEL``, ``dedicated:newton``), built with ``options``."""
    family, _, variant = name.strip().partition(":")
    entry = BACKENDS.get(family.lower())
    unknown = UnknownBackendError(
        f"unknown backend {name!r}; known names: {', '.join(known_backends())}, "
        "dedicated:newton, dedicated:minimax-simplex "
        "(any solver cvxpy.installed_solvers() lists works as 'cvxpy:NAME')"
    )
    if entry is None or (":" in name and not variant):
        raise unknown
    cls = _load(entry)
    if not variant:
        return cls(**options)
    try:
        return cls(variant, **options)
    except TypeError:  # a backend without variants
        raise unknown from None
    except ValueError as exc:
        raise UnknownBackendError(f"unknown backend {name!r}: {exc}") from None


def install_hint(name: str) -> str:
    """The command that installs the solver behind backend ``name``.

    A cvxpy solver whose package cvxpy accepts only in a version range is
    named with that range, quoted for the shell (``pip install
    "ortools>=9.7,<9.15"`` for ``cvxpy:GLOP`` and ``cvxpy:PDLP``).
    """
    hint = solvers.install_hint(name)  # a library backend: its solver's record
    if hint:
        return hint
    entry = BACKENDS.get(name.strip())  # a backend plugged in: its own word
    own = getattr(_load(entry), "install", "") if entry is not None else ""
    return own or f"(no install command known for {name!r}: set install on its Backend class)"


def capable(master: Master) -> tuple[list[str], list[str]]:
    """(installed backends that solve ``master``, ``"name (install command)"`` of missing ones)."""
    installed, missing = [], []
    for name in known_backends():
        backend = construct(name)
        if backend.solves(master):
            if backend.is_available():
                installed.append(name)
            else:
                missing.append(f"{name} ({install_hint(name)})")
    return installed, missing
