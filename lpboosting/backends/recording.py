"""A backend wrapper that keeps every master solution of a run.

Useful for teaching and auditing: the loop's history keeps scalars per
round; this keeps the whole :class:`~lpboosting.masters.MasterSolution` of
every solve (distribution, weights, slacks, ...).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from lpboosting.backends.base import Backend, MasterSession
from lpboosting.backends.registry import get_backend
from lpboosting.masters.base import MasterSolution


class RecordingSession(MasterSession):
    """Forwards to the inner session and appends each solution to ``backend.solutions``."""

    def __init__(self, inner: MasterSession, backend: "RecordingBackend", n_samples: int) -> None:
        super().__init__(n_samples)
        self.inner = inner
        self.backend = backend
        self.backend_name = inner.backend_name

    def add_column(self, column, edge=None):
        self.inner.add_column(column, edge)
        self.n_columns += 1

    def refresh_caps(self) -> None:
        self.inner.refresh_caps()

    def time_limited(self, seconds: float) -> AbstractContextManager:
        return self.inner.time_limited(seconds)

    def solve(self) -> MasterSolution:
        return self._recorded(self.inner.solve)

    def solve_round(self) -> MasterSolution:
        """The inner session's round answer (an early one where it gives one), recorded."""
        return self._recorded(self.inner.solve_round)

    def _recorded(self, solve) -> MasterSolution:
        solution = self.backend.before_solve(self)
        if solution is None:
            solution = solve()
        self.backend.solutions.append(solution)
        return solution


class RecordingBackend(Backend):
    """Wrap ``inner`` (a backend or its name); ``solutions`` lists every solve's result."""

    def __init__(self, inner: "str | Backend", **options: Any) -> None:
        super().__init__()
        self.inner = get_backend(inner, **options)
        self.name = self.inner.name
        self.solvers = self.inner.solvers
        self.incremental = self.inner.incremental
        self.solutions: list[MasterSolution] = []

    def handles_kind(self, kind: str) -> bool:
        return self.inner.handles_kind(kind)

    def is_available(self) -> bool:
        return self.inner.is_available()

    def require(self) -> None:
        self.inner.require()

    def open(self, master, n_samples):
        return RecordingSession(self.inner.open(master, n_samples), self, n_samples)

    def before_solve(self, session: RecordingSession) -> MasterSolution | None:
        """Hook for subclasses: return a solution to use instead of solving (e.g. to inject a failure)."""
        return None
