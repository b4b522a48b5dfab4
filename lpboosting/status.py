"""One status vocabulary for every backend."""

from __future__ import annotations

from enum import Enum


class SolveStatus(str, Enum):
    """Outcome of one master solve, whatever solver produced it."""

    OPTIMAL = "optimal"
    INACCURATE = "optimal_inaccurate"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    ITERATION_LIMIT = "iteration_limit"
    TIME_LIMIT = "time_limit"
    INTERRUPTED = "interrupted"
    ERROR = "error"

    @property
    def ok(self) -> bool:
        """True when the solution can be used (optimal, possibly to reduced accuracy)."""
        return self in (SolveStatus.OPTIMAL, SolveStatus.INACCURATE)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value
