"""LPBoost's second stage: among the optimal combinations of a degenerate soft margin, one that classifies.

When the soft margin's optimum is at or near 0 (nu below the data's noise or
overlap rate), its optimal face is large and a vertex of it can be a useless
combination: h and -h in equal weight, a vote that is constant on every
example.  The second stage holds the soft margin at its optimum v* (to within
``delta``) and picks, among those combinations, the one of largest mean
margin (lexicographic optimisation; Warmuth, Glocer, Rätsch 2007, eq. 1 is
the first stage)::

    max_{w, rho, psi}  sum_n p_n (U w)_n
    s.t.  (U w)_n >= rho - psi_n,  psi >= 0,  sum_m w_m = 1,  w >= 0,
          rho - sum_n c_n psi_n >= v* - delta

with p the examples' prior (1/N, or the normalised sample weights) and
c_n = p_n / nu the soft margin's costs (the caps of the first stage's dual).
Its weights are optimal for the soft margin too; its objective is the
largest mean margin any optimal combination reaches, and a constant vote
(mean margin 0 on labels of both signs) is left only when no optimal
combination does better.  One HiGHS solve (dual simplex, from scratch) over
the columns the first stage chose.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from lpboosting.backends.highs.model import HighspyBackend, import_highspy, map_highs_status, run_watched
from lpboosting.masters.lpboost import LPBoost, soft_margin
from lpboosting.status import SolveStatus

__all__ = ["SecondStage", "largest_mean_margin"]


@dataclass
class SecondStage:
    """The second stage's answer: its status, the weights, their mean margin and soft margin."""

    status: SolveStatus
    weights: np.ndarray
    mean_margin: float
    soft_margin: float
    seconds: float


def largest_mean_margin(U: np.ndarray, master: LPBoost, value: float, delta: float,
                        time_limit: float | None = None) -> SecondStage:
    """The second stage of ``master`` (its nu and sample weights) over the margin columns U (N x T),
    its soft margin held at ``value`` - ``delta`` or above (see the module docstring).

    ``time_limit`` (seconds) bounds HiGHS's solve; a stage that does not finish in it comes back
    with status TIME_LIMIT (the caller keeps the first stage's weights).  The LP has N rows and
    N + T + 1 columns and is solved from scratch: on 4 000 examples it takes about five times the
    first stage's time, and on 15 000 examples minutes, hence the limit."""
    highspy = import_highspy()
    U = np.asarray(U, dtype=float)
    n, t = U.shape
    caps = np.broadcast_to(np.asarray(master.caps(n), dtype=float), (n,))
    prior = master.prior(n)
    start = time.perf_counter()
    inf = highspy.kHighsInf
    h = HighspyBackend().new_model()
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    # columns: w (t) in [0, inf), rho free, psi (n) in [0, inf); minimise -(U^T p) . w
    h.addVars(t, np.zeros(t), np.full(t, inf))
    h.addVar(-inf, inf)
    h.addVars(n, np.zeros(n), np.full(n, inf))
    h.changeColsCost(t, np.arange(t, dtype=np.int32), -(prior @ U))
    # rows n: (U w)_n - rho + psi_n >= 0
    starts = np.arange(n, dtype=np.int32) * (t + 2)
    index = np.empty((n, t + 2), dtype=np.int32)
    index[:, :t] = np.arange(t)
    index[:, t] = t
    index[:, t + 1] = t + 1 + np.arange(n)
    values = np.empty((n, t + 2))
    values[:, :t] = U
    values[:, t] = -1.0
    values[:, t + 1] = 1.0
    h.addRows(n, np.zeros(n), np.full(n, inf), index.size, starts, index.ravel(), values.ravel())
    # sum w = 1; rho - c . psi >= v* - delta
    h.addRow(1.0, 1.0, t, np.arange(t, dtype=np.int32), np.ones(t))
    h.addRow(value - delta, inf, n + 1, np.arange(t, t + 1 + n, dtype=np.int32), np.concatenate([[1.0], -caps]))
    run_watched(h)
    status = map_highs_status(highspy, h.getModelStatus())
    seconds = time.perf_counter() - start
    if not status.ok:
        return SecondStage(status, np.zeros(t), float("nan"), float("nan"), seconds)
    x = np.asarray(h.getSolution().col_value)
    w = np.maximum(x[:t], 0.0)
    w /= w.sum()
    margins = U @ w
    soft = soft_margin(margins, master.nu, master.sample_weight)  # computed, not the solver's
    return SecondStage(status, w, float(prior @ margins), float(soft), seconds)
