"""Backends: solvers for master problems, found by name.

Names: ``"highspy"`` (incremental HiGHS, the default for LPs),
``"dedicated"`` (the dual Newton solver of entropy projections), ``"cvxpy"``
(cvxpy picks the solver) and ``"cvxpy:SOLVER"`` for any cvxpy solver, e.g.
``"cvxpy:HIGHS"``, ``"cvxpy:CLARABEL"``, ``"cvxpy:ECOS"``, ``"cvxpy:SCS"``.
"""

from __future__ import annotations

from lpboosting.backends.base import Backend
from lpboosting.backends.cvxpy_backend import CvxpyBackend
from lpboosting.backends.dedicated import DedicatedBackend
from lpboosting.backends.highspy_backend import HighspyBackend
from lpboosting.backends.recording import RecordingBackend
from lpboosting.backends.registry import (
    BackendInfo,
    available,
    available_backends,
    get_backend,
    install_hint,
    known_backends,
)
from lpboosting.status import SolveStatus

__all__ = [
    "Backend",
    "BackendInfo",
    "CvxpyBackend",
    "DedicatedBackend",
    "HighspyBackend",
    "RecordingBackend",
    "SolveStatus",
    "available",
    "available_backends",
    "get_backend",
    "install_hint",
    "known_backends",
]
