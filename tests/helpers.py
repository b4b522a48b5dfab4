"""Helpers the tests share: independent statements of the masters' problems (scipy's HiGHS on
the papers' own variables), their optimality checks, small data sets, a failing backend and a
virtual clock.  Nothing here is a test; the fixtures are in conftest.py."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq, linprog
from scipy.special import logsumexp
from sklearn.datasets import load_breast_cancer, make_blobs

from lpboosting.backends import RecordingBackend, available_backends
from lpboosting.masters import soft_margin
from lpboosting.masters.base import MasterSolution
from lpboosting.masters.rmboost import oracle_weighting, paper_duals
from lpboosting.status import SolveStatus

#: the repository (docs/, models/, README.md)
ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


# -- the LPBoost LP ------------------------------------------------------------------------------
def soft_margin_lp(U: np.ndarray, nu: float) -> dict:
    """The soft-margin LP (1) solved directly by scipy's HiGHS, written independently.

    Variables x = [w (T), rho, psi (N)]; maximise rho - sum(psi)/(nu N).
    Returns value, w, rho, psi and the margin-constraint duals (the distribution d).
    """
    N, T = U.shape
    c = 1.0 / (nu * N)
    cost = np.concatenate([np.zeros(T), [-1.0], np.full(N, c)])  # minimise -(rho - c sum psi)
    # rho - psi_n - (U w)_n <= 0
    A_ub = np.hstack([-U, np.ones((N, 1)), -np.eye(N)])
    b_ub = np.zeros(N)
    A_eq = np.concatenate([np.ones(T), [0.0], np.zeros(N)])[None, :]
    bounds = [(0, None)] * T + [(None, None)] + [(0, None)] * N
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    assert res.status == 0, res.message
    x = res.x
    return {
        "value": -res.fun,
        "w": x[:T],
        "rho": x[T],
        "psi": x[T + 1:],
        "d": -res.ineqlin.marginals,  # d >= 0 for the <= rows of a minimisation
    }


# accuracy each backend is held to; interior-point solvers stop at ~1e-8 relative gaps
TOL = {"highspy": 1e-9, "cvxpy:HIGHS": 1e-9, "cvxpy:CLARABEL": 1e-6, "cvxpy:ECOS": 1e-6}


def check_optimality(sol, U, nu, tol):
    """Feasibility of both problems, equal objectives and complementary slackness."""
    N, T = U.shape
    cap = 1.0 / (nu * N)
    d, w, psi, rho = sol.distribution, sol.weights, sol.slacks, sol.rho
    # dual (edge LP) feasibility: d in the capped simplex, every edge <= gamma
    assert abs(d.sum() - 1) <= tol
    assert d.min() >= -tol and d.max() <= cap + tol
    assert np.all(d @ U <= sol.gamma + tol)
    # primal feasibility: w in the simplex, psi >= 0, margins >= rho - psi
    assert abs(w.sum() - 1) <= tol and w.min() >= -tol and psi.min() >= -tol
    margins = U @ w
    assert np.all(margins >= rho - psi - tol)
    # strong duality, and the primal value equals the closed-form soft margin of w
    assert sol.primal_objective == pytest.approx(sol.dual_objective, abs=tol)
    assert sol.objective == pytest.approx(rho - cap * psi.sum(), abs=1e-12)
    assert soft_margin(margins, nu) == pytest.approx(sol.objective, abs=tol)
    # complementary slackness
    assert np.all(np.abs(w * (d @ U - sol.gamma)) <= tol)
    assert np.all(np.abs(d * (margins - rho + psi)) <= tol)
    assert np.all(np.abs(psi * (cap - d)) <= tol)


# -- the RMBoost LP (eq. 6/16/17) ---------------------------------------------------------------
# -- independent statements ---------------------------------------------------------------
def check_verify_rejects_a_tampered_pair(master, sol, U) -> None:
    """An early answer (a feasible pair) passes the master's verification, and fails it with its
    objective moved off the value of its w (read from the session's margins, or summed again) or
    with gamma below that value (weak duality broken)."""
    assert not sol.control.optimal and master.verify(sol, U) == ""
    for margins in (sol.margins, None):  # the session's margins, or summed again
        sol.margins = margins
        sol.objective += 1e-3
        assert "not the value of w" in master.verify(sol, U)
        sol.objective -= 1e-3
        assert master.verify(sol, U) == ""
    sol.gamma = sol.dual_objective = sol.objective - 1e-3  # a value above gamma: not a pair
    assert "exceeds gamma" in master.verify(sol, U)


def minimax_lp(H: np.ndarray, y: np.ndarray, lam: float) -> dict:
    """Eq. (6) over the base rules H (n x T, H[i, j] = h_j(x_i)) by scipy's HiGHS.

    Variables x = [mu+ (T), mu- (T)] >= 0; minimise 1/2 - tau^T mu + lam 1^T (mu+ + mu-)
    with tau = (1/n) sum_i y_i h(x_i), subject to h(x_i)^T mu <= 1/2 (alpha_i) and
    -h(x_i)^T mu <= 1/2 (beta_i).
    """
    n, T = H.shape
    tau = y @ H / n
    cost = np.concatenate([lam - tau, lam + tau])
    A = np.hstack([H, -H])
    res = linprog(cost, A_ub=np.vstack([A, -A]), b_ub=np.full(2 * n, 0.5),
                  bounds=[(0, None)] * (2 * T), method="highs")
    assert res.status == 0, res.message
    duals = -res.ineqlin.marginals  # >= 0 for the <= rows of a minimisation
    return {"value": 0.5 + res.fun, "mu": res.x[:T] - res.x[T:], "alpha": duals[:n], "beta": duals[n:]}


def risk_F(H: np.ndarray, y: np.ndarray, mu: np.ndarray, lam: float) -> float:
    """F(mu) of eq. (6), from h-values and labels."""
    return float(0.5 - (y @ H / y.size) @ mu + lam * np.abs(mu).sum())


def dual_value(alpha: np.ndarray, beta: np.ndarray) -> float:
    """The objective of (17)."""
    return float(0.5 * (1.0 - alpha.sum() - beta.sum()))


def check_kkt(sol, U: np.ndarray, y: np.ndarray, lam: float, tol: float, columns=None) -> None:
    """Optimality of one restricted master in the paper's form (16)-(17).

    U holds the margin columns the solution's weights refer to; ``columns``
    (default all) are those in the master when it was solved.
    """
    n = y.size
    H = y[:, None] * U  # h-values: h_j(x_i) = y_i u_ij
    mu = sol.weights
    assert mu.shape == (U.shape[1],)
    cols = np.arange(U.shape[1]) if columns is None else np.asarray(columns)
    alpha, beta = paper_duals(sol.info["alpha"], sol.info["beta"], y)
    # dual feasibility of (17)
    assert alpha.min() >= -tol and beta.min() >= -tol
    g = H[:, cols].T @ (alpha - beta - y / n)
    assert np.all(np.abs(g) <= lam + tol), np.abs(g).max() - lam
    # primal feasibility of (16); removed columns carry no weight
    f = H @ mu
    assert np.all(np.abs(f) <= 0.5 + tol)
    removed = np.setdiff1d(np.arange(U.shape[1]), cols)
    assert np.all(mu[removed] == 0.0)
    # complementary slackness of the rows and of mu+, mu-
    assert np.all(np.abs(alpha * (f - 0.5)) <= tol)
    assert np.all(np.abs(beta * (f + 0.5)) <= tol)
    assert np.all(np.abs(mu[cols] * (g + lam * np.sign(mu[cols]))) <= tol)
    # strong duality, and R = F(mu) = dual value
    assert sol.primal_objective == pytest.approx(dual_value(alpha, beta), abs=10 * tol)
    assert sol.dual_objective == pytest.approx(dual_value(alpha, beta), abs=1e-12)
    assert sol.objective == pytest.approx(risk_F(H, y, mu, lam), abs=1e-12)
    assert sol.objective == sol.primal_objective == sol.record["risk"]
    assert sol.gamma == lam
    # the oracle's weighting (19): d . u = sum_i w_i ytilde_i h(x_i)
    v = y / n - (alpha - beta)
    w, ytilde = np.abs(v), np.sign(v)
    np.testing.assert_allclose(sol.distribution * y, v, atol=1e-12)
    np.testing.assert_allclose(sol.distribution @ U, (w * ytilde) @ H, atol=1e-12)
    w2, ytilde2 = oracle_weighting(sol.distribution, y)
    np.testing.assert_allclose(w2, w, atol=1e-12)
    assert np.all((ytilde2 == ytilde) | (w < 1e-12))


# -- the entropy projections ---------------------------------------------------------------------
def lp_min_max_edge(U, bound, cap):
    """min over the capped simplex of max_m (d.u_m - bound_m), variables [z, d]."""
    N, T = U.shape
    c = np.zeros(N + 1)
    c[0] = 1.0
    A_ub = np.hstack([-np.ones((T, 1)), U.T])
    b_ub = np.broadcast_to(np.asarray(bound, dtype=float), (T,))
    A_eq = np.hstack([[0.0], np.ones(N)])[None, :]
    bounds = [(None, None)] + [(0.0, min(cap, 1.0))] * N
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


def ref_capped_softmax(s, cap):
    """d_n = min(cap, exp(s_n - tau)) with tau the root of log sum_n min(cap, exp(s_n - tau)) = 0."""
    s = np.asarray(s, dtype=float)
    lc = np.log(min(cap, 1.0)) if cap < 1 else 0.0

    def F(tau):
        return logsumexp(np.minimum(lc, s - tau)) if cap < 1 else logsumexp(s - tau)

    lo, hi = s.min() - lc - 1.0, s.max() + np.log(s.size) + 1.0
    if cap < 1 and cap * s.size <= 1 + 1e-12:
        return np.full(s.size, 1.0 / s.size)
    tau = brentq(F, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    return np.exp(np.minimum(lc, s - tau)) if cap < 1 else np.exp(s - tau)


# -- data ----------------------------------------------------------------------------------------
def all_stump_columns(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Every distinct stump column, enumerated by brute force (no presorting)."""
    cols = [y.copy(), -y.copy()]  # the constants
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for lo, hi in zip(values[:-1], values[1:]):
            h = np.where(X[:, j] > (lo + hi) / 2, 1.0, -1.0)
            cols.append(y * h)
            cols.append(-y * h)
    U = np.column_stack(cols)
    return np.unique(U, axis=1)


def cancer_subset(n, f, seed):
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(seed)
    rows = rng.choice(X.shape[0], n, replace=False)
    cols = rng.choice(X.shape[1], f, replace=False)
    return X[np.ix_(rows, cols)], np.where(y[rows] == 1, 1.0, -1.0)


def blobs(n, seed):
    X, y = make_blobs(n_samples=n, centers=2, n_features=3, cluster_std=3.0, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


DATASETS = {
    "cancer-80x5": lambda: cancer_subset(80, 5, 0),
    "cancer-60x8": lambda: cancer_subset(60, 8, 1),
    "blobs-70": lambda: blobs(70, 2),
    "ties": lambda: (np.random.default_rng(5).integers(0, 4, (50, 4)).astype(float),
                     np.random.default_rng(6).choice([-1.0, 1.0], 50)),
}


def graded_pool(n: int, T: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and a margin pool [U, -U] of real-valued base rules correlated with y."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], n)
    H = np.clip(0.3 * y[:, None] + rng.normal(0.0, 0.6, (n, T)), -1.0, 1.0)
    U = y[:, None] * H
    return y, np.hstack([U, -U])


# -- backends and time ---------------------------------------------------------------------------
class FailingBackend(RecordingBackend):
    """Records every solution and fails (status ERROR) from solve number ``fail_at`` on."""

    def __init__(self, inner: str = "highspy", fail_at: int | None = None) -> None:
        super().__init__(inner)
        self.fail_at = fail_at

    def before_solve(self, session):
        if self.fail_at is not None and len(self.solutions) + 1 >= self.fail_at:
            sol = MasterSolution.failed(session.n_samples, SolveStatus.ERROR, "injected failure")
            sol.backend = self.name
            return sol
        return None


LP_BACKENDS = available_backends("lp")


REFERENCE_LP_BACKENDS = [b for b in ["highspy", "cvxpy:HIGHS", "cvxpy:CLARABEL", "cvxpy:ECOS"]
                         if b in LP_BACKENDS]


class VirtualClock:
    """``time.perf_counter`` for a test: time passes only when a backend says so (no wall-clock race).

    Every reading advances by a microsecond, so the clock still moves forward; a
    :class:`SlowBackend` adds its pause.  The time limits then depend on what the
    backends do, not on how loaded the machine is.
    """

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1e-6
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class SlowBackend(FailingBackend):
    """A backend that pauses before every solve (a slow solver without a time limit of its own);
    ``sleep`` may be a :class:`VirtualClock`'s."""

    def __init__(self, inner: str, pause: float, sleep=time.sleep) -> None:
        super().__init__(inner)
        self.pause = pause
        self.sleep = sleep
        self.name = f"slow {inner}"

    def before_solve(self, session):
        self.sleep(self.pause)
        return None


def nus_until_out_of_reach(leader: np.ndarray, follower: np.ndarray, nus, rows: float) -> int:
    """How many nus :func:`lpboosting.estimators.cv.select` scores ``follower``'s path for (folds x nus,
    scored with ``early_stopping=False``) before the reach rule stops it: ``leader`` has outscored it at
    PATIENCE nus in a row and its reach is below ``leader``'s best (``len(nus)`` when never)."""
    from lpboosting.estimators.cv import PATIENCE, _outscored, _overtaken

    behind = 0
    for j in range(1, len(nus) + 1):
        behind = behind + 1 if _outscored(leader[:, :j], follower[:, :j], rows) else 0
        if behind >= PATIENCE and _overtaken(follower[:, :j], [leader[:, :j]], np.asarray(nus), rows):
            return j
    return len(nus)
