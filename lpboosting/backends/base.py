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
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

from lpboosting.backends import table
from lpboosting.columns import compact, is_array
from lpboosting.errors import BackendCapabilityError
from lpboosting.masters.base import Master, MasterSolution, check_magnitude


class MasterSession(ABC):
    """An open master problem that grows by one column at a time.

    ``add_column(u, edge)`` adds the margin column u (u_n = y_n h(x_n));
    ``edge`` is d_(t-1) . u, the edge under the distribution the column was
    priced at (the entropy masters need it).  ``solve()`` solves the master
    over the columns added so far and returns the master's read-back, a
    :class:`~lpboosting.masters.MasterSolution`.

    A session is opened over the master's rows (``n_rows``, what d has one
    entry per and a column one margin per: :meth:`~lpboosting.masters.Master.n_rows`
    of the examples); ``n_samples`` is the same number, under its older name.
    """

    backend_name: str = ""

    def __init__(self, n_samples: int) -> None:
        self.n_samples = int(n_samples)
        self.n_columns = 0

    @property
    def n_rows(self) -> int:
        """The master's rows (one margin per row in every column; d has one entry per row)."""
        return self.n_samples

    @abstractmethod
    def add_column(self, column: np.ndarray, edge: float | None = None) -> None:
        """Add the margin column u (u_n = y_n h(x_n)); ``edge`` is d_{t-1}.u."""

    @abstractmethod
    def solve(self) -> MasterSolution:
        """Solve the master over the columns added so far."""

    def solve_round(self) -> MasterSolution:
        """A column-generation round's solve: :meth:`solve`, unless the session may answer
        earlier with a feasible primal-dual pair that is not yet the optimum (``control.optimal``
        False; LPBoost's sifting session).  The loop calls this, and :meth:`solve` before it
        ends a run converged on such an answer."""
        return self.solve()

    def time_limited(self, seconds: float) -> AbstractContextManager:
        """A context in which the session's solves stop after ``seconds`` more of its solver's time.

        For a live model whose solver keeps its own clock (HiGHS's, which
        counts every run of the model): the loop's clock is read only between
        rounds, and one long solve (a degenerate master) ran on past a run's
        time limit.  Other sessions: nothing (the loop's clock stops them)."""
        return nullcontext()

    def refresh_caps(self) -> None:
        """Take the master's caps again (its ``nu`` changed) and keep everything else.

        The warm step of a regularisation path: the caps are bounds on d, so
        a live model keeps its columns and its basis and the next solve goes
        on from there.  Sessions that cannot say so.
        """
        raise NotImplementedError(
            f"the {self.backend_name or type(self).__name__} session cannot change its master's caps in "
            "place; start a new run for the new nu (or use the highspy or cvxpy backends)")


def check_column(column: Any, n_samples: int) -> np.ndarray:
    """A margin column as a float vector of length ``n_samples`` with finite entries (a column kept
    elsewhere, :func:`lpboosting.columns.is_array`, as it is: its keeper checked it)."""
    if not is_array(column) and hasattr(column, "key"):
        if column.shape != (n_samples,):
            raise ValueError(f"a column must have shape ({n_samples},), got {column.shape}")
        return column
    u = np.asarray(column, dtype=float)
    if u.shape != (n_samples,):
        raise ValueError(f"a column must have shape ({n_samples},), got {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("a column contains NaN or inf; margins y_n h(x_n) must be finite")
    check_magnitude(float(np.max(np.abs(u))) if u.size else 0.0, "a column's")
    return u


def _digest(u: np.ndarray) -> bytes:
    """A column's key, a hash of its values (-0.0 as 0.0) whatever its dtype: of its int8 bytes when
    every value is a small integer (stumps, trees: a byte an example to hash, not eight)."""
    u = np.asarray(u)
    if u.dtype != np.int8:
        with np.errstate(invalid="ignore"):
            small = u.astype(np.int8)
        if np.array_equal(small, u):
            u = small
    if u.dtype == np.int8:
        return hashlib.blake2b(b"int8" + np.ascontiguousarray(u).tobytes(), digest_size=16).digest()
    return hashlib.blake2b((np.ascontiguousarray(u, dtype=float) + 0.0).tobytes(), digest_size=16).digest()


class ColumnStore:
    """Every column a session was given, and which of them are still in the live master.

    Columns are numbered by the order of :meth:`add` (session index j); with
    ``keep_data`` they are kept in a matrix (N x capacity, Fortran order)
    that grows by doubling (sessions that re-read the active columns need
    them): int8 while every column is -1/0/1 (stumps, trees), float64 from
    the first column that is not (:mod:`lpboosting.columns`).  ``active`` lists the
    session indices of the columns in the live master, in order; ``idle``
    counts, per active column, the consecutive solves it has been inactive;
    :meth:`remove` takes columns out.  With ``identify`` (a session with a
    column pool) a column is known by its values (a hash of them): one
    equal to a removed column *re-enters*, and one that has been removed
    ``max_removals`` times is kept for good (``removable`` is False for it),
    which bounds the removals by the size of a finite class and so keeps
    column generation finite (:mod:`lpboosting.masters.pool`).
    """

    def __init__(self, n_samples: int, keep_data: bool = True, max_removals: int = 1,
                 identify: bool = True) -> None:
        self.keep_data = keep_data
        self.identify = identify
        self.max_removals = max_removals
        self.data = np.empty((n_samples, 16 if keep_data else 0), dtype=np.int8, order="F")
        self.size = 0
        #: session indices of the columns in the live master
        self.active: list[int] = []
        #: session indices removed so far, in order of removal
        self.removed: list[int] = []
        #: per active column: may it be removed, and for how many solves it has been inactive
        self.removable: list[bool] = []
        self.idle: list[int] = []
        #: columns added again after a removal
        self.reentered = 0
        self._keys: list[bytes] = []
        self._removals: dict[bytes, int] = {}

    def add(self, u: np.ndarray) -> int:
        """Store u as a new active column; returns its session index.

        A column kept elsewhere (it has a ``key`` and makes the matrix of its kind,
        ``new_matrix()``) goes into such a matrix, known by its key."""
        if not is_array(u) and hasattr(u, "key"):
            if self.keep_data:
                if self.size == 0:
                    self.data = u.new_matrix()
                self.data.append(u)
            return self._added(u.key if self.identify else b"")
        if self.keep_data and not is_array(self.data):
            raise TypeError("this run's columns are kept elsewhere (on a Dask cluster); a column of values "
                            "cannot join them: add hypotheses through the run's oracle")
        if self.keep_data:
            u = compact(u)
            dtype = np.result_type(self.data.dtype, u.dtype)
            if self.size == self.data.shape[1] or dtype != self.data.dtype:
                width = 2 * self.data.shape[1] if self.size == self.data.shape[1] else self.data.shape[1]
                grown = np.empty((self.data.shape[0], width), dtype=dtype, order="F")
                grown[:, :self.size] = self.data[:, :self.size]
                self.data = grown
            self.data[:, self.size] = u
        # a column is known by its values only where it may be removed (a pool is on)
        return self._added(_digest(u) if self.identify else b"")

    def _added(self, key: bytes) -> int:
        removals = self._removals.get(key, 0) if self.identify else 0
        self.reentered += removals > 0
        self._keys.append(key)
        self.removable.append(removals < self.max_removals)
        self.idle.append(0)
        self.active.append(self.size)
        self.size += 1
        return self.size - 1

    def columns(self, index: np.ndarray) -> np.ndarray:
        """The stored columns with these session indices (N x len(index), float64)."""
        if not self.keep_data:
            raise RuntimeError("this column store keeps no column data")
        return self.data[:, index].astype(float)

    def active_columns(self) -> np.ndarray:
        return self.columns(np.asarray(self.active, dtype=int))

    def active_data(self) -> np.ndarray:
        """The active columns as stored (int8 when every column is +-1; no float64 copy)."""
        if not self.keep_data:
            raise RuntimeError("this column store keeps no column data")
        return self.data[:, np.asarray(self.active, dtype=np.intp)]

    def due(self, inactive: np.ndarray, inactive_rounds: int) -> np.ndarray:
        """Count this solve's inactive columns; positions (in ``active``) due for removal:
        inactive in ``inactive_rounds`` consecutive solves and still removable."""
        self.idle = [i + 1 if flag else 0 for i, flag in zip(self.idle, inactive)]
        return np.flatnonzero([i >= inactive_rounds and r for i, r in zip(self.idle, self.removable)])

    def remove(self, positions: np.ndarray) -> None:
        """Take the active columns at these positions (in ``active``) out of the live master."""
        if not positions.size:
            return
        index = np.asarray(self.active, dtype=int)
        for j in index[positions]:
            key = self._keys[j]
            self._removals[key] = self._removals.get(key, 0) + 1
        self.removed.extend(int(j) for j in index[positions])
        keep = np.ones(index.size, dtype=bool)
        keep[positions] = False
        self.active = [int(j) for j in index[keep]]
        self.removable = [r for r, k in zip(self.removable, keep) if k]
        self.idle = [i for i, k in zip(self.idle, keep) if k]


class ColumnStoreSession(MasterSession):
    """A session that keeps its columns in a :class:`ColumnStore`, for masters with a column pool.

    After each solve :meth:`finish` asks the master which active columns are
    inactive (``master.inactive(solution)``), and removes those that the
    master's pool (``master.pool``, a
    :class:`~lpboosting.masters.pool.ColumnPool`) says are due; it expands
    ``weights`` (and ``dual_edges``, when present) to one entry per
    column ever added (0 and NaN for removed columns).  A session removes
    the columns from its own live model with the positions :meth:`finish`
    returns.
    """

    def __init__(self, master: Master, n_samples: int, keep_data: bool = True) -> None:
        super().__init__(n_samples)
        self.master = master
        self.pool = master.pool
        self.store = ColumnStore(n_samples, keep_data, self.pool.max_removals if self.pool else 1,
                                 identify=self.pool is not None)

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
        """Expand the solution to every added column, then remove what the pool says is due.

        Returns the positions (in ``active`` before removal) of the removed columns.
        """
        mask = self.master.inactive(solution) if self.pool is not None else None
        index = np.asarray(self.store.active, dtype=int)
        weights = np.zeros(self.n_columns)
        weights[index] = solution.weights
        solution.weights = weights
        if solution.dual_edges is not None:
            edges = np.full(self.n_columns, np.nan)
            edges[index] = solution.dual_edges
            solution.dual_edges = edges
        solution.control.active_columns = index.copy()
        positions = np.empty(0, dtype=int)
        if mask is not None and index.size:
            positions = self.store.due(mask, self.pool.inactive_rounds)
        self.store.remove(positions)
        record = solution.record
        record["removed"] = int(positions.size)
        record["active"] = len(self.store.active)
        if self.pool is not None:
            record["reentered"] = self.store.reentered
        return positions


def with_time_limit(backend: "Backend", seconds: float | None) -> "Backend":
    """``backend`` with its solver's time limit set to ``seconds`` (a copy; the given object is left
    as it is), through the backend's ``time_limit_options`` (HiGHS's ``time_limit``, which counts
    every run of a session's model; the cvxpy solvers' options).  A backend without a limit of its
    own (the dedicated solvers, ECOS) comes back as it is: the loop's clock between rounds stops it."""
    import copy

    options = getattr(backend, "time_limit_options", None)
    if seconds is None or not callable(options):
        return backend
    extra = dict(options(seconds))
    if not extra:
        return backend
    limited = copy.copy(backend)
    limited.options = {**backend.options, **extra}
    return limited


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
    description:
        One line on what it is, for :func:`~lpboosting.backends.available` and
        ``lpboosting backends`` (default: the first line of the class's docstring).
    install:
        The command that installs its solver, for the same listings and for
        :class:`~lpboosting.errors.SolverNotInstalledError` messages (default:
        none is known; the library's own backends are listed in
        :func:`~lpboosting.backends.table.install_hint`).
    """

    name: str = ""
    solvers: tuple[str, ...] = ()
    incremental: bool = False
    description: str = ""
    install: str = ""

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
