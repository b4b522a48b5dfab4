"""RMBoost's master solved by the minimax dual simplex, every answer checked, the fallback policy's
backends (HiGHS) solving it afresh when the check fails.

The backend name is ``"dedicated:minimax-simplex"``; ``"dedicated"`` (the
default of :class:`lpboosting.masters.RMBoost`) picks it for RMBoost.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.dedicated.minimax_simplex import MinimaxDualSimplex
from lpboosting.backends.fallback import resolve, session_fallbacks
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.rmboost import RMBoost
from lpboosting.status import SolveStatus


class MinimaxSimplexSession(ColumnStoreSession):
    """The RMBoost master solved by :class:`MinimaxDualSimplex`.

    The dense dual simplex works on the dual (17) with one basis row per
    active base rule, warm-started across rounds (a new base rule borders the
    basis inverse; a removed one is cut out of it).  Every answer is checked
    before it is returned: |U mu| <= 1/2 + ``check_tol`` (primal feasible),
    |u_j . d| <= lam + ``check_tol`` for every active column (dual feasible),
    and F(mu) = 1/2 (1 - sum |y|) within ``check_tol`` (no duality gap, hence
    complementary slackness).  An answer that fails (or a solver failure) is
    replaced by a fresh solve of the same restricted master by the fallback
    policy's backends (:func:`~lpboosting.backends.fallback.session_fallbacks`:
    RMBoost declares HiGHS's dual simplex, the model of
    :class:`~lpboosting.backends.highs.rmboost.HighsMinimaxLP`); the round's
    record says ``solver = "highspy (fallback)"``, ``fallback = True`` and why.
    """

    #: tolerance of the optimality check of every answer
    check_tol: float = 1e-9

    def __init__(self, master: RMBoost, n_samples: int, backend: Any) -> None:
        super().__init__(master, n_samples)
        self.backend_name = backend.name
        self.lam = master.lam_for(n_samples)
        self.prior = master.prior(n_samples) if master.weighted else None
        if self.prior is not None and not np.all(self.prior > 0):
            raise ValueError(
                f"{backend.name} solves RMBoost with positive sample weights only (a row of weight 0 "
                "has no constraint); drop those rows or use the highspy:ipm backend"
            )
        self.simplex = MinimaxDualSimplex(n_samples, self.lam, prior=self.prior)
        #: rounds answered by the HiGHS fallback
        self.fallbacks = 0

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self.simplex.add_row(u)
        self.remember(u)

    def _solution_of(self, U: np.ndarray, mu: np.ndarray, y: np.ndarray) -> MasterSolution:
        """The MasterSolution of (mu, y = beta' - alpha'): R, the dual value and the edges."""
        return self.master.read_back(SolveStatus.OPTIMAL, U, mu, np.maximum(-y, 0.0),
                                     np.maximum(y, 0.0), self.lam)

    def check(self, U: np.ndarray, mu: np.ndarray, y: np.ndarray) -> str:
        """'' when (mu, y) is optimal for (16)-(17) over U within ``check_tol``, else why not."""
        if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(y))):
            return "non-finite values"
        return self._check(U, self._solution_of(U, mu, y))

    def _check(self, U: np.ndarray, solution: MasterSolution) -> str:
        tol = self.check_tol
        margin = float(np.abs(U @ solution.weights).max()) - 0.5
        if margin > tol:
            return f"primal infeasible by {margin:.1e}"
        edge = float(np.abs(solution.dual_edges).max()) - self.lam
        if edge > tol:
            return f"dual infeasible by {edge:.1e}"
        gap = abs(solution.primal_objective - solution.dual_objective)
        if gap > tol:
            return f"duality gap {gap:.1e}"
        return ""

    def _fall_back(self, U: np.ndarray, problem: str) -> MasterSolution:
        """The restricted master over U solved afresh by the first backend of the fallback policy
        (:func:`~lpboosting.backends.fallback.session_fallbacks`: RMBoost's, HiGHS's dual simplex)
        that answers; else a failed solution saying what each returned.  ``iterations`` counts
        those of every backend tried; ``backend`` names the one that answered."""
        failures, iterations, status = [], 0, SolveStatus.ERROR
        for name in session_fallbacks(self.master, self.backend_name):
            answer = resolve(self.master, U, name)
            iterations += answer.iterations or 0
            if answer.ok:
                answer.iterations, answer.backend = iterations, name
                return answer
            status = answer.status
            failures.append(f"{name} returned {status.value}")
        failed = MasterSolution.failed(
            self.n_samples, status,
            f"the dedicated solver's answer was rejected ({problem}) and "
            + ("; ".join(failures) or "no fallback backend is installed"))
        failed.iterations = iterations
        return failed

    def solve(self) -> MasterSolution:
        self.require_columns()
        start = time.perf_counter()
        U = self.simplex.U  # the active columns, in the order of self.active
        result = self.simplex.solve()
        iterations = result.iterations
        solver = "dedicated"
        if result.ok and np.all(np.isfinite(result.mu)) and np.all(np.isfinite(result.y)):
            solution = self._solution_of(U, result.mu, result.y)
            problem = self._check(U, solution)
        else:
            problem = result.message or "non-finite values"
        if problem:
            self.fallbacks += 1
            self.simplex.reset_basis()
            fallback = self._fall_back(U, problem)
            iterations += fallback.iterations or 0
            if not fallback.ok:
                fallback.seconds = time.perf_counter() - start
                fallback.backend = self.backend_name
                return fallback
            solution, solver = fallback, f"{fallback.backend} (fallback)"
        solution.record.update(
            {"solver": solver, "fallback": bool(problem)} | ({"message": problem} if problem else {}))
        positions = self.finish(solution)
        self.simplex.remove_rows(positions)
        solution.iterations = iterations
        solution.seconds = time.perf_counter() - start
        solution.backend = self.backend_name
        return solution
