"""Dual stabilisation of column generation: price at a smoothed dual, stop on the true one.

The distribution a simplex backend hands the oracle is a *vertex* of the
restricted master's optimal dual face.  On degenerate masters (RMBoost's
margins all at +-1/2, LPBoost on overlapping classes) the vertex jumps from
round to round and the oracle keeps returning columns that do not move the
bound (tailing off).  Smoothing (Wentges 1997; Pessoa, Sadykov, Uchoa,
Vanderbeck 2018, "in-out" with mis-pricing) prices instead at

    d~ = alpha d_stab + (1 - alpha) d_t,

a point between the current dual d_t and a stability centre d_stab: the
point priced that gave the best Lagrangian bound so far (LPBoost: the
smallest best edge, an upper bound on the full LP's value for any d in the
capped simplex), or, for a master without such a bound (RMBoost, the
entropy masters), the point priced last.

Certification is kept on the master's true duals:

- a column found at d~ is added only if it improves the master at d_t (its
  true edge d_t . u fails ``master.converged``); when none does
  (*mis-pricing*), the round prices at d_t itself;
- the run stops only when pricing at d_t finds no improving column, or,
  for a master with a Lagrangian bound, when the best bound is within tol of
  the master's value (an upper minus a lower bound: certified);
- the gap recorded is ``master.gap`` at the best bound (LPBoost), or at the
  true duals' best edge when the round priced there (otherwise None).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Smoothing", "make_stabilization"]


@dataclass
class Smoothing:
    """Wentges smoothing of the priced dual with weight ``alpha`` on the stability centre.

    ``alpha`` in [0, 1): 0 prices at the master's dual (no smoothing).
    """

    alpha: float = 0.5
    center: np.ndarray | None = field(default=None, repr=False)
    best: float = field(default=np.inf, repr=False)

    def __post_init__(self) -> None:
        alpha = float(self.alpha)
        if not (0.0 <= alpha < 1.0) or not np.isfinite(alpha):
            raise ValueError(f"the smoothing weight alpha must be in [0, 1), got {self.alpha!r}")
        self.alpha = alpha

    @property
    def name(self) -> str:
        return f"smoothing(alpha={self.alpha:g})"

    def point(self, d: np.ndarray) -> np.ndarray:
        """The distribution to price at, given the master's dual ``d``."""
        if self.center is None or self.alpha == 0.0:
            return d
        return self.alpha * self.center + (1.0 - self.alpha) * d

    def update(self, priced: np.ndarray, bound: float | None) -> None:
        """Move the centre: to ``priced`` when its bound is the best so far (or when there is none)."""
        if bound is None:
            self.center = np.array(priced, dtype=float)
        elif bound < self.best:
            self.best = float(bound)
            self.center = np.array(priced, dtype=float)


def make_stabilization(spec: Any) -> Smoothing | None:
    """None / "none" (price at the master's dual), "smoothing" (alpha = 0.5), or a Smoothing."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("none", "off")):
        return None
    if isinstance(spec, Smoothing):
        return Smoothing(spec.alpha)  # a fresh centre for every run
    if isinstance(spec, str) and spec.strip().lower() == "smoothing":
        return Smoothing()
    raise ValueError(
        f"unknown stabilization {spec!r}; use None, 'smoothing' or Smoothing(alpha) "
        "(lpboosting.colgen.Smoothing)"
    )
