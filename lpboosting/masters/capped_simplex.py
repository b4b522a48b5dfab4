"""Relative entropy over the capped simplex: the closed forms every entropy master rests on.

With ``P_c = {d : sum_n d_n = 1, 0 <= d <= c}`` (``c = 1/(nu N)``; ``c >= 1``
means no cap) and ``Delta(d) = sum_n d_n ln(d_n N)`` (0 ln 0 = 0):

- :func:`capped_softmax`: ``argmax_{d in P_c} d . s - sum_n d_n ln d_n``, the inner
  minimiser of the SoftBoost and ERLPBoost duals (``d(lambda)`` is the capped
  softmax of ``-U lambda``, resp. ``-eta U w``);
- :func:`relative_entropy`: ``Delta(d)``;
- :func:`capped_minimum`: ``min_{d in P_c} d . v`` in closed form (a lower bound
  of the edge LP used to certify infeasibility).

Warmuth, Glocer, Rätsch, NIPS 2007 (SoftBoost); Warmuth, Glocer,
Vishwanathan, ALT 2008 (ERLPBoost).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["capped_minimum", "capped_softmax", "check_cap", "logsumexp", "relative_entropy"]

#: keeps log d finite (d = 0) when scores overflow
LOG_MIN = -np.finfo(float).max
_EPS = np.finfo(float).eps


def check_cap(cap: float, n: int) -> float:
    cap = float(cap)
    if not np.isfinite(cap) and cap != np.inf:
        raise ValueError(f"cap must be a number >= 1/N, got {cap!r}")
    if n < 1:
        raise ValueError("need at least one example (N >= 1)")
    if cap * n < 1.0 - 1e-12:
        raise ValueError(f"cap={cap!r} is below 1/N = {1.0 / n!r}: the capped simplex is empty")
    return cap


def logsumexp(x: np.ndarray) -> float:
    m = float(np.max(x))
    if not np.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(x - m))))


def capped_softmax_masked(s: np.ndarray, cap: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(d, log_d, free) with free the boolean mask of uncapped coordinates."""
    n = s.size
    if cap >= 1.0:  # no cap can bind
        log_d = np.maximum(s - logsumexp(s), LOG_MIN)
        return np.exp(log_d), log_d, np.ones(n, dtype=bool)
    log_cap = math.log(cap)
    if cap * n <= 1.0 + 1e-12:  # the capped simplex is the single point 1/N
        log_d = np.full(n, -math.log(n))
        return np.full(n, 1.0 / n), log_d, np.zeros(n, dtype=bool)
    # fast path: plain softmax already respects the cap
    lse = logsumexp(s)
    if float(np.max(s)) - lse <= log_cap:
        log_d = np.maximum(s - lse, LOG_MIN)
        return np.exp(log_d), log_d, np.ones(n, dtype=bool)
    order = np.argsort(-s, kind="stable")
    ss = s[order]
    # at most kmax coordinates can be capped with a positive remainder (kmax*cap < 1)
    kmax = min(n - 1, int(math.ceil(1.0 / cap)) - 1)
    while kmax > 0 and kmax * cap >= 1.0:
        kmax -= 1
    # suffix[k] = LSE(ss[k:]); summed from the small end, so relatively accurate
    top = float(ss[0])
    if top - float(ss[-1]) < 600.0:  # no underflow: plain exponentials
        suffix = np.log(np.cumsum(np.exp(ss[::-1] - top))[::-1][: kmax + 1]) + top
    else:
        suffix = np.logaddexp.accumulate(ss[::-1])[::-1][: kmax + 1]
    ks = np.arange(kmax + 1)
    rem = 1.0 - ks * cap
    tau = suffix - np.log(rem)
    ok = ss[: kmax + 1] - tau <= log_cap  # the largest uncapped share is within the cap
    ok[-1] = True
    k = int(np.argmax(ok))
    tau_k = logsumexp(ss[k:]) - math.log(1.0 - k * cap)  # recomputed accurately
    log_d = np.clip(s - tau_k, LOG_MIN, log_cap)
    free = np.ones(n, dtype=bool)
    capped = order[:k]
    log_d[capped] = log_cap
    free[capped] = False
    d = np.exp(log_d)
    # the free shares sum to 1 - k*cap up to rounding; fix the rounding (it only
    # matters when the scores are so large that their spacing exceeds O(1))
    total_free = float(d[free].sum())
    rem_k = 1.0 - k * cap
    if total_free > 0 and abs(total_free - rem_k) > 4 * _EPS * n:
        d[free] *= rem_k / total_free
        d[free] = np.minimum(d[free], cap)
        log_d[free] = np.log(np.maximum(d[free], np.finfo(float).tiny))
    return d, log_d, free


def capped_softmax(s: np.ndarray, cap: float) -> tuple[np.ndarray, np.ndarray]:
    r"""argmax_{d in P_cap} d^T s - sum_n d_n ln d_n, and its logarithm.

    The maximiser is ``d_n = min(cap, exp(s_n - tau))`` with tau chosen so that
    ``sum d = 1`` (a cap >= 1 never binds: plain softmax).  It is computed by
    sorting s and water-filling in the log domain (logsumexp of suffixes), so
    nothing is exponentiated that could overflow, for any finite scores (tiny
    shares underflow to 0 in ``d`` while ``log_d`` stays finite).  As always in
    floating point, differences of scores below their spacing (``|s| eps``) are
    not resolved.

    Returns:
        (d, log_d), both of shape (N,).
    """
    s = np.asarray(s, dtype=float).ravel()
    cap = check_cap(cap, s.size)
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    with np.errstate(over="ignore"):
        d, log_d, _ = capped_softmax_masked(s, cap)
    return d, log_d


def relative_entropy(d: np.ndarray) -> float:
    """Delta(d) = sum_n d_n ln(d_n N), with 0 ln 0 = 0."""
    d = np.asarray(d, dtype=float)
    pos = d > 0
    return float(np.sum(d[pos] * np.log(d[pos] * d.size)))


def capped_minimum(v: np.ndarray, cap: float) -> tuple[float, np.ndarray]:
    """min_{d in P_cap} d . v in closed form (cap the smallest entries first)."""
    v = np.asarray(v, dtype=float)
    n = v.size
    c = min(float(cap), 1.0)
    order = np.argsort(v, kind="stable")
    d = np.zeros(n)
    k = min(n, int(math.floor(1.0 / c + 1e-12)))
    d[order[:k]] = c
    rest = 1.0 - k * c
    if k < n and rest > 0:
        d[order[k]] = rest
    return float(d @ v), d
