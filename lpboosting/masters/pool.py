"""Column management of a restricted master: deletion of long-inactive columns, and re-entry.

Column generation only ever adds columns, so a long run solves a master
that carries every column it has seen.  Most of them end up *inactive*:
zero weight and a dual constraint that holds strictly, so that deleting
them leaves the current solution optimal for the smaller master.  A
:class:`ColumnPool` says when a session deletes such a column from its live
model, and how often a column may go:

* a column inactive after ``inactive_rounds`` consecutive solves is
  deleted from the live master (its weight is reported as 0 from then on);
* when the oracle prices a deleted column again it *re-enters* (it is added
  as a new column of the master, equal to the old one);
* a column is deleted at most ``max_removals`` times; after that it stays
  for good.

The last rule is what rules out cycling: with a finite class of base
rules, deletions are finite, after which the master only grows and column
generation terminates as without a pool.  (Without it, a degenerate master
whose optimal duals change from solve to solve can delete and re-add the
same columns forever at the optimum.)

Which columns are inactive is the master's knowledge
(:meth:`Master.inactive <lpboosting.masters.base.Master.inactive>`): for
LPBoost a hypothesis with w_j = 0 and d . u_j < gamma, for RMBoost one with
mu_j = 0 and |d . u_j| < lam.  RMBoost's removal rule (Algorithm 1 of
*Robust minimax boosting*, Steps 14-16: delete every column whose dual
constraint holds strictly after each solve) is the policy
``ColumnPool(inactive_rounds=1, max_removals=1)``, :data:`ALGORITHM_1`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ALGORITHM_1", "ColumnPool", "make_pool"]


@dataclass(frozen=True)
class ColumnPool:
    """Delete a column inactive for ``inactive_rounds`` solves, at most ``max_removals`` times.

    Parameters
    ----------
    inactive_rounds:
        K >= 1: consecutive solves in which a column must be inactive (zero
        weight, dual constraint strictly satisfied) before it is deleted.
    max_removals:
        m >= 1: how many times one column (identified by its values) may be
        deleted; once it has re-entered m times it stays in the master.
    """

    inactive_rounds: int = 1
    max_removals: int = 1

    def __post_init__(self) -> None:
        for name in ("inactive_rounds", "max_removals"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ColumnPool: {name} must be an integer >= 1, got {value!r}")

    def to_dict(self) -> dict[str, int]:
        return {"inactive_rounds": self.inactive_rounds, "max_removals": self.max_removals}


#: RMBoost's Algorithm 1, Steps 14-16 (delete at once), with the at-most-once safeguard
ALGORITHM_1 = ColumnPool(inactive_rounds=1, max_removals=1)


def make_pool(spec: Any) -> ColumnPool | None:
    """A :class:`ColumnPool` from None/False (keep every column), True (:data:`ALGORITHM_1`),
    a ColumnPool, or a dict of its fields."""
    if spec is None or spec is False:
        return None
    if spec is True:
        return ALGORITHM_1
    if isinstance(spec, ColumnPool):
        return spec
    if isinstance(spec, dict):
        unknown = set(spec) - {"inactive_rounds", "max_removals"}
        if unknown:
            raise ValueError(f"unknown ColumnPool field(s) {sorted(unknown)}; "
                             "the fields are inactive_rounds and max_removals")
        return ColumnPool(**spec)
    raise ValueError(f"a column pool must be None, False, True, a ColumnPool or a dict of its fields, "
                     f"got {spec!r}")
