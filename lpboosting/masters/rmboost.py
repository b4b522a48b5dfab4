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

Removal (Algorithm 1, Steps 14-16) is off by default.  With ``prune=True`` a
column whose dual constraint is strictly satisfied, |d . u_j| < lam, and
whose weight is zero is deleted from the live model after the solve (the
current solution stays optimal for the smaller LP).  At the central duals
the default backend prices at, that deletes the rules column generation
needs together: while some training row is classified alike by every rule
of the support, ||mu||_1 <= 1/2 and the optimum stays at the best single
rule, so each new rule that errs on such rows has weight 0 and a strictly
satisfied constraint, and is deleted the round after it entered.  Keeping
every column, R moves from the second round and the fits need far fewer
rounds (measured on the twonorm generator and seven small sets:
docs/defaults.md, "prune").  ``MasterSolution.weights`` still has one entry
per column ever added (zeros for removed columns).  Safeguard (not in the
paper): a base rule is removed at most once — if the oracle generates a
column equal to one removed before, it is kept for good.  The master is
highly degenerate (many margins sit at +-1/2, so the optimal duals are not
unique); without the safeguard a solver that returns a different optimal
dual each round (e.g. a cvxpy rebuild) can remove and re-add the same base
rules forever at the optimum.  With it, a finite class of base rules gives a
finite number of removals, after which the column set only grows, so column
generation terminates.  This rule is one policy of the column pool
(:mod:`lpboosting.masters.pool`, ``ColumnPool(inactive_rounds=1,
max_removals=1)``); ``prune`` also takes any other ``ColumnPool``, e.g. one
that deletes a column only after 10 inactive solves.

Backends (:mod:`lpboosting.backends`).  ``"highspy:ipm"`` (the default)
keeps one HiGHS model of (16) and solves it by interior point without
crossover, to a tolerance of 1e-10: the duals are *central*.  Above 500
examples (``working_size``) the HiGHS model holds only the margin rows of
the examples at or near +-1/2, with the columns written as differences
(:mod:`lpboosting.backends.highs.minimax_sifting`); every answer is checked
on all n.
``"dedicated"`` (its solver is named ``"dedicated:minimax-simplex"``)
solves the dual (17) by a dense dual simplex whose basis has one row per
active base rule (:mod:`lpboosting.backends.dedicated.minimax_simplex`),
checks every answer and re-solves a rejected one with HiGHS.
``"highspy"`` (:mod:`lpboosting.backends.highs.rmboost`) keeps one live
HiGHS model of (16) solved by simplex, warm started.  ``"cvxpy:SOLVER"``
rebuilds the statement.

Why central duals by default.  The master is degenerate: many margins sit
at +-1/2, so the optimal duals are not unique.  A simplex backend hands the
oracle a *vertex* of the optimal dual face, concentrated on a few examples;
the oracle then keeps finding rules that violate (17) at that vertex but
not at other optimal duals, so adding them leaves R where it was and column
generation does not stop (with exact stumps on breast cancer, R is optimal
from round 1 yet the dedicated simplex had not stopped after 2000 rounds).
Interior point without crossover returns a point in the relative interior
of the optimal face, not at one of its extremes, so a rule that violates
(17) there cuts off much of the face: the same runs stop in 53 rounds at
the same R (61 with the sifting session, whose interior point ends at
another point of the face).  The
stop decision is the same test (the best edge at optimal duals <= lam + tol)
and with an exact oracle it certifies optimality whichever optimal dual is
priced.

Sparsity.  If one training example is classified correctly by every rule of
positive weight, its upper constraint gives ||mu||_1 <= 1/2 and so
R >= 1/2 - (max_j tau_j - lam)/2, attained by the best single rule with
mu_j = 1/2: the LP often keeps one base rule (or a face of equally good
ones), as the paper's L1 term intends.

The pricing class must be closed under negation (the paper assumes
-h in H): the loop only sees the largest edge d . u, and optimality needs
|d . u| <= lam for every base rule.  Stumps, Features and Trees (which fit
the labels y * sign(d)) are; for a finite ``Columns`` pool pass [U, -U].
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lpboosting.columns import column_dots
from lpboosting.masters.base import CvxpyStatement, Master, MasterSolution, check_sample_weight
from lpboosting.masters.pool import ColumnPool, make_pool
from lpboosting.status import SolveStatus

__all__ = ["RMBoost", "check_lam", "minimax_objective", "oracle_weighting", "paper_duals"]


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


def minimax_objective(U: np.ndarray, mu: np.ndarray, lam: float, prior: np.ndarray | None = None) -> float:
    """F(mu) = 1/2 - tau^T mu + lam ||mu||_1 with tau = U^T p (the objective of (6)).

    p is the empirical distribution: 1/n each (``prior=None``) or the
    normalised sample weights.
    """
    U = np.asarray(U)
    mu = np.asarray(mu, dtype=float)
    nonzero = np.flatnonzero(mu)
    p = np.full(U.shape[0], 1.0 / U.shape[0]) if prior is None else np.asarray(prior, dtype=float)
    tau = column_dots(U, p, nonzero)  # tau of the columns in use (U may be int8: no float64 copy)
    return float(0.5 - tau @ mu[nonzero] + lam * np.abs(mu).sum())


class RMBoost(Master):
    r"""The RMBoost master (minimax-risk LP (16), dual (17)) over the columns found so far.

    See the module docstring for the full model.  Summary, with margin
    matrix U (n x t, U[i, j] = y_i h_j(x_i)) and tau = U^T 1/n::

        primal  R = min_{mu+, mu- >= 0} 1/2 - tau^T mu + lam ||mu||_1   (mu = mu+ - mu-)
                    s.t. -1/2 <= (U mu)_i <= 1/2       duals beta'_i (lower), alpha'_i (upper)
        dual    max_{alpha', beta' >= 0} 1/2 (1 - 1^T (alpha' + beta'))
                    s.t. |u_j^T (1/n - alpha' + beta')| <= lam      (j = 1..t)

    With sample weights s, p = s / sum(s) takes the place of 1/n: tau = U^T p,
    the oracle weighting is d = p - (alpha' - beta'), and a row of weight 0
    has no constraint (it is dropped), so integer weights give the LP of the
    data with every row repeated s_i times.

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
        lam > 0 (finite); None means 1/sqrt(n), fixed when the session opens
        (with sample weights n is their sum: the rows they stand for).
    prune:
        False (default): keep every column.  True: remove columns whose dual
        constraint is strictly satisfied
        (|d . u_j| < lam - ``prune_tol``) and whose weight is zero
        (|mu_j| <= ``zero_tol``) after each solve (Algorithm 1, Steps 14-16),
        except columns equal to one removed before (anti-cycling safeguard,
        see the module docstring).  A
        :class:`~lpboosting.masters.pool.ColumnPool`: delete such columns by
        that policy.
    sample_weight:
        None (every example counts 1/n) or one weight >= 0 per example.
    """

    kind = "lp"
    name = "RMBoost"
    #: solved by default by HiGHS's interior point without crossover (central duals, see the
    #: module docstring); "dedicated" (its minimax dual simplex on (17)), "highspy" and cvxpy too
    default_backend = "highspy:ipm"
    #: a rejected answer is solved again by HiGHS's interior point (central duals, as the
    #: default), then its dual simplex, then CLARABEL
    fallback_backends = ("highspy:ipm", "highspy", "cvxpy:CLARABEL")
    #: an answer of the dedicated minimax simplex that fails its check: the same restricted LP
    #: solved afresh by HiGHS's dual simplex
    session_fallbacks = ("highspy",)
    #: a dual constraint counts as strictly satisfied when |d . u_j| < lam - prune_tol
    prune_tol: float = 1e-7
    #: a weight counts as zero when |mu_j| <= zero_tol
    zero_tol: float = 1e-9

    def __init__(self, lam: float | None = None, prune: "bool | ColumnPool" = False,
                 sample_weight: np.ndarray | None = None) -> None:
        self.lam = check_lam(lam)
        self.sample_weight = check_sample_weight(sample_weight)
        if not isinstance(prune, (bool, np.bool_, ColumnPool)):
            raise ValueError(f"prune must be True, False or a ColumnPool, got {prune!r}")
        self.prune = prune if isinstance(prune, ColumnPool) else bool(prune)

    @property
    def pool(self) -> ColumnPool | None:  # type: ignore[override]
        """``prune=True``: Algorithm 1's rule (:data:`~lpboosting.masters.pool.ALGORITHM_1`);
        False: keep every column; a :class:`~lpboosting.masters.pool.ColumnPool`: that policy."""
        return make_pool(self.prune)

    def lam_for(self, n_samples: int) -> float:
        """lam for n examples: the given value, or 1/sqrt(n) (the paper's default; with sample
        weights n is their sum)."""
        if self.lam is not None:
            return self.lam
        if n_samples < 1:
            raise ValueError(f"n_samples must be >= 1, got {n_samples}")
        if self.sample_weight is not None:
            return 1.0 / math.sqrt(float(self.sample_weight.sum()))
        return 1.0 / math.sqrt(n_samples)

    def tau(self, U: np.ndarray) -> np.ndarray:
        """tau = U^T p, the expectations of the base rules' margins under the empirical p.

        Without sample weights the column means (the sum divided by n, as every
        session computes tau: the same doubles in every encoding of the LP).
        """
        U = np.asarray(U, dtype=float)
        if self.sample_weight is None:
            return U.mean(axis=0)
        return self.prior(U.shape[0]) @ U

    def constrained(self, n_samples: int) -> np.ndarray:
        """Mask of the examples with a margin constraint (all, or those of positive weight)."""
        return self.prior(n_samples) > 0

    def params(self) -> dict[str, Any]:
        prune = self.prune.to_dict() if isinstance(self.prune, ColumnPool) else self.prune
        return {"lam": self.lam, "prune": prune}

    def __repr__(self) -> str:
        return f"RMBoost(lam={self.lam!r}, prune={self.prune!r})"

    # -- column generation ---------------------------------------------------------
    def initial_distribution(self, n_samples: int) -> np.ndarray:
        """Algorithm 1, Step 1: w = 1/n and ytilde = y, i.e. d = 1/n (d = p with weights)."""
        return self.prior(n_samples)

    def gap(self, solution: MasterSolution, edge: float) -> float:
        """max(edge - lam, 0): the largest reduced-cost violation an exact oracle found."""
        return float(max(edge - float(solution.gamma), 0.0))

    def convergence_advice(self, exact_oracle: bool, smoothing: bool, columns_per_round: int,
                           backend: str = "") -> list[str]:
        """Central duals, then a larger lam, not the general remedies.

        A simplex's vertex duals ("highspy", "dedicated", "cvxpy:HIGHS") keep pricing rules that
        violate (17) at that vertex only, and R never moves (see the backends above).  With central
        duals, smoothing, exact stumps and several trees a round were each measured slower for
        RMBoost, while at large n the default lam = 1/sqrt(n) is small and the LP takes rules as
        long as one's edge exceeds it (measured: docs/user-guide.md, "Large N").
        """
        change = []
        if backend != self.default_backend:
            change.append(f"the default backend {self.default_backend!r} (central duals: a simplex's vertex "
                          "duals keep pricing rules that do not lower R)")
        change.append("a larger lam (None is 1/sqrt(n), small at large n: the LP takes rules while one's "
                      "edge exceeds it)")
        return change

    def converged(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        """Algorithm 1, Step 5: stop when sum_i w_i ytilde_i h(x_i) = d . u <= lam (+ tol)."""
        return bool(edge <= float(solution.gamma) + tol)

    # -- cvxpy statement -------------------------------------------------------------
    def cvxpy_statement(self, U: np.ndarray) -> CvxpyStatement:
        n = U.shape[0]
        return self._minimax(U[self.constrained(n)], self.tau(U), self.lam_for(n), U.shape[1])

    @staticmethod
    def _minimax(rows: Any, tau: Any, lam: Any, t: int) -> CvxpyStatement:
        """(16) over the constrained rows of U, on data or on cvxpy Parameters (the same statement)."""
        import cvxpy as cp

        mu_plus = cp.Variable(t, nonneg=True, name="mu_plus")
        mu_minus = cp.Variable(t, nonneg=True, name="mu_minus")
        margins = rows @ (mu_plus - mu_minus)
        upper = margins <= 0.5
        lower = margins >= -0.5
        objective = 0.5 - tau @ (mu_plus - mu_minus) + lam * cp.sum(mu_plus + mu_minus)
        problem = cp.Problem(cp.Minimize(objective), [upper, lower])
        return CvxpyStatement(
            problem,
            variables={"mu_plus": mu_plus, "mu_minus": mu_minus},
            constraints={"upper": upper, "lower": lower},
        )

    def cvxpy_parametric_statement(self, n_samples: int, capacity: int) -> CvxpyStatement:
        """(16) over a block of ``capacity`` columns, the data in cvxpy Parameters (DPP)::

            min_{mu+, mu- >= 0}  1/2 - tau^T (mu+ - mu-) + lam 1^T (mu+ + mu-)
            s.t.  -1/2 <= U_block (mu+ - mu-) <= 1/2     (the constrained rows)

        with parameters U_block (rows x capacity), tau (capacity) and lam
        (:meth:`lam_for` N, set at every load).  :meth:`cvxpy_load` puts the
        t columns first and zero columns with tau_j = 0 after them: those
        mu_j appear in no constraint and cost lam > 0, so they are 0 at every
        optimum and change neither R nor the multipliers alpha', beta' read
        back.
        """
        import cvxpy as cp

        n = int(n_samples)
        rows = int(np.count_nonzero(self.constrained(n)))
        block = cp.Parameter((rows, capacity), name="U")
        tau = cp.Parameter(capacity, name="tau")
        lam = cp.Parameter(nonneg=True, name="lam")
        statement = self._minimax(block, tau, lam, capacity)
        statement.parameters, statement.capacity = {"U": block, "tau": tau, "lam": lam}, capacity
        return statement

    def cvxpy_load(self, statement: CvxpyStatement, U: np.ndarray) -> None:
        """U's constrained rows in the block's first columns and tau = U^T p, zeros after them; lam."""
        n, t = U.shape
        capacity = statement.capacity
        rows = self.constrained(n)
        block = np.zeros((int(np.count_nonzero(rows)), capacity))
        block[:, :t] = U[rows]
        tau = np.zeros(capacity)
        tau[:t] = self.tau(U)
        statement.parameters["U"].value = block
        statement.parameters["tau"].value = tau
        statement.parameters["lam"].value = self.lam_for(n)

    def cvxpy_solution(self, statement: CvxpyStatement, U: np.ndarray,
                       status: SolveStatus) -> MasterSolution:
        n, t = U.shape
        mu = (np.asarray(statement.variables["mu_plus"].value, dtype=float)
              - np.asarray(statement.variables["mu_minus"].value, dtype=float))[:t]  # a block's first t
        # cvxpy's multipliers of `expr <= 1/2` and of `expr >= -1/2` are both >= 0:
        # alpha' (upper margin block) and beta' (lower margin block).
        rows = self.constrained(n)
        alpha, beta = np.zeros(n), np.zeros(n)  # rows without a constraint have no multiplier
        alpha[rows] = np.maximum(np.asarray(statement.constraints["upper"].dual_value, dtype=float), 0.0)
        beta[rows] = np.maximum(np.asarray(statement.constraints["lower"].dual_value, dtype=float), 0.0)
        return self.read_back(status, U, np.atleast_1d(mu), alpha, beta, self.lam_for(n))

    def cvxpy_dual_statement(self, U: np.ndarray) -> CvxpyStatement:
        """The dual (17) in margin form in cvxpy, beside :meth:`cvxpy_statement` (the primal (16))::

            max_{alpha', beta' >= 0}  1/2 - 1/2 sum_i (alpha'_i + beta'_i)
            s.t.  U^T (beta' - alpha') <= lam - tau     ("edge_plus", dual mu+)
                  U^T (alpha' - beta') <= lam + tau     ("edge_minus", dual mu-)

        over the constrained rows of U (those of positive weight), i.e.
        |u_j . (p - alpha' + beta')| <= lam.  Read it back with
        :meth:`cvxpy_dual_solution`.
        """
        import cvxpy as cp

        n = U.shape[0]
        lam = self.lam_for(n)
        tau = self.tau(U)
        Uc = np.asarray(U, dtype=float)[self.constrained(n)]
        k = Uc.shape[0]
        alpha = cp.Variable(k, nonneg=True, name="alpha")
        beta = cp.Variable(k, nonneg=True, name="beta")
        edge_plus = Uc.T @ (beta - alpha) <= lam - tau
        edge_minus = Uc.T @ (alpha - beta) <= lam + tau
        problem = cp.Problem(cp.Maximize(0.5 - 0.5 * cp.sum(alpha + beta)), [edge_plus, edge_minus])
        return CvxpyStatement(problem, variables={"alpha": alpha, "beta": beta},
                              constraints={"edge_plus": edge_plus, "edge_minus": edge_minus})

    def cvxpy_dual_solution(self, statement: CvxpyStatement, U: np.ndarray,
                            status: SolveStatus) -> MasterSolution:
        """The :class:`MasterSolution` of a solved :meth:`cvxpy_dual_statement`: alpha', beta' its
        values, mu = mu+ - mu- the multipliers of its two edge blocks."""
        n = U.shape[0]
        rows = self.constrained(n)
        alpha, beta = np.zeros(n), np.zeros(n)
        alpha[rows] = np.maximum(np.asarray(statement.variables["alpha"].value, dtype=float), 0.0)
        beta[rows] = np.maximum(np.asarray(statement.variables["beta"].value, dtype=float), 0.0)
        mu = (np.asarray(statement.constraints["edge_plus"].dual_value, dtype=float)
              - np.asarray(statement.constraints["edge_minus"].dual_value, dtype=float))
        return self.read_back(status, U, np.atleast_1d(mu), alpha, beta, self.lam_for(n))

    # -- matrix form ---------------------------------------------------------------------
    #: the forms of the LP (:meth:`matrix_form`); the first is the one the HiGHS sessions solve
    lp_forms = {"primal": "minimax-risk LP (16)", "dual": "dual (17)"}

    def matrix_form(self, U: np.ndarray, form: str | None = None) -> Any:
        """The master over U as a :class:`~lpboosting.masters.matrix_form.MatrixForm`.

        ``"primal"`` (the default) from :meth:`cvxpy_statement`: columns
        ``mu_plus_j``, ``mu_minus_j`` >= 0 (costs lam -+ tau_j, offset 1/2);
        rows ``upper_i`` (sum_j U[i, j] (mu_plus_j - mu_minus_j) <= 1/2) and
        ``lower_i`` (the same >= -1/2).  ``"dual"`` from
        :meth:`cvxpy_dual_statement` (a maximisation, offset 1/2): columns
        ``alpha_i``, ``beta_i`` >= 0 (cost -1/2); rows ``edge_plus_j`` and
        ``edge_minus_j``.  i runs over the examples with a row (positive
        weight), j over the columns.
        """
        from lpboosting.masters.matrix_form import Columns, Rows, derive_matrix_form

        rows = np.flatnonzero(self.constrained(np.shape(U)[0]))
        if self.check_lp_form(form) == "primal":
            return derive_matrix_form(
                self.cvxpy_statement(U),
                columns=[Columns("mu_plus", "mu_plus_{}"), Columns("mu_minus", "mu_minus_{}")],
                rows=[Rows("upper", "upper_{}", "<=", rows), Rows("lower", "lower_{}", ">=", rows)])
        return derive_matrix_form(
            self.cvxpy_dual_statement(U),
            columns=[Columns("alpha", "alpha_{}", rows), Columns("beta", "beta_{}", rows)],
            rows=[Rows("edge_plus", "edge_plus_{}", "<="), Rows("edge_minus", "edge_minus_{}", "<=")])

    # -- read-back ---------------------------------------------------------------------
    def read_back(self, status: SolveStatus, U: np.ndarray, mu: np.ndarray, alpha: np.ndarray,
                  beta: np.ndarray, lam: float) -> MasterSolution:
        """The :class:`MasterSolution` of a solved master over the columns U, in the one convention.

        ``mu`` are the signed weights of U's columns; ``alpha`` (>= 0) and
        ``beta`` (>= 0) the multipliers of the upper and lower margin blocks
        (U mu)_i <= 1/2 and (U mu)_i >= -1/2 (a solver maps its own signs to
        these: HiGHS's row duals y give alpha' = max(-y, 0), beta' =
        max(y, 0)).  R is evaluated from mu (F(mu)), the dual value from
        (alpha, beta), and the oracle's signed weighting is d = p - (alpha - beta)
        (p = 1/n, or the normalised sample weights).
        """
        p = self.prior(U.shape[0])
        d = p - (alpha - beta)
        risk = minimax_objective(U, mu, lam, p)
        dual = 0.5 * (1.0 - float(alpha.sum() + beta.sum()))
        return MasterSolution(
            status=status,
            objective=risk,
            primal_objective=risk,
            dual_objective=dual,
            weights=mu,
            distribution=d,
            gamma=lam,
            info={"alpha": alpha, "beta": beta, "lam": lam},
            dual_edges=column_dots(U, d),
            record={
                "risk": risk, "lam": lam, "l1": float(np.abs(mu).sum()),
                "nonzero": int(np.count_nonzero(np.abs(mu) > self.zero_tol)),
                "removed": 0, "active": int(U.shape[1]),
            },
        )

    def verify(self, solution: MasterSolution, U: np.ndarray, active: np.ndarray | None = None) -> str:
        """The certificate of an optimum of (16)-(17) over U.

        mu primal feasible (|U mu| <= 1/2 on the constrained rows), the duals
        alpha', beta' >= 0 with d = p - (alpha' - beta'), every active
        column dual feasible (|d . u_j| <= lam), and F(mu), computed here,
        equal to the dual value 1/2 (1 - sum(alpha' + beta')).  Tolerance
        :attr:`verify_tol`, relative.
        """
        from lpboosting.columns import column_dots, weighted_sum
        from lpboosting.masters.base import check_answer, scaled_tol

        n, t = U.shape
        problem = check_answer(solution, n, t)
        if problem:
            return problem
        tol = self.verify_tol
        mu, d, lam = solution.weights, solution.distribution, float(solution.gamma)
        alpha, beta = solution.info.get("alpha"), solution.info.get("beta")
        if alpha is not None and beta is not None:
            if min(float(np.min(alpha)), float(np.min(beta))) < -tol:
                return "a margin multiplier alpha' or beta' is negative"
            if not np.allclose(d, self.prior(n) - (alpha - beta), atol=tol, rtol=0.0):
                return "d is not p - (alpha' - beta')"
        nonzero = np.flatnonzero(mu)
        margins = weighted_sum(U, nonzero, mu[nonzero])[self.constrained(n)]
        if margins.size and float(np.max(np.abs(margins))) > 0.5 + tol:
            return f"|U mu| reaches {float(np.max(np.abs(margins))):.10g} > 1/2 (mu is not feasible)"
        columns = np.arange(t) if active is None else np.asarray(active, dtype=np.intp)
        if columns.size:
            worst = float(np.max(np.abs(column_dots(U, d, columns)))) - lam
            if worst > scaled_tol(tol, lam):
                return f"|d . u| exceeds lam by {worst:.3e} (the duals are not feasible)"
        risk = minimax_objective(U, mu, lam, self.prior(n))
        if abs(risk - solution.dual_objective) > scaled_tol(tol, risk):
            return (f"F(mu) = {risk:.10g} but the dual value is {solution.dual_objective:.10g} "
                    "(not an optimum)")
        return ""

    def prunable(self, dual_edges: np.ndarray, mu: np.ndarray, lam: float) -> np.ndarray:
        """Mask of the columns Algorithm 1 removes: |d . u_j| < lam strictly and mu_j = 0."""
        return (np.abs(dual_edges) < lam - self.prune_tol) & (np.abs(mu) <= self.zero_tol)

    def inactive(self, solution: MasterSolution) -> np.ndarray:
        """:meth:`prunable` over the solution's columns; the pool deletes them (Steps 14-16)."""
        return self.prunable(solution.dual_edges, solution.weights, float(solution.gamma))
