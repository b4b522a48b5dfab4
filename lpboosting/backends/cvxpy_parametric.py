"""The cvxpy backend's parametric session: a master's statement compiled once per capacity.

On a solver that takes a start from cvxpy, a master with a parametric statement
(:meth:`~lpboosting.masters.base.Master.cvxpy_parametric_statement`: LPBoost,
RMBoost) is stated once over a block of columns whose values are cvxpy
Parameters.  The problem is DPP (disciplined parametrized programming), so
cvxpy compiles it at its first solve and caches the map from the parameters
to the solver's data; every later solve puts the current columns into the
block (:meth:`~lpboosting.masters.base.Master.cvxpy_load`) and skips the
compilation.  The block starts with :data:`INITIAL_CAPACITY` columns and
doubles when the columns outgrow it (a new statement, compiled once): a run
of T rounds compiles about log2(T / 16) + 1 times instead of T times.  The
statement being the same object from solve to solve, the solve passes
``warm_start=True``: a solver cvxpy can start from its previous answer does
(see :meth:`~lpboosting.backends.cvxpy_backend.CvxpyBackend.solve_and_read`).

A master without a parametric statement of its own statement (a user's
master with only ``cvxpy_statement``, or a subclass that restates
``cvxpy_statement`` with a side constraint), and every master on a solver
that takes no start (the interior-point CLARABEL and ECOS), get the rebuild
session, :class:`~lpboosting.backends.cvxpy_backend.CvxpyRebuildSession`:
the choice is :func:`cvxpy_session`, the session table's entry for the
cvxpy backend.
"""

from __future__ import annotations

import time

from lpboosting.backends.base import ColumnStoreSession, check_column
from lpboosting.backends.cvxpy_backend import CvxpyBackend, CvxpyRebuildSession
from lpboosting.backends.solvers import records
from lpboosting.masters.base import CvxpyStatement, Master, MasterSolution

__all__ = ["INITIAL_CAPACITY", "CvxpyParametricSession", "capacity_for", "cvxpy_session",
           "has_parametric_statement", "takes_a_start"]

#: the columns of a parametric statement's first block (the column store's first size too)
INITIAL_CAPACITY = 16


def capacity_for(columns: int, capacity: int = 0) -> int:
    """The block that holds ``columns``: ``capacity`` (at least :data:`INITIAL_CAPACITY`),
    doubled until it does."""
    capacity = max(INITIAL_CAPACITY, capacity)
    while capacity < columns:
        capacity *= 2
    return capacity


def _owner(cls: type, attribute: str) -> type | None:
    """The class of ``cls``'s MRO that defines ``attribute``."""
    return next((c for c in cls.__mro__ if attribute in vars(c)), None)


def has_parametric_statement(master: Master) -> bool:
    """Whether the master's parametric statement is its statement: the class that defines
    ``cvxpy_parametric_statement`` (not the base's None) defines ``cvxpy_statement`` and
    ``cvxpy_solution`` too, or is a subclass of the classes that do.  A subclass that restates
    only ``cvxpy_statement`` (a side constraint) or its read-back is rebuilt instead."""
    cls = type(master)
    parametric = _owner(cls, "cvxpy_parametric_statement")
    if parametric is None or parametric is Master:
        return False
    return all(issubclass(parametric, _owner(cls, name) or object)
               for name in ("cvxpy_statement", "cvxpy_solution", "cvxpy_load"))


class CvxpyParametricSession(ColumnStoreSession):
    """Keeps the columns and one parametric statement; each solve loads the active columns into
    its block and solves it warm, building a statement of twice the capacity when they outgrow it.

    ``compilations`` counts the statements built (cvxpy compiles each at its
    first solve).  A master with a column pool has its inactive columns left
    out of later solves (the block holds the active ones, in order).
    """

    def __init__(self, master: Master, n_samples: int, backend: CvxpyBackend) -> None:
        super().__init__(master, n_samples)
        self.backend = backend
        self.backend_name = backend.name
        self.statement: CvxpyStatement | None = None
        self.compilations = 0

    def add_column(self, column, edge=None):
        self.remember(check_column(column, self.n_samples))

    def refresh_caps(self) -> None:
        """Nothing to do: :meth:`~lpboosting.masters.base.Master.cvxpy_load` puts the master's
        caps into the statement at every solve."""

    @property
    def capacity(self) -> int:
        """The columns the current statement holds (0 before the first solve)."""
        return 0 if self.statement is None else int(self.statement.capacity)

    def solve(self) -> MasterSolution:
        self.require_columns()
        start = time.perf_counter()
        U = self.store.active_columns()
        compiled = self.statement is None or U.shape[1] > self.capacity
        if compiled:
            self.statement = self.master.cvxpy_parametric_statement(
                self.n_samples, capacity_for(U.shape[1], self.capacity))
            self.compilations += 1
        self.master.cvxpy_load(self.statement, U)
        solution = self.backend.solve_and_read(self.master, self.statement, U, start,
                                               compiled=compiled, warm_start=True)
        if solution.ok:
            if self.pool is not None and solution.dual_edges is None:
                solution.dual_edges = solution.distribution @ U
            self.finish(solution)
        return solution


def takes_a_start(backend: CvxpyBackend) -> bool:
    """Whether the backend's solver gets a master's parametric statement compiled once and a start
    from its previous solution (its record's ``compiles_once``, :mod:`lpboosting.backends.solvers`:
    HIGHS, GUROBI)."""
    return any(record.compiles_once for record in records(backend.name))


def cvxpy_session(master: Master, n_samples: int, backend: CvxpyBackend) -> ColumnStoreSession:
    """The cvxpy backend's session of an LP master: parametric when the master has a parametric
    statement of its statement (:func:`has_parametric_statement`) and the solver takes a start
    (:func:`takes_a_start`), else rebuilt every solve.

    The block's unused columns are data for the solver: HiGHS drops their
    zeros and its presolve their rows, but an interior-point solver
    (CLARABEL, ECOS), which takes no start, factorises them every solve,
    which costs more than the compilation saves (measured: docs/user-guide.md,
    "Backends"), and SCS iterates over them (with a small ``max_iters`` it
    then reaches no answer where the rebuilt statement is answered
    inaccurately).  Those solvers keep the rebuilt statement.
    """
    if has_parametric_statement(master) and takes_a_start(backend):
        return CvxpyParametricSession(master, n_samples, backend)
    return CvxpyRebuildSession(master, n_samples, backend)
