"""lpboosting's own verified solvers, as a backend.

- ``"dedicated:newton"``: the dual Newton solver of the relative-entropy
  projections of SoftBoost, TotalBoost and ERLPBoost
  (:mod:`~lpboosting.backends.dedicated.newton_projection`);
- ``"dedicated:minimax-simplex"``: the dense, warm-started dual simplex of
  RMBoost's minimax LP (:mod:`~lpboosting.backends.dedicated.minimax_simplex`,
  :mod:`~lpboosting.backends.dedicated.minimax_session`).

``"dedicated"`` runs whichever of the two solves the master.  Both check
every answer and fall back to a general solver when the check fails.
"""

from __future__ import annotations

from typing import Any

from lpboosting.backends.base import Backend

#: the dedicated solvers by name, as keys of the session table
SOLVERS: tuple[str, ...] = ("newton", "minimax-simplex")


class DedicatedBackend(Backend):
    """lpboosting's dedicated solvers (default for the entropy masters and RMBoost).

    ``DedicatedBackend()`` is ``"dedicated"`` (every dedicated solver);
    ``DedicatedBackend("newton")`` is ``"dedicated:newton"``,
    ``DedicatedBackend("minimax-simplex")`` is ``"dedicated:minimax-simplex"``.
    """

    incremental = True

    def __init__(self, solver: str | None = None, **options: Any) -> None:
        super().__init__(**options)
        if solver is not None and solver.lower() not in SOLVERS:
            raise ValueError(f"unknown dedicated solver {solver!r}; choose one of {', '.join(SOLVERS)}")
        self.solver = None if solver is None else solver.lower()
        self.solvers = SOLVERS if self.solver is None else (self.solver,)
        self.name = "dedicated" if self.solver is None else f"dedicated:{self.solver}"

    def is_available(self) -> bool:
        return True

    def require(self) -> None:
        return None
