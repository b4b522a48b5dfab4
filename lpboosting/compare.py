"""Solver comparison: one master, several backends, side by side.

Two ways of running each backend, because a degenerate master has several
optimal distributions and two correct solvers may hand the oracle different
ones (then they choose different columns, and their paths differ):

``own``
    column generation with the backend's own solutions choosing the columns
    (what a user of that backend gets): rounds, total seconds, median
    master solve, iterations, final objective.
``replay``
    the column sequence of the *first* backend's own run, added one column
    at a time to a session of every backend and re-solved after each: the
    same restricted masters for everybody, so per-round objectives must agree
    (``max_dev`` is the largest per-round difference from the first backend).
    Each column goes in with the edge d_(t-1).u the first run recorded for
    it, which the relative-entropy masters need (their projections' bounds
    come from the edges).

On a ``models/`` instance (:func:`compare_instance`) there is no oracle: each
backend solves the full instance once (``full``) and re-solves its columns
one at a time (``replay``); deviations are measured from the certified optimum.
:func:`compare_catalog` does that for every instance of a catalog, and
:func:`performance_profile` summarises the full solves' times over the
instances (Dolan and Moré, 2002).

The objective compared is the master's primal value: the soft-margin LP
value for LPBoost, the minimax risk R for RMBoost, the projection's
relative entropy for SoftBoost, TotalBoost and ERLPBoost (the LP's value in
a round where the projection is not solved because the run stops).  The
conic solvers run at the tightened tolerances of
:data:`lpboosting.backends.cvxpy_backend.TIGHT_OPTIONS` unless ``tight=False``.

Every row also has the solver's own seconds (``solve_s``) and, for the cvxpy
backends, cvxpy's compile seconds (``compile_s``) apart, summed over the
run's master solves; the iterations with their kind (``simplex``, ``ipm``,
``pdlp``, ... as HiGHS counts them).  With ``repeat=K`` every run is timed
K times (round robin over the backends): ``seconds`` is the median,
``seconds_min`` and ``seconds_max`` the spread.  With ``time_limit`` each
run of each backend gets that many seconds: the solver's own limit where it
has one (HiGHS ``time_limit``, the cvxpy solvers' options), and the
comparison's clock between solves; a run that reaches it ends with status
``time_limit`` and the comparison goes on with the other backends.  A
solver without a limit of its own (ECOS, the dedicated solvers) is not
interrupted inside a solve: its run stops at the first solve that ends past
the limit.
"""

from __future__ import annotations

import copy
import csv
import math
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lpboosting.backends import Backend, get_backend
from lpboosting.backends.base import MasterSession, with_time_limit
from lpboosting.colgen.options import Deadline, LoopOptions
from lpboosting.backends.cvxpy_backend import TIGHT_OPTIONS
from lpboosting.masters import MASTERS, Master, MasterSolution, RMBoost, make_master
from lpboosting.status import SolveStatus

__all__ = [
    "MASTERS", "BackendRun", "Comparison", "Profile", "compare", "compare_catalog",
    "compare_instance", "make_backend", "make_master", "performance_profile", "write_catalog_csv",
]

#: statuses of a run that finished its work (a comparison with only these is ``ok()``)
FINISHED = ("converged", "max_rounds", "optimal")


def make_backend(name: str, tight: bool = True, time_limit: float | None = None) -> Backend:
    """A backend by name; cvxpy's conic solvers get tightened tolerances when ``tight``, and
    every solver that has one its time limit of ``time_limit`` seconds."""
    backend = get_backend(name)
    solver = getattr(backend, "solver", None)
    if tight and solver in TIGHT_OPTIONS:
        backend = get_backend(name, **TIGHT_OPTIONS[solver])
    return _limited(backend, time_limit)


def time_limit_options(backend: Backend, seconds: float) -> dict[str, Any]:
    """The options that make ``backend``'s solver stop after ``seconds`` (its
    ``time_limit_options``: HiGHS, the cvxpy solvers), {} for a solver without a limit."""
    options = getattr(backend, "time_limit_options", None)
    return dict(options(seconds)) if callable(options) else {}


_limited = with_time_limit


def _for_run(backend: Backend) -> Backend:
    """A copy of ``backend`` with its own options dict: a run may set the time left as its
    solver's limit before each solve without changing the backend the next run starts from."""
    clone = copy.copy(backend)
    clone.options = dict(backend.options)
    return clone


def _check_settings(repeat: int, time_limit: float | None) -> None:
    if isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) or repeat < 1:
        raise ValueError(f"repeat must be a positive integer (the timed runs per backend), got {repeat!r}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0
                                       and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a number of seconds > 0 or None, got {time_limit!r}")


def objective_of(solution: MasterSolution) -> float:
    """The master's primal value (the entropy masters' projection value), else ``objective``."""
    value = solution.primal_objective
    if value is None or not math.isfinite(float(value)):
        value = solution.objective
    return float(value)


@dataclass
class BackendRun:
    """One backend in one mode; ``objectives`` are the per-round values.

    ``seconds`` is the median wall time over the ``repeats`` timed runs,
    ``seconds_min``/``seconds_max`` their spread; ``solve_s`` the solver's
    own time and ``compile_s`` cvxpy's compile time (None where the backend
    does not report it), summed over the run's solves (median over the
    repeats); ``iterations`` the solver's iterations summed over the run,
    ``iteration_kind`` what they count (``"simplex"``, ``"ipm"``,
    ``"pdlp"``, ``"ipm+crossover"``; None when the backend does not say).
    """

    backend: str
    mode: str
    rounds: int = 0
    seconds: float = float("nan")
    seconds_min: float = float("nan")
    seconds_max: float = float("nan")
    repeats: int = 0
    median_master_ms: float = float("nan")
    solve_s: float | None = None
    compile_s: float | None = None
    iterations: int | None = None
    iteration_kind: str | None = None
    objective: float = float("nan")
    max_dev: float | None = None
    status: str = ""
    message: str = ""
    objectives: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("objectives")
        data.pop("times")
        return data

    @property
    def solved(self) -> bool:
        return self.status in FINISHED


@dataclass
class Comparison:
    """The runs of a comparison, with a table view and CSV/JSON export."""

    title: str
    runs: list[BackendRun]
    meta: dict[str, Any] = field(default_factory=dict)

    COLUMNS = ("backend", "mode", "rounds", "seconds", "x_first", "seconds_min", "seconds_max",
               "repeats", "median_master_ms", "solve_s", "compile_s", "iterations", "iteration_kind",
               "objective", "max_dev", "status")

    def rows(self) -> list[dict[str, Any]]:
        """One dict per run, with ``x_first`` = seconds / seconds of the first backend (same mode)."""
        first: dict[str, float] = {}
        out = []
        for run in self.runs:
            row = run.row()
            base = first.setdefault(run.mode, run.seconds)
            row["x_first"] = run.seconds / base if base and math.isfinite(base) and base > 0 else None
            out.append(row)
        return out

    def max_deviation(self) -> float:
        """Largest objective deviation over every run (0 when there is one run)."""
        devs = [r.max_dev for r in self.runs if r.max_dev is not None and math.isfinite(r.max_dev)]
        return max(devs, default=0.0)

    def ok(self) -> bool:
        return all(r.status in FINISHED for r in self.runs)

    def write_csv(self, path: str | Path) -> None:
        with Path(path).open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(self.COLUMNS) + ["message"],
                                    extrasaction="ignore")
            writer.writeheader()
            for row in self.rows():
                writer.writerow(row)

    def to_dict(self) -> dict[str, Any]:
        from lpboosting.jsonfile import to_json_value

        return to_json_value({"title": self.title, "meta": self.meta, "rows": self.rows(),
                         "objectives": {f"{r.backend} ({r.mode})": r.objectives for r in self.runs},
                         "times": {f"{r.backend} ({r.mode})": r.times for r in self.runs}})

    def write_json(self, path: str | Path) -> None:
        from lpboosting.jsonfile import write_json

        write_json(path, self.to_dict())

    def format(self) -> str:
        """A plain-text table (the command line prints a rich table of the same rows)."""
        header = (f"{'backend':<16} {'mode':<7} {'rounds':>6} {'total s':>22} {'x first':>8} "
                  f"{'med master ms':>13} {'solve s':>9} {'compile s':>9} {'iterations':>16} "
                  f"{'objective':>16} {'max dev':>9}  status")
        lines = [self.title, header]
        for row in self.rows():
            lines.append(
                f"{row['backend']:<16} {row['mode']:<7} {row['rounds']:>6} {format_seconds(row):>22} "
                f"{_fmt(row['x_first'], '8.2f')} {row['median_master_ms']:>13.3f} "
                f"{_fmt(row['solve_s'], '9.3f')} {_fmt(row['compile_s'], '9.3f')} "
                f"{format_iterations(row):>16} {row['objective']:>16.10f} "
                f"{_fmt(row['max_dev'], '9.1e')}  {row['status']}"
            )
        return "\n".join(lines)


def format_seconds(row: dict[str, Any]) -> str:
    """``"0.123"``, or ``"0.123 [0.120-0.131]"`` (median [min-max]) for a repeated run."""
    text = f"{row['seconds']:.3f}"
    if row.get("repeats", 1) > 1:
        text += f" [{row['seconds_min']:.3f}-{row['seconds_max']:.3f}]"
    return text


def format_iterations(row: dict[str, Any]) -> str:
    """``"511 simplex"``, ``"120 ipm"``, or ``"-"`` when the backend reports none."""
    if row["iterations"] is None:
        return "-"
    return f"{row['iterations']} {row['iteration_kind']}" if row.get("iteration_kind") else str(row["iterations"])


def _fmt(value: Any, spec: str) -> str:
    width = int(spec.split(".")[0].rstrip("df"))
    return f"{'-':>{width}}" if value is None else format(value, spec)


# -- watching a backend's solves ---------------------------------------------------------------
class _Watch:
    """What one run of one backend did, solve by solve, and the run's deadline."""

    def __init__(self, inner: Backend, time_limit: float | None) -> None:
        self.inner = inner
        self.time_limit = time_limit
        # the run's one clock, shared with the column-generation loop (column_generation(deadline=...))
        self.deadline = Deadline(time_limit)
        self.objectives: list[float] = []
        self.master_seconds: list[float] = []
        self.iterations: dict[str, int] = {}
        self.total_iterations = 0
        self.counted = False
        self.solver_seconds = 0.0
        self.solver_reported = False
        self.timed_out = False
        self._times = getattr(inner, "times", None)  # cvxpy's running totals (SolveTimes)
        self._start_times = copy.copy(self._times)

    def remaining(self) -> float | None:
        return self.deadline.remaining() if self.deadline.limited else None

    def record(self, solution: MasterSolution) -> None:
        if solution.iterations is not None:
            self.counted = True
            self.total_iterations += int(solution.iterations)
            kinds = solution.info.get("iterations_by_kind")
            if kinds is None:
                kind = getattr(self.inner, "iteration_kind", None)
                kinds = {kind: int(solution.iterations)} if kind else {}
            for kind, count in kinds.items():
                self.iterations[kind] = self.iterations.get(kind, 0) + int(count)
        if self._times is None and solution.info.get("solver_seconds") is not None:
            self.solver_reported = True
            self.solver_seconds += float(solution.info["solver_seconds"])
        if solution.ok:
            self.master_seconds.append(float(solution.seconds))
            self.objectives.append(objective_of(solution))

    def fill(self, run: BackendRun) -> None:
        """Copy what was watched into ``run`` (iterations, solver and compile time, median solve)."""
        run.median_master_ms = (float(np.median(self.master_seconds) * 1e3) if self.master_seconds
                                else float("nan"))
        run.iterations = self.total_iterations if self.counted else None
        kinds = [k for k in ("simplex", "ipm", "crossover", "pdlp", "qp") if k in self.iterations]
        kinds += sorted(k for k in self.iterations if k not in kinds)
        run.iteration_kind = "+".join(kinds) or None
        if self._times is not None and self._start_times is not None:
            if self._times.solves > self._start_times.solves:
                run.solve_s = self._times.solver_seconds - self._start_times.solver_seconds
                run.compile_s = self._times.compile_seconds - self._start_times.compile_seconds
        elif self.solver_reported:
            run.solve_s = self.solver_seconds


class _WatchedSession(MasterSession):
    """Forwards to the backend's session; records each solve and keeps the run's deadline."""

    def __init__(self, inner: MasterSession, watch: _Watch, n_samples: int) -> None:
        super().__init__(n_samples)
        self.inner = inner
        self.watch = watch
        self.backend_name = inner.backend_name

    def add_column(self, column, edge=None):
        self.inner.add_column(column, edge)
        self.n_columns += 1

    def solve(self) -> MasterSolution:
        watch = self.watch
        remaining = watch.remaining()
        if remaining is not None:
            if remaining <= 0:
                watch.timed_out = True
                solution = MasterSolution.failed(
                    self.n_samples, SolveStatus.TIME_LIMIT,
                    f"the comparison's time limit of {watch.time_limit:g} s was reached")
                solution.backend = self.backend_name
                return solution
            # solvers that read their options at every solve (cvxpy's) get the time that is left
            watch.inner.options.update(time_limit_options(watch.inner, remaining))
        solution = self.inner.solve()
        watch.record(solution)
        if not solution.ok and watch.deadline.limited and (
                solution.status is SolveStatus.TIME_LIMIT or watch.deadline.expired()):
            watch.timed_out = True
        return solution

    def time_limited(self, seconds: float) -> AbstractContextManager:
        return self.inner.time_limited(seconds)

    def __getattr__(self, name: str) -> Any:  # the inner session's extras (model, projector, ...)
        return getattr(self.inner, name)


class _Watched(Backend):
    """``inner`` with every session watched by ``watch``."""

    def __init__(self, inner: Backend, watch: _Watch) -> None:
        super().__init__()
        self.inner = inner
        self.watch = watch
        self.name = inner.name
        self.solvers = inner.solvers
        self.incremental = inner.incremental

    def handles_kind(self, kind: str) -> bool:
        return self.inner.handles_kind(kind)

    def solves(self, master: Any) -> bool:
        return self.inner.solves(master)

    def is_available(self) -> bool:
        return self.inner.is_available()

    def require(self) -> None:
        self.inner.require()

    def open(self, master: Master, n_samples: int) -> MasterSession:
        return _WatchedSession(self.inner.open(master, n_samples), self.watch, n_samples)


def _time_limit_message(watch: _Watch, rounds: int, what: str, detail: str = "") -> str:
    return (f"stopped by the time limit of {watch.time_limit or 0.0:g} s after {rounds} {what}"
            + (f" ({detail})" if detail else ""))


# -- the runs ------------------------------------------------------------------------------------
def _own_run(master: Master, oracle: Any, backend: Backend, options: LoopOptions) -> tuple[BackendRun, Any]:
    """Column generation of ``master`` on ``backend`` with the comparison's loop options; the
    loop keeps the run's one clock (the watch's deadline)."""
    from lpboosting.colgen import column_generation

    run = BackendRun(backend.name, "own", repeats=1)
    backend = _for_run(backend)
    watch = _Watch(backend, options.time_limit)
    start = time.perf_counter()
    try:
        result = column_generation(master, oracle, options, backend=_Watched(backend, watch),
                                   deadline=watch.deadline)
    except Exception as exc:  # noqa: BLE001 - a backend that fails is reported in its row
        run.seconds = time.perf_counter() - start
        run.times = [run.seconds]
        run.status, run.message = "error", f"{type(exc).__name__}: {exc}"
        return run, None
    run.seconds = time.perf_counter() - start
    run.times = [run.seconds]
    watch.fill(run)
    run.rounds = len(result.history)
    run.objectives = list(watch.objectives[:run.rounds])
    run.objective = objective_of(result.solution) if result.solution is not None else float("nan")
    run.status, run.message = result.status, result.message
    if watch.deadline.limited and (watch.timed_out or result.status == "time_limit"):
        # what stopped the run, as the loop says it (a solver's TIME_LIMIT status ends it too)
        detail = result.message if result.status in ("solver_error", "time_limit") else ""
        run.status = "time_limit"
        run.message = _time_limit_message(watch, run.rounds, "rounds", detail)
    return run, result


def _replay(master: Master, columns: np.ndarray, backend: Backend,
            edges: Sequence[float] | None = None, options: LoopOptions = LoopOptions()) -> BackendRun:
    """Add ``columns`` one at a time to a session of ``backend``, re-solving after each.

    Each column goes in with its edge d_(t-1).u (the entropy masters need it): ``edges[j]``
    as the run that chose the columns recorded it, so that every backend solves the same
    restricted masters; without ``edges``, the edge under the distribution of the previous
    replayed round (the master's initial distribution for the first column).  ``options``:
    the comparison's (only its ``time_limit`` applies).
    """
    if edges is not None and len(edges) != columns.shape[1]:
        raise ValueError(f"{len(edges)} edges for {columns.shape[1]} columns; give one edge per column")
    run = BackendRun(backend.name, "replay", repeats=1)
    backend = _for_run(backend)
    watch = _Watch(backend, options.time_limit)
    start = time.perf_counter()
    try:
        session = _Watched(backend, watch).open(master, columns.shape[0])
        d = master.initial_distribution(columns.shape[0])
        for j in range(columns.shape[1]):
            u = columns[:, j]
            edge = float(edges[j]) if edges is not None else float(d @ u)
            session.add_column(u, edge)
            solution = session.solve()
            if watch.timed_out:
                run.status = "time_limit"
                run.message = _time_limit_message(watch, j, "columns")
                break
            if not solution.ok:
                run.status = "solver_error"
                run.message = f"column {j + 1}: {solution.status.value} {solution.control.message}"
                break
            d = solution.distribution
        else:
            run.status = "optimal"
    except Exception as exc:  # noqa: BLE001 - reported in the row
        run.status, run.message = "error", f"{type(exc).__name__}: {exc}"
    run.seconds = time.perf_counter() - start
    run.times = [run.seconds]
    watch.fill(run)
    run.objectives = list(watch.objectives)
    run.rounds = len(run.objectives)
    run.objective = run.objectives[-1] if run.objectives else float("nan")
    return run


def _merge(runs: list[BackendRun]) -> BackendRun:
    """The repetitions of one run as one row: the first's results, the median time and its spread.

    A repetition that did not finish (error, time limit) gives the row its status and message.
    """
    first = copy.copy(runs[0])
    times = [t for r in runs for t in r.times]
    first.times = times
    first.repeats = len(times)
    first.seconds = float(np.median(times))
    first.seconds_min, first.seconds_max = float(np.min(times)), float(np.max(times))
    for name in ("solve_s", "compile_s"):
        values = [getattr(r, name) for r in runs if getattr(r, name) is not None]
        setattr(first, name, float(np.median(values)) if values else None)
    masters = [r.median_master_ms for r in runs if math.isfinite(r.median_master_ms)]
    first.median_master_ms = float(np.median(masters)) if masters else float("nan")
    failed = next((r for r in runs if r.status not in FINISHED), None)
    if failed is not None and failed is not runs[0]:
        first.status = failed.status
        first.message = f"repetition {runs.index(failed) + 1}: {failed.message}"
    return first


def _repeated(names: Sequence[str], repeat: int, one: Callable[[int], BackendRun],
              progress: Callable[[str], Any] | None, what: str) -> list[BackendRun]:
    """``repeat`` timed runs of every backend, round robin (so that a slow spell of the machine
    does not fall on one backend); a backend whose run did not finish is not run again."""
    reps: list[list[BackendRun]] = [[] for _ in names]
    for k in range(repeat):
        for i, name in enumerate(names):
            if reps[i] and reps[i][-1].status not in FINISHED:
                continue
            if progress is not None:
                progress(f"{name}: {what}" + (f" (run {k + 1} of {repeat})" if repeat > 1 else ""))
            reps[i].append(one(i))
    return [_merge(r) for r in reps]


def _replay_master(master: Master) -> Master:
    # RMBoost's removal depends on which optimal duals a backend returns; replaying one
    # column sequence compares the same restricted masters only without removal
    if isinstance(master, RMBoost) and master.prune:
        return RMBoost(master.lam, prune=False)
    return master


def _deviations(runs: list[BackendRun], reference: Sequence[float] | None = None) -> None:
    """Fill ``max_dev``: own runs vs the first own run's final objective; replays per round."""
    own = [r for r in runs if r.mode == "own" and r.status != "error"]
    replays = [r for r in runs if r.mode == "replay" and r.objectives]
    if own:
        base = own[0].objective
        for r in own:
            r.max_dev = abs(r.objective - base)
    if replays:
        ref = list(reference) if reference is not None else replays[0].objectives
        for r in replays:
            k = min(len(ref), len(r.objectives))
            diffs = np.abs(np.asarray(r.objectives[:k]) - np.asarray(ref[:k]))
            r.max_dev = float(np.nanmax(diffs)) if k else None
            if len(r.objectives) != len(ref):
                r.message = (r.message + "; " if r.message else "") + \
                    f"solved {len(r.objectives)} of {len(ref)} columns"


def compare(master: Master, oracle: Any, backends: Sequence[str | Backend], *, tol: float = 1e-6,
            max_rounds: int = 1000, replay: bool = True, tight: bool = True, title: str = "",
            repeat: int = 1, time_limit: float | None = None,
            progress: Callable[[str], Any] | None = None) -> Comparison:
    """Run ``master`` with ``oracle`` on every backend (own columns), then replay the first's columns.

    ``backends`` are names (``"highspy"``, ``"highspy:pdlp"``, ``"cvxpy:CLARABEL"``, ...) or
    Backend objects; a backend that cannot handle the master, is not
    installed or fails is reported in its row (status ``error`` and the
    message), not raised — except when no backend is usable.  ``repeat``
    times every run that many times (median and spread); ``time_limit``
    (seconds) bounds each run of each backend (status ``time_limit``).
    ``progress(text)`` is called before each run (the command line uses it).
    """
    if not backends:
        raise ValueError("name at least one backend (see lpboosting.backends.available())")
    _check_settings(repeat, time_limit)
    options = LoopOptions(tol=tol, max_rounds=max_rounds, time_limit=time_limit)
    resolved = [_limited(b, time_limit) if isinstance(b, Backend) else make_backend(b, tight, time_limit)
                for b in backends]
    for backend in resolved:  # fail early on names that cannot work at all
        backend.check_master(master)
        backend.require()
    names = [b.name for b in resolved]
    results: dict[int, Any] = {}

    def own(i: int) -> BackendRun:
        run, result = _own_run(master, oracle, resolved[i], options)
        results.setdefault(i, result)
        return run

    runs = _repeated(names, repeat, own, progress, "column generation")
    first_result = next((results[i] for i in range(len(resolved))
                         if results.get(i) is not None and results[i].columns.shape[1]), None)
    if replay and first_result is not None:
        columns, edges = first_result.columns, first_result.edges
        replay_master = _replay_master(master)
        runs += _repeated(names, repeat,
                          lambda i: _replay(replay_master, columns, resolved[i], edges, options),
                          progress, f"replay of {columns.shape[1]} columns")
    _deviations(runs)
    meta = {"master": repr(master), "oracle": getattr(oracle, "name", type(oracle).__name__),
            "n_samples": int(oracle.n_samples), "tol": tol, "max_rounds": max_rounds,
            "tight": tight, "repeat": repeat, "time_limit": time_limit}
    return Comparison(title or f"{master!r} with {meta['oracle']}", runs, meta)


def _full_solve(entry: dict[str, Any], directory: str | Path, backend: Backend,
                options: LoopOptions) -> BackendRun:
    """One solve of the whole instance, checked as the catalog checks (status optimal), within
    ``options.time_limit``."""
    from lpboosting import catalog

    run = BackendRun(backend.name, "full", repeats=1)
    backend = _for_run(backend)
    watch = _Watch(backend, options.time_limit)
    # the LP masters are solved through a session (watched: iterations, deadline); a projection
    # is one call of the projector, watched by the clock only
    solver = _Watched(backend, watch) if entry.get("kind") == "lp" else backend
    start = time.perf_counter()
    try:
        value = catalog.solve_entry(entry, directory, solver)
        run.objective, run.status, run.rounds = float(value), "optimal", 1
        run.max_dev = abs(run.objective - float(entry["objective"]))
    except Exception as exc:  # noqa: BLE001 - reported in the row
        run.status, run.message = "error", f"{type(exc).__name__}: {exc}"
    run.seconds = time.perf_counter() - start
    run.times = [run.seconds]
    watch.fill(run)
    run.median_master_ms = run.seconds * 1e3
    if watch.deadline.limited and run.status != "optimal" and (watch.timed_out or watch.deadline.expired()):
        run.status, run.message = "time_limit", _time_limit_message(watch, 0, "solves", run.message)
    return run


def compare_instance(entry: dict[str, Any], directory: str | Path, backends: Sequence[str | Backend],
                     *, tight: bool = True, replay: bool = True, repeat: int = 1,
                     time_limit: float | None = None,
                     progress: Callable[[str], Any] | None = None) -> Comparison:
    """Every backend on one ``models/`` instance: a full solve, then a column-by-column replay
    (LP instances, unless ``replay=False``).

    Deviations of the full solves are from the certified objective; the
    replays' from the first backend's replay, round by round.  ``repeat``
    and ``time_limit`` as in :func:`compare`.
    """
    from lpboosting import catalog

    _check_settings(repeat, time_limit)
    options = LoopOptions(time_limit=time_limit)
    master = catalog.master_for(entry)
    columns = catalog.load_columns(entry, directory)["U"]
    certified = float(entry["objective"])
    # the catalog's solver options (tested on every instance) rather than TIGHT_OPTIONS
    resolved = [_limited(b if isinstance(b, Backend) else
                         (catalog.backend_for(b) if tight else get_backend(b)), time_limit)
                for b in backends]
    names = [b.name for b in resolved]
    runs = _repeated(names, repeat, lambda i: _full_solve(entry, directory, resolved[i], options),
                     progress, "full instance")
    if replay and entry.get("kind") == "lp":  # the entropy instances are single projections
        replay_master = _replay_master(master)
        replays = _repeated(names, repeat,
                            lambda i: _replay(replay_master, columns, resolved[i], None, options),
                            progress, f"replay of {columns.shape[1]} columns")
        _deviations(replays)
        runs += replays
    title = (f"{entry['name']}: {entry['master']} {entry.get('params', {})}, "
             f"{columns.shape[0]} x {columns.shape[1]}, certified objective {certified:.12g}")
    return Comparison(title, runs, {"instance": entry["name"], "master": entry["master"],
                                    "kind": entry.get("kind"), "certified": certified,
                                    "tolerance": entry.get("tolerance"), "tight": tight,
                                    "repeat": repeat, "time_limit": time_limit})


def compare_catalog(directory: str | Path | None = None, backends: Sequence[str] | None = None, *,
                    tight: bool = True, replay: bool = True, repeat: int = 1,
                    time_limit: float | None = None,
                    progress: Callable[[str], Any] | None = None) -> list[Comparison]:
    """:func:`compare_instance` on every instance of the catalog in ``directory``.

    ``backends=None`` runs on each instance the installed backends that solve
    it to its tolerance (:func:`lpboosting.catalog.capable_backends`); named
    backends run on the instances whose master they solve.  A backend that
    does not run on an instance counts as not solving it in
    :func:`performance_profile`.
    """
    from lpboosting import catalog

    directory = catalog.default_directory() if directory is None else Path(directory)
    out = []
    for entry in catalog.load_index(directory):
        if backends is None:
            chosen: list[str] = catalog.capable_backends(entry)
        else:
            master = catalog.master_for(entry)
            chosen = [b for b in backends if get_backend(b).solves(master)]
        if not chosen:
            continue

        def tell(text: str, name: str = entry["name"]) -> None:
            if progress is not None:
                progress(f"{name}: {text}")

        out.append(compare_instance(entry, directory, chosen, tight=tight, replay=replay,
                                    repeat=repeat, time_limit=time_limit, progress=tell))
    return out


def write_catalog_csv(comparisons: Sequence[Comparison], path: str | Path) -> None:
    """The rows of :func:`compare_catalog`'s comparisons in one CSV, each with its instance."""
    with Path(path).open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["instance", *Comparison.COLUMNS, "message"],
                                extrasaction="ignore")
        writer.writeheader()
        for comparison in comparisons:
            for row in comparison.rows():
                writer.writerow({"instance": comparison.meta.get("instance", comparison.title), **row})


# -- performance profile -------------------------------------------------------------------------
@dataclass
class Profile:
    """A performance profile (Dolan and Moré, 2002) of several backends over several instances.

    ``ratios[b][p]`` is backend b's time on instance p over the best time
    on p (inf when b did not solve p: it failed, was off the certified
    objective by more than the instance's tolerance, reached the time limit,
    or did not run on p: ``ran[b]`` is the share of instances it ran on).  ``fraction(b, tau)`` is rho_b(tau), the share of
    the instances b solved within a factor tau of the best; as tau grows it
    rises in steps (at b's sorted finite ratios) to ``solved[b]``, the share
    b solved at all.  ``wins[b]`` = rho_b(1), the share where b was fastest.
    """

    backends: list[str]
    instances: list[str]
    ratios: dict[str, np.ndarray]
    #: per backend and instance: the time of a solve, inf when it did not solve, NaN when it
    #: did not run there
    seconds: dict[str, np.ndarray]

    def fraction(self, backend: str, tau: float) -> float:
        ratios = self.ratios[backend]
        return float(np.count_nonzero(ratios <= tau)) / len(self.instances) if self.instances else 0.0

    def steps(self, backend: str) -> tuple[np.ndarray, np.ndarray]:
        """(tau, rho) at each step of ``backend``'s curve: its distinct finite ratios in
        increasing order, and the fraction solved within each (the curve is constant between
        steps, 0 before the first)."""
        ratios = np.unique(self.ratios[backend][np.isfinite(self.ratios[backend])])
        fractions = np.array([self.fraction(backend, t) for t in ratios])
        return ratios, fractions

    @property
    def solved(self) -> dict[str, float]:
        n = max(len(self.instances), 1)
        return {b: float(np.count_nonzero(np.isfinite(r))) / n for b, r in self.ratios.items()}

    @property
    def ran(self) -> dict[str, float]:
        n = max(len(self.instances), 1)
        return {b: float(np.count_nonzero(~np.isnan(s))) / n for b, s in self.seconds.items()}

    @property
    def wins(self) -> dict[str, float]:
        return {b: self.fraction(b, 1.0) for b in self.backends}

    @property
    def max_ratio(self) -> float:
        finite = [r[np.isfinite(r)] for r in self.ratios.values()]
        values = np.concatenate(finite) if finite else np.empty(0)
        return float(values.max()) if values.size else 1.0


def _solved_time(run: BackendRun, tolerance: float | None) -> float:
    """The run's time, or inf when it did not solve the instance to its tolerance."""
    if not run.solved or not math.isfinite(run.seconds):
        return math.inf
    if tolerance is not None and (run.max_dev is None or not run.max_dev <= tolerance):
        return math.inf
    return run.seconds


def performance_profile(comparisons: Sequence[Comparison], mode: str = "full") -> Profile:
    """The performance profile of the ``mode`` rows (the full solves, by default) of
    ``comparisons``, one per instance (:func:`compare_catalog`): see :class:`Profile`.

    A row counts as solved when its status is optimal (or converged) and, where
    the comparison has an instance tolerance, its deviation from the certified
    objective is within it; its time is the median over the repeats.
    """
    if not comparisons:
        raise ValueError("a performance profile needs at least one comparison (one per instance)")
    backends: list[str] = []
    for comparison in comparisons:
        for run in comparison.runs:
            if run.mode == mode and run.backend not in backends:
                backends.append(run.backend)
    if not backends:
        modes = sorted({r.mode for c in comparisons for r in c.runs})
        raise ValueError(f"no {mode!r} rows in these comparisons; their modes are {', '.join(modes)}")
    instances = [str(c.meta.get("instance", c.title)) for c in comparisons]
    seconds = {b: np.full(len(comparisons), math.nan) for b in backends}
    for p, comparison in enumerate(comparisons):
        tolerance = comparison.meta.get("tolerance")
        for run in comparison.runs:
            if run.mode == mode:
                seconds[run.backend][p] = _solved_time(run, tolerance)
    times = np.vstack([seconds[b] for b in backends])
    best = np.min(np.where(np.isfinite(times), times, math.inf), axis=0)
    ratios = {}
    for b in backends:
        r = np.full(len(comparisons), math.inf)
        done = np.isfinite(seconds[b])
        r[done] = seconds[b][done] / best[done]
        ratios[b] = r
    return Profile(backends, instances, ratios, seconds)
