"""ERLPBoost: entropy-regularised LPBoost.

Warmuth, Glocer, Vishwanathan, *Entropy regularized LPBoost*, ALT 2008.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.masters.base import CvxpyStatement
from lpboosting.masters.capped_simplex import relative_entropy
from lpboosting.masters.entropy import EntropyMaster, erlpboost_dual_value


class ERLPBoost(EntropyMaster):
    r"""ERLPBoost's regularised master over the columns found so far.

    With margin matrix U (N x t), cap c_n = 1/(nu N),
    Delta(d) = sum_n d_n ln(d_n / p_n) the relative entropy to the prior
    p_n = 1/N (sample weights change both, see below) and
    eta = max(1/2, 2 ln(N/nu')/delta), nu' = nu N:

    Primal::

        P^t = min_{d, gamma}  gamma + Delta(d) / eta
              s.t.  d . u^m <= gamma   (m = 1..t)              dual: w_m >= 0, sum w = 1
                    sum_n d_n = 1,  0 <= d_n <= c_n

    Dual (w in the t-simplex)::

        max_w  min_{d in capped simplex}  d.(U w) + Delta(d) / eta

    whose inner minimiser is the capped softmax of -eta U w,
    d_n = min(c_n, p_n exp(-eta (U w)_n - tau)).  **The distribution handed to
    the oracle is the primal d**, starting from d_0 = p.  Stopping rule: with
    P^q(d^{q-1}) = d^{q-1}.u^q + Delta(d^{q-1})/eta (an upper bound) and P^t
    (a lower bound), stop when min_q P^q(d^{q-1}) - P^t <= delta/2.  The
    final weights are the LPBoost primal over the chosen columns.

    Sample weights s (``sample_weight``, one weight >= 0 per example) give the
    master of the data with row n repeated s_n times, on the N distinct rows:
    p = s / sum(s) is the prior of Delta and c_n = p_n / nu; eta keeps
    ln(N/nu') = ln(1/nu); the LP over the chosen columns is LPBoost with the
    same weights; an example of weight 0 has d_n = 0.
    """

    name = "ERLPBoost"

    def eta(self, n_samples: int) -> float:
        return max(0.5, 2.0 * self.log_spread(n_samples) / self.delta)

    projection_keywords = ("eta",)

    def projection_state(self, n_samples, state):
        self.check_projection_keywords(state)
        if "eta" not in state:
            return {"eta": self.eta(n_samples)}
        return {"eta": self.projection_number(
            "eta", state["eta"], "the weight 1/eta of the relative entropy, e.g. "
            f"{self.eta(n_samples):.4g}, this master's eta for {n_samples} examples", positive=True)}

    def projection_value(self, d, U, record):
        """max_m d . u_m + Delta(d) / eta, the projection's objective at d."""
        from lpboosting.columns import column_dots
        from lpboosting.masters.capped_simplex import relative_entropy

        eta = record.get("eta")
        if eta is None:
            return None, ""
        return float(np.max(column_dots(U, d))) + relative_entropy(d, self.simplex(d.size)[1]) / eta, ""

    def round_state(self, session, lp):
        return {"eta": self.eta(session.n_samples), "stop": False}

    def finish(self, session, lp, state, projection):
        eta = state["eta"]
        # upper bound min_q P^q(d^{q-1}): column q was priced under d^{q-1}, entropies[q] = Delta(d^{q-1})
        upper = min(e + h / eta for e, h in zip(session.edges, session.entropies))
        lower = projection.objective if projection is not None and projection.status.ok else np.nan
        return {"eta": eta, "upper": upper, "lower": lower, "stop": False}

    def converged(self, solution, edge, tol):
        record = solution.record
        eta, lower = record.get("eta"), record.get("lower")
        if eta is None or lower is None or not np.isfinite(lower):
            return False
        upper = min(record["upper"], edge + record["entropy"] / eta)
        return bool(upper - lower <= self.delta / 2.0)

    def recheck_point(self, solution):
        """The LP's distribution over the same columns: the final weights are that LP's.

        With an inexact oracle (trees) the stopping rule's upper bound is not
        one (the oracle's edge may be below the best), and under ERLPBoost's
        smoother d a greedy tree stops finding violated columns long before
        the LP over the columns is optimal for it (an edge 0.17 above the LP's
        value on noisy two-moons data).  The loop therefore also
        prices at the LP's d every round and goes on while a column improves
        the LP.  An exact oracle's stop is certified and never rechecked.
        """
        return solution.info.get("lp_distribution")

    def recheck_violated(self, solution, edge, tol):
        gamma_star = solution.record.get("gamma_star")
        return gamma_star is not None and bool(edge > gamma_star + tol)

    def projection_problem(self, U: np.ndarray, state: dict[str, Any]) -> CvxpyStatement:
        """min gamma + sum_n rel_entr(d_n, p_n) / eta s.t. U^T d <= gamma, d in the capped simplex.

        With sample weights the variable d lives on the examples of positive
        weight only (``statement.constraints["support"]``; the others have d_n = 0).
        """
        import cvxpy as cp

        n = U.shape[0]
        cap, prior = self.simplex(n)
        gamma = cp.Variable(name="gamma")
        if prior is None:
            d = cp.Variable(n, name="d")
            edges = U.T @ d <= gamma
            problem = cp.Problem(
                cp.Minimize(gamma + cp.sum(cp.rel_entr(d, np.full(n, 1.0 / n))) / state["eta"]),
                [edges, cp.sum(d) == 1, d >= 0, d <= cap],
            )
            return CvxpyStatement(problem, {"d": d, "gamma": gamma}, {"edges": edges, "eta": state["eta"]})
        support = np.flatnonzero(prior > 0)
        d = cp.Variable(support.size, name="d")
        edges = U[support].T @ d <= gamma
        problem = cp.Problem(
            cp.Minimize(gamma + cp.sum(cp.rel_entr(d, prior[support])) / state["eta"]),
            [edges, cp.sum(d) == 1, d >= 0, d <= cap[support]],
        )
        return CvxpyStatement(problem, {"d": d, "gamma": gamma},
                              {"edges": edges, "eta": state["eta"], "support": support})

    @staticmethod
    def edge_weights(statement: CvxpyStatement, t: int) -> np.ndarray:
        """w of a solved projection statement: the edge constraints' multipliers, in the simplex."""
        w = np.maximum(np.atleast_1d(statement.constraints["edges"].dual_value), 0.0)
        return w / w.sum() if w.sum() > 0 else np.full(t, 1.0 / t)

    def read_projection(self, statement, U):
        d, w = self.read_distribution(statement, U.shape[0]), self.edge_weights(statement, U.shape[1])
        eta = statement.constraints["eta"]
        cap, prior = self.simplex(U.shape[0])
        dual = erlpboost_dual_value(U, cap, eta, w, prior)
        # the primal value of the (clipped, renormalised) d, not the solver's own report
        return d, w, float(np.max(d @ U)) + relative_entropy(d, prior) / eta, float(dual)
