"""RMBoost's primal (16) by sifting: margin rows of a working set of examples, columns as differences.

The model of :class:`lpboosting.masters.RMBoost` (see
:mod:`lpboosting.backends.highs.rmboost`)::

    R = 1/2 + min  sum_j (lam - tau_j) mu+_j + (lam + tau_j) mu-_j
        s.t.  -1/2 <= (U (mu+ - mu-))_i <= 1/2   (i = 1..n),   mu+, mu- >= 0

has n rows, one per example, and 2t columns.  Two things make it cheap here.

**Sifting over examples.**  tau = U^T p is in the costs, so the rows only
bound the margins: the LP over the rows of a *working set* W of examples is
a relaxation of (16), and its optimum mu is optimal for (16) as soon as
every other example's margin lies in [-1/2, 1/2]; the duals alpha', beta' of
the rows outside W are then 0, and with those zeros they are an optimal dual
of (16) (complementary slackness holds row by row).  The certificate is the
master's own check over all n.

Which optimal dual.  RMBoost prices at *central* duals (interior point
without crossover, :mod:`lpboosting.masters.rmboost`).  Every optimal dual
of (16) is 0 on the rows whose margin at an optimal mu lies strictly inside
(-1/2, 1/2), so the optimal dual face of (16) is that of the LP over any W
that holds every row *at* the bound: the session adds to W the rows outside
it whose margin is within ``tight`` of +-1/2 as well as those beyond, and
re-solves until none is left.  The interior point's answer over W then lies
inside the optimal dual face of (16), as it does over all n rows (not the
same point: where an interior point ends depends on the model it is given),
on a model with the rows at or near the bound instead of all n.  With one
column every row is at the bound, and W would be every row until the
columns separate the examples: W takes at most ``max_tight`` (5000) rows at
the bound, a fixed pseudo-random sample of them when there are more
(violated rows always enter).  The answer is then still an optimum of (16)
with an optimal dual (zero on the rows left out), but not inside the whole
face, and column generation needs more rounds (docs/user-guide.md, "Large
N").  Between rounds the rows farthest inside the bounds leave W,
keeping it near ``working_size`` rows (or four per active column, if more);
a row leaves only when its margin is more than ``tight`` inside.

**Columns as differences** (as LPBoost's
:class:`~lpboosting.backends.highs.sifting.HighsSiftingLP` writes its
rows).  Stump and tree columns are +-1 and a new one differs from some
earlier one on few examples: u_j = s_j u_(r_j) + delta_j with s_j = +-1 and
delta_j sparse (s_j = 0 and no r_j for the first column, or one that is not
+-1).  With U = Delta (I - S)^(-1) (S[r_j, j] = s_j) the margins are
U mu = Delta z for the free variables z = (I - S)^(-1) mu, tied to mu by one
row per column::

    -1/2 <= (Delta z)_i <= 1/2                                  (i in W)
    mu+_j - mu-_j - z_j + sum_{k: r_k = j} s_k z_k = 0           (j = 1..t)

The margin rows hold the nonzeros of Delta, far fewer than those of U
(docs/user-guide.md, "Large N", has the measurement).  A column the pool
removes loses mu+_j and mu-_j; its z_j and its row stay (they now say
mu_j = 0), as later columns may be written from it.

**A bounded relaxation.**  Over a few rows the LP can be unbounded (a
direction of mu that keeps the margins of W at 0 and lowers the cost), so
the model holds one more row, sum_j (mu+_j + mu-_j) <= 1/lam.  It cuts off
no optimum of (16): 0 is feasible with F(0) = 1/2, and a feasible mu has
tau^T mu = p^T (U mu) <= 1/2, so F(mu) >= lam ||mu||_1, above 1/2 once
||mu||_1 > 1/(2 lam).  At an answer that satisfies every row the norm row
is therefore slack, and its dual is 0.

The session's ``record`` holds the passes, the rows of W and those that entered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.highs.model import HighsClock, HighspyBackend, SiftingRuns, import_highspy
from lpboosting.backends.highs.rmboost import read_pairs
from lpboosting.columns import closest_references, weighted_sum
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.rmboost import RMBoost

#: the rows the working set starts at and is trimmed back to
WORKING_SIZE = 500

#: the most rows W holds for the examples at the bound (violated rows always enter)
MAX_TIGHT = 5000

#: the code of the norm row in the session's list of model rows
NORM = np.iinfo(np.intp).min


class HighsMinimaxSifting(HighsClock, ColumnStoreSession):
    """RMBoost's primal (16) over the margin rows of a working set W of examples, checked on all n.

    Model columns are mu+_j, mu-_j and z_j for every column written (mu+_j
    and mu-_j only while it is active); model rows are the examples of W and
    one definition row per column written.  ``tol`` is how far beyond +-1/2
    a margin outside W may lie (the master's check allows its
    ``verify_tol``), ``tight`` how close to +-1/2 a margin outside W counts
    as at the bound.
    """

    #: kinds of model columns
    PLUS, MINUS, Z = 0, 1, 2

    def __init__(self, master: RMBoost, n_samples: int, backend: HighspyBackend,
                 working_size: int | None = None, tol: float = 1e-9, tight: float = 1e-7,
                 max_tight: int | None = None) -> None:
        super().__init__(master, n_samples, keep_data=True)
        options = getattr(backend, "session_options", {})
        working_size = options.get("working_size", WORKING_SIZE) if working_size is None else working_size
        if int(working_size) != working_size or working_size < 1:
            raise ValueError(f"working_size must be a positive integer, got {working_size!r}")
        self.working_size = int(working_size)
        self.backend_name = backend.name
        self.lam = master.lam_for(n_samples)
        self.prior = master.prior(n_samples) if master.weighted else None
        #: the examples with a margin constraint (rows of weight 0 have none)
        self.constrained = master.constrained(n_samples)
        self.tol, self.tight = float(tol), float(tight)
        #: at most this many rows in W for the rows at the bound (violated rows always enter)
        self.max_tight = int(options.get("max_tight", MAX_TIGHT) if max_tight is None else max_tight)
        # the order in which rows at the bound enter when not all may: a fixed pseudo-random one
        self._priority = np.random.default_rng(0).permutation(n_samples)
        self._inf = import_highspy().kHighsInf
        self._h = backend.new_model()
        self._h.changeObjectiveOffset(0.5)
        # row 0, the norm row: sum_j (mu+_j + mu-_j) <= 1 / lam
        self._h.addRow(-self._inf, 1.0 / self.lam, 0, np.empty(0, dtype=np.int32), np.empty(0))
        #: per model column: its kind (PLUS, MINUS, Z) and its column's session index
        self._kind = np.empty(0, dtype=np.int8)
        self._of = np.empty(0, dtype=np.intp)
        #: per model row: its example (>= 0), -1 - j for column j's definition row, NORM for row 0
        self._row = np.array([NORM], dtype=np.intp)
        self.in_w = np.zeros(n_samples, dtype=bool)
        # per column written: reference r_j (-1: none) and sign s_j
        self._ref: list[int] = []
        self._sign: list[float] = []
        self._is_sign: list[bool] = []
        self._pending: list[int] = []

    # ---- bookkeeping of the live model ----------------------------------------------------

    @property
    def rows(self) -> np.ndarray:
        """The examples of W, in model order."""
        return self._row[self._row >= 0]

    def _model_cols(self, kind: int, index: np.ndarray) -> np.ndarray:
        """Model column of (kind, j) for each session index j (all present)."""
        where = np.full(self.store.size, -1, dtype=np.intp)
        mine = np.flatnonzero(self._kind == kind)
        where[self._of[mine]] = mine
        return where[np.asarray(index, dtype=np.intp)]

    def _add_weight(self, kind: int, j: int, cost: float) -> int:
        """mu+_j or mu-_j (>= 0, with its entry 1 in the norm row); returns its position."""
        self._h.addCol(cost, 0.0, self._inf, 1, np.array([0], dtype=np.int32), np.array([1.0]))
        col = self._kind.size
        self._kind = np.append(self._kind, np.int8(kind))
        self._of = np.append(self._of, j)
        return col

    def _differences(self, examples: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """Delta[i, j] = (u_j - s_j u_(r_j))_i for these examples (rows) and written columns."""
        data = self.store.data
        block = data[np.ix_(examples, columns)].astype(float)
        ref = np.asarray(self._ref, dtype=np.intp)[columns]
        has = ref >= 0
        if has.any():
            sign = np.asarray(self._sign)[columns][has]
            block[:, has] -= data[np.ix_(examples, ref[has])] * sign
        return block

    # ---- columns ----------------------------------------------------------------------------

    def add_column(self, column, edge=None):
        u = check_column(column, self.n_samples)
        self.remember(u)
        self._is_sign.append(bool(np.all(np.abs(u) == 1.0)))
        self._pending.append(self.store.size - 1)

    def _write_pending(self) -> None:
        """mu+_j, mu-_j, z_j and the definition row of each column added since the last solve; z_j's
        entries on W from the closest earlier +-1 column on W."""
        if not self._pending:
            return
        h, data = self._h, self.store.data
        W = self.rows
        references = closest_references(data, W, self._pending[0], self._is_sign)
        for j, (ref, s) in zip(self._pending, references):
            self._ref.append(ref)
            self._sign.append(s)
            u = data[:, j].astype(float)
            tau = float(u.mean()) if self.prior is None else float(self.prior @ u)
            plus = self._add_weight(self.PLUS, j, self.lam - tau)
            minus = self._add_weight(self.MINUS, j, self.lam + tau)
            # the definition row of column j: mu+_j - mu-_j - z_j (+ s_k z_k for later k with r_k = j)
            h.addRow(0.0, 0.0, 2, np.array([plus, minus], dtype=np.int32), np.array([1.0, -1.0]))
            self._row = np.append(self._row, -1 - j)
            # z_j: -1 in its row, s_j in its reference's row, delta_j on the rows of W
            index, value = [np.array([self._row.size - 1])], [np.array([-1.0])]
            if ref >= 0:
                index.append(np.flatnonzero(self._row == -1 - ref))
                value.append(np.array([s]))
            if W.size:
                delta = u[W] - s * data[W, ref] if ref >= 0 else u[W]
                nz = np.flatnonzero(delta)
                index.append(np.flatnonzero(self._row >= 0)[nz])
                value.append(delta[nz])
            index_all = np.concatenate(index).astype(np.int32)
            h.addCol(0.0, -self._inf, self._inf, index_all.size, index_all, np.concatenate(value))
            self._kind = np.append(self._kind, np.int8(self.Z))
            self._of = np.append(self._of, j)
        self._pending = []

    # ---- rows (the working set) -------------------------------------------------------------

    def _enter(self, examples: np.ndarray) -> None:
        """Rows -1/2 <= (Delta z)_i <= 1/2 for these examples, over every z written."""
        if not examples.size:
            return
        written = np.arange(len(self._ref))
        block = self._differences(examples, written) if written.size else np.zeros((examples.size, 0))
        r, c = np.nonzero(block)
        zcols = self._model_cols(self.Z, written)
        counts = np.bincount(r, minlength=examples.size)
        starts = np.zeros(examples.size, dtype=np.int32)
        starts[1:] = np.cumsum(counts)[:-1]
        m = examples.size
        self._h.addRows(m, np.full(m, -0.5), np.full(m, 0.5), r.size, starts,
                        zcols[c].astype(np.int32), block[r, c])
        self._row = np.concatenate([self._row, examples])
        self.in_w[examples] = True

    def _leave(self, examples: np.ndarray) -> None:
        """These examples' rows leave W."""
        if not examples.size:
            return
        positions = np.flatnonzero(np.isin(self._row, examples)).astype(np.int32)
        self._h.deleteRows(positions.size, positions)
        self._row = np.delete(self._row, positions)
        self.in_w[examples] = False

    def _first_rows(self) -> np.ndarray:
        """W to start from: the working_size constrained examples whose margins under
        mu_j = sign(tau_j) / t are largest in size (the columns agree on them: likely at the bound)."""
        data, t = self.store.data, self.store.size
        tau = np.asarray([float(data[:, j].astype(float).mean()) for j in range(t)])
        margins = np.abs(weighted_sum(data, np.arange(t), np.where(tau < 0, -1.0, 1.0)))
        candidates = np.flatnonzero(self.constrained)
        m = min(candidates.size, self.working_size)
        order = np.argsort(-margins[candidates], kind="stable")[:m]
        return np.sort(candidates[order])

    # ---- solve ------------------------------------------------------------------------------

    def solve(self) -> MasterSolution:
        self.require_columns()
        runs = SiftingRuns()
        h, n = self._h, self.n_samples
        first = not self._ref
        self._write_pending()
        if first:
            self._enter(self._first_rows())
        entered = 0
        while True:
            status = runs.run(h)
            if not status.ok:
                solution = runs.failed(h, n, status)
                break
            info = h.getInfo()
            sol = h.getSolution()
            x = np.asarray(sol.col_value)
            active = np.asarray(self.store.active, dtype=np.intp)
            mu = x[self._model_cols(self.PLUS, active)] - x[self._model_cols(self.MINUS, active)]
            nonzero = np.flatnonzero(mu)
            margins = np.abs(weighted_sum(self.store.data, active[nonzero], mu[nonzero]))
            outside = self.constrained & ~self.in_w
            violated = np.flatnonzero(outside & (margins > 0.5 + self.tol))
            at_bound = np.flatnonzero(outside & (margins >= 0.5 - self.tight) & (margins <= 0.5 + self.tol))
            room = self.max_tight - int(self.in_w.sum()) - violated.size
            if at_bound.size > max(room, 0):  # a sample of them, in the session's fixed order
                at_bound = at_bound[np.argsort(self._priority[at_bound], kind="stable")[:max(room, 0)]]
            enter = np.concatenate([violated, at_bound])
            if not enter.size:
                solution = self._read(status, sol, info, mu, margins)
                break
            self._enter(enter)
            entered += enter.size
        return runs.finish(solution, self.backend_name, working=int(self.in_w.sum()), entered=entered)

    def _read(self, status, sol, info, mu: np.ndarray, margins: np.ndarray) -> MasterSolution:
        """The full-n solution (duals 0 outside W), the pool's removals, then W trimmed."""
        row_dual = np.zeros(self.n_samples)
        examples = self._row >= 0
        row_dual[self._row[examples]] = np.asarray(sol.row_dual)[examples]
        pairs = np.empty(2 * mu.size)
        pairs[0::2], pairs[1::2] = np.maximum(mu, 0.0), np.maximum(-mu, 0.0)
        solution = read_pairs(self.master, status, self.store.active_data(), pairs, row_dual, self.lam)
        solution.info["highs_objective"] = float(info.objective_function_value)
        active = np.asarray(self.store.active, dtype=np.intp)
        positions = self.finish(solution)
        if positions.size:
            gone = active[positions]
            cols = np.concatenate([self._model_cols(self.PLUS, gone), self._model_cols(self.MINUS, gone)])
            cols = np.sort(cols).astype(np.int32)
            self._h.deleteCols(cols.size, cols)
            self._kind = np.delete(self._kind, cols)
            self._of = np.delete(self._of, cols)
        self._trim(margins)
        return solution

    def _trim(self, margins: np.ndarray) -> None:
        """Back to working_size rows (or four per active column): the rows of W farthest inside
        the bounds leave, none within ``tight`` of them."""
        W = self.rows
        target = max(self.working_size, 4 * len(self.store.active))
        if W.size <= target:
            return
        inside = 0.5 - margins[W]
        movable = np.flatnonzero(inside > self.tight)
        surplus = min(movable.size, W.size - target)
        if surplus <= 0:
            return
        self._leave(W[movable[np.argsort(-inside[movable], kind="stable")[:surplus]]])

    @property
    def model(self) -> Any:
        """The live ``highspy.Highs`` model (for inspection or export)."""
        return self._h


def minimax_session(master: RMBoost, n_samples: int, backend: HighspyBackend) -> ColumnStoreSession:
    """The HiGHS session of RMBoost: :class:`HighsMinimaxSifting` above ``working_size`` constrained
    examples, the model over every row (:class:`~lpboosting.backends.highs.rmboost.HighsMinimaxLP`)
    up to it."""
    from lpboosting.backends.highs.rmboost import HighsMinimaxLP

    working_size = getattr(backend, "session_options", {}).get("working_size", WORKING_SIZE)
    if int(np.count_nonzero(master.constrained(n_samples))) > working_size:
        return HighsMinimaxSifting(master, n_samples, backend)
    return HighsMinimaxLP(master, n_samples, backend)
