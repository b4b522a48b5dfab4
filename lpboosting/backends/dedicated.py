"""lpboosting's own verified solvers, as a backend.

- Entropy masters (SoftBoost, TotalBoost, ERLPBoost): the dual Newton
  solver of the relative-entropy projection (masters/entropy_projection.py).
- RMBoost: the dense, warm-started dual simplex of the minimax LP
  (masters/minimax_simplex.py).

Both check every answer and fall back to a general solver when it fails.
"""

from __future__ import annotations

from lpboosting.backends.base import Backend
from lpboosting.errors import BackendCapabilityError


class DedicatedBackend(Backend):
    """lpboosting's dedicated solvers (default for the entropy masters and RMBoost).

    ``kinds`` lists the problem class it solves in general (entropy
    projections); a master with ``dedicated_solver = True`` (RMBoost) is
    accepted too.
    """

    name = "dedicated"
    kinds = frozenset({"exp_cone"})
    incremental = True

    def is_available(self) -> bool:
        return True

    def require(self) -> None:
        return None

    def check_master(self, master):
        if getattr(master, "dedicated_solver", False):
            return
        super().check_master(master)

    def open(self, master, n_samples):
        self.check_master(master)
        session = master.open_session(n_samples, self)
        if session is None:  # pragma: no cover - every master it accepts has one
            raise BackendCapabilityError(f"the dedicated solver cannot solve the {master.name} master")
        return session
