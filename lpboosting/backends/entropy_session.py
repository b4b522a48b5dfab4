"""The session of the relative-entropy masters: the LP over the chosen columns plus one projection.

Each round (see :mod:`lpboosting.masters.entropy`):

1. the LPBoost LP over the chosen columns, in one live HiGHS model (highspy's
   LPBoost session, :class:`~lpboosting.backends.highs.sifting.HighsSiftingLP`), gives gamma*_t
   and the final weights w (the master's sample weights are the LP's too:
   :meth:`~lpboosting.masters.entropy.EntropyMaster.lp_master`); without highspy, the first
   installed backend of the LP master's fallbacks
   (:func:`~lpboosting.backends.fallback.backend_for`) solves it;
2. the master decides from it what the projection needs, or that the run
   stops (:meth:`~lpboosting.masters.entropy.EntropyMaster.round_state`);
3. a *projector* solves the projection — the dedicated Newton solver
   (:mod:`lpboosting.backends.dedicated.newton_projection`, with its conic
   fallback) or a conic solver through cvxpy
   (:meth:`lpboosting.backends.cvxpy_backend.CvxpyBackend.project`) — and
   the master records the round (:meth:`~lpboosting.masters.entropy.EntropyMaster.finish`).

Which projector a backend uses is the session table's choice
(:data:`lpboosting.backends.table.SESSIONS`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from lpboosting.backends.base import Backend, MasterSession
from lpboosting.backends.fallback import backend_for
from lpboosting.backends.registry import get_backend
from lpboosting.masters.base import MasterSolution, SolveControl
from lpboosting.masters.capped_simplex import relative_entropy
from lpboosting.masters.entropy import EntropyMaster, ProjectionResult
from lpboosting.status import SolveStatus

#: projector(master, U, state, warm multipliers or None) -> ProjectionResult
Projector = Callable[[EntropyMaster, np.ndarray, dict[str, Any], "np.ndarray | None"], ProjectionResult]


class EntropySession(MasterSession):
    """LP over the chosen columns (HiGHS, incremental, by default) plus one projection per round."""

    def __init__(self, master: EntropyMaster, n_samples: int, backend: Backend,
                 projector: Projector) -> None:
        super().__init__(n_samples)
        self.master = master
        self.backend = backend
        self.backend_name = backend.name
        self.projector = projector
        # the LP's backend by the fallback policy: highspy, else another installed LP backend
        self._lp_backend = get_backend(backend_for(master.lp_master(self.n_samples)))
        self._lp: MasterSession | None = None
        # the columns side by side, N x capacity in Fortran order, grown by doubling: U is a view
        # of the first n_columns (no N x T copy a round), and U.T is C-contiguous for the projection
        self._block = np.empty((self.n_samples, 0), order="F")
        #: per column, the best edge of the pricing that found it, max_h d_(q-1) . u_h (the
        #: columns of one round share it): an upper bound on the LP's value (with an exact oracle),
        #: which the masters' stopping rules take the smallest of
        self.edges: list[float] = []
        self.entropies: list[float] = []  # Delta(d) at each column's pricing (a round may add several)
        self._round_columns = 0  # columns added since the last solve: one pricing
        self.entropy = 0.0  # Delta(d) of the last distribution; d_0 = the prior
        self.multipliers: np.ndarray | None = None

    @property
    def lp(self) -> MasterSession:
        """The live LPBoost LP over the chosen columns (built with the first column)."""
        if self._lp is None:
            self._lp = self._lp_backend.open(self.master.lp_master(self.n_samples), self.n_samples)
        return self._lp

    def add_column(self, column, edge=None):
        u = np.asarray(column, dtype=float)
        if edge is None:
            raise ValueError(f"{self.master.name} needs the edge d_(t-1).u of every new column")
        self.lp.add_column(u)
        if self.n_columns == self._block.shape[1]:
            grown = np.empty((self.n_samples, max(16, 2 * self.n_columns)), order="F")
            grown[:, :self.n_columns] = self._block[:, :self.n_columns]
            self._block = grown
        self._block[:, self.n_columns] = u
        self.edges.append(float(edge))
        self._round_columns += 1
        if self._round_columns > 1:  # the round's other columns: its best edge is the bound
            round_edges = self.edges[-self._round_columns:]
            self.edges[-self._round_columns:] = [max(round_edges)] * self._round_columns
        self.entropies.append(self.entropy)
        self.n_columns += 1

    @property
    def columns(self) -> np.ndarray:
        """The columns added so far, N x T (a view of the session's block, Fortran order)."""
        return self._block[:, :self.n_columns]

    def _project(self, U: np.ndarray, state: dict[str, Any]) -> ProjectionResult:
        warm = None
        if self.multipliers is not None:
            warm = np.concatenate([self.multipliers, np.zeros(U.shape[1] - self.multipliers.size)])
        return self.projector(self.master, U, state, warm)

    def solve(self) -> MasterSolution:
        start = time.perf_counter()
        self._round_columns = 0
        lp = self.lp.solve()
        if not lp.ok:
            lp.backend = self.backend_name
            return lp
        U = self.columns
        state = self.master.round_state(self, lp)
        projection = None if state.get("stop") else self._project(U, state)
        record = self.master.finish(self, lp, state, projection)
        stop = bool(record.pop("stop", False))
        if projection is not None and not projection.status.ok and not stop:
            sol = MasterSolution.failed(self.n_samples, SolveStatus.ERROR,
                                        projection.message or f"projection {projection.status.value}")
            sol.backend = self.backend_name
            sol.seconds = time.perf_counter() - start
            return sol
        if stop or projection is None:
            d = lp.distribution  # the LP's distribution: still a valid point for pricing and the gap
            primal = dual = np.nan
            iters = lp.iterations
            solver = "lp"
        else:
            d = projection.distribution
            primal, dual = projection.objective, projection.dual_objective
            iters = projection.iterations
            solver = projection.solver + (" (fallback)" if projection.fallback else "")
            self.multipliers = projection.multipliers
        entropy = relative_entropy(d, self.master.simplex(self.n_samples)[1])
        self.entropy = entropy
        margins = U @ lp.weights
        record.update({
            "entropy": entropy,
            "gamma_star": lp.dual_objective,
            "soft_margin": self.master.lp_master(self.n_samples).value_at(margins),
            "solver": solver,
            "fallback": bool(projection.fallback) if projection is not None else False,
            "lp_iterations": lp.iterations,
            "lp_seconds": lp.seconds,
            "projection_seconds": projection.seconds if projection is not None else 0.0,
        })
        return MasterSolution(
            status=SolveStatus.OPTIMAL,
            objective=lp.objective,
            primal_objective=primal,
            dual_objective=dual,
            weights=lp.weights,
            distribution=d,
            rho=lp.rho,
            slacks=lp.slacks,
            gamma=lp.gamma,
            iterations=iters,
            seconds=time.perf_counter() - start,
            backend=self.backend_name,
            info={"projection": projection, "lp_distribution": lp.distribution},
            record=record,
            control=SolveControl(stop=stop),
        )
