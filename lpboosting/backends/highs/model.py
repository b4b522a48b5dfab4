"""The HiGHS backend: options, status map and the solve step its sessions share.

Each HiGHS session (:mod:`~lpboosting.backends.highs.lpboost`,
:mod:`~lpboosting.backends.highs.rmboost`) builds one live ``highspy.Highs``
model with :meth:`HighspyBackend.new_model` and re-solves it with
:func:`run_model` after every new column, from the previous basis.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from lpboosting.backends.base import Backend
from lpboosting.backends.solvers import SOLVERS
from lpboosting.errors import SolverNotInstalledError
from lpboosting.masters.base import MasterSolution
from lpboosting.status import SolveStatus

#: HiGHS's record: status map, options, iteration counters, package
HIGHS = SOLVERS["highspy"]

#: options set on every model unless the user overrides them
DEFAULT_OPTIONS: dict[str, Any] = {
    "output_flag": False,
    "presolve": "off",
    "solver": "simplex",
    "simplex_strategy": 1,  # dual simplex: the right method after adding rows
    "random_seed": 0,
}


def import_highspy() -> Any:
    """highspy, with HiGHS's start-up banner already spent (see :func:`spend_banner`)."""
    try:
        import highspy
    except ImportError as exc:  # pragma: no cover - exercised by monkeypatching
        raise SolverNotInstalledError(
            "the 'highspy' backend needs the highspy package, which is not installed; "
            "run `pip install highspy` or choose backend='cvxpy:CLARABEL'"
        ) from exc
    spend_banner(highspy)
    return highspy


_BANNER_SPENT = False
#: held while the banner is spent: another thread's first model waits for it (with the flag set
#: before the redirection, a second thread of ``LPBoostCV(n_jobs=2)`` built its model while the
#: first had not yet redirected standard output, and the banner was printed)
_BANNER_LOCK = threading.Lock()


def spend_banner(highspy: Any) -> None:
    """Build one throw-away ``Highs`` with standard output sent to the null device.

    HiGHS prints its banner ("Running HiGHS ... Copyright ...") on standard
    output when the first ``Highs`` of a process is built, before any option
    can be set, so it lands in the middle of a program's own output (a
    ledger, a progress bar, a pipe).  It prints it once a process: spending
    it here, at the file-descriptor level and with C's buffers flushed, keeps
    every later model quiet, including those cvxpy builds.
    """
    global _BANNER_SPENT
    if _BANNER_SPENT:
        return
    with _BANNER_LOCK:
        if _BANNER_SPENT:
            return
        try:
            sys.stdout.flush()
            saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
        except (OSError, ValueError, AttributeError):  # no file descriptor 1 (embedded interpreters)
            _BANNER_SPENT = True
            return
        try:
            os.dup2(null, 1)
            highspy.Highs()
            _flush_c_stdout()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)
            _BANNER_SPENT = True


def _flush_c_stdout() -> None:
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # pragma: no cover - platforms without a C library handle
        pass


def map_highs_status(highspy: Any, status: Any) -> SolveStatus:
    """HiGHS's model status as a SolveStatus, by HiGHS's record
    (:data:`~lpboosting.backends.solvers.HIGHS_STATUS_MAP`)."""
    return _status_table(highspy.HighsModelStatus).get(status, SolveStatus.ERROR)


@functools.lru_cache(maxsize=None)
def _status_table(S: Any) -> dict[Any, SolveStatus]:
    """HiGHS's status map keyed by the members of its status enum ``S`` (those this highspy has)."""
    return {getattr(S, name): value for name, value in HIGHS.status_map.items() if hasattr(S, name)}


#: HiGHS's iteration counters (``HighsInfo.<kind>_iteration_count``), one per method (its record's)
ITERATION_KINDS = HIGHS.iteration_kinds


def iteration_counts(info: Any) -> dict[str, int]:
    """The iterations of the last run by method, e.g. ``{"ipm": 21}`` (methods that ran only:
    HiGHS reports 0, or -1, for the others)."""
    counts = {}
    for kind in ITERATION_KINDS:
        value = int(getattr(info, f"{kind}_iteration_count", 0) or 0)
        if value > 0:
            counts[kind] = value
    return counts


#: a simplex run is watched: one that needs more than ``WATCH_BASE + WATCH_PER_ENTRY * (rows +
#: columns)`` iterations is taken to be stalled on a degenerate vertex (a warm-started dual
#: simplex can cycle there: 200 000 iterations in 20 s on a 500-row LPBoost master, where the
#: other rounds of the run need under 100)
WATCH_BASE, WATCH_PER_ENTRY = 1000, 10

#: what a stalled run is solved by instead, in order, each from where the last one stopped:
#: the primal simplex, then the interior point with crossover (it does not cycle, and its
#: crossover leaves the basis the next round warm-starts from); each is watched the same way
RESCUES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("primal simplex", {"simplex_strategy": 4}),
    ("interior point", {"solver": "ipm", "run_crossover": "on"}),
)

#: what an interior point run without crossover that ends with no answer (status "Unknown") is
#: solved by instead, in order: the same method after presolve, then with crossover.  The sessions
#: run it without presolve, whose postsolve of duplicate rows (many margin rows of RMBoost's first
#: rounds are the same row) puts their whole dual on one of them, so that the duals are not central
#: (RMBoost on 5 000 twonorm rows: 483 rounds against 351).  But IPX can end without an answer on
#: a model of thousands of duplicate rows (RMBoost, lam 0.0316, 50 000 twonorm rows, round 1:
#: 5 002 rows, one column), which presolve reduces to a few
IPM_RESCUES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("interior point after presolve", {"presolve": "on"}),
    ("interior point with crossover", {"presolve": "on", "run_crossover": "on"}),
)

#: HiGHS's default ``simplex_iteration_limit`` (no limit): a model whose limit is another was given
#: one by the user, and is run as it is
NO_ITERATION_LIMIT = 2147483647


def simplex_budget(h: Any) -> int:
    """The iterations a simplex run of ``h`` may take before it counts as stalled."""
    return WATCH_BASE + WATCH_PER_ENTRY * (int(h.getNumRow()) + int(h.getNumCol()))


def run_watched(h: Any) -> dict[str, Any]:
    """``h.run()`` under a watchdog; what it did, for the round's record (empty when nothing).

    The run gets :func:`simplex_budget` iterations.  A run that uses them up
    without an answer is stalled (degenerate cycling, not a hard LP: the
    LP is a few hundred rows, and the other rounds need a few dozen
    iterations), and the model is solved again by the :data:`RESCUES` in
    turn, from where the last run stopped, until one answers; the model's
    options are then restored, so that the next round warm-starts the dual
    simplex from the basis the rescue left.  An interior point run without
    presolve and crossover that ends with no answer (``"Unknown"``) is run
    again by the :data:`IPM_RESCUES` the same way.  A model given its own
    ``simplex_iteration_limit`` is run as it is.  The answer is verified by
    the master as every answer is.
    """
    highspy = import_highspy()
    if h.getOptionValue("simplex_iteration_limit")[1] != NO_ITERATION_LIMIT:
        h.run()
        return {}
    limited = highspy.HighsModelStatus.kIterationLimit
    h.setOptionValue("simplex_iteration_limit", simplex_budget(h))
    try:
        h.run()
        if h.getModelStatus() == highspy.HighsModelStatus.kUnknown and _interior_point_alone(h):
            failed = {"stalled_iterations": sum(iteration_counts(h.getInfo()).values()), "stalled_kind": "ipm"}
            return {**failed, **_rescued(h, IPM_RESCUES, lambda: h.getModelStatus() != highspy.HighsModelStatus.kUnknown)}
        if h.getModelStatus() != limited:
            return {}
        stalled = {"stalled_iterations": sum(iteration_counts(h.getInfo()).values())}
        return {**stalled, **_rescued(h, RESCUES, lambda: h.getModelStatus() != limited, budget=True)}
    finally:
        h.setOptionValue("simplex_iteration_limit", NO_ITERATION_LIMIT)


def _interior_point_alone(h: Any) -> bool:
    """Whether ``h`` runs HiGHS's interior point without presolve and crossover (the central duals
    of ``"highspy:ipm"``), the run :data:`IPM_RESCUES` stands in for."""
    return (str(h.getOptionValue("solver")[1]) == "ipm" and str(h.getOptionValue("presolve")[1]) == "off"
            and str(h.getOptionValue("run_crossover")[1]) == "off")


def _rescued(h: Any, rescues: tuple[tuple[str, dict[str, Any]], ...], answered: Callable[[], bool],
             budget: bool = False) -> dict[str, Any]:
    """Run ``h`` again under each rescue's options in turn (restored after each run) until one
    ``answered``; ``{"rescued_by": its name}``, or ``{}`` when none did."""
    for name, options in rescues:
        saved = {key: h.getOptionValue(key)[1] for key in options}
        for key, value in options.items():
            h.setOptionValue(key, value)
        try:
            if budget:
                h.setOptionValue("simplex_iteration_limit", simplex_budget(h))
            h.run()
        finally:
            for key, value in saved.items():
                h.setOptionValue(key, value)
        if answered():
            return {"rescued_by": name}
    return {}


class HighsClock:
    """:meth:`~lpboosting.backends.base.MasterSession.time_limited` of the sessions over one live
    HiGHS model ``_h``."""

    _h: Any

    @contextmanager
    def time_limited(self, seconds: float) -> Iterator[None]:
        """HiGHS's ``time_limit`` counts the run time of every run of the model (``getRunTime``): set
        to that so far plus ``seconds`` (or the model's own limit, when smaller) for the context's
        solves, and back to the model's own after them."""
        h = self._h
        own = float(h.getOptionValue("time_limit")[1])
        h.setOptionValue("time_limit", min(own, float(h.getRunTime()) + float(seconds)))
        try:
            yield
        finally:
            h.setOptionValue("time_limit", own)


class SiftingRuns:
    """The runs of a sifting session's model in one solve (a run, a check, rows or columns entering,
    another run): their count, their seconds, their iterations by method and what the watchdog did."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.passes = 0
        self.seconds = 0.0
        self.counts: dict[str, int] = {}
        self.watchdog: list[dict[str, Any]] = []

    def run(self, h: Any) -> SolveStatus:
        """One more run of the live model ``h`` under the watchdog (:func:`run_watched`); its status."""
        highspy = import_highspy()
        self.passes += 1
        start = time.perf_counter()
        watched = run_watched(h)
        self.seconds += time.perf_counter() - start
        for kind, count in iteration_counts(h.getInfo()).items():
            self.counts[kind] = self.counts.get(kind, 0) + count
        if watched:
            self.watchdog.append(watched)
            kind = watched.get("stalled_kind", "simplex")
            self.counts[kind] = self.counts.get(kind, 0) + watched["stalled_iterations"]
        return map_highs_status(highspy, h.getModelStatus())

    @staticmethod
    def failed(h: Any, n_samples: int, status: SolveStatus) -> MasterSolution:
        """The solution of a run that ended without an answer, with HiGHS's status text."""
        return MasterSolution.failed(n_samples, status, h.modelStatusToString(h.getModelStatus()))

    def finish(self, solution: MasterSolution, backend_name: str, **record: Any) -> MasterSolution:
        """Seconds (``info["solver_seconds"]`` those of HiGHS's runs alone), iterations
        (``info["iterations_by_kind"]`` by method) and the backend's name on ``solution``; on an
        answer, the passes, ``record`` and the watchdog's notes in its record."""
        solution.seconds = time.perf_counter() - self.start
        solution.iterations = sum(self.counts.values())
        solution.backend = backend_name
        solution.info["iterations_by_kind"] = dict(self.counts)
        solution.info["solver_seconds"] = self.seconds
        if solution.ok:
            solution.record.update({"passes": self.passes, **record})
            if self.watchdog:
                solution.record["watchdog"] = self.watchdog[-1] if len(self.watchdog) == 1 else self.watchdog
        return solution


def run_model(h: Any, n_samples: int, backend_name: str, read: Any) -> MasterSolution:
    """Re-solve the live model ``h`` and turn the outcome into a MasterSolution.

    ``read(status, highs_solution, highs_info)`` builds the solution of an
    optimal run; a failed run gives :meth:`MasterSolution.failed` with
    HiGHS's status text.  Seconds, iterations and the backend name are
    filled in: ``iterations`` counts those of every method that ran
    (simplex, interior point, crossover, PDLP), ``info["iterations_by_kind"]``
    splits them by method (:func:`iteration_counts`) and
    ``info["solver_seconds"]`` is the time of HiGHS's run alone.
    """
    highspy = import_highspy()
    start = time.perf_counter()
    watched = run_watched(h)
    seconds = time.perf_counter() - start
    status = map_highs_status(highspy, h.getModelStatus())
    info = h.getInfo()
    if status.ok:
        solution = read(status, h.getSolution(), info)
    else:
        solution = MasterSolution.failed(n_samples, status, h.modelStatusToString(h.getModelStatus()))
    counts = iteration_counts(info)
    if watched:
        solution.record["watchdog"] = watched
        counts["simplex"] = counts.get("simplex", 0) + watched["stalled_iterations"]
    solution.seconds = seconds
    solution.iterations = sum(counts.values())
    solution.info["iterations_by_kind"] = counts
    solution.info["solver_seconds"] = seconds
    solution.backend = backend_name
    return solution


#: PDLP's termination tolerance (HiGHS's default, stated): a first-order method stops at a relative
#: primal and dual residual and duality gap of this size, so its objectives agree with the
#: simplex's to about this much times (1 + |objective|), not to 1e-12
PDLP_TOLERANCE = 1e-7

#: named HiGHS configurations: ``"highspy:ipm"`` gives central duals (interior point without
#: crossover: a point in the relative interior of the optimal dual face, not a vertex), with an
#: optimality tolerance of 1e-10 (HiGHS's 1e-8 leaves objectives off by about 1e-8);
#: ``"highspy:pdlp"`` HiGHS's first-order primal-dual hybrid gradient (cuPDLP-C, on the CPU);
#: ``"highspy:dual"`` and ``"highspy:primal"`` the dual and the primal simplex
VARIANTS: dict[str, dict[str, Any]] = {
    "ipm": {"solver": "ipm", "run_crossover": "off", "ipm_optimality_tolerance": 1e-10},
    "pdlp": {"solver": "pdlp", "pdlp_optimality_tolerance": PDLP_TOLERANCE},
    "dual": {"solver": "simplex", "simplex_strategy": 1},
    "primal": {"solver": "simplex", "simplex_strategy": 4},
    "rows": {},
    "delta": {},
}
#: variants that run other sessions of the table first, for LPBoost: ``"highspy:delta"`` the
#: difference model over all N examples (no sifting; for the multiclass LP, the model over every
#: pair), ``"highspy:rows"`` dense rows d . u - gamma <= 0 over all N (the model before the
#: difference encoding)
VARIANT_SOLVERS: dict[str, tuple[str, ...]] = {
    "rows": ("highspy-rows", "highspy"),
    "delta": ("highspy-delta", "highspy"),
}
#: HiGHS methods that leave a basis (sifting moves examples out of the model at their bound, so
#: it needs one): any other ``solver`` (ipm without crossover, pdlp, ...) solves LPBoost's master
#: by the difference model over all N examples, and the multiclass master over every pair
#: (``highspy-delta``)
BASIS_SOLVERS = ("simplex", "choose")
#: options of the sessions, not of HiGHS: taken out of a backend's options and handed to its sessions
SESSION_OPTIONS = ("working_size", "max_entering", "max_tight", "early_answers")


class HighspyBackend(Backend):
    """Incremental HiGHS backend (the default for LPBoost).

    Options are HiGHS options (``HighspyBackend(simplex_strategy=4)``), set
    on every model over :data:`DEFAULT_OPTIONS`.  ``HighspyBackend("ipm")``
    (``"highspy:ipm"``) solves every round by interior point without
    crossover: the duals handed to the oracle are *central* (the master's
    optimal dual face is large when it is degenerate, and a vertex of it is
    a poor price), at the cost of no warm start.  ``"highspy:pdlp"`` solves
    every round by HiGHS's first-order PDLP (accurate to its tolerance
    :data:`PDLP_TOLERANCE`, relative), ``"highspy:dual"`` and
    ``"highspy:primal"`` by the dual or the primal simplex.  LPBoost's master is solved
    by sifting (:class:`~lpboosting.backends.highs.sifting.HighsSiftingLP`):
    a model over a working set of examples, each +-1 hypothesis written as
    its difference from the closest earlier one, certified on all N; its
    options ``working_size``, ``max_entering`` and ``early_answers`` are taken
    out of the HiGHS options.  The multiclass master is solved by sifting over (example,
    wrong class) pairs the same way
    (:class:`~lpboosting.backends.highs.pair_sifting.HighsPairSiftingLP`).
    ``"highspy:delta"`` is the difference model over all N
    (:class:`~lpboosting.backends.highs.lpboost.HighsDeltaEdgeLP`; for the
    multiclass master :class:`~lpboosting.backends.highs.multiclass.HighsPairEdgeLP`),
    ``"highspy:rows"`` the dense rows d . u - gamma <= 0
    (:class:`~lpboosting.backends.highs.lpboost.HighsEdgeLP`).  Sifting
    needs a basis, so a method that leaves none (the interior point without
    crossover, PDLP) solves LPBoost's master by the difference model over all
    N, and the multiclass master over every pair.  Every solve reports its iterations by method
    (:func:`iteration_counts`); the option ``time_limit`` bounds a session's
    total HiGHS time.
    """

    name = "highspy"
    solvers = ("highspy",)
    incremental = True

    def __init__(self, variant: str | None = None, **options: Any) -> None:
        key = None
        if variant is not None:
            key = variant.strip().lower()
            if key not in VARIANTS:
                raise ValueError(f"unknown HiGHS variant {variant!r}; choose one of {', '.join(VARIANTS)}")
            options = {**VARIANTS[key], **options}
            self.name = f"highspy:{key}"
        method = str({**DEFAULT_OPTIONS, **options}.get("solver", "simplex")).lower()
        if key in VARIANT_SOLVERS:
            self.solvers = VARIANT_SOLVERS[key]
        elif method not in BASIS_SOLVERS:
            self.solvers = VARIANT_SOLVERS["delta"]
        #: the method's iterations (as HiGHS counts them); the simplex warm-starts from the
        #: previous basis, the other methods start afresh every round
        self.method = method
        self.incremental = method in BASIS_SOLVERS
        self.session_options = {k: options.pop(k) for k in SESSION_OPTIONS if k in options}
        super().__init__(**options)

    @property
    def iteration_kind(self) -> str:
        """What a session that does not split its iterations by method
        (``info["iterations_by_kind"]``) counts: ``"simplex"`` for the simplex methods (LPBoost's
        sifting session counts simplex iterations), else the method."""
        return "simplex" if self.method in BASIS_SOLVERS else self.method

    def time_limit_options(self, seconds: float) -> dict[str, Any]:
        """HiGHS's ``time_limit``: it counts the time of every run of one model, so it bounds a
        whole session (a run of column generation), not each round."""
        return {HIGHS.time_limit: float(seconds)}

    def is_available(self) -> bool:
        try:
            import_highspy()
        except SolverNotInstalledError:
            return False
        return True

    def require(self) -> None:
        import_highspy()

    def new_model(self) -> Any:
        """A fresh ``highspy.Highs`` with the default and the user's options."""
        highspy = import_highspy()
        h = highspy.Highs()
        for key, value in {**DEFAULT_OPTIONS, **self.options}.items():
            status = h.setOptionValue(key, value)
            if status != highspy.HighsStatus.kOk:
                raise ValueError(f"HiGHS rejected option {key}={value!r}; see the HiGHS option list")
        return h
