r"""The dedicated Newton solver of the relative-entropy projections (SoftBoost / TotalBoost, ERLPBoost).

Backend name ``"dedicated:newton"`` (``"dedicated"``, the entropy masters'
default, picks it for them).  The closed forms it rests on (capped softmax,
relative entropy) are in :mod:`lpboosting.masters.capped_simplex`.

Both masters minimise the relative entropy to the uniform distribution,

    Delta(d) = sum_n d_n ln(d_n N)            (0 ln 0 = 0),

over the *capped simplex* ``P_c = {d : sum_n d_n = 1, 0 <= d <= c}`` with
``c = 1/(nu N)`` (``c >= 1`` means no cap), plus linear constraints on the edges
``d . u_m`` of the columns of the N x T margin matrix ``U``
(``U[n, m] = y_n h_m(x_n)``).

Weighted examples (``prior=p``, one cap per example ``c_n``, for sample
weights ``p = s / sum(s)`` and ``c_n = p_n / nu``): the relative entropy is to
p, ``Delta_p(d) = sum_n d_n ln(d_n / p_n)``, and the capped softmax below becomes
``d_n = min(c_n, p_n exp(-(U lambda)_n - tau))`` (the prior shifts the scores
by ``ln p_n``; nothing else in the method changes).  Examples with ``p_n = 0``
(or ``c_n = 0``) have ``d_n = 0``: the problem is solved on the others and the
zeros are scattered back into the distribution.

SoftBoost / TotalBoost projection
    Warmuth, Glocer, Rätsch, *Boosting algorithms for maximizing the soft margin*,
    NIPS 2007, Section 4 and Algorithm 2, step 3(b) (TotalBoost is ``c >= 1``)::

        primal:  min_d  Delta(d)
                 s.t.   U^T d <= bound              (one row per column; dual lambda_m >= 0)
                        d in P_c
        dual:    max_{lambda >= 0} g(lambda),
                 g(lambda) = min_{d in P_c} Delta(d) + d^T U lambda - lambda^T bound.

    The minimiser of the inner problem is the capped softmax ``d(lambda) =
    capped_softmax(-U lambda, c)``, i.e. ``d_n = min(c, exp(-(U lambda)_n - tau))``.
    g is concave, once continuously differentiable with gradient
    ``U^T d(lambda) - bound`` and (almost everywhere) Hessian ``-U^T J U``, where J
    is the Jacobian of the capped softmax: ``diag(d_F) - d_F d_F^T / sum(d_F)`` on
    the uncapped coordinates F and zero on the capped ones.  The multipliers
    lambda are the weights of the columns (ProjectionResult.multipliers).

ERLPBoost projection
    Warmuth, Glocer, Vishwanathan, *Entropy regularized LPBoost*, ALT 2008::

        primal:  min_{d, gamma}  gamma + Delta(d) / eta
                 s.t.   U^T d <= gamma 1             (dual w_m >= 0, sum_m w_m = 1)
                        d in P_c
                 (= min_{d in P_c} max_m d . u_m + Delta(d) / eta)
        dual:    max_{w in simplex_T} h(w),
                 h(w) = min_{d in P_c} d^T U w + Delta(d) / eta
                      = Delta(d(w)) / eta + d(w)^T U w,  d(w) = capped_softmax(-eta U w, c).

    Without a cap ``h(w) = -(1/eta) ln( (1/N) sum_n exp(-eta (U w)_n) )``.  The
    gradient of h is ``U^T d(w)`` (the edges) and its Hessian ``-eta U^T J U``.
    The weights w are the hypothesis weights of ERLPBoost (multipliers).

Method
    Both duals are maximised by a warm-startable active-set Newton method
    (projected Newton, cf. Bertsekas 1982): the Newton system lives on the
    support of the multipliers plus the zero multipliers whose gradient exceeds
    the support's multiplier (0 for SoftBoost, ``w^T grad`` on the simplex; the
    equality ``sum w = 1`` is eliminated by a null-space basis); entering
    coordinates whose Newton component is not positive are pruned.  The step is
    an Armijo backtracking search, first along the projection arc (which can
    drop many coordinates at once) and then along the ray with a ratio test
    (dropping the blocking coordinate).  The Newton matrix gets a tiny ridge
    ``1e-13 max diag`` so that flat directions give long steps that the ratio
    test cuts.  A cold ERLPBoost start (no ``weights0``) uses continuation in eta
    (eta_k = 2, 8, 32, ... up to eta, each stage solved to a gap of 3/eta_k).
    All softmax computations are done in the log domain by water-filling, so
    huge multipliers (tight caps, nearly infeasible SoftBoost constraints) cannot
    overflow.

Certification
    Nothing is returned as "optimal" unless it is verified: d lies in the capped
    simplex, its constraint violation is at most ``feas_tol`` and the duality gap
    (primal value at d minus the dual function value at the multipliers, the
    latter being an exact lower bound by weak duality) is at most
    ``gap_tol * max(1, |primal|)``.  Infeasibility of the SoftBoost problem is
    established by the edge LP :func:`edge_lp`; its dual weights give an exact
    lower bound ``min_{d in P_c} d^T U w - w^T bound`` on the LP value that is
    evaluated in closed form, so "infeasible" is reported only with a positive
    lower bound (a certificate).  Otherwise the status is "failed" and the caller
    should fall back to a conic solver.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass

import numpy as np
from numpy.linalg import LinAlgError
from scipy.linalg.lapack import dpotrf as _dpotrf
from scipy.linalg.lapack import dpotrs as _dpotrs
from scipy.optimize import linprog

from lpboosting.backends.cvxpy_backend import CvxpyBackend, project_with_cvxpy
from lpboosting.backends.entropy_session import EntropySession
from lpboosting.backends.fallback import session_fallbacks
from lpboosting.backends.registry import get_backend
from lpboosting.masters.capped_simplex import (
    capped_minimum,
    capped_softmax_masked,
    check_cap,
    check_simplex,
    group_capped_softmax_masked,
    relative_entropy,
)
from lpboosting.masters.entropy import EntropyMaster, ProjectionResult
from lpboosting.masters.erlpboost import ERLPBoost
from lpboosting.masters.softboost import SoftBoost
from lpboosting.status import SolveStatus

__all__ = ["edge_lp", "project_erlpboost", "project_softboost"]

_ARMIJO = 1e-4
_INFEASIBLE_TOL = 1e-12  # certified edge-LP lower bound needed to report infeasibility
_ARC_TRIALS = 5
_RIDGE_MIN = 1e-13  # relative ridge of the Newton matrix
_RIDGE_MAX = 1e2
_RIDGE_UP = 1e3
_CONT_START = 2.0
_CONT_FACTOR = 4.0
_CONT_TOL = 3.0

try:  # optional: multithreaded BLAS is much slower than one thread on these small products
    from threadpoolctl import ThreadpoolController as _TPC
except ImportError:  # pragma: no cover
    _TPC = None
_CONTROLLER = None


def _blas_single_thread():
    """Limit BLAS to one thread for the small dense products of the Newton steps.

    Multithreaded OpenBLAS is slower than one thread on k x N products with
    k ~ 50 and N ~ 500, and dramatically so on a loaded machine.  Uses threadpoolctl
    when it is installed (it comes with scikit-learn), else does nothing.
    """
    global _CONTROLLER
    if _TPC is None:
        return contextlib.nullcontext()
    if _CONTROLLER is None:
        try:
            _CONTROLLER = _TPC()
        except Exception:  # pragma: no cover
            return contextlib.nullcontext()
    return _CONTROLLER.limit(limits=1, user_api="blas")


_EPS = np.finfo(float).eps


# ----------------------------------------------------------------------------
# the edge LP (feasibility of SoftBoost)
# ----------------------------------------------------------------------------


def _edge_lp_full(U: np.ndarray, bound: np.ndarray, cap):
    N, T = U.shape
    if np.ndim(cap) == 0:
        c = min(cap, 1.0)
        bounds = [(0.0, c)] * N + [(None, None)]
    else:
        c = np.minimum(cap, 1.0)
        bounds = [(0.0, float(ci)) for ci in c] + [(None, None)]
    cost = np.zeros(N + 1)
    cost[-1] = 1.0
    A_ub = np.hstack([U.T, -np.ones((T, 1))])
    A_eq = np.concatenate([np.ones(N), [0.0]])[None, :]
    res = linprog(
        cost, A_ub=A_ub, b_ub=bound, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    if res.status != 0:
        raise RuntimeError(f"edge LP failed: {res.message}")
    d = np.clip(res.x[:N], 0.0, c)
    d /= d.sum()
    w = np.clip(-res.ineqlin.marginals, 0.0, None)
    w = w / w.sum() if w.sum() > 0 else np.full(T, 1.0 / T)
    # exact lower bound on the LP value from the dual weights (weak duality)
    low, _ = capped_minimum(U @ w, c)
    lower = low - float(w @ bound)
    return float(res.fun), d, w, lower


def edge_lp(U: np.ndarray, bound: np.ndarray | float, cap, prior: np.ndarray | None = None
            ) -> tuple[float, np.ndarray]:
    r"""The value of  min_{d in P_cap} max_m (d . u_m - bound_m)  and a minimiser d.

    Solved as an LP with HiGHS (scipy.optimize.linprog)::

        min_{d, z} z  s.t.  U^T d - bound <= z 1,  sum d = 1,  0 <= d <= cap.

    ``cap`` is a scalar or one cap per example; examples with ``prior`` 0 (or
    cap 0) have d_n = 0.  The SoftBoost projection is infeasible iff the value
    is positive.
    """
    U, b, cap, _, support = _prepare(U, bound, cap, prior)
    if U.shape[1] == 0:
        raise ValueError("the edge LP needs at least one column")
    value, d, _, _ = _edge_lp_full(U, b, cap)
    return value, _scatter(d, support)


# ----------------------------------------------------------------------------
# active-set Newton on the dual
# ----------------------------------------------------------------------------


def _prepare(U, bound, cap, prior=None):
    """(U, b, cap, prior, support) of a projection, validated.

    Unweighted (``prior`` None, a scalar cap): the scalar cap, ``prior`` and
    ``support`` None.  Otherwise the rows of U, the caps and the prior are
    those of the examples with ``p_n > 0`` and ``c_n > 0`` (``support`` =
    (their indices, N), for :func:`_scatter`); the prior is not renormalised.
    """
    U = np.asarray(U, dtype=float)
    if U.ndim != 2:
        raise ValueError(f"U must be an N x T matrix, got shape {U.shape}")
    if not np.all(np.isfinite(U)):
        raise ValueError("U must be finite")
    N, T = U.shape
    p = support = None
    if prior is None and np.ndim(cap) == 0:
        cap = check_cap(cap, N)
    else:
        c, p = check_simplex(cap, prior, N)
        rows = np.flatnonzero((p > 0) & (c > 0))
        U, cap, p = U[rows], c[rows], p[rows]
        support = (rows, N)
    if bound is None:
        b = np.zeros(T)
    else:
        b = np.asarray(bound, dtype=float)
        b = np.full(T, float(b)) if b.ndim == 0 else b.ravel().copy()
        if b.size != T:
            raise ValueError(f"bound must be a scalar or have length T={T}, got {b.size}")
        if not np.all(np.isfinite(b)):
            raise ValueError("bound must be finite")
    # Fortran order: U.T is then C-contiguous, and a session's column block is not copied
    return np.asfortranarray(U), b, cap, p, support


def _scatter(d: np.ndarray, support) -> np.ndarray:
    """d on all N examples: zero where :func:`_prepare` left an example out."""
    if support is None:
        return d
    rows, n = support
    full = np.zeros(n)
    full[rows] = d
    return full


def _fixed(cap, n: int) -> bool:
    """True when the capped simplex is a single point (the caps sum to 1)."""
    if np.ndim(cap) == 0:
        return cap * n <= 1.0 + 1e-12
    return float(np.minimum(cap, 1.0).sum()) <= 1.0 + 1e-12


def _max_entropy(cap, prior, n: int) -> float:
    """An upper bound on Delta_p over the capped simplex: max_n ln(min(c_n, 1) / p_n)."""
    if prior is None:
        return math.log(n * min(cap, 1.0))
    return float(np.max(np.log(np.minimum(cap, 1.0)) - np.log(prior)))


@dataclass
class _Eval:
    x: np.ndarray
    d: np.ndarray
    log_d: np.ndarray
    free: np.ndarray
    delta: float  # Delta(d)
    value: float  # dual function value
    grad: np.ndarray  # U^T d - b
    scale_terms: float  # magnitude of the summands of value (rounding noise)
    smax: float  # max |s|, s = -scale U x (rounding noise of d)


class _Dual:
    """The dual function x -> min_{d in P_c} Delta_p(d)/scale + d^T U x - x^T b.

    ``cap`` a scalar or one cap per example, ``prior`` None (uniform) or p > 0.
    """

    def __init__(self, U: np.ndarray, b: np.ndarray, cap, scale: float,
                 prior: np.ndarray | None = None) -> None:
        self.U = U
        self.Ut = np.ascontiguousarray(U.T)  # a view when U is in Fortran order (see _prepare)
        self.b = b
        self.cap = cap
        self.scale = scale
        self.prior = prior
        self.logN = math.log(U.shape[0])
        self.logp = None if prior is None else np.log(prior)
        # the scores are shifted by ln p: their spread adds to the rounding noise of d
        self.logp_spread = 0.0 if prior is None else float(np.ptp(self.logp))
        self.umax = float(np.max(np.abs(U))) if U.size else 0.0
        self.evaluations = 0

    def __call__(self, x: np.ndarray) -> _Eval:
        self.evaluations += 1
        Ux = self.U @ x
        s = -self.scale * Ux
        d, log_d, free, delta = self._minimiser(s)
        dUx = float(d @ Ux)
        xb = float(x @ self.b)
        value = delta / self.scale + dUx - xb
        grad = self.Ut @ d - self.b
        smax = float(np.max(np.abs(s))) + self.logp_spread
        terms = abs(delta) / self.scale + smax / self.scale + float(np.abs(x) @ np.abs(self.b))
        return _Eval(x, d, log_d, free, delta, value, grad, terms, smax)

    def _minimiser(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """The inner minimiser d at scores s, its logarithm, the mask of coordinates below their
        cap, and Delta_p(d)."""
        if self.logp is None:
            d, log_d, free = capped_softmax_masked(s, self.cap)
            return d, log_d, free, float(d @ (log_d + self.logN))
        d, log_d, free = capped_softmax_masked(s + self.logp, self.cap)
        return d, log_d, free, float(d @ (log_d - self.logp))

    def box_violation(self, d: np.ndarray) -> float:
        """How far d is from the capped simplex."""
        return _box_violation(d, self.cap)

    def entropy(self, d: np.ndarray) -> float:
        """Delta_p(d)."""
        return relative_entropy(d, self.prior)

    def hessian_neg(self, ev: _Eval, cols: np.ndarray) -> np.ndarray:
        """-Hessian restricted to cols: scale * U_S^T J U_S (positive semidefinite).

        J = diag(d_F) - d_F d_F^T / sum(d_F) on the uncapped coordinates F, written
        as a weighted covariance so that the result is PSD by construction.
        """
        k = cols.size
        wt = np.where(ev.free, ev.d, 0.0)
        total = float(wt.sum())
        if k == 0 or total <= 0.0:
            return np.zeros((k, k))
        A = self.Ut[cols]  # k x N copy (row gather is cheap; capped rows get weight 0)
        mean = (A @ wt) / total
        A -= mean[:, None]
        A *= np.sqrt(wt)
        return self.scale * (A @ A.T)


class _GroupDual(_Dual):
    """The dual function when the caps bind groups of ``group`` consecutive coordinates
    (MulticlassERLPBoost's (example, wrong class) pairs): d(x) is the group-capped softmax.

    ``cap`` one cap per group, ``prior`` None (uniform over groups) or p > 0 per group; the
    relative entropy is to q = p / group on each coordinate.
    """

    def __init__(self, U: np.ndarray, b: np.ndarray, cap, scale: float, prior: np.ndarray | None = None,
                 group: int = 1) -> None:
        super().__init__(U, b, None, scale, None)
        self.group = int(group)
        n = U.shape[0] // self.group
        self.cap = np.broadcast_to(np.asarray(cap, dtype=float), (n,)).copy()
        self.prior = np.full(n, 1.0 / n) if prior is None else np.asarray(prior, dtype=float)
        self.log_q = np.repeat(np.log(self.prior) - math.log(self.group), self.group)
        self.logp_spread = float(np.ptp(self.log_q))

    def _minimiser(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        d, log_d, free = group_capped_softmax_masked(s, self.group, self.cap, self.prior)
        return d, log_d, free, float(d @ (log_d - self.log_q))

    def box_violation(self, d: np.ndarray) -> float:
        mass = d.reshape(-1, self.group).sum(axis=1)
        return float(max(abs(d.sum() - 1.0), -d.min(initial=0.0),
                         (mass - np.minimum(self.cap, 1.0)).max(initial=0.0), 0.0))

    def entropy(self, d: np.ndarray) -> float:
        return relative_entropy(d, np.exp(self.log_q))

    def hessian_neg(self, ev: _Eval, cols: np.ndarray) -> np.ndarray:
        """scale * U_S^T J U_S with J the Jacobian of the group-capped softmax: on the coordinates
        of uncapped groups diag(d_F) - d_F d_F^T / sum(d_F), on each capped group g
        diag(d_g) - d_g d_g^T / c_g; written as weighted covariances (PSD by construction)."""
        k, g = cols.size, self.group
        if k == 0:
            return np.zeros((0, 0))
        d = ev.d.reshape(-1, g)
        free = ev.free.reshape(-1, g)[:, 0]  # a group's pairs are all free or all capped
        A = self.Ut[cols].reshape(k, -1, g)  # k x groups x g copy (rows of U.T are C-contiguous)
        sums = np.einsum("kng,ng->kn", A, d)  # per group: sum_j d_j a_j
        mass = d.sum(axis=1)
        total = float(mass[free].sum())
        # each pair's centre: the free pairs' weighted mean, or its own capped group's
        centre = sums / np.where(mass > 0, mass, 1.0)
        if total > 0.0:
            centre[:, free] = (sums[:, free].sum(axis=1) / total)[:, None]
        A -= centre[:, :, None]
        A *= np.sqrt(d)
        A = A.reshape(k, -1)
        return self.scale * (A @ A.T)


def _solve_pd(A: np.ndarray, rhs: np.ndarray, ridge: float = _RIDGE_MIN) -> np.ndarray:
    """Solve (A + delta I) X = rhs for a positive semidefinite A.

    The ridge ``delta = ridge * max(diag A)`` (increased if the factorisation
    fails) makes directions of zero curvature long but finite; the ratio test and
    the line search take care of them.  A large ``ridge`` turns the step into a
    scaled gradient step (Levenberg-Marquardt).
    """
    k = A.shape[0]
    if k == 0:
        return np.zeros_like(rhs)
    diag = A.diagonal()
    top = float(diag.max())
    delta = max(ridge * top, 1e-300) if top > 0 else max(ridge, 1e-300)
    for _ in range(12):
        M = A.copy()
        M.flat[:: k + 1] += delta
        c, info = _dpotrf(M, lower=0, clean=0, overwrite_a=1)
        if info == 0:
            X, info = _dpotrs(c, rhs, lower=0)
            if info == 0 and np.isfinite(X).all():
                return X
        delta = max(delta * 100.0, 1e-14 * max(top, 1.0))
    raise LinAlgError("Newton system could not be factorised")


def _newton_on(A: np.ndarray, g: np.ndarray, simplex: bool, pivot: int = 0,
               ridge: float = _RIDGE_MIN):
    """Newton direction from -Hessian A and gradient g on a coordinate set; (p, nu).

    Bounds: ``p = A^{-1} g`` with ``A = -Hessian``.  Simplex: the equality
    ``sum p = 0`` is eliminated with the null-space basis ``p_pivot = -sum of the
    others`` (the KKT form ``A^{-1}(g - nu 1)`` cancels catastrophically when A is
    nearly singular); nu is recovered from the pivot row.
    """
    if not simplex:
        return _solve_pd(A, g, ridge), 0.0
    k = g.size
    if k == 1:
        return np.zeros(1), float(g[0])
    j = pivot
    o = np.arange(k - 1)
    o[j:] += 1
    aj = A[o, j]
    B = A[o][:, o]
    B -= aj[:, None]
    B -= aj[None, :]
    B += A[j, j]
    r = g[o] - g[j]
    q = _solve_pd(B, r, ridge)
    p = np.empty(k)
    p[o] = q
    p[j] = -q.sum()
    nu = float(g[j] - A[j] @ p)  # stationarity of the pivot row: g - A p = nu 1
    return p, nu


@dataclass
class _Outcome:
    ev: _Eval
    iterations: int
    converged: bool
    reason: str


def _active_set_newton(
    dual: _Dual,
    x0: np.ndarray,
    *,
    simplex: bool,
    tol: float,
    max_iter: int,
    value_limit: float = np.inf,
    relative: bool = True,
) -> _Outcome:
    """Maximise the concave dual over x >= 0 (and sum x = 1 if simplex).

    Each iteration: Newton direction on the support S0 = {x > 0}; zero coordinates
    whose gradient exceeds the support's multiplier (0 for bounds) enter the
    Newton system unless their Newton component is not positive; then a
    projection-arc / ratio-test backtracking line search (Armijo).
    """
    T = x0.size
    x = x0.copy()
    ev = dual(x)
    add_tol = 0.1 * tol
    ridge = _RIDGE_MIN  # raised (Levenberg-Marquardt) when Newton steps make no progress
    it = 0
    while True:
        g = ev.grad
        # ---- convergence (the gap is exactly -x^T grad resp. max grad - x^T grad)
        # rounding floor of the gradient: d = exp(s - tau) carries a relative error
        # of about eps |s|, so U^T d cannot be resolved below ~eps (1 + |s|) |U|
        g_noise = 16 * _EPS * (1.0 + ev.smax) * dual.umax
        if simplex:
            gmax = float(g.max())
            gap = gmax - float(x @ g)
            primal = gmax + ev.delta / dual.scale
            if gap <= (tol * max(1.0, abs(primal)) if relative else tol) + 2 * g_noise:
                return _Outcome(ev, it, True, "converged")
        else:
            viol = float(max(g.max(initial=0.0), 0.0))
            comp = float(np.abs(x * g).sum())  # bounds |gap| = |x^T g| and each |x_m g_m|
            if (viol <= tol + g_noise
                    and comp <= tol * max(1.0, abs(ev.delta)) + g_noise * float(x.sum())):
                return _Outcome(ev, it, True, "converged")
            if ev.value > value_limit:
                return _Outcome(ev, it, False, "unbounded")
        if it == max_iter:
            break
        it += 1
        # ---- one Hessian for the support and the zeros that may enter: those whose
        #      gradient exceeds the support's multiplier (estimated by x^T g on the
        #      simplex, exact at a support-optimal point; 0 for bounds)
        S0 = np.flatnonzero(x > 0)
        k0 = S0.size
        nu_est = float(x @ g) if simplex else 0.0
        enter = np.flatnonzero((x <= 0) & (g > nu_est + add_tol))
        enter = enter[np.argsort(-g[enter], kind="stable")]
        K = np.concatenate([S0, enter]) if enter.size else S0
        AK = dual.hessian_neg(ev, K)
        gK = g[K]
        pivot = int(np.argmax(x[S0])) if k0 else 0
        base = np.arange(k0)
        # Newton on support + entering; prune entering ones with a non-positive component
        pos = np.arange(enter.size)
        sel, pS = base, None
        tried_single = False
        while pos.size:
            sel1 = np.concatenate([base, k0 + pos])
            p1, _ = _newton_on(AK[sel1][:, sel1], gK[sel1], simplex, pivot, ridge)
            bad = p1[k0:] <= 0
            if not bad.any():
                sel, pS = sel1, p1
                break
            if bad.all():
                if pos.size > 1 and not tried_single:
                    pos, tried_single = pos[:1], True  # the most violated one alone
                    continue
                break
            pos = pos[~bad]
        if pS is None:
            pS, _ = _newton_on(AK[:k0, :k0], gK[:k0], simplex, pivot, ridge)
        p = np.zeros(T)
        p[K[sel]] = pS
        pred = float(g @ p)
        if sel.size == 0 or not np.all(np.isfinite(p)) or not pred > 0:
            if ridge < _RIDGE_MAX and sel.size:
                ridge *= _RIDGE_UP
                continue
            return _Outcome(ev, it, False, "no ascent direction")
        # ---- ratio test and backtracking Armijo line search
        neg = p < 0
        if neg.any():
            ratios = x[neg] / -p[neg]
            amax = float(ratios.min())
        else:
            amax = np.inf
        noise = 64 * _EPS * max(1.0, ev.scale_terms)
        accepted, full = None, False
        # (a) blocked full step: first try the projection arc, which can drop many
        #     coordinates at once (Bertsekas' projected Newton)
        alpha, trials = 1.0, 0
        while alpha > amax and accepted is None and trials < _ARC_TRIALS:
            trials += 1
            xn = _project_simplex(x + alpha * p) if simplex else np.maximum(x + alpha * p, 0.0)
            lin = float(g @ (xn - x))
            if lin > 0:
                evn = dual(xn)
                if evn.value >= ev.value + _ARMIJO * lin:
                    accepted, full = evn, alpha == 1.0
            alpha *= 0.5
        # (b) otherwise the ratio test: stay on the face, drop the blocking coordinate
        alpha = min(1.0, amax)
        first = True
        for _ in range(80):
            if accepted is not None:
                break
            xn = x + alpha * p
            if alpha == amax:
                idx = np.flatnonzero(neg)
                hit = idx[ratios <= amax * (1 + 1e-12)]
                xn[hit] = 0.0
            xn = np.maximum(xn, 0.0)
            if simplex:
                xn /= xn.sum()
            evn = dual(xn)
            # accept on sufficient increase (Armijo), or when the directional derivative
            # is still >= 0 at the trial point: along a ray a concave function then has
            # not decreased, which stays decidable when the increase is below rounding
            if evn.value >= ev.value + _ARMIJO * alpha * pred or (
                float(evn.grad @ p) >= 0.0 and evn.value >= ev.value - noise
            ) or (first and alpha * pred <= noise and evn.value >= ev.value - noise):
                accepted, full = evn, alpha == 1.0
                break
            first = False
            alpha *= 0.5
            if alpha * float(np.max(np.abs(p))) <= 1e-300:
                break
        moved = accepted is not None and not np.array_equal(accepted.x, x)
        if not moved:
            if ridge < _RIDGE_MAX:
                ridge *= _RIDGE_UP  # Newton is not making progress: bend towards the gradient
                if accepted is not None:
                    x, ev = accepted.x, accepted
                continue
            return _Outcome(ev, it, False, "stalled" if accepted is not None else "line search failed")
        if full:
            ridge = max(ridge / _RIDGE_UP, _RIDGE_MIN)
        x, ev = accepted.x, accepted
    return _Outcome(ev, max_iter, False, "iteration limit")


# ----------------------------------------------------------------------------
# SoftBoost / TotalBoost
# ----------------------------------------------------------------------------


def _project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto the probability simplex (sort and threshold)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, v.size + 1)
    pos = np.flatnonzero(u - css / ind > 0)
    rho = int(pos[-1]) if pos.size else 0
    theta = css[rho] / (rho + 1.0)
    w = np.maximum(v - theta, 0.0)
    total = w.sum()
    if not (total > 0 and np.isfinite(total)):
        w = (v == u[0]).astype(float)
        total = w.sum()
    return w / total


def _pad(x0, T: int) -> np.ndarray:
    x = np.zeros(T)
    if x0 is not None:
        x0 = np.asarray(x0, dtype=float).ravel()[:T]
        x[: x0.size] = np.where(np.isfinite(x0), np.maximum(x0, 0.0), 0.0)
    return x


def _box_violation(d: np.ndarray, cap) -> float:
    c = min(cap, 1.0) if np.ndim(cap) == 0 else np.minimum(cap, 1.0)
    return float(max(abs(d.sum() - 1.0), -d.min(initial=0.0), (d - c).max(initial=0.0), 0.0))


def project_softboost(
    U: np.ndarray,
    bound: np.ndarray | float,
    cap,
    *,
    prior: np.ndarray | None = None,
    multipliers0: np.ndarray | None = None,
    tol: float = 1e-10,
    max_iter: int = 200,
    feas_tol: float = 1e-8,
    gap_tol: float = 1e-8,
) -> ProjectionResult:
    r"""SoftBoost / TotalBoost projection (Warmuth, Glocer, Rätsch, NIPS 2007, Alg. 2 step 3b).

    Primal::

        min_d  Delta(d) = sum_n d_n ln(d_n N)      (with a prior: sum_n d_n ln(d_n / p_n))
        s.t.   d . u_m <= bound_m   (m = 1..T)      dual lambda_m >= 0
               sum_n d_n = 1,  0 <= d_n <= cap_n

    Dual: ``max_{lambda >= 0} g(lambda)``,
    ``g(lambda) = Delta(d) + d^T U lambda - lambda^T bound`` at
    ``d = capped_softmax(-U lambda, cap, prior)``; the optimal d is ``d(lambda*)``.
    The gap of a pair is ``Delta(d(lambda)) - g(lambda) = -lambda^T (U^T d - bound)``.

    Args:
        U: N x T margin matrix.
        bound: scalar or length-T upper bounds on the edges (``gamma_hat - delta``).
        cap: ``1/(nu N)``; ``cap >= 1`` is TotalBoost (no cap).  Or one cap per
            example (sample weights: ``p_n / nu``).
        prior: None (uniform) or the prior p of the relative entropy, one weight
            >= 0 per example (normalised here); ``d_n = 0`` where ``p_n = 0``.
        multipliers0: warm start (previous lambda; padded with zeros for new columns).
        tol: Newton stopping tolerance on violation and (relative) gap.
        max_iter: Newton iteration limit.
        feas_tol, gap_tol: verification tolerances.

    Returns:
        A ProjectionResult; status "infeasible" only with an LP certificate
        (positive lower bound on the edge LP value), "optimal" only when verified.
    """
    t0 = time.perf_counter()
    U, b, cap, prior, support = _prepare(U, bound, cap, prior)
    res = _project_softboost(U, b, cap, prior, t0, multipliers0, tol, max_iter, feas_tol, gap_tol)
    res.distribution = _scatter(res.distribution, support)
    return res


def _project_softboost(U, b, cap, prior, t0, multipliers0, tol, max_iter, feas_tol, gap_tol) -> ProjectionResult:
    """:func:`project_softboost` on validated data (every example of positive prior)."""
    N, T = U.shape
    lam0 = _pad(multipliers0, T)
    dual = _Dual(U, b, cap, 1.0, prior)
    dmax = _max_entropy(cap, prior, N)  # the largest relative entropy on P_cap

    def finish(status: SolveStatus, d, lam, dual_value, iters, verified, message) -> ProjectionResult:
        edges = U.T @ d
        if status is SolveStatus.INFEASIBLE:
            # primal infeasible / dual unbounded; max_violation = the edge-LP value
            objective, gap = np.inf, np.nan
            viol = float(np.max(edges - b))
        else:
            objective = relative_entropy(d, prior)
            gap = objective - dual_value
            viol = max(_box_violation(d, cap), float((edges - b).max(initial=0.0)))
        return ProjectionResult(
            status=status, distribution=d, multipliers=lam, objective=float(objective),
            dual_objective=float(dual_value), gamma=float(edges.max(initial=-np.inf)),
            iterations=iters, max_violation=viol, gap=float(gap), verified=verified,
            seconds=time.perf_counter() - t0, message=message, solver="dedicated",
        )

    def verify(ev: _Eval, iters: int, why: str) -> ProjectionResult | None:
        d = ev.d
        delta = relative_entropy(d, prior)
        viol = float(max((U.T @ d - b).max(initial=0.0), 0.0))
        box = _box_violation(d, cap)
        gap = delta - ev.value  # g(lambda) is an exact lower bound (weak duality)
        scale = max(1.0, abs(delta))
        if box <= 1e-9 and viol <= feas_tol and abs(gap) <= gap_tol * scale and np.all(ev.x >= 0):
            return finish(SolveStatus.OPTIMAL, d, ev.x, ev.value, iters, True,
                          f"verified: violation {viol:.1e}, gap {gap:.1e} ({why})")
        return None

    def infeasible_or_failed(ev: _Eval, iters: int, why: str) -> ProjectionResult:
        try:
            value, d_lp, _, lower = _edge_lp_full(U, b, cap)
        except RuntimeError as exc:  # pragma: no cover - HiGHS failure
            return finish(SolveStatus.FAILED, ev.d, ev.x, ev.value, iters, False,
                          f"Newton {why} after {iters} iterations; {exc}")
        if lower > _INFEASIBLE_TOL:
            msg = (f"infeasible: min over the capped simplex of max_m (d.u_m - bound_m) = {value:.3e} "
                   f"(certified lower bound {lower:.3e}); Newton: {why} after {iters} iterations")
            return finish(SolveStatus.INFEASIBLE, d_lp, ev.x, np.inf, iters, True, msg)
        msg = (f"Newton {why} after {iters} iterations and did not verify; edge LP value {value:.3e} "
               f"(lower bound {lower:.3e}): not certified infeasible")
        return finish(SolveStatus.FAILED, ev.d, ev.x, ev.value, iters, False, msg)

    with _blas_single_thread():
        if T == 0 or _fixed(cap, N):  # no constraints, or d fixed at the caps (uniform)
            ev = dual(np.zeros(T))
            return verify(ev, 0, "trivial") or infeasible_or_failed(ev, 0, "trivial")
        out = _active_set_newton(dual, lam0, simplex=False, tol=tol, max_iter=max_iter,
                                 value_limit=dmax + 1e-9 * max(1.0, dmax))
        # only a verified pair or an LP certificate is returned as a definite answer
        if out.reason != "unbounded":
            r = verify(out.ev, out.iterations, out.reason)
            if r is not None:
                return r
        return infeasible_or_failed(out.ev, out.iterations, out.reason)


# ----------------------------------------------------------------------------
# ERLPBoost
# ----------------------------------------------------------------------------


def project_erlpboost(
    U: np.ndarray,
    cap,
    eta: float,
    *,
    prior: np.ndarray | None = None,
    weights0: np.ndarray | None = None,
    tol: float = 1e-10,
    max_iter: int = 200,
    gap_tol: float = 1e-8,
) -> ProjectionResult:
    r"""ERLPBoost projection (Warmuth, Glocer, Vishwanathan, ALT 2008).

    Primal::

        min_{d, gamma}  gamma + Delta(d) / eta     (Delta relative to p with a prior)
        s.t.   d . u_m <= gamma   (m = 1..T)       dual w_m >= 0, sum_m w_m = 1
               sum_n d_n = 1,  0 <= d_n <= cap_n

    Dual: ``max_{w in simplex} h(w)``, ``h(w) = min_{d in P_cap} d^T U w + Delta(d)/eta
    = Delta(d)/eta + d^T U w`` at ``d = capped_softmax(-eta U w, cap, prior)``
    (uncapped: ``-(1/eta) ln(sum_n p_n exp(-eta (Uw)_n))``).  The gap of a pair is
    ``max_m d.u_m - w^T U^T d``, always >= 0; the problem is always feasible.

    Args:
        U: N x T margin matrix, T >= 1.
        cap: ``1/(nu N)``; ``cap >= 1`` means no cap.  Or one cap per example
            (sample weights: ``p_n / nu``).
        prior: None (uniform) or the prior p of the relative entropy, one weight
            >= 0 per example (normalised here); ``d_n = 0`` where ``p_n = 0``.
        eta: regularisation parameter (> 0); for accuracy epsilon ERLPBoost takes eta of
            the order ``(2 / epsilon) ln(N nu)`` (see the paper for the exact choice).
        weights0: warm start (previous w; padded with zeros, renormalised).  Without it
            the solve starts from uniform weights with continuation in eta.
        tol: stopping tolerance on the relative gap; gap_tol: verification tolerance.
        max_iter: Newton iteration limit (per continuation stage).

    Returns:
        A ProjectionResult with status "optimal" (verified gap) or "failed".
    """
    t0 = time.perf_counter()
    U, _, cap, prior, support = _prepare(U, None, cap, prior)
    N, T = U.shape
    if T == 0:
        raise ValueError("ERLPBoost needs at least one column (T >= 1)")
    eta = float(eta)
    if not (eta > 0 and np.isfinite(eta)):
        raise ValueError(f"eta must be a positive number, got {eta!r}")
    res = _project_erlpboost(U, cap, prior, eta, t0, weights0, tol, max_iter, gap_tol)
    res.distribution = _scatter(res.distribution, support)
    return res


def _project_erlpboost(U, cap, prior, eta, t0, weights0, tol, max_iter, gap_tol,
                       make_dual=_Dual) -> ProjectionResult:
    """:func:`project_erlpboost` on validated data (every example of positive prior); ``make_dual``
    builds the dual function (:class:`_Dual`, or :class:`_GroupDual` with its group bound)."""
    N, T = U.shape
    dual = make_dual(U, np.zeros(T), cap, eta, prior)
    if make_dual is _Dual and _fixed(cap, N):  # d is fixed at the caps (uniform): h(w) is linear, w = best column
        w0 = np.zeros(T)
        if np.ndim(cap) == 0:
            w0[int(np.argmax(U.mean(axis=0)))] = 1.0
        else:
            c = np.minimum(cap, 1.0)
            w0[int(np.argmax((c / c.sum()) @ U))] = 1.0
        with _blas_single_thread():
            ev = dual(w0)
        out = _Outcome(ev, 0, True, "trivial (cap = 1/N fixes d)")
        return _erlp_result(U, cap, eta, dual, out, gap_tol, t0)
    w0 = _pad(weights0, T)
    cold = w0.sum() <= 0
    if cold:
        w0[:] = 1.0  # cold start: uniform weights (the optimum usually has a large support)
    w0 /= w0.sum()
    iterations = 0
    with _blas_single_thread():
        if cold:
            # continuation in eta: the Newton model of h_eta is good for steps that change
            # eta*U*w by O(1), and w*(eta) moves by O(1/eta) when eta grows by a factor,
            # so each stage starts close to its solution
            spread = float(np.max(np.abs(U))) or 1.0
            eta_k = _CONT_START / spread
            while eta_k < eta:
                stage = make_dual(U, np.zeros(T), cap, eta_k, prior)
                out_k = _active_set_newton(stage, w0, simplex=True, tol=_CONT_TOL / eta_k,
                                           max_iter=max_iter, relative=False)
                iterations += out_k.iterations
                w0 = out_k.ev.x
                eta_k *= _CONT_FACTOR
        out = _active_set_newton(dual, w0, simplex=True, tol=tol, max_iter=max_iter)
    out.iterations += iterations
    return _erlp_result(U, cap, eta, dual, out, gap_tol, t0)


def _erlp_result(U, cap, eta, dual, out, gap_tol, t0) -> ProjectionResult:
    ev = out.ev
    d, w = ev.d, ev.x
    edges = U.T @ d
    gamma = float(edges.max())
    delta = dual.entropy(d)
    objective = gamma + delta / eta
    gap = objective - ev.value
    box = dual.box_violation(d)
    wviol = float(max(abs(w.sum() - 1.0), -w.min()))
    scale = max(1.0, abs(objective))
    verified = bool(box <= 1e-9 and wviol <= 1e-12 and -gap_tol * scale <= gap <= gap_tol * scale)
    status = SolveStatus.OPTIMAL if verified else SolveStatus.FAILED
    message = (f"{'verified' if verified else 'NOT verified'}: gap {gap:.1e}, box violation {box:.1e}"
               f" ({out.reason})")
    return ProjectionResult(
        status=status, distribution=d, multipliers=w, objective=objective,
        dual_objective=ev.value, gamma=gamma, iterations=out.iterations, max_violation=box,
        gap=gap, verified=verified, seconds=time.perf_counter() - t0, message=message,
        solver="dedicated",
    )


def project_group_erlpboost(U: np.ndarray, group: int, caps, eta: float, *, prior: np.ndarray | None = None,
                            weights0: np.ndarray | None = None, tol: float = 1e-10, max_iter: int = 200,
                            gap_tol: float = 1e-8) -> ProjectionResult:
    r"""The ERLPBoost projection when the caps bind groups of ``group`` consecutive rows of U
    (:class:`~lpboosting.masters.MulticlassERLPBoost`: each example's (example, wrong class)
    pairs)::

        min_{d, gamma}  gamma + Delta_q(d) / eta   s.t.  d . u_m <= gamma,  sum d = 1,  d >= 0,
                        sum_k d_(i,k) <= c_i  (each group i),   q_(i,k) = p_i / group

    Dual: ``max_{w in simplex} h(w)`` at ``d = group_capped_softmax(-eta U w)``, solved as
    :func:`project_erlpboost` solves its own (the same Newton steps, Hessian and verification).
    ``caps``: one per group (or a scalar); ``prior``: None (uniform) or p >= 0 per group
    (normalised here; a group of weight 0 gets d = 0).
    """
    t0 = time.perf_counter()
    U = np.asarray(U, dtype=float)
    g = int(group)
    if U.ndim != 2 or g < 1 or U.shape[0] % g:
        raise ValueError(f"U must have whole groups of {group} rows, got shape {np.shape(U)}")
    if not np.all(np.isfinite(U)):
        raise ValueError("U must be finite")
    if U.shape[1] == 0:
        raise ValueError("ERLPBoost needs at least one column (T >= 1)")
    n = U.shape[0] // g
    c = np.broadcast_to(np.asarray(caps, dtype=float), (n,))
    p = np.full(n, 1.0 / n) if prior is None else np.asarray(prior, dtype=float) / np.sum(prior)
    keep = np.flatnonzero((p > 0) & (c > 0))
    rows = (keep[:, None] * g + np.arange(g)).ravel()
    eta = float(eta)
    if not (eta > 0 and np.isfinite(eta)):
        raise ValueError(f"eta must be a positive number, got {eta!r}")

    def make_dual(U_, b, cap, scale, prior_):
        return _GroupDual(U_, b, cap, scale, prior_, group=g)

    res = _project_erlpboost(np.asfortranarray(U[rows]), c[keep], p[keep], eta, t0, weights0, tol, max_iter,
                             gap_tol, make_dual=make_dual)
    res.distribution = _scatter(res.distribution, (rows, U.shape[0]))
    return res


# ----------------------------------------------------------------------------
# the projector of the entropy sessions, with its conic fallback
# ----------------------------------------------------------------------------

def _softboost(master: SoftBoost, U: np.ndarray, state: dict, warm: np.ndarray | None) -> ProjectionResult:
    cap, prior = master.simplex(U.shape[0])
    return project_softboost(U, state["bound"], cap, prior=prior, multipliers0=warm)


def _erlpboost(master: ERLPBoost, U: np.ndarray, state: dict, warm: np.ndarray | None) -> ProjectionResult:
    cap, prior = master.simplex(U.shape[0])
    return project_erlpboost(U, cap, state["eta"], prior=prior, weights0=warm)


def verified_or_fallback(newton, master: EntropyMaster, U: np.ndarray, state: dict,
                         warm: np.ndarray | None) -> ProjectionResult:
    """``newton``'s answer when it verified it (or certified infeasibility); else a conic solver's.

    The projection is then re-solved by the first backend of the fallback
    policy (:func:`~lpboosting.backends.fallback.session_fallbacks`: the
    entropy masters declare CLARABEL, ECOS, SCS through cvxpy) that is
    installed and succeeds, and the result says ``fallback``; when none
    does, the status is ERROR.
    """
    res = newton(master, U, state, warm)
    if res.status is SolveStatus.OPTIMAL and res.verified:
        res.message = ""
        return res
    if res.status is SolveStatus.INFEASIBLE:
        return res
    for name in session_fallbacks(master, "dedicated:newton"):
        backend = get_backend(name)
        if isinstance(backend, CvxpyBackend):  # the backends with a projection of the master's statement
            proj = project_with_cvxpy(master, U, state, backend.solver, backend.options)
            if proj.status.ok or proj.status is SolveStatus.INFEASIBLE:
                proj.fallback = True
                proj.seconds += res.seconds
                proj.message = f"dedicated solver unverified ({res.message}); used {proj.solver}"
                return proj
    res.status = SolveStatus.ERROR
    res.message = f"dedicated solver failed ({res.message}) and no conic solver succeeded"
    return res


def softboost_session(master: SoftBoost, n_samples: int, backend) -> EntropySession:
    """SoftBoost / TotalBoost with the Newton projection (backend ``"dedicated:newton"``)."""
    return EntropySession(master, n_samples, backend,
                          lambda m, U, state, warm: verified_or_fallback(_softboost, m, U, state, warm))


def erlpboost_session(master: ERLPBoost, n_samples: int, backend) -> EntropySession:
    """ERLPBoost with the Newton projection (backend ``"dedicated:newton"``)."""
    return EntropySession(master, n_samples, backend,
                          lambda m, U, state, warm: verified_or_fallback(_erlpboost, m, U, state, warm))


def _group_erlpboost(master, U: np.ndarray, state: dict, warm: np.ndarray | None) -> ProjectionResult:
    n = master.examples(U.shape[0])
    prior = None if master.sample_weight is None else master.prior(n)
    return project_group_erlpboost(U, master.n_classes - 1, master.example_caps(U.shape[0]), state["eta"],
                                   prior=prior, weights0=warm)


def group_erlpboost_session(master, n_samples: int, backend) -> EntropySession:
    """MulticlassERLPBoost with the Newton projection over groups of pairs
    (:func:`project_group_erlpboost`), its answer verified, a conic solver's otherwise."""
    return EntropySession(master, n_samples, backend,
                          lambda m, U, state, warm: verified_or_fallback(_group_erlpboost, m, U, state, warm))
