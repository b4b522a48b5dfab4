"""SoftBoost and TotalBoost: relative-entropy projections onto capped edge constraints.

Warmuth, Glocer, Rätsch, *Boosting algorithms for maximizing the soft
margin*, NIPS 2007, Algorithm 2 and Theorem 2; TotalBoost (Warmuth, Liao,
Rätsch, ICML 2006) is SoftBoost without capping.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lpboosting.masters.base import CvxpyStatement
from lpboosting.masters.capped_simplex import relative_entropy
from lpboosting.masters.entropy import EntropyMaster, check_delta, softboost_dual_value
from lpboosting.status import SolveStatus

#: a projection whose feasible set is thinner than this is treated as empty
FEASIBILITY_MARGIN = 1e-10


class SoftBoost(EntropyMaster):
    r"""SoftBoost's projection over the columns found so far.

    With margin matrix U (N x t), cap c = 1/(nu N), gamma_hat_t the smallest
    edge d_{q-1}.u^q of the hypotheses returned so far and accuracy delta:

    Primal (the projection, Algorithm 2 step 3b)::

        min_d  Delta(d) = sum_n d_n ln(d_n N)
        s.t.   d . u^m <= gamma_hat_t - delta   (m = 1..t)    dual: lambda_m >= 0
               sum_n d_n = 1,  0 <= d_n <= c

    Dual (one multiplier per column)::

        max_{lambda >= 0}  min_{d in capped simplex} Delta(d) + d.(U lambda)
                           - (gamma_hat_t - delta) sum_m lambda_m

    whose inner minimiser is the capped softmax of -U lambda.  **The
    distribution handed to the oracle is the primal solution d**.  The run
    stops when the projection is infeasible — exactly when gamma*_t, the
    LPBoost value over the chosen columns, exceeds gamma_hat_t - delta — or
    when d would have a zero, which happens only at gamma*_t = gamma_hat_t -
    delta (both detected by the LP, within 1e-10); the final weights w are the LPBoost primal over the
    chosen columns, whose soft margin is within delta of the optimum over the
    whole class after at most ceil(2 ln(N/nu')/delta^2) rounds (nu' = nu N).
    """

    name = "SoftBoost"

    def iteration_bound(self, n_samples: int) -> int:
        """ceil(2 ln(N / nu') / delta^2) with nu' = nu N (Theorem 2)."""
        # N / nu' = N * cap
        return max(1, math.ceil(2.0 * math.log(n_samples * self.cap(n_samples)) / self.delta ** 2))

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

    def projection_state(self, n_samples, state):
        if "bound" not in state:
            raise ValueError(f"a stand-alone {self.name} projection needs bound=gamma_hat - delta")
        return {"bound": float(state["bound"])}

    # -- statements of the projection ---------------------------------------------------
    def projection_problem(self, U: np.ndarray, state: dict[str, Any]) -> CvxpyStatement:
        import cvxpy as cp

        n = U.shape[0]
        d = cp.Variable(n, name="d")
        edges = U.T @ d <= state["bound"]
        simplex = cp.sum(d) == 1
        problem = cp.Problem(
            cp.Minimize(cp.sum(cp.rel_entr(d, np.full(n, 1.0 / n)))),
            [edges, simplex, d >= 0, d <= self.cap(n)],
        )
        return CvxpyStatement(problem, {"d": d}, {"edges": edges, "simplex": simplex, "bound": state["bound"]})

    def read_projection(self, statement, U):
        d = np.clip(np.asarray(statement.variables["d"].value, dtype=float), 0.0, None)
        d /= d.sum()
        lam = np.maximum(np.atleast_1d(statement.constraints["edges"].dual_value), 0.0)
        bound = statement.constraints["bound"]
        dual = softboost_dual_value(U, bound, self.cap(U.shape[0]), lam)
        # the primal value of the (clipped, renormalised) d, not the solver's own report
        return d, lam, relative_entropy(d), float(dual)


class TotalBoost(SoftBoost):
    """SoftBoost without capping (nu' = 1): maximises the hard margin to within delta.

    Same projection with the cap dropped (c = 1); the final weights are the
    hard-margin LP over the chosen columns.
    """

    name = "TotalBoost"

    def __init__(self, delta: float = 0.01) -> None:
        self.nu = None  # type: ignore[assignment]
        self.delta = check_delta(delta)

    def cap(self, n_samples: int) -> float:
        return 1.0

    def lp_nu(self, n_samples: int) -> float:
        return 1.0 / n_samples

    def params(self):
        return {"delta": self.delta}

    def __repr__(self) -> str:
        return f"TotalBoost(delta={self.delta!r})"
