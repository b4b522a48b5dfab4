"""The backend registry: names, what is installed, and what each backend can solve.

In the spirit of ``cvxpy.installed_solvers()``: :func:`available` lists the
backends whose solver is installed, each with its capabilities (problem
kinds — ``"lp"`` for the LP masters LPBoost and RMBoost, ``"exp_cone"`` for
the relative-entropy projections of SoftBoost, TotalBoost and ERLPBoost —
and whether it keeps a live model between rounds), all derived from the
session table (:mod:`lpboosting.backends.table`).  :func:`get_backend`
turns a name into a backend; every backend reports the same
:class:`~lpboosting.status.SolveStatus` values and the same sign convention
(documented in docs/lpboost.md and each master's docstring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lpboosting.backends.base import Backend
from lpboosting.backends.solvers import records
from lpboosting.backends.table import (
    KIND_NAMES,
    UNLISTED_SOLVERS,
    capable,
    construct,
    install_hint,
    known_backends,
    nameable_backends,
    other_masters,
)
from lpboosting.errors import UnknownBackendError

__all__ = [
    "BackendInfo", "available", "available_backends", "capable", "get_backend", "install_hint",
    "known_backends", "nameable_backends",
]

_DESCRIPTIONS = {
    "highspy": "HiGHS through highspy: one live model, a column/row added per round, "
               "re-solved by simplex from the previous basis; LPBoost's master by sifting "
               "(a working set of examples, checked on all N), its +-1 hypotheses "
               "written as differences from the closest earlier one (sparse)",
    "highspy:delta": "as highspy, LPBoost's master over all N examples (no sifting)",
    "highspy:rows": "as highspy, LPBoost's master over all N with dense rows d.u - gamma <= 0",
    "highspy:ipm": "HiGHS's interior point without crossover, one live model: central duals "
                   "(a point inside the optimal dual face, not a vertex), no warm start; "
                   "RMBoost's default",
    "highspy:pdlp": "HiGHS's first-order PDLP (primal-dual hybrid gradient), one live model, "
                    "no warm start; accurate to its relative tolerance (1e-7), not to the simplex's",
    "highspy:dual": "as highspy, by the dual simplex (named, for comparisons)",
    "highspy:primal": "as highspy, by the primal simplex",
    "dedicated": "lpboosting's verified solvers: dual Newton for the entropy projections "
                 "(dedicated:newton), a dense dual simplex for RMBoost's LP "
                 "(dedicated:minimax-simplex); warm-started, every answer checked",
    "cvxpy": "the cvxpy statement rebuilt every round; cvxpy picks the solver",
}


def get_backend(spec: "str | Backend", **options: Any) -> Backend:
    """Resolve a backend name (or pass a :class:`Backend` through).

    Names: those of :func:`known_backends`, and ``"dedicated:newton"`` /
    ``"dedicated:minimax-simplex"`` for one of the dedicated solvers.
    Options go to the backend's constructor: HiGHS options for ``"highspy"``
    (e.g. ``get_backend("highspy", simplex_strategy=4)``), keyword arguments
    of ``cvxpy.Problem.solve`` for ``"cvxpy:SOLVER"`` (e.g. ``eps_abs=1e-9``).
    """
    if isinstance(spec, Backend):
        if options:
            raise TypeError("pass options to the Backend's constructor, not with an instance")
        return spec
    if not isinstance(spec, str):
        raise UnknownBackendError(
            f"backend must be a name or a Backend instance, got {type(spec).__name__}; "
            f"known names: {', '.join(known_backends())}"
        )
    return construct(spec, **options)


@dataclass(frozen=True)
class BackendInfo:
    """One backend: its name, whether it is installed and what it can solve.

    ``kinds``: problem classes (``"lp"``, ``"exp_cone"``) of which it solves
    every master; ``lp`` and ``exp_cone`` repeat that as booleans.
    ``incremental``: a live model is kept between rounds and re-solved from
    the previous basis or iterate (warm start); otherwise the master is
    rebuilt every round.  ``install``: the command that installs the solver.
    ``masters``: masters of another kind that it solves too (the dedicated
    backend: RMBoost's LP).  ``variants``: names of the single solvers it
    groups (``dedicated:newton``, ``dedicated:minimax-simplex``).
    """

    name: str
    installed: bool
    kinds: tuple[str, ...]
    incremental: bool
    install: str
    description: str
    masters: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()

    @property
    def lp(self) -> bool:
        return "lp" in self.kinds

    @property
    def exp_cone(self) -> bool:
        return "exp_cone" in self.kinds


def _nameable(name: str) -> bool:
    """Whether ``get_backend(name)`` knows ``name``."""
    try:
        get_backend(name)
    except UnknownBackendError:
        return False
    return True


def _info(name: str) -> BackendInfo:
    backend = get_backend(name)
    if name.startswith("cvxpy:"):
        solver = name.split(":", 1)[1]
        description = f"the cvxpy statement rebuilt every round, solved by {solver}"
        if any(record.warm_start for record in records(name)):  # the parametric session's rule
            description = (f"the cvxpy statement solved by {solver}: LPBoost's and RMBoost's compiled "
                           "once per doubling of their column block and started from the previous "
                           "solution, others rebuilt every round")
        if solver in UNLISTED_SOLVERS:
            description += f" ({UNLISTED_SOLVERS[solver]})"
    else:
        description = _DESCRIPTIONS.get(name) or _own_description(backend)
    solvers = getattr(backend, "solvers", ())
    # the single solvers that can be named on their own (dedicated:newton); a HiGHS method's
    # solvers are the session table's keys, not backend names
    variants = tuple(v for v in (f"{name}:{s}" for s in solvers) if _nameable(v)) if len(solvers) > 1 else ()
    return BackendInfo(
        name=name, installed=backend.is_available(), kinds=tuple(sorted(backend.kinds)),
        incremental=bool(backend.incremental), install=install_hint(name), description=description,
        masters=other_masters(backend), variants=variants,
    )


def _own_description(backend: Backend) -> str:
    """A backend's own words: its ``description``, else its class docstring's first line."""
    if backend.description:
        return backend.description
    doc = (type(backend).__doc__ or "").strip()
    return doc.splitlines()[0] if doc else f"{type(backend).__name__} (no description given)"


def available(kind: str | None = None, include_missing: bool = False,
              include_unlisted: bool = False) -> list[BackendInfo]:
    """The installed backends and what each can solve (optionally only those solving ``kind``).

    ``include_missing=True`` also lists known backends whose solver is not
    installed (``installed=False``, with the ``install`` command);
    ``include_unlisted=True`` also the solvers that can be named but are
    never picked automatically (:data:`~lpboosting.backends.table.UNLISTED_SOLVERS`).
    """
    if kind is not None and kind not in KIND_NAMES:
        raise ValueError(f"unknown problem kind {kind!r}; kinds are {', '.join(KIND_NAMES)}")
    out = []
    for name in (nameable_backends() if include_unlisted else known_backends()):
        info = _info(name)
        if (info.installed or include_missing) and (kind is None or kind in info.kinds):
            out.append(info)
    return out


def available_backends(kind: str | None = None) -> list[str]:
    """Names of the installed backends (optionally only those solving ``kind``)."""
    return [info.name for info in available(kind)]
