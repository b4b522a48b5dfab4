"""The session contract, the column store, and the backend interface.

A *backend* is a named solver (``"highspy"``, ``"dedicated"``,
``"cvxpy:CLARABEL"``, ...) with its options.  It opens *sessions*: one per
run, holding the master's live model, taking one new column at a time and
re-solving.  Which session class a (backend, master) pair gets is written
once, in :data:`lpboosting.backends.table.SESSIONS`; a backend only says
which solvers of that table it runs, whether they are installed, and which
problem kinds they handle.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from lpboosting.backends import table
from lpboosting.errors import BackendCapabilityError
from lpboosting.masters.base import Master, MasterSolution


class MasterSession(ABC):
    """An open master problem that grows by one column at a time.

    ``add_column(u, edge)`` adds the margin column u (u_n = y_n h(x_n));
    ``edge`` is d_(t-1) . u, the edge under the distribution the column was
    priced at (the entropy masters need it).  ``solve()`` solves the master
    over the columns added so far and returns the master's read-back, a
    :class:`~lpboosting.masters.MasterSolution`.
    """

    backend_name: str = ""

    def __init__(self, n_samples: int) -> None:
        self.n_samples = int(n_samples)
        self.n_columns = 0

    @abstractmethod
    def add_column(self, column: np.ndarray, edge: float | None = None) -> None:
        """Add the margin column u (u_n = y_n h(x_n)); ``edge`` is d_{t-1}.u."""

    @abstractmethod
    def solve(self) -> MasterSolution:
        """Solve the master over the columns added so far."""


def check_column(column: Any, n_samples: int) -> np.ndarray:
    """A margin column as a float vector of length ``n_samples`` with finite entries."""
    u = np.asarray(column, dtype=float)
    if u.shape != (n_samples,):
        raise ValueError(f"a column must have shape ({n_samples},), got {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("a column contains NaN or inf; margins y_n h(x_n) must be finite")
    return u


def _digest(u: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(u, dtype=float).tobytes(), digest_size=16).digest()


class ColumnStore:
    """Every column a session was given, and which of them are still in the live master.

    Columns are numbered by the order of :meth:`add` (session index j) and
    kept in a matrix that grows by doubling.  ``active`` lists the session
    indices of the columns in the live master, in order; :meth:`remove`
    takes columns out of it (Algorithm 1 of RMBoost, Steps 14-16).  A column
    is removed at most once: a column equal to one removed before is kept
    for good (``removable`` is False for it), which bounds the removals by
    the size of a finite class and so keeps column generation finite.
    """

    def __init__(self, n_samples: int) -> None:
        self.data = np.empty((n_samples, 16))
        self.size = 0
        #: session indices of the columns in the live master
        self.active: list[int] = []
        #: session indices removed so far, in order of removal
        self.removed: list[int] = []
        #: per active column: may it be removed
        self.removable: list[bool] = []
        self._removed_keys: set[bytes] = set()

    def add(self, u: np.ndarray) -> int:
        """Store u as a new active column; returns its session index."""
        if self.size == self.data.shape[1]:
            grown = np.empty((self.data.shape[0], 2 * self.data.shape[1]))
            grown[:, :self.size] = self.data[:, :self.size]
            self.data = grown
        self.data[:, self.size] = u
        self.removable.append(not (self._removed_keys and _digest(u) in self._removed_keys))
        self.active.append(self.size)
        self.size += 1
        return self.size - 1

    def columns(self, index: np.ndarray) -> np.ndarray:
        """The stored columns with these session indices (N x len(index))."""
        return self.data[:, index]

    def active_columns(self) -> np.ndarray:
        return self.columns(np.asarray(self.active, dtype=int))

    def remove(self, positions: np.ndarray) -> None:
        """Take the active columns at these positions (in ``active``) out of the live master."""
        if not positions.size:
            return
        index = np.asarray(self.active, dtype=int)
        for j in index[positions]:
            self._removed_keys.add(_digest(self.data[:, j]))
        self.removed.extend(int(j) for j in index[positions])
        keep = np.ones(index.size, dtype=bool)
        keep[positions] = False
        self.active = [int(j) for j in index[keep]]
        self.removable = [r for r, k in zip(self.removable, keep) if k]


class ColumnStoreSession(MasterSession):
    """A session that keeps its columns in a :class:`ColumnStore`, for masters that remove columns.

    After each solve :meth:`finish` asks the master which active columns to
    remove (``master.removable(solution)``: a mask over the active columns,
    or None), never removes a column that came back after a removal, and
    expands ``weights`` (and ``info["dual_edges"]``, when present) to one
    entry per column ever added (0 and NaN for removed columns).
    """

    def __init__(self, master: Master, n_samples: int) -> None:
        super().__init__(n_samples)
        self.master = master
        self.store = ColumnStore(n_samples)

    @property
    def active(self) -> list[int]:
        """Session indices (order of ``add_column``) of the columns in the live master."""
        return self.store.active

    @property
    def removed(self) -> list[int]:
        """Session indices of the removed columns, in order of removal."""
        return self.store.removed

    def remember(self, u: np.ndarray) -> None:
        self.store.add(u)
        self.n_columns += 1

    def require_columns(self) -> None:
        if not self.store.active:
            raise ValueError(f"add at least one column before solving the {self.master.name} master")

    def finish(self, solution: MasterSolution) -> np.ndarray:
        """Expand the solution to every added column, then remove what the master removes.

        Returns the positions (in ``active`` before removal) of the removed columns.
        """
        mask = self.master.removable(solution)
        index = np.asarray(self.store.active, dtype=int)
        weights = np.zeros(self.n_columns)
        weights[index] = solution.weights
        solution.weights = weights
        if "dual_edges" in solution.info:
            edges = np.full(self.n_columns, np.nan)
            edges[index] = solution.info["dual_edges"]
            solution.info["dual_edges"] = edges
        solution.info["active_columns"] = index.copy()
        positions = np.empty(0, dtype=int)
        if mask is not None and index.size:
            positions = np.flatnonzero(mask & np.asarray(self.store.removable, dtype=bool))
        self.store.remove(positions)
        record = solution.info.setdefault("record", {})
        record["removed"] = int(positions.size)
        record["active"] = len(self.store.active)
        return positions


class Backend(ABC):
    """A solver for master problems, found by name in the registry.

    Attributes
    ----------
    name:
        Registry name, e.g. ``"highspy"`` or ``"cvxpy:CLARABEL"``.
    solvers:
        The solver keys of :data:`~lpboosting.backends.table.SESSIONS` this
        backend runs, tried in order (``"dedicated"`` runs ``"newton"`` and
        ``"minimax-simplex"``).
    incremental:
        True when a new column is added to a live model and re-solved from the
        previous basis; False when the problem is rebuilt every round.
    """

    name: str = ""
    solvers: tuple[str, ...] = ()
    incremental: bool = False

    def __init__(self, **options: Any) -> None:
        self.options = dict(options)

    @abstractmethod
    def is_available(self) -> bool:
        """True when the solver this backend needs is installed."""

    @abstractmethod
    def require(self) -> None:
        """Raise :class:`SolverNotInstalledError` (saying what to install) when unavailable."""

    def handles_kind(self, kind: str) -> bool:
        """Whether the solver handles problems of this kind at all (cvxpy solvers differ)."""
        return True

    def solves(self, master: "Master | type[Master]") -> bool:
        """True when the session table has a session of this backend for ``master``."""
        cls = master if isinstance(master, type) else type(master)
        return self.handles_kind(cls.kind) and table.find(self.solvers, cls) is not None

    @property
    def kinds(self) -> frozenset[str]:
        """The problem kinds of which this backend solves every registered master."""
        return table.kinds_of(self)

    def check_master(self, master: Master) -> None:
        """Raise :class:`BackendCapabilityError`, naming the backends that can, when it cannot."""
        if not self.solves(master):
            installed, missing = table.capable(master)
            kinds = sorted(self.kinds)
            why = (f"solves {kinds} problems but the {master.name} master is of kind {master.kind!r}"
                   if master.kind not in kinds else
                   f"has no session for the {master.name} master (lpboosting.backends.table.SESSIONS)")
            raise BackendCapabilityError(
                f"backend {self.name!r} {why}; installed backends that solve it: "
                f"{', '.join(installed) or 'none'}"
                + (f"; installable: {', '.join(missing)}" if missing else "")
                + " (see lpboosting.backends.available())"
            )

    def open(self, master: Master, n_samples: int) -> MasterSession:
        """Open a session of ``master`` over ``n_samples`` examples and no columns yet."""
        self.require()
        self.check_master(master)
        factory = table.session_factory(table.find(self.solvers, type(master)))
        return factory(master, n_samples, self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
