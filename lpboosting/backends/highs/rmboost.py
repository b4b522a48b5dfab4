"""RMBoost's primal (16) in HiGHS: n ranged rows and a column pair (mu+_j, mu-_j) per base rule.

The model of :class:`lpboosting.masters.RMBoost`::

    R = 1/2 + min  sum_j (lam - tau_j) mu+_j + (lam + tau_j) mu-_j
        s.t.  -1/2 <= (U (mu+ - mu-))_i <= 1/2   (i = 1..n),   mu+, mu- >= 0

is encoded once, here: :func:`minimax_model` makes the rows and the
offset, :func:`add_column_pairs` the pairs.  :class:`HighsMinimaxLP`
keeps the model live across rounds (the ``"highspy"`` backend);
:func:`solve_minimax_with_highs` builds it over given columns and solves
it once (the dedicated simplex's fallback).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.model import (
    HighsClock,
    HighspyBackend,
    import_highspy,
    iteration_counts,
    map_highs_status,
    run_model,
    run_watched,
)
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.rmboost import RMBoost
from lpboosting.status import SolveStatus


def minimax_model(backend: HighspyBackend, n_samples: int, constrained: np.ndarray | None = None) -> Any:
    """A HiGHS model of (16) with its n ranged rows, the offset 1/2 and no column yet.

    ``constrained`` masks the rows with a constraint (those of weight 0 are
    free rows, without bounds); None constrains every row.
    """
    n = n_samples
    h = backend.new_model()
    bound = np.full(n, 0.5)
    if constrained is not None:
        bound[~np.asarray(constrained, dtype=bool)] = import_highspy().kHighsInf
    h.addRows(n, -bound, bound, 0, np.zeros(n, dtype=np.int32),
              np.zeros(0, dtype=np.int32), np.zeros(0))
    h.changeObjectiveOffset(0.5)
    return h


def add_column_pairs(h: Any, U: np.ndarray, lam: float, prior: np.ndarray | None = None) -> None:
    """Add mu+_j (cost lam - tau_j) and mu-_j (cost lam + tau_j) for every column u_j of U
    (tau_j = p . u_j, p = 1/n or ``prior``)."""
    inf = import_highspy().kHighsInf
    for u in np.asarray(U, dtype=float).T:
        tau = float(u.mean()) if prior is None else float(prior @ u)
        nz = np.flatnonzero(u).astype(np.int32)
        k = nz.size
        h.addCols(
            2, np.array([lam - tau, lam + tau]), np.zeros(2), np.full(2, inf),
            2 * k, np.array([0, k], dtype=np.int32), np.concatenate([nz, nz]),
            np.concatenate([u[nz], -u[nz]]),
        )


def read_pairs(master: RMBoost, status: SolveStatus, U: np.ndarray, col_value: Any, row_dual: Any,
               lam: float) -> MasterSolution:
    """The read-back of a solved pair model (HiGHS's column values and one row dual per example):
    mu = mu+ - mu-; a row at its upper bound has y_i <= 0, at its lower bound y_i >= 0, so
    alpha' = max(-y, 0), beta' = max(y, 0)."""
    x = np.asarray(col_value)
    y = np.asarray(row_dual)
    return master.read_back(status, U, x[0::2] - x[1::2], np.maximum(-y, 0.0), np.maximum(y, 0.0), lam)


class HighsMinimaxLP(HighsClock, ColumnStoreSession):
    """The RMBoost primal (16) in one live HiGHS model; a new base rule is a new column PAIR.

    Columns are stored as consecutive pairs in the order of the active
    columns; HiGHS's objective value is R.  Each solve re-starts from the
    previous basis (adding columns keeps it primal feasible; removed columns
    are non-basic, so it stays valid).
    """

    def __init__(self, master: RMBoost, n_samples: int, backend: HighspyBackend) -> None:
        super().__init__(master, n_samples)
        self.backend_name = backend.name
        self.lam = master.lam_for(n_samples)
        self.prior = master.prior(n_samples) if master.weighted else None
        self._h = minimax_model(backend, n_samples, master.constrained(n_samples))

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        add_column_pairs(self._h, u[:, None], self.lam, self.prior)
        self.remember(u)

    def solve(self) -> MasterSolution:
        self.require_columns()
        h = self._h

        def read(status, sol, info):
            solution = read_pairs(self.master, status, self.store.active_data(), sol.col_value,
                                  sol.row_dual, self.lam)
            solution.info["highs_objective"] = float(info.objective_function_value)
            positions = self.finish(solution)
            if positions.size:
                cols = np.sort(np.concatenate([2 * positions, 2 * positions + 1])).astype(np.int32)
                h.deleteCols(cols.size, cols)
            return solution

        return run_model(h, self.n_samples, self.backend_name, read)

    @property
    def model(self) -> Any:
        """The live ``highspy.Highs`` model (for inspection or export)."""
        return self._h


def solve_minimax_with_highs(U: np.ndarray, lam: float, prior: np.ndarray | None = None
                             ) -> tuple[SolveStatus, np.ndarray, np.ndarray, int]:
    """(16) over the margin columns U solved once by HiGHS: (status, mu, y = beta' - alpha', iterations).

    The model is :class:`HighsMinimaxLP`'s (:func:`minimax_model`,
    :func:`add_column_pairs`), built from scratch; used when the dedicated
    solver's answer fails its check.
    """
    highspy = import_highspy()
    n, t = U.shape
    h = minimax_model(HighspyBackend(), n, None if prior is None else prior > 0)
    add_column_pairs(h, U, lam, prior)
    watched = run_watched(h)
    status = map_highs_status(highspy, h.getModelStatus())
    iterations = sum(iteration_counts(h.getInfo()).values()) + watched.get("stalled_iterations", 0)
    if not status.ok:
        return status, np.zeros(t), np.zeros(n), iterations
    x = np.asarray(h.getSolution().col_value)
    return status, x[0::2] - x[1::2], np.asarray(h.getSolution().row_dual, dtype=float), iterations
