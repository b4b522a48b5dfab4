"""MulticlassERLPBoost: ERLPBoost over (example, wrong class) pairs with each example's pairs capped together.

The group-capped softmax is checked against the maximisation stated directly
in cvxpy; the projection against its dual maximised by scipy's SLSQP over the
simplex, with the KKT conditions between them (CLARABEL at gap and feasibility
tolerances of 1e-11 where vectors are compared, at its defaults, 1e-8, where
values are); the dedicated Newton solver's Hessian against the differences of
its gradient, and its projection against CLARABEL's; K = 2 against ERLPBoost;
column generation over a pool against the multiclass LP over the whole pool.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from lpboosting import column_generation
from lpboosting.backends.cvxpy_backend import project_with_cvxpy
from lpboosting.masters import ERLPBoost, MulticlassERLPBoost, MulticlassLPBoost
from lpboosting.masters.capped_simplex import capped_softmax, group_capped_softmax, relative_entropy
from lpboosting.oracles.multiclass import ClassPool
from lpboosting.pairs import example_mass, pair_columns
from tests.masters.test_multiclass_master import pool

pytest.importorskip("clarabel")

#: CLARABEL's gap and feasibility tolerances where a test compares vectors (the defaults are 1e-8)
TIGHT = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}


def direct_maximiser(s: np.ndarray, g: int, caps: np.ndarray, p: np.ndarray) -> np.ndarray:
    """argmax d.s - sum d ln(d / q) over d >= 0, sum d = 1, each group of g summing to at most its
    cap, q = p / g on each pair: stated pair by pair in cvxpy (CLARABEL), not through the closed form."""
    import cvxpy as cp

    n = caps.size
    q = np.repeat(p / g, g)
    keep = q > 0
    d = cp.Variable(int(keep.sum()))
    full = np.flatnonzero(keep)
    rows = [[j for j, pair in enumerate(full) if pair // g == i] for i in range(n)]
    cons = [cp.sum(d) == 1, d >= 0] + [cp.sum(d[r]) <= caps[i] for i, r in enumerate(rows) if r]
    cp.Problem(cp.Maximize(s[keep] @ d - cp.sum(cp.rel_entr(d, q[keep]))), cons).solve(solver="CLARABEL", **TIGHT)
    out = np.zeros(s.size)
    out[keep] = d.value
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("nu", [0.15, 0.5, 1.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_group_capped_softmax_is_the_maximiser(seed, nu, weighted):
    rng = np.random.default_rng(seed)
    n, g = 12, 3
    s = 3.0 * rng.normal(size=n * g)
    p = rng.integers(0, 3, n).astype(float) if weighted else np.ones(n)
    p[0] = max(p[0], 1.0)
    p /= p.sum()
    caps = np.minimum(p / nu, 2.0)
    d, log_d = group_capped_softmax(s, g, caps, p if weighted else None)
    assert d.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(example_mass(d, g + 1) <= caps + 1e-12)
    assert np.allclose(np.exp(log_d), d, rtol=1e-12, atol=0)
    reference = direct_maximiser(s, g, caps, p)
    q = np.repeat(p / g, g)

    def value(x):
        return float(x @ s) - relative_entropy(np.clip(x, 0, None), q)

    # the closed form is at least as good as CLARABEL's answer, and as close to it as the maximiser
    # of a 1-strongly concave objective (Pinsker: ||d - d*||_1^2 <= 2 (f(d*) - f(d))) must be
    excess = value(d) - value(reference)
    assert excess >= -1e-9
    assert np.abs(d - reference).sum() <= np.sqrt(2 * (max(excess, 0.0) + 1e-9))


def test_groups_of_one_are_the_capped_softmax():
    s = np.random.default_rng(4).normal(size=20) * 4
    d, _ = group_capped_softmax(s, 1, 0.1)
    assert np.allclose(d, capped_softmax(s, 0.1)[0], rtol=0, atol=1e-15)


def test_scores_must_be_whole_groups():
    with pytest.raises(ValueError, match="whole groups of 3"):
        group_capped_softmax(np.zeros(7), 3, 0.5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("K, nu", [(3, 0.2), (4, 0.1), (5, 0.5)])
def test_projection_against_its_dual_by_scipy(seed, K, nu):
    y, P = pool(seed, 25, K, 8)
    U = pair_columns(P, y, K)
    master = MulticlassERLPBoost(nu, 0.1, K)
    eta = master.eta(U.shape[0])
    assert eta == pytest.approx(max(0.5, 2 * np.log((K - 1) / nu) / 0.1))
    assert master.project(U, backend="cvxpy:CLARABEL").status.ok  # at CLARABEL's default tolerances
    result = project_with_cvxpy(master, U, {"eta": eta}, "CLARABEL", TIGHT)  # the KKT check needs more
    assert result.status.ok

    def negative_dual(w):
        s = U @ w
        d = master.distribution_at(U, w, eta)
        q = np.repeat(np.full(25, 1 / 25) / (K - 1), K - 1)
        return -(float(d @ s) + relative_entropy(d, q) / eta), -(U.T @ d)

    t = U.shape[1]
    best = minimize(negative_dual, np.full(t, 1 / t), jac=True, method="SLSQP", bounds=[(0, 1)] * t,
                    constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1, "jac": lambda w: np.ones(t)}],
                    options={"ftol": 1e-14, "maxiter": 500})
    assert best.success
    # strong duality: the projection's value is the dual's maximum (both solvers to about 1e-8)
    assert result.objective == pytest.approx(-best.fun, abs=1e-6)
    assert result.dual_objective == pytest.approx(-best.fun, abs=1e-6)
    # KKT: the primal d is the dual's inner minimiser at the optimal w (d(w) moves by up to eta
    # |U dw| relative to itself, and CLARABEL's multipliers are accurate to about 1e-8 here) ...
    d, w = result.distribution, result.multipliers
    assert np.max(np.abs(d - master.distribution_at(U, w, eta))) < eta * 1e-7
    # ... and a column of positive weight has the largest edge (complementary slackness)
    edges = U.T @ d
    assert np.all(edges[w > 1e-4] >= edges.max() - 1e-5)
    assert np.all(example_mass(d, K) <= master.example_caps(U.shape[0]) + 1e-8)


@pytest.mark.parametrize("seed", range(3))
def test_two_classes_are_erlpboost(seed):
    y, P = pool(seed, 30, 2, 7)
    U = pair_columns(P, y, 2)
    multi = MulticlassERLPBoost(0.2, 0.05, 2)
    binary = ERLPBoost(0.2, 0.05)
    assert multi.eta(U.shape[0]) == pytest.approx(binary.eta(U.shape[0]))
    a = multi.project(U, backend="cvxpy:CLARABEL")
    b = binary.project(U, backend="cvxpy:CLARABEL")
    assert a.objective == pytest.approx(b.objective, abs=1e-7)
    assert np.max(np.abs(a.distribution - b.distribution)) < 1e-5


def test_sample_weights_are_repeated_examples():
    y, P = pool(5, 15, 3, 6)
    w = np.arange(15) % 3
    w[0] = 1
    repeated = np.repeat(np.arange(15), w)
    a = MulticlassERLPBoost(0.3, 0.1, 3, sample_weight=w.astype(float)).project(
        pair_columns(P, y, 3), backend="cvxpy:CLARABEL")
    b = MulticlassERLPBoost(0.3, 0.1, 3).project(pair_columns(P[repeated], y[repeated], 3),
                                                 backend="cvxpy:CLARABEL")
    assert a.objective == pytest.approx(b.objective, abs=1e-7)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("nu", [0.1, 0.4])
def test_column_generation_over_a_pool(seed, nu):
    K, delta = 4, 0.05
    y, P = pool(seed, 40, K, 50)
    full = MulticlassLPBoost(nu, K).solve(pair_columns(P, y, K))
    result = column_generation(MulticlassERLPBoost(nu, delta, K), ClassPool(P, y, K))
    assert result.status == "converged"
    assert {r.extra["solver"] for r in result.history if "solver" in r.extra} <= {"dedicated", "lp"}
    last = result.history[-1]
    # the stopping rule's bounds, and ERLPBoost's guarantee: the final LP within delta of the optimum
    assert min(last.extra["upper"], last.edge + last.extra["entropy"] / last.extra["eta"]) \
        - last.extra["lower"] <= delta / 2 + 1e-12
    assert full.objective - delta <= result.objective <= full.objective + 1e-9
    # the final weights are the multiclass LP's over the chosen columns
    chosen = MulticlassLPBoost(nu, K).solve(result.columns)
    assert result.objective == pytest.approx(chosen.objective, abs=1e-9)
    assert result.weights.sum() == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
def test_the_newton_hessian_is_the_jacobian_of_the_gradient(seed, weighted):
    """The dual's gradient is U^T d(x) with d = group-capped softmax of -eta U x; its Jacobian,
    by central differences, is minus the Newton solver's Hessian (capped and free groups both)."""
    from lpboosting.backends.dedicated.newton_projection import _GroupDual

    rng = np.random.default_rng(seed)
    y, P = pool(seed, 20, 4, 6)
    U = np.asfortranarray(pair_columns(P, y, 4).astype(float))
    p = rng.random(20) + 0.2 if weighted else np.full(20, 1 / 20)
    p /= p.sum()
    dual = _GroupDual(U, np.zeros(6), np.minimum(p / 0.3, 2.0), 30.0, p, group=3)
    x = rng.random(6)
    x /= x.sum()
    ev = dual(x)
    assert (~ev.free).any() and ev.free.any()  # some examples at their cap, some below
    H = dual.hessian_neg(ev, np.arange(6))
    step = 1e-6
    J = np.column_stack([(dual(x + step * e).grad - dual(x - step * e).grad) / (2 * step) for e in np.eye(6)])
    np.testing.assert_allclose(-J, H, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("K, nu, weighted", [(3, 0.2, False), (4, 0.1, True), (5, 0.5, False)])
def test_the_newton_projection_is_the_conic_one(seed, K, nu, weighted):
    """The default (dedicated Newton on the dual over w, verified by its duality gap) and
    CLARABEL on the primal: the same projection."""
    y, P = pool(seed, 30, K, 10)
    U = pair_columns(P, y, K)
    w = (np.arange(30) % 3).astype(float) if weighted else None
    master = MulticlassERLPBoost(nu, 0.05, K, sample_weight=w)
    newton = master.project(U)
    assert newton.solver == "dedicated" and newton.verified and not newton.fallback
    conic = project_with_cvxpy(master, U, {"eta": master.eta(U.shape[0])}, "CLARABEL", TIGHT)
    assert newton.objective == pytest.approx(conic.objective, abs=1e-7)
    assert newton.dual_objective <= newton.objective + 1e-9
    # the same d: the objective is strongly convex in d (Pinsker, as above, with weight 1/eta)
    eta = master.eta(U.shape[0])
    assert np.abs(newton.distribution - conic.distribution).sum() <= np.sqrt(2 * eta * 1e-7)
    if weighted:
        assert np.all(newton.distribution.reshape(30, K - 1)[w == 0] == 0)


@pytest.mark.parametrize("backend", ["dedicated", "cvxpy:CLARABEL"])
def test_verify_rejects_an_example_over_its_cap(backend):
    from lpboosting.backends import get_backend

    y, P = pool(1, 20, 3, 6)
    U = pair_columns(P, y, 3)
    master = MulticlassERLPBoost(0.5, 0.1, 3)
    session = get_backend(backend).open(master, U.shape[0])
    d0 = master.initial_distribution(20)
    for j in range(U.shape[1]):
        session.add_column(U[:, j], edge=float(d0 @ U[:, j]))
    solution = session.solve()
    assert master.verify(solution, U) == ""
    cap = master.example_caps(U.shape[0])[0]
    d = np.zeros(U.shape[0])
    d[0] = d[1] = 0.75 * cap  # each pair under the cap, the example's two pairs over it
    d[2:] = (1 - d[:2].sum()) / (d.size - 2)
    assert master.cap_excess(d) == pytest.approx(0.5 * cap)
    solution.distribution = d
    assert "exceeds its cap by" in master.verify(solution, U)


def test_the_group_projection_refuses_bad_input_with_what_was_wrong():
    from lpboosting.backends.dedicated.newton_projection import project_group_erlpboost

    with pytest.raises(ValueError, match="whole groups of 2 rows"):
        project_group_erlpboost(np.ones((5, 2)), 2, 0.5, 10.0)
    with pytest.raises(ValueError, match="finite"):
        project_group_erlpboost(np.full((4, 2), np.nan), 2, 0.5, 10.0)
    with pytest.raises(ValueError, match="at least one column"):
        project_group_erlpboost(np.ones((4, 0)), 2, 0.5, 10.0)
    with pytest.raises(ValueError, match="eta must be a positive number"):
        project_group_erlpboost(np.ones((4, 2)), 2, 0.5, -1.0)
