"""Relative entropy over the capped simplex: the closed forms every entropy master rests on.

With ``P_c = {d : sum_n d_n = 1, 0 <= d_n <= c_n}`` (``c_n = 1/(nu N)``; a cap
``>= 1`` means no cap) and ``Delta(d) = sum_n d_n ln(d_n N)`` (0 ln 0 = 0), the
relative entropy to the uniform distribution:

- :func:`capped_softmax`: ``argmax_{d in P_c} d . s - sum_n d_n ln d_n``, the inner
  minimiser of the SoftBoost and ERLPBoost duals (``d(lambda)`` is the capped
  softmax of ``-U lambda``, resp. ``-eta U w``);
- :func:`relative_entropy`: ``Delta(d)``;
- :func:`capped_minimum`: ``min_{d in P_c} d . v`` in closed form (a lower bound
  of the edge LP used to certify infeasibility);
- :func:`group_capped_softmax`: the capped softmax when the cap is on groups of
  coordinates (an example's (example, wrong class) pairs of the multiclass masters).

Weighted examples.  With a prior p (the weighted empirical distribution
``p = s / sum(s)`` of sample weights s) the uniform distribution is replaced
by p: ``Delta_p(d) = sum_n d_n ln(d_n / p_n)``, the caps are one per example
(``c_n = p_n / nu``), and the capped softmax maximises ``d . s - Delta_p(d)``,
i.e. ``d_n = min(c_n, p_n exp(s_n - tau))``.  An example with ``p_n = 0`` (or
``c_n = 0``) has ``d_n = 0``.  Every function takes the caps as a scalar or a
vector and ``prior=None`` for uniform; with a scalar cap and no prior the
unweighted formulas are used unchanged.

Warmuth, Glocer, Rätsch, NIPS 2007 (SoftBoost); Warmuth, Glocer,
Vishwanathan, ALT 2008 (ERLPBoost).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["capped_minimum", "capped_softmax", "check_cap", "check_simplex", "logsumexp", "relative_entropy"]

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


def check_simplex(cap, prior, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-example caps c and prior p (a probability vector) as float vectors of length n.

    ``cap`` is a scalar (the same cap for every example) or one cap per example
    (``np.inf`` or any value >= 1: no cap); ``prior`` is None (uniform) or one
    weight >= 0 per example, normalised here.  Raises a ValueError when the
    capped simplex ``{d : sum d = 1, 0 <= d_n <= c_n, d_n = 0 where p_n = 0}``
    is empty.
    """
    if n < 1:
        raise ValueError("need at least one example (N >= 1)")
    c = np.asarray(cap, dtype=float)
    if c.ndim == 0:
        c = np.full(n, float(c))
    if c.shape != (n,):
        raise ValueError(f"cap must be a number or one cap per example (length {n}), got shape {c.shape}")
    if np.any(np.isnan(c)) or np.any(c < 0) or np.any(c == -np.inf):
        raise ValueError("caps must be numbers >= 0 (inf: no cap)")
    if prior is None:
        p = np.full(n, 1.0 / n)
    else:
        p = np.asarray(prior, dtype=float)
        if p.shape != (n,):
            raise ValueError(f"prior must have one entry per example (length {n}), got shape {p.shape}")
        if not np.all(np.isfinite(p)) or np.any(p < 0) or not p.sum() > 0:
            raise ValueError("prior must be finite, >= 0 and have a positive sum")
        p = p / p.sum()
    room = float(np.minimum(c, 1.0)[p > 0].sum())
    if room < 1.0 - 1e-12:
        raise ValueError(
            f"the caps of the examples with positive prior sum to {room!r} < 1: the capped simplex is empty"
        )
    return c, p


def logsumexp(x: np.ndarray) -> float:
    m = float(np.max(x))
    if not np.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(x - m))))


def capped_softmax_masked(s: np.ndarray, cap) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(d, log_d, free) with free the boolean mask of uncapped coordinates.

    ``d_n = min(cap_n, exp(s_n - tau))``, ``sum d = 1``.  ``cap`` is a scalar or a
    vector of positive caps (whose minimum with 1 sums to >= 1); a prior p enters
    through the scores (``s_n + ln p_n``).
    """
    if np.ndim(cap) != 0:
        return _capped_softmax_vector(s, np.asarray(cap, dtype=float))
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


def _capped_softmax_vector(s: np.ndarray, cap: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Water-filling with one cap per coordinate (all caps > 0, min(cap, 1) summing to >= 1).

    Coordinate n is capped iff ``s_n - ln c_n >= tau``, so the capped set is a
    prefix of the order of ``key = s - ln c`` (descending).  For a prefix of k
    capped coordinates ``tau_k = LSE(s over the rest) - ln(1 - sum of their caps)``;
    the answer is the smallest k whose first uncapped coordinate fits under its
    cap (``key <= tau_k``).  With caps proportional to a prior this is the order
    of the unshifted scores, as in the scalar case.
    """
    n = s.size
    c = np.minimum(cap, 1.0)  # d_n <= 1 anyway: a cap >= 1 never binds
    log_c = np.log(c)
    room = float(c.sum())
    if room <= 1.0 + 1e-12:  # the capped simplex is the single point c
        d = c / room
        return d, np.log(d), np.zeros(n, dtype=bool)
    lse = logsumexp(s)
    if np.all(s - lse <= log_c):  # plain softmax already respects the caps
        log_d = np.maximum(s - lse, LOG_MIN)
        return np.exp(log_d), log_d, np.ones(n, dtype=bool)
    key = s - log_c
    order = np.argsort(-key, kind="stable")
    ss = s[order]
    before = np.concatenate(([0.0], np.cumsum(c[order][:-1])))  # cap mass of the first k
    rem = 1.0 - before
    kmax = int(np.count_nonzero(rem > 0.0)) - 1  # prefixes that leave a positive remainder
    top = float(ss.max())
    if top - float(ss.min()) < 600.0:  # no underflow: plain exponentials
        suffix = np.log(np.cumsum(np.exp(ss[::-1] - top))[::-1][: kmax + 1]) + top
    else:
        suffix = np.logaddexp.accumulate(ss[::-1])[::-1][: kmax + 1]
    tau = suffix - np.log(rem[: kmax + 1])
    ok = key[order][: kmax + 1] <= tau
    ok[-1] = True
    k = int(np.argmax(ok))
    rem_k = float(rem[k])
    tau_k = logsumexp(ss[k:]) - math.log(rem_k)  # recomputed accurately
    log_d = np.maximum(np.minimum(s - tau_k, log_c), LOG_MIN)
    free = np.ones(n, dtype=bool)
    capped = order[:k]
    log_d[capped] = log_c[capped]
    free[capped] = False
    d = np.exp(log_d)
    total_free = float(d[free].sum())
    if total_free > 0 and abs(total_free - rem_k) > 4 * _EPS * n:
        d[free] *= rem_k / total_free
        d[free] = np.minimum(d[free], c[free])
        log_d[free] = np.log(np.maximum(d[free], np.finfo(float).tiny))
    return d, log_d, free


def capped_softmax(s: np.ndarray, cap, prior: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""argmax_{d in P_cap} d^T s - Delta_p(d), and its logarithm.

    Without a prior (uniform) the maximiser is ``d_n = min(cap, exp(s_n - tau))``
    with tau chosen so that ``sum d = 1`` (a cap >= 1 never binds: plain
    softmax).  With a prior p and per-example caps c it is
    ``d_n = min(c_n, p_n exp(s_n - tau))``, and ``d_n = 0`` where ``p_n = 0``
    or ``c_n = 0`` (the other coordinates are solved on their own and the
    zeros scattered back; their ``log_d`` is a huge negative number).  It is
    computed by sorting and water-filling in the log domain (logsumexp of
    suffixes), so nothing is exponentiated that could overflow, for any finite
    scores (tiny shares underflow to 0 in ``d`` while ``log_d`` stays finite).
    As always in floating point, differences of scores below their spacing
    (``|s| eps``) are not resolved.

    Args:
        s: scores, shape (N,).
        cap: a scalar cap or one cap per example.
        prior: None (uniform) or one weight >= 0 per example (normalised here).

    Returns:
        (d, log_d), both of shape (N,).
    """
    s = np.asarray(s, dtype=float).ravel()
    if prior is None and np.ndim(cap) == 0:
        cap = check_cap(cap, s.size)
        if not np.all(np.isfinite(s)):
            raise ValueError("scores must be finite")
        with np.errstate(over="ignore"):
            d, log_d, _ = capped_softmax_masked(s, cap)
        return d, log_d
    c, p = check_simplex(cap, prior, s.size)
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    support = np.flatnonzero((p > 0) & (c > 0))
    d = np.zeros(s.size)
    log_d = np.full(s.size, LOG_MIN)
    with np.errstate(over="ignore"):
        d[support], log_d[support], _ = _capped_softmax_vector(s[support] + np.log(p[support]), c[support])
    return d, log_d


def relative_entropy(d: np.ndarray, prior: np.ndarray | None = None) -> float:
    """Delta(d) = sum_n d_n ln(d_n N), or with a prior p sum_n d_n ln(d_n / p_n); 0 ln 0 = 0.

    ``prior`` is a probability vector (None: uniform).  A positive d_n where
    p_n = 0 gives +inf (d is then not absolutely continuous with respect to p).
    """
    d = np.asarray(d, dtype=float)
    pos = d > 0
    if prior is None:
        return float(np.sum(d[pos] * np.log(d[pos] * d.size)))
    p = np.asarray(prior, dtype=float)
    if p.shape != d.shape:
        raise ValueError(f"prior has shape {p.shape}, the distribution {d.shape}")
    if np.any(p[pos] <= 0):
        return float("inf")
    return float(np.sum(d[pos] * np.log(d[pos] / p[pos])))


def capped_minimum(v: np.ndarray, cap) -> tuple[float, np.ndarray]:
    """min_{d in P_cap} d . v in closed form (cap the smallest entries first).

    ``cap`` is a scalar or one cap per example (their minimum with 1 must sum
    to >= 1; a zero cap keeps d_n = 0).
    """
    v = np.asarray(v, dtype=float)
    n = v.size
    if np.ndim(cap) != 0:
        c = np.minimum(np.asarray(cap, dtype=float), 1.0)
        order = np.argsort(v, kind="stable")
        before = np.concatenate(([0.0], np.cumsum(c[order])))  # cap mass of the first k
        k = min(n, int(np.searchsorted(before, 1.0, side="right")) - 1)  # whole caps that fit
        d = np.zeros(n)
        d[order[:k]] = c[order[:k]]
        if k < n:
            d[order[k]] = max(0.0, 1.0 - float(before[k]))
        return float(d @ v), d
    c = min(float(cap), 1.0)
    order = np.argsort(v, kind="stable")
    d = np.zeros(n)
    k = min(n, int(math.floor(1.0 / c + 1e-12)))
    d[order[:k]] = c
    rest = 1.0 - k * c
    if k < n and rest > 0:
        d[order[k]] = rest
    return float(d @ v), d


def group_capped_softmax(s: np.ndarray, group: int, cap, prior: np.ndarray | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
    r"""argmax d . s - Delta_q(d) over distributions whose groups of ``group`` consecutive
    coordinates each hold at most their cap, and its logarithm.

    The coordinates are N groups of g = ``group`` (the multiclass masters' (example,
    wrong class) pairs, example-major); the set is ``{d >= 0 : sum d = 1, sum_k d_ik <= c_i}``
    and the prior q_(i,k) = p_i / g (``prior`` p over the groups; None: uniform).
    For fixed group masses D_i the maximiser inside group i is D_i softmax_k(s_ik),
    with value D_i L_i - D_i ln(D_i / p_i), L_i = ln((1/g) sum_k exp(s_ik)).  So
    D = :func:`capped_softmax` (L, c, p) and ``d_ik = D_i exp(s_ik) / sum_k exp(s_ik)``.
    With g = 1 this is :func:`capped_softmax`.

    Args:
        s: scores, shape (N g,).
        group: g >= 1, the coordinates of a group.
        cap: a scalar cap or one cap per group.
        prior: None (uniform) or one weight >= 0 per group.

    Returns:
        (d, log_d), both of shape (N g,).
    """
    d, log_d, _ = group_capped_softmax_masked(s, group, cap, prior)
    return d, log_d


def group_capped_softmax_masked(s: np.ndarray, group: int, cap, prior: np.ndarray | None = None
                                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`group_capped_softmax` and ``free``, the mask of the coordinates whose group is
    below its cap."""
    s = np.asarray(s, dtype=float).ravel()
    g = int(group)
    if g < 1 or s.size % g:
        raise ValueError(f"{s.size} scores are not whole groups of {group}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    S = s.reshape(-1, g)
    top = S.max(axis=1)
    within = np.log(np.exp(S - top[:, None]).sum(axis=1)) + top  # ln sum_k exp(s_ik)
    # L_i = within_i - ln g: the constant does not move the softmax over the groups
    with np.errstate(over="ignore"):  # a group of mass 0 (log_D = LOG_MIN) stays at LOG_MIN
        if prior is None and np.ndim(cap) == 0:
            _, log_D, free = capped_softmax_masked(within, check_cap(cap, within.size))
        else:
            c, p = check_simplex(cap, prior, within.size)
            log_D = np.full(within.size, LOG_MIN)
            free = np.zeros(within.size, dtype=bool)
            rows = np.flatnonzero((p > 0) & (c > 0))
            _, log_D[rows], free[rows] = capped_softmax_masked(within[rows] + np.log(p[rows]), c[rows])
        log_d = np.maximum(log_D[:, None] + (S - within[:, None]), LOG_MIN).ravel()
    return np.exp(log_d), log_d, np.repeat(free, g)
