"""LPBoost's dual (the capped edge game) in one live HiGHS model; a new hypothesis is a new row.

The model is :class:`lpboosting.masters.LPBoost`'s dual::

    min gamma  s.t.  d . u^m - gamma <= 0 (m = 1..t),  sum d = 1,  0 <= d <= 1/(nu N)

built once over the N + 1 columns (d, gamma); each round adds one row and
re-solves with the dual simplex from the previous basis.  With a column pool
(``LPBoost(nu, pool=...)``) the rows of long-inactive hypotheses are deleted
from the model; the basis stays valid (their slacks are basic).
"""

from __future__ import annotations

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.model import import_highspy, run_model
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.lpboost import LPBoost


class HighsEdgeLP(ColumnStoreSession):
    """The LPBoost dual in one live HiGHS model; a new hypothesis is a new row.

    Columns of the HiGHS model: d_1..d_N in [0, c], gamma free (cost 1).
    Rows: sum d = 1, then one row d.u^m - gamma <= 0 per hypothesis.
    HiGHS reports row duals y with reduced costs z = cost - A^T y, so
    w_m = -y_m, rho = y_0 and psi_n = max(0, -z_n).  ``info["dual_edges"]``
    holds d . u^m of every hypothesis (NaN for deleted ones).
    """

    def __init__(self, master: LPBoost, n_samples: int, backend) -> None:
        super().__init__(master, n_samples, keep_data=False)
        self._highspy = import_highspy()
        self.backend_name = backend.name
        self.cap = master.cap(n_samples)
        n = n_samples
        inf = self._highspy.kHighsInf
        h = backend.new_model()
        h.addVars(n, np.zeros(n), np.full(n, self.cap))
        h.addVar(-inf, inf)
        h.changeColCost(n, 1.0)
        self._index = np.arange(n + 1, dtype=np.int32)
        h.addRow(1.0, 1.0, n, self._index[:n], np.ones(n))
        self._h = h
        self._inf = inf

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self._h.addRow(-self._inf, 0.0, self.n_samples + 1, self._index, np.append(u, -1.0))
        self.remember(u)

    def solve(self) -> MasterSolution:
        self.require_columns()
        n = self.n_samples
        h = self._h

        def read(status, sol, info):
            x = np.asarray(sol.col_value)
            y = np.asarray(sol.row_dual)
            z = np.asarray(sol.col_dual)
            solution = self.master.read_back(status, x[:n].copy(), float(x[n]), -y[1:], float(y[0]), -z[:n])
            # row m is d . u^m - gamma
            solution.info["dual_edges"] = np.asarray(sol.row_value)[1:] + float(x[n])
            positions = self.finish(solution)
            if positions.size:
                rows = (positions + 1).astype(np.int32)  # row 0 is sum d = 1
                h.deleteRows(rows.size, rows)
            return solution

        return run_model(h, n, self.backend_name, read)

    @property
    def model(self):
        """The live ``highspy.Highs`` model (for inspection or export)."""
        return self._h
