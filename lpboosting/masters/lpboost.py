"""LPBoost: the soft-margin LP and its dual, the capped edge game.

Warmuth, Glocer, Rätsch, *Boosting algorithms for maximizing the soft
margin*, NIPS 2007, eq. (1)-(2) and Algorithm 1 (after Demiriz, Bennett,
Shawe-Taylor 2002).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.masters.base import (
    CvxpyStatement,
    Master,
    MasterSolution,
    check_sample_weight,
    check_unit_interval,
)
from lpboosting.masters.pool import ColumnPool, make_pool
from lpboosting.status import SolveStatus


#: what nu is, and what to use instead of a bad one (the masters' and the classifiers' errors)
NU_MEANING = "a fraction in (0, 1] (the distribution is capped at 1/(nu*N))"
NU_ADVICE = "use a small nu such as 1/N for the hard margin and nu=1 for the uniform distribution"


def check_nu(nu: float) -> float:
    return check_unit_interval(nu, "nu", NU_MEANING, NU_ADVICE)


#: caps above this are set to it: above 1 no cap binds on a distribution, and a huge cap (nu far
#: below 1/N: 1/(nu N) overflows, or a bound HiGHS takes for infinite) would multiply round-off
#: in psi into the objective; 2 keeps the bound away from the simplex's vertices
CAP_CEILING = 2.0


def finite_cap(cap: Any) -> Any:
    """A cap, at most :data:`CAP_CEILING` (an overflow to inf included): the same LP."""
    if np.ndim(cap) == 0:
        return float(min(cap, CAP_CEILING)) if not np.isnan(cap) else CAP_CEILING
    return np.minimum(cap, CAP_CEILING)


def smallest_order(margins: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """The stable sort order of the smallest margins, enough of them that their caps sum past 1.

    What the soft margin reads: its maximum is where the caps of the smallest
    margins first sum to 1.  The margins at most the k-th smallest (k twice
    the fewest rows that can hold the mass 1, plus one) are sorted alone when
    their caps sum past 1 by two of the largest caps; else all are sorted.
    Either way the order is the first part of ``np.argsort(margins,
    kind="stable")``.
    """
    n = margins.size
    largest = float(np.max(caps)) if n else 0.0
    k = n if largest <= 0.0 else int(min(n, np.ceil(2.0 / largest) + 1))
    if k < n:
        rows = np.flatnonzero(margins <= np.partition(margins, k - 1)[k - 1])
        if float(caps[rows].sum()) > 1.0 + 2.0 * largest:
            return rows[np.argsort(margins[rows], kind="stable")]
    return np.argsort(margins, kind="stable")


def soft_margin(margins: np.ndarray, nu: float, sample_weight: np.ndarray | None = None) -> float:
    """The soft margin max_rho rho - sum_n c_n (rho - margin_n)^+ with c_n = p_n / nu.

    p is the empirical distribution (1/N each, or ``sample_weight`` / its
    sum).  This is the LPBoost primal objective (1) for fixed weights w,
    evaluated in closed form: the function is concave and piecewise linear
    in rho with kinks at the margins, so its maximum is attained at one of
    them, the margin where the caps of the smaller ones first sum to 1
    (only the margins up to there are sorted: :func:`smallest_order`).
    """
    margins = np.asarray(margins, dtype=float)
    s = check_sample_weight(sample_weight)
    p = np.full(margins.size, 1.0 / margins.size) if s is None else s / s.sum()
    with np.errstate(over="ignore"):
        caps = finite_cap(p / check_nu(nu))
    order = smallest_order(margins, caps)
    m = margins[order]
    c = caps[order]
    before = np.concatenate(([0.0], np.cumsum(c)[:-1]))  # cap mass strictly before position k
    below = np.concatenate(([0.0], np.cumsum(c * m)[:-1]))
    values = m - (before * m - below)
    return float(values.max())


class SoftMarginLP(Master):
    """What the soft-margin LPs share: their dual is a capped edge game (min gamma s.t. d . u^m <=
    gamma, d a capped distribution over the master's rows), whose multipliers are the weights w,
    rho and the cap multipliers psi.  :class:`LPBoost` caps each example; the multiclass LP
    (:class:`~lpboosting.masters.multiclass.MulticlassLPBoost`) caps each example's pairs together.
    A subclass gives ``caps(n_examples)``, :meth:`cap_excess` and :meth:`value_at`."""

    kind = "lp"
    #: a weight counts as zero when w_m <= zero_tol
    zero_tol: float = 1e-9
    #: an edge row counts as strictly satisfied when d . u^m < gamma - slack_tol
    slack_tol: float = 1e-7

    def caps(self, n_examples: int) -> np.ndarray:  # pragma: no cover - abstract
        """The caps, one per example."""
        raise NotImplementedError

    def cap_excess(self, d: np.ndarray) -> float:  # pragma: no cover - abstract
        """How far d exceeds its caps at most (<= 0 when within them)."""
        raise NotImplementedError

    def value_at(self, margins: np.ndarray) -> float:  # pragma: no cover - abstract
        """The primal's value for fixed weights w, from the rows' margins U w (closed form)."""
        raise NotImplementedError

    def inactive(self, solution: MasterSolution) -> np.ndarray | None:
        """w_m = 0 and d . u^m < gamma strictly (needs ``dual_edges`` from the session)."""
        edges = solution.dual_edges
        if edges is None:
            return None
        return (solution.weights <= self.zero_tol) & (np.asarray(edges) < solution.gamma - self.slack_tol)

    # -- column generation ---------------------------------------------------------
    def bound(self, solution: MasterSolution, edge: float) -> float:
        """max_h d.u_h >= gamma* of the full LP for every d in the capped simplex: an upper bound."""
        return float(edge)

    def gap(self, solution: MasterSolution, edge: float) -> float:
        return float(edge - self.certified_value(solution))

    def converged(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        return bool(edge <= self.certified_value(solution) + tol)

    @staticmethod
    def certified_value(solution: MasterSolution) -> float:
        """The value the gap is taken from: gamma at the restricted master's optimum; for an
        answer that is only a feasible pair (``control.optimal`` False) the value of w, a lower
        bound on the full problem's optimum (gamma of such a d bounds only the restricted one's)."""
        if solution.control.optimal:
            return float(solution.dual_objective)
        return float(solution.primal_objective)

    # -- verification ------------------------------------------------------------------
    #: above this many entries of U (N x columns checked) the edges are checked on a sample
    verify_budget: int = 50_000_000

    def verify(self, solution: MasterSolution, U: np.ndarray, active: np.ndarray | None = None) -> str:
        """The certificate of an optimum of the restricted master over U.

        d in the capped simplex (0 <= d_n <= c_n, sum d = 1) and every active
        column's edge d . u <= gamma (dual feasible); w in the simplex, and
        the soft margin of U w (its primal value, computed from the margins,
        not read from the solver) equal to gamma: by weak duality both are
        then optimal.  An answer that is only a feasible pair
        (``control.optimal`` False) is checked for feasibility alike, and for
        its reported objective: the value rho - c . (rho - U w)^+ of w at the
        reported rho, at most gamma.  The margins are the session's own check's where
        :meth:`known_margins` can use them, else summed here.  Tolerance
        :attr:`verify_tol`, relative.  Above :attr:`verify_budget` entries
        the edges are checked on the columns of positive weight, the newest
        and every k-th one (``control.verified`` says "full" or "sampled").
        """
        from lpboosting.columns import column_dots
        from lpboosting.masters.base import check_answer, scaled_tol

        n, t = U.shape
        problem = check_answer(solution, n, t)
        if problem:
            return problem
        tol = self.verify_tol
        d, w, gamma = solution.distribution, solution.weights, float(solution.dual_objective)
        if d.min() < -self.bound_tol:
            return f"d has a negative entry ({d.min():.3e})"
        over = self.cap_excess(d)
        if over > self.bound_tol:
            return f"d exceeds its cap by {over:.3e}"
        if abs(d.sum() - 1.0) > tol:
            return f"d sums to {d.sum():.12g}, not 1"
        if w.min() < -self.bound_tol or abs(w.sum() - 1.0) > tol:
            return f"w is not in the simplex (min {w.min():.3e}, sum {w.sum():.12g})"
        columns = np.arange(t) if active is None else np.asarray(active, dtype=np.intp)
        solution.control.verified = "full"
        if n * columns.size > self.verify_budget:
            step = max(1, columns.size * n // self.verify_budget)
            keep = np.zeros(t, dtype=bool)
            keep[columns[::step]] = True
            keep[columns[-64:]] = True
            keep[np.flatnonzero(w > 0)] = True
            columns = np.flatnonzero(keep)
            solution.control.verified = "sampled"
        if columns.size:
            worst = float(np.max(column_dots(U, d, columns))) - gamma
            if worst > scaled_tol(tol, gamma):
                return f"an edge exceeds gamma by {worst:.3e} (d is not dual feasible)"
        positive = np.flatnonzero(w)
        if not solution.control.optimal:
            return self._verify_value_of_w(solution, U, positive, gamma, tol)
        margins = self.known_margins(solution, n)
        if margins is None:
            margins = self.margins_for_value(U, positive, w[positive])
        margin = self.value_at(margins)
        if abs(margin - gamma) > scaled_tol(tol, gamma):
            return (f"the soft margin of w is {margin:.10g} but gamma is {gamma:.10g} (primal and dual "
                    "differ: not an optimum)")
        if abs(solution.objective - margin) > scaled_tol(tol, margin):
            return f"the reported objective {solution.objective:.10g} is not the soft margin of w ({margin:.10g})"
        return ""

    def known_margins(self, solution: MasterSolution, n: int) -> np.ndarray | None:
        """The session's margins of w (``solution.margins``) when they hold every margin that
        :meth:`value_at` reads exactly; None otherwise (here always: a subclass says when)."""
        return None

    def _verify_value_of_w(self, solution: MasterSolution, U: np.ndarray, positive: np.ndarray,
                           gamma: float, tol: float) -> str:
        """A feasible pair's check: its objective is rho - c . (rho - U w)^+ (the margins below
        rho read exactly: the session's where they are exact up to rho, else summed here), and at
        most gamma (weak duality).  The slacks are those of the examples' margins
        (:meth:`example_margins`: a row's own for LPBoost, the least of an example's pairs for
        the multiclass LP), each with its cap."""
        from lpboosting.columns import weighted_sum
        from lpboosting.masters.base import scaled_tol

        n = U.shape[0]
        rho = float(solution.rho)
        margins = solution.margins
        if margins is None or np.shape(margins) != (n,) or not solution.margins_exact_below >= rho:
            margins = weighted_sum(U, positive, solution.weights[positive])
        least = self.example_margins(np.asarray(margins, dtype=float))
        value = rho - float(self.caps(least.size) @ np.maximum(rho - least, 0.0))
        if abs(solution.objective - value) > scaled_tol(tol, value):
            return (f"the reported objective {solution.objective:.10g} is not the value of w at rho "
                    f"({value:.10g})")
        if value > gamma + scaled_tol(tol, gamma):
            return f"the value of w ({value:.10g}) exceeds gamma ({gamma:.10g}): not a feasible pair"
        return ""

    def example_margins(self, margins: np.ndarray) -> np.ndarray:
        """The margins the caps apply to, one per example, from the rows' margins U w (here the
        rows' own: a row is an example)."""
        return margins

    def margins_for_value(self, U: np.ndarray, index: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The margins U w that :meth:`value_at` reads (here all of them, exact)."""
        from lpboosting.columns import weighted_sum

        return weighted_sum(U, index, weights)

    def reduced_costs(self, U: np.ndarray, solution: MasterSolution) -> np.ndarray:
        """d . u_m - gamma for every column m of U under a solution's (d, gamma).

        The price of each hypothesis at the master's dual: positive means the
        column would improve the restricted master (its dual constraint
        d . u <= gamma is violated), and the largest is the best edge minus
        gamma, the column-generation gap.  0 for the columns with w_m > 0
        (complementary slackness).  In the primal's terms it is minus the
        reduced cost of w_m (a maximisation: a column enters while its
        reduced cost is negative).
        """
        return np.asarray(U, dtype=float).T @ solution.distribution - float(solution.dual_objective)

    def cvxpy_solution(self, statement, U, status):
        d = np.asarray(statement.variables["d"].value, dtype=float)
        gamma = float(statement.variables["gamma"].value)
        w = np.atleast_1d(statement.constraints["edges"].dual_value)[:U.shape[1]]  # a block's first t
        # cvxpy's Lagrangian adds  nu_eq * (sum d - 1):  rho = -nu_eq.
        rho = -float(statement.constraints["simplex"].dual_value)
        psi = np.asarray(statement.constraints["cap"].dual_value, dtype=float)
        return self.read_back(status, d, gamma, w, rho, psi)

    def cvxpy_primal_solution(self, statement: CvxpyStatement, U: np.ndarray,
                              status: SolveStatus) -> MasterSolution:
        """The :class:`MasterSolution` of a solved :meth:`cvxpy_primal_statement`."""
        w = np.asarray(statement.variables["w"].value, dtype=float)
        rho = float(statement.variables["rho"].value)
        psi = np.asarray(statement.variables["psi"].value, dtype=float)
        d = np.maximum(np.asarray(statement.constraints["margins"].dual_value, dtype=float), 0.0)
        # the multiplier of sum w = 1 is gamma (stationarity in w_m: d . u_m <= gamma, equal where w_m > 0)
        gamma = float(statement.constraints["simplex"].dual_value)
        return self.read_back(status, d, gamma, w, rho, psi)

    # -- read-back ---------------------------------------------------------------------
    def read_back(self, status: SolveStatus, d: np.ndarray, gamma: float, w: np.ndarray,
                  rho: float, psi: np.ndarray) -> MasterSolution:
        """The :class:`MasterSolution` of a solved master, in the one sign convention.

        Arguments are the dual's optimal (d, gamma) and the multipliers of its
        constraints, written as in the class docstring: w >= 0 of the edge
        rows d . u^m <= gamma, rho (free) of sum d = 1, psi >= 0 of d <= c.
        A solver maps its own signs to these (e.g. HiGHS's row duals y give
        w = -y); w and psi are clipped at 0 (solver round-off).  The primal
        objective is rho - c . psi, the dual objective gamma.
        """
        caps = self.caps(self.examples(np.size(d)))
        w = np.maximum(np.asarray(w, dtype=float), 0.0)
        psi = np.maximum(np.asarray(psi, dtype=float), 0.0)
        primal = float(rho) - float(caps @ psi)
        return MasterSolution(
            status=status,
            objective=primal,
            primal_objective=primal,
            dual_objective=gamma,
            weights=w,
            distribution=d,
            rho=float(rho),
            slacks=psi,
            gamma=float(gamma),
        )


class LPBoost(SoftMarginLP):
    r"""The LPBoost master over the columns found so far.

    With margin matrix U (N x t, U[n, m] = y_n h_m(x_n)) and cap
    c_n = 1/(nu N) (with sample weights s, c_n = p_n / nu, p = s / sum(s):
    the same LP as the data with every row repeated s_n times):

    Primal (soft margin, eq. 1)::

        max_{w, rho, psi}  rho - sum_n c_n psi_n
        s.t.  sum_m U[n, m] w_m >= rho - psi_n     (n = 1..N)    dual: d_n
              w in the simplex, psi >= 0

    Dual (capped edge game, eq. 2), the problem the backends solve::

        min_{d, gamma}  gamma
        s.t.  d . u^m <= gamma                     (m = 1..t)    dual: w_m >= 0
              sum_n d_n = 1                                       dual: rho
              0 <= d_n <= c_n                                     dual: psi_n >= 0

    **The distribution handed to the oracle is d**, the dual of the margin
    constraints.  Both optima are equal (rho* - c . psi* = gamma*); the
    column-generation gap is (best edge of an exact oracle) - gamma*.
    Column generation stops when the best new edge is <= gamma* + tol.

    Parameters
    ----------
    nu:
        Fraction in (0, 1]; the paper's capping parameter is nu * N.  At most
        about nu*N examples can have margin below rho.
    pool:
        None keeps every hypothesis in the master.  A
        :class:`~lpboosting.masters.pool.ColumnPool` (or a dict of its
        fields) deletes hypotheses that stayed inactive, w_m = 0 and
        d . u^m < gamma, for its ``inactive_rounds`` solves; they re-enter
        when the oracle prices them again.  The optimum is unchanged.
    sample_weight:
        None (every example counts 1/N) or one weight >= 0 per example (the
        classifiers' ``fit(X, y, sample_weight)``); a zero weight drops the
        example (its cap is 0).
    """

    name = "LPBoost"

    def __init__(self, nu: float = 0.1, pool: "ColumnPool | dict | None" = None,
                 sample_weight: np.ndarray | None = None) -> None:
        self.nu = check_nu(nu)
        self.pool = make_pool(pool)
        self.sample_weight = check_sample_weight(sample_weight)

    def cap(self, n_samples: int) -> float:
        """The cap 1/(nu N) of unweighted examples (see :meth:`caps` for weighted ones).

        At most :data:`CAP_CEILING` (nu = 5e-324 overflows): a cap above 1 never binds.
        """
        return finite_cap(1.0 / (self.nu * n_samples))

    def caps(self, n_samples: int) -> np.ndarray:
        """Per-example caps c_n = p_n / nu (all 1/(nu N) without sample weights), at most 2."""
        if self.sample_weight is None:
            return np.full(n_samples, self.cap(n_samples))  # the same floats as 1/(nu N)
        with np.errstate(over="ignore"):
            return finite_cap(self.prior(n_samples) / self.nu)

    def params(self):
        return {"nu": self.nu} | ({"pool": self.pool.to_dict()} if self.pool else {})

    def __repr__(self) -> str:
        return f"LPBoost(nu={self.nu!r}" + (f", pool={self.pool!r})" if self.pool else ")")

    def cap_excess(self, d: np.ndarray) -> float:
        """max_n d_n - c_n."""
        return float(np.max(d - self.caps(d.size)))

    def value_at(self, margins: np.ndarray) -> float:
        """The soft margin of the margins (:func:`soft_margin`)."""
        return soft_margin(margins, self.nu, self.sample_weight)

    def known_margins(self, solution: MasterSolution, n: int) -> np.ndarray | None:
        """``solution.margins`` (the sifting session's check of this w) when the soft margin reads
        only exact ones: the caps of the margins at most ``margins_exact_below`` sum above 1.

        The soft margin's rho is the margin where the caps of the smallest
        margins first sum to 1; the others are above their exact threshold for
        certain, so they sort after every exact one and add nothing.  The
        margins are those of the weights the solution reports (summed from U
        by our own code, as :meth:`margins_for_value` sums them), not a
        solver's value.
        """
        margins = solution.margins
        if margins is None or np.shape(margins) != (n,) or not np.isfinite(solution.margins_exact_below):
            return None
        exact = margins <= solution.margins_exact_below
        if float(self.caps(n)[exact].sum()) <= 1.0 + 1e-9:
            return None
        return margins

    def margins_for_value(self, U: np.ndarray, index: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """U w, exact at every margin the soft margin reads, the others above them.

        The soft margin's rho is the margin where the caps of the smallest
        margins first sum to 1 (its weighted quantile); the rows above it add
        nothing.  On a large int8 U the margins are screened in float32
        (:func:`~lpboosting.columns.approximate_sum`, error at most b): the
        quantile of the screened margins is within b of rho, so every row
        whose margin is at most rho has a screened margin at most that
        quantile plus 2b, and those rows alone are summed exactly.  The
        soft margin of the result equals that of the exact margins.
        """
        from lpboosting.columns import approximate_sum, weighted_sum

        screened = approximate_sum(U, index, weights)
        if screened is None:
            return weighted_sum(U, index, weights)
        margins, bound = screened
        caps = self.caps(margins.size)
        order = smallest_order(margins, caps)
        mass = np.cumsum(caps[order])
        # the first position whose caps reach 1, one further against round-off in the sums
        at = min(int(np.searchsorted(mass, 1.0 - 1e-9)) + 1, order.size - 1)
        near = np.flatnonzero(margins <= margins[order[at]] + 2.0 * bound)
        margins[near] = weighted_sum(U, index, weights, rows=near)
        return margins

    # -- cvxpy statement -------------------------------------------------------------
    def cvxpy_statement(self, U: np.ndarray) -> CvxpyStatement:
        n = U.shape[0]
        return self._edge_game(U, self.cap(n) if self.sample_weight is None else self.caps(n))

    @staticmethod
    def _edge_game(U: Any, caps: Any, slack: Any = None) -> CvxpyStatement:
        """min gamma s.t. U^T d <= gamma (+ slack), sum d = 1, 0 <= d <= caps: on data or on cvxpy
        Parameters (the same statement)."""
        import cvxpy as cp

        d = cp.Variable(U.shape[0], name="d")
        gamma = cp.Variable(name="gamma")
        edges = U.T @ d <= (gamma if slack is None else gamma + slack)
        simplex = cp.sum(d) == 1
        cap = d <= caps
        problem = cp.Problem(cp.Minimize(gamma), [edges, simplex, d >= 0, cap])
        return CvxpyStatement(
            problem,
            variables={"d": d, "gamma": gamma},
            constraints={"edges": edges, "simplex": simplex, "cap": cap},
        )

    def cvxpy_parametric_statement(self, n_samples: int, capacity: int) -> CvxpyStatement:
        """The dual over a block of ``capacity`` columns, the data in cvxpy Parameters (DPP)::

            min_{d, gamma}  gamma
            s.t.  U_block^T d <= gamma + s     ("edges")
                  sum_n d_n = 1, 0 <= d_n <= c_n

        with parameters U_block (N x capacity), s >= 0 (capacity) and the
        caps c (N).  :meth:`cvxpy_load` puts the t columns in the block's
        first t columns with s_m = 0 (the rows of :meth:`cvxpy_statement`)
        and zero columns after them with s_m = 1 + max |U|: their rows read
        -gamma <= s_m, which every feasible gamma (>= -max |U|, an edge of d
        in the simplex) satisfies with slack >= 1, so they change neither the
        optimum nor, by complementary slackness, the multipliers of the first
        t rows (the weights w read back); their own multipliers are 0.
        """
        import cvxpy as cp

        n = int(n_samples)
        block = cp.Parameter((n, capacity), name="U")
        slack = cp.Parameter(capacity, nonneg=True, name="slack")
        caps = cp.Parameter(n, nonneg=True, name="caps")
        statement = self._edge_game(block, caps, slack)
        statement.parameters, statement.capacity = {"U": block, "slack": slack, "caps": caps}, capacity
        return statement

    def cvxpy_load(self, statement: CvxpyStatement, U: np.ndarray) -> None:
        """U in the block's first columns, zero columns with a slack row after them, the caps."""
        n, t = U.shape
        capacity = statement.capacity
        block = np.zeros((n, capacity))
        block[:, :t] = U
        slack = np.zeros(capacity)
        slack[t:] = 1.0 + (float(np.max(np.abs(U))) if U.size else 0.0)
        statement.parameters["U"].value = block
        statement.parameters["slack"].value = slack
        statement.parameters["caps"].value = self.caps(n)

    def cvxpy_primal_statement(self, U: np.ndarray) -> CvxpyStatement:
        """The soft-margin LP (1) itself in cvxpy, beside :meth:`cvxpy_statement` (its dual).

        ::

            max_{w, rho, psi}  rho - sum_n c_n psi_n
            s.t.  U w >= rho - psi     ("margins", dual d: the distribution)
                  sum w = 1            ("simplex", dual gamma)
                  w >= 0, psi >= 0

        Read it back with :meth:`cvxpy_primal_solution`: the same
        :class:`MasterSolution` as the dual's, d and gamma from the multipliers.
        """
        import cvxpy as cp

        n, t = U.shape
        w = cp.Variable(t, nonneg=True, name="w")
        rho = cp.Variable(name="rho")
        psi = cp.Variable(n, nonneg=True, name="psi")
        margins = U @ w >= rho - psi
        simplex = cp.sum(w) == 1
        penalty = self.cap(n) * cp.sum(psi) if self.sample_weight is None else self.caps(n) @ psi
        problem = cp.Problem(cp.Maximize(rho - penalty), [margins, simplex])
        return CvxpyStatement(problem, variables={"w": w, "rho": rho, "psi": psi},
                              constraints={"margins": margins, "simplex": simplex})

    # -- matrix form ---------------------------------------------------------------------
    #: the forms of the LP (:meth:`matrix_form`); the first is the one the HiGHS sessions solve
    lp_forms = {"dual": "capped edge game", "primal": "soft-margin LP"}

    def matrix_form(self, U: np.ndarray, form: str | None = None) -> Any:
        """The master over U as a :class:`~lpboosting.masters.matrix_form.MatrixForm`.

        ``"dual"`` (the default) from :meth:`cvxpy_statement`: columns
        ``d_0 .. d_{N-1}`` in [0, c_n] and ``gamma`` (free, cost 1); rows
        ``sum_d`` (sum_n d_n = 1) and ``edge_j`` (sum_n U[n, j] d_n - gamma <= 0).
        ``"primal"`` from :meth:`cvxpy_primal_statement` (a maximisation):
        columns ``w_j`` >= 0, ``rho`` free, ``psi_n`` >= 0 (cost -c_n); rows
        ``margin_n`` (sum_j U[n, j] w_j - rho + psi_n >= 0) and ``sum_w``
        (sum_j w_j = 1).
        """
        from lpboosting.masters.matrix_form import Columns, Rows, derive_matrix_form

        if self.check_lp_form(form) == "dual":
            return derive_matrix_form(
                self.cvxpy_statement(U),
                columns=[Columns("d", "d_{}"), Columns("gamma", "gamma")],
                rows=[Rows("simplex", "sum_d", "=="), Rows("edges", "edge_{}", "<=")])
        return derive_matrix_form(
            self.cvxpy_primal_statement(U),
            columns=[Columns("w", "w_{}"), Columns("rho", "rho"), Columns("psi", "psi_{}")],
            rows=[Rows("margins", "margin_{}", ">="), Rows("simplex", "sum_w", "==")])
