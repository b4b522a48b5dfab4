"""What the relative-entropy masters (SoftBoost, TotalBoost, ERLPBoost) share.

Each round of an entropy master does two things over the columns found so
far:

1. the LPBoost LP over the chosen columns gives gamma*_t, the optimal soft
   margin, and its primal weights w — the final weights of the combined
   hypothesis, as Warmuth, Glocer and Rätsch (2007) prescribe for SoftBoost;
2. the master's relative-entropy projection gives the next distribution d_t.

Sample weights s (``sample_weight``) make every master the master of the
data with row n repeated s_n times, written on the N distinct rows: the
empirical distribution p = s / sum(s) replaces 1/N everywhere.  The caps
become c_n = p_n / nu, the relative entropy to the uniform distribution
becomes the relative entropy to p, Delta_p(d) = sum_n d_n ln(d_n / p_n) (k
copies of a row at d/k each contribute exactly this), the first distribution
d_0 is p, and a zero weight drops the example (d_n = 0).  Constant weights
give the unweighted master.  :meth:`EntropyMaster.simplex` returns the caps
and the prior that the projections use.

This module states the projection's parts every backend needs: the master's
cvxpy statement of the projection and its read-back (:meth:`EntropyMaster.
read_projection`), the closed-form dual values (exact lower bounds), the
round's bookkeeping (:meth:`~EntropyMaster.round_state`,
:meth:`~EntropyMaster.finish`) and the result type of one projection
(:class:`ProjectionResult`).  The session that runs the two steps
(:mod:`lpboosting.backends.entropy_session`) and the solvers of the
projection (the dedicated Newton solver, cvxpy's conic solvers) are in
:mod:`lpboosting.backends`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from abc import abstractmethod
from typing import Any, TypedDict

import numpy as np

from lpboosting.masters.base import (
    CvxpyStatement,
    Master,
    MasterSolution,
    check_sample_weight,
    check_unit_interval,
)
from lpboosting.masters.capped_simplex import capped_softmax, relative_entropy
from lpboosting.masters.lpboost import LPBoost, check_nu, finite_cap
from lpboosting.status import SolveStatus


#: what delta is, and what to use instead of a bad one (the masters' and the classifiers' errors)
DELTA_MEANING = "an accuracy in (0, 1] (edges and margins live in [-1, 1])"
DELTA_ADVICE = "typical values are 0.01 to 0.1"


def check_delta(delta: float) -> float:
    return check_unit_interval(delta, "delta", DELTA_MEANING, DELTA_ADVICE)


def softboost_dual_value(U: np.ndarray, bound: float, cap, lam: np.ndarray,
                         prior: np.ndarray | None = None) -> float:
    """g(lambda) = min_{d in capped simplex} Delta_p(d) + d.(U lambda) - bound * sum(lambda).

    ``cap`` is a scalar or one cap per example, ``prior`` None (uniform) or p
    (see :meth:`EntropyMaster.simplex`).
    """
    s = U @ lam
    d, _ = capped_softmax(-s, cap, prior)
    return relative_entropy(d, prior) + float(d @ s) - float(np.sum(bound * lam))


def erlpboost_dual_value(U: np.ndarray, cap, eta: float, w: np.ndarray,
                         prior: np.ndarray | None = None) -> float:
    """h(w) = min_{d in capped simplex} d.(U w) + Delta_p(d)/eta (caps and prior as above)."""
    s = U @ w
    d, _ = capped_softmax(-eta * s, cap, prior)
    return float(d @ s) + relative_entropy(d, prior) / eta


class ProjectionState(TypedDict, total=False):
    """One round's projection parameters, as :meth:`EntropyMaster.round_state` returns them.

    SoftBoost and TotalBoost: ``gamma_hat`` (the least edge so far) and
    ``bound`` = gamma_hat - delta, the right-hand side of the edge
    constraints; ERLPBoost: ``eta``, the weight 1/eta of the relative
    entropy.  ``stop``: no projection this round (the run ends; ``reason``
    says why, e.g. "infeasible").
    """

    gamma_hat: float
    bound: float
    eta: float
    stop: bool
    reason: str


@dataclass
class ProjectionResult:
    """Outcome of one entropy projection, whichever solver gave it.

    Attributes:
        status: OPTIMAL (for the dedicated solver: verified), INFEASIBLE
            (SoftBoost only; the dedicated solver reports it only with the edge
            LP's certificate), FAILED (the dedicated solver could not verify
            its answer: use another solver), or another :class:`SolveStatus`
            of a conic solver.
        distribution: d, shape (N,).  For INFEASIBLE the edge-LP minimiser.
        multipliers: lambda >= 0 (SoftBoost, one per edge constraint) or w in the
            simplex (ERLPBoost), shape (T,); the last iterate when not optimal.
        objective: primal value, Delta(d) (SoftBoost) or gamma + Delta(d)/eta (ERLPBoost);
            +inf when infeasible.
        dual_objective: dual function value g(lambda) or h(w), a lower bound on the
            optimum by weak duality.
        gamma: max_m d . u_m (-inf when T = 0).
        iterations: solver iterations (Newton or the conic solver's).
        max_violation: largest violation of the primal constraints by d
            (sum, bounds, edge constraints); for INFEASIBLE the edge-LP value
            min_d max_m (d.u_m - bound_m) > 0.
        gap: objective - dual_objective (nan when infeasible).
        verified: whether the status is certified (feasibility and gap within
            tolerance for OPTIMAL; a positive LP lower bound for INFEASIBLE);
            conic solvers' answers are taken as reported (False).
        seconds: wall-clock time.
        message: human-readable details.
        solver: "dedicated" or "cvxpy:SOLVER".
        fallback: True when a conic solver answered because the dedicated one
            could not verify its answer.
    """

    status: SolveStatus
    distribution: np.ndarray
    multipliers: np.ndarray
    objective: float
    dual_objective: float
    gamma: float
    iterations: int | None
    max_violation: float
    gap: float
    verified: bool
    seconds: float
    message: str = ""
    solver: str = ""
    fallback: bool = False

    @property
    def ok(self) -> bool:
        """True when d can be used (optimal, possibly to reduced accuracy)."""
        return self.status.ok


class EntropyMaster(Master):
    """Base of masters whose distribution is a relative-entropy projection.

    ``sample_weight`` is None (every example counts 1/N) or one weight >= 0
    per example: p = s / sum(s) replaces 1/N in the caps (c_n = p_n / nu), in
    the relative entropy (to p instead of the uniform distribution) and in the
    first distribution; a zero weight drops the example.
    """

    kind = "exp_cone"
    default_backend = "dedicated"
    #: none: a round's projection depends on the run so far (SoftBoost's bound from the earlier
    #: edges), which only the session holds, so a rejected answer is not solved again afresh
    fallback_backends = ()
    #: a projection the dedicated Newton solver cannot verify is solved again by a conic solver
    session_fallbacks = ("cvxpy:CLARABEL", "cvxpy:ECOS", "cvxpy:SCS")

    def __init__(self, nu: float, delta: float, sample_weight: np.ndarray | None = None) -> None:
        self.nu = check_nu(nu)
        self.delta = check_delta(delta)
        self.sample_weight = check_sample_weight(sample_weight)

    def cap(self, n_samples: int) -> float:
        """The cap 1/(nu N) of unweighted examples, at most 2 (see :meth:`caps`, :func:`finite_cap`)."""
        return finite_cap(1.0 / (self.nu * n_samples))

    def caps(self, n_samples: int) -> np.ndarray:
        """Per-example caps c_n = p_n / nu (all 1/(nu N) without sample weights), at most 2."""
        with np.errstate(over="ignore"):
            return finite_cap(self.prior(n_samples) / self.nu)

    def uniform(self, n_samples: int) -> bool:
        """True when the examples count equally (no weights, or all weights equal)."""
        if self.sample_weight is None:
            return True
        self.prior(n_samples)  # a clear error when there is not one weight per example
        return bool(np.all(self.sample_weight == self.sample_weight[0]))

    def simplex(self, n_samples: int) -> tuple[float | np.ndarray, np.ndarray | None]:
        """(caps, prior) of the projection's capped simplex and relative entropy.

        ``(cap(N), None)`` — one scalar cap, the uniform prior — when the
        examples count equally; otherwise ``(caps(N), prior(N))``, the
        per-example caps and p = s / sum(s) (zeros where a weight is 0).  These
        are the ``cap`` and ``prior`` arguments of the functions of
        :mod:`lpboosting.masters.capped_simplex` and of the dedicated solver.
        """
        if self.uniform(n_samples):
            return self.cap(n_samples), None
        return self.caps(n_samples), self.prior(n_samples)

    def log_spread(self, n_samples: int) -> float:
        """ln(N / nu') = ln(N cap), the largest relative entropy to the prior on the capped simplex.

        Weighted: ln(max_n c_n / p_n) = ln(1 / nu) (SoftBoost, ERLPBoost), the
        same as for the data with repeated rows.
        """
        if self.uniform(n_samples):
            return math.log(n_samples * self.cap(n_samples))
        return math.log(1.0 / self.lp_nu(n_samples))

    def params(self) -> dict[str, Any]:
        return {"nu": self.nu, "delta": self.delta}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(nu={self.nu!r}, delta={self.delta!r})"

    # -- the projection, per master --------------------------------------------------
    @abstractmethod
    def projection_problem(self, U: np.ndarray, state: ProjectionState) -> CvxpyStatement:
        """The projection stated in cvxpy (exponential cone), with the round's parameters ``state``."""

    @abstractmethod
    def read_projection(self, statement: CvxpyStatement, U: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
        """(d, multipliers, primal value, dual value) of a solved projection statement."""

    @staticmethod
    def read_distribution(statement: CvxpyStatement, n_samples: int) -> np.ndarray:
        """d of a solved projection statement: clipped at 0, renormalised, and zero on the
        examples the statement left out (``constraints["support"]``, the positive weights)."""
        d = np.clip(np.asarray(statement.variables["d"].value, dtype=float), 0.0, None)
        d /= d.sum()
        support = statement.constraints.get("support")
        if support is None:
            return d
        full = np.zeros(n_samples)
        full[support] = d
        return full

    @abstractmethod
    def round_state(self, session: Any, lp: MasterSolution) -> ProjectionState:
        """What the projection of this round needs (bounds, eta, ...) and whether to stop first.

        ``session`` holds the run so far: ``edges`` (d_(q-1) . u^q of every
        column) and ``entropies`` (Delta(d_(q-1)) for each column's pricing).  The
        state holds the projection's parameters (SoftBoost's ``bound`` and
        ``gamma_hat``, ERLPBoost's ``eta``), ``stop`` (no projection this
        round) and a ``reason`` (see :class:`ProjectionState`).
        """

    @abstractmethod
    def finish(self, session: Any, lp: MasterSolution, state: ProjectionState,
               projection: ProjectionResult | None) -> dict[str, Any]:
        """The round's record entries (the projection's parameters and bounds) and ``stop``, whether
        the run ends with this round; the session moves ``stop`` to the answer's
        :class:`~lpboosting.masters.base.SolveControl`."""

    # -- cvxpy statement of the Master contract ---------------------------------------
    def cvxpy_statement(self, U, state=None):
        return self.projection_problem(U, state or {})

    def cvxpy_solution(self, statement, U, status):
        d, mult, primal, dual = self.read_projection(statement, U)
        return MasterSolution(status=status, objective=primal, primal_objective=primal,
                              dual_objective=dual, weights=mult, distribution=d)

    #: the keywords of a stand-alone projection (:meth:`project`)
    projection_keywords: tuple[str, ...] = ()

    def projection_state(self, n_samples: int, state: dict[str, Any]) -> dict[str, Any]:
        """Complete the parameters of a stand-alone projection (see :meth:`project`)."""
        return dict(state)

    def projection_number(self, name: str, value: Any, expected: str, positive: bool = False) -> float:
        """A keyword of :meth:`project` as a finite float (> 0 if ``positive``), or an error naming
        the keyword, the value and what is expected."""
        number_types = (int, float, np.integer, np.floating)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, number_types):
            raise TypeError(f"{self.name}.project: {name} must be a number ({expected}), got {value!r} "
                            f"of type {type(value).__name__}")
        number = float(value)
        if not math.isfinite(number) or (positive and number <= 0):
            finite = "a finite number > 0" if positive else "a finite number"
            raise ValueError(f"{self.name}.project: {name} must be {finite} ({expected}), got {value!r}")
        return number

    def check_projection_keywords(self, state: dict[str, Any]) -> None:
        unknown = sorted(set(state) - set(self.projection_keywords))
        if unknown:
            raise TypeError(f"{self.name}.project got unknown keyword(s) {unknown}; it takes "
                            f"{', '.join(self.projection_keywords) or 'none'}")

    def project(self, U: Any, backend: Any = None, **state: Any) -> ProjectionResult:
        """Solve one projection of this master on a given margin matrix U (N x T).

        SoftBoost/TotalBoost take ``bound`` (the right-hand side gamma_hat - delta);
        ERLPBoost takes ``eta`` (default: its eta for N examples).  ``backend=None``
        is the master's default (the work is done by
        :func:`lpboosting.colgen.project_master`).
        """
        from lpboosting.colgen.solve import project_master

        return project_master(self, U, backend, **state)

    def solve(self, U, backend=None, **options):
        raise NotImplementedError(
            f"{self.name} is a sequence of projections, not one problem: run it with "
            f"column_generation or {self.name}Classifier, or solve one projection with .project(U, ...)"
        )

    def lp_nu(self, n_samples: int) -> float:
        """nu of the LPBoost LP solved over the chosen columns (for the final weights).

        The LP carries the master's sample weights too (caps p_n / nu).
        """
        return self.nu

    def lp_master(self, n_samples: int) -> "LPBoost":
        """The LPBoost master of the LP over the chosen columns: nu = :meth:`lp_nu`, the same weights."""
        return LPBoost(self.lp_nu(n_samples), sample_weight=self.sample_weight)

    def verify(self, solution: MasterSolution, U: np.ndarray, active: np.ndarray | None = None) -> str:
        """What a round's answer must satisfy: d in the capped simplex of the projection, the LP's
        w in the simplex with its soft margin (computed here) equal to the reported objective, and
        the projection's primal value not below its dual value (weak duality).  (The projection
        itself is verified by its solver: the dedicated one checks every answer.)"""
        from lpboosting.columns import weighted_sum
        from lpboosting.masters.base import check_answer, scaled_tol

        n, t = U.shape
        problem = check_answer(solution, n, t, objective_only=True)
        if problem:
            return problem
        tol = self.verify_tol
        d, w = solution.distribution, solution.weights
        if d.min() < -self.bound_tol or abs(d.sum() - 1.0) > tol:
            return f"d is not a distribution (min {d.min():.3e}, sum {d.sum():.12g})"
        over = self.cap_excess(d)
        if over > self.bound_tol:
            return f"d exceeds its cap by {over:.3e}"
        if w.min() < -self.bound_tol or abs(w.sum() - 1.0) > tol:
            return f"the LP's w is not in the simplex (min {w.min():.3e}, sum {w.sum():.12g})"
        positive = np.flatnonzero(w)
        margin = self.lp_master(n).value_at(weighted_sum(U, positive, w[positive]))
        if abs(margin - solution.objective) > scaled_tol(tol, margin):
            return f"the reported soft margin {solution.objective:.10g} is not that of w ({margin:.10g})"
        primal, dual = solution.primal_objective, solution.dual_objective
        if np.isfinite(primal) != np.isfinite(dual):
            return f"the projection's primal value is {primal} and its dual value {dual}"
        gamma = solution.gamma
        if gamma is not None and abs(margin - gamma) > scaled_tol(tol, margin):
            return f"the LP's soft margin {margin:.10g} and its value gamma* {gamma:.10g} differ"
        if not np.isfinite(primal):
            # no projection this round (the run stops): d is the LP's dual, feasible for its columns
            from lpboosting.columns import column_dots

            worst = float(np.max(column_dots(U, d))) - float(gamma)
            if worst > scaled_tol(tol, gamma):
                return f"an edge of the LP's d exceeds gamma* by {worst:.3e} (d is not dual feasible)"
            return ""
        if primal < dual - scaled_tol(tol, dual):
            return f"the projection's primal value {primal:.10g} is below its dual value {dual:.10g}"
        value, problem = self.projection_value(d, U, solution.record)
        if problem:
            return problem
        if value is not None and abs(value - primal) > scaled_tol(tol, value):
            return (f"the projection's primal value {primal:.10g} is not its objective at d "
                    f"({value:.10g}): d is not the projection's answer")
        return ""

    def cap_excess(self, d: np.ndarray) -> float:
        """How far d exceeds the caps of the projection's capped simplex, at most."""
        caps, _ = self.simplex(d.size)
        return float(np.max(d - np.broadcast_to(np.asarray(caps, dtype=float), d.shape)))

    def projection_value(self, d: np.ndarray, U: np.ndarray, record: dict[str, Any]) -> tuple[float | None, str]:
        """The projection's objective at d and '' — or why d is not feasible for it (subclasses);
        (None, '') when the round's record does not say enough to evaluate it."""
        return None, ""

    #: the gap is the best edge found at any d priced (d_0, d_1, ..., d_t) minus gamma*_t: the edge
    #: at d_t alone (the LP's dual d in the last round) stays above the certified gap
    gap_at_best_bound = True

    def bound(self, solution, edge):
        """The best edge at any d in the capped simplex bounds the full LP's value from above."""
        return float(edge)

    def gap(self, solution, edge):
        """``edge`` minus gamma*_t, the LP value over the chosen columns.

        The loop passes the best (lowest) edge an exact oracle found at any
        distribution priced so far (:attr:`gap_at_best_bound`): an upper bound
        on the full LP's value, so the gap certifies the final weights.  At a
        stop by the master's rule it is within delta: SoftBoost stops once
        gamma*_t > gamma_hat_t - delta, with gamma_hat_t the smallest such edge.
        """
        return float(edge - solution.gamma)

    def converged(self, solution, edge, tol):
        return bool(solution.control.stop)
