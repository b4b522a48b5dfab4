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

On a ``models/`` instance (:func:`compare_instance`) there is no oracle: each
backend solves the full instance once (``full``) and re-solves its columns
one at a time (``replay``); deviations are measured from the certified optimum.

The objective compared is the master's primal value: the soft-margin LP
value for LPBoost, the minimax risk R for RMBoost, the projection's
relative entropy for SoftBoost, TotalBoost and ERLPBoost.  The conic
solvers run at the tightened tolerances of
:data:`lpboosting.backends.cvxpy_backend.TIGHT_OPTIONS` unless ``tight=False``.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lpboosting.backends import Backend, get_backend
from lpboosting.backends.cvxpy_backend import TIGHT_OPTIONS
from lpboosting.masters import MASTERS, Master, MasterSolution, RMBoost, make_master

__all__ = [
    "MASTERS", "BackendRun", "Comparison", "compare", "compare_instance", "make_backend",
    "make_master",
]

def make_backend(name: str, tight: bool = True) -> Backend:
    """A backend by name; cvxpy's conic solvers get tightened tolerances when ``tight``."""
    backend = get_backend(name)
    solver = getattr(backend, "solver", None)
    if tight and solver in TIGHT_OPTIONS:
        backend = get_backend(name, **TIGHT_OPTIONS[solver])
    return backend


def objective_of(solution: MasterSolution) -> float:
    """The master's primal value (the entropy masters' projection value), else ``objective``."""
    value = solution.primal_objective
    if value is None or not math.isfinite(float(value)):
        value = solution.objective
    return float(value)


@dataclass
class BackendRun:
    """One backend in one mode; ``objectives`` are the per-round values."""

    backend: str
    mode: str
    rounds: int = 0
    seconds: float = float("nan")
    median_master_ms: float = float("nan")
    iterations: int | None = None
    objective: float = float("nan")
    max_dev: float | None = None
    status: str = ""
    message: str = ""
    objectives: list[float] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("objectives")
        return data


@dataclass
class Comparison:
    """The runs of a comparison, with a table view and CSV/JSON export."""

    title: str
    runs: list[BackendRun]
    meta: dict[str, Any] = field(default_factory=dict)

    COLUMNS = ("backend", "mode", "rounds", "seconds", "x_first", "median_master_ms", "iterations",
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
        return all(r.status in ("converged", "max_rounds", "optimal") for r in self.runs)

    def write_csv(self, path: str | Path) -> None:
        with Path(path).open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(self.COLUMNS) + ["message"],
                                    extrasaction="ignore")
            writer.writeheader()
            for row in self.rows():
                writer.writerow(row)

    def to_dict(self) -> dict[str, Any]:
        from lpboosting.benchmark.common import jsonable

        return jsonable({"title": self.title, "meta": self.meta, "rows": self.rows(),
                         "objectives": {f"{r.backend} ({r.mode})": r.objectives for r in self.runs}})

    def write_json(self, path: str | Path) -> None:
        from lpboosting.benchmark.common import write_json

        write_json(path, self.to_dict())

    def format(self) -> str:
        """A plain-text table (the command line prints a rich table of the same rows)."""
        header = (f"{'backend':<16} {'mode':<7} {'rounds':>6} {'total s':>9} {'x first':>8} "
                  f"{'med master ms':>13} {'iters':>7} {'objective':>16} {'max dev':>9}  status")
        lines = [self.title, header]
        for row in self.rows():
            lines.append(
                f"{row['backend']:<16} {row['mode']:<7} {row['rounds']:>6} {row['seconds']:>9.3f} "
                f"{_fmt(row['x_first'], '8.2f')} {row['median_master_ms']:>13.3f} "
                f"{_fmt(row['iterations'], '7d')} {row['objective']:>16.10f} "
                f"{_fmt(row['max_dev'], '9.1e')}  {row['status']}"
            )
        return "\n".join(lines)


def _fmt(value: Any, spec: str) -> str:
    width = int(spec.split(".")[0].rstrip("df"))
    return f"{'-':>{width}}" if value is None else format(value, spec)


def _own_run(master: Master, oracle: Any, backend: Backend, tol: float,
             max_rounds: int) -> tuple[BackendRun, Any]:
    from lpboosting.colgen import column_generation

    run = BackendRun(backend.name, "own")
    start = time.perf_counter()
    try:
        result = column_generation(master, oracle, backend=backend, tol=tol, max_rounds=max_rounds)
    except Exception as exc:  # noqa: BLE001 - a backend that fails is reported in its row
        run.seconds = time.perf_counter() - start
        run.status, run.message = "error", f"{type(exc).__name__}: {exc}"
        return run, None
    run.seconds = time.perf_counter() - start
    history = result.history
    run.rounds = len(history)
    masters = [r.master_seconds for r in history]
    run.median_master_ms = float(np.median(masters) * 1e3) if masters else float("nan")
    iters = [r.iterations for r in history if r.iterations is not None]
    run.iterations = int(sum(iters)) if iters else None
    run.objectives = [float(r.primal) if r.primal is not None else float("nan") for r in history]
    run.objective = objective_of(result.solution) if result.solution is not None else float("nan")
    run.status, run.message = result.status, result.message
    return run, result


def _replay(master: Master, columns: np.ndarray, backend: Backend) -> BackendRun:
    run = BackendRun(backend.name, "replay")
    start = time.perf_counter()
    masters: list[float] = []
    iters: list[int] = []
    try:
        session = backend.open(master, columns.shape[0])
        for j in range(columns.shape[1]):
            session.add_column(columns[:, j])
            solution = session.solve()
            if not solution.ok:
                run.status = "solver_error"
                run.message = f"column {j + 1}: {solution.status.value} {solution.info.get('message', '')}"
                break
            masters.append(solution.seconds)
            if solution.iterations is not None:
                iters.append(int(solution.iterations))
            run.objectives.append(objective_of(solution))
        else:
            run.status = "optimal"
    except Exception as exc:  # noqa: BLE001 - reported in the row
        run.status, run.message = "error", f"{type(exc).__name__}: {exc}"
    run.seconds = time.perf_counter() - start
    run.rounds = len(run.objectives)
    run.median_master_ms = float(np.median(masters) * 1e3) if masters else float("nan")
    run.iterations = int(sum(iters)) if iters else None
    run.objective = run.objectives[-1] if run.objectives else float("nan")
    return run


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
            progress: Callable[[str], Any] | None = None) -> Comparison:
    """Run ``master`` with ``oracle`` on every backend (own columns), then replay the first's columns.

    ``backends`` are names (``"highspy"``, ``"cvxpy:CLARABEL"``, ...) or
    Backend objects; a backend that cannot handle the master, is not
    installed or fails is reported in its row (status ``error`` and the
    message), not raised — except when no backend is usable.
    ``progress(text)`` is called before each run (the command line uses it).
    """
    if not backends:
        raise ValueError("name at least one backend (see lpboosting.backends.available())")
    resolved = [b if isinstance(b, Backend) else make_backend(b, tight) for b in backends]
    for backend in resolved:  # fail early on names that cannot work at all
        backend.check_master(master)
        backend.require()
    runs: list[BackendRun] = []
    first_result = None
    for backend in resolved:
        if progress is not None:
            progress(f"{backend.name}: column generation")
        run, result = _own_run(master, oracle, backend, tol, max_rounds)
        runs.append(run)
        if first_result is None and result is not None and result.columns.shape[1]:
            first_result = result
    if replay and first_result is not None:
        columns = first_result.columns
        replay_master = _replay_master(master)
        for backend in resolved:
            if progress is not None:
                progress(f"{backend.name}: replay of {columns.shape[1]} columns")
            runs.append(_replay(replay_master, columns, backend))
    _deviations(runs)
    meta = {"master": repr(master), "oracle": getattr(oracle, "name", type(oracle).__name__),
            "n_samples": int(oracle.n_samples), "tol": tol, "max_rounds": max_rounds,
            "tight": tight}
    return Comparison(title or f"{master!r} with {meta['oracle']}", runs, meta)


def compare_instance(entry: dict[str, Any], directory: str | Path, backends: Sequence[str | Backend],
                     *, tight: bool = True,
                     progress: Callable[[str], Any] | None = None) -> Comparison:
    """Every backend on one ``models/`` instance: a full solve, then a column-by-column replay.

    Deviations of the full solves are from the certified objective; the
    replays' from the first backend's replay, round by round.
    """
    from lpboosting import catalog

    master = catalog.master_for(entry)
    columns = catalog.load_columns(entry, directory)["U"]
    certified = float(entry["objective"])
    # the catalog's solver options (tested on every instance) rather than TIGHT_OPTIONS
    resolved = [b if isinstance(b, Backend) else (catalog.backend_for(b) if tight else get_backend(b))
                for b in backends]
    runs: list[BackendRun] = []
    for backend in resolved:
        if progress is not None:
            progress(f"{backend.name}: full instance")
        run = BackendRun(backend.name, "full")
        start = time.perf_counter()
        try:
            value = catalog.solve_entry(entry, directory, backend)
            run.objective, run.status, run.rounds = float(value), "optimal", 1
            run.max_dev = abs(run.objective - certified)
        except Exception as exc:  # noqa: BLE001 - reported in the row
            run.status, run.message = "error", f"{type(exc).__name__}: {exc}"
        run.seconds = time.perf_counter() - start
        run.median_master_ms = run.seconds * 1e3
        runs.append(run)
    if entry.get("kind") == "lp":  # the entropy instances are single projections: nothing to replay
        for backend in resolved:
            if progress is not None:
                progress(f"{backend.name}: replay of {columns.shape[1]} columns")
            runs.append(_replay(_replay_master(master), columns, backend))
        _deviations([r for r in runs if r.mode == "replay"])
    title = (f"{entry['name']}: {entry['master']} {entry.get('params', {})}, "
             f"{columns.shape[0]} x {columns.shape[1]}, certified objective {certified:.12g}")
    return Comparison(title, runs, {"instance": entry["name"], "certified": certified,
                                    "tolerance": entry.get("tolerance"), "tight": tight})
