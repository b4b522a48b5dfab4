r"""RMBoost: robust minimax boosting, the minimax-risk LP and its dual.

*Robust minimax boosting* (RMBoost), NeurIPS 2025 — eq. (5)-(8) (the
uncertainty set, the LP (6), the rules (7)-(8)), eq. (16)-(19) (the
restricted primal/dual and the oracle's weighting) and Algorithm 1 (column
generation with removal of strictly satisfied dual constraints).  The paper
is ``../shared/papers/003_2fe13a161f021b6a.txt``.

Paper form
----------
With training samples (x_i, y_i), y_i = +-1, the vector h(x) of the outputs
of the base rules chosen so far (each in [-1, 1]) and tau = (1/n) sum_i y_i h(x_i)::

    (16)  R = min_{mu+, mu- >= 0}  1/2 - tau^T (mu+ - mu-) + lam 1^T (mu+ + mu-)
              s.t.  -1/2 <= h(x_i)^T (mu+ - mu-) <= 1/2      (i = 1..n)
                    upper block: dual alpha_i >= 0,  lower block: dual beta_i >= 0

    (17)  max_{alpha, beta >= 0}  1/2 (1 - 1^T (alpha + beta))
              s.t.  -lam <= v_j^T (alpha - beta - y/n) <= lam   (j = 1..t)

where v_j = (h_j(x_1), ..., h_j(x_n)).  A new base rule h violates (17) when
|sum_i h(x_i) (y_i/n - (alpha_i - beta_i))| > lam; since -h is a base rule
too, the oracle maximises (18) sum_i w_i ytilde_i h(x_i) with (19)
w_i = |y_i/n - (alpha_i - beta_i)|, ytilde_i = sign(y_i/n - (alpha_i - beta_i)).
The optimum of (16) is the minimax risk R (Theorem 1), an upper bound on the
expected error of the randomised rule h(y|x) = clip(y h(x)^T mu + 1/2, 0, 1)
(eq. 7-8) under every distribution of the uncertainty set (5).

Margin form (what this module solves)
-------------------------------------
The library works with margin columns u_j = y * v_j (U[i, j] = y_i h_j(x_i)).
Because -1/2 <= h(x_i)^T mu <= 1/2 is symmetric, it is the same constraint as
-1/2 <= (U mu)_i <= 1/2, and tau = U^T 1 / n, so the LP is solved from U alone::

    min_{mu+, mu- >= 0}  1/2 - tau^T mu + lam ||mu||_1,   mu = mu+ - mu-
    s.t.  (U mu)_i <=  1/2     dual alpha'_i >= 0   ("upper" block)
          (U mu)_i >= -1/2     dual beta'_i  >= 0   ("lower" block)

    dual: max 1/2 (1 - 1^T (alpha' + beta'))  s.t.  |u_j^T (1/n - alpha' + beta')| <= lam.

**Sign convention (one for every backend).**  alpha', beta' are the
non-negative multipliers of the upper and lower *margin* blocks.  For
y_i = +1 they are the paper's (alpha_i, beta_i); for y_i = -1 the upper
margin row is the paper's *lower* row, so the roles swap:
(alpha_i, beta_i) = (beta'_i, alpha'_i).  In one line
alpha - beta = y * (alpha' - beta') and alpha + beta = alpha' + beta';
:func:`paper_duals` does the mapping (it is its own inverse).

**The weighting handed to the oracle** is the *signed* vector
d_i = 1/n - (alpha'_i - beta'_i) = y_i (y_i/n - (alpha_i - beta_i)), so that
d . u = sum_i w_i ytilde_i h(x_i), the objective of (18); |d_i| = w_i and
y_i sign(d_i) = ytilde_i (:func:`oracle_weighting`).  It is not a probability
vector.  The first round prices the uniform d = 1/n (Algorithm 1, Step 1:
w = 1/n, ytilde = y).  The reduced costs of mu+_j and mu-_j are
lam - d . u_j and lam + d . u_j; column generation stops when the best new
edge d . u is <= lam + tol (Step 5); with an exact oracle the gap reported is
max(edge - lam, 0).

Removal (Algorithm 1, Steps 14-16): with ``prune=True`` a column whose dual
constraint is strictly satisfied, |d . u_j| < lam, and whose weight is zero
is deleted from the live model after the solve (the current solution stays
optimal for the smaller LP).  ``MasterSolution.weights`` still has one entry
per column ever added (zeros for removed columns).  Safeguard (not in the
paper): a base rule is removed at most once — if the oracle generates a
column equal to one removed before, it is kept for good.  The master is
highly degenerate (many margins sit at +-1/2, so the optimal duals are not
unique); without the safeguard a solver that returns a different optimal
dual each round (e.g. a cvxpy rebuild) can remove and re-add the same base
rules forever at the optimum.  With it, a finite class of base rules gives a
finite number of removals, after which the column set only grows, so column
generation terminates.

Backends.  ``"dedicated"`` (the default, :class:`DedicatedMinimaxSession`)
solves the dual (17) by a dense dual simplex whose basis has one row per
active base rule (:mod:`lpboosting.masters.minimax_simplex`), checks every
answer and re-solves a rejected one with HiGHS.  ``"highspy"``
(:class:`HighsMinimaxLP`) keeps one live HiGHS model of (16), n rows and a
column pair per base rule.  ``"cvxpy:SOLVER"`` rebuilds the statement.

Degeneracy also means that a simplex backend (dedicated, highspy,
cvxpy:HIGHS) hands the oracle a *vertex* of the optimal dual face, often
concentrated on a few examples; with a heuristic oracle (trees) R can then
stay flat for many rounds while the edges stay far above lam.  Backends
pick different vertices, so with trees they grow different ensembles.  An
interior-point backend (cvxpy:CLARABEL, or
``HighspyBackend(solver="ipm", run_crossover="off")``) returns a more
central dual; which one makes better progress is data dependent.

The pricing class must be closed under negation (the paper assumes
-h in H): the loop only sees the largest edge d . u, and optimality needs
|d . u| <= lam for every base rule.  Stumps, Features and Trees (which fit
the labels y * sign(d)) are; for a finite ``Columns`` pool pass [U, -U].
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from lpboosting.masters.base import (
    CvxpyStatement,
    Master,
    MasterSession,
    MasterSolution,
)
from lpboosting.status import SolveStatus

if TYPE_CHECKING:  # pragma: no cover
    from lpboosting.backends.base import Backend

__all__ = [
    "DedicatedMinimaxSession", "HighsMinimaxLP", "RMBoost", "RMBoostCvxpySession", "check_lam",
    "minimax_objective", "solve_minimax_with_highs",
    "oracle_weighting", "paper_duals",
]


def check_lam(lam: Any) -> float | None:
    """Validate the regularisation lam (None = 1/sqrt(n)); returns a float or None."""
    if lam is None:
        return None
    if isinstance(lam, (bool, np.bool_)):
        raise ValueError(f"lam must be a finite number > 0 (or None for 1/sqrt(n)), got {lam!r}")
    try:
        value = float(lam)
    except (TypeError, ValueError):
        raise ValueError(
            f"lam must be a finite number > 0 (or None for 1/sqrt(n)), got {lam!r}"
        ) from None
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(
            f"lam must be a finite number > 0, got {lam!r}; it bounds the deviation of the "
            "expectations of the base rules in the uncertainty set (eq. 5); the paper's default "
            "is lam = 1/sqrt(n) (pass lam=None)"
        )
    return value


def paper_duals(alpha: Any, beta: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Map the margin-form duals (alpha', beta') to the paper's (alpha, beta) of (16)-(17).

    For y_i = +1 nothing changes; for y_i = -1 the two blocks swap.  The map
    is an involution: applied to the paper's duals it gives the margin form.
    """
    alpha = np.asarray(alpha, dtype=float)
    beta = np.asarray(beta, dtype=float)
    y = np.asarray(y, dtype=float)
    if not (alpha.shape == beta.shape == y.shape):
        raise ValueError(f"alpha, beta and y must have one entry per example, got shapes "
                         f"{alpha.shape}, {beta.shape}, {y.shape}")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold the labels as -1/+1")
    positive = y > 0
    return np.where(positive, alpha, beta), np.where(positive, beta, alpha)


def oracle_weighting(distribution: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """(w, ytilde) of eq. (19) from the signed margin-form weighting d and the labels y.

    w_i = |d_i| and ytilde_i = y_i sign(d_i) (y_i where d_i = 0, whose weight
    is zero anyway), so that sum_i w_i ytilde_i h(x_i) = d . (y * h).
    """
    d = np.asarray(distribution, dtype=float)
    y = np.asarray(y, dtype=float)
    return np.abs(d), np.where(d < 0, -y, y)


def minimax_objective(U: np.ndarray, mu: np.ndarray, lam: float) -> float:
    """F(mu) = 1/2 - tau^T mu + lam ||mu||_1 with tau = U^T 1 / n (the objective of (6))."""
    U = np.asarray(U, dtype=float)
    mu = np.asarray(mu, dtype=float)
    tau = U.mean(axis=0)
    return float(0.5 - tau @ mu + lam * np.abs(mu).sum())


class RMBoost(Master):
    r"""The RMBoost master (minimax-risk LP (16), dual (17)) over the columns found so far.

    See the module docstring for the full model.  Summary, with margin
    matrix U (n x t, U[i, j] = y_i h_j(x_i)) and tau = U^T 1/n::

        primal  R = min_{mu+, mu- >= 0} 1/2 - tau^T mu + lam ||mu||_1   (mu = mu+ - mu-)
                    s.t. -1/2 <= (U mu)_i <= 1/2       duals beta'_i (lower), alpha'_i (upper)
        dual    max_{alpha', beta' >= 0} 1/2 (1 - 1^T (alpha' + beta'))
                    s.t. |u_j^T (1/n - alpha' + beta')| <= lam      (j = 1..t)

    :class:`~lpboosting.masters.MasterSolution` fields: ``objective`` = R =
    ``primal_objective`` = F(mu) (evaluated from mu, not read from the
    solver); ``dual_objective`` = value of (17) at the returned duals;
    ``weights`` = mu (signed); ``distribution`` = the signed oracle
    weighting d = 1/n - (alpha' - beta') (NOT a probability vector);
    ``gamma`` = lam.  ``info`` holds ``alpha``/``beta`` (margin form; use
    :func:`paper_duals` with y for the paper's), ``lam``, ``dual_edges``
    (d . u_j for every column added, NaN for removed ones) and ``record``
    (``risk``, ``lam``, ``l1`` = ||mu||_1, ``nonzero``, ``removed`` = columns
    removed after this solve, ``active`` = columns left in the master).

    Parameters
    ----------
    lam:
        lam > 0 (finite); None means 1/sqrt(n), fixed when the session opens.
    prune:
        Remove columns whose dual constraint is strictly satisfied
        (|d . u_j| < lam - ``prune_tol``) and whose weight is zero
        (|mu_j| <= ``zero_tol``) after each solve (Algorithm 1, Steps 14-16),
        except columns equal to one removed before (anti-cycling safeguard,
        see the module docstring).
    """

    kind = "lp"
    name = "RMBoost"
    #: solved by default by the "dedicated" backend (a dense dual simplex on (17), see
    #: DedicatedMinimaxSession); "highspy" (one live HiGHS model of (16)) and cvxpy too
    dedicated_solver = True
    default_backend = "dedicated"
    #: a dual constraint counts as strictly satisfied when |d . u_j| < lam - prune_tol
    prune_tol: float = 1e-7
    #: a weight counts as zero when |mu_j| <= zero_tol
    zero_tol: float = 1e-9

    def __init__(self, lam: float | None = None, prune: bool = True) -> None:
        self.lam = check_lam(lam)
        if not isinstance(prune, (bool, np.bool_)):
            raise ValueError(f"prune must be True or False, got {prune!r}")
        self.prune = bool(prune)

    def lam_for(self, n_samples: int) -> float:
        """lam for n examples: the given value, or 1/sqrt(n) (the paper's default)."""
        if self.lam is not None:
            return self.lam
        if n_samples < 1:
            raise ValueError(f"n_samples must be >= 1, got {n_samples}")
        return 1.0 / math.sqrt(n_samples)

    def params(self) -> dict[str, Any]:
        return {"lam": self.lam, "prune": self.prune}

    def __repr__(self) -> str:
        return f"RMBoost(lam={self.lam!r}, prune={self.prune!r})"

    # -- column generation ---------------------------------------------------------
    def initial_distribution(self, n_samples: int) -> np.ndarray:
        """Algorithm 1, Step 1: w = 1/n and ytilde = y, i.e. d = 1/n."""
        return np.full(n_samples, 1.0 / n_samples)

    def gap(self, solution: MasterSolution, edge: float) -> float:
        """max(edge - lam, 0): the largest reduced-cost violation an exact oracle found."""
        return float(max(edge - float(solution.gamma), 0.0))

    def converged(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        """Algorithm 1, Step 5: stop when sum_i w_i ytilde_i h(x_i) = d . u <= lam (+ tol)."""
        return bool(edge <= float(solution.gamma) + tol)

    # -- cvxpy statement -------------------------------------------------------------
    def cvxpy_statement(self, U: np.ndarray) -> CvxpyStatement:
        import cvxpy as cp

        n, t = U.shape
        lam = self.lam_for(n)
        tau = U.mean(axis=0)
        mu_plus = cp.Variable(t, nonneg=True, name="mu_plus")
        mu_minus = cp.Variable(t, nonneg=True, name="mu_minus")
        margins = U @ (mu_plus - mu_minus)
        upper = margins <= 0.5
        lower = margins >= -0.5
        objective = 0.5 - tau @ (mu_plus - mu_minus) + lam * cp.sum(mu_plus + mu_minus)
        problem = cp.Problem(cp.Minimize(objective), [upper, lower])
        return CvxpyStatement(
            problem,
            variables={"mu_plus": mu_plus, "mu_minus": mu_minus},
            constraints={"upper": upper, "lower": lower},
        )

    def cvxpy_solution(self, statement: CvxpyStatement, U: np.ndarray,
                       status: SolveStatus) -> MasterSolution:
        n = U.shape[0]
        mu = (np.asarray(statement.variables["mu_plus"].value, dtype=float)
              - np.asarray(statement.variables["mu_minus"].value, dtype=float))
        # cvxpy's multipliers of `expr <= 1/2` and of `expr >= -1/2` are both >= 0:
        # alpha' (upper margin block) and beta' (lower margin block).
        alpha = np.maximum(np.asarray(statement.constraints["upper"].dual_value, dtype=float), 0.0)
        beta = np.maximum(np.asarray(statement.constraints["lower"].dual_value, dtype=float), 0.0)
        return self._solution(status, U, np.atleast_1d(mu), np.atleast_1d(alpha),
                              np.atleast_1d(beta), self.lam_for(n))

    def _solution(self, status: SolveStatus, U: np.ndarray, mu: np.ndarray, alpha: np.ndarray,
                  beta: np.ndarray, lam: float) -> MasterSolution:
        n = U.shape[0]
        d = 1.0 / n - (alpha - beta)
        risk = minimax_objective(U, mu, lam)
        dual = 0.5 * (1.0 - float(alpha.sum() + beta.sum()))
        return MasterSolution(
            status=status,
            objective=risk,
            primal_objective=risk,
            dual_objective=dual,
            weights=mu,
            distribution=d,
            gamma=lam,
            info={
                "alpha": alpha, "beta": beta, "lam": lam, "dual_edges": d @ U,
                "record": {
                    "risk": risk, "lam": lam, "l1": float(np.abs(mu).sum()),
                    "nonzero": int(np.count_nonzero(np.abs(mu) > self.zero_tol)),
                    "removed": 0, "active": int(U.shape[1]),
                },
            },
        )

    def prunable(self, dual_edges: np.ndarray, mu: np.ndarray, lam: float) -> np.ndarray:
        """Mask of the columns Algorithm 1 removes: |d . u_j| < lam strictly and mu_j = 0."""
        return (np.abs(dual_edges) < lam - self.prune_tol) & (np.abs(mu) <= self.zero_tol)

    # -- sessions ----------------------------------------------------------------------
    def open_session(self, n_samples: int, backend: "Backend") -> MasterSession | None:
        from lpboosting.backends.cvxpy_backend import CvxpyBackend
        from lpboosting.backends.dedicated import DedicatedBackend

        if isinstance(backend, CvxpyBackend):
            return RMBoostCvxpySession(self, n_samples, backend)
        if isinstance(backend, DedicatedBackend):
            return DedicatedMinimaxSession(self, n_samples, backend)
        return None

    def open_highspy(self, n_samples: int, backend: "Backend") -> "HighsMinimaxLP":
        return HighsMinimaxLP(self, n_samples, backend)


class _ColumnStore:
    """Every column added (session index j), growing by doubling."""

    def __init__(self, n_samples: int) -> None:
        self.data = np.empty((n_samples, 16))
        self.size = 0

    def append(self, u: np.ndarray) -> None:
        if self.size == self.data.shape[1]:
            grown = np.empty((self.data.shape[0], 2 * self.data.shape[1]))
            grown[:, :self.size] = self.data[:, :self.size]
            self.data = grown
        self.data[:, self.size] = u
        self.size += 1

    def columns(self, index: np.ndarray) -> np.ndarray:
        return self.data[:, index]


def _check_column(column: Any, n_samples: int) -> np.ndarray:
    u = np.asarray(column, dtype=float)
    if u.shape != (n_samples,):
        raise ValueError(f"a column must have shape ({n_samples},), got {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("a column contains NaN or inf; margins y_n h(x_n) must be finite")
    return u


def _digest(u: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(u, dtype=float).tobytes(), digest_size=16).digest()


class _PruningSession(MasterSession):
    """Bookkeeping shared by the RMBoost sessions: active columns and removal."""

    def __init__(self, master: RMBoost, n_samples: int) -> None:
        super().__init__(n_samples)
        self.master = master
        self.lam = master.lam_for(n_samples)
        self._store = _ColumnStore(n_samples)
        #: session indices (order of add_column) of the columns in the live master
        self.active: list[int] = []
        #: session indices removed so far, in order of removal
        self.removed: list[int] = []
        #: digests of the removed columns, and per active column whether it may be removed
        self._removed_keys: set[bytes] = set()
        self._removable: list[bool] = []

    def _remember(self, u: np.ndarray) -> None:
        self._removable.append(not (self._removed_keys and _digest(u) in self._removed_keys))
        self._store.append(u)
        self.active.append(self.n_columns)
        self.n_columns += 1

    def _finish(self, solution: MasterSolution, mu_active: np.ndarray) -> np.ndarray:
        """Expand weights to every added column, then remove what Algorithm 1 removes.

        Returns the positions (in ``self.active`` before removal) of the removed columns.
        """
        index = np.asarray(self.active, dtype=int)
        weights = np.zeros(self.n_columns)
        weights[index] = mu_active
        edges = np.full(self.n_columns, np.nan)
        edges[index] = solution.info["dual_edges"]
        solution.weights = weights
        solution.info["dual_edges"] = edges
        solution.info["active_columns"] = index.copy()
        positions = np.empty(0, dtype=int)
        if self.master.prune and index.size:
            mask = self.master.prunable(edges[index], mu_active, self.lam)
            mask &= np.asarray(self._removable, dtype=bool)  # a column is removed at most once
            positions = np.flatnonzero(mask)
        if positions.size:
            for j in index[positions]:
                self._removed_keys.add(_digest(self._store.data[:, j]))
            self.removed.extend(int(j) for j in index[positions])
            keep = np.ones(index.size, dtype=bool)
            keep[positions] = False
            self.active = [int(j) for j in index[keep]]
            self._removable = [r for r, k in zip(self._removable, keep) if k]
        solution.info["record"]["removed"] = int(positions.size)
        solution.info["record"]["active"] = len(self.active)
        return positions


class RMBoostCvxpySession(_PruningSession):
    """The cvxpy statement rebuilt over the active columns at each solve (reference path)."""

    def __init__(self, master: RMBoost, n_samples: int, backend: Any) -> None:
        super().__init__(master, n_samples)
        self.backend = backend
        self.backend_name = backend.name

    def add_column(self, column, edge=None):
        self._remember(_check_column(column, self.n_samples))

    def solve(self) -> MasterSolution:
        if not self.active:
            raise ValueError("add at least one column before solving the RMBoost master")
        U = self._store.columns(np.asarray(self.active, dtype=int))
        solution = self.backend.solve_statement(self.master, U)
        if solution.ok:
            self._finish(solution, np.asarray(solution.weights, dtype=float))
        return solution


class HighsMinimaxLP(_PruningSession):
    """The RMBoost primal (16) in one live HiGHS model; a new base rule is a new column PAIR.

    Rows: the n ranged rows -1/2 <= (U mu)_i <= 1/2.  Columns: mu+_j (cost
    lam - tau_j) and mu-_j (cost lam + tau_j), both in [0, inf), stored as
    consecutive pairs in the order of the active columns; the objective
    offset is 1/2, so HiGHS's objective value is R.  Each solve re-starts
    from the previous basis (adding columns keeps it primal feasible;
    removed columns are non-basic, so it stays valid).  HiGHS's row duals y
    satisfy z = c - A^T y; a row at its upper bound has y_i <= 0, at its
    lower bound y_i >= 0, so alpha' = max(-y, 0) and beta' = max(y, 0).
    """

    def __init__(self, master: RMBoost, n_samples: int, backend: Any) -> None:
        super().__init__(master, n_samples)
        from lpboosting.backends.highspy_backend import import_highspy

        self._highspy = import_highspy()
        self.backend_name = backend.name
        n = n_samples
        h = backend.new_model()
        self._inf = self._highspy.kHighsInf
        h.addRows(n, np.full(n, -0.5), np.full(n, 0.5), 0, np.zeros(n, dtype=np.int32),
                  np.zeros(0, dtype=np.int32), np.zeros(0))
        h.changeObjectiveOffset(0.5)
        self._h = h
        self._rows = np.arange(n, dtype=np.int32)

    def add_column(self, column, edge=None):
        u = _check_column(column, self.n_samples)
        tau = float(u.mean())
        nz = np.flatnonzero(u).astype(np.int32)
        k = nz.size
        self._h.addCols(
            2, np.array([self.lam - tau, self.lam + tau]), np.zeros(2), np.full(2, self._inf),
            2 * k, np.array([0, k], dtype=np.int32), np.concatenate([nz, nz]),
            np.concatenate([u[nz], -u[nz]]),
        )
        self._remember(u)

    def solve(self) -> MasterSolution:
        from lpboosting.backends.highspy_backend import run_model

        if not self.active:
            raise ValueError("add at least one column before solving the RMBoost master")
        h = self._h

        def read(status, sol, info):
            x = np.asarray(sol.col_value)
            y = np.asarray(sol.row_dual)
            mu = x[0::2] - x[1::2]
            U = self._store.columns(np.asarray(self.active, dtype=int))
            solution = self.master._solution(status, U, mu, np.maximum(-y, 0.0),
                                             np.maximum(y, 0.0), self.lam)
            solution.info["highs_objective"] = float(info.objective_function_value)
            positions = self._finish(solution, mu)
            if positions.size:
                cols = np.sort(np.concatenate([2 * positions, 2 * positions + 1])).astype(np.int32)
                h.deleteCols(cols.size, cols)
            return solution

        return run_model(h, self.n_samples, self.backend_name, read)

    @property
    def model(self) -> Any:
        """The live ``highspy.Highs`` model (for inspection or export)."""
        return self._h


def solve_minimax_with_highs(U: np.ndarray, lam: float) -> tuple[SolveStatus, np.ndarray, np.ndarray, int]:
    """(16) over the margin columns U solved once by HiGHS: (status, mu, y = beta' - alpha', iterations).

    The model is :class:`HighsMinimaxLP`'s (n ranged rows, a column pair per
    base rule), built in one call; used when the dedicated solver's answer
    fails its check.
    """
    from lpboosting.backends.highspy_backend import (
        HighspyBackend,
        import_highspy,
        map_highs_status,
    )

    highspy = import_highspy()
    n, t = U.shape
    h = HighspyBackend().new_model()
    h.addRows(n, np.full(n, -0.5), np.full(n, 0.5), 0, np.zeros(n, dtype=np.int32),
              np.zeros(0, dtype=np.int32), np.zeros(0))
    tau = U.mean(axis=0)
    cost = np.empty(2 * t)
    cost[0::2], cost[1::2] = lam - tau, lam + tau
    A = np.empty((n, 2 * t))
    A[:, 0::2], A[:, 1::2] = U, -U
    h.addCols(2 * t, cost, np.zeros(2 * t), np.full(2 * t, highspy.kHighsInf), A.size,
              (np.arange(2 * t) * n).astype(np.int32), np.tile(np.arange(n, dtype=np.int32), 2 * t),
              np.asfortranarray(A).ravel(order="F"))
    h.changeObjectiveOffset(0.5)
    h.run()
    status = map_highs_status(highspy, h.getModelStatus())
    iterations = int(h.getInfo().simplex_iteration_count)
    if not status.ok:
        return status, np.zeros(t), np.zeros(n), iterations
    x = np.asarray(h.getSolution().col_value)
    return status, x[0::2] - x[1::2], np.asarray(h.getSolution().row_dual, dtype=float), iterations


class DedicatedMinimaxSession(_PruningSession):
    """The RMBoost master solved by :class:`~lpboosting.masters.minimax_simplex.MinimaxDualSimplex`.

    The dense dual simplex works on the dual (17) with one basis row per
    active base rule, warm-started across rounds (a new base rule borders the
    basis inverse; a removed one is cut out of it).  Every answer is checked
    before it is returned: |U mu| <= 1/2 + ``check_tol`` (primal feasible),
    |u_j . d| <= lam + ``check_tol`` for every active column (dual feasible),
    and F(mu) = 1/2 (1 - sum |y|) within ``check_tol`` (no duality gap, hence
    complementary slackness).  An answer that fails (or a solver failure) is
    replaced by a fresh HiGHS solve of the same restricted master
    (:func:`solve_minimax_with_highs`); the round's record says
    ``solver = "highspy (fallback)"``, ``fallback = True`` and why.
    """

    #: tolerance of the optimality check of every answer
    check_tol: float = 1e-9

    def __init__(self, master: RMBoost, n_samples: int, backend: Any) -> None:
        super().__init__(master, n_samples)
        from lpboosting.masters.minimax_simplex import MinimaxDualSimplex

        self.backend_name = backend.name
        self.simplex = MinimaxDualSimplex(n_samples, self.lam)
        #: rounds answered by the HiGHS fallback
        self.fallbacks = 0

    def add_column(self, column, edge=None):
        u = _check_column(column, self.n_samples)
        self.simplex.add_row(u)
        self._remember(u)

    def _solution_of(self, U: np.ndarray, mu: np.ndarray, y: np.ndarray) -> MasterSolution:
        """The MasterSolution of (mu, y = beta' - alpha'): R, the dual value and the edges."""
        return self.master._solution(SolveStatus.OPTIMAL, U, mu, np.maximum(-y, 0.0),
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
        edge = float(np.abs(solution.info["dual_edges"]).max()) - self.lam
        if edge > tol:
            return f"dual infeasible by {edge:.1e}"
        gap = abs(solution.primal_objective - solution.dual_objective)
        if gap > tol:
            return f"duality gap {gap:.1e}"
        return ""

    def solve(self) -> MasterSolution:
        from lpboosting.backends.cvxpy_backend import failed_solution

        if not self.active:
            raise ValueError("add at least one column before solving the RMBoost master")
        start = time.perf_counter()
        U = self.simplex.U  # the active columns, in the order of self.active
        result = self.simplex.solve()
        iterations = result.iterations
        mu, solver = result.mu, "dedicated"
        if result.ok and np.all(np.isfinite(result.mu)) and np.all(np.isfinite(result.y)):
            solution = self._solution_of(U, result.mu, result.y)
            problem = self._check(U, solution)
        else:
            problem = result.message or "non-finite values"
        if problem:
            self.fallbacks += 1
            self.simplex.reset_basis()
            status, mu, y, more = solve_minimax_with_highs(U, self.lam)
            iterations += more
            solver = "highspy (fallback)"
            if not status.ok:
                solution = failed_solution(self.n_samples, status)
                solution.info["message"] = (f"the dedicated solver's answer was rejected "
                                            f"({problem}) and HiGHS returned {status.value}")
                solution.seconds = time.perf_counter() - start
                solution.backend = self.backend_name
                return solution
            solution = self._solution_of(U, mu, y)
        solution.info["record"].update(
            {"solver": solver, "fallback": bool(problem)} | ({"message": problem} if problem else {}))
        positions = self._finish(solution, mu)
        self.simplex.remove_rows(positions)
        solution.iterations = iterations
        solution.seconds = time.perf_counter() - start
        solution.backend = self.backend_name
        return solution
