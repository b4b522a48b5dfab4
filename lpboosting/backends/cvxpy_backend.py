"""cvxpy backends: a master's declarative statement, rebuilt and solved every round.

cvxpy cannot add a column to a built problem, so every solve rebuilds the
master over the current margin matrix.  This is the reference path the fast
backends are checked against, and the path for solvers without a native
incremental interface (CLARABEL, ECOS, SCS, ...).  One function,
:func:`solve_statement`, solves any statement and maps cvxpy's status to a
:class:`~lpboosting.status.SolveStatus`; the master reads the values back.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpboosting.backends.base import Backend, ColumnStoreSession, check_column
from lpboosting.backends.entropy_session import EntropySession
from lpboosting.backends.highs.model import import_highspy
from lpboosting.backends.solvers import CVXPY_STATUS_MAP, cvxpy_records
from lpboosting.backends.table import SOLVER_KINDS, install_hint
from lpboosting.errors import SolverNotInstalledError
from lpboosting.masters.base import CvxpyStatement, Master, MasterSolution
from lpboosting.masters.entropy import EntropyMaster, ProjectionResult
from lpboosting.status import SolveStatus

#: tightened tolerances of the interior-point / first-order solvers, at which their answers
#: agree with the simplex and the dedicated solver to about 1e-6 or better (used by the
#: comparison harness and the benchmarks: ``CvxpyBackend(solver, **TIGHT_OPTIONS[solver])``);
#: a view of the solvers' records (:mod:`lpboosting.backends.solvers`)
TIGHT_OPTIONS: dict[str, dict[str, Any]] = {r.solver: dict(r.tight_options) for r in cvxpy_records()
                                            if r.tight_options}

#: the option that gives each cvxpy solver a time limit in seconds: a keyword of ``Problem.solve``
#: (a str), or a function of the seconds giving the keywords (solvers whose limit sits in a nested
#: parameter dict); ECOS and GLPK have none (a view of the records)
TIME_LIMIT_OPTIONS: dict[str, Any] = {r.solver: r.time_limit for r in cvxpy_records()
                                      if r.time_limit is not None}

#: cvxpy's status strings as SolveStatus (anything else is ERROR; the record's map)
CVXPY_STATUS = dict(CVXPY_STATUS_MAP)


def import_cvxpy() -> Any:
    try:
        import cvxpy
    except ImportError as exc:  # pragma: no cover
        raise SolverNotInstalledError(
            "cvxpy backends need the cvxpy package, which is not installed; run `pip install cvxpy`"
        ) from exc
    return cvxpy


@dataclass
class StatementRun:
    """What :func:`solve_statement` reports: status, cvxpy's message, iterations, seconds.

    ``seconds`` is the whole ``Problem.solve``; ``compile_seconds`` cvxpy's
    compilation of the statement for the solver (``Problem.compilation_time``);
    ``solver_seconds`` the solver's own time where it reports one
    (``solver_stats.solve_time``), else the time of cvxpy's call to the
    solver, its interface included.
    """

    status: SolveStatus
    message: str
    iterations: int | None
    seconds: float
    solver_seconds: float | None
    compile_seconds: float | None = None


@dataclass
class SolveTimes:
    """Running totals of a cvxpy backend's solves: how many, how many of them compiled a
    statement (a rebuilt statement always does, a parametric one when it is new), cvxpy's
    compile time and the solver's time (:class:`StatementRun`), summed over every solve since
    the backend was made."""

    solves: int = 0
    compilations: int = 0
    compile_seconds: float = 0.0
    solver_seconds: float = 0.0

    def add(self, run: StatementRun, compiled: bool = True) -> None:
        self.solves += 1
        self.compilations += bool(compiled)
        self.compile_seconds += run.compile_seconds or 0.0
        self.solver_seconds += run.solver_seconds or 0.0


def spend_highs_banner() -> None:
    """cvxpy's HiGHS builds highspy models: spend HiGHS's start-up banner first (see
    :func:`lpboosting.backends.highs.model.spend_banner`)."""
    try:
        import_highspy()
    except SolverNotInstalledError:
        pass


def solve_statement(statement: CvxpyStatement, solver: str | None, options: dict[str, Any]) -> StatementRun:
    """Solve a master's cvxpy statement with ``solver`` (None: cvxpy chooses)."""
    cp = import_cvxpy()
    if solver is not None and solver.upper() == "HIGHS":
        spend_highs_banner()
    start = time.perf_counter()
    message = ""
    try:
        # cvxpy warns "Solution may be inaccurate" at every such solve; the status says it
        # (optimal_inaccurate), and column generation says it once a run
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
            statement.problem.solve(solver=solver, **options)
        status = CVXPY_STATUS.get(statement.problem.status, SolveStatus.ERROR)
    except cp.error.SolverError as exc:
        status, message = SolveStatus.ERROR, str(exc)
    seconds = time.perf_counter() - start
    problem = statement.problem
    if not status.ok and not message:
        message = (f"cvxpy status {problem.status!r} from {solver or 'the solver cvxpy chose'}"
                   + (" (it stopped at one of its limits, iterations or time, or gave up)"
                      if problem.status == "user_limit" else ""))
    stats = problem.solver_stats if status.ok else None
    solver_seconds = getattr(stats, "solve_time", None) if stats is not None else None
    if solver_seconds is None:  # a solver that reports no time: cvxpy's timing of its call
        solver_seconds = getattr(problem, "_solve_time", None)
    return StatementRun(
        status, message, getattr(stats, "num_iters", None) if stats else None, seconds,
        solver_seconds, getattr(problem, "compilation_time", None),
    )


class CvxpyBackend(Backend):
    """A master stated in cvxpy and solved by one of cvxpy's solvers.

    ``solver=None`` lets cvxpy choose.  Extra keyword options are passed to
    ``Problem.solve``.  ``times`` (:class:`SolveTimes`) sums cvxpy's compile
    time and the solver's time over every solve of this backend.
    """

    solvers = ("cvxpy",)
    incremental = False

    def __init__(self, solver: str | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.solver = None if solver is None else solver.upper()
        self.name = "cvxpy" if self.solver is None else f"cvxpy:{self.solver}"
        self.times = SolveTimes()

    def time_limit_options(self, seconds: float) -> dict[str, Any]:
        """The solver's time-limit keyword (:data:`TIME_LIMIT_OPTIONS`), merged into the nested
        parameter dicts of this backend's options; {} for a solver without one."""
        option = TIME_LIMIT_OPTIONS.get(self.solver or "")
        if option is None:
            return {}
        if isinstance(option, str):
            return {option: float(seconds)}
        nested = option(float(seconds))
        return {key: {**self.options.get(key, {}), **value} for key, value in nested.items()}

    def handles_kind(self, kind: str) -> bool:
        if self.solver is None:
            return True
        return kind in SOLVER_KINDS.get(self.solver, frozenset({"lp"}))

    def is_available(self) -> bool:
        try:
            self.require()
        except SolverNotInstalledError:
            return False
        return True

    def require(self) -> None:
        cp = import_cvxpy()
        if self.solver is not None and self.solver not in cp.installed_solvers():
            raise SolverNotInstalledError(
                f"backend {self.name!r} needs the cvxpy solver {self.solver}, which is not "
                f"installed (cvxpy has: {', '.join(sorted(cp.installed_solvers()))}); "
                f"run `{install_hint(self.name)}` or pick one of those"
            )

    def solve_master(self, master: Master, U: np.ndarray) -> MasterSolution:
        """Build the master over U, solve it, and read the solution back."""
        start = time.perf_counter()
        return self.solve_and_read(master, master.cvxpy_statement(U), U, start)

    def solve_and_read(self, master: Master, statement: CvxpyStatement, U: np.ndarray,
                       start: float | None = None, compiled: bool = True,
                       warm_start: bool = False) -> MasterSolution:
        """Solve a master's statement over the columns U and read the solution back.

        ``compiled``: whether this solve compiles the statement (counted in
        :attr:`times`); ``warm_start``: pass ``warm_start=True`` to
        ``Problem.solve`` (the backend's own options win), so that a solver
        cvxpy can start from its previous solution of the same statement
        does (HIGHS: the previous primal and dual values; SCS: its previous
        iterates; CLARABEL: its solver object updated in place where its
        settings allow it, e.g. without presolve; ECOS: none).
        """
        start = time.perf_counter() if start is None else start
        options = {"warm_start": True, **self.options} if warm_start else self.options
        run = solve_statement(statement, self.solver, options)
        self.times.add(run, compiled)
        if run.status.ok:
            solution = master.cvxpy_solution(statement, U, run.status)
        else:
            solution = MasterSolution.failed(U.shape[0], run.status, run.message)
        solution.seconds = time.perf_counter() - start
        solution.backend = self.name
        solution.iterations = run.iterations
        if run.solver_seconds is not None:
            solution.info["solver_seconds"] = run.solver_seconds
        if run.compile_seconds is not None:
            solution.info["compile_seconds"] = run.compile_seconds
        return solution

    def project(self, master: EntropyMaster, U: np.ndarray, state: dict[str, Any],
                warm: np.ndarray | None = None) -> ProjectionResult:
        """Solve ``master``'s projection over U (``warm`` is not used: cvxpy rebuilds)."""
        return project_with_cvxpy(master, U, state, self.solver, self.options, self.times)


def project_with_cvxpy(master: EntropyMaster, U: np.ndarray, state: dict[str, Any], solver: str | None,
                       options: dict[str, Any] | None = None,
                       times: SolveTimes | None = None) -> ProjectionResult:
    """An entropy master's projection over U solved by a conic solver through cvxpy
    (``times``, when given, adds the solve's compile and solver time).

    Equal columns of U state the same constraint d . u <= gamma.  ECOS can
    fail on the repeated rows they make in its KKT system (five equal columns
    of -1 did, one did not): a failed solve over U with equal columns is
    solved again with each column once, its multiplier read back onto the
    first copy and 0 onto the others (equal columns may share their
    multiplier in any way).
    """
    start = time.perf_counter()
    n, t = U.shape
    statement = master.projection_problem(U, state)
    run = solve_statement(statement, solver, options or {})
    if times is not None:
        times.add(run)
    distinct = U
    if not run.status.ok:
        first = np.sort(np.unique(U, axis=1, return_index=True)[1])
        if first.size < t:
            distinct = U[:, first]
            statement = master.projection_problem(distinct, state)
            run = solve_statement(statement, solver, options or {})
            if times is not None:
                times.add(run)
    if run.status.ok:
        d, kept, primal, dual = master.read_projection(statement, distinct)
        mult = kept
        if distinct is not U:  # each multiplier onto its column's first copy, 0 onto the others
            mult = np.zeros(t)
            mult[first] = kept
    else:
        d, mult, primal, dual = np.full(n, np.nan), np.full(t, np.nan), np.nan, np.nan
    gamma = float(np.max(d @ U)) if run.status.ok else np.nan
    return ProjectionResult(
        status=run.status, distribution=d, multipliers=mult, objective=primal, dual_objective=dual,
        gamma=gamma, iterations=run.iterations, max_violation=np.nan, gap=primal - dual,
        verified=False, seconds=time.perf_counter() - start, message=run.message,
        solver=f"cvxpy:{solver}",
    )


class CvxpyRebuildSession(ColumnStoreSession):
    """Keeps the columns; rebuilds and solves the cvxpy statement over the active ones on each
    solve (the reference path).  A master with a column pool (LPBoost's ``pool``, RMBoost's
    ``prune``) has its inactive columns left out of later statements."""

    def __init__(self, master: Master, n_samples: int, backend: CvxpyBackend) -> None:
        super().__init__(master, n_samples)
        self.backend = backend
        self.backend_name = backend.name

    def add_column(self, column, edge=None):
        self.remember(check_column(column, self.n_samples))

    def refresh_caps(self) -> None:
        """Nothing to do: the statement is rebuilt, with the master's caps, on every solve."""

    def solve(self) -> MasterSolution:
        self.require_columns()
        U = self.store.active_columns()
        solution = self.backend.solve_master(self.master, U)
        if solution.ok:
            if self.pool is not None and solution.dual_edges is None:
                solution.dual_edges = solution.distribution @ U
            self.finish(solution)
        return solution


def entropy_session(master: EntropyMaster, n_samples: int, backend: CvxpyBackend) -> EntropySession:
    """An entropy master whose projection a conic solver solves every round."""
    return EntropySession(master, n_samples, backend, backend.project)
