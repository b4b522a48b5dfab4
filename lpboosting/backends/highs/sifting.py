"""LPBoost's dual by sifting: a live HiGHS model over a working set of examples, checked on all N.

The master (:class:`lpboosting.masters.LPBoost`) is long and thin::

    min gamma  s.t.  d . u^m <= gamma (m = 1..t),  sum d = 1,  0 <= d_n <= c_n = p_n / nu

with N columns d and t + 1 rows.  At an optimum at most t + 1 of the d's lie
strictly between their bounds; an example's reduced cost z_n = margin_n -
rho (margin = U w) says where it belongs: d_n = 0 when z_n > 0, d_n = c_n
when z_n < 0.  (p is the empirical distribution: 1/N each, or the sample
weights normalised.)  Every simplex iteration of the full model prices all N
columns; sifting solves the LP over a *working set* W of examples instead.
The others are fixed: L_0 at 0, L_c at the cap, and folded into constants:

    sum_{n in W} d_n = 1 - sum_{n in L_c} c_n                                      dual: rho
    f_m - s_m f_(r_m) + (1 - s_m) gamma - sum_{n in W} (u^m - s_m u^(r_m))_n d_n
        = sum_{n in L_c} c_n (u^m - s_m u^(r_m))_n
    f_m <= 0                                                   dual (reduced cost): -w_m

Each hypothesis is written as its difference from the closest earlier one
(s_m = +-1; s_m = 0 and no r_m for the first, or a column that is not
+-1), as in :class:`~lpboosting.backends.highs.lpboost.HighsDeltaEdgeLP`,
and its edge constraint d . u^m <= gamma is the *bound* of its slack
variable f_m = d . u^m - gamma: one row a hypothesis.  After each solve
a check computes the margins U w and the reduced costs z of the fixed
examples (first of those nearest rho at the last full check, then of all
N); a fixed example on the wrong side of rho (z_n < 0 in L_0, z_n > 0 in
L_c) is a violator and enters W as a new column of the live model; the
model is re-solved from its basis until a check over all N finds none.
Then (d, gamma) is feasible for the full LP and (w, rho, psi = (rho -
margin)^+) is dual feasible for it with equal objectives: the answer is the
full LP's optimum, certified by that last check.

A column-generation round does not wait for that last check
(:meth:`HighsSiftingLP.solve_round`): after the first run its check over all
N gives the round a feasible pair, d with gamma = max_m d . u^m over the
restricted columns, and w with the value rho - sum_n c_n (rho - margin_n)^+,
a lower bound on the optimum of the full problem (any w in the simplex is
primal feasible, psi the slacks of its margins); the violators then enter,
to be solved with the next round's hypotheses in one run.  The loop takes
the gap from that lower bound and asks for the optimum (:meth:`solve`)
before it ends a run converged.

Examples far from rho leave W between rounds (only nonbasic ones, at their
bound, so the basis stays optimal), keeping the live model near
``working_size`` columns.  The first working set is the ``working_size``
examples ranked nearest the cap's boundary (the floor(nu N)-th smallest
margin under uniform weights on the first columns); the sets are feasible
at all times (the caps of L_c sum to at most 1, those of W and L_c to at least 1).
"""

from __future__ import annotations

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.model import HighsClock, SiftingRuns, import_highspy
from lpboosting.columns import (closest_references, column_dots, is_sign_column, screened_sum, take_rows,
                                weighted_sum)
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.lpboost import LPBoost

#: example states
FIXED_ZERO, WORKING, FIXED_CAP = 0, 1, 2
#: the working set's size: 2000 examples, or a fraction 1/WORKING_FRACTION of N when that is more
WORKING_SIZE, WORKING_FRACTION = 2000, 125


def default_working_size(n_samples: int) -> int:
    """2000 examples, or N / 125 from 250 000 rows on.

    The working set is the band of margins around rho that the model keeps
    between rounds; a round moves w, and the examples that cross rho out of
    the band enter again, each pass re-solved from the basis.  The band of
    a fixed number of examples narrows as N grows (the density of margins
    near rho grows with N), so from 250 000 rows it grows with N: on the
    twonorm generator a working set of 8000 rather than 2000 at 10^6 rows
    saved passes, and at 2 x 10^5 rows it cost them (docs/user-guide.md,
    "Scale, measured").
    """
    return max(WORKING_SIZE, int(n_samples) // WORKING_FRACTION)


class HighsSiftingLP(HighsClock, ColumnStoreSession):
    """LPBoost's dual over a working set of examples, the rest fixed at 0 or the cap.

    ``working_size`` (default :func:`default_working_size`: 2000, or N / 125
    from 250 000 rows) is the size the working set starts at and is trimmed
    back to between rounds (or twice the number of hypotheses, if larger);
    with N at most 4 ``working_size`` every example stays in the model (the
    same model over all N: below that a working set takes more passes than it
    saves; docs/user-guide.md, "Large N", has the measurement); ``max_entering``
    bounds the examples that enter
    per pass (default: the working set's size, so it at most doubles);
    ``tol`` is the reduced cost beyond which a fixed example is a violator.
    A pass first checks only the 10 ``working_size`` fixed examples nearest
    rho at the last full check (the likely violators); only when none of
    them is violated does it check all N, and only a clean full check ends
    the solve.  ``early_answers`` (default True): :meth:`solve_round`
    answers after the first run, with the feasible pair its check over all N
    gives, when examples remain to enter (``control.optimal`` False); False:
    every round's answer is the optimum.  ``record`` of each solution holds
    the passes, the full checks, the working-set size, the examples that
    entered and, for an early answer, ``optimal`` False and the
    ``violators`` that enter before the next solve.
    """

    def __init__(self, master: LPBoost, n_samples: int, backend, working_size: int | None = None,
                 max_entering: int | None = None, tol: float = 1e-9, early_answers: bool | None = None) -> None:
        super().__init__(master, n_samples, keep_data=True)
        options = getattr(backend, "session_options", {})
        working_size = options.get("working_size") if working_size is None else working_size
        if working_size is None:
            working_size = default_working_size(n_samples)
        max_entering = options.get("max_entering", max_entering)
        early_answers = options.get("early_answers", True) if early_answers is None else early_answers
        if not isinstance(early_answers, (bool, np.bool_)):
            raise ValueError(f"early_answers must be True or False, got {early_answers!r}")
        self.early_answers = bool(early_answers)
        if int(working_size) != working_size or working_size < 1:
            raise ValueError(f"working_size must be a positive integer, got {working_size!r}")
        self.backend_name = backend.name
        self.working_size = int(working_size)
        #: False when N is at most 4 working_size: then every example stays in the model
        self.sifting = self.n_samples > 4 * self.working_size
        self.max_entering = max_entering
        self.watch = 10 * self.working_size
        self._watch: np.ndarray | None = None  # fixed examples nearest rho at the last full check
        self.tol = float(tol)
        self.caps = master.caps(n_samples)
        highspy = import_highspy()
        self._inf = highspy.kHighsInf
        h = self._h = backend.new_model()
        h.addVar(-self._inf, self._inf)  # gamma, column 0
        h.changeColCost(0, 1.0)
        h.addRow(1.0, 1.0, 0, np.empty(0, dtype=np.int32), np.empty(0))  # sum d_W = 1 - c |L_c|
        self.state: np.ndarray | None = None  # per example: FIXED_ZERO, WORKING or FIXED_CAP
                # per model column: the example of a d column, -1 for gamma, -2 - j for f_j
        self._cols = np.array([-1], dtype=np.int64)
        # per hypothesis j: reference r_j (-1: none), sign s_j; its row is 1 + j (rows are never deleted)
        self._ref: list[int] = []
        self._sign: list[float] = []
        self._is_sign: list[bool] = []  # per hypothesis: +-1 on every example (may be a reference)
        self._constant: list[float] = []  # per hypothesis: right-hand side of its definition row
        self._pending: list[int] = []

    # ---- columns (hypotheses) -------------------------------------------------------------

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self.remember(u)
        self._is_sign.append(is_sign_column(u))
        self._pending.append(self.store.size - 1)

    def _differences(self, examples: np.ndarray) -> np.ndarray:
        """D[i, j] = (u^j - s_j u^(r_j))_n for the examples n (rows) and the hypotheses j written."""
        t = len(self._ref)
        rows = take_rows(self.store.data, examples, slice(0, t)).astype(float)
        ref = np.asarray(self._ref[:t], dtype=np.intp)
        has = ref >= 0
        if has.any():
            rows[:, has] -= rows[:, ref[has]] * np.asarray(self._sign[:t])[has]
        return rows

    def _working(self) -> np.ndarray:
        return np.flatnonzero(self.state == WORKING)

    def _write_pending(self) -> None:
        """Write the hypotheses added since the last solve: a slack variable f_j <= 0 and its
        row over W, from the closest earlier +-1 column on W."""
        if not self._pending:
            return
        h, inf, data = self._h, self._inf, self.store.data
        W = self._working()
        where = self._where()
        references = closest_references(data, W, self._pending[0], self._is_sign)
        # sum over L_c of c_n u_n and the rows on W of every pending column and its reference
        needed = np.unique(np.concatenate([self._pending, [r for r, _ in references if r >= 0]])).astype(np.intp)
        at = {int(j): i for i, j in enumerate(needed)}
        on_capped = column_dots(data, np.where(self.state == FIXED_CAP, self.caps, 0.0), needed)
        on_working = take_rows(data, W, needed).astype(float)
        for j, (ref, s) in zip(self._pending, references):
            self._ref.append(ref)
            self._sign.append(s)
            on_w = on_working[:, at[j]]
            constant = on_capped[at[j]]
            if ref >= 0:
                on_w = on_w - s * on_working[:, at[ref]]
                constant -= s * on_capped[at[ref]]
            nz = np.flatnonzero(on_w)
            constant = float(constant)
            self._constant.append(constant)
            h.addVar(-inf, 0.0)
            f = self._cols.size
            self._cols = np.append(self._cols, -2 - j)
            idx = [where[W[nz]], [f]]
            val = [-on_w[nz], [1.0]]
            if ref >= 0:
                idx.append([int(np.flatnonzero(self._cols == -2 - ref)[0])])
                val.append([-s])
            if s != 1.0:
                idx.append([0])
                val.append([1.0 - s])
            idx_all = np.concatenate(idx).astype(np.int32)
            h.addRow(constant, constant, idx_all.size, idx_all, np.concatenate(val))
        self._pending = []

    # ---- examples (the working set) -------------------------------------------------------

    def _where(self) -> np.ndarray:
        """Model column of each example in W (-1 for fixed examples)."""
        where = np.full(self.n_samples, -1, dtype=np.int64)
        d = self._cols >= 0
        where[self._cols[d]] = np.flatnonzero(d)
        return where

    def _initial_sets(self) -> None:
        """W: the working_size examples ranked around floor(nu N) by their margin under uniform
        weights on the columns so far; below them L_c, above them L_0."""
        n = self.n_samples
        t = self.store.size
        margins = weighted_sum(self.store.data, np.arange(t), np.full(t, 1.0 / t))
        order = np.argsort(margins, kind="stable")
        # k: how many examples the caps of the smallest margins hold before they exceed 1
        k = min(n, int(np.searchsorted(np.cumsum(self.caps[order]), 1.0 + 1e-12, side="right")))
        half = self.working_size // 2
        lo, hi = max(0, k - half), min(n, k + (self.working_size - half) + 1)
        if not self.sifting:
            lo, hi = 0, n
        self.state = np.full(n, FIXED_ZERO, dtype=np.int8)
        self.state[order[:lo]] = FIXED_CAP
        self._set_sum_row()
        self._enter(order[lo:hi])

    def _set_sum_row(self) -> None:
        capped_mass = float(self.caps[self.state == FIXED_CAP].sum())  # summed afresh: no drift
        rhs = max(0.0, 1.0 - capped_mass)
        self._h.changeRowBounds(0, rhs, rhs)

    def _shift_constants(self, examples: np.ndarray, sign: float) -> None:
        """Add sign * (sum over these examples of c_n times each definition row's differences)."""
        if not examples.size or not self._ref:
            return
        delta = sign * (self.caps[examples] @ self._differences(examples))
        constant = np.asarray(self._constant) + delta
        self._constant = constant.tolist()
        changed = np.flatnonzero(delta)
        if changed.size:
            r = (1 + changed).astype(np.int32)
            self._h.changeRowsBounds(r.size, r, constant[changed], constant[changed])

    def _enter(self, examples: np.ndarray) -> None:
        """Fixed examples become columns of the live model (their constants leave the rows)."""
        if not examples.size:
            return
        from_cap = examples[self.state[examples] == FIXED_CAP]
        self._shift_constants(from_cap, -1.0)
        D = self._differences(examples) if self._ref else np.zeros((examples.size, 0))
        nz_rows, nz_cols = np.nonzero(D)
        counts = np.bincount(nz_rows, minlength=examples.size) + 1
        starts = np.zeros(examples.size, dtype=np.int32)
        starts[1:] = np.cumsum(counts)[:-1]
        index = np.empty(int(counts.sum()), dtype=np.int32)
        value = np.empty(index.size)
        index[starts] = 0  # the sum row
        value[starts] = 1.0
        # entries of each example after its sum-row entry, in row order of np.nonzero
        position = starts[nz_rows] + 1 + (np.arange(nz_rows.size) - np.searchsorted(nz_rows, nz_rows))
        index[position] = 1 + nz_cols  # hypothesis j's row
        value[position] = -D[nz_rows, nz_cols]
        m = examples.size
        first = self._cols.size
        self._h.addCols(m, np.zeros(m), np.zeros(m), self.caps[examples], index.size, starts, index, value)
        self._cols = np.append(self._cols, examples)
        basis = self._h.getBasis() if from_cap.size else None
        if basis is not None and basis.valid:
            # examples that were at the cap enter at the cap: the primal point stays where it was
            highspy = import_highspy()
            status = list(basis.col_status)
            for i in np.flatnonzero(self.state[examples] == FIXED_CAP):
                status[first + i] = highspy.HighsBasisStatus.kUpper
            basis.col_status = status
            self._h.setBasis(basis)
        self.state[examples] = WORKING
        if from_cap.size:
            self._set_sum_row()

    def _leave(self, examples: np.ndarray, to_cap: np.ndarray) -> None:
        """Examples of W (nonbasic at 0, or at the cap where ``to_cap``) become fixed again."""
        if not examples.size:
            return
        where = self._where()
        capped = examples[to_cap]
        self._shift_constants(capped, 1.0)
        self.state[examples] = np.where(to_cap, FIXED_CAP, FIXED_ZERO)
        if capped.size:
            self._set_sum_row()
        gone = np.sort(where[examples]).astype(np.int32)
        self._h.deleteCols(gone.size, gone)
        self._cols = np.delete(self._cols, gone)

    def refresh_caps(self) -> None:
        """The master's new caps: bounds of the working set's d, the sum row and every hypothesis
        row's constant over L_c recomputed; the basis is kept.  When the fixed sets no longer fit
        the new caps (the caps of L_c sum above 1, or those of W and L_c below 1), the examples
        at the cap, then those at 0 nearest rho, enter the working set first."""
        self.caps = self.master.caps(self.n_samples)
        if self.state is None:
            return
        capped = np.flatnonzero(self.state == FIXED_CAP)
        if capped.size and float(self.caps[capped].sum()) > 1.0:
            self._enter(capped)
        capacity = float(self.caps[self.state != FIXED_ZERO].sum())
        if capacity < 1.0:
            zero = np.flatnonzero(self.state == FIXED_ZERO)
            order = zero if self._watch is None else np.concatenate(
                [np.intersect1d(self._watch, zero), np.setdiff1d(zero, self._watch)])
            need = np.searchsorted(np.cumsum(self.caps[order]), 1.0 - capacity + 1e-12) + 1
            self._enter(np.sort(order[:need]))
        cols = np.flatnonzero(self._cols >= 0)
        upper = self.caps[self._cols[cols]]
        self._h.changeColsBounds(cols.size, cols.astype(np.int32), np.zeros(cols.size), upper)
        self._set_sum_row()
        if self._ref:
            capped = np.flatnonzero(self.state == FIXED_CAP)
            constant = (self.caps[capped] @ self._differences(capped) if capped.size
                        else np.zeros(len(self._ref)))
            self._constant = np.asarray(constant, dtype=float).tolist()
            rows = (1 + np.arange(len(self._ref))).astype(np.int32)
            self._h.changeRowsBounds(rows.size, rows, np.asarray(self._constant), np.asarray(self._constant))

    # ---- solve ----------------------------------------------------------------------------

    def solve(self) -> MasterSolution:
        """The restricted master's optimum, certified by a check of every example."""
        return self._solve(early=False)

    def solve_round(self) -> MasterSolution:
        """The optimum, or (``early_answers``) the feasible pair of the first run when its
        check over all N finds violators: they enter the model and are solved with the next
        round's hypotheses."""
        return self._solve(early=True) if self.early_answers and self.sifting else self.solve()

    def _solve(self, early: bool) -> MasterSolution:
        self.require_columns()
        runs = SiftingRuns()
        if self.state is None:
            self._initial_sets()
        self._write_pending()
        h = self._h
        entered, checks = 0, 0
        record: dict = {}
        while True:
            status = runs.run(h)
            if not status.ok:
                solution = runs.failed(h, self.n_samples, status)
                break
            sol = h.getSolution()
            active = np.asarray(self.store.active, dtype=np.intp)
            # the weights the solution reports (read_back clips HiGHS's round-off below 0)
            w = np.maximum(-np.asarray(sol.col_dual)[self._slack_cols()[active]], 0.0)
            rho = float(sol.row_dual[0])
            positive = w != 0.0
            used, weights = active[positive], w[positive]
            violators = np.empty(0, dtype=np.intp)
            if self._watch is not None and not early:
                # a cheap check first: the fixed examples nearest rho at the last full check
                watch = self._watch[self.state[self._watch] != WORKING]
                # exact within tol of rho (the decisions), on the right side of it for certain elsewhere
                z = screened_sum(self.store.data, used, weights, rho + self.tol, rows=watch,
                                 above=rho - self.tol) - rho
                bad = self._wrong(self.state[watch], z)
                violators, scores = watch[bad], np.abs(z[bad])
            if not violators.size:  # none near rho: check all N (the certificate)
                checks += 1
                # exact where z <= tol (violators at 0, slacks), above tol for certain elsewhere
                margins = screened_sum(self.store.data, used, weights, rho + self.tol)
                z = margins - rho
                violators = np.flatnonzero(self._wrong(self.state, z))
                if not violators.size or early:
                    # the optimum; or an early answer: d feasible (the fixed examples at 0 or their
                    # cap), psi = (rho - margin)^+ over all N gives w's value rho - c . psi
                    solution = self._read(status, sol, w, rho, z)
                    # the verification reads these margins of w rather than summing them again
                    solution.margins, solution.margins_exact_below = margins, rho + self.tol
                    self._trim(z)
                    self._watch_nearest(z)
                    if violators.size:  # they enter now, to be solved with the next round's rows
                        solution.control.optimal = False
                        record = {"optimal": False, "violators": int(violators.size)}
                        self._enter(self._most_violated(violators, np.abs(z[violators])))
                    break
                scores = np.abs(z[violators])
                self._watch_nearest(z)
            violators = self._most_violated(violators, scores)
            self._enter(violators)
            entered += violators.size
        return runs.finish(solution, self.backend_name, checks=checks, working=int(np.sum(self.state == WORKING)),
                           entered=entered, **record)

    def _most_violated(self, violators: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """The violators that enter in one pass, sorted: all, or the ``max_entering`` (default the
        working set's size) of largest |z|."""
        limit = self.max_entering or max(self.working_size, int(np.sum(self.state == WORKING)))
        if violators.size > limit:
            violators = violators[np.argsort(-scores, kind="stable")[:limit]]
        return np.sort(violators)

    def _wrong(self, state: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Fixed examples on the wrong side of rho: at 0 with z < 0, at the cap with z > 0."""
        return ((state == FIXED_ZERO) & (z < -self.tol)) | ((state == FIXED_CAP) & (z > self.tol))

    def _watch_nearest(self, z: np.ndarray) -> None:
        """Remember the ``watch`` fixed examples nearest rho (smallest |z|) for cheap passes."""
        fixed = np.flatnonzero(self.state != WORKING)
        m = min(fixed.size, self.watch)
        if m == fixed.size:  # the watch would be every fixed example: check all N directly
            self._watch = None
            return
        self._watch = fixed[np.argpartition(np.abs(z[fixed]), m - 1)[:m]]

    def _read(self, status, sol, w, rho, z) -> MasterSolution:
        """The full-N solution: d from the model on W and from the sets elsewhere."""
        x = np.asarray(sol.col_value)
        d = np.where(self.state == FIXED_CAP, self.caps, 0.0)
        cols = self._cols >= 0
        d[self._cols[cols]] = x[cols]
        psi = np.maximum(-z, 0.0)
        solution = self.master.read_back(status, d, float(x[0]), w, rho, psi)
        active = np.asarray(self.store.active, dtype=np.intp)
        slack = self._slack_cols()
        solution.dual_edges = x[slack[active]] + float(x[0])  # d . u^m = f_m + gamma
        positions = self.finish(solution)
        if positions.size:
            # a removed hypothesis' edge constraint is dropped: its slack becomes free (its row
            # stays, later hypotheses may be written from it)
            free = slack[active[positions]].astype(np.int32)
            self._h.changeColsBounds(free.size, free, np.full(free.size, -self._inf),
                                     np.full(free.size, self._inf))
        return solution

    def _slack_cols(self) -> np.ndarray:
        """Model column of each hypothesis' slack f_j."""
        cols = np.flatnonzero(self._cols <= -2)
        out = np.empty(len(self._ref), dtype=np.intp)
        out[-2 - self._cols[cols]] = cols
        return out

    def _trim(self, z: np.ndarray) -> None:
        """Back to ``working_size`` examples, or twice the hypotheses if more: nonbasic ones leave at
        their bound (so the basis stays optimal), those whose margin is farthest from rho first."""
        working = np.sum(self.state == WORKING)
        if not self.sifting:
            return
        # at least twice as many examples as rows: an optimal basis needs up to one example a row
        target = max(self.working_size, 2 * len(self.store.active))
        if working <= target:
            return
        highspy = import_highspy()
        status = np.asarray([int(s) for s in self._h.getBasis().col_status])
        lower, upper = int(highspy.HighsBasisStatus.kLower), int(highspy.HighsBasisStatus.kUpper)
        cols = np.flatnonzero(self._cols >= 0)
        examples = self._cols[cols]
        at_zero = status[cols] == lower  # z >= 0 up to HiGHS's tolerance: optimal at 0
        at_cap = status[cols] == upper
        movable = np.flatnonzero(at_zero | at_cap)
        surplus = min(movable.size, int(working - target))
        if surplus <= 0:
            return
        far = movable[np.argsort(-np.abs(z[examples[movable]]), kind="stable")[:surplus]]
        self._leave(examples[far], at_cap[far])

    @property
    def model(self):
        """The live ``highspy.Highs`` model over the working set (for inspection or export)."""
        if self.state is None and self.store.size:
            self._initial_sets()
        self._write_pending()
        return self._h
