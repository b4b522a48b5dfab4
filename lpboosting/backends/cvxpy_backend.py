"""cvxpy backends: the declarative statement of a master, rebuilt each round.

cvxpy cannot add a column to a built problem, so every solve rebuilds the
master over the current margin matrix.  This is the reference path the fast
backends are checked against, and the path for solvers without a native
incremental interface (CLARABEL, ECOS, SCS, ...).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lpboosting.backends.base import Backend
from lpboosting.errors import SolverNotInstalledError
from lpboosting.masters.base import MasterSession, MasterSolution
from lpboosting.status import SolveStatus

#: cvxpy solvers and the problem classes they handle
SOLVER_KINDS: dict[str, frozenset[str]] = {
    "HIGHS": frozenset({"lp"}),
    "GLOP": frozenset({"lp"}),
    "CLARABEL": frozenset({"lp", "exp_cone"}),
    "ECOS": frozenset({"lp", "exp_cone"}),
    "SCS": frozenset({"lp", "exp_cone"}),
    "MOSEK": frozenset({"lp", "exp_cone"}),
    "GUROBI": frozenset({"lp"}),
    "CPLEX": frozenset({"lp"}),
    "SCIPY": frozenset({"lp"}),
    "COPT": frozenset({"lp"}),
    "CBC": frozenset({"lp"}),
    "GLPK": frozenset({"lp"}),
}

#: the pip package that provides each solver, for error messages
SOLVER_PACKAGES: dict[str, str] = {
    "HIGHS": "highspy",
    "CLARABEL": "clarabel",
    "ECOS": "ecos",
    "SCS": "scs",
    "MOSEK": "mosek",
    "GUROBI": "gurobipy",
    "CPLEX": "cplex",
    "COPT": "coptpy",
    "GLOP": "ortools",
    "SCIPY": "scipy",
    "CBC": "cylp",
    "GLPK": "cvxopt",
}

#: tightened tolerances of the interior-point / first-order solvers, at which their answers
#: agree with the simplex and the dedicated solver to about 1e-6 or better (used by the
#: comparison harness and the benchmarks: ``CvxpyBackend(solver, **TIGHT_OPTIONS[solver])``)
TIGHT_OPTIONS: dict[str, dict[str, Any]] = {
    "CLARABEL": {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11},
    "ECOS": {"abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000},
}

_CVXPY_STATUS = {
    "optimal": SolveStatus.OPTIMAL,
    "optimal_inaccurate": SolveStatus.INACCURATE,
    "infeasible": SolveStatus.INFEASIBLE,
    "infeasible_inaccurate": SolveStatus.INFEASIBLE,
    "unbounded": SolveStatus.UNBOUNDED,
    "unbounded_inaccurate": SolveStatus.UNBOUNDED,
    "user_limit": SolveStatus.ITERATION_LIMIT,
}


def import_cvxpy() -> Any:
    try:
        import cvxpy
    except ImportError as exc:  # pragma: no cover
        raise SolverNotInstalledError(
            "cvxpy backends need the cvxpy package, which is not installed; run `pip install cvxpy`"
        ) from exc
    return cvxpy


class CvxpyBackend(Backend):
    """A master stated in cvxpy and solved by one of cvxpy's solvers.

    ``solver=None`` lets cvxpy choose.  Extra keyword options are passed to
    ``Problem.solve``.
    """

    incremental = False

    def __init__(self, solver: str | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.solver = None if solver is None else solver.upper()
        self.name = "cvxpy" if self.solver is None else f"cvxpy:{self.solver}"
        self.kinds = (
            frozenset({"lp", "exp_cone"}) if self.solver is None
            else SOLVER_KINDS.get(self.solver, frozenset({"lp"}))
        )

    def is_available(self) -> bool:
        try:
            self.require()
        except SolverNotInstalledError:
            return False
        return True

    def require(self) -> None:
        cp = import_cvxpy()
        if self.solver is not None and self.solver not in cp.installed_solvers():
            package = SOLVER_PACKAGES.get(self.solver, self.solver.lower())
            raise SolverNotInstalledError(
                f"backend {self.name!r} needs the cvxpy solver {self.solver}, which is not "
                f"installed (cvxpy has: {', '.join(sorted(cp.installed_solvers()))}); "
                f"run `pip install {package}` or pick one of those"
            )

    def open(self, master, n_samples):
        self.require()
        self.check_master(master)
        return master.open_session(n_samples, self) or CvxpyRebuildSession(master, n_samples, self)

    def solve_statement(self, master, U: np.ndarray) -> MasterSolution:
        """Build the master over U, solve it, and read the solution back."""
        cp = import_cvxpy()
        start = time.perf_counter()
        statement = master.cvxpy_statement(U)
        message = ""
        try:
            statement.problem.solve(solver=self.solver, **self.options)
            status = _CVXPY_STATUS.get(statement.problem.status, SolveStatus.ERROR)
        except cp.error.SolverError as exc:
            status, message = SolveStatus.ERROR, str(exc)
        seconds = time.perf_counter() - start
        if status.ok:
            solution = master.cvxpy_solution(statement, U, status)
        else:
            solution = failed_solution(U.shape[0], status)
        stats = statement.problem.solver_stats if status.ok else None
        solution.seconds = seconds
        solution.backend = self.name
        solution.iterations = getattr(stats, "num_iters", None) if stats else None
        if message:
            solution.info["message"] = message
        if stats is not None and stats.solve_time is not None:
            solution.info["solver_seconds"] = stats.solve_time
        return solution


def failed_solution(n_samples: int, status: SolveStatus) -> MasterSolution:
    """A placeholder solution for a failed solve (values are NaN)."""
    nan = float("nan")
    return MasterSolution(
        status=status, objective=nan, primal_objective=nan, dual_objective=nan,
        weights=np.empty(0), distribution=np.full(n_samples, nan),
    )


class CvxpyRebuildSession(MasterSession):
    """Keeps the columns; rebuilds and solves the cvxpy statement on each solve."""

    def __init__(self, master, n_samples: int, backend: CvxpyBackend) -> None:
        super().__init__(n_samples)
        self.master = master
        self.backend = backend
        self.backend_name = backend.name
        self._columns: list[np.ndarray] = []
        self.edges: list[float | None] = []

    def add_column(self, column, edge=None):
        column = np.asarray(column, dtype=float)
        if column.shape != (self.n_samples,):
            raise ValueError(f"a column must have shape ({self.n_samples},), got {column.shape}")
        self._columns.append(column)
        self.edges.append(edge)
        self.n_columns += 1

    def solve(self):
        U = np.column_stack(self._columns)
        return self.backend.solve_statement(self.master, U)
