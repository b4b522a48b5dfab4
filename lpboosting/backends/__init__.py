"""Backends: solvers for master problems, found by name.

Names: ``"highspy"`` (incremental HiGHS, the default for LPs),
``"dedicated"`` (the dual Newton solver of entropy projections), ``"cvxpy"``
(cvxpy picks the solver) and ``"cvxpy:SOLVER"`` for any cvxpy solver, e.g.
``"cvxpy:HIGHS"``, ``"cvxpy:CLARABEL"``, ``"cvxpy:ECOS"``, ``"cvxpy:SCS"``.
"""

from __future__ import annotations

from typing import Any

from lpboosting.backends.base import Backend
from lpboosting.backends.cvxpy_backend import SOLVER_KINDS, CvxpyBackend
from lpboosting.backends.dedicated import DedicatedBackend
from lpboosting.backends.highspy_backend import HighspyBackend
from lpboosting.backends.recording import RecordingBackend
from lpboosting.errors import UnknownBackendError
from lpboosting.status import SolveStatus

__all__ = [
    "Backend",
    "CvxpyBackend",
    "DedicatedBackend",
    "HighspyBackend",
    "RecordingBackend",
    "SolveStatus",
    "available_backends",
    "get_backend",
    "known_backends",
]


def known_backends() -> list[str]:
    """Every backend name the registry understands (installed or not)."""
    return ["highspy", "dedicated", "cvxpy"] + [f"cvxpy:{s}" for s in SOLVER_KINDS]


def get_backend(spec: "str | Backend", **options: Any) -> Backend:
    """Resolve a backend name (or pass a :class:`Backend` through)."""
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


def available_backends(kind: str | None = None) -> list[str]:
    """Backend names whose solver is installed (optionally only those solving ``kind``)."""
    out = []
    for name in known_backends():
        backend = get_backend(name)
        if backend.is_available() and (kind is None or kind in backend.kinds):
            out.append(name)
    return out
