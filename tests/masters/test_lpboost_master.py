"""The LPBoost master against an independent statement of the soft-margin LP."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lpboosting.masters import LPBoost, soft_margin
from tests.helpers import check_optimality, soft_margin_lp, TOL


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nu", [0.02, 0.1, 0.35, 1.0])
def test_master_matches_independent_lp(lp_backend, seed, nu):
    rng = np.random.default_rng(seed)
    N, T = 30 + 7 * seed, 3 + 2 * seed
    U = rng.choice([-1.0, 1.0], size=(N, T)) * rng.uniform(0.2, 1.0, size=(N, T))
    ref = soft_margin_lp(U, nu)
    sol = LPBoost(nu).solve(U, backend=lp_backend)
    tol = TOL[lp_backend]
    assert sol.backend == lp_backend
    assert sol.objective == pytest.approx(ref["value"], abs=tol)
    assert sol.dual_objective == pytest.approx(ref["value"], abs=tol)
    check_optimality(sol, U, nu, 10 * tol)
    # the independent LP's own dual is a feasible distribution with the same value
    assert np.max(ref["d"] @ U) == pytest.approx(ref["value"], abs=1e-9)


def test_highspy_signs_of_a_known_instance():
    # two examples, one column each way: d = (1/2, 1/2), gamma = 0, w = (1/2, 1/2), rho = 0
    U = np.array([[1.0, -1.0], [-1.0, 1.0]])
    sol = LPBoost(1.0).solve(U)
    np.testing.assert_allclose(sol.distribution, [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(sol.weights, [0.5, 0.5], atol=1e-12)
    assert sol.rho == pytest.approx(0.0, abs=1e-12)
    # with nu = 1/2 the cap 1 is loose: hard margin; the best column alone gives margins (1, -1)
    U = np.array([[1.0], [-1.0]])
    sol = LPBoost(0.5).solve(U)
    assert sol.objective == pytest.approx(-1.0)
    np.testing.assert_allclose(sol.distribution, [0.0, 1.0], atol=1e-12)
    # nu = 1 caps d at uniform: the value is the average margin 0, rho = 1, psi = (0, 2)
    sol = LPBoost(1.0).solve(U)
    assert sol.objective == pytest.approx(0.0, abs=1e-12)
    assert sol.rho == pytest.approx(1.0) and np.allclose(sol.slacks, [0.0, 2.0])


margin_matrices = st.integers(2, 25).flatmap(
    lambda n: st.integers(1, 6).flatmap(
        lambda t: arrays(np.float64, (n, t), elements=st.sampled_from([-1.0, -0.5, 0.0, 0.25, 1.0]))
    )
)


@settings(max_examples=60, deadline=None)
@given(U=margin_matrices, nu=st.floats(0.01, 1.0))
def test_duality_and_complementary_slackness_property(U, nu):
    sol = LPBoost(nu).solve(U)
    check_optimality(sol, U, nu, 1e-8)
    assert sol.objective == pytest.approx(soft_margin_lp(U, nu)["value"], abs=1e-8)


@settings(max_examples=30, deadline=None)
@given(U=margin_matrices, nu=st.floats(0.01, 1.0), seed=st.integers(0, 2**31))
def test_invariant_to_row_and_column_order(U, nu, seed):
    rng = np.random.default_rng(seed)
    rows, cols = rng.permutation(U.shape[0]), rng.permutation(U.shape[1])
    a = LPBoost(nu).solve(U)
    b = LPBoost(nu).solve(U[rows][:, cols])
    assert b.objective == pytest.approx(a.objective, abs=1e-9)


@pytest.mark.parametrize("nu", [0.0, -0.1, 1.5, float("nan"), float("inf"), "a"])
def test_nu_outside_unit_interval_is_rejected(nu):
    with pytest.raises(ValueError, match=r"nu must be"):
        LPBoost(nu)


@pytest.mark.parametrize(
    "U, match",
    [(np.zeros((0, 3)), "empty"), (np.array([[np.nan, 1.0]]), "NaN"), (np.zeros((2, 2, 2)), "2-D")],
)
def test_bad_margin_matrix(U, match):
    with pytest.raises(ValueError, match=match):
        LPBoost(0.5).solve(U)


def test_soft_margin_closed_form_matches_lp():
    rng = np.random.default_rng(3)
    for _ in range(20):
        m = rng.normal(size=rng.integers(1, 30))
        nu = rng.uniform(0.01, 1.0)
        # the soft margin of fixed margins is the LP with a single column
        assert soft_margin(m, nu) == pytest.approx(soft_margin_lp(m[:, None], nu)["value"], abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), nu=st.floats(0.001, 1.0),
       weighted=st.booleans(), ties=st.booleans())
def test_the_soft_margin_sorts_only_the_smallest_margins_and_equals_the_full_sort(seed, n, nu, weighted, ties):
    from lpboosting.masters.lpboost import finite_cap, smallest_order

    rng = np.random.default_rng(seed)
    m = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], n) if ties else rng.normal(size=n)
    s = rng.uniform(0.01, 3.0, n) if weighted else None
    p = np.full(n, 1.0 / n) if s is None else s / s.sum()
    caps = finite_cap(p / nu)
    order = smallest_order(m, caps)
    full = np.argsort(m, kind="stable")
    np.testing.assert_array_equal(order, full[:order.size])  # a prefix of the stable order
    assert order.size == n or caps[order].sum() > 1.0
    # the closed form over every margin, sorted in full
    c = caps[full]
    before = np.concatenate(([0.0], np.cumsum(c)[:-1]))
    below = np.concatenate(([0.0], np.cumsum(c * m[full])[:-1]))
    reference = float(np.max(m[full] - (before * m[full] - below)))
    assert soft_margin(m, nu, s) == pytest.approx(reference, rel=0, abs=1e-12)


def test_a_master_solution_holds_what_its_docstring_says_for_each_master():
    """MasterSolution's docstring, master by master: LPBoost's w in the simplex and d a capped
    probability vector; RMBoost's signed mu and signed weighting d = p - (alpha - beta)."""
    from lpboosting.masters import RMBoost
    from lpboosting.masters.base import MasterSolution

    rng = np.random.default_rng(5)
    U = np.sign(rng.standard_normal((40, 6)))
    lp = LPBoost(0.2).solve(U)
    assert isinstance(lp, MasterSolution)
    # HiGHS's feasibility tolerance (1e-7) bounds how far the values may leave their sets
    assert np.all(lp.weights >= -1e-7) and abs(lp.weights.sum() - 1) <= 1e-7
    assert np.all(lp.distribution >= -1e-7) and abs(lp.distribution.sum() - 1) <= 1e-7
    assert np.all(lp.distribution <= 1 / (0.2 * 40) + 1e-7) and np.all(lp.slacks >= -1e-7)
    assert abs(lp.objective - lp.gamma) <= 1e-7
    rm = RMBoost(0.1).solve(U)
    alpha, beta = rm.info["alpha"], rm.info["beta"]
    np.testing.assert_allclose(rm.distribution, 1 / 40 - (alpha - beta), atol=1e-12)
    assert rm.rho is None and rm.slacks is None and rm.gamma == 0.1
