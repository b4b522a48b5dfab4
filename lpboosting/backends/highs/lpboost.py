"""LPBoost's dual (the capped edge game) in one live HiGHS model; a new hypothesis is a new row.

The model is :class:`lpboosting.masters.LPBoost`'s dual::

    min gamma  s.t.  d . u^m - gamma <= 0 (m = 1..t),  sum d = 1,  0 <= d_n <= c_n = p_n/nu

built once over the N + 1 columns (d, gamma); each round adds one row and
re-solves with the dual simplex from the previous basis.  With a column pool
(``LPBoost(nu, pool=...)``) the rows of long-inactive hypotheses are deleted
from the model; the basis stays valid (their slacks are basic).
"""

from __future__ import annotations

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.model import HighsClock, import_highspy, run_model
from lpboosting.columns import gram
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.lpboost import LPBoost


def capped_simplex_model(backend, n: int, cap: float | np.ndarray):
    """A new HiGHS model of d_n in [0, cap_n] (columns 0..N-1), gamma free with cost 1
    (column N), and the row sum d = 1 (row 0): what both LPBoost models start from."""
    inf = import_highspy().kHighsInf
    h = backend.new_model()
    h.addVars(n, np.zeros(n), np.broadcast_to(np.asarray(cap, dtype=float), (n,)).copy())
    h.addVar(-inf, inf)
    h.changeColCost(n, 1.0)
    h.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))
    return h, inf


def delete_edge_rows(h, rows: np.ndarray, positions: np.ndarray) -> list[int]:
    """Delete the edge rows ``rows[positions]`` of the live model ``h`` (a column pool's removals);
    the other rows of ``rows``, renumbered as HiGHS renumbers them."""
    gone = np.sort(rows[positions])
    h.deleteRows(gone.size, gone.astype(np.int32))
    return [int(r - np.searchsorted(gone, r)) for r in np.delete(rows, positions)]


def set_d_bounds(h, caps: np.ndarray) -> None:
    """Bounds 0 <= d_n <= caps_n on columns 0..N-1 of a model of :func:`capped_simplex_model`."""
    n = caps.size
    h.changeColsBounds(n, np.arange(n, dtype=np.int32), np.zeros(n), np.asarray(caps, dtype=float))


class HighsEdgeLP(HighsClock, ColumnStoreSession):
    """The LPBoost dual in one live HiGHS model; a new hypothesis is a new row.

    Columns of the HiGHS model: d_n in [0, c_n], gamma free (cost 1).
    Rows: sum d = 1, then one row d.u^m - gamma <= 0 per hypothesis.
    HiGHS reports row duals y with reduced costs z = cost - A^T y, so
    w_m = -y_m, rho = y_0 and psi_n = max(0, -z_n).  ``dual_edges``
    holds d . u^m of every hypothesis (NaN for deleted ones).
    """

    def __init__(self, master: LPBoost, n_samples: int, backend) -> None:
        super().__init__(master, n_samples, keep_data=False)
        self.backend_name = backend.name
        self.caps = master.caps(n_samples)
        self._h, self._inf = capped_simplex_model(backend, n_samples, self.caps)
        self._index = np.arange(n_samples + 1, dtype=np.int32)

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self._h.addRow(-self._inf, 0.0, self.n_samples + 1, self._index, np.append(u, -1.0))
        self.remember(u)

    def refresh_caps(self) -> None:
        """The master's new caps as the bounds of d (the basis is kept)."""
        set_d_bounds(self._h, self.master.caps(self.n_samples))
        self.caps = self.master.caps(self.n_samples)

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
            solution.dual_edges = np.asarray(sol.row_value)[1:] + float(x[n])
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


class HighsDeltaEdgeLP(HighsClock, ColumnStoreSession):
    """LPBoost's dual in one live HiGHS model, each +-1 hypothesis written as a *difference*.

    Stump and tree columns are dense (every example has a margin +-1), so
    the model of :class:`HighsEdgeLP` holds N nonzeros per row, N t in all,
    and every simplex iteration pays for them.  Yet a new stump differs from
    one already in the master (the same feature, a nearby threshold; or its
    negation) on few examples.  This session gives every hypothesis m an
    edge variable e_m = d . u^m, defined from the closest earlier column r
    (s = +-1, the sign that makes s u^r closest):

        e_m - s e_r - (u^m - s u^r) . d = 0       (the differences only)
        e_m - gamma <= 0                           (dual: -w_m)

    and from d itself (e_m - u^m . d = 0) for the first column, or when the
    column is not +-1.  The LP is the same; its nonzeros are those of the
    differences.  Read-back as :class:`HighsEdgeLP`: w from the edge rows,
    rho from sum d = 1, psi from the reduced costs of d.  With a column pool,
    a deleted hypothesis loses its edge row only (its definition may be
    referred to by later ones).
    """

    def __init__(self, master: LPBoost, n_samples: int, backend) -> None:
        super().__init__(master, n_samples, keep_data=True)
        self.backend_name = backend.name
        self.caps = master.caps(n_samples)
        self._h, self._inf = capped_simplex_model(backend, n_samples, self.caps)
        self._is_sign = np.zeros(16, dtype=bool)  # per session index: a +-1 column (a reference)
        self._pending: list[int] = []  # session indices added since the last solve
        self._edge_rows: list[int] = []  # HiGHS row of each active hypothesis' edge row
        self._n_rows = 1
        self.nonzeros = n_samples

    def _var(self, j: int) -> int:
        return self.n_samples + 1 + j

    def refresh_caps(self) -> None:
        """The master's new caps as the bounds of d (the basis is kept)."""
        set_d_bounds(self._h, self.master.caps(self.n_samples))
        self.caps = self.master.caps(self.n_samples)

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self.remember(u)
        self._pending.append(self.store.size - 1)

    def _write_pending(self) -> None:
        """Write the columns added since the last solve into the model, each from its closest
        earlier +-1 column (one matrix product for the whole batch)."""
        if not self._pending:
            return
        n, h, inf = self.n_samples, self._h, self._inf
        first = self._pending[0]
        data = self.store.data
        new = data[:, first:self.store.size]
        signs = np.all(np.abs(new) == 1.0, axis=0)
        if self._is_sign.size < self.store.size:
            grown = np.zeros(2 * self.store.size, dtype=bool)
            grown[:self._is_sign.size] = self._is_sign
            self._is_sign = grown
        self._is_sign[first:self.store.size] = signs
        # |u . v| = N - 2 (entries where u and +-v differ): dots with every earlier column at once
        dots = gram(new, data[:, :self.store.size]) if signs.any() else None
        for offset, j in enumerate(self._pending):
            u = data[:, j].astype(float)
            ref, s = -1, 0.0
            if signs[offset] and self._is_sign[:j].any():
                row = np.abs(dots[offset, :j])
                row[~self._is_sign[:j]] = -1.0
                ref = int(np.argmax(row))
                s = float(np.sign(dots[offset, ref]) or 1.0)
            h.addVar(-inf, inf)
            if ref < 0:
                idx = np.flatnonzero(u)
                rows_idx = np.append(idx, self._var(j)).astype(np.int32)
                rows_val = np.append(-u[idx], 1.0)
            else:
                diff = u - s * data[:, ref]
                idx = np.flatnonzero(diff)
                rows_idx = np.concatenate([idx, [self._var(j), self._var(ref)]]).astype(np.int32)
                rows_val = np.concatenate([-diff[idx], [1.0, -s]])
            h.addRow(0.0, 0.0, rows_idx.size, rows_idx, rows_val)
            h.addRow(-inf, 0.0, 2, np.array([self._var(j), n], dtype=np.int32), np.array([1.0, -1.0]))
            self._edge_rows.append(self._n_rows + 1)
            self._n_rows += 2
            self.nonzeros += rows_idx.size + 2
        self._pending = []

    def solve(self) -> MasterSolution:
        self.require_columns()
        self._write_pending()
        n = self.n_samples
        h = self._h

        def read(status, sol, info):
            x = np.asarray(sol.col_value)
            y = np.asarray(sol.row_dual)
            z = np.asarray(sol.col_dual)
            rows = np.asarray(self._edge_rows, dtype=int)
            solution = self.master.read_back(status, x[:n].copy(), float(x[n]), -y[rows], float(y[0]),
                                             -z[:n])
            solution.dual_edges = x[n + 1 + np.asarray(self.store.active, dtype=int)]
            positions = self.finish(solution)
            if positions.size:
                self._edge_rows = delete_edge_rows(h, rows, positions)
                self._n_rows -= positions.size
            return solution

        return run_model(h, n, self.backend_name, read)

    @property
    def model(self):
        """The live ``highspy.Highs`` model (for inspection or export), with the columns added
        since the last solve written in."""
        self._write_pending()
        return self._h
