"""The multiclass master's dual (the capped edge game over pairs) in one live HiGHS model.

The model is :class:`lpboosting.masters.MulticlassLPBoost`'s dual::

    min gamma  s.t.  d . u^m - gamma <= 0 (m = 1..t),  sum d = 1,
                     sum_k d_ik <= c_i (i = 1..N),  d >= 0

written with each example's mass as a variable of its own, D_i = sum_k d_ik
in [0, c_i] (the cap a bound), and each hypothesis' edge as a variable
e_m = d . u^m.  A hypothesis that votes for one class has, on example i,
either +1 on all of i's pairs (it votes for y_i: the term is D_i) or -1 on
the one pair of the class it votes for (the term is -d_ik): one nonzero an
example instead of K - 1.  And a new hypothesis (a stump of a nearby
threshold, of the same feature) mostly votes as an earlier one does: its
edge is written as that one's plus the difference, over the examples where
the two votes differ::

    e_m - e_r - sum_(i: votes differ) (term_m(i) - term_r(i)) = 0     (a reference r)
    e_m - sum_i term_m(i) = 0                                          (none closer)
    e_m - gamma <= 0                                                   (dual: -w_m)
    D_i - sum_k d_ik = 0,   sum_i D_i = 1                              (dual of the latter: rho)

The LP is the same; its nonzeros are those of the differences (the
difference encoding of LPBoost's :class:`~lpboosting.backends.highs.lpboost.
HighsDeltaEdgeLP`, over votes).  A column that is not a vote (a margin matrix
of the user's) is written term by term on the pairs.  Each round adds the new
hypotheses' rows and re-solves with the dual simplex from the previous
basis; a column pool deletes the edge rows of long-inactive hypotheses.

This model over every pair is ``backend="highspy:delta"`` (and that of the
methods that leave no basis); the default ``highspy`` session sifts over
pairs (:class:`~lpboosting.backends.highs.pair_sifting.HighsPairSiftingLP`).
"""

from __future__ import annotations

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.lpboost import delete_edge_rows
from lpboosting.backends.highs.model import HighsClock, import_highspy, run_model
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.multiclass import MulticlassLPBoost

#: the vote code of an example whose pairs are all +1 (the hypothesis votes for its class)
RIGHT = -1
#: the code of an example a column does not write as a vote (not a vote column)
NOT_A_VOTE = -2


def vote_codes(u: np.ndarray, n_examples: int, per: int) -> np.ndarray | None:
    """Per example: RIGHT when its K - 1 pair entries are all +1, j when only entry j is nonzero and
    it is -1 (a vote for that pair's class); None when the column is not a vote on every example."""
    block = np.asarray(u).reshape(n_examples, per)
    right = np.all(block == 1, axis=1)
    minus = block == -1
    wrong = (minus.sum(axis=1) == 1) & (np.count_nonzero(block, axis=1) == 1)
    if not np.all(right | wrong):
        return None
    return np.where(right, RIGHT, np.argmax(minus, axis=1)).astype(np.int32)


class HighsPairEdgeLP(HighsClock, ColumnStoreSession):
    """The multiclass dual in one live HiGHS model, each vote written as its difference from the
    closest earlier one (see the module docstring).

    HiGHS columns: the pairs' d (P = N (K - 1), example-major), the masses D
    (N, in [0, c_i]), gamma (free, cost 1), then one edge variable per
    hypothesis.  HiGHS's duals give w_m = -y (edge bound rows), rho = y_0
    (sum D = 1) and psi_i = -z (the reduced cost of D_i at its cap);
    ``dual_edges`` are the edge variables.
    """

    def __init__(self, master: MulticlassLPBoost, n_rows: int, backend) -> None:
        super().__init__(master, n_rows, keep_data=False)
        self.backend_name = backend.name
        n = self.n_examples = master.examples(n_rows)
        self.per = master.n_classes - 1
        inf = self._inf = import_highspy().kHighsInf
        h = self._h = backend.new_model()
        p = n_rows
        h.addVars(p, np.zeros(p), np.full(p, inf))  # d
        h.addVars(n, np.zeros(n), master.caps(n))  # D
        h.addVar(-inf, inf)  # gamma
        self._gamma = p + n
        h.changeColCost(self._gamma, 1.0)
        h.addRow(1.0, 1.0, n, np.arange(p, p + n, dtype=np.int32), np.ones(n))  # sum D = 1
        # D_i - sum_k d_ik = 0
        starts = np.arange(0, n * (self.per + 1), self.per + 1, dtype=np.int32)
        index = np.empty((n, self.per + 1), dtype=np.int32)
        index[:, 0] = p + np.arange(n)
        index[:, 1:] = np.arange(p).reshape(n, self.per)
        values = np.full((n, self.per + 1), -1.0)
        values[:, 0] = 1.0
        h.addRows(n, np.zeros(n), np.zeros(n), index.size, starts, index.ravel(), values.ravel())
        self._n_rows = 1 + n
        self._codes = np.empty((n, 16), dtype=np.int32)  # per session index: its votes (NOT_A_VOTE: none)
        self._pending: list[tuple[int, np.ndarray]] = []
        self._edge_rows: list[int] = []  # HiGHS row of each active hypothesis' bound e_m - gamma <= 0
        self.nonzeros = int(n + index.size)

    def _edge_var(self, j: int) -> int:
        return self._gamma + 1 + j

    def refresh_caps(self) -> None:
        """The master's new caps as the bounds of D (the basis is kept)."""
        n, p = self.n_examples, self.n_samples
        self._h.changeColsBounds(n, np.arange(p, p + n, dtype=np.int32), np.zeros(n), self.master.caps(n))

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self.remember(u)
        self._pending.append((self.store.size - 1, np.asarray(u, dtype=float)))

    def _terms(self, codes: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The variables and coefficients of the vote terms of examples ``rows``: D_i (+1) where the
        code is RIGHT, d_ij (-1) where it is j."""
        code = codes[rows]
        right = code == RIGHT
        index = np.where(right, self.n_samples + rows, rows * self.per + np.maximum(code, 0))
        return index, np.where(right, 1.0, -1.0)

    def _write_pending(self) -> None:
        """Write the columns added since the last solve, each vote from its closest earlier vote."""
        if not self._pending:
            return
        h, inf, n = self._h, self._inf, self.n_examples
        size = self.store.size
        if self._codes.shape[1] < size:
            grown = np.empty((n, 2 * size), dtype=np.int32)
            grown[:, :self._codes.shape[1]] = self._codes
            self._codes = grown
        for j, u in self._pending:
            codes = vote_codes(u, n, self.per)
            self._codes[:, j] = NOT_A_VOTE if codes is None else codes
            h.addVar(-inf, inf)
            e = self._edge_var(j)
            ref = -1
            if codes is not None and j > 0:
                earlier = self._codes[:, :j]
                votes = earlier[0] != NOT_A_VOTE
                if votes.any():
                    differ = np.count_nonzero(earlier[:, votes] != codes[:, None], axis=0)
                    best = int(np.argmin(differ))
                    if 2 * int(differ[best]) + 2 < n + 1:
                        ref = int(np.flatnonzero(votes)[best])
            if codes is None:  # term by term on the pairs
                idx = np.flatnonzero(u)
                index, values = idx, u[idx]
            elif ref < 0:
                index, values = self._terms(codes, np.arange(n))
            else:
                rows = np.flatnonzero(self._codes[:, ref] != codes)
                new_index, new_values = self._terms(codes, rows)
                old_index, old_values = self._terms(self._codes[:, ref], rows)
                index = np.concatenate([new_index, old_index, [self._edge_var(ref)]])
                values = np.concatenate([new_values, -old_values, [1.0]])
            # e_m - (terms) [- e_r] = 0
            row_index = np.append(index, e).astype(np.int32)
            row_values = np.append(-np.asarray(values, dtype=float), 1.0)
            h.addRow(0.0, 0.0, row_index.size, row_index, row_values)
            h.addRow(-inf, 0.0, 2, np.array([e, self._gamma], dtype=np.int32), np.array([1.0, -1.0]))
            self._edge_rows.append(self._n_rows + 1)
            self._n_rows += 2
            self.nonzeros += row_index.size + 2
        self._pending = []

    def solve(self) -> MasterSolution:
        self.require_columns()
        self._write_pending()
        p, n, h = self.n_samples, self.n_examples, self._h

        def read(status, sol, info):
            x = np.asarray(sol.col_value)
            y = np.asarray(sol.row_dual)
            z = np.asarray(sol.col_dual)
            rows = np.asarray(self._edge_rows, dtype=int)
            solution = self.master.read_back(status, x[:p].copy(), float(x[self._gamma]), -y[rows], float(y[0]),
                                             -z[p:p + n])
            solution.dual_edges = x[self._gamma + 1 + np.asarray(self.store.active, dtype=int)]
            positions = self.finish(solution)
            if positions.size:
                self._edge_rows = delete_edge_rows(h, rows, positions)
                self._n_rows -= positions.size
            return solution

        return run_model(h, p, self.backend_name, read)

    @property
    def model(self):
        """The live ``highspy.Highs`` model (for inspection or export), with the columns added since
        the last solve written in."""
        self._write_pending()
        return self._h

