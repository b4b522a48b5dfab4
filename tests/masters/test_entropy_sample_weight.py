"""Sample weights in SoftBoost, TotalBoost and ERLPBoost: the master of the data with repeated rows.

With integer weights s the weighted master must be the master of the data
with row n repeated s_n times (``np.repeat(U, s, axis=0)``): the same optimal
value, and the mass of a distinct row equal to the summed mass of its copies.
A zero weight drops the row (d_n = 0, no NaN), constant weights give the
unweighted master exactly, and the dedicated Newton solver agrees with the
conic statement on weighted instances.  The references here are the
unweighted solvers on the repeated data.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lpboosting import column_generation
from lpboosting.backends import CvxpyBackend
from lpboosting.backends.dedicated.newton_projection import project_erlpboost, project_softboost
from lpboosting.masters import ERLPBoost, SoftBoost, TotalBoost
from lpboosting.masters.capped_simplex import capped_softmax, relative_entropy
from lpboosting.masters.entropy import erlpboost_dual_value, softboost_dual_value
from lpboosting.masters.lpboost import CAP_CEILING
from lpboosting.oracles import Stumps
from tests.helpers import (
    all_stump_columns, cancer_subset, lp_min_max_edge, ref_capped_softmax, soft_margin_lp,
)

cp = pytest.importorskip("cvxpy")

CONIC = [s for s in ["CLARABEL", "ECOS"] if s in cp.installed_solvers()]
TIGHT = {
    "CLARABEL": dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, max_iter=500),
    "ECOS": dict(abstol=1e-11, reltol=1e-11, feastol=1e-11, max_iters=500),
}
# measured accuracy of the conic solvers at these settings on +-1 margin matrices (the
# unweighted statements alike): objective ~1e-10, d ~5e-6 (CLARABEL) and ~2e-7 (ECOS)
CONIC_OBJ_TOL = 1e-7
CONIC_D_TOL = {"CLARABEL": 1e-5, "ECOS": 1e-6}

KINDS = ["SoftBoost", "TotalBoost", "ERLPBoost"]


def make_master(kind: str, nu: float, sample_weight=None, delta: float = 0.05):
    if kind == "SoftBoost":
        return SoftBoost(nu, delta, sample_weight=sample_weight)
    if kind == "TotalBoost":
        return TotalBoost(delta, sample_weight=sample_weight)
    return ERLPBoost(nu, delta, sample_weight=sample_weight)


def repeated(s: np.ndarray) -> np.ndarray:
    """The row index of every copy: np.repeat(U, s, axis=0) is U[repeated(s)]."""
    return np.repeat(np.arange(s.size), s.astype(int))


def copies_mass(d_rep: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The mass of the copies of each distinct row (0 for rows of weight 0)."""
    return np.bincount(repeated(s), weights=d_rep, minlength=s.size)


def projection_state(kind: str, U: np.ndarray, s: np.ndarray, nu: float, slack: float, eta: float) -> dict:
    """bound = (edge-LP value of the repeated data) + slack for SoftBoost/TotalBoost, eta for ERLPBoost."""
    if kind == "ERLPBoost":
        return {"eta": eta}
    Ur = U[repeated(s)]
    n = Ur.shape[0]
    cap = 1.0 if kind == "TotalBoost" else max(1.0 / (nu * n), 1.0 / n)
    return {"bound": lp_min_max_edge(Ur, 0.0, cap) + slack}


@st.composite
def weighted_margins(draw, max_rows=12, max_cols=5):
    """(U, s): a +-1 margin matrix and integer weights 0..3, at least one positive."""
    n = draw(st.integers(2, max_rows))
    t = draw(st.integers(1, max_cols))
    U = draw(arrays(np.float64, (n, t), elements=st.sampled_from([-1.0, 1.0])))
    s = draw(arrays(np.float64, n, elements=st.sampled_from([0.0, 1.0, 2.0, 3.0])))
    if s.sum() == 0:
        s[draw(st.integers(0, n - 1))] = 1.0
    return U, s


projection_params = dict(
    data=weighted_margins(),
    nu=st.floats(0.05, 1.0),
    slack=st.floats(1e-2, 0.5),
    eta=st.sampled_from([0.5, 5.0, 50.0]),
)


# ----------------------------------------------------------------------------
# (a) one projection = the projection of the repeated rows
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=40, deadline=None)
@given(**projection_params)
def test_dedicated_projection_equals_projection_of_repeated_rows(kind, data, nu, slack, eta):
    U, s = data
    state = projection_state(kind, U, s, nu, slack, eta)
    mine = make_master(kind, nu, s).project(U, backend="dedicated:newton", **state)
    ref = make_master(kind, nu).project(U[repeated(s)], backend="dedicated:newton", **state)
    for res in (mine, ref):
        assert res.status == "optimal" and res.verified and res.solver == "dedicated", res.message
    assert np.all(np.isfinite(mine.distribution)) and np.isfinite(mine.dual_objective)
    assert np.all(mine.distribution[s == 0] == 0.0)
    assert mine.objective == pytest.approx(ref.objective, abs=1e-8)
    np.testing.assert_allclose(mine.distribution, copies_mass(ref.distribution, s), rtol=0, atol=1e-8)
    assert mine.gamma == pytest.approx(ref.gamma, abs=1e-8)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=30, deadline=None)
@given(**projection_params)
def test_zero_weights_drop_their_rows(kind, data, nu, slack, eta):
    U, s = data
    keep = s > 0
    state = projection_state(kind, U, s, nu, slack, eta)
    full = make_master(kind, nu, s).project(U, backend="dedicated:newton", **state)
    dropped = make_master(kind, nu, s[keep]).project(U[keep], backend="dedicated:newton", **state)
    assert full.status == dropped.status == "optimal"
    assert np.all(full.distribution[~keep] == 0.0)
    # (the multipliers need not be unique: equal columns can share their weight in any way)
    np.testing.assert_allclose(full.distribution[keep], dropped.distribution, rtol=0, atol=1e-8)
    assert full.objective == pytest.approx(dropped.objective, abs=1e-8)


@pytest.mark.parametrize("solver", CONIC)
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=15, deadline=None)
@given(**projection_params)
def test_conic_projection_equals_projection_of_repeated_rows(kind, solver, data, nu, slack, eta):
    U, s = data
    state = projection_state(kind, U, s, nu, slack, eta)
    backend = CvxpyBackend(solver, **TIGHT[solver])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = make_master(kind, nu, s).project(U, backend=backend, **state)
        ref = make_master(kind, nu).project(U[repeated(s)], backend=backend, **state)
    assert mine.status.ok and ref.status.ok, (mine.message, ref.message)
    assert np.all(mine.distribution[s == 0] == 0.0) and np.isfinite(mine.objective)
    assert mine.objective == pytest.approx(ref.objective, abs=CONIC_OBJ_TOL)
    d_tol = CONIC_D_TOL[solver]
    np.testing.assert_allclose(mine.distribution, copies_mass(ref.distribution, s), rtol=0, atol=2 * d_tol)


# ----------------------------------------------------------------------------
# (c) the dedicated solver and the conic statement agree on weighted instances
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("solver", CONIC)
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=15, deadline=None)
@given(**projection_params)
def test_dedicated_and_conic_agree_on_weighted_projections(kind, solver, data, nu, slack, eta):
    U, s = data
    state = projection_state(kind, U, s, nu, slack, eta)
    master = make_master(kind, nu, s)
    mine = master.project(U, backend="dedicated:newton", **state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = master.project(U, backend=CvxpyBackend(solver, **TIGHT[solver]), **state)
    assert mine.solver == "dedicated" and mine.verified, mine.message
    assert ref.status.ok, ref.message
    assert mine.objective == pytest.approx(ref.objective, abs=CONIC_OBJ_TOL)
    assert np.max(np.abs(mine.distribution - ref.distribution)) <= CONIC_D_TOL[solver]
    # the dedicated dual value is a lower bound of the optimum the conic solver reached
    assert mine.dual_objective <= ref.objective + CONIC_OBJ_TOL


def weighted_cancer(seed: int, n: int = 40, f: int = 4):
    X, y = cancer_subset(n, f, seed)
    s = np.random.default_rng(seed).integers(0, 4, size=n).astype(float)
    return X, y, s


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_dedicated_and_conic_runs_agree_with_weights(kind, seed):
    """The same run with either solver of the projections.

    The paths agree while no two stumps' edges are closer than the conic
    solver's accuracy in d (which then could pick the other one); on these
    data sets they are not.
    """
    X, y, s = weighted_cancer(seed, 120, 8)
    master = make_master(kind, 0.25, s)
    a = column_generation(master, Stumps(X, y), backend="dedicated", max_rounds=60)
    with warnings.catch_warnings():  # CLARABEL may call its answer inaccurate at these tolerances
        warnings.simplefilter("ignore")
        b = column_generation(master, Stumps(X, y), backend=CvxpyBackend("CLARABEL", **TIGHT["CLARABEL"]),
                              max_rounds=60)
    assert a.status == b.status == "converged"
    assert a.n_rounds == b.n_rounds
    assert a.objective == pytest.approx(b.objective, abs=1e-9)  # the same LP over the same columns
    np.testing.assert_allclose(a.edges, b.edges, rtol=0, atol=CONIC_D_TOL["CLARABEL"])
    for ra, rb in zip(a.history, b.history):
        if np.isnan(ra.primal):  # the stopping round: no projection was solved
            assert np.isnan(rb.primal)
            continue
        assert ra.primal == pytest.approx(rb.primal, abs=projection_tolerance(master, a, ra, rb)), ra.round
    assert not any(r.extra["fallback"] for r in a.history)


def projection_tolerance(master, run, ra, rb) -> float:
    """How far the two runs' projection values at one round may lie apart.

    ERLPBoost's projection depends on the columns only: its value is the
    conic solver's, to CONIC_OBJ_TOL.  SoftBoost's and TotalBoost's also depend
    on the bound gamma_hat - delta, made of edges d.u of earlier rounds, which
    the two solvers reach only to their accuracy in d; so the bounds differ a
    little, and the optimal value H(b) moves with it at the rate of the edge
    constraints' multipliers (dH/db = -sum lambda).  H is convex in b, so over
    [b_a, b_b] its slope is at most the larger of the two endpoint slopes:
    |H(b_a) - H(b_b)| <= max(sum lambda) |b_a - b_b|, plus the conic solver's
    objective accuracy.  (Comparing at a fixed tolerance would assert that the
    accuracy does not grow along the run; it does, as the projections near
    infeasibility, on another platform past 1e-5.)
    """
    if master.name == "ERLPBoost":
        return CONIC_OBJ_TOL
    U = run.columns[:, :ra.n_columns]
    bounds = (ra.extra["bound"], rb.extra["bound"])
    slope = max(float(np.sum(master.project(U, backend="dedicated", bound=b).multipliers)) for b in bounds)
    return CONIC_OBJ_TOL + slope * abs(bounds[0] - bounds[1])


# ----------------------------------------------------------------------------
# (b) a run = the run on the repeated rows
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_column_generation_equals_run_on_repeated_rows(kind, seed):
    """Exact stumps on (X, y) with weights s against exact stumps on the repeated rows.

    Both oracles list the splits in the same order (repeated rows add only
    splits inside ties), so exactly tied stumps are broken alike; what could
    make the runs differ legitimately is a near-tie decided by rounding (the
    two runs sum the same masses in different orders), which these data sets
    do not have.
    """
    X, y, s = weighted_cancer(seed)
    rows = repeated(s)
    nu = 0.2
    a = column_generation(make_master(kind, nu, s), Stumps(X, y), backend="dedicated", max_rounds=200)
    b = column_generation(make_master(kind, nu), Stumps(X[rows], y[rows]), backend="dedicated", max_rounds=200)
    assert a.status == b.status == "converged"
    assert a.n_rounds == b.n_rounds
    assert a.objective == pytest.approx(b.objective, abs=1e-8)
    np.testing.assert_allclose(a.edges, b.edges, rtol=0, atol=1e-8)
    ha, hb = a.history.to_dict(), b.history.to_dict()
    for key in ("gamma_star", "soft_margin"):
        np.testing.assert_allclose(ha[key], hb[key], rtol=0, atol=1e-8, err_msg=key)
    # the entropy of every projection (a stopping round hands on the LP's d, a vertex that
    # need not be unique)
    assert ha["solver"] == hb["solver"]
    projected = [k for k, solver in enumerate(ha["solver"]) if solver == "dedicated"]
    assert len(projected) >= a.n_rounds - 1
    np.testing.assert_allclose(np.take(ha["entropy"], projected), np.take(hb["entropy"], projected),
                               rtol=0, atol=1e-8)
    if kind == "ERLPBoost":
        np.testing.assert_allclose(ha["lower"], hb["lower"], rtol=0, atol=1e-8)
        d_b = copies_mass(b.distribution, s)
        np.testing.assert_allclose(a.distribution, d_b, rtol=0, atol=1e-8)
    else:
        assert ha["stop_reason"] == hb["stop_reason"]
    # the guarantee of the weighted run holds for the repeated data's soft-margin LP
    lp_nu = make_master(kind, nu).lp_nu(rows.size)
    optimum = soft_margin_lp(all_stump_columns(X[rows], y[rows]), lp_nu)["value"]
    assert optimum - 0.05 - 1e-9 <= a.objective <= optimum + 1e-9


# ----------------------------------------------------------------------------
# (d) constant weights are the unweighted master
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("weight", [1.0, 2.5])
@pytest.mark.parametrize("kind", KINDS)
def test_constant_weights_give_exactly_the_unweighted_answer(kind, weight):
    X, y, _ = weighted_cancer(3)
    n = X.shape[0]
    s = np.full(n, weight)
    a = column_generation(make_master(kind, 0.2, s), Stumps(X, y), max_rounds=200)
    b = column_generation(make_master(kind, 0.2), Stumps(X, y), max_rounds=200)
    assert a.n_rounds == b.n_rounds and a.objective == b.objective
    assert np.array_equal(a.distribution, b.distribution) and np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.edges, b.edges)
    assert a.history.to_dict()["entropy"] == b.history.to_dict()["entropy"]
    U = a.columns
    state = {"eta": 7.0} if kind == "ERLPBoost" else {"bound": b.history.to_dict()["gamma_star"][-1] + 0.1}
    for backend in ("dedicated:newton", "cvxpy:CLARABEL"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pa = make_master(kind, 0.2, s).project(U, backend=backend, **state)
            pb = make_master(kind, 0.2).project(U, backend=backend, **state)
        assert np.array_equal(pa.distribution, pb.distribution) and pa.objective == pb.objective


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=20, deadline=None)
@given(**projection_params, scale=st.sampled_from([0.5, 2.5, 1e3]))
def test_only_the_proportions_of_the_weights_matter(kind, data, nu, slack, eta, scale):
    U, s = data
    state = projection_state(kind, U, s, nu, slack, eta)
    a = make_master(kind, nu, s).project(U, **state)
    b = make_master(kind, nu, scale * s).project(U, **state)
    assert a.objective == pytest.approx(b.objective, abs=1e-10)
    np.testing.assert_allclose(a.distribution, b.distribution, rtol=0, atol=1e-10)


# ----------------------------------------------------------------------------
# the closed forms with a prior
# ----------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    scores=arrays(np.float64, st.integers(1, 25), elements=st.floats(-30, 30)),
    weights=st.data(),
    nu=st.floats(0.02, 1.0),
)
def test_capped_softmax_with_prior_is_that_of_repeated_rows(scores, weights, nu):
    n = scores.size
    s = weights.draw(arrays(np.float64, n, elements=st.sampled_from([0.0, 1.0, 2.0, 3.0])))
    if s.sum() == 0:
        s[0] = 2.0
    p = s / s.sum()
    rows = repeated(s)
    d, log_d = capped_softmax(scores, p / nu, p)
    d_rep, _ = capped_softmax(scores[rows], max(1.0 / (nu * rows.size), 1.0 / rows.size))
    assert np.all(np.isfinite(d)) and np.all(np.isfinite(log_d))
    assert np.all(d[s == 0] == 0.0) and abs(d.sum() - 1.0) <= 1e-12
    assert np.all(d <= np.minimum(p / nu, 1.0) * (1 + 1e-12))
    np.testing.assert_allclose(d, copies_mass(d_rep, s), rtol=0, atol=1e-12)
    assert relative_entropy(d, p) == pytest.approx(relative_entropy(d_rep), abs=1e-12)
    # the dual functions of the two statements at the same multipliers
    U = np.column_stack([scores / 30.0, np.sign(scores)])
    lam = np.array([0.7, 1.3])
    g = softboost_dual_value(U, 0.1, p / nu, lam, p)
    g_rep = softboost_dual_value(U[rows], 0.1, max(1.0 / (nu * rows.size), 1.0 / rows.size), lam)
    assert g == pytest.approx(g_rep, abs=1e-11)
    w = np.array([0.25, 0.75])
    h = erlpboost_dual_value(U, p / nu, 9.0, w, p)
    h_rep = erlpboost_dual_value(U[rows], max(1.0 / (nu * rows.size), 1.0 / rows.size), 9.0, w)
    assert h == pytest.approx(h_rep, abs=1e-11)


@settings(max_examples=80, deadline=None)
@given(
    scores=arrays(np.float64, st.integers(2, 25), elements=st.floats(-30, 30)),
    data=st.data(),
)
def test_capped_softmax_with_general_caps_matches_root_finding(scores, data):
    """d_n = min(c_n, p_n exp(s_n - tau)) for caps not proportional to the prior."""
    n = scores.size
    p = data.draw(arrays(np.float64, n, elements=st.floats(0.01, 1.0)))
    c = data.draw(arrays(np.float64, n, elements=st.floats(0.01, 1.0)))
    c = c / c.sum() * data.draw(st.floats(1.01, 3.0))
    d, _ = capped_softmax(scores, c, p)
    assert abs(d.sum() - 1.0) <= 1e-12 and np.all(d <= np.minimum(c, 1.0) * (1 + 1e-12))
    # root of sum_n min(c_n, exp(r_n - tau)) = 1 with r = s + ln p, by bisection
    r = scores + np.log(p / p.sum())
    lo, hi = r.min() - 60.0, r.max() + 60.0
    for _ in range(200):
        tau = 0.5 * (lo + hi)
        if np.minimum(c, np.exp(r - tau)).sum() > 1.0:
            lo = tau
        else:
            hi = tau
    np.testing.assert_allclose(d, np.minimum(c, np.exp(r - 0.5 * (lo + hi))), rtol=0, atol=1e-10)


def test_relative_entropy_to_a_prior():
    p = np.array([0.5, 0.25, 0.25, 0.0])
    assert relative_entropy(p, p) == 0.0
    d = np.array([0.25, 0.25, 0.5, 0.0])
    assert relative_entropy(d, p) == pytest.approx(0.25 * math.log(0.5) + 0.5 * math.log(2.0), abs=1e-15)
    assert relative_entropy(np.array([0.5, 0.25, 0.0, 0.25]), p) == math.inf  # mass where p = 0
    # the uniform prior is the unweighted formula
    d = np.array([0.1, 0.2, 0.3, 0.4])
    assert relative_entropy(d, np.full(4, 0.25)) == pytest.approx(relative_entropy(d), abs=1e-15)


def test_zero_prior_in_the_solvers_gives_zeros_not_nan():
    rng = np.random.default_rng(7)
    U = rng.choice([-1.0, 1.0], size=(9, 3))
    p = np.array([0.0, 1, 2, 0, 1, 3, 0, 1, 1]) / 9.0
    sb = project_softboost(U, 0.9, p / 0.5, prior=p)
    er = project_erlpboost(U, p / 0.5, 4.0, prior=p)
    for res in (sb, er):
        assert res.status == "optimal" and res.verified, res.message
        assert np.all(np.isfinite(res.distribution)) and np.all(res.distribution[p == 0] == 0.0)
        assert np.isfinite(res.objective) and np.isfinite(res.dual_objective)
    # the uncapped softmax with a prior: d proportional to p exp(score)
    d, _ = capped_softmax(np.arange(9.0), 2.0, p)
    ref = p * np.exp(np.arange(9.0))
    np.testing.assert_allclose(d, ref / ref.sum(), rtol=1e-12, atol=0)
    np.testing.assert_allclose(ref_capped_softmax(np.arange(9.0)[p > 0] + np.log(p[p > 0]), 2.0),
                               d[p > 0], rtol=1e-9, atol=1e-15)


# ----------------------------------------------------------------------------
# masters: what the weights change, and clear errors
# ----------------------------------------------------------------------------


def test_weighted_masters_parameters_are_those_of_the_repeated_data():
    s = np.array([1.0, 0.0, 3.0, 2.0, 2.0])
    n, n_rep = s.size, int(s.sum())
    for nu in (0.1, 0.3):
        sb, sb_rep = SoftBoost(nu, 0.05, s), SoftBoost(nu, 0.05)
        assert sb.iteration_bound(n) == sb_rep.iteration_bound(n_rep)
        er, er_rep = ERLPBoost(nu, 0.05, s), ERLPBoost(nu, 0.05)
        assert er.eta(n) == pytest.approx(er_rep.eta(n_rep), rel=1e-14)
        # p / nu, with caps above CAP_CEILING (2) set to it: above 1 no cap binds on a distribution
        np.testing.assert_allclose(sb.caps(n), np.minimum(s / s.sum() / nu, CAP_CEILING))
        np.testing.assert_array_equal(sb.initial_distribution(n), s / s.sum())
    # TotalBoost: no cap on the positive weights (caps >= 1), the hard-margin LP over them
    tb = TotalBoost(0.05, sample_weight=s)
    caps = tb.caps(n)
    assert np.all(caps[s > 0] >= 1.0) and np.all(caps[s == 0] == 0.0)
    lp = tb.lp_master(n)
    assert np.all(lp.caps(n)[s > 0] >= 1.0) and np.array_equal(lp.sample_weight, s)
    assert TotalBoost(0.05).lp_nu(n) == 1.0 / n


def test_sample_weight_errors_are_clear():
    U = np.ones((5, 2))
    for master in (SoftBoost(0.2, 0.05, np.ones(3)), TotalBoost(0.05, np.ones(3)),
                   ERLPBoost(0.2, 0.05, np.ones(3))):
        state = {} if isinstance(master, ERLPBoost) else {"bound": 0.5}
        with pytest.raises(ValueError, match="3 sample weights but the data has 5 examples"):
            master.project(U, **state)
        X, y, _ = weighted_cancer(0, 5, 2)
        with pytest.raises(ValueError, match="3 sample weights but the data has 5 examples"):
            column_generation(master, Stumps(X, y))
    with pytest.raises(ValueError, match="negative"):
        SoftBoost(0.2, 0.05, sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="sums to 0"):
        ERLPBoost(0.2, 0.05, sample_weight=[0.0, 0.0])
    with pytest.raises(ValueError, match="NaN or inf"):
        TotalBoost(0.05, sample_weight=[1.0, np.nan])
    with pytest.raises(ValueError, match="prior must have one entry per example"):
        project_softboost(U, 0.5, 0.5, prior=np.ones(4))
    with pytest.raises(ValueError, match="capped simplex is empty"):
        capped_softmax(np.zeros(3), np.array([0.2, 0.2, 0.9]), np.array([1.0, 1.0, 0.0]))


@pytest.mark.skipif("ECOS" not in CONIC, reason="ECOS is not installed")
def test_ecos_solves_a_projection_over_equal_columns_as_over_one():
    # ECOS fails on the repeated KKT rows of equal columns (found by the property test above): the
    # projection is solved again over the distinct columns, the multiplier on the first copy
    s = np.array([0, 0, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3], dtype=float)
    master = make_master("ERLPBoost", 0.810546875, s)
    backend = CvxpyBackend("ECOS", **TIGHT["ECOS"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        five = master.project(-np.ones((12, 5)), backend=backend, eta=5.0)
        one = master.project(-np.ones((12, 1)), backend=backend, eta=5.0)
    assert five.status.ok and one.status.ok, (five.message, one.message)
    np.testing.assert_array_equal(five.distribution, one.distribution)
    assert five.objective == one.objective
    np.testing.assert_array_equal(five.multipliers, np.r_[one.multipliers, np.zeros(4)])
