"""LPBoost's dual (the capped edge game) in one live HiGHS model; a new hypothesis is a new row.

The model is :class:`lpboosting.masters.LPBoost`'s dual::

    min gamma  s.t.  d . u^m - gamma <= 0 (m = 1..t),  sum d = 1,  0 <= d <= 1/(nu N)

built once over the N + 1 columns (d, gamma); each round adds one row and
re-solves with the dual simplex from the previous basis.
"""

from __future__ import annotations

import numpy as np

from lpboosting.backends.base import MasterSession
from lpboosting.backends.highs.model import import_highspy, run_model
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.lpboost import LPBoost


class HighsEdgeLP(MasterSession):
    """The LPBoost dual in one live HiGHS model; a new hypothesis is a new row.

    Columns of the HiGHS model: d_1..d_N in [0, c], gamma free (cost 1).
    Rows: sum d = 1, then one row d.u^m - gamma <= 0 per hypothesis.
    HiGHS reports row duals y with reduced costs z = cost - A^T y, so
    w_m = -y_m, rho = y_0 and psi_n = max(0, -z_n).
    """

    def __init__(self, master: LPBoost, n_samples: int, backend) -> None:
        super().__init__(n_samples)
        self._highspy = import_highspy()
        self.master = master
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
        u = np.asarray(column, dtype=float)
        if u.shape != (self.n_samples,):
            raise ValueError(f"a column must have shape ({self.n_samples},), got {u.shape}")
        self._h.addRow(-self._inf, 0.0, self.n_samples + 1, self._index, np.append(u, -1.0))
        self.n_columns += 1

    def solve(self) -> MasterSolution:
        n = self.n_samples

        def read(status, sol, info):
            x = np.asarray(sol.col_value)
            y = np.asarray(sol.row_dual)
            z = np.asarray(sol.col_dual)
            return self.master.read_back(status, x[:n].copy(), float(x[n]), -y[1:], float(y[0]), -z[:n])

        return run_model(self._h, n, self.backend_name, read)

    @property
    def model(self):
        """The live ``highspy.Highs`` model (for inspection or export)."""
        return self._h
