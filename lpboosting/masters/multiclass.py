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

from lpboosting.masters.base import CvxpyStatement, Master, MasterSolution, check_sample_weight
from lpboosting.masters.lpboost import check_nu, finite_cap, soft_margin
from lpboosting.masters.pool import ColumnPool, make_pool
from lpboosting.pairs import check_n_classes, example_margins, n_examples
from lpboosting.status import SolveStatus


class MulticlassLPBoost(Master):
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

    kind = "lp"
    name = "MulticlassLPBoost"
    zero_tol: float = 1e-9
    slack_tol: float = 1e-7
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

    # -- rows: pairs, grouped by example ---------------------------------------------------
    def n_rows(self, n_examples: int) -> int:
        """N (K - 1): one row per (example, wrong class) pair."""
        return int(n_examples) * (self.n_classes - 1)

    def examples(self, n_rows: int) -> int:
        """The examples N of ``n_rows`` pairs."""
        return n_examples(int(n_rows), self.n_classes)

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

    def inactive(self, solution: MasterSolution) -> np.ndarray | None:
        """w_m = 0 and d . u^m < gamma strictly (needs ``dual_edges`` from the session)."""
        edges = solution.dual_edges
        if edges is None:
            return None
        return (solution.weights <= self.zero_tol) & (np.asarray(edges) < solution.gamma - self.slack_tol)

    # -- column generation -----------------------------------------------------------------
    def bound(self, solution: MasterSolution, edge: float) -> float:
        """max_h d . u_h >= gamma* of the full LP for every d the master accepts: an upper bound."""
        return float(edge)

    def gap(self, solution: MasterSolution, edge: float) -> float:
        return float(edge - solution.dual_objective)

    def converged(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        return bool(edge <= solution.dual_objective + tol)

    def soft_margin(self, pair_margins: np.ndarray) -> float:
        """The primal's value for fixed w, from the pairs' margins U w: LPBoost's soft margin
        (:func:`~lpboosting.masters.lpboost.soft_margin`) of the examples' least margins."""
        return soft_margin(example_margins(pair_margins, self.n_classes), self.nu, self.sample_weight)

    # -- verification ----------------------------------------------------------------------
    def verify(self, solution: MasterSolution, U: np.ndarray, active: np.ndarray | None = None) -> str:
        """The certificate of an optimum over U: d >= 0 with sum 1 and every example's mass within
        its cap, every active column's edge <= gamma (dual feasible), w in the simplex, and the
        soft margin of U w (computed from the margins) equal to gamma and to the reported
        objective.  Tolerance :attr:`verify_tol` relative, bounds :attr:`bound_tol` absolute."""
        from lpboosting.columns import column_dots, weighted_sum
        from lpboosting.masters.base import check_answer, scaled_tol
        from lpboosting.pairs import example_mass

        rows, t = U.shape
        problem = check_answer(solution, rows, t)
        if problem:
            return problem
        tol = self.verify_tol
        d, w, gamma = solution.distribution, solution.weights, float(solution.dual_objective)
        if d.min() < -self.bound_tol:
            return f"d has a negative entry ({d.min():.3e})"
        over = float(np.max(example_mass(d, self.n_classes) - self.caps(self.examples(rows))))
        if over > self.bound_tol:
            return f"an example's pairs carry {over:.3e} more than its cap"
        if abs(d.sum() - 1.0) > tol:
            return f"d sums to {d.sum():.12g}, not 1"
        if w.min() < -self.bound_tol or abs(w.sum() - 1.0) > tol:
            return f"w is not in the simplex (min {w.min():.3e}, sum {w.sum():.12g})"
        columns = np.arange(t) if active is None else np.asarray(active, dtype=np.intp)
        solution.control.verified = "full"
        if columns.size:
            worst = float(np.max(column_dots(U, d, columns))) - gamma
            if worst > scaled_tol(tol, gamma):
                return f"an edge exceeds gamma by {worst:.3e} (d is not dual feasible)"
        positive = np.flatnonzero(w)
        margin = self.soft_margin(weighted_sum(U, positive, w[positive]))
        if abs(margin - gamma) > scaled_tol(tol, gamma):
            return (f"the soft margin of w is {margin:.10g} but gamma is {gamma:.10g} (primal and dual "
                    "differ: not an optimum)")
        if abs(solution.objective - margin) > scaled_tol(tol, margin):
            return f"the reported objective {solution.objective:.10g} is not the soft margin of w ({margin:.10g})"
        return ""

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

    def cvxpy_solution(self, statement: CvxpyStatement, U: np.ndarray, status: SolveStatus) -> MasterSolution:
        d = np.asarray(statement.variables["d"].value, dtype=float)
        gamma = float(statement.variables["gamma"].value)
        w = np.atleast_1d(statement.constraints["edges"].dual_value)[:U.shape[1]]
        rho = -float(statement.constraints["simplex"].dual_value)  # cvxpy adds nu_eq * (sum d - 1)
        psi = np.asarray(statement.constraints["cap"].dual_value, dtype=float)
        return self.read_back(status, d, gamma, w, rho, psi)

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

    def cvxpy_primal_solution(self, statement: CvxpyStatement, U: np.ndarray,
                              status: SolveStatus) -> MasterSolution:
        """The :class:`MasterSolution` of a solved :meth:`cvxpy_primal_statement`."""
        w = np.asarray(statement.variables["w"].value, dtype=float)
        rho = float(statement.variables["rho"].value)
        psi = np.asarray(statement.variables["psi"].value, dtype=float)
        d = np.maximum(np.asarray(statement.constraints["margins"].dual_value, dtype=float), 0.0)
        gamma = float(statement.constraints["simplex"].dual_value)
        return self.read_back(status, d, gamma, w, rho, psi)

    def reduced_costs(self, U: np.ndarray, solution: MasterSolution) -> np.ndarray:
        """d . u_m - gamma for every column m of U: positive prices a column that improves the master."""
        return np.asarray(U, dtype=float).T @ solution.distribution - float(solution.dual_objective)

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

    # -- read-back -------------------------------------------------------------------------
    def read_back(self, status: SolveStatus, d: np.ndarray, gamma: float, w: np.ndarray,
                  rho: float, psi: np.ndarray) -> MasterSolution:
        """The :class:`MasterSolution` of a solved master, in the one sign convention.

        (d, gamma) the dual's optimum over pairs; w >= 0 the multipliers of
        the edge rows, rho of sum d = 1, psi >= 0 (one per example) of the
        caps.  w and psi are clipped at 0; the primal objective is
        rho - c . psi, the dual objective gamma.
        """
        d = np.asarray(d, dtype=float)
        caps = self.caps(self.examples(d.size))
        w = np.maximum(np.asarray(w, dtype=float), 0.0)
        psi = np.maximum(np.asarray(psi, dtype=float), 0.0)
        primal = float(rho) - float(caps @ psi)
        return MasterSolution(status=status, objective=primal, primal_objective=primal, dual_objective=gamma,
                              weights=w, distribution=d, rho=float(rho), slacks=psi, gamma=float(gamma))
