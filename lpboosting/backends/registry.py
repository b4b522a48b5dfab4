"""The backend registry: names, what is installed, and what each backend can solve.

In the spirit of ``cvxpy.installed_solvers()``: :func:`available` lists the
backends whose solver is installed, each with its capabilities (problem
kinds — ``"lp"`` for the LP masters LPBoost and RMBoost, ``"exp_cone"`` for
the relative-entropy projections of SoftBoost, TotalBoost and ERLPBoost —
and whether it keeps a live model between rounds).  :func:`get_backend`
turns a name into a backend; every backend reports the same
:class:`~lpboosting.status.SolveStatus` values and the same sign convention
(documented in docs/lpboost.md and each master's docstring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lpboosting.backends.base import Backend
from lpboosting.backends.cvxpy_backend import (
    SOLVER_KINDS,
    SOLVER_PACKAGES,
    CvxpyBackend,
)
from lpboosting.backends.dedicated import DedicatedBackend
from lpboosting.backends.highspy_backend import HighspyBackend
from lpboosting.errors import UnknownBackendError

__all__ = [
    "BackendInfo",
    "available",
    "available_backends",
    "get_backend",
    "install_hint",
    "known_backends",
]

#: what each kind of problem is, for listings and error messages
KIND_NAMES: dict[str, str] = {
    "lp": "LP (LPBoost, RMBoost)",
    "exp_cone": "exponential cone / relative entropy (SoftBoost, TotalBoost, ERLPBoost)",
}


@dataclass(frozen=True)
class BackendInfo:
    """One backend: its name, whether it is installed and what it can solve.

    ``kinds``: problem classes (``"lp"``, ``"exp_cone"``); ``lp`` and
    ``exp_cone`` repeat that as booleans.  ``incremental``: a live model is
    kept between rounds and re-solved from the previous basis or iterate
    (warm start); otherwise the master is rebuilt every round.
    ``install``: the command that installs the solver.  ``masters``: masters
    of another kind that it solves too (the dedicated backend: RMBoost's LP).
    """

    name: str
    installed: bool
    kinds: tuple[str, ...]
    incremental: bool
    install: str
    description: str
    masters: tuple[str, ...] = ()

    @property
    def lp(self) -> bool:
        return "lp" in self.kinds

    @property
    def exp_cone(self) -> bool:
        return "exp_cone" in self.kinds


def known_backends() -> list[str]:
    """Every backend name the registry understands (installed or not)."""
    return ["highspy", "dedicated", "cvxpy"] + [f"cvxpy:{s}" for s in SOLVER_KINDS]


def get_backend(spec: str | Backend, **options: Any) -> Backend:
    """Resolve a backend name (or pass a :class:`Backend` through).

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
    key = spec.strip()
    if key.lower() == "highspy":
        return HighspyBackend(**options)
    if key.lower() == "dedicated":
        return DedicatedBackend(**options)
    if key.lower() == "cvxpy":
        return CvxpyBackend(None, **options)
    if key.lower().startswith("cvxpy:") and len(key) > len("cvxpy:"):
        return CvxpyBackend(key.split(":", 1)[1], **options)
    raise UnknownBackendError(
        f"unknown backend {spec!r}; known names: {', '.join(known_backends())} "
        "(any solver cvxpy.installed_solvers() lists works as 'cvxpy:NAME')"
    )


def install_hint(name: str) -> str:
    """The command that installs the solver behind backend ``name``."""
    if name == "highspy":
        return "pip install highspy"
    if name == "dedicated":
        return "(part of lpboosting)"
    if name == "cvxpy":
        return "pip install cvxpy"
    solver = name.split(":", 1)[1].upper()
    return f"pip install {SOLVER_PACKAGES.get(solver, solver.lower())}"


_DESCRIPTIONS = {
    "highspy": "HiGHS through highspy: one live model, a column/row added per round, "
               "re-solved by simplex from the previous basis",
    "dedicated": "lpboosting's verified solvers: dual Newton for the entropy projections, "
                 "a dense dual simplex for RMBoost's LP; warm-started, every answer checked",
    "cvxpy": "the cvxpy statement rebuilt every round; cvxpy picks the solver",
}


def _info(name: str) -> BackendInfo:
    backend = get_backend(name)
    if name.startswith("cvxpy:"):
        description = f"the cvxpy statement rebuilt every round, solved by {name.split(':', 1)[1]}"
    else:
        description = _DESCRIPTIONS[name]
    return BackendInfo(
        name=name, installed=backend.is_available(), kinds=tuple(sorted(backend.kinds)),
        incremental=bool(backend.incremental), install=install_hint(name), description=description,
        masters=_other_masters(backend),
    )


def _other_masters(backend: Backend) -> tuple[str, ...]:
    """Names of the masters outside ``backend.kinds`` that the dedicated backend accepts."""
    if not isinstance(backend, DedicatedBackend):
        return ()
    from lpboosting import masters
    from lpboosting.masters.base import Master

    return tuple(sorted(
        cls.name for cls in vars(masters).values()
        if isinstance(cls, type) and issubclass(cls, Master)
        and getattr(cls, "dedicated_solver", False) and cls.kind not in backend.kinds
    ))


def available(kind: str | None = None, include_missing: bool = False) -> list[BackendInfo]:
    """The installed backends and what each can solve (optionally only those solving ``kind``).

    ``include_missing=True`` also lists known backends whose solver is not
    installed (``installed=False``, with the ``install`` command).
    """
    if kind is not None and kind not in KIND_NAMES:
        raise ValueError(f"unknown problem kind {kind!r}; kinds are {', '.join(KIND_NAMES)}")
    out = []
    for name in known_backends():
        info = _info(name)
        if (info.installed or include_missing) and (kind is None or kind in info.kinds):
            out.append(info)
    return out


def available_backends(kind: str | None = None) -> list[str]:
    """Names of the installed backends (optionally only those solving ``kind``)."""
    return [info.name for info in available(kind)]
