"""Multiclass ERLPBoost: the entropy-regularised master over (example, wrong class) pairs.

ERLPBoost (Warmuth, Glocer, Vishwanathan, *Entropy regularized LPBoost*, ALT
2008) on the capped set of pairs of the multiclass soft-margin LP
(:class:`~lpboosting.masters.multiclass.MulticlassLPBoost`): the relative
entropy is to the uniform distribution over pairs, and the cap binds each
example's pairs together.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lpboosting.masters.base import CvxpyStatement
from lpboosting.masters.capped_simplex import group_capped_softmax, relative_entropy
from lpboosting.masters.erlpboost import ERLPBoost
from lpboosting.masters.lpboost import finite_cap
from lpboosting.masters.multiclass import MulticlassLPBoost
from lpboosting.pairs import PairRows, check_n_classes, example_mass


class MulticlassERLPBoost(PairRows, ERLPBoost):
    r"""ERLPBoost's regularised master over the pairs of the multiclass soft-margin LP.

    U has one row per (example, wrong class) pair (i, k), k != y_i, example-major,
    U[(i, k), m] = [h_m(x_i) = y_i] - [h_m(x_i) = k]
    (:func:`lpboosting.pairs.pair_columns`).  With p the examples' empirical
    distribution (1/N, or the sample weights normalised), caps c_i = p_i / nu
    per example, the prior over pairs q_(i,k) = p_i / (K - 1),
    Delta_q(d) = sum d ln(d / q), the set of pairs
    D = {d >= 0 : sum d = 1, sum_k d_ik <= c_i} and
    eta = max(1/2, 2 ln((K - 1) / nu) / delta) (ln((K - 1)/nu) is the largest
    Delta_q on D, as ln(1/nu) is ERLPBoost's):

    Primal::

        min_{d in D, gamma}  gamma + Delta_q(d) / eta
        s.t.  d . u^m <= gamma   (m = 1..t)                 dual: w_m >= 0, sum w = 1

    Dual (w in the t-simplex)::

        max_w  min_{d in D}  d.(U w) + Delta_q(d) / eta

    whose inner minimiser is the group-capped softmax of -eta U w
    (:func:`~lpboosting.masters.capped_simplex.group_capped_softmax`): example i's
    mass D_i = min(c_i, p_i exp(L_i - tau)), L_i the log-mean-exp of its pairs'
    scores, spread over its pairs as softmax_k(-eta (U w)_ik).  **The
    distribution handed to the oracle is the primal d, over pairs**.  The
    stopping rule and the final weights are ERLPBoost's, the LP over the chosen
    columns being :class:`~lpboosting.masters.multiclass.MulticlassLPBoost`.
    With K = 2 it is :class:`~lpboosting.masters.erlpboost.ERLPBoost`.

    The default backend solves the projection by the dedicated Newton
    solver on the dual over w
    (:func:`~lpboosting.backends.dedicated.newton_projection.project_group_erlpboost`),
    its answer verified, else by a conic solver through cvxpy; ``"cvxpy:CLARABEL"``
    and the other conic solvers state the primal above.
    """

    name = "MulticlassERLPBoost"

    def __init__(self, nu: float = 0.1, delta: float = 0.01, n_classes: int = 3,
                 sample_weight: np.ndarray | None = None) -> None:
        super().__init__(nu, delta, sample_weight)
        self.n_classes = check_n_classes(n_classes)

    def params(self) -> dict[str, Any]:
        return {"nu": self.nu, "delta": self.delta, "n_classes": self.n_classes}

    def __repr__(self) -> str:
        return f"MulticlassERLPBoost(nu={self.nu!r}, delta={self.delta!r}, n_classes={self.n_classes!r})"

    # -- rows: pairs, grouped by example (n_rows, examples: PairRows) -------------------
    def example_caps(self, n_rows: int) -> np.ndarray:
        """c_i = p_i / nu for the examples of ``n_rows`` pairs (at most 2)."""
        with np.errstate(over="ignore", divide="ignore"):
            return finite_cap(self.prior(self.examples(n_rows)) / self.nu)

    def pair_prior(self, n_rows: int) -> np.ndarray:
        """q_(i,k) = p_i / (K - 1): the prior of the relative entropy, over pairs."""
        return np.repeat(self.prior(self.examples(n_rows)) / (self.n_classes - 1), self.n_classes - 1)

    def simplex(self, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
        """(caps per example, prior q over pairs): the relative entropy of a distribution over
        pairs is ``relative_entropy(d, simplex(n_rows)[1])``."""
        return self.example_caps(n_rows), self.pair_prior(n_rows)

    def log_spread(self, n_rows: int) -> float:
        """ln((K - 1) / nu), the largest Delta_q on the set of pairs (c_i / q_(i,k) = (K - 1)/nu)."""
        return math.log((self.n_classes - 1) / self.nu)

    def lp_master(self, n_rows: int) -> MulticlassLPBoost:
        """The multiclass soft-margin LP over the chosen columns (the same nu and weights)."""
        return MulticlassLPBoost(self.lp_nu(n_rows), self.n_classes, sample_weight=self.sample_weight)

    def initial_distribution(self, n_examples: int) -> np.ndarray:
        """q over the pairs of ``n_examples`` examples: uniform over pairs without weights."""
        return self.pair_prior(self.n_rows(n_examples))

    # -- the projection -------------------------------------------------------------------
    def projection_problem(self, U: np.ndarray, state: dict[str, Any]) -> CvxpyStatement:
        """min gamma + sum rel_entr(d, q) / eta s.t. U^T d <= gamma, d in D, stated on the pairs of
        examples of positive weight (``constraints["support"]``; the others have d = 0)."""
        import cvxpy as cp

        rows = U.shape[0]
        caps, q = self.simplex(rows)
        per = self.n_classes - 1
        groups = np.flatnonzero(caps > 0)
        support = (groups[:, None] * per + np.arange(per)).ravel()
        d = cp.Variable(support.size, name="d")
        gamma = cp.Variable(name="gamma")
        edges = U[support].T @ d <= gamma
        grouped = cp.sum(cp.reshape(d, (groups.size, per), order="C"), axis=1) <= caps[groups]
        problem = cp.Problem(cp.Minimize(gamma + cp.sum(cp.rel_entr(d, q[support])) / state["eta"]),
                             [edges, cp.sum(d) == 1, d >= 0, grouped])
        return CvxpyStatement(problem, {"d": d, "gamma": gamma},
                              {"edges": edges, "eta": state["eta"], "support": support})

    def read_projection(self, statement, U):
        d, w = self.read_distribution(statement, U.shape[0]), self.edge_weights(statement, U.shape[1])
        eta = statement.constraints["eta"]
        q = self.pair_prior(U.shape[0])
        # the dual's value at w (a lower bound): its inner minimiser's objective
        s, d_w = U @ w, self.distribution_at(U, w, eta)
        dual = float(d_w @ s) + relative_entropy(d_w, q) / eta
        return d, w, float(np.max(d @ U)) + relative_entropy(d, q) / eta, dual

    def distribution_at(self, U: np.ndarray, w: np.ndarray, eta: float) -> np.ndarray:
        """The dual's inner minimiser at w: the group-capped softmax of -eta U w."""
        caps, _ = self.simplex(U.shape[0])
        prior = None if self.sample_weight is None else self.prior(self.examples(U.shape[0]))
        return group_capped_softmax(-eta * (U @ w), self.n_classes - 1, caps, prior)[0]

    def cap_excess(self, d: np.ndarray) -> float:
        """How far an example's mass sum_k d_ik exceeds its cap, at most."""
        return float(np.max(example_mass(d, self.n_classes) - self.example_caps(d.size)))
