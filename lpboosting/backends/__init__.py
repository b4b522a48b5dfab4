"""Backends: every solver of the master problems, found by name.

Names: ``"highspy"`` (incremental HiGHS, the default for LPBoost),
``"dedicated"`` (lpboosting's verified solvers, the default for the entropy
masters and RMBoost; ``"dedicated:newton"`` and
``"dedicated:minimax-simplex"`` name each one), ``"cvxpy"`` (cvxpy picks
the solver) and ``"cvxpy:SOLVER"`` for any cvxpy solver, e.g.
``"cvxpy:HIGHS"``, ``"cvxpy:CLARABEL"``, ``"cvxpy:ECOS"``, ``"cvxpy:SCS"``.
Which session solves a (backend, master) pair is written once, in
:data:`lpboosting.backends.table.SESSIONS`.
"""

from __future__ import annotations

from lpboosting.backends.base import Backend, ColumnStore, ColumnStoreSession, MasterSession
from lpboosting.backends.cvxpy_backend import CvxpyBackend
from lpboosting.backends.dedicated import DedicatedBackend
from lpboosting.backends.highs import HighspyBackend
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
    "ColumnStore",
    "ColumnStoreSession",
    "CvxpyBackend",
    "DedicatedBackend",
    "HighspyBackend",
    "MasterSession",
    "RecordingBackend",
    "SolveStatus",
    "available",
    "available_backends",
    "get_backend",
    "install_hint",
    "known_backends",
]
