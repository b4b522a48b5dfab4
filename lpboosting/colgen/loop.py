"""The one column-generation loop every master and oracle runs in.

A run is five named steps over one :class:`~lpboosting.colgen.RunState`,
in :class:`Rounds`: :meth:`~Rounds.start` prices the first columns,
:meth:`~Rounds.solve` adds the pending columns and solves the restricted
master (its answer verified, or solved again by a fallback),
:meth:`~Rounds.price` finds the columns its distribution prices best,
:meth:`~Rounds.record` writes the round and hands it to the callback, and
:meth:`~Rounds.stop` says whether the run ends and why.
:func:`column_generation` starts a run; :func:`continue_run` goes on with
one (a resumed run, a warm start, the nu path's next nu).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpboosting.backends import Backend, get_backend
from lpboosting.backends.base import _digest, with_time_limit
from lpboosting.columns import edges_at, is_array, snapshot
from lpboosting.colgen.history import History, RoundRecord
from lpboosting.colgen.options import Deadline, LoopOptions
from lpboosting.colgen.result import ColumnGenerationResult
from lpboosting.colgen.stabilization import Smoothing, make_stabilization
from lpboosting.colgen.state import RunState, Stall
from lpboosting.colgen.verify import duality_gap, verified
from lpboosting.masters.base import Master, MasterSolution
from lpboosting.oracles.base import Candidate, Oracle
from lpboosting.provenance import versions
from lpboosting.stacklevel import caller_level
from lpboosting.status import SolveStatus

__all__ = ["ColumnGenerationResult", "Rounds", "RunState", "column_generation", "continue_run"]

#: the least time limit handed to a solver (the loop's own clock, checked after each round, stops
#: a run at its time_limit; the solver's stops one long solve)
SOLVER_TIME_FLOOR = 1.0

#: statuses a run may be continued from (the last round's status is then "added" again)
CONTINUABLE = ("max_rounds", "time_limit", "stalled", "stopped", "interrupted")


def column_generation(
    master: Master,
    oracle: Oracle,
    options: LoopOptions | None = None,
    *,
    backend: "str | Backend | None" = None,
    initial_columns: "ColumnGenerationResult | Sequence[Candidate] | None" = None,
    resume: "RunState | ColumnGenerationResult | None" = None,
    n_samples: int | None = None,
    deadline: Deadline | None = None,
    session_deadline: Deadline | None = None,
    **loop_options: Any,
) -> ColumnGenerationResult:
    """Run column generation of ``master`` with pricing ``oracle``.

    The loop's options are a :class:`~lpboosting.colgen.LoopOptions`
    (``options``), or its fields as keywords (``tol=1e-6``,
    ``max_rounds=1000``, ``time_limit``, ``stall_rounds``,
    ``columns_per_round=1``, ``stabilization``, ``callback``), which
    override those of ``options``.

    ``backend=None`` uses the master's default (``"highspy"`` for LPBoost,
    ``"dedicated"`` for the entropy masters and RMBoost).  Each round solves
    the restricted master over the columns found so far, hands its
    distribution to the oracle, records a :class:`RoundRecord`, and adds the
    oracle's columns unless ``master.converged`` says that no column improves
    the master by more than ``tol``.  The first columns are priced under the
    master's initial (uniform) distribution.

    ``columns_per_round=k`` adds up to k columns a round: the oracle's k best
    (:meth:`Oracle.price_many`) that improve the master.  A column is never
    added to an LP master (LPBoost, RMBoost) while an equal one is in it (a
    column pool's removed columns may re-enter), nor twice in one round:
    with a ``tol`` below the accuracy of the master's solver (about 1e-9) a
    column the master has seems to improve it by the round-off of its
    solve.  Such columns are skipped (``extra["repeated_columns"]`` counts
    them), and when no other column improves the master the run stops with
    status ``"converged"`` (optimal to its solver's accuracy, as a solver's
    own reduced-cost test would say; ``message`` says so).  An entropy
    master takes a column it has again: its edge enters the master's bounds.
    ``stabilization="smoothing"`` (or :class:`~lpboosting.colgen.Smoothing`)
    prices at a smoothed dual and stops only on the master's true duals (see
    :mod:`lpboosting.colgen.stabilization`).  ``time_limit`` (seconds) ends
    the run with status ``"time_limit"``; ``stall_rounds=K`` ends it with
    ``"stalled"`` when neither the master's objective nor the best bound
    moved by more than ``tol`` in the last K rounds.  ``initial_columns``
    starts the master from given columns instead of the first pricing: a
    previous :class:`ColumnGenerationResult` (its columns and hypotheses, to
    continue a run) or a list of :class:`~lpboosting.oracles.Candidate`.

    ``resume`` continues a run that stopped before converging (max_rounds,
    a time limit, a stall, a callback stop, Ctrl-C) from its
    :attr:`ColumnGenerationResult.state`: the same session, oracle and
    stabilisation centre, so that 50 rounds and then 50 more are the 100
    rounds of one run.  ``max_rounds`` counts all rounds, those before
    included; ``master``, ``oracle``, ``backend``, ``columns_per_round``,
    ``stabilization`` and ``stall_rounds`` are the state's (the arguments
    must name the same master and oracle).

    ``oracle`` is an :class:`~lpboosting.oracles.Oracle` or a plain function
    ``fn(d) -> column`` (or ``-> (column, hypothesis)``), wrapped as an
    inexact :class:`~lpboosting.oracles.CallableOracle`; a function needs
    ``n_samples`` (the number of examples) unless the master's sample
    weights say it.  With an inexact oracle, a master whose final weights
    solve another problem than the one its distribution comes from
    (ERLPBoost: the LP over its columns, :meth:`~lpboosting.masters.Master.
    recheck_point`) is also priced at that problem's distribution every
    round; a column found there that improves it is added too (the history
    records its edge as ``extra["recheck_edge"]``), and the run stops only
    when neither point gives a column.

    ``callback(record)`` is called after every round; returning a truthy
    value stops the loop.  A callback of two arguments, ``callback(record,
    state)``, also gets the :class:`RunState`: the round's solution
    (``state.distribution``, ``state.weights``, ``state.solution``), the
    oracle's new columns (``state.candidates``), the session, master and
    oracle; ``state.add_column(u, hypothesis)`` adds a column of its own to
    the next solve.  A KeyboardInterrupt, a callback stop, a limit or a
    solver failure ends the run but still returns the last good master's
    solution and the history so far (``status`` says which, ``message`` what
    to change).  Every master answer is checked: when its primal and dual
    values differ (e.g. a constraint added to a master's statement that its
    read-back does not know), the round records ``extra["duality_gap"]``
    and a RuntimeWarning says so, instead of a gap that only looks closed.

    ``deadline`` is a clock shared with the caller (a comparison's time
    limit over several runs): the run's ``time_limit`` is then its.
    ``session_deadline`` is the clock the solver's own time limit is set
    from when the session opens (default: the run's).  A session that
    outlives the run takes a longer one: the nu path's next nus go on in
    the same session, and HiGHS's own limit counts every run of its model,
    so a limit of the first nu's alone would stop the later nus' solves.
    """
    options = _options(options, loop_options)
    check_master(master)
    oracle = as_oracle(oracle, master, n_samples)
    if resume is not None:
        state = _resumed(resume, master, oracle, initial_columns)
        # the columns per round, the stabilisation and the stall window are the state's
        state.options = options.replace(columns_per_round=state.options.columns_per_round,
                                        stabilization=state.options.stabilization)
        return continue_run(state, deadline=deadline)
    state = start_run(master, oracle, options, backend, session_deadline or deadline)
    return Rounds(state, deadline or options.deadline(), fresh=True).run(initial_columns)


def continue_run(state: RunState, options: LoopOptions | None = None, *,
                 deadline: Deadline | None = None) -> ColumnGenerationResult:
    """Go on with the run ``state`` holds, for ``options.max_rounds`` rounds in all.

    The same session (its model and basis), columns, oracle and
    stabilisation centre: 50 rounds and then 50 more are the 100 rounds of
    one run.  ``options`` replaces the state's (None keeps them); a run that
    starts afresh on the same session (the nu path's next nu) calls
    :meth:`RunState.restart` first.
    """
    if options is not None:
        state.options = options
    return Rounds(state, deadline or state.options.deadline(), fresh=False).run(None)


def _options(options: LoopOptions | None, loop_options: dict[str, Any]) -> LoopOptions:
    unknown = sorted(set(loop_options) - set(LoopOptions.names()))
    if unknown:
        raise TypeError(f"column_generation() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
                        f"the loop's options are {', '.join(LoopOptions.names())}")
    if options is None:
        return LoopOptions(**loop_options)
    if not isinstance(options, LoopOptions):
        raise TypeError(f"options must be a LoopOptions, got {type(options).__name__}")
    return options.replace(**loop_options) if loop_options else options


def check_master(master: Any) -> None:
    """A TypeError that names the master classes unless ``master`` is a master object."""
    if isinstance(master, Master):
        return
    from lpboosting.masters.registry import MASTERS, spec_of

    def example(spec) -> str:
        shown = {k: v for k, v in spec.params.items() if v is not None and k != "prune"}
        return f"{spec.cls.__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    spec = spec_of(master) if isinstance(master, str) else (
        next((s for s in MASTERS.values() if s.cls is master), None) if isinstance(master, type) else None)
    if isinstance(master, str):
        got = f"the string {master!r}"
    elif isinstance(master, type):
        got = f"the class {master.__name__} (not an object of it)"
    else:
        got = f"{type(master).__name__} {master!r}"[:120]
    such = example(spec) if spec is not None else "LPBoost(nu=0.1)"
    names = ", ".join(s.cls.__name__ for s in MASTERS.values())
    raise TypeError(f"the master must be a master object, got {got}: pass a master object such as {such} "
                    f"(from lpboosting.masters; make_master(name, ...) builds one by name); masters: {names}")


def as_oracle(oracle: Any, master: Master, n_samples: int | None = None) -> Oracle:
    """``oracle`` itself, or a plain function ``fn(d)`` wrapped as a CallableOracle over N examples."""
    if isinstance(oracle, Oracle):
        return oracle
    if isinstance(oracle, str) or (isinstance(oracle, type) and issubclass(oracle, Oracle)):
        from lpboosting.oracles import ORACLES

        got = f"the string {oracle!r}" if isinstance(oracle, str) else f"the class {oracle.__name__}"
        names = ", ".join(sorted({cls.__name__ for cls in ORACLES.values()} | {"Columns", "CallableOracle"}))
        raise TypeError(f"the oracle must be an oracle object built on the training data, got {got}: pass "
                        "e.g. Stumps(X, y) (from lpboosting.oracles; make_oracle(name, X, y) builds one by "
                        f"name) or a function fn(d) -> column; oracles: {names}")
    if not callable(oracle):
        raise TypeError(f"oracle must be an lpboosting Oracle or a function fn(d) -> column, got "
                        f"{type(oracle).__name__}")
    from lpboosting.oracles import CallableOracle

    if n_samples is None and master.sample_weight is not None:
        n_samples = master.sample_weight.size
    if n_samples is None:
        raise TypeError(
            "a plain function as the oracle does not say how many examples there are: pass "
            "column_generation(master, fn, n_samples=N), or wrap it as CallableOracle(fn, N)"
        )
    return CallableOracle(oracle, int(n_samples))


def callback_arity(callback: Any) -> int:
    """1 for ``callback(record)``, 2 for ``callback(record, state)``."""
    import inspect

    try:
        parameters = inspect.signature(callback).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return 1
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in parameters) or len(positional) >= 2:
        return 2
    return 1


def start_run(master: Master, oracle: Oracle, options: LoopOptions, backend: "str | Backend | None" = None,
              deadline: Deadline | None = None) -> RunState:
    """A new run's state: the backend's session opened on ``master``, an empty history."""
    stab = make_stabilization(options.stabilization)
    k = int(options.columns_per_round)
    backend = get_backend(master.default_backend if backend is None else backend)
    # the solver's own limit too (HiGHS, the cvxpy solvers), so that one long solve stops in time;
    # at least SOLVER_TIME_FLOOR seconds, so that the first round (a small master) always completes
    limit = options.time_limit if deadline is None else deadline.remaining()
    if limit is not None:
        backend = with_time_limit(backend, max(float(limit), SOLVER_TIME_FLOOR))
    session = backend.open(master, master.n_rows(oracle.n_samples))
    history = History(meta={
        "master": master.name, "params": master.params(), "oracle": oracle.name,
        "exact": bool(oracle.exact), "backend": backend.name, "tol": options.tol,
        "n_samples": oracle.n_samples, "versions": versions(),
    })
    if master.weighted:
        history.meta["weighted"] = True
    shown = {"columns_per_round": k if k > 1 else None, "stabilization": stab.name if stab else None,
             "time_limit": options.time_limit, "stall_rounds": options.stall_rounds}
    history.meta.update({key: value for key, value in shown.items() if value is not None})
    return RunState(master=master, oracle=oracle, backend=backend, session=session, stab=stab,
                    options=options, stall=Stall(options.stall_rounds, options.tol), history=history)


def _resumed(resume: Any, master: Master, oracle: Oracle, initial_columns: Any) -> RunState:
    state = resume.state if isinstance(resume, ColumnGenerationResult) else resume
    if not isinstance(state, RunState):
        raise TypeError("resume must be a ColumnGenerationResult (with its state) or a RunState, "
                        f"got {type(resume).__name__}")
    if state.master is not master or state.oracle is not oracle:
        raise ValueError("resume continues a run with its own master and oracle; pass the same "
                         "objects (result.state.master, result.state.oracle)")
    if initial_columns is not None:
        raise ValueError("resume continues from the run's own columns; initial_columns must be None")
    if not state.resumable:
        raise ValueError(f"this run ended with status {state.status!r}: there is nothing to resume")
    return state


@dataclass
class Pricing:
    """What the price step found: the columns to add, the round's edge and gap, and whether it is done."""

    edge: float
    gap: float | None
    done: bool
    pending: list[tuple[Candidate, float]]
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)
    #: converged to the solver's accuracy (every improving column is already in the master)
    at_accuracy: bool = False


class Rounds:
    """The rounds of one run, as named steps over its :class:`RunState` (see the module docstring).

    ``deadline`` is the run's clock; ``fresh`` says whether the run starts
    (the first columns are priced) or goes on from its state.
    """

    def __init__(self, state: RunState, deadline: Deadline, fresh: bool) -> None:
        self.state, self.deadline, self.fresh = state, deadline, fresh
        self.options = state.options
        self.status, self.message = "max_rounds", ""
        callback = self.options.callback
        self.with_state = callback is not None and callback_arity(callback) == 2
        self.warned: set[str] = set()
        self.started = time.perf_counter()

    def warn_once(self, kind: str, text: str) -> None:
        if kind not in self.warned:
            self.warned.add(kind)
            warnings.warn(text, RuntimeWarning, stacklevel=caller_level())

    # -- the run ----------------------------------------------------------------------------------
    def run(self, initial_columns: Any = None) -> ColumnGenerationResult:
        state, history = self.state, self.state.history
        if not self.fresh and history.records and history.records[-1].status in CONTINUABLE:
            history.records[-1].status = "added"  # the run goes on from here
        try:
            if self.fresh:
                self.start(initial_columns)
            for rnd in range(state.next_round, int(self.options.max_rounds) + 1):
                state.next_round = rnd
                solution = self.solve(rnd)
                if solution is None:
                    break
                pricing = self.price(rnd, solution)
                if pricing.done and not solution.control.optimal:
                    # the gap closed at a feasible pair: the run ends on the restricted optimum
                    solution = self.solve(rnd, optimum=True)
                    if solution is None:
                        break
                    pricing = self.price(rnd, solution)
                record, stop = self.record(rnd, solution, pricing)
                if self.stop(rnd, record, solution, pricing, stop):
                    break
        except KeyboardInterrupt:
            self.interrupted()
        except Exception as exc:
            self.failed(exc)
            raise
        if self.status == "max_rounds":
            self.message = self.advice("max_rounds", len(history))
        return self.result()

    # -- the steps --------------------------------------------------------------------------------
    def start(self, initial_columns: Any) -> None:
        """Price the first columns at the master's initial distribution (or take the given ones)."""
        state, master, oracle, history = self.state, self.state.master, self.state.oracle, self.state.history
        t0 = time.perf_counter()
        d0 = master.initial_distribution(oracle.n_samples)
        if initial_columns is None:
            state.pending = [(c, c.edge) for c in oracle.price_many(d0, state.k)]
        else:
            state.pending = _initial(initial_columns, d0)
            history.meta["initial_columns"] = len(state.pending)
        history.meta["initial_edge"] = state.pending[0][0].edge
        if initial_columns is None and oracle.exact and master.gap_at_best_bound:
            # the oracle's best edge at d_0 bounds the full problem too
            initial = master.bound(None, state.pending[0][0].edge)  # type: ignore[arg-type]
            if initial is not None:
                state.best_bound = min(state.best_bound, initial)
        history.meta["initial_pricing_seconds"] = time.perf_counter() - t0

    def add_pending(self) -> None:
        """The columns priced last round (and a callback's) enter the session and the column store."""
        state = self.state
        for candidate, edge in state.pending:
            state.session.add_column(candidate.column, edge)
            index = state.store.add(candidate.column)
            state.keys.setdefault(column_key(candidate.column), []).append(index)
            state.hypotheses.append(candidate.hypothesis)
            state.edges.append(candidate.edge)
        state.pending = []

    def solve(self, rnd: int, optimum: bool = False) -> MasterSolution | None:
        """Add the pending columns and solve the restricted master; its verified answer (a
        fallback's when the master rejects the session's), or None when the run ends here
        (``status`` and ``message`` say why; the failed round is recorded).  The answer is the
        session's round answer (:meth:`~lpboosting.backends.base.MasterSession.solve_round`,
        perhaps a feasible pair short of the optimum), or with ``optimum`` the optimum."""
        self.add_pending()
        state = self.state
        # a long solve stops at the run's time limit too (a round's master is kept only once there
        # is one: the first round of a run, or of a nu on the path, is not cut short)
        limited = self.deadline.limited and state.best is not None
        with (state.session.time_limited(self.deadline.remaining(SOLVER_TIME_FLOOR)) if limited
              else nullcontext()):
            solution = state.session.solve() if optimum else state.session.solve_round()
        self.notes: dict[str, Any] = {}
        if solution.ok:
            solution = self._checked(rnd, solution)
        else:
            self.message = (f"round {rnd}: {solution.backend} returned {solution.status.value} "
                            f"({solution.control.message}); kept the master of round {rnd - 1}")
        if solution.status is SolveStatus.TIME_LIMIT:  # the solver's own clock: keep the last round
            self.status = "time_limit"
            self.message = (f"round {rnd}: {solution.backend} stopped at its time limit "
                            f"({solution.control.message}); kept the master of round {rnd - 1}")
            if self.deadline.limited:
                self.message += "; " + self.advice("time_limit", rnd - 1)
            self._failed_round(rnd, solution, {})
            return None
        if not solution.ok or (self.notes and "fallback" not in self.notes):
            self.status = "solver_error"
            self._failed_round(rnd, solution, dict(self.notes))
            return None
        return solution

    def price(self, rnd: int, solution: MasterSolution) -> Pricing:
        """The columns the master's distribution prices best, the round's gap, and whether no column
        improves the master (with the columns it already has left out, and an inexact oracle's
        recheck at the master's other point)."""
        state, master, oracle, stab = self.state, self.state.master, self.state.oracle, self.state.stab
        k, tol = state.k, state.tol
        t0 = time.perf_counter()
        found, true_edges, priced_at = _price(oracle, master, solution, stab, k, tol)
        seconds = time.perf_counter() - t0
        edge = found[0].edge  # the best edge at the point priced
        bound = _lagrangian_bound(master, oracle, solution, edge)
        if bound is not None:
            state.best_bound = min(state.best_bound, bound)
        gap, done = self._gap(solution, edge, priced_at != "smoothed")
        state.last_gap = gap
        extra = self._extra(rnd, solution, priced_at)
        pending = [(c, e) for c, e in zip(found, true_edges) if not master.converged(solution, e, tol)]
        pending = pending or [(found[0], true_edges[0])]
        repeated, at_accuracy = 0, False
        if not done:
            # a column already in the master improves it only by the round-off of its solve (a
            # tol below the solver's accuracy): it is not added again, and with no other the run
            # has converged to the solver's accuracy
            pending, repeated = _unseen(state, pending)
            done = at_accuracy = not pending
        t0 = time.perf_counter()
        recheck = _recheck(oracle, master, solution, k, tol, [] if done else [c.column for c, _ in pending])
        seconds += time.perf_counter() - t0
        if recheck:
            # the master's bookkeeping pairs each column with the best edge found at d_t
            d = solution.distribution
            added, again = _unseen(state, [(c, max(true_edges[0], float(d @ c.column))) for c in recheck])
            repeated += again
            extra["recheck_edge"] = recheck[0].edge
            if added:
                pending = added if done else pending + added
                done = at_accuracy = False
        if repeated:
            extra["repeated_columns"] = repeated
        if k > 1:
            extra["new_columns"] = 0 if done else len(pending)
        return Pricing(edge, gap, done, pending, seconds, extra, at_accuracy)

    def record(self, rnd: int, solution: MasterSolution, pricing: Pricing) -> tuple[RoundRecord, bool]:
        """Write the round into the history and the state; the callback sees it (True: it stops the run)."""
        state, callback = self.state, self.options.callback
        record = RoundRecord(
            round=rnd, n_columns=state.n_columns, primal=solution.primal_objective,
            dual=solution.dual_objective, gap=pricing.gap, edge=pricing.edge,
            exact=bool(state.oracle.exact), master_seconds=solution.seconds,
            pricing_seconds=pricing.seconds, iterations=solution.iterations,
            status="converged" if pricing.done else (
                "max_rounds" if rnd == self.options.max_rounds else "added"),
            extra=pricing.extra,
        )
        state.history.append(record)
        # a round counts once it is recorded: an interrupt while pricing keeps the previous one
        state.best, state.best_columns = solution, state.n_columns
        weights = np.asarray(solution.weights, dtype=float)
        nonzero = np.flatnonzero(weights)
        state.weight_path.append((nonzero.astype(np.int32), weights[nonzero]))
        state.pending = [] if pricing.done else pricing.pending
        state.next_round = rnd + 1
        if callback is None:
            return record, False
        return record, bool(callback(record, state) if self.with_state else callback(record))

    def stop(self, rnd: int, record: RoundRecord, solution: MasterSolution, pricing: Pricing,
             stopped: bool) -> bool:
        """Does the run end after this round?  Converged, stopped by the callback, stalled or out of
        time (``status`` and ``message`` say which); a callback that added columns keeps it going."""
        state = self.state
        done = pricing.done
        if done and state.pending:  # the callback added columns: the run goes on
            done = False
            record.status = "added"
        if done:
            self.status = "converged"
            if pricing.at_accuracy:
                self.message = (f"converged to the accuracy of the master's solver: every column that improves "
                                f"the master by more than tol={state.tol:g} is already in it (the improvement "
                                "is round-off of its solve; a tol below the solver's accuracy, about 1e-9, "
                                "is not resolved)")
            return True
        if stopped:
            record.status = self.status = "stopped"
            return True
        if state.stall.stalled(float(solution.objective), state.best_bound):
            record.status = self.status = "stalled"
            self.message = self.advice("stalled", rnd)
            return True
        if self.deadline.expired():
            record.status = self.status = "time_limit"
            self.message = self.advice("time_limit", rnd)
            return True
        return False

    # -- how a run ends ---------------------------------------------------------------------------
    def interrupted(self) -> None:
        state, history = self.state, self.state.history
        self.status = "interrupted"
        self.message = "interrupted by the user; the result holds the last master solved"
        if history.records:
            history.records[-1].status = "interrupted"
        # columns added to the session after the last recorded round cannot be taken back:
        # such a run is not resumable
        if state.n_columns != state.best_columns:
            state.pending = []

    def failed(self, exc: BaseException) -> None:
        """A bug in an oracle or a callback, a solver that raised, memory: end the run with what was
        done and attach it to the exception (which goes on)."""
        state, history = self.state, self.state.history
        if history.records and history.records[-1].status in ("added", "max_rounds"):
            history.records[-1].status = "error"
        state.pending = []
        self.status = "error"
        self.message = (f"{type(exc).__name__} in round {state.next_round}: {exc}; "
                        "the result holds the last master solved")
        exc.result = self.result()  # type: ignore[attr-defined]
        if hasattr(exc, "add_note"):
            exc.add_note(f"lpboosting: the run so far ({len(history)} rounds) is in this exception's "
                         "`result` attribute")

    def result(self) -> ColumnGenerationResult:
        """The result of the run as it ended: the last verified master and the history."""
        state, history, status = self.state, self.state.history, self.status
        state.status = status
        history.meta["status"] = status
        earlier = 0.0 if self.fresh else history.meta.get("seconds", 0.0)  # a resumed run adds its time
        history.meta["seconds"] = earlier + time.perf_counter() - self.started
        best = state.best
        if best is None:
            n = state.n_rows
            return ColumnGenerationResult(
                objective=float("nan"), weights=np.empty(0), distribution=np.full(n, 1.0 / n),
                columns=np.empty((n, 0)), hypotheses=[], n_rounds=len(history), history=history,
                status=status, solution=None, gap=None, message=self.message or "no master was solved",
                state=state,
            )
        return ColumnGenerationResult(
            objective=best.objective, weights=best.weights, distribution=best.distribution,
            columns=snapshot(state.columns[:, :state.best_columns]),
            hypotheses=state.hypotheses[:state.best_columns], n_rounds=len(history), history=history,
            status=status, solution=best, gap=state.last_gap if status not in ("solver_error", "error") else None,
            message=self.message, edges=state.edges[:state.best_columns],
            weight_path=list(state.weight_path), state=state,
        )

    def advice(self, status: str, rounds: int) -> str:
        state = self.state
        return _advice(status, state.master, state.oracle, state.stab, state.k, rounds,
                       state.options.stall_rounds, state.tol, self.deadline.seconds, state.backend.name)

    # -- parts of the steps -----------------------------------------------------------------------
    def _checked(self, rnd: int, solution: MasterSolution) -> MasterSolution:
        master = self.state.master
        if solution.status is SolveStatus.INACCURATE:
            self.warn_once("inaccurate", f"round {rnd}: {solution.backend} reported its answer as "
                           "optimal_inaccurate; it is used only where it passes the master's check")
        checked, self.notes = verified(self.state, solution)
        if checked is None:
            self.message = (f"round {rnd}: the answer was rejected ({self.notes['rejected']}) and no "
                            f"fallback answered; kept the master of round {rnd - 1}")
            if not type(master).__module__.startswith("lpboosting."):
                self.message += (f" ({type(master).__name__} is not one of the library's masters: "
                                 "if its statement adds constraints, give it the read-back and the "
                                 "verify() that certify its own answers)")
            return solution
        if "rejected" in self.notes:
            self.warn_once("fallback", f"round {rnd}: the answer was rejected ({self.notes['rejected']}); "
                           f"{self.notes['fallback']} solved the round instead (recorded in the history)")
        checked.seconds += solution.seconds if checked is not solution else 0.0
        return checked

    def _failed_round(self, rnd: int, solution: MasterSolution, extra: dict[str, Any]) -> None:
        state = self.state
        state.history.append(RoundRecord(
            rnd, state.n_columns, None, None, None, None, bool(state.oracle.exact),
            solution.seconds, 0.0, solution.iterations, self.status, extra=extra))

    def _gap(self, solution: MasterSolution, edge: float, at_true: bool) -> tuple[float | None, bool]:
        """The round's gap (an exact oracle's only) and whether the master has converged."""
        state, master, exact, tol = self.state, self.state.master, self.state.oracle.exact, self.state.tol
        bounded = exact and np.isfinite(state.best_bound)
        if state.stab is None:
            at = state.best_bound if master.gap_at_best_bound and np.isfinite(state.best_bound) else edge
            return (master.gap(solution, at) if exact else None), master.converged(solution, edge, tol)
        gap = None
        if bounded:
            gap = master.gap(solution, state.best_bound)
        elif exact and at_true:
            gap = master.gap(solution, edge)
        done = (at_true and master.converged(solution, edge, tol)) or (
            bounded and master.converged(solution, state.best_bound, tol))
        return gap, done

    def _extra(self, rnd: int, solution: MasterSolution, priced_at: str) -> dict[str, Any]:
        """The round record's ``extra``: the session's, the verification's notes, and the loop's."""
        state, master = self.state, self.state.master
        extra = dict(solution.record)
        extra.update(self.notes)
        if solution.status is SolveStatus.INACCURATE:
            extra["solve_status"] = solution.status.value
        if state.stab is not None:
            extra["priced"] = priced_at
        if master.gap_at_best_bound and state.oracle.exact and np.isfinite(state.best_bound):
            extra["best_edge"] = state.best_bound  # the upper bound the gap is taken at
        # an early answer's primal and dual values differ by design: the round's gap holds it
        mismatch = duality_gap(solution) if solution.control.optimal else None
        if mismatch is not None:
            extra["duality_gap"] = mismatch
            self.warn_once("duality", (
                f"round {rnd}: the {master.name} master's primal value {solution.primal_objective:.10g} "
                f"and dual value {solution.dual_objective:.10g} differ by {mismatch:.2e} "
                f"({solution.backend}); its answer is not the optimum of the problem its "
                "read-back states (a constraint added to the statement, or an inaccurate "
                "solve): the gaps of this run do not certify it"))
        return extra


def _lagrangian_bound(master: Master, oracle: Oracle, solution: MasterSolution, edge: float) -> float | None:
    """The master's bound from the best edge at a point priced (only an exact oracle gives one)."""
    return master.bound(solution, edge) if oracle.exact else None


def _price(oracle: Oracle, master: Master, solution: MasterSolution, stab: Smoothing | None, k: int,
           tol: float) -> tuple[list[Candidate], list[float], str]:
    """The round's candidates, their edges at the master's dual d_t, and where the round priced.

    Without stabilisation: at d_t.  With it: at the smoothed point, whose
    candidates are kept if one improves the master at d_t; otherwise
    (mis-pricing) at d_t.  The stability centre moves with every point priced.
    """
    d = solution.distribution
    if stab is None:
        found = oracle.price_many(d, k)
        return found, [c.edge for c in found], "true"
    smoothed = stab.point(d)
    found = oracle.price_many(smoothed, k)
    stab.update(smoothed, _lagrangian_bound(master, oracle, solution, found[0].edge))
    if smoothed is d:  # no centre yet
        return found, [c.edge for c in found], "true"
    true_edges = edges_at(d, [c.column for c in found])
    if not all(master.converged(solution, e, tol) for e in true_edges):
        return found, true_edges, "smoothed"
    found = oracle.price_many(d, k)
    stab.update(d, _lagrangian_bound(master, oracle, solution, found[0].edge))
    return found, [c.edge for c in found], "true (mis-pricing)"


def _recheck(oracle: Oracle, master: Master, solution: MasterSolution, k: int, tol: float,
             found: list[np.ndarray]) -> list[Candidate]:
    """The columns an inexact oracle finds at the master's :meth:`~lpboosting.masters.Master.
    recheck_point` that improve its final weights and are not among ``found`` (the columns
    the round adds at d_t); empty when there is none, when the master has no such point, or
    when the oracle is exact (an exact oracle's stop is certified).
    """
    point = None if oracle.exact else master.recheck_point(solution)
    if point is None:
        return []
    return [c for c in oracle.price_many(point, k) if master.recheck_violated(solution, c.edge, tol)
            and not any(np.array_equal(c.column, u) for u in found)]


def column_key(column: Any) -> bytes:
    """A column known by its values (-0.0 as 0.0), whatever its dtype (int8 or float); a column
    kept elsewhere (:func:`lpboosting.columns.is_array`) by the key it carries."""
    if not is_array(column):
        return column.key
    return _digest(column)


def _unseen(state: RunState, pending: list[tuple[Candidate, float]]) -> tuple[list[tuple[Candidate, float]], int]:
    """The candidates whose column is neither in the master (:meth:`RunState.in_master`) nor equal to an
    earlier candidate of the list, and how many were left out.

    LP masters only: an entropy master takes a column it has again, since the
    column's edge at the distribution it was priced at is what its bounds
    (SoftBoost's gamma_hat, ERLPBoost's upper bound) are made of.
    """
    if state.master.kind != "lp":
        return pending, 0
    kept, keys = [], set()
    for candidate, edge in pending:
        key = column_key(candidate.column)
        if key not in keys and not state.in_master(key):
            keys.add(key)
            kept.append((candidate, edge))
    return kept, len(pending) - len(kept)


def _initial(initial: Any, d0: np.ndarray) -> list[tuple[Candidate, float]]:
    """The starting columns as (candidate, edge under the initial distribution)."""
    if isinstance(initial, ColumnGenerationResult):
        initial = [Candidate(h, u, float(d0 @ u)) for h, u in zip(initial.hypotheses, initial.columns.T)]
    out = []
    for candidate in initial:
        if not isinstance(candidate, Candidate):
            raise TypeError("initial_columns must be a ColumnGenerationResult or a list of Candidate "
                            f"(lpboosting.oracles.Candidate), got an element of type {type(candidate).__name__}")
        u = np.asarray(candidate.column, dtype=float)
        if u.shape != d0.shape:
            raise ValueError(f"an initial column has shape {u.shape}; the oracle's data has {d0.size} rows")
        out.append((Candidate(candidate.hypothesis, u, float(d0 @ u)), float(d0 @ u)))
    if not out:
        raise ValueError("initial_columns is empty; pass None to start from the first pricing")
    return out


def _advice(status: str, master: Master, oracle: Oracle, stab: Smoothing | None, k: int, rounds: int,
            stall_rounds: int | None, tol: float, time_limit: float | None, backend: str = "") -> str:
    """What happened, what was tried, and what to change, for a run that did not converge."""
    tried = [f"stabilization {stab.name if stab else 'off'}", f"{k} column(s) per round"]
    change = master.convergence_advice(bool(oracle.exact), stab is not None, k, backend)
    if change is None:  # the general remedies
        change = []
        if stab is None:
            change.append("stabilization='smoothing'")
        if k == 1 and oracle.exact:
            change.append("columns_per_round=10")
        if not oracle.exact:
            change.append("an exact oracle (stumps, features) or a stronger one")
    change = list(change)
    if status == "stalled":
        what = (f"no progress in {stall_rounds} rounds: neither the {master.name} master's objective "
                f"nor the best bound moved by more than tol={tol:g} (the master's duals are degenerate "
                "or the oracle cannot improve them)")
        change += ["a larger stall_rounds"]
    elif status == "time_limit":
        what = f"time_limit={time_limit:g} s reached after {rounds} rounds without converging"
        change += ["a larger time_limit"]
    else:
        what = f"stopped after max_rounds={rounds} rounds without converging"
        change += ["a larger max_rounds"]
    return f"{what}; tried: {', '.join(tried)}; try: {', '.join(change)}"
