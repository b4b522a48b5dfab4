"""Exceptions raised by lpboosting.

Every message says what was wrong and what to do about it.
"""

from __future__ import annotations


class LPBoostingError(Exception):
    """Base class of every lpboosting error."""


class UnknownBackendError(LPBoostingError, ValueError):
    """A backend name that the registry does not know."""


class SolverNotInstalledError(LPBoostingError, ImportError):
    """The backend exists but the solver it needs is not installed."""


class BackendCapabilityError(LPBoostingError, ValueError):
    """The backend cannot solve this kind of master problem."""


class UnknownOracleError(LPBoostingError, ValueError):
    """An oracle name that the registry does not know."""


class SolverError(LPBoostingError, RuntimeError):
    """The solver did not return an optimal solution."""

    def __init__(self, message: str, status: object = None) -> None:
        super().__init__(message)
        self.status = status
