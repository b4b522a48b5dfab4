"""lpboosting's dedicated solvers: the Newton projection and the minimax dual simplex."""

from lpboosting.backends.dedicated.backend import DedicatedBackend

__all__ = ["DedicatedBackend"]
