"""The state one column-generation run keeps between its rounds (and between a stop and a resume)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpboosting.backends import Backend
from lpboosting.backends.base import ColumnStore
from lpboosting.colgen.history import History
from lpboosting.colgen.options import LoopOptions
from lpboosting.colgen.stabilization import Smoothing, make_stabilization
from lpboosting.masters.base import Master, MasterSolution
from lpboosting.oracles.base import Candidate, Oracle

__all__ = ["RunState", "Stall"]


class Stall:
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
    options: LoopOptions
    stall: Stall
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
            self.store = ColumnStore(self.n_rows, keep_data=True, identify=False)

    @property
    def n_rows(self) -> int:
        """The master's rows (its examples; (example, wrong class) pairs for a multiclass master):
        the length of d and of every column."""
        return self.master.n_rows(self.oracle.n_samples)

    @property
    def k(self) -> int:
        """Columns per round."""
        return int(self.options.columns_per_round)

    @property
    def tol(self) -> float:
        return float(self.options.tol)

    def restart(self, options: LoopOptions, **meta: Any) -> None:
        """Start a new run on the same session, columns and oracle (the nu path's next nu).

        What belongs to one run starts afresh: the history (its meta keeps
        the master, oracle and backend, updated by ``meta``), the weights
        path, the best master and bound, the stabilisation centre, the stall
        window and the round count.
        """
        self.history = History(meta={**self.history.meta, **meta})
        for key in ("status", "seconds", "initial_edge", "initial_pricing_seconds", "initial_columns"):
            self.history.meta.pop(key, None)
        self.weight_path, self.best, self.best_bound, self.last_gap = [], None, np.inf, None
        self.stab = make_stabilization(options.stabilization)
        self.stall = Stall(options.stall_rounds, options.tol)
        self.options, self.next_round, self.pending, self.status = options, 1, [], "added"

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
        if u.shape != (self.n_rows,) or not np.all(np.isfinite(u)):
            raise ValueError(f"a column must hold {self.n_rows} finite margins (one per row of the master), "
                             f"got shape {u.shape}")
        d = self.distribution if self.distribution is not None else self.master.initial_distribution(
            self.oracle.n_samples)
        edge = float(d @ u)
        self.pending.append((Candidate(hypothesis, u, edge), edge))
