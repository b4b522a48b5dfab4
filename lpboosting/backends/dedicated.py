"""The dedicated solver of relative-entropy projections, as a backend."""

from __future__ import annotations

from lpboosting.backends.base import Backend
from lpboosting.errors import BackendCapabilityError


class DedicatedBackend(Backend):
    """The dedicated dual Newton solver of entropy projections (default for entropy masters)."""

    name = "dedicated"
    kinds = frozenset({"exp_cone"})
    incremental = True

    def is_available(self) -> bool:
        return True

    def require(self) -> None:
        return None

    def open(self, master, n_samples):
        self.check_master(master)
        session = master.open_session(n_samples, self)
        if session is None:  # pragma: no cover - every exp_cone master has one
            raise BackendCapabilityError(f"the dedicated solver cannot solve the {master.name} master")
        return session
