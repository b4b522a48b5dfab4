"""Every master answer is checked before the loop uses it; a rejected one is solved again elsewhere.

:func:`verified` asks the master to verify a session's answer against the
columns it was solved over (:meth:`~lpboosting.masters.Master.verify`) and,
when the master rejects it, re-solves the restricted master afresh by the
backends of the fallback chain until one gives an answer the master accepts.
:func:`duality_gap` is the check of every answer's primal against its dual value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lpboosting.backends.fallback import fallback_backends, resolve
from lpboosting.masters.base import LP_FALLBACKS, Master, MasterSolution

if TYPE_CHECKING:
    from lpboosting.colgen.state import RunState

__all__ = ["DUALITY_TOL", "FALLBACKS", "duality_gap", "fallback_chain", "verified"]

#: primal and dual values of a master answer may differ by this much (relative to 1 + |dual|)
DUALITY_TOL = 1e-6


def duality_gap(solution: MasterSolution) -> float | None:
    """|primal - dual| of a master answer when it is larger than :data:`DUALITY_TOL` allows."""
    primal, dual = solution.primal_objective, solution.dual_objective
    if primal is None or dual is None or not (np.isfinite(primal) and np.isfinite(dual)):
        return None
    gap = abs(float(primal) - float(dual))
    return gap if gap > DUALITY_TOL * (1.0 + abs(float(dual))) else None


#: the LP masters' fallback backends, in order: :attr:`Master.fallback_backends
#: <lpboosting.masters.base.Master.fallback_backends>` (RMBoost and the entropy masters declare
#: their own)
FALLBACKS: dict[str, tuple[str, ...]] = {"lp": LP_FALLBACKS}


def fallback_chain(master: Master, failed: str) -> list[str]:
    """The backends that may re-solve a rejected answer of ``master`` (after ``failed``): the
    one fallback policy, :func:`lpboosting.backends.fallback.fallback_backends` (what the master
    declares; the failed backend and those not installed skipped; a master defined outside the
    library through its cvxpy statement only)."""
    return fallback_backends(master, failed)


def _resolve(master: Master, U: np.ndarray, active: np.ndarray | None, name: str) -> MasterSolution | None:
    """The restricted master over the active columns solved afresh by backend ``name`` (None if it fails)."""
    columns = np.arange(U.shape[1]) if active is None else np.asarray(active, dtype=np.intp)
    solution = resolve(master, np.asarray(U[:, columns], dtype=float), name)
    if not solution.ok:
        return None
    weights = np.zeros(U.shape[1])
    weights[columns] = solution.weights
    solution.weights = weights
    if solution.dual_edges is not None:
        edges = np.full(U.shape[1], np.nan)
        edges[columns] = solution.dual_edges
        solution.dual_edges = edges
    solution.control.active_columns = columns
    return solution


def verified(state: RunState, solution: MasterSolution) -> tuple[MasterSolution | None, dict[str, Any]]:
    """The round's answer if the master verifies it, else a fallback's verified answer, else None;
    and what to record (``rejected``: why; ``fallback``: the backend that answered instead)."""
    master, U = state.master, state.columns
    active = solution.control.active_columns
    problem = master.verify(solution, U, active)
    if not problem:
        return solution, {}
    notes: dict[str, Any] = {"rejected": f"{solution.backend}: {problem}"}
    for name in fallback_chain(master, solution.backend):
        alternative = _resolve(master, U, active, name)
        if alternative is None:
            continue
        if not master.verify(alternative, U, alternative.control.active_columns):
            alternative.record.update(solution.record)
            notes["fallback"] = name
            return alternative, notes
    return None, notes
