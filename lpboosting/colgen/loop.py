"""The one column-generation loop every master and oracle runs in."""

from __future__ import annotations

import time
import warnings
from collections import deque
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np

from lpboosting.backends import Backend, get_backend
from lpboosting.backends.base import ColumnStore, _digest, with_time_limit
from lpboosting.colgen.history import History, RoundRecord
from lpboosting.colgen.stabilization import Smoothing, make_stabilization
from lpboosting.masters.base import Master, MasterSolution
from lpboosting.oracles.base import Candidate, Oracle
from lpboosting.provenance import versions
from lpboosting.status import SolveStatus


@dataclass
class ColumnGenerationResult:
    """What a run produced, also when it stopped early.

    ``weights``, ``distribution`` and ``objective`` come from the last master
    that was solved successfully; ``columns`` (N x T) and ``hypotheses`` are
    the T columns that master was solved over (``columns`` is int8 when every
    column is -1/0/1, as for stumps and trees; see :mod:`lpboosting.columns`).
    """

    objective: float
    weights: np.ndarray
    distribution: np.ndarray
    columns: np.ndarray
    hypotheses: list[Any]
    n_rounds: int
    history: History
    status: str
    solution: MasterSolution | None
    gap: float | None
    message: str = ""
    edges: list[float] = field(default_factory=list)
    #: per recorded round, the master's weights as (indices, values) of the nonzero ones
    weight_path: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    #: what ``column_generation(resume=...)`` needs to go on (None once saved or pickled)
    state: "RunState | None" = field(default=None, repr=False, compare=False)

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    def weights_at(self, round: int) -> np.ndarray:
        """The master's weights after ``round`` (1-based), one entry per column of that master."""
        if not 1 <= round <= len(self.weight_path):
            raise ValueError(f"round must be in 1..{len(self.weight_path)}, got {round!r}")
        index, values = self.weight_path[round - 1]
        n_columns = self.history[round - 1].n_columns
        out = np.zeros(n_columns)
        out[index] = values
        return out

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["state"] = None  # a live solver session does not pickle
        return state

    # -- serialisation -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The result as strict JSON data (NaN and +-inf as null).

        Holds the objective, status, message, gap, weights, distribution,
        the columns (N x T), their edges, the weights after each round, the
        history, and the hypotheses when they can be written (stumps, scaled
        features, trees; others are written as their repr and read back as
        None).  The live run (:attr:`state`) is not written.
        """
        from lpboosting.jsonfile import to_json_value
        from lpboosting.model_io import hypothesis_to_dict

        hypotheses = []
        for h in self.hypotheses:
            try:
                hypotheses.append(hypothesis_to_dict(h))
            except TypeError:
                hypotheses.append({"kind": "unsaved", "repr": repr(h)})
        columns = np.asarray(self.columns)
        return to_json_value({
            "format": "lpboosting-result", "format_version": 1,
            "objective": self.objective, "status": self.status, "message": self.message,
            "gap": self.gap, "n_rounds": self.n_rounds, "weights": self.weights,
            "distribution": self.distribution, "columns": columns, "columns_dtype": columns.dtype.str,
            "edges": self.edges, "hypotheses": hypotheses,
            "weight_path": [{"index": i, "value": v} for i, v in self.weight_path],
            "history": self.history.to_json(),
        })

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ColumnGenerationResult":
        """The inverse of :meth:`to_dict` (``solution`` and ``state`` are None)."""
        from lpboosting.model_io import hypothesis_from_dict

        if not isinstance(data, dict) or data.get("format") != "lpboosting-result":
            raise ValueError("not a saved column-generation result (its 'format' is not 'lpboosting-result')")
        history = History.from_json(data["history"])
        n = int(history.meta.get("n_samples", len(data["distribution"])))
        columns = np.asarray(data["columns"], dtype=np.dtype(data["columns_dtype"])).reshape(n, -1)
        hypotheses = [None if h.get("kind") == "unsaved" else hypothesis_from_dict(h) for h in data["hypotheses"]]

        def floats(values):
            return np.asarray([np.nan if v is None else v for v in values], dtype=float)

        return cls(
            objective=np.nan if data["objective"] is None else float(data["objective"]),
            weights=floats(data["weights"]), distribution=floats(data["distribution"]), columns=columns,
            hypotheses=hypotheses, n_rounds=int(data["n_rounds"]), history=history, status=data["status"],
            solution=None, gap=data["gap"], message=data["message"], edges=list(data["edges"]),
            weight_path=[(np.asarray(p["index"], dtype=np.int32), floats(p["value"]))
                         for p in data["weight_path"]],
        )

    def save(self, path: Any) -> None:
        """Write :meth:`to_dict` as a JSON file."""
        import json
        from pathlib import Path

        Path(path).write_text(json.dumps(self.to_dict(), allow_nan=False))

    @classmethod
    def load(cls, path: Any) -> "ColumnGenerationResult":
        """Read a result written by :meth:`save`."""
        import json
        from pathlib import Path

        try:
            data = json.loads(Path(path).read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not a JSON result file ({exc.msg} at line {exc.lineno})") from None
        return cls.from_dict(data)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _check_options(tol: float, max_rounds: int, columns_per_round: int, time_limit: float | None,
                   stall_rounds: int | None, callback: Any = None) -> None:
    for name, value, integer, optional in (("tol", tol, False, False), ("max_rounds", max_rounds, True, False),
                                            ("columns_per_round", columns_per_round, True, False),
                                            ("time_limit", time_limit, False, True),
                                            ("stall_rounds", stall_rounds, True, True)):
        if value is None and optional:
            continue
        if not (_is_int(value) if integer else _is_real(value)):
            kind = "an integer" if integer else "a number"
            raise TypeError(f"{name} must be {kind}{' or None' if optional else ''}, got {value!r} "
                            f"of type {type(value).__name__}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be a function callback(record) or callback(record, state), got "
                        f"{type(callback).__name__}")
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    if int(max_rounds) != max_rounds or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}")
    if int(columns_per_round) != columns_per_round or columns_per_round < 1:
        raise ValueError(f"columns_per_round must be a positive integer, got {columns_per_round!r}")
    if time_limit is not None and not (time_limit > 0):
        raise ValueError(f"time_limit must be a number of seconds > 0 or None, got {time_limit!r}")
    if stall_rounds is not None and (int(stall_rounds) != stall_rounds or stall_rounds < 1):
        raise ValueError(f"stall_rounds must be a positive integer or None, got {stall_rounds!r}")


class _Stall:
    """Did neither the master's objective nor the best bound move by more than ``tol`` in K rounds?"""

    def __init__(self, rounds: int | None, tol: float) -> None:
        self.rounds, self.tol = rounds, tol
        # the last K + 1 rounds' (objective, best bound)
        self.values: deque[tuple[float, float]] = deque(maxlen=(rounds or 0) + 1)

    def stalled(self, objective: float, bound: float) -> bool:
        if self.rounds is None:
            return False
        self.values.append((objective, bound))
        if len(self.values) <= self.rounds:
            return False
        old_objective, old_bound = self.values[0]
        moved = abs(objective - old_objective) > self.tol or (
            np.isfinite(old_bound) and old_bound - bound > self.tol)
        return not moved


@dataclass
class RunState:
    """Everything a run needs to go on where it stopped (see ``column_generation(resume=...)``).

    Held by :attr:`ColumnGenerationResult.state`: the live session (its
    solver model and basis), the oracle, the stabilisation centre, the
    columns priced but not yet added, and the records so far, so that a
    resumed run takes exactly the rounds an uninterrupted one would have.
    It is not meant to be pickled (a live solver model is not); a result
    read back from disk has ``state = None``.
    """

    master: Master
    oracle: Oracle
    backend: Backend
    session: Any
    stab: Smoothing | None
    k: int
    tol: float
    stall: "_Stall"
    history: History
    pending: list[tuple[Candidate, float]] = field(default_factory=list)
    #: every column added, in order (int8 while they are -1/0/1): what answers are verified against
    store: ColumnStore | None = None
    hypotheses: list[Any] = field(default_factory=list)
    edges: list[float] = field(default_factory=list)
    #: per recorded round, the master's weights as (indices, values) of the nonzero ones
    weight_path: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    best: MasterSolution | None = None
    best_columns: int = 0
    best_bound: float = np.inf
    last_gap: float | None = None
    next_round: int = 1
    status: str = "max_rounds"
    #: the store indices of the columns added, by their values (:func:`column_key`)
    keys: dict[bytes, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.store is None:
            self.store = ColumnStore(self.oracle.n_samples, keep_data=True, identify=False)

    def in_master(self, key: bytes) -> bool:
        """Is a column of these values (:func:`column_key`) in the master the next solve is over?

        Every column added is, unless the master's column pool removed it (a
        removed column may be added again: it re-enters).
        """
        added = self.keys.get(key)
        if not added:
            return False
        if self.master.pool is None:
            return True
        session = self.session
        while session is not None:  # a wrapping session (RecordingSession) holds the live one
            live = getattr(session, "active", None)
            if live is not None:
                return not set(added).isdisjoint(live)
            session = getattr(session, "inner", None)
        return False  # the session does not say which columns it removed: a column may re-enter

    @property
    def n_columns(self) -> int:
        """The columns added to the master so far."""
        return self.store.size

    @property
    def columns(self) -> np.ndarray:
        """The columns added so far (N x t, a view)."""
        return self.store.data[:, :self.store.size]

    @property
    def resumable(self) -> bool:
        """True when the run stopped before converging and kept something to go on with."""
        return self.status not in ("converged", "solver_error") and bool(self.pending)

    # -- what a callback ``callback(record, state)`` sees and may do --------------------------
    @property
    def solution(self) -> MasterSolution | None:
        """The master solved this round (d, w, rho, psi, ...)."""
        return self.best

    @property
    def distribution(self) -> np.ndarray | None:
        """d of this round's master (what the oracle priced)."""
        return None if self.best is None else self.best.distribution

    @property
    def weights(self) -> np.ndarray | None:
        """w of this round's master, one entry per column added so far."""
        return None if self.best is None else self.best.weights

    @property
    def candidates(self) -> list[Candidate]:
        """The columns the oracle found this round, to be added before the next solve."""
        return [c for c, _ in self.pending]

    def add_column(self, column: Any, hypothesis: Any = None) -> None:
        """Add a column of your own (u_n = y_n h(x_n)) before the next solve, with the oracle's."""
        u = np.asarray(column, dtype=float).ravel()
        if u.shape != (self.oracle.n_samples,) or not np.all(np.isfinite(u)):
            raise ValueError(f"a column must hold {self.oracle.n_samples} finite margins, got shape {u.shape}")
        d = self.distribution if self.distribution is not None else self.master.initial_distribution(u.size)
        edge = float(d @ u)
        self.pending.append((Candidate(hypothesis, u, edge), edge))


def column_generation(
    master: Master,
    oracle: Oracle,
    *,
    backend: "str | Backend | None" = None,
    tol: float = 1e-6,
    max_rounds: int = 1000,
    callback: Callable[[RoundRecord], Any] | None = None,
    columns_per_round: int = 1,
    stabilization: "str | Smoothing | None" = None,
    time_limit: float | None = None,
    stall_rounds: int | None = None,
    initial_columns: "ColumnGenerationResult | Sequence[Candidate] | None" = None,
    resume: "RunState | ColumnGenerationResult | None" = None,
    n_samples: int | None = None,
) -> ColumnGenerationResult:
    """Run column generation of ``master`` with pricing ``oracle``.

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
    """
    _check_options(tol, max_rounds, columns_per_round, time_limit, stall_rounds, callback)
    check_master(master)
    oracle = as_oracle(oracle, master, n_samples)
    if resume is not None:
        state = _resumed(resume, master, oracle, initial_columns)
        state.tol = tol
    else:
        state = _start(master, oracle, backend, tol, columns_per_round, stabilization, time_limit,
                       stall_rounds)
    return _run(state, int(max_rounds), callback, time_limit, stall_rounds, initial_columns,
                fresh=resume is None)


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


#: the least time limit handed to a solver (the loop's own clock, checked after each round, stops
#: a run at its time_limit; the solver's stops one long solve)
SOLVER_TIME_FLOOR = 1.0

#: primal and dual values of a master answer may differ by this much (relative to 1 + |dual|)
DUALITY_TOL = 1e-6


def _duality_gap(solution: MasterSolution) -> float | None:
    """|primal - dual| of a master answer when it is larger than :data:`DUALITY_TOL` allows."""
    primal, dual = solution.primal_objective, solution.dual_objective
    if primal is None or dual is None or not (np.isfinite(primal) and np.isfinite(dual)):
        return None
    gap = abs(float(primal) - float(dual))
    return gap if gap > DUALITY_TOL * (1.0 + abs(float(dual))) else None


def _start(master, oracle, backend, tol, columns_per_round, stabilization, time_limit,
           stall_rounds) -> RunState:
    stab = make_stabilization(stabilization)
    k = int(columns_per_round)
    backend = get_backend(master.default_backend if backend is None else backend)
    # the solver's own limit too (HiGHS, the cvxpy solvers), so that one long solve stops in time;
    # at least SOLVER_TIME_FLOOR seconds, so that the first round (a small master) always completes
    if time_limit is not None:
        backend = with_time_limit(backend, max(float(time_limit), SOLVER_TIME_FLOOR))
    session = backend.open(master, oracle.n_samples)
    history = History(meta={
        "master": master.name, "params": master.params(), "oracle": oracle.name,
        "exact": bool(oracle.exact), "backend": backend.name, "tol": tol,
        "n_samples": oracle.n_samples, "versions": versions(),
    })
    if master.weighted:
        history.meta["weighted"] = True
    options = {"columns_per_round": k if k > 1 else None, "stabilization": stab.name if stab else None,
               "time_limit": time_limit, "stall_rounds": stall_rounds}
    history.meta.update({key: value for key, value in options.items() if value is not None})
    return RunState(master=master, oracle=oracle, backend=backend, session=session, stab=stab, k=k,
                    tol=tol, stall=_Stall(stall_rounds, tol), history=history)


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


#: backends that re-solve a rejected answer, by master kind, in order (the one that failed is
#: skipped; a backend that is not installed is skipped too).  The entropy masters have none: their
#: projections are verified, with a conic fallback, by the dedicated solver itself.
FALLBACKS: dict[str, tuple[str, ...]] = {"lp": ("highspy", "highspy:rows", "cvxpy:CLARABEL", "cvxpy:ECOS")}


def _fallback_chain(master: Master, failed: str) -> list[str]:
    """The backends that may re-solve a rejected answer of ``master`` (after ``failed``).

    A master defined outside the library (a subclass that may change its
    statement) is re-solved through its cvxpy statement only: the other
    sessions solve the library's own formulation, which would be another problem.
    """
    if master.kind != "lp":
        return []
    chain = ["highspy:ipm", "highspy", "cvxpy:CLARABEL"] if master.name == "RMBoost" else list(FALLBACKS["lp"])
    if not type(master).__module__.startswith("lpboosting."):
        chain = [name for name in chain if name.startswith("cvxpy:")]
    # a fresh model of the failed backend comes first for the default HiGHS (the live one may have
    # drifted); other backends are not asked twice
    return [name for name in chain if (name != failed or name == "highspy") and get_backend(name).is_available()]


def _resolve(master: Master, U: np.ndarray, active: np.ndarray | None, name: str) -> MasterSolution | None:
    """The restricted master over the active columns solved afresh by backend ``name`` (None if it fails)."""
    from lpboosting.colgen.solve import solve_master
    from lpboosting.errors import SolverError

    columns = np.arange(U.shape[1]) if active is None else np.asarray(active, dtype=np.intp)
    try:
        solution = solve_master(master, np.asarray(U[:, columns], dtype=float), backend=name)
    except (SolverError, ValueError, ArithmeticError) as exc:
        solution = MasterSolution.failed(U.shape[0], SolveStatus.ERROR, str(exc))
    if not solution.ok:
        return None
    weights = np.zeros(U.shape[1])
    weights[columns] = solution.weights
    solution.weights = weights
    if "dual_edges" in solution.info:
        edges = np.full(U.shape[1], np.nan)
        edges[columns] = solution.info["dual_edges"]
        solution.info["dual_edges"] = edges
    solution.info["active_columns"] = columns
    return solution


def _verified(state: RunState, solution: MasterSolution) -> tuple[MasterSolution | None, dict[str, Any]]:
    """The round's answer if the master verifies it, else a fallback's verified answer, else None;
    and what to record (``rejected``: why; ``fallback``: the backend that answered instead)."""
    master, U = state.master, state.columns
    active = solution.info.get("active_columns")
    problem = master.verify(solution, U, active)
    if not problem:
        return solution, {}
    notes: dict[str, Any] = {"rejected": f"{solution.backend}: {problem}"}
    for name in _fallback_chain(master, solution.backend):
        alternative = _resolve(master, U, active, name)
        if alternative is None:
            continue
        if not master.verify(alternative, U, alternative.info.get("active_columns")):
            alternative.info.setdefault("record", {}).update(solution.info.get("record", {}))
            notes["fallback"] = name
            return alternative, notes
    return None, notes


def _run(state: RunState, max_rounds: int, callback: Any, time_limit: float | None,
         stall_rounds: int | None, initial_columns: Any, fresh: bool) -> ColumnGenerationResult:
    master, oracle, session, stab, k, tol = (state.master, state.oracle, state.session, state.stab,
                                             state.k, state.tol)
    history = state.history
    status, message = "max_rounds", ""
    with_state = callback is not None and callback_arity(callback) == 2
    warned: set[str] = set()

    def warn_once(kind: str, text: str) -> None:
        if kind not in warned:
            warned.add(kind)
            warnings.warn(text, RuntimeWarning, stacklevel=4)

    start = time.perf_counter()
    if not fresh and history.records and history.records[-1].status in (
            "max_rounds", "time_limit", "stalled", "stopped", "interrupted"):
        history.records[-1].status = "added"  # the run goes on from here
    try:
        if fresh:
            t0 = time.perf_counter()
            d0 = master.initial_distribution(oracle.n_samples)
            if initial_columns is None:
                state.pending = [(c, c.edge) for c in oracle.price_many(d0, k)]
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
        for rnd in range(state.next_round, max_rounds + 1):
            state.next_round = rnd
            for candidate, edge in state.pending:
                session.add_column(candidate.column, edge)
                index = state.store.add(candidate.column)
                state.keys.setdefault(column_key(candidate.column), []).append(index)
                state.hypotheses.append(candidate.hypothesis)
                state.edges.append(candidate.edge)
            state.pending = []
            solution = session.solve()
            notes: dict[str, Any] = {}
            if solution.ok:
                if solution.status is SolveStatus.INACCURATE:
                    warn_once("inaccurate", f"round {rnd}: {solution.backend} reported its answer as "
                              "optimal_inaccurate; it is used only where it passes the master's check")
                checked, notes = _verified(state, solution)
                if checked is None:
                    message = (f"round {rnd}: the answer was rejected ({notes['rejected']}) and no "
                               f"fallback answered; kept the master of round {rnd - 1}")
                    if not type(master).__module__.startswith("lpboosting."):
                        message += (f" ({type(master).__name__} is not one of the library's masters: "
                                    "if its statement adds constraints, give it the read-back and the "
                                    "verify() that certify its own answers)")
                else:
                    if "rejected" in notes:
                        warn_once("fallback", f"round {rnd}: the answer was rejected ({notes['rejected']}); "
                                  f"{notes['fallback']} solved the round instead (recorded in the history)")
                    checked.seconds += solution.seconds if checked is not solution else 0.0
                    solution = checked
            else:
                message = (f"round {rnd}: {solution.backend} returned {solution.status.value} "
                           f"({solution.info.get('message', '')}); kept the master of round {rnd - 1}")
            if solution.status is SolveStatus.TIME_LIMIT:  # the solver's own clock: keep the last round
                status = "time_limit"
                message = (f"round {rnd}: {solution.backend} stopped at its time limit "
                           f"({solution.info.get('message', '')}); kept the master of round {rnd - 1}")
                if time_limit is not None:
                    message += "; " + _advice("time_limit", master, oracle, stab, k, rnd - 1, stall_rounds,
                                              tol, time_limit)
                history.append(RoundRecord(
                    rnd, state.n_columns, None, None, None, None, bool(oracle.exact),
                    solution.seconds, 0.0, solution.iterations, status))
                break
            if not solution.ok or (notes and "fallback" not in notes):
                status = "solver_error"
                history.append(RoundRecord(
                    rnd, state.n_columns, None, None, None, None, bool(oracle.exact),
                    solution.seconds, 0.0, solution.iterations, status, extra=dict(notes)))
                break
            t0 = time.perf_counter()
            found, true_edges, priced_at = _price(oracle, master, solution, stab, k, tol)
            pricing = time.perf_counter() - t0
            edge = found[0].edge  # the best edge at the point priced
            bound = _lagrangian_bound(master, oracle, solution, edge)
            if bound is not None:
                state.best_bound = min(state.best_bound, bound)
            at_true = priced_at != "smoothed"
            if stab is None:
                at = (state.best_bound if master.gap_at_best_bound and np.isfinite(state.best_bound)
                      else edge)
                gap = master.gap(solution, at) if oracle.exact else None
                done = master.converged(solution, edge, tol)
            else:
                gap = None
                if oracle.exact and np.isfinite(state.best_bound):
                    gap = master.gap(solution, state.best_bound)
                elif oracle.exact and at_true:
                    gap = master.gap(solution, edge)
                done = (at_true and master.converged(solution, edge, tol)) or (
                    oracle.exact and np.isfinite(state.best_bound)
                    and master.converged(solution, state.best_bound, tol))
            state.last_gap = gap
            extra = dict(solution.info.get("record", {}))
            extra.update(notes)
            if solution.status is SolveStatus.INACCURATE:
                extra["solve_status"] = solution.status.value
            if stab is not None:
                extra["priced"] = priced_at
            if master.gap_at_best_bound and oracle.exact and np.isfinite(state.best_bound):
                extra["best_edge"] = state.best_bound  # the upper bound the gap is taken at
            mismatch = _duality_gap(solution)
            if mismatch is not None:
                extra["duality_gap"] = mismatch
                warn_once("duality", (
                    f"round {rnd}: the {master.name} master's primal value {solution.primal_objective:.10g} "
                    f"and dual value {solution.dual_objective:.10g} differ by {mismatch:.2e} "
                    f"({solution.backend}); its answer is not the optimum of the problem its "
                    "read-back states (a constraint added to the statement, or an inaccurate "
                    "solve): the gaps of this run do not certify it"))
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
            adding = [] if done else [c.column for c, _ in pending]
            recheck = _recheck(oracle, master, solution, k, tol, adding)
            pricing += time.perf_counter() - t0
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
            record = RoundRecord(
                round=rnd, n_columns=state.n_columns, primal=solution.primal_objective,
                dual=solution.dual_objective, gap=gap, edge=edge,
                exact=bool(oracle.exact), master_seconds=solution.seconds,
                pricing_seconds=pricing, iterations=solution.iterations,
                status="converged" if done else ("max_rounds" if rnd == max_rounds else "added"),
                extra=extra,
            )
            history.append(record)
            # a round counts once it is recorded: an interrupt while pricing keeps the previous one
            state.best, state.best_columns = solution, state.n_columns
            weights = np.asarray(solution.weights, dtype=float)
            nonzero = np.flatnonzero(weights)
            state.weight_path.append((nonzero.astype(np.int32), weights[nonzero]))
            state.pending = [] if done else pending
            state.next_round = rnd + 1
            if callback is None:
                stop = False
            else:
                stop = callback(record, state) if with_state else callback(record)
            if done and state.pending:  # the callback added columns: the run goes on
                done = False
                record.status = "added"
            if done:
                status = "converged"
                if at_accuracy:
                    message = (f"converged to the accuracy of the master's solver: every column that improves "
                               f"the master by more than tol={tol:g} is already in it (the improvement is "
                               "round-off of its solve; a tol below the solver's accuracy, about 1e-9, "
                               "is not resolved)")
                break
            if stop:
                record.status = status = "stopped"
                break
            if state.stall.stalled(float(solution.objective), state.best_bound):
                record.status = status = "stalled"
                message = _advice("stalled", master, oracle, stab, k, rnd, stall_rounds, tol, time_limit)
                break
            if time_limit is not None and time.perf_counter() - start >= time_limit:
                record.status = status = "time_limit"
                message = _advice("time_limit", master, oracle, stab, k, rnd, stall_rounds, tol, time_limit)
                break
    except KeyboardInterrupt:
        status = "interrupted"
        message = "interrupted by the user; the result holds the last master solved"
        if history.records:
            history.records[-1].status = "interrupted"
        # columns added to the session after the last recorded round cannot be taken back:
        # such a run is not resumable
        if state.n_columns != state.best_columns:
            state.pending = []
    except Exception as exc:
        # a bug in an oracle or a callback, a solver that raised, memory: end the run with what
        # was done, attach it to the exception, and let the exception go on
        if history.records and history.records[-1].status in ("added", "max_rounds"):
            history.records[-1].status = "error"
        state.pending = []
        result = _result(state, "error", f"{type(exc).__name__} in round {state.next_round}: {exc}; "
                         "the result holds the last master solved", time.perf_counter() - start, fresh)
        exc.result = result  # type: ignore[attr-defined]
        if hasattr(exc, "add_note"):
            exc.add_note(f"lpboosting: the run so far ({len(history)} rounds) is in this exception's "
                         "`result` attribute")
        raise
    if status == "max_rounds":
        message = _advice("max_rounds", master, oracle, stab, k, len(history), stall_rounds, tol, time_limit)
    return _result(state, status, message, time.perf_counter() - start, fresh)


def _result(state: RunState, status: str, message: str, seconds: float, fresh: bool) -> ColumnGenerationResult:
    """The result of a run that ended with ``status``: the last verified master and the history."""
    history, oracle = state.history, state.oracle
    state.status = status
    history.meta["status"] = status
    earlier = 0.0 if fresh else history.meta.get("seconds", 0.0)  # a resumed run adds its time
    history.meta["seconds"] = earlier + seconds
    best = state.best
    if best is None:
        n = oracle.n_samples
        return ColumnGenerationResult(
            objective=float("nan"), weights=np.empty(0), distribution=np.full(n, 1.0 / n),
            columns=np.empty((n, 0)), hypotheses=[], n_rounds=len(history), history=history,
            status=status, solution=None, gap=None, message=message or "no master was solved",
            state=state,
        )
    return ColumnGenerationResult(
        objective=best.objective,
        weights=best.weights,
        distribution=best.distribution,
        columns=np.array(state.columns[:, :state.best_columns], order="F"),
        hypotheses=state.hypotheses[:state.best_columns],
        n_rounds=len(history),
        history=history,
        status=status,
        solution=best,
        gap=state.last_gap if status not in ("solver_error", "error") else None,
        message=message,
        edges=state.edges[:state.best_columns],
        weight_path=list(state.weight_path),
        state=state,
    )


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
    true_edges = [float(d @ c.column) for c in found]
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
    """A column known by its values (-0.0 as 0.0), whatever its dtype (int8 or float)."""
    return _digest(np.asarray(column, dtype=float) + 0.0)


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
            stall_rounds: int | None, tol: float, time_limit: float | None) -> str:
    """What happened, what was tried, and what to change, for a run that did not converge."""
    tried = [f"stabilization {stab.name if stab else 'off'}", f"{k} column(s) per round"]
    change = []
    if stab is None:
        change.append("stabilization='smoothing'")
    if k == 1 and oracle.exact:
        change.append("columns_per_round=10")
    if not oracle.exact:
        change.append("an exact oracle (stumps, features) or a stronger one")
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
