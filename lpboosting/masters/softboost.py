"""SoftBoost and TotalBoost: relative-entropy projections onto capped edge constraints.

Warmuth, Glocer, Rätsch, *Boosting algorithms for maximizing the soft
margin*, NIPS 2007, Algorithm 2 and Theorem 2; TotalBoost (Warmuth, Liao,
Rätsch, ICML 2006) is SoftBoost without capping.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lpboosting.masters.base import CvxpyStatement, check_sample_weight
from lpboosting.masters.capped_simplex import relative_entropy
from lpboosting.masters.entropy import EntropyMaster, check_delta, softboost_dual_value
from lpboosting.status import SolveStatus

#: a projection whose feasible set is thinner than this is treated as empty
FEASIBILITY_MARGIN = 1e-10


class SoftBoost(EntropyMaster):
    r"""SoftBoost's projection over the columns found so far.

    With margin matrix U (N x t), cap c_n = 1/(nu N), prior p_n = 1/N (sample
    weights change both, see below), gamma_hat_t the smallest edge
    d_{q-1}.u^q of the hypotheses returned so far and accuracy delta:

    Primal (the projection, Algorithm 2 step 3b)::

        min_d  Delta(d) = sum_n d_n ln(d_n / p_n)      (p_n = 1/N: sum_n d_n ln(d_n N))
        s.t.   d . u^m <= gamma_hat_t - delta   (m = 1..t)    dual: lambda_m >= 0
               sum_n d_n = 1,  0 <= d_n <= c_n

    Dual (one multiplier per column)::

        max_{lambda >= 0}  min_{d in capped simplex} Delta(d) + d.(U lambda)
                           - (gamma_hat_t - delta) sum_m lambda_m

    whose inner minimiser is the capped softmax of -U lambda,
    d_n = min(c_n, p_n exp(-(U lambda)_n - tau)).  **The distribution handed
    to the oracle is the primal solution d**, starting from d_0 = p.  The run
    stops when the projection is infeasible — exactly when gamma*_t, the
    LPBoost value over the chosen columns, exceeds gamma_hat_t - delta — or
    when d would have a zero, which happens only at gamma*_t = gamma_hat_t -
    delta (both detected by the LP, within 1e-10); the final weights w are the LPBoost primal over the
    chosen columns, whose soft margin is within delta of the optimum over the
    whole class after at most ceil(2 ln(N/nu')/delta^2) rounds (nu' = nu N).

    Sample weights s (``sample_weight``, one weight >= 0 per example) give the
    master of the data with row n repeated s_n times, on the N distinct rows:
    p = s / sum(s) is the prior of Delta and c_n = p_n / nu (without weights
    p_n = 1/N, c_n = 1/(nu N)); the LP over the chosen columns is LPBoost with
    the same weights; an example of weight 0 has d_n = 0.  ln(N/nu') stays
    ln(1/nu).
    """

    name = "SoftBoost"

    def iteration_bound(self, n_samples: int) -> int:
        """ceil(2 ln(N / nu') / delta^2) with nu' = nu N (Theorem 2)."""
        # N / nu' = N * cap (weighted: 1 / nu; TotalBoost: 1 / min p)
        return max(1, math.ceil(2.0 * self.log_spread(n_samples) / self.delta ** 2))

    def round_state(self, session, lp):
        gamma_hat = min(session.edges)
        bound = gamma_hat - self.delta
        infeasible = lp.gamma > bound - FEASIBILITY_MARGIN
        return {"gamma_hat": gamma_hat, "bound": bound, "stop": bool(infeasible),
                "reason": "infeasible" if infeasible else ""}

    def finish(self, session, lp, state, projection):
        stop = bool(state["stop"])
        reason = state["reason"]
        # When gamma*_t < bound there is a strictly positive feasible d (mix the LP's d with
        # the uniform one), so the projection has no zero: the paper's "d has a zero" case is
        # exactly the boundary gamma*_t = bound, which round_state already treats as a stop.
        if projection is not None and projection.status is SolveStatus.INFEASIBLE:
            stop, reason = True, "infeasible"
        return {"gamma_hat": state["gamma_hat"], "bound": state["bound"], "stop": stop,
                "stop_reason": reason}

    def projection_value(self, d, U, record):
        """Delta(d) to the prior, and whether every column's edge is within the bound."""
        from lpboosting.columns import column_dots
        from lpboosting.masters.base import scaled_tol
        from lpboosting.masters.capped_simplex import relative_entropy

        bound = record.get("bound")
        if bound is None:
            return None, ""
        worst = float(np.max(column_dots(U, d))) - float(bound)
        if worst > scaled_tol(self.verify_tol, bound):
            return None, f"an edge exceeds the projection's bound by {worst:.3e} (d is not feasible)"
        return relative_entropy(d, self.simplex(d.size)[1]), ""

    projection_keywords = ("bound",)

    def projection_state(self, n_samples, state):
        self.check_projection_keywords(state)
        if "bound" not in state:
            raise ValueError(f"a stand-alone {self.name} projection needs bound=gamma_hat - delta")
        return {"bound": self.projection_number(
            "bound", state["bound"], "the right-hand side gamma_hat - delta of the edge constraints "
            "U^T d <= bound, e.g. 0.1; edges lie in [-1, 1]")}

    # -- statements of the projection ---------------------------------------------------
    def projection_problem(self, U: np.ndarray, state: dict[str, Any]) -> CvxpyStatement:
        """min sum_n rel_entr(d_n, p_n) s.t. U^T d <= bound, d in the capped simplex.

        With sample weights the variable d lives on the examples of positive
        weight only (``statement.constraints["support"]``; the others have
        d_n = 0), so that every cone has an interior.
        """
        import cvxpy as cp

        n = U.shape[0]
        cap, prior = self.simplex(n)
        if prior is None:
            d = cp.Variable(n, name="d")
            edges = U.T @ d <= state["bound"]
            simplex = cp.sum(d) == 1
            problem = cp.Problem(
                cp.Minimize(cp.sum(cp.rel_entr(d, np.full(n, 1.0 / n)))),
                [edges, simplex, d >= 0, d <= cap],
            )
            return CvxpyStatement(problem, {"d": d}, {"edges": edges, "simplex": simplex, "bound": state["bound"]})
        support = np.flatnonzero(prior > 0)
        d = cp.Variable(support.size, name="d")
        edges = U[support].T @ d <= state["bound"]
        simplex = cp.sum(d) == 1
        problem = cp.Problem(
            cp.Minimize(cp.sum(cp.rel_entr(d, prior[support]))),
            [edges, simplex, d >= 0, d <= cap[support]],
        )
        return CvxpyStatement(problem, {"d": d}, {"edges": edges, "simplex": simplex, "bound": state["bound"],
                                                  "support": support})

    def read_projection(self, statement, U):
        d = self.read_distribution(statement, U.shape[0])
        lam = np.maximum(np.atleast_1d(statement.constraints["edges"].dual_value), 0.0)
        bound = statement.constraints["bound"]
        cap, prior = self.simplex(U.shape[0])
        dual = softboost_dual_value(U, bound, cap, lam, prior)
        # the primal value of the (clipped, renormalised) d, not the solver's own report
        return d, lam, relative_entropy(d, prior), float(dual)


class TotalBoost(SoftBoost):
    """SoftBoost without capping (nu' = 1): maximises the hard margin to within delta.

    Same projection with the cap dropped (c = 1); the final weights are the
    hard-margin LP over the chosen columns (LPBoost with nu = 1/N).

    With sample weights s the relative entropy is to p = s / sum(s), examples
    of weight 0 have d_n = 0 and the others no cap; the LP is LPBoost with the
    same weights and nu = min_{p_n > 0} p_n, whose caps p_n / nu >= 1 never
    bind (the hard margin over the examples of positive weight).
    """

    name = "TotalBoost"

    def __init__(self, delta: float = 0.01, sample_weight: np.ndarray | None = None) -> None:
        self.nu = None  # type: ignore[assignment]
        self.delta = check_delta(delta)
        self.sample_weight = check_sample_weight(sample_weight)

    def cap(self, n_samples: int) -> float:
        return 1.0

    def caps(self, n_samples: int) -> np.ndarray:
        """p_n / min_{p > 0} p: at least 1 (no cap) where p_n > 0, 0 where the weight is 0."""
        return self.prior(n_samples) / self.lp_nu(n_samples)

    def lp_nu(self, n_samples: int) -> float:
        if self.uniform(n_samples):
            return 1.0 / n_samples
        p = self.prior(n_samples)
        return float(p[p > 0].min())

    def params(self):
        return {"delta": self.delta}

    def __repr__(self) -> str:
        return f"TotalBoost(delta={self.delta!r})"
