"""Multiclass LPBoost: one soft-margin LP over all classes, its rows (example, wrong class) pairs.

The multiclass margin of boosting (Schapire and Singer 1999; the LPBoost and
TotalBoost of MATLAB's ``fitcensemble``): the score of the true class minus
that of the best other class.  Warmuth, Glocer and Rätsch's soft margin
(NIPS 2007, eq. 1-2) with one slack per example over its K - 1 margins; with
K = 2 it is :class:`~lpboosting.masters.lpboost.LPBoost`.  The pair layout
and the pair columns: :mod:`lpboosting.pairs`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.masters.base import CvxpyStatement, check_sample_weight
from lpboosting.masters.lpboost import SoftMarginLP, check_nu, finite_cap, soft_margin
from lpboosting.masters.pool import ColumnPool, make_pool
from lpboosting.pairs import PairRows, check_n_classes, example_margins


class MulticlassLPBoost(PairRows, SoftMarginLP):
    r"""The multiclass soft-margin master over the hypotheses found so far.

    Hypotheses h_m: X -> {1..K} vote one-hot.  U has one row per (example,
    wrong class) pair (i, k), k != y_i, and U[(i, k), m] = [h_m(x_i) = y_i]
    - [h_m(x_i) = k] (:func:`lpboosting.pairs.pair_columns`); c_i = 1/(nu N)
    (with sample weights s: c_i = p_i / nu, p = s / sum(s)).

    Primal (soft margin over the multiclass margin)::

        max_{w, rho, psi}  rho - sum_i c_i psi_i
        s.t.  sum_m U[(i,k), m] w_m >= rho - psi_i     (every pair (i, k))   dual: d_ik
              w in the simplex, psi >= 0

    Dual (the capped edge game over pairs), the problem the backends solve::

        min_{d, gamma}  gamma
        s.t.  d . u^m <= gamma                          (m = 1..t)    dual: w_m >= 0
              sum_(i,k) d_ik = 1                                       dual: rho
              sum_k d_ik <= c_i                          (i = 1..N)    dual: psi_i >= 0
              d >= 0

    **The distribution handed to the oracle is d, over pairs**: d_ik is how
    hard it is to tell example i from class k.  The oracle's edge of h is
    sum_i D_i [h(x_i) = y_i] - sum_i d_(i, h(x_i)) with D_i = sum_k d_ik, a
    cost-sensitive classification.  The cap binds each example's pairs
    together: an example's slack psi_i pays for its worst margin.  Both
    optima are equal; the column-generation gap is (best edge of an exact
    oracle) - gamma*.  For fixed w, the primal's value is the soft margin
    (LPBoost's closed form) of the examples' margins min_k (U w)_(i,k).

    The rows of this master are pairs: :meth:`n_rows` gives N (K - 1) for N
    examples, d and every column have that length, and the caps, the slacks
    psi and the sample weights are per example.

    Parameters
    ----------
    nu:
        Fraction in (0, 1]: at most about nu N examples have a margin below rho.
    n_classes:
        K >= 2.  K = 2 is LPBoost (one pair per example).
    pool:
        As LPBoost's: hypotheses inactive (w_m = 0, d . u^m < gamma) for the
        pool's rounds are deleted, and re-enter when priced again.
    sample_weight:
        None or one weight >= 0 per example (not per pair).
    """

    name = "MulticlassLPBoost"
    lp_forms = {"dual": "capped edge game over (example, wrong class) pairs",
                "primal": "multiclass soft-margin LP"}
    #: a fresh HiGHS model, then two interior-point solvers through cvxpy
    fallback_backends = ("highspy", "cvxpy:CLARABEL", "cvxpy:ECOS")

    def __init__(self, nu: float = 0.1, n_classes: int = 3, pool: "ColumnPool | dict | None" = None,
                 sample_weight: np.ndarray | None = None) -> None:
        self.nu = check_nu(nu)
        self.n_classes = check_n_classes(n_classes)
        self.pool = make_pool(pool)
        self.sample_weight = check_sample_weight(sample_weight)

    def params(self) -> dict[str, Any]:
        return {"nu": self.nu, "n_classes": self.n_classes} | ({"pool": self.pool.to_dict()} if self.pool else {})

    def __repr__(self) -> str:
        pool = f", pool={self.pool!r}" if self.pool else ""
        return f"MulticlassLPBoost(nu={self.nu!r}, n_classes={self.n_classes!r}{pool})"

    # -- rows: pairs, grouped by example (n_rows, examples: PairRows) -------------------
    def caps(self, n_examples: int) -> np.ndarray:
        """Per-example caps c_i = p_i / nu (1/(nu N) without sample weights), at most 2."""
        with np.errstate(over="ignore", divide="ignore"):
            return finite_cap(self.prior(n_examples) / self.nu)

    def initial_distribution(self, n_examples: int) -> np.ndarray:
        """p_i / (K - 1) on each pair of example i: uniform over pairs without weights."""
        return np.repeat(self.prior(n_examples) / (self.n_classes - 1), self.n_classes - 1)

    def group_matrix(self, n_examples: int) -> Any:
        """G (N x N (K - 1), sparse): G d = the examples' masses D."""
        import scipy.sparse as sp

        per = self.n_classes - 1
        n = int(n_examples)
        return sp.csr_array((np.ones(n * per), np.arange(n * per), np.arange(0, n * per + 1, per)),
                            shape=(n, n * per))

    def value_at(self, pair_margins: np.ndarray) -> float:
        """The primal's value for fixed w, from the pairs' margins U w: LPBoost's soft margin
        (:func:`~lpboosting.masters.lpboost.soft_margin`) of the examples' least margins."""
        return soft_margin(self.example_margins(pair_margins), self.nu, self.sample_weight)

    def example_margins(self, margins: np.ndarray) -> np.ndarray:
        """Each example's margin: the least of its pairs' (the one its slack pays for)."""
        return example_margins(margins, self.n_classes)

    def cap_excess(self, d: np.ndarray) -> float:
        """How far an example's mass sum_k d_ik exceeds its cap, at most."""
        from lpboosting.pairs import example_mass

        return float(np.max(example_mass(d, self.n_classes) - self.caps(self.examples(d.size))))

    # -- cvxpy statements ------------------------------------------------------------------
    def cvxpy_statement(self, U: np.ndarray) -> CvxpyStatement:
        """The dual (the capped edge game over pairs) over U."""
        import cvxpy as cp

        rows = U.shape[0]
        n = self.examples(rows)
        d = cp.Variable(rows, name="d")
        gamma = cp.Variable(name="gamma")
        edges = U.T @ d <= gamma
        simplex = cp.sum(d) == 1
        cap = self.group_matrix(n) @ d <= self.caps(n)
        problem = cp.Problem(cp.Minimize(gamma), [edges, simplex, d >= 0, cap])
        return CvxpyStatement(problem, variables={"d": d, "gamma": gamma},
                              constraints={"edges": edges, "simplex": simplex, "cap": cap})

    def cvxpy_primal_statement(self, U: np.ndarray) -> CvxpyStatement:
        """The primal (the multiclass soft-margin LP) in cvxpy::

            max  rho - c . psi   s.t.  U w >= rho - G^T psi  ("margins", dual d),
                                       sum w = 1 ("simplex", dual gamma),  w >= 0, psi >= 0

        with G^T psi giving each pair its example's slack."""
        import cvxpy as cp

        rows, t = U.shape
        n = self.examples(rows)
        w = cp.Variable(t, nonneg=True, name="w")
        rho = cp.Variable(name="rho")
        psi = cp.Variable(n, nonneg=True, name="psi")
        margins = U @ w >= rho - self.group_matrix(n).T @ psi
        simplex = cp.sum(w) == 1
        problem = cp.Problem(cp.Maximize(rho - self.caps(n) @ psi), [margins, simplex])
        return CvxpyStatement(problem, variables={"w": w, "rho": rho, "psi": psi},
                              constraints={"margins": margins, "simplex": simplex})

    def matrix_form(self, U: np.ndarray, form: str | None = None) -> Any:
        """The master over U as a :class:`~lpboosting.masters.matrix_form.MatrixForm`.

        ``"dual"``: columns ``d_0 .. d_{P-1}`` >= 0 (P = N (K - 1) pairs,
        example-major) and ``gamma``; rows ``sum_d``, ``edge_j`` and
        ``cap_i`` (the mass of example i's pairs <= c_i).  ``"primal"``:
        columns ``w_j``, ``rho``, ``psi_i``; rows ``margin_p`` and ``sum_w``.
        """
        from lpboosting.masters.matrix_form import Columns, Rows, derive_matrix_form

        if self.check_lp_form(form) == "dual":
            return derive_matrix_form(
                self.cvxpy_statement(U),
                columns=[Columns("d", "d_{}"), Columns("gamma", "gamma")],
                rows=[Rows("simplex", "sum_d", "=="), Rows("edges", "edge_{}", "<="), Rows("cap", "cap_{}", "<=")])
        return derive_matrix_form(
            self.cvxpy_primal_statement(U),
            columns=[Columns("w", "w_{}"), Columns("rho", "rho"), Columns("psi", "psi_{}")],
            rows=[Rows("margins", "margin_{}", ">="), Rows("simplex", "sum_w", "==")])
