"""One status vocabulary for every solver.

Every backend, and every solver behind one (HiGHS, the cvxpy solvers, the
dedicated Newton projection and minimax dual simplex), reports the outcome
of a solve as a :class:`SolveStatus`; the loop's own round statuses
("added", "converged", ...) are a different thing: what the loop did next.
"""

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
    #: the solver stopped with an answer it could not verify (use another solver)
    FAILED = "failed"
    #: the solver raised, or reported a status no other member describes
    ERROR = "error"

    @property
    def ok(self) -> bool:
        """True when the solution can be used (optimal, possibly to reduced accuracy)."""
        return self in (SolveStatus.OPTIMAL, SolveStatus.INACCURATE)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value
