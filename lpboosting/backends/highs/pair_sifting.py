"""The multiclass master's dual by sifting over pairs: a live HiGHS model over a working set of
(example, wrong class) pairs, checked on all of them.

The model is :class:`lpboosting.masters.MulticlassLPBoost`'s dual::

    min gamma  s.t.  d . u^m <= gamma (m = 1..t),  sum d = 1,
                     sum_k d_ik <= c_i (i = 1..N),  d >= 0

with N (K - 1) pair variables d_ik.  At an optimum (w, rho, psi) of the
primal, d_ik > 0 only where example i's margin against class k is its least
and at most rho: in the optimal d most examples have no mass, and an
example with mass mostly has it on one pair.  So the LP is solved over a
*working set* W of pairs, the others fixed at 0.  With W_i the pairs of
example i in W, the LP over W is the same LP with d_ik = 0 outside W; its
optimal (w, rho) and

    psi_i = max(0, rho - min_{k in W_i} margin_ik)      (0 when W_i is empty)

(the least psi that makes every pair of W dual feasible, which is the
optimal one: the objective is rho - c . psi) are primal feasible for the
full LP -- and so optimal, with the LP over W's d, zero elsewhere -- as soon
as every pair outside W has a nonnegative reduced cost::

    margin_ik - rho + psi_i >= 0      ((i, k) not in W).

After each solve a check computes every pair's margin U w; a pair outside W
that fails this by more than ``tol`` is a violator and enters W as a new
column of the live model, which is re-solved from its basis until a check
finds none: the answer is the full LP's optimum, certified by that check
(the master verifies it as every answer).  In column generation a round
need not wait for that (:meth:`HighsPairSiftingLP.solve_round`, as LPBoost's
sifting session): after the first run, d (0 outside W) is feasible for the
full dual and w, with psi_i = (rho - least margin of example i over all its
pairs)^+, feasible for the full primal, its value rho - c . psi a lower
bound on the optimum; the round answers with that pair, and the
violators enter to be solved with the next round's hypotheses.  Between
solves the pairs of W with the largest reduced costs leave it (only those
nonbasic at 0, so the basis stays optimal), keeping it near
``working_size`` pairs, or twice the number of hypotheses if more.  The first W is the least-margin pair of
each of the ``working_size`` examples of least margin under uniform
weights on the first columns (more when their caps sum below 1).

The live model (HiGHS columns: gamma, one f_m per hypothesis, one d_ik per
pair of W; rows that are never deleted)::

    sum_{(i,k) in W} d_ik = 1                                     dual: rho
    f_m - f_(r_m) - sum_{(i,k) in W} (u^m - u^(r_m))_ik d_ik = 0   (a reference r_m)
    f_m + gamma - sum_{(i,k) in W} u^m_ik d_ik = 0                  (none closer)
    f_m <= 0                                                       reduced cost: -w_m
    sum_{k in W_i} d_ik <= c_i   (an example once two of its pairs were in W; else d_ik <= c_i)

Each hypothesis is written as its difference from the earlier one that
differs from it on the fewest pairs of W (stump and tree votes of nearby
thresholds differ on few), as LPBoost's
:class:`~lpboosting.backends.highs.sifting.HighsSiftingLP` writes its rows.
Every d_ik also keeps its example's cap as its own bound, so an example
with one pair in W needs no row.  A hypothesis the column pool removes
keeps its row and its f_m, now free (its edge is no longer bounded).

The full model over every pair is
:class:`~lpboosting.backends.highs.multiclass.HighsPairEdgeLP`
(``backend="highspy:delta"``).
"""

from __future__ import annotations

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.model import HighsClock, SiftingRuns, import_highspy
from lpboosting.columns import take_rows, weighted_sum
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.multiclass import MulticlassLPBoost

#: model column codes besides a pair's index (>= 0): gamma, and -2 - j for hypothesis j's f_j
GAMMA = -1


class HighsPairSiftingLP(HighsClock, ColumnStoreSession):
    """The multiclass dual over a working set of pairs, the others fixed at 0 (module docstring).

    ``working_size`` (default 2000, or the backend's ``session_options``) is
    the number of examples whose least-margin pair starts W and the size W
    is trimmed back to between solves; ``tol`` is the reduced cost below
    which a pair outside W is a violator.  ``early_answers`` (default True,
    as LPBoost's :class:`~lpboosting.backends.highs.sifting.HighsSiftingLP`):
    :meth:`solve_round` answers after the first run, when its check finds
    violators, with a feasible pair (``control.optimal`` False): d, 0
    outside W, with gamma its largest edge; w with its value rho - c . psi,
    psi_i = (rho - least margin of example i over all its pairs)^+, a lower
    bound on the full problem's optimum.  The violators enter the model
    then and are solved with the next round's hypotheses; :meth:`solve`
    always answers with the optimum.  ``record`` of each solution holds
    the passes (solves of the model), the size of W, the pairs that
    entered and those that left after it and, for an early answer,
    ``optimal`` False and the ``violators`` that entered after it.
    """

    def __init__(self, master: MulticlassLPBoost, n_rows: int, backend, working_size: int | None = None,
                 tol: float = 1e-9, early_answers: bool | None = None) -> None:
        super().__init__(master, n_rows, keep_data=True)
        options = getattr(backend, "session_options", {})
        working_size = options.get("working_size", 2000) if working_size is None else working_size
        if int(working_size) != working_size or working_size < 1:
            raise ValueError(f"working_size must be a positive integer, got {working_size!r}")
        early_answers = options.get("early_answers", True) if early_answers is None else early_answers
        if not isinstance(early_answers, (bool, np.bool_)):
            raise ValueError(f"early_answers must be True or False, got {early_answers!r}")
        self.early_answers = bool(early_answers)
        self.backend_name = backend.name
        self.working_size = int(working_size)
        self.tol = float(tol)
        self.n_examples = master.examples(n_rows)
        self.per = master.n_classes - 1
        self.caps = master.caps(self.n_examples)
        self._inf = import_highspy().kHighsInf
        h = self._h = backend.new_model()
        h.addVar(-self._inf, self._inf)  # gamma, column 0
        h.changeColCost(0, 1.0)
        h.addRow(1.0, 1.0, 0, np.empty(0, dtype=np.int32), np.empty(0))  # sum d_W = 1
        self._n_rows = 1
        self._cols = np.array([GAMMA], dtype=np.int64)  # per model column: pair, GAMMA or -2 - j
        self.in_w: np.ndarray | None = None  # per pair: in the working set
        self._cap_row = np.full(self.n_examples, -1, dtype=np.int64)  # per example: its cap row or -1
        self._ref: list[int] = []  # per hypothesis: its reference (-1: none)
        self._def_row: list[int] = []  # per hypothesis: its definition row
        self._pending: list[int] = []
        self._margins: np.ndarray | None = None  # pair margins at the last check
        self._left = 0  # pairs that left W after the last solve
        self._weights = np.empty(0)  # the keys' weights per column (_keys)

    # ---- hypotheses ------------------------------------------------------------------------------

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self.remember(u)
        self._pending.append(self.store.size - 1)

    def _where(self) -> np.ndarray:
        """Model column of each pair in W (-1 for the others)."""
        where = np.full(self.n_samples, -1, dtype=np.int64)
        pairs = self._cols >= 0
        where[self._cols[pairs]] = np.flatnonzero(pairs)
        return where

    def _f_cols(self) -> np.ndarray:
        """Model column of each hypothesis' f_j."""
        cols = np.flatnonzero(self._cols <= -2)
        out = np.empty(len(self._ref), dtype=np.intp)
        out[-2 - self._cols[cols]] = cols
        return out

    def _write_pending(self) -> None:
        """Write the hypotheses added since the last solve: f_j <= 0 and its definition row over W,
        from the earlier hypothesis that differs from it on the fewest pairs of W."""
        if not self._pending:
            return
        h, inf, data = self._h, self._inf, self.store.data
        W = np.flatnonzero(self.in_w)
        where = self._where()
        rows = take_rows(data, W, slice(0, self.store.size))
        for j in self._pending:
            on_w = rows[:, j].astype(float)
            ref, values = -1, on_w
            if j > 0 and W.size:
                differ = np.count_nonzero(rows[:, :j] != rows[:, j:j + 1], axis=0)
                best = int(np.argmin(differ))
                if differ[best] < np.count_nonzero(on_w):
                    ref, values = best, on_w - rows[:, best]
            h.addVar(-inf, 0.0)
            f = self._cols.size
            self._cols = np.append(self._cols, -2 - j)
            nz = np.flatnonzero(values)
            index = [where[W[nz]], [f]]
            value = [-values[nz], [1.0]]
            if ref >= 0:
                index.append([int(np.flatnonzero(self._cols == -2 - ref)[0])])
                value.append([-1.0])
            else:
                index.append([0])
                value.append([1.0])
            index_all = np.concatenate(index).astype(np.int32)
            h.addRow(0.0, 0.0, index_all.size, index_all, np.concatenate(value).astype(float))
            self._ref.append(ref)
            self._def_row.append(self._n_rows)
            self._n_rows += 1
        self._pending = []

    # ---- pairs (the working set) -------------------------------------------------------------

    def _keys(self, pairs: np.ndarray) -> np.ndarray:
        """A number per pair that depends only on its entries in the columns (equal for pairs with
        equal entries): the tie-break of every order the session takes, so that the live model is
        the same, up to pairs that are interchangeable, whatever the order of the examples."""
        size = self.store.size
        if self._weights.size < size:
            self._weights = np.random.default_rng(0).random(2 * size)
        return weighted_sum(self.store.data, np.arange(size), self._weights[:size], rows=pairs)

    def _order(self, pairs: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Positions of ``pairs`` by ``values`` (rounded to 12 decimals: round-off does not order), then
        by their keys."""
        return np.lexsort((self._keys(pairs), np.round(values, 12)))

    def _differences(self, pairs: np.ndarray) -> np.ndarray:
        """D[p, j] = (u^j - u^(r_j))_p for the pairs p (rows) and the hypotheses j written."""
        t = len(self._ref)
        D = take_rows(self.store.data, pairs, slice(0, t)).astype(float)
        ref = np.asarray(self._ref, dtype=np.intp)
        has = ref >= 0
        if has.any():
            D[:, has] -= D[:, ref[has]]
        return D

    def _initial_set(self) -> None:
        """W: the least-margin pair of each of the working_size examples of least margin under
        uniform weights on the columns so far (more when their caps sum below 1)."""
        t = self.store.size
        margins = weighted_sum(self.store.data, np.arange(t), np.full(t, 1.0 / t))
        self.in_w = np.zeros(self.n_samples, dtype=bool)
        self._enter(self._least_pairs(margins, self.working_size, np.ones(self.n_examples, dtype=bool)))

    def _least_pairs(self, margins: np.ndarray, count: int, candidates: np.ndarray) -> np.ndarray:
        """The least-margin pair of each of the ``count`` candidate examples of least margin, or of
        as many more as their caps need to sum to 1 with those of the examples in W."""
        block = margins.reshape(self.n_examples, self.per)
        slot = np.argmin(block, axis=1)
        least = block[np.arange(self.n_examples), slot]
        order = np.flatnonzero(candidates)
        order = order[self._order(order * self.per + slot[order], least[order])]
        have = float(self.caps[self._examples_in_w()].sum()) if self.in_w.any() else 0.0
        need = int(np.searchsorted(np.cumsum(self.caps[order]), 1.0 - have - 1e-12)) + 1
        chosen = order[:max(count, need)]
        return chosen * self.per + slot[chosen]

    def _examples_in_w(self) -> np.ndarray:
        return np.unique(np.flatnonzero(self.in_w) // self.per)

    def _enter(self, pairs: np.ndarray) -> None:
        """Pairs outside W become columns of the live model, in the order of their keys; an example
        then with two or more pairs in W gets its cap row."""
        if not pairs.size:
            return
        pairs = pairs[np.argsort(self._keys(pairs), kind="stable")]
        h = self._h
        examples = pairs // self.per
        D = self._differences(pairs) if self._ref else np.zeros((pairs.size, 0))
        cap_row = self._cap_row[examples]
        nz_rows, nz_cols = np.nonzero(D)
        counts = np.bincount(nz_rows, minlength=pairs.size) + 1 + (cap_row >= 0)
        starts = np.zeros(pairs.size, dtype=np.int32)
        starts[1:] = np.cumsum(counts)[:-1]
        index = np.empty(int(counts.sum()), dtype=np.int32)
        value = np.empty(index.size)
        index[starts] = 0  # the sum row
        value[starts] = 1.0
        position = starts[nz_rows] + 1 + (np.arange(nz_rows.size) - np.searchsorted(nz_rows, nz_rows))
        index[position] = np.asarray(self._def_row, dtype=np.int32)[nz_cols]
        value[position] = -D[nz_rows, nz_cols]
        has_row = np.flatnonzero(cap_row >= 0)
        last = starts + counts - 1
        index[last[has_row]] = cap_row[has_row]
        value[last[has_row]] = 1.0
        m = pairs.size
        h.addCols(m, np.zeros(m), np.zeros(m), self.caps[examples], index.size, starts, index, value)
        self._cols = np.append(self._cols, pairs)
        self.in_w[pairs] = True
        # examples with two or more pairs in W and no cap row yet: the row over their pairs
        counted = np.bincount(np.flatnonzero(self.in_w) // self.per, minlength=self.n_examples)
        new = examples[(counted[examples] >= 2) & (self._cap_row[examples] < 0)]
        new = new[np.sort(np.unique(new, return_index=True)[1])]  # in the order they entered
        if new.size:
            where = self._where()
            block = self.in_w.reshape(self.n_examples, self.per)[new]
            cols = [where[i * self.per + np.flatnonzero(b)] for i, b in zip(new, block)]
            lengths = np.array([c.size for c in cols])
            row_starts = np.zeros(new.size, dtype=np.int32)
            row_starts[1:] = np.cumsum(lengths)[:-1]
            flat = np.concatenate(cols).astype(np.int32)
            h.addRows(new.size, np.full(new.size, -self._inf), self.caps[new], flat.size, row_starts, flat,
                      np.ones(flat.size))
            self._cap_row[new] = self._n_rows + np.arange(new.size)
            self._n_rows += new.size

    def _leave(self, pairs: np.ndarray) -> None:
        """Pairs of W (nonbasic at 0) become fixed at 0 again."""
        if not pairs.size:
            return
        gone = np.sort(self._where()[pairs]).astype(np.int32)
        self._h.deleteCols(gone.size, gone)
        self._cols = np.delete(self._cols, gone)
        self.in_w[pairs] = False

    def refresh_caps(self) -> None:
        """The master's new caps as the bounds of W's d and of the cap rows; when the caps of the
        examples in W sum below 1, the least-margin pairs of more examples enter first."""
        self.caps = self.master.caps(self.n_examples)
        if self.in_w is None:
            return
        inside = self._examples_in_w()
        if float(self.caps[inside].sum()) < 1.0:
            outside = np.ones(self.n_examples, dtype=bool)
            outside[inside] = False
            margins = self._margins if self._margins is not None else np.zeros(self.n_samples)
            self._enter(self._least_pairs(margins, 0, outside))
        cols = np.flatnonzero(self._cols >= 0)
        upper = self.caps[self._cols[cols] // self.per]
        self._h.changeColsBounds(cols.size, cols.astype(np.int32), np.zeros(cols.size), upper)
        capped = np.flatnonzero(self._cap_row >= 0)
        if capped.size:
            rows = self._cap_row[capped].astype(np.int32)
            self._h.changeRowsBounds(rows.size, rows, np.full(rows.size, -self._inf), self.caps[capped])

    # ---- solve -----------------------------------------------------------------------------------

    def _slacks(self, margins: np.ndarray, rho: float) -> np.ndarray:
        """psi_i = max(0, rho - least margin of example i's pairs in W), 0 without pairs in W."""
        block = np.where(self.in_w, margins, np.inf).reshape(self.n_examples, self.per)
        return np.maximum(rho - block.min(axis=1), 0.0)

    def solve(self) -> MasterSolution:
        """The restricted master's optimum, certified by a check of every pair."""
        return self._solve(early=False)

    def solve_round(self) -> MasterSolution:
        """The optimum, or (``early_answers``) the feasible pair of the first run when its check of
        every pair finds violators: they enter the model and are solved with the next round's
        hypotheses."""
        return self._solve(early=self.early_answers)

    def _solve(self, early: bool) -> MasterSolution:
        self.require_columns()
        runs = SiftingRuns()
        if self.in_w is None:
            self._initial_set()
        self._write_pending()
        h = self._h
        entered = 0
        record: dict = {}
        while True:
            status = runs.run(h)
            if not status.ok:
                solution = runs.failed(h, self.n_samples, status)
                break
            sol = h.getSolution()
            active = np.asarray(self.store.active, dtype=np.intp)
            w = -np.asarray(sol.col_dual)[self._f_cols()[active]]
            rho = float(sol.row_dual[0])
            positive = w != 0.0
            margins = weighted_sum(self.store.data, active[positive], w[positive])
            psi = self._slacks(margins, rho)
            z = margins - rho + np.repeat(psi, self.per)  # reduced cost of every pair
            violators = np.flatnonzero(~self.in_w & (z < -self.tol))
            self._margins = margins
            if not violators.size or early:
                # the optimum; or an early answer: d feasible (0 outside W), and w with its value
                # rho - c . psi at the slacks of every pair, psi_i = (rho - least margin of i)^+
                if violators.size:
                    psi = np.maximum(rho - self.master.example_margins(margins), 0.0)
                solution = self._read(status, sol, w, rho, psi, z)
                # the verification reads these margins of w (every pair's, exact) rather than summing them
                solution.margins, solution.margins_exact_below = margins, np.inf
                if violators.size:  # they enter now, to be solved with the next round's hypotheses
                    solution.control.optimal = False
                    record = {"optimal": False, "violators": int(violators.size)}
                    self._enter(self._most_violated(violators, z))
                break
            violators = self._most_violated(violators, z)
            self._enter(violators)
            entered += violators.size
        return runs.finish(solution, self.backend_name, working=int(self.in_w.sum()), entered=entered,
                           left=self._left, **record)

    def _most_violated(self, violators: np.ndarray, z: np.ndarray) -> np.ndarray:
        """The violators that enter in one pass: all, or the working set's size (at least
        ``working_size``) of least reduced cost."""
        limit = max(self.working_size, int(self.in_w.sum()))
        if violators.size > limit:
            violators = violators[self._order(violators, z[violators])[:limit]]
        return violators

    def _read(self, status, sol, w, rho, psi, z) -> MasterSolution:
        """The solution over every pair (d = 0 outside W); then W is trimmed."""
        x = np.asarray(sol.col_value)
        d = np.zeros(self.n_samples)
        pairs = self._cols >= 0
        d[self._cols[pairs]] = x[pairs]
        solution = self.master.read_back(status, d, float(x[0]), w, rho, psi)
        active = np.asarray(self.store.active, dtype=np.intp)
        f = self._f_cols()
        solution.dual_edges = x[f[active]] + float(x[0])  # d . u^m = f_m + gamma
        positions = self.finish(solution)
        if positions.size:
            free = f[active[positions]].astype(np.int32)
            self._h.changeColsBounds(free.size, free, np.full(free.size, -self._inf), np.full(free.size, self._inf))
        self._trim(z)
        return solution

    def _trim(self, z: np.ndarray) -> None:
        """Back to ``working_size`` pairs, or twice the hypotheses if more: pairs nonbasic at 0 leave
        (the basis stays optimal), those of largest reduced cost first."""
        self._left = 0
        size = int(self.in_w.sum())
        target = max(self.working_size, 2 * len(self.store.active))
        if size <= target:
            return
        lower = int(import_highspy().HighsBasisStatus.kLower)
        status = np.asarray([int(s) for s in self._h.getBasis().col_status])
        cols = np.flatnonzero(self._cols >= 0)
        pairs = self._cols[cols]
        movable = np.flatnonzero(status[cols] == lower)
        surplus = min(movable.size, size - target)
        if surplus <= 0:
            return
        far = movable[self._order(pairs[movable], -z[pairs[movable]])[:surplus]]
        self._leave(pairs[far])
        self._left = int(far.size)

    @property
    def model(self):
        """The live ``highspy.Highs`` model over the working set (for inspection or export)."""
        if self.in_w is None and self.store.size:
            self._initial_set()
        self._write_pending()
        return self._h
