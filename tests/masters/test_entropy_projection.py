"""Entropy projections of SoftBoost/TotalBoost and ERLPBoost against independent statements.

The references here are written in the test: the primal problems as cvxpy
programs (solved by CLARABEL and ECOS), the edge LP with scipy's HiGHS, and the
capped softmax by root finding on its threshold.  The solver is also checked
against the KKT conditions of each projection and against dual certificates
computed by the test itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lpboosting.backends.dedicated.newton_projection import (
    edge_lp,
    project_erlpboost,
    project_softboost,
)
from lpboosting.masters.capped_simplex import capped_softmax
from lpboosting.masters.entropy import ProjectionResult
from tests.helpers import lp_min_max_edge, ref_capped_softmax

cp = pytest.importorskip("cvxpy")

CONIC = [s for s in ["CLARABEL", "ECOS"] if s in cp.installed_solvers()]
# tight settings so that the references are accurate well beyond the compared digits
CONIC_OPTIONS = {
    "CLARABEL": dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, max_iter=500),
    "ECOS": dict(abstol=1e-11, reltol=1e-11, feastol=1e-11, max_iters=500),
}
D_TOL = 1e-6  # inf-norm agreement of the distributions
OBJ_TOL = 1e-7  # agreement of the optimal values


# ----------------------------------------------------------------------------
# independent references
# ----------------------------------------------------------------------------


def rel_entropy(d: np.ndarray) -> float:
    d = np.asarray(d, dtype=float)
    pos = d > 0
    return float(np.sum(d[pos] * np.log(d[pos] * d.size)))


def conic_softboost(U, bound, cap, solver):
    """min sum rel_entr(d, 1/N) s.t. U^T d <= bound, d in the capped simplex."""
    N, T = U.shape
    d = cp.Variable(N)
    cons = [cp.sum(d) == 1, d >= 0, U.T @ d <= bound]
    if cap < 1:
        cons.append(d <= cap)
    prob = cp.Problem(cp.Minimize(cp.sum(cp.rel_entr(d, np.full(N, 1.0 / N)))), cons)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prob.solve(solver=solver, **CONIC_OPTIONS[solver])
    assert prob.status in ("optimal", "optimal_inaccurate"), prob.status
    return prob.solution.opt_val, d.value


def conic_erlpboost(U, cap, eta, solver):
    """min gamma - (1/eta) sum entr(d) - ln(N)/eta ... written with entr: Delta(d) = ln N - H(d)."""
    N, T = U.shape
    d, gamma = cp.Variable(N), cp.Variable()
    cons = [cp.sum(d) == 1, d >= 0, U.T @ d <= gamma]
    if cap < 1:
        cons.append(d <= cap)
    objective = gamma + (np.log(N) - cp.sum(cp.entr(d))) / eta
    prob = cp.Problem(cp.Minimize(objective), cons)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prob.solve(solver=solver, **CONIC_OPTIONS[solver])
    assert prob.status in ("optimal", "optimal_inaccurate"), prob.status
    return prob.solution.opt_val, d.value


def ref_softboost_dual(U, bound, cap, lam):
    """g(lambda) = min over the capped simplex of Delta(d) + d^T U lambda - lambda^T bound."""
    d = ref_capped_softmax(-U @ lam, cap)
    return rel_entropy(d) + d @ (U @ lam) - lam @ np.broadcast_to(bound, lam.shape)


def ref_erlp_dual(U, cap, eta, w):
    d = ref_capped_softmax(-eta * (U @ w), cap)
    return rel_entropy(d) / eta + d @ (U @ w)


# ----------------------------------------------------------------------------
# instances
# ----------------------------------------------------------------------------


def random_instance(seed):
    rng = np.random.default_rng(seed)
    N = int(rng.integers(5, 60))
    T = int(rng.integers(1, 10))
    if rng.random() < 0.5:
        U = rng.uniform(-1, 1, size=(N, T))
    else:
        U = rng.choice([-1.0, 1.0], size=(N, T)) * rng.uniform(0.2, 1.0, size=(N, T))
    nu = rng.choice([0.05, 0.2, 0.5, 1.0])
    cap = max(1.0 / (nu * N), 1.0 / N) if rng.random() < 0.8 else 2.0  # 2.0: TotalBoost
    v = lp_min_max_edge(U, 0.0, cap)
    bound = v + rng.uniform(1e-2, 0.3, size=T)
    eta = float(rng.choice([0.5, 5.0, 50.0]))
    return U, bound, cap, eta


def feature_margins(seed, N=500, T=50):
    """Columns are scaled linear features of random data times the labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 5))
    y = np.sign(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=N))
    F = X @ rng.normal(size=(5, T)) + 0.3 * rng.normal(size=(N, T))
    F /= np.abs(F).max(axis=0)
    return y[:, None] * F


# ----------------------------------------------------------------------------
# KKT checks
# ----------------------------------------------------------------------------


def check_capped_simplex(d, cap, tol=1e-12):
    assert abs(d.sum() - 1.0) <= 1e-9
    assert d.min() >= -tol and d.max() <= min(cap, 1.0) + tol


def check_stationarity(d, scores, cap, tol):
    """d minimises Delta(d) - d^T scores over the capped simplex.

    KKT: ln(d_n N) + 1 - scores_n + mu + beta_n = 0 with beta_n >= 0, beta_n (cap - d_n) = 0,
    i.e. ln d_n - scores_n is one constant on the uncapped coordinates and the capped ones
    have scores above it.
    """
    c = min(cap, 1.0)
    free = (d < c * (1 - 1e-9)) & (d > 1e-250)
    capped = d >= c * (1 - 1e-9)
    if not free.any():  # every coordinate at the cap (cap = 1/N): any small enough mu works
        assert capped.all()
        return
    r = np.log(d[free]) - scores[free]  # = -(1 + mu) - ln N on free coordinates
    assert np.ptp(r) <= tol * max(1.0, np.abs(scores).max())
    if capped.any():
        # beta_n = -(ln(cap N) + 1 - scores_n + mu) >= 0  <=>  ln cap - scores_n <= r
        assert np.all(np.log(c) - scores[capped] <= r.mean() + tol * max(1.0, np.abs(scores).max()))


def check_softboost_kkt(res: ProjectionResult, U, bound, cap):
    d, lam = res.distribution, res.multipliers
    check_capped_simplex(d, cap)
    edges = U.T @ d
    assert np.all(edges <= bound + 1e-8)  # primal feasibility
    assert np.all(lam >= 0)  # dual feasibility
    assert np.all(np.abs(lam * (edges - bound)) <= 1e-8)  # complementary slackness
    check_stationarity(d, -(U @ lam), cap, 1e-8)
    # the gap of the returned pair, evaluated by the test's own dual function
    g = ref_softboost_dual(U, bound, cap, lam)
    assert rel_entropy(d) - g <= 1e-8 * max(1.0, abs(g))
    assert res.dual_objective == pytest.approx(g, abs=1e-9)
    assert res.objective == pytest.approx(rel_entropy(d), abs=1e-12)


def check_erlp_kkt(res: ProjectionResult, U, cap, eta):
    d, w = res.distribution, res.multipliers
    check_capped_simplex(d, cap)
    assert abs(w.sum() - 1) <= 1e-12 and w.min() >= 0
    edges = U.T @ d
    gamma = edges.max()
    assert res.gamma == pytest.approx(gamma, abs=1e-15)
    assert np.all(w * (gamma - edges) <= 1e-9)  # complementary slackness
    check_stationarity(d, -eta * (U @ w), cap, 1e-8)
    h = ref_erlp_dual(U, cap, eta, w)
    primal = gamma + rel_entropy(d) / eta
    assert res.objective == pytest.approx(primal, abs=1e-12)
    assert res.dual_objective == pytest.approx(h, abs=1e-9)
    assert primal - h <= 1e-8 * max(1.0, abs(primal))


# ----------------------------------------------------------------------------
# capped softmax
# ----------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    s=arrays(np.float64, st.integers(1, 40), elements=st.floats(-50, 50)),
    frac=st.floats(0.0, 1.0),
    shift=st.floats(-1e4, 1e4),
)
def test_capped_softmax_matches_root_finding(s, frac, shift):
    N = s.size
    cap = 1.0 / N + frac * (1.0 - 1.0 / N) if frac < 1 else 3.0
    d, log_d = capped_softmax(s, cap)
    check_capped_simplex(d, cap)
    np.testing.assert_allclose(d, ref_capped_softmax(s, cap), atol=1e-12, rtol=1e-9)
    np.testing.assert_allclose(np.exp(log_d), d, rtol=1e-12, atol=0)
    # invariant to adding a constant to every score, however large
    d2, _ = capped_softmax(s + shift, cap)
    np.testing.assert_allclose(d2, d, atol=1e-9)
    # monotone in the scores
    order = np.argsort(s)
    assert np.all(np.diff(d[order]) >= -1e-15)


def test_capped_softmax_huge_scores_do_not_overflow():
    s = np.array([1e300, -1e300, 0.0, 5.0, 5.0 - 1e-3])
    d, log_d = capped_softmax(s, 0.3)
    assert np.all(np.isfinite(log_d))
    # three caps (the third because exp(5 - 1e-3) / (exp(5 - 1e-3) + 1) * 0.4 > 0.3), the
    # remaining 0.1 on the score 0 and nothing on -1e300
    np.testing.assert_allclose(d, [0.3, 0.0, 0.1, 0.3, 0.3], atol=1e-15)
    d, log_d = capped_softmax(np.array([-1e305, -1e305 + 1e290, 7.0]), 1.0)
    np.testing.assert_allclose(d, [0.0, 0.0, 1.0])
    assert np.all(np.isfinite(log_d))


def test_capped_softmax_rejects_bad_input():
    with pytest.raises(ValueError, match="below 1/N"):
        capped_softmax(np.zeros(4), 0.2)
    with pytest.raises(ValueError, match="finite"):
        capped_softmax(np.array([0.0, np.inf]), 0.9)
    d, _ = capped_softmax(np.array([3.0, -1.0, 0.0, 2.0]), 0.25)  # cap = 1/N: uniform
    np.testing.assert_allclose(d, 0.25)


# ----------------------------------------------------------------------------
# SoftBoost / TotalBoost
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("solver", CONIC)
@pytest.mark.parametrize("seed", range(12))
def test_softboost_matches_conic(seed, solver):
    U, bound, cap, _ = random_instance(seed)
    res = project_softboost(U, bound, cap)
    assert res.status == "optimal" and res.verified, res.message
    value, d_ref = conic_softboost(U, bound, cap, solver)
    assert np.max(np.abs(res.distribution - d_ref)) <= D_TOL
    assert res.objective == pytest.approx(value, abs=OBJ_TOL)
    check_softboost_kkt(res, U, bound, cap)


@pytest.mark.parametrize("seed", range(40))
def test_softboost_kkt_random(seed):
    U, bound, cap, _ = random_instance(1000 + seed)
    res = project_softboost(U, bound, cap)
    assert res.status == "optimal" and res.verified, res.message
    check_softboost_kkt(res, U, bound, cap)
    assert res.gap == pytest.approx(res.objective - res.dual_objective, abs=1e-15)
    assert res.gamma == pytest.approx((U.T @ res.distribution).max(), abs=1e-15)
    assert res.max_violation <= 1e-8


def test_softboost_slack_bound_gives_the_capped_uniform_distribution():
    rng = np.random.default_rng(0)
    U = rng.uniform(-1, 1, size=(30, 4))
    res = project_softboost(U, 5.0, 0.1)
    assert res.status == "optimal"
    np.testing.assert_allclose(res.distribution, 1 / 30, atol=1e-15)
    np.testing.assert_allclose(res.multipliers, 0.0)
    assert res.objective == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("cap_kind", ["capped", "totalboost"])
@pytest.mark.parametrize("seed", range(5))
def test_infeasibility_is_flagged_exactly(seed, cap_kind):
    rng = np.random.default_rng(seed)
    N, T = 40, 6
    U = rng.uniform(-1, 1, size=(N, T))
    cap = 1.0 / (0.2 * N) if cap_kind == "capped" else 1.0
    v = lp_min_max_edge(U, 0.0, cap)  # the smallest bound that is feasible
    below = project_softboost(U, v - 1e-6, cap)
    assert below.status == "infeasible" and below.verified, below.message
    assert below.max_violation == pytest.approx(1e-6, abs=1e-9)  # the edge-LP value
    assert np.isinf(below.objective)
    check_capped_simplex(below.distribution, cap, tol=1e-9)
    above = project_softboost(U, v + 1e-3, cap)
    assert above.status == "optimal" and above.verified, above.message
    check_softboost_kkt(above, U, np.full(T, v + 1e-3), cap)
    # the edge LP agrees with the independent statement, with and without bounds
    value, d = edge_lp(U, v + 1e-3, cap)
    assert value == pytest.approx(-1e-3, abs=1e-9)
    assert np.max(U.T @ d) - (v + 1e-3) == pytest.approx(value, abs=1e-9)
    b = rng.uniform(-0.2, 0.2, size=T)
    assert edge_lp(U, b, cap)[0] == pytest.approx(lp_min_max_edge(U, b, cap), abs=1e-9)


def test_single_impossible_column_is_infeasible():
    U = np.array([[1.0, 0.0], [0.5, 0.0], [0.2, 0.0]])
    # the smallest capped average of column 0 with cap 1/2 is (0.2 + 0.5)/2
    res = project_softboost(U, np.array([0.35 - 1e-6, 1.0]), 0.5)
    assert res.status == "infeasible"
    res = project_softboost(U, np.array([0.35 + 1e-3, 1.0]), 0.5)
    assert res.status == "optimal"


@pytest.mark.parametrize("offset", [1e-3, 1e-5, 1e-7])
@pytest.mark.parametrize("seed", range(2))
def test_tight_cap_trap(seed, offset):
    """nu = 0.3, N = 500, bound just above the edge-LP value: huge multipliers."""
    U = feature_margins(seed)
    N, T = U.shape
    cap = 1.0 / (0.3 * N)
    v = lp_min_max_edge(U, 0.0, cap)
    bound = np.full(T, v + offset)
    res = project_softboost(U, bound, cap)
    assert res.status == "optimal" and res.verified, res.message
    check_softboost_kkt(res, U, bound, cap)
    # d is the capped softmax of -U lambda, recomputed independently
    np.testing.assert_allclose(res.distribution, ref_capped_softmax(-U @ res.multipliers, cap), atol=1e-10)
    if offset >= 1e-3:  # where the interior-point reference is itself accurate
        value, d_ref = conic_softboost(U, bound, cap, "CLARABEL")
        assert np.max(np.abs(res.distribution - d_ref)) <= D_TOL
        assert res.objective == pytest.approx(value, abs=OBJ_TOL)
    # just below the LP value the same instance is infeasible
    res = project_softboost(U, np.full(T, v - 1e-6), cap)
    assert res.status == "infeasible" and res.verified, res.message


def test_failure_is_reported_not_an_unverified_distribution():
    U = feature_margins(1, N=300, T=20)
    cap = 1.0 / (0.3 * 300)
    v = lp_min_max_edge(U, 0.0, cap)
    res = project_softboost(U, v + 1e-5, cap, max_iter=1)
    assert res.status == "failed" and not res.verified
    assert "not certified infeasible" in res.message
    res = project_erlpboost(U, cap, 500.0, max_iter=1)
    assert res.status == "failed" and not res.verified
    assert res.gap > 1e-8


def test_warm_start_same_answer_fewer_iterations_softboost():
    U = feature_margins(2, N=300, T=30)
    N, T = U.shape
    cap = 1.0 / (0.3 * N)
    lam = None
    warm_its = cold_its = 0
    for t in range(2, T + 1):
        Ut = U[:, :t]
        bound = lp_min_max_edge(Ut, 0.0, cap) + 0.02
        warm = project_softboost(Ut, bound, cap, multipliers0=lam)
        cold = project_softboost(Ut, bound, cap)
        assert warm.status == cold.status == "optimal"
        np.testing.assert_allclose(warm.distribution, cold.distribution, atol=1e-9)
        lam = warm.multipliers
        warm_its += warm.iterations
        cold_its += cold.iterations
    assert warm_its < 0.7 * cold_its, (warm_its, cold_its)


def test_warm_start_same_answer_fewer_iterations_erlpboost():
    U = feature_margins(3, N=300, T=30)
    N, T = U.shape
    cap = 1.0 / (0.1 * N)
    eta = 2 * np.log(0.1 * N) / 0.01
    w = None
    warm_its = cold_its = 0
    for t in range(1, T + 1):
        warm = project_erlpboost(U[:, :t], cap, eta, weights0=w)
        cold = project_erlpboost(U[:, :t], cap, eta)
        assert warm.status == cold.status == "optimal"
        np.testing.assert_allclose(warm.distribution, cold.distribution, atol=1e-8)
        assert warm.objective == pytest.approx(cold.objective, abs=1e-10)
        w = warm.multipliers
        warm_its += warm.iterations
        cold_its += cold.iterations
    assert warm_its < 0.7 * cold_its, (warm_its, cold_its)


margin_matrices = st.integers(2, 30).flatmap(
    lambda n: st.integers(1, 5).flatmap(
        lambda t: arrays(np.float64, (n, t), elements=st.floats(-1, 1, allow_subnormal=False))
    )
)


@settings(max_examples=40, deadline=None)
@given(U=margin_matrices, nu=st.floats(0.05, 1.0), slack=st.floats(1e-3, 0.5), seed=st.integers(0, 2**31))
def test_softboost_invariant_to_row_permutation_and_duplicate_columns(U, nu, slack, seed):
    N, T = U.shape
    cap = max(1.0 / (nu * N), 1.0 / N)
    bound = lp_min_max_edge(U, 0.0, cap) + slack
    a = project_softboost(U, bound, cap)
    assert a.status == "optimal", a.message
    check_softboost_kkt(a, U, np.full(T, bound), cap)
    rng = np.random.default_rng(seed)
    rows = rng.permutation(N)
    b = project_softboost(U[rows], bound, cap)
    assert b.status == "optimal", b.message
    np.testing.assert_allclose(b.distribution, a.distribution[rows], atol=1e-8)
    # weak duality across the two solves: g(lam_a) <= Delta(d_b) + lam_a^T (U^T d_b - bound)
    assert a.dual_objective <= b.objective + a.multipliers.sum() * b.max_violation + 1e-12
    assert b.dual_objective <= a.objective + b.multipliers.sum() * a.max_violation + 1e-12
    assert b.objective == pytest.approx(a.objective, abs=1e-9)
    # duplicating a column (and its bound) does not change the primal problem
    j = int(rng.integers(T))
    c = project_softboost(np.column_stack([U, U[:, j]]), bound, cap)
    assert c.status == "optimal", c.message
    np.testing.assert_allclose(c.distribution, a.distribution, atol=1e-8)


# ----------------------------------------------------------------------------
# ERLPBoost
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("solver", CONIC)
@pytest.mark.parametrize("seed", range(12))
def test_erlpboost_matches_conic(seed, solver):
    U, _, cap, eta = random_instance(seed)
    res = project_erlpboost(U, cap, eta)
    assert res.status == "optimal" and res.verified, res.message
    value, d_ref = conic_erlpboost(U, cap, eta, solver)
    assert np.max(np.abs(res.distribution - d_ref)) <= D_TOL
    assert res.objective == pytest.approx(value, abs=OBJ_TOL)
    check_erlp_kkt(res, U, cap, eta)


@pytest.mark.parametrize("eta", [0.01, 1.0, 30.0, 300.0, 3000.0])
@pytest.mark.parametrize("seed", range(6))
def test_erlpboost_kkt_random(seed, eta):
    U, _, cap, _ = random_instance(2000 + seed)
    res = project_erlpboost(U, cap, eta)
    assert res.status == "optimal" and res.verified, res.message
    check_erlp_kkt(res, U, cap, eta)


@pytest.mark.parametrize("nu", [0.01, 0.3])
def test_erlpboost_large_instance(nu):
    U = feature_margins(4)
    N = U.shape[0]
    cap = 1.0 / (nu * N)
    eta = 2 * np.log(nu * N) / 0.01
    res = project_erlpboost(U, cap, eta)
    assert res.status == "optimal" and res.verified, res.message
    check_erlp_kkt(res, U, cap, eta)
    value, d_ref = conic_erlpboost(U, cap, eta, "CLARABEL")
    assert res.objective == pytest.approx(value, abs=OBJ_TOL)
    assert np.max(np.abs(res.distribution - d_ref)) <= D_TOL


def test_erlpboost_limits():
    rng = np.random.default_rng(5)
    U = rng.uniform(-1, 1, size=(20, 3))
    # cap = 1/N fixes d at uniform: the value is the best average edge
    res = project_erlpboost(U, 1.0 / 20, 7.0)
    assert res.status == "optimal"
    np.testing.assert_allclose(res.distribution, 1 / 20)
    assert res.objective == pytest.approx(U.mean(axis=0).max(), abs=1e-14)
    # a single column: w = 1 and d = capped softmax of -eta u
    res = project_erlpboost(U[:, :1], 0.2, 3.0)
    np.testing.assert_allclose(res.multipliers, [1.0])
    np.testing.assert_allclose(res.distribution, ref_capped_softmax(-3.0 * U[:, 0], 0.2), atol=1e-12)
    with pytest.raises(ValueError, match="eta"):
        project_erlpboost(U, 0.2, 0.0)
    with pytest.raises(ValueError, match="at least one column"):
        project_erlpboost(np.zeros((4, 0)), 0.5, 1.0)


@settings(max_examples=40, deadline=None)
@given(U=margin_matrices, nu=st.floats(0.05, 1.0), eta=st.floats(0.1, 500.0), seed=st.integers(0, 2**31))
def test_erlpboost_invariant_to_row_and_column_permutation(U, nu, eta, seed):
    N, T = U.shape
    cap = max(1.0 / (nu * N), 1.0 / N)
    a = project_erlpboost(U, cap, eta)
    assert a.status == "optimal", a.message
    check_erlp_kkt(a, U, cap, eta)
    rng = np.random.default_rng(seed)
    rows, cols = rng.permutation(N), rng.permutation(T)
    b = project_erlpboost(U[rows][:, cols], cap, eta)
    assert b.status == "optimal", b.message
    np.testing.assert_allclose(b.distribution, a.distribution[rows], atol=1e-7)
    # both brackets [dual, primal] contain the same optimum
    assert b.objective >= a.dual_objective - 1e-12 and a.objective >= b.dual_objective - 1e-12
    assert b.objective == pytest.approx(a.objective, abs=1e-9)


# ----------------------------------------------------------------------------
# input validation
# ----------------------------------------------------------------------------


def test_bad_inputs_are_rejected():
    U = np.zeros((4, 2))
    with pytest.raises(ValueError, match="below 1/N"):
        project_softboost(U, 0.0, 0.1)
    with pytest.raises(ValueError, match="length T"):
        project_softboost(U, np.zeros(3), 0.5)
    with pytest.raises(ValueError, match="N x T"):
        project_softboost(np.zeros(4), 0.0, 0.5)
    with pytest.raises(ValueError, match="finite"):
        project_softboost(np.full((4, 2), np.nan), 0.0, 0.5)
    # no columns: the capped uniform distribution
    res = project_softboost(np.zeros((4, 0)), 0.0, 0.5)
    assert res.status == "optimal"
    np.testing.assert_allclose(res.distribution, 0.25)
