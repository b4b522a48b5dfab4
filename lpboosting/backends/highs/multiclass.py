"""The multiclass master's dual (the capped edge game over pairs) in one live HiGHS model.

The model is :class:`lpboosting.masters.MulticlassLPBoost`'s dual::

    min gamma  s.t.  d . u^m - gamma <= 0 (m = 1..t),  sum d = 1,
                     sum_k d_ik <= c_i (i = 1..N),  d >= 0

built once over the N (K - 1) + 1 columns (d over pairs, gamma) with the
sum row and one cap row per example; each round adds one row per new
hypothesis (its nonzeros are those of its pair column: K - 1 for an example
it classifies right, 1 for one it gives a wrong class, none otherwise) and
re-solves with the dual simplex from the previous basis.  A column pool
deletes the rows of long-inactive hypotheses.
"""

from __future__ import annotations

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.model import import_highspy, run_model
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.multiclass import MulticlassLPBoost


class HighsPairEdgeLP(ColumnStoreSession):
    """The multiclass dual in one live HiGHS model; a new hypothesis is a new row.

    Columns: d_p >= 0 (pairs, example-major), gamma free (cost 1).  Rows:
    sum d = 1 (row 0), the caps sum_k d_ik <= c_i (rows 1..N), then one row
    d . u^m - gamma <= 0 per hypothesis.  HiGHS's row duals y give w_m = -y
    (edge rows), rho = y_0 and psi_i = -y_i (cap rows); ``dual_edges`` holds
    d . u^m of every hypothesis (NaN for deleted ones).
    """

    def __init__(self, master: MulticlassLPBoost, n_rows: int, backend) -> None:
        super().__init__(master, n_rows, keep_data=False)
        self.backend_name = backend.name
        self.n_examples = master.examples(n_rows)
        inf = import_highspy().kHighsInf
        self._inf = inf
        h = backend.new_model()
        p, n = n_rows, self.n_examples
        h.addVars(p, np.zeros(p), np.full(p, inf))
        h.addVar(-inf, inf)
        h.changeColCost(p, 1.0)
        h.addRow(1.0, 1.0, p, np.arange(p, dtype=np.int32), np.ones(p))
        G = master.group_matrix(n)
        h.addRows(n, np.full(n, -inf), master.caps(n), G.nnz, G.indptr.astype(np.int32),
                  G.indices.astype(np.int32), G.data.astype(float))
        self._h = h
        self._first_edge_row = 1 + n

    def refresh_caps(self) -> None:
        """The master's new caps as the cap rows' upper bounds (the basis is kept)."""
        n = self.n_examples
        rows = np.arange(1, 1 + n, dtype=np.int32)
        self._h.changeRowsBounds(n, rows, np.full(n, -self._inf), self.master.caps(n))

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        idx = np.flatnonzero(u)
        self._h.addRow(-self._inf, 0.0, idx.size + 1, np.append(idx, self.n_samples).astype(np.int32),
                       np.append(u[idx], -1.0))
        self.remember(u)

    def solve(self) -> MasterSolution:
        self.require_columns()
        p, h = self.n_samples, self._h
        first = self._first_edge_row

        def read(status, sol, info):
            x = np.asarray(sol.col_value)
            y = np.asarray(sol.row_dual)
            solution = self.master.read_back(status, x[:p].copy(), float(x[p]), -y[first:], float(y[0]),
                                             -y[1:first])
            solution.dual_edges = np.asarray(sol.row_value)[first:] + float(x[p])
            positions = self.finish(solution)
            if positions.size:
                rows = (positions + first).astype(np.int32)
                h.deleteRows(rows.size, rows)
            return solution

        return run_model(h, p, self.backend_name, read)

    @property
    def model(self):
        """The live ``highspy.Highs`` model (for inspection or export)."""
        return self._h
