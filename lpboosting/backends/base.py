"""Backend interface: a named solver that opens master sessions."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from lpboosting.errors import BackendCapabilityError

if TYPE_CHECKING:  # pragma: no cover
    from lpboosting.masters.base import Master, MasterSession


class Backend(ABC):
    """A solver for master problems.

    Attributes
    ----------
    name:
        Registry name, e.g. ``"highspy"`` or ``"cvxpy:CLARABEL"``.
    kinds:
        Problem classes the backend can solve (``"lp"``, ``"exp_cone"``).
    incremental:
        True when a new column is added to a live model and re-solved from the
        previous basis; False when the problem is rebuilt every round.
    """

    name: str = ""
    kinds: frozenset[str] = frozenset()
    incremental: bool = False

    def __init__(self, **options: Any) -> None:
        self.options = dict(options)

    @abstractmethod
    def is_available(self) -> bool:
        """True when the solver this backend needs is installed."""

    @abstractmethod
    def require(self) -> None:
        """Raise :class:`SolverNotInstalledError` (saying what to install) when unavailable."""

    def check_master(self, master: "Master") -> None:
        if master.kind not in self.kinds:
            from lpboosting.backends.registry import available

            handles = available(master.kind, include_missing=True)
            installed = [b.name for b in handles if b.installed]
            missing = [f"{b.name} ({b.install})" for b in handles if not b.installed]
            raise BackendCapabilityError(
                f"backend {self.name!r} solves {sorted(self.kinds)} problems but the "
                f"{master.name} master is of kind {master.kind!r}; installed backends that "
                f"solve it: {', '.join(installed) or 'none'}"
                + (f"; installable: {', '.join(missing)}" if missing else "")
                + " (see lpboosting.backends.available())"
            )

    @abstractmethod
    def open(self, master: "Master", n_samples: int) -> "MasterSession":
        """Open a session of ``master`` over ``n_samples`` examples and no columns yet."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
