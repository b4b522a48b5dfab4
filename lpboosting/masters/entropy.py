"""Shared machinery of the relative-entropy masters (SoftBoost, TotalBoost, ERLPBoost).

Each round of an entropy master does two things over the columns found so
far:

1. solves the LPBoost LP (incrementally, in HiGHS) for gamma*_t, the
   optimal soft margin over the chosen columns, and its primal weights w —
   the final weights of the combined hypothesis, as Warmuth, Glocer and
   Rätsch (2007) prescribe for SoftBoost;
2. solves the master's relative-entropy projection for the next
   distribution d_t, with a *projector*: the dedicated dual Newton solver
   (``backend="dedicated"``) or a conic solver through cvxpy
   (``backend="cvxpy:CLARABEL"``, ``"cvxpy:ECOS"``, ``"cvxpy:SCS"``).

The dedicated solver never hands back an unverified d: when its primal
feasibility or duality-gap check fails the projection is re-solved by a
conic solver, and the round's record says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpboosting.backends.base import Backend
from lpboosting.errors import SolverNotInstalledError
from lpboosting.masters.base import (
    CvxpyStatement,
    Master,
    MasterSession,
    MasterSolution,
    check_margin_matrix,
    check_unit_interval,
)
from lpboosting.masters.entropy_projection import capped_softmax, relative_entropy
from lpboosting.masters.lpboost import LPBoost, check_nu, soft_margin
from lpboosting.status import SolveStatus

#: conic solvers tried, in order, when the dedicated solver cannot verify its answer
FALLBACK_SOLVERS = ("CLARABEL", "ECOS", "SCS")


def check_delta(delta: float) -> float:
    return check_unit_interval(
        delta, "delta", "an accuracy in (0, 1] (edges and margins live in [-1, 1])",
        "typical values are 0.01 to 0.1",
    )


def softboost_dual_value(U: np.ndarray, bound: float, cap: float, lam: np.ndarray) -> float:
    """g(lambda) = min_{d in capped simplex} Delta(d) + d.(U lambda) - bound * sum(lambda)."""
    s = U @ lam
    d, _ = capped_softmax(-s, cap)
    return relative_entropy(d) + float(d @ s) - float(np.sum(bound * lam))


def erlpboost_dual_value(U: np.ndarray, cap: float, eta: float, w: np.ndarray) -> float:
    """h(w) = min_{d in capped simplex} d.(U w) + Delta(d)/eta."""
    s = U @ w
    d, _ = capped_softmax(-eta * s, cap)
    return float(d @ s) + relative_entropy(d) / eta


@dataclass
class Projection:
    """A solved projection: the new distribution and how it was obtained."""

    status: SolveStatus
    distribution: np.ndarray
    multipliers: np.ndarray
    objective: float
    dual_objective: float
    iterations: int | None
    seconds: float
    solver: str
    fallback: bool = False
    message: str = ""


class EntropyMaster(Master):
    """Base of masters whose distribution is a relative-entropy projection."""

    kind = "exp_cone"
    default_backend = "dedicated"

    def __init__(self, nu: float, delta: float) -> None:
        self.nu = check_nu(nu)
        self.delta = check_delta(delta)

    def cap(self, n_samples: int) -> float:
        return 1.0 / (self.nu * n_samples)

    def params(self) -> dict[str, Any]:
        return {"nu": self.nu, "delta": self.delta}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(nu={self.nu!r}, delta={self.delta!r})"

    # -- the projection, per master --------------------------------------------------
    def projection_problem(self, U: np.ndarray, state: dict[str, Any]) -> CvxpyStatement:
        """The projection stated in cvxpy (exponential cone)."""
        raise NotImplementedError

    def read_projection(self, statement: CvxpyStatement, U: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
        """(d, multipliers, primal value, dual value) of a solved projection statement."""
        raise NotImplementedError

    def project_dedicated(self, U: np.ndarray, state: dict[str, Any], warm: np.ndarray | None):
        """Solve the projection with the dedicated solver; returns its ProjectionResult."""
        raise NotImplementedError

    def round_state(self, session: "EntropySession", lp: MasterSolution) -> dict[str, Any]:
        """What the projection of this round needs (bounds, eta, ...) and whether to stop first."""
        raise NotImplementedError

    def finish(self, session: "EntropySession", lp: MasterSolution, state: dict[str, Any],
               projection: Projection | None) -> dict[str, Any]:
        """Master-specific record entries and the stop flag after the round's projection."""
        raise NotImplementedError

    # -- cvxpy statement of the Master contract ---------------------------------------
    def cvxpy_statement(self, U, state=None):
        return self.projection_problem(U, state or {})

    def cvxpy_solution(self, statement, U, status):
        d, mult, primal, dual = self.read_projection(statement, U)
        return MasterSolution(status=status, objective=primal, primal_objective=primal,
                              dual_objective=dual, weights=mult, distribution=d)

    def projection_state(self, n_samples: int, state: dict[str, Any]) -> dict[str, Any]:
        """Complete the parameters of a stand-alone projection (see :meth:`project`)."""
        return dict(state)

    def project(self, U: Any, backend: "str | Backend" = "dedicated", **state: Any) -> Projection:
        """Solve one projection of this master on a given margin matrix U (N x T).

        SoftBoost/TotalBoost take ``bound`` (the right-hand side gamma_hat - delta);
        ERLPBoost takes ``eta`` (default: its eta for N examples).
        """
        from lpboosting.backends import get_backend

        U = check_margin_matrix(U)
        backend = get_backend(backend)
        backend.require()
        backend.check_master(self)
        return project_with(self, U, self.projection_state(U.shape[0], state), backend)

    def solve(self, U, backend="dedicated", **options):
        raise NotImplementedError(
            f"{self.name} is a sequence of projections, not one problem: run it with "
            f"column_generation or {self.name}Classifier, or solve one projection with .project(U, ...)"
        )

    # -- sessions ----------------------------------------------------------------------
    def open_session(self, n_samples: int, backend: Backend) -> "EntropySession":
        return EntropySession(self, n_samples, backend)

    def lp_nu(self, n_samples: int) -> float:
        """nu of the LPBoost LP solved over the chosen columns (for the final weights)."""
        return self.nu

    def gap(self, solution, edge):
        """Best edge under d_t minus gamma*_t, the LP value over the chosen columns."""
        return float(edge - solution.gamma)

    def converged(self, solution, edge, tol):
        return bool(solution.info.get("stop", False))


def solve_with_cvxpy(master: EntropyMaster, U: np.ndarray, state: dict[str, Any], solver: str,
                     options: dict[str, Any] | None = None) -> Projection:
    import cvxpy as cp

    start = time.perf_counter()
    statement = master.projection_problem(U, state)
    message = ""
    try:
        statement.problem.solve(solver=solver, **(options or {}))
        status = {
            "optimal": SolveStatus.OPTIMAL, "optimal_inaccurate": SolveStatus.INACCURATE,
            "infeasible": SolveStatus.INFEASIBLE, "infeasible_inaccurate": SolveStatus.INFEASIBLE,
        }.get(statement.problem.status, SolveStatus.ERROR)
    except cp.error.SolverError as exc:
        status, message = SolveStatus.ERROR, str(exc)
    seconds = time.perf_counter() - start
    n = U.shape[0]
    if status.ok:
        d, mult, primal, dual = master.read_projection(statement, U)
        stats = statement.problem.solver_stats
        iters = getattr(stats, "num_iters", None)
    else:
        d, mult, primal, dual, iters = np.full(n, np.nan), np.full(U.shape[1], np.nan), np.nan, np.nan, None
    return Projection(status, d, mult, primal, dual, iters, seconds, f"cvxpy:{solver}", message=message)


def project_with(master: EntropyMaster, U: np.ndarray, state: dict[str, Any], backend: Backend,
                 warm: np.ndarray | None = None) -> Projection:
    """Solve ``master``'s projection over U with ``backend`` ("dedicated" or a cvxpy backend).

    The dedicated solver's answer is used only when it verified it; otherwise
    the projection is re-solved by the first conic solver of
    :data:`FALLBACK_SOLVERS` that succeeds, and the result says ``fallback``.
    """
    if backend.name != "dedicated":
        return solve_with_cvxpy(master, U, state, backend.solver, backend.options)
    res = master.project_dedicated(U, state, warm)
    if res.status == "optimal" and res.verified:
        return Projection(SolveStatus.OPTIMAL, res.distribution, res.multipliers, res.objective,
                          res.dual_objective, res.iterations, res.seconds, "dedicated")
    if res.status == "infeasible":
        return Projection(SolveStatus.INFEASIBLE, res.distribution, res.multipliers, np.nan,
                          np.nan, res.iterations, res.seconds, "dedicated", message=res.message)
    import cvxpy as cp

    installed = set(cp.installed_solvers())
    for solver in FALLBACK_SOLVERS:
        if solver in installed:
            proj = solve_with_cvxpy(master, U, state, solver)
            if proj.status.ok or proj.status is SolveStatus.INFEASIBLE:
                proj.fallback = True
                proj.seconds += res.seconds
                proj.message = f"dedicated solver unverified ({res.message}); used {proj.solver}"
                return proj
    return Projection(SolveStatus.ERROR, res.distribution, res.multipliers, np.nan, np.nan,
                      res.iterations, res.seconds, "dedicated",
                      message=f"dedicated solver failed ({res.message}) and no conic solver succeeded")


class EntropySession(MasterSession):
    """LP over the chosen columns (HiGHS, incremental) plus one projection per round."""

    def __init__(self, master: EntropyMaster, n_samples: int, backend: Backend) -> None:
        super().__init__(n_samples)
        from lpboosting.backends import HighspyBackend

        self.master = master
        self.backend = backend
        self.backend_name = backend.name
        lp_backend = HighspyBackend()
        if not lp_backend.is_available():
            raise SolverNotInstalledError(
                f"{master.name} solves the LPBoost LP over the chosen columns with highspy, which "
                "is not installed; run `pip install highspy`"
            )
        self.lp = LPBoost(master.lp_nu(n_samples)).open_highspy(n_samples, lp_backend)
        self.columns: list[np.ndarray] = []
        self.edges: list[float] = []
        self.entropies: list[float] = [0.0]  # Delta(d_{t-1}) for each column's pricing; d_0 uniform
        self.multipliers: np.ndarray | None = None

    def add_column(self, column, edge=None):
        u = np.asarray(column, dtype=float)
        self.lp.add_column(u)
        self.columns.append(u)
        if edge is None:
            raise ValueError(f"{self.master.name} needs the edge d_(t-1).u of every new column")
        self.edges.append(float(edge))
        self.n_columns += 1

    def _project(self, U: np.ndarray, state: dict[str, Any]) -> Projection:
        warm = None
        if self.multipliers is not None:
            warm = np.concatenate([self.multipliers, np.zeros(U.shape[1] - self.multipliers.size)])
        return project_with(self.master, U, state, self.backend, warm)

    def solve(self) -> MasterSolution:
        start = time.perf_counter()
        lp = self.lp.solve()
        if not lp.ok:
            lp.backend = self.backend_name
            return lp
        U = np.column_stack(self.columns)
        state = self.master.round_state(self, lp)
        projection = None if state.get("stop") else self._project(U, state)
        record = self.master.finish(self, lp, state, projection)
        stop = bool(record.pop("stop", False))
        if projection is not None and not projection.status.ok and not stop:
            from lpboosting.backends.cvxpy_backend import failed_solution

            sol = failed_solution(self.n_samples, SolveStatus.ERROR)
            sol.info["message"] = projection.message or f"projection {projection.status.value}"
            sol.backend = self.backend_name
            sol.seconds = time.perf_counter() - start
            return sol
        if stop or projection is None:
            d = lp.distribution  # the LP's distribution: still a valid point for pricing and the gap
            primal = dual = np.nan
            iters = lp.iterations
            solver = "lp"
        else:
            d = projection.distribution
            primal, dual = projection.objective, projection.dual_objective
            iters = projection.iterations
            solver = projection.solver + (" (fallback)" if projection.fallback else "")
            self.multipliers = projection.multipliers
        entropy = relative_entropy(d)
        self.entropies.append(entropy)
        margins = U @ lp.weights
        record.update({
            "entropy": entropy,
            "gamma_star": lp.dual_objective,
            "soft_margin": soft_margin(margins, self.master.lp_nu(self.n_samples)),
            "solver": solver,
            "fallback": bool(projection.fallback) if projection is not None else False,
            "lp_iterations": lp.iterations,
            "lp_seconds": lp.seconds,
            "projection_seconds": projection.seconds if projection is not None else 0.0,
        })
        return MasterSolution(
            status=SolveStatus.OPTIMAL,
            objective=lp.objective,
            primal_objective=primal,
            dual_objective=dual,
            weights=lp.weights,
            distribution=d,
            rho=lp.rho,
            slacks=lp.slacks,
            gamma=lp.gamma,
            iterations=iters,
            seconds=time.perf_counter() - start,
            backend=self.backend_name,
            info={"record": record, "stop": stop, "projection": projection},
        )
