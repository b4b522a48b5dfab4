"""RMBoost: the minimax LP (eq. 6/16) against independent statements, its dual (17),
Algorithm 1 (column generation with removal), the classifier, and label noise.

The reference LPs are written here from the paper in its own variables: h-values
H[i, j] = h_j(x_i) (not margins), mu = mu+ - mu-, and the duals (alpha, beta) of
the upper / lower blocks -1/2 <= h(x_i)^T mu <= 1/2.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from lpboosting import RMBoostClassifier, column_generation
from lpboosting.backends import RecordingBackend, get_backend
from lpboosting.datasets import flip_labels
from lpboosting.masters import RMBoost
from lpboosting.masters.rmboost import paper_duals
from lpboosting.oracles import Columns, Features, Stumps, Trees
from tests.helpers import (
    all_stump_columns, blobs, cancer_subset, check_kkt, dual_value, graded_pool, minimax_lp, REFERENCE_LP_BACKENDS,
)

# accuracy each backend is held to; interior-point solvers stop at ~1e-8 relative gaps
TOL = {"dedicated": 1e-9, "highspy": 1e-9, "highspy:ipm": 1e-9, "cvxpy:HIGHS": 1e-9, "cvxpy:CLARABEL": 1e-6,
       "cvxpy:ECOS": 1e-6}
#: every backend that solves the RMBoost master: the dedicated dual simplex, HiGHS IPM (the default), ...
RMBOOST_BACKENDS = ["dedicated", "highspy:ipm", *REFERENCE_LP_BACKENDS]


@pytest.fixture(params=RMBOOST_BACKENDS)
def rm_backend(request) -> str:
    return request.param


# -- the master against the independent LP ---------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("lam", [None, 0.05, 0.3])
def test_master_matches_independent_lp(rm_backend, seed, lam):
    y, pool = graded_pool(30 + 10 * seed, 4 + 2 * seed, seed)
    U = pool[:, : pool.shape[1] // 2]
    n = y.size
    lam_value = 1 / np.sqrt(n) if lam is None else lam
    ref = minimax_lp(y[:, None] * U, y, lam_value)
    sol = RMBoost(lam, prune=False).solve(U, backend=rm_backend)
    tol = TOL[rm_backend]
    assert sol.backend == rm_backend
    assert sol.objective == pytest.approx(ref["value"], abs=tol)
    assert sol.dual_objective == pytest.approx(ref["value"], abs=tol)
    check_kkt(sol, U, y, lam_value, 10 * tol)
    # the independent LP's own duals satisfy the same conditions (the test's formulas are right)
    H = y[:, None] * U
    assert np.abs(H.T @ (ref["alpha"] - ref["beta"] - y / n)).max() <= lam_value + 1e-9
    assert dual_value(ref["alpha"], ref["beta"]) == pytest.approx(ref["value"], abs=1e-9)


def test_dual_signs_of_a_known_instance(rm_backend):
    # one perfect base rule h = y, lam = 1/4: mu = 1/2 and R = lam/2 = 1/8.  Every margin
    # is at its upper bound 1/2, so only the UPPER margin block has multipliers
    # (alpha' >= 0, beta' = 0) and sum alpha' = 1 - lam.  In the paper's form the rows
    # with y = +1 are upper rows (alpha) and those with y = -1 lower rows (beta).
    y = np.array([1.0, 1.0, -1.0, -1.0])
    U = np.ones((4, 1))
    sol = RMBoost(0.25).solve(U, backend=rm_backend)
    tol = 10 * TOL[rm_backend]
    assert sol.objective == pytest.approx(0.125, abs=tol)
    np.testing.assert_allclose(sol.weights, [0.5], atol=tol)
    assert sol.info["beta"].max() <= tol
    assert sol.info["alpha"].sum() == pytest.approx(0.75, abs=tol)
    assert sol.distribution @ U[:, 0] == pytest.approx(0.25, abs=tol)  # the edge equals lam
    alpha, beta = paper_duals(sol.info["alpha"], sol.info["beta"], y)
    assert np.all(alpha[y < 0] <= tol) and np.all(beta[y > 0] <= tol)
    assert alpha[y > 0].sum() + beta[y < 0].sum() == pytest.approx(0.75, abs=tol)
    # paper_duals is an involution
    back = paper_duals(alpha, beta, y)
    np.testing.assert_array_equal(back[0], sol.info["alpha"])
    np.testing.assert_array_equal(back[1], sol.info["beta"])


# -- column generation with an exact oracle reaches the LP over the whole class -----------------
@pytest.mark.parametrize("prune", [True, False])
@pytest.mark.parametrize("data", [lambda: cancer_subset(60, 4, 0), lambda: blobs(60, 0),
                                  lambda: cancer_subset(90, 5, 4)])
def test_stumps_column_generation_reaches_the_full_lp(data, prune):
    X, y = data()
    n = y.size
    lam = 1 / np.sqrt(n)
    full = minimax_lp(y[:, None] * all_stump_columns(X, y), y, lam)
    result = column_generation(RMBoost(prune=prune), Stumps(X, y), tol=1e-10, max_rounds=2000)
    assert result.converged
    assert result.objective == pytest.approx(full["value"], abs=1e-7)
    # with an exact oracle the last gap max(edge - lam, 0) is below the tolerance
    assert result.history[-1].gap <= 1e-10
    assert result.history[-1].edge <= lam + 1e-10
    # the classifier reports the same minimax risk
    clf = RMBoostClassifier(oracle="stumps", tol=1e-10, max_rounds=2000, prune=prune).fit(X, y)
    assert clf.minimax_risk_ == pytest.approx(full["value"], abs=1e-7)
    assert clf.lam_ == pytest.approx(lam)


@pytest.mark.parametrize("seed", range(3))
def test_columns_pool_reaches_the_full_lp(seed):
    y, pool = graded_pool(50, 20, seed)
    lam = 0.1
    full = minimax_lp(y[:, None] * pool, y, lam)
    for prune in (True, False):
        result = column_generation(RMBoost(lam, prune=prune), Columns(pool), tol=1e-10, max_rounds=500)
        assert result.converged
        assert result.objective == pytest.approx(full["value"], abs=1e-7)


def test_features_oracle_reaches_the_full_lp():
    X, y = cancer_subset(100, 10, 3)
    oracle = Features(X, y)
    full = minimax_lp(y[:, None] * oracle.margin_matrix(), y, 0.1)
    result = column_generation(RMBoost(0.1), oracle, tol=1e-10, max_rounds=500)
    assert result.converged and result.objective == pytest.approx(full["value"], abs=1e-7)


# -- every round, every backend: duality of (16)-(17) ------------------------------------------------
@pytest.mark.parametrize("prune", [True, False])
def test_dual_feasibility_and_complementary_slackness_every_round(rm_backend, prune):
    y, pool = graded_pool(60, 25, 0)
    lam = 1 / np.sqrt(y.size)
    recorder = RecordingBackend(rm_backend)
    result = column_generation(RMBoost(prune=prune), Columns(pool), backend=recorder,
                               tol=1e-9, max_rounds=60)
    assert result.converged and len(recorder.solutions) == len(result.history) >= 5
    tol = 10 * TOL[rm_backend]
    U_all = np.column_stack([pool[:, ref.index] for ref in result.hypotheses])
    removed_total = 0
    for t, (sol, record) in enumerate(zip(recorder.solutions, result.history), start=1):
        assert sol.ok and sol.backend == rm_backend
        check_kkt(sol, U_all[:, :t], y, lam, tol, columns=sol.control.active_columns)
        assert record.primal == sol.objective and record.dual == sol.dual_objective
        assert record.extra["risk"] == sol.objective
        removed_total += record.extra["removed"]
        assert record.extra["active"] == t - removed_total
    assert (removed_total > 0) == prune
    # the last master is optimal for the whole pool: R equals the independent LP
    assert result.objective == pytest.approx(minimax_lp(y[:, None] * pool, y, lam)["value"], abs=tol)


def test_backends_agree_over_a_fixed_column_sequence():
    y, pool = graded_pool(45, 8, 11)
    rng = np.random.default_rng(0)
    sequence = pool[:, rng.permutation(pool.shape[1])[:10]]
    risks = {}
    for name in RMBOOST_BACKENDS:
        session = get_backend(name).open(RMBoost(prune=False), y.size)
        values = []
        for m in range(sequence.shape[1]):
            session.add_column(sequence[:, m])
            values.append(session.solve().objective)
        risks[name] = np.array(values)
    lam = 1 / np.sqrt(y.size)
    reference = np.array([minimax_lp(y[:, None] * sequence[:, :t], y, lam)["value"]
                          for t in range(1, sequence.shape[1] + 1)])
    assert np.ptp(reference) > 1e-3  # the sequence does change R
    for name, values in risks.items():
        np.testing.assert_allclose(values, reference, atol=TOL[name], err_msg=name)


# -- Theorem 1 / eq. (8): the training errors are bounded by R every round --------------------------
@pytest.mark.parametrize("oracle", ["trees", "stumps"])
def test_training_errors_bounded_by_minimax_risk_every_round(oracle):
    X, y = cancer_subset(120, 6, 5)
    y = flip_labels(y, 0.15, "uniform", random_state=1)
    recorder = RecordingBackend("highspy")
    make = {"trees": lambda: Trees(X, y, max_depth=None, max_leaf_nodes=10),
            "stumps": lambda: Stumps(X, y)}[oracle]
    result = column_generation(RMBoost(), make(), backend=recorder, max_rounds=40)
    assert len(recorder.solutions) == len(result.hypotheses) >= 5
    U_all = np.column_stack([y * h.predict(X) for h in result.hypotheses])
    for t, sol in enumerate(recorder.solutions, start=1):
        margins = U_all[:, :t] @ sol.weights
        randomised = np.mean(1.0 - np.clip(margins + 0.5, 0.0, 1.0))
        deterministic = np.mean(margins <= 0)
        assert randomised <= sol.objective + 1e-9
        assert deterministic <= 2 * sol.objective + 1e-9
    # the same bound through the classifier's predict_proba / predict on the training set
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = RMBoostClassifier(oracle=oracle, max_rounds=40).fit(X, y)
    proba = clf.predict_proba(X)
    truth = (y == clf.classes_[1]).astype(int)
    assert np.mean(1.0 - proba[np.arange(y.size), truth]) <= clf.minimax_risk_ + 1e-9
    assert np.mean(clf.predict(X) != y) <= 2 * clf.minimax_risk_ + 1e-9


# -- removal of base rules (Algorithm 1, Steps 14-16) -------------------------------------------------
def test_pruning_removes_strictly_satisfied_columns_and_keeps_the_optimum():
    y, pool = graded_pool(60, 25, 0)
    lam = 1 / np.sqrt(y.size)
    recorder = RecordingBackend("highspy")
    pruned = column_generation(RMBoost(prune=True), Columns(pool), backend=recorder,
                               tol=1e-10, max_rounds=500)
    plain = column_generation(RMBoost(prune=False), Columns(pool), tol=1e-10, max_rounds=500)
    assert pruned.converged and plain.converged
    assert pruned.objective == pytest.approx(plain.objective, abs=1e-9)
    assert pruned.objective == pytest.approx(minimax_lp(y[:, None] * pool, y, lam)["value"], abs=1e-9)
    removed = [r.extra["removed"] for r in pruned.history]
    assert sum(removed) > 0 and all(r.extra["removed"] == 0 for r in plain.history)
    # one weight per column the loop added (zeros for removed ones), consistent with result.columns
    assert pruned.weights.shape == (pruned.columns.shape[1],) == (len(pruned.hypotheses),)
    # the removed columns are exactly those whose dual constraint was strictly satisfied
    sols = recorder.solutions
    for t in range(len(sols) - 1):
        before = set(sols[t].control.active_columns.tolist())
        after = set(sols[t + 1].control.active_columns.tolist()) - {t + 1}
        gone = sorted(before - after)
        assert len(gone) == removed[t]
        for j in gone:
            assert abs(sols[t].dual_edges[j]) < lam
            assert sols[t].weights[j] == 0.0
            assert all(sols[s].weights[j] == 0.0 for s in range(t + 1, len(sols)))
    last = sols[-1]
    inactive = np.setdiff1d(np.arange(last.weights.size), last.control.active_columns)
    assert np.all(last.weights[inactive] == 0.0)


def test_pruned_columns_leave_the_highs_model():
    y, pool = graded_pool(60, 25, 0)
    master = RMBoost(prune=True)
    session = get_backend("highspy").open(master, y.size)
    oracle = Columns(pool)
    d = master.initial_distribution(y.size)
    for _ in range(30):
        candidate = oracle.price(d)
        session.add_column(candidate.column, candidate.edge)
        sol = session.solve()
        assert session.model.getNumCol() == 2 * len(session.active)
        assert session.model.getNumRow() == y.size
        assert len(session.active) + len(session.removed) == session.n_columns
        d = sol.distribution
    assert session.removed


class _Eager(RMBoost):
    """Removes every zero-weight column (to exercise the anti-cycling safeguard)."""

    def prunable(self, dual_edges, mu, lam):
        return np.abs(mu) <= self.zero_tol


@pytest.mark.parametrize("backend", ["dedicated", "highspy", "cvxpy:HIGHS"])
def test_a_removed_column_that_comes_back_is_kept(backend):
    # a column removed once and generated again stays: a finite class cannot cycle
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    useless = np.zeros(6)          # cost lam |mu|, no gain: mu = 0
    weak = 1e-3 * np.ones(6)       # tau = 1e-3 < lam: mu = 0
    session = get_backend(backend).open(_Eager(0.2, prune=True), y.size)
    session.add_column(useless)
    assert session.solve().record["removed"] == 1 and session.active == []
    session.add_column(useless)     # generated again: kept for good
    assert session.solve().record["removed"] == 0 and session.active == [1]
    session.add_column(weak)        # a new column with zero weight: removed
    sol = session.solve()
    assert sol.record["removed"] == 1 and session.active == [1]
    assert session.removed == [0, 2]
    np.testing.assert_array_equal(sol.weights, np.zeros(3))


# -- invariances ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def noisy_cancer():
    X, y = cancer_subset(80, 5, 6)
    return X, flip_labels(y, 0.1, "uniform", random_state=3)


def test_relabelling_classes_gives_the_same_risk(noisy_cancer):
    X, y = noisy_cancer
    base = RMBoostClassifier(oracle="stumps", tol=1e-10, max_rounds=2000).fit(X, y)
    named = RMBoostClassifier(oracle="stumps", tol=1e-10, max_rounds=2000).fit(
        X, np.where(y > 0, "spam", "ham"))
    assert list(named.classes_) == ["ham", "spam"]
    assert named.minimax_risk_ == pytest.approx(base.minimax_risk_, abs=1e-9)
    np.testing.assert_array_equal(named.predict(X) == "spam", base.predict(X) == 1)
    # swapping which class is positive negates y: stumps are closed under negation
    swapped = RMBoostClassifier(oracle="stumps", tol=1e-10, max_rounds=2000).fit(
        X, np.where(y > 0, "a", "z"))
    assert swapped.minimax_risk_ == pytest.approx(base.minimax_risk_, abs=1e-9)


def test_row_permutation_gives_the_same_risk(noisy_cancer):
    X, y = noisy_cancer
    perm = np.random.default_rng(0).permutation(y.size)
    a = RMBoostClassifier(oracle="stumps", tol=1e-10, max_rounds=2000).fit(X, y)
    b = RMBoostClassifier(oracle="stumps", tol=1e-10, max_rounds=2000).fit(X[perm], y[perm])
    assert b.minimax_risk_ == pytest.approx(a.minimax_risk_, abs=1e-9)


margin_matrices = st.integers(2, 20).flatmap(
    lambda n: st.integers(1, 6).flatmap(
        lambda t: arrays(np.float64, (n, t), elements=st.sampled_from([-1.0, -0.5, 0.0, 0.25, 1.0]))
    )
)


@settings(max_examples=40, deadline=None)
@given(U=margin_matrices, lam=st.floats(0.01, 1.0), seed=st.integers(0, 2**31))
def test_master_invariances_property(U, lam, seed):
    rng = np.random.default_rng(seed)
    rows, cols = rng.permutation(U.shape[0]), rng.permutation(U.shape[1])
    signs = rng.choice([-1.0, 1.0], U.shape[1])
    a = RMBoost(lam).solve(U)
    # permuting rows / columns, or negating columns (mu_j -> -mu_j), leaves R unchanged
    assert RMBoost(lam).solve(U[rows][:, cols]).objective == pytest.approx(a.objective, abs=1e-9)
    assert RMBoost(lam).solve(U * signs).objective == pytest.approx(a.objective, abs=1e-9)
    # and R is the independent LP's value (labels do not matter in margin form)
    y = rng.choice([-1.0, 1.0], U.shape[0])
    assert a.objective == pytest.approx(minimax_lp(y[:, None] * U, y, lam)["value"], abs=1e-9)
    check_kkt(a, U, y, lam, 1e-8)


# -- the classifier ---------------------------------------------------------------------------
@parametrize_with_checks([RMBoostClassifier(max_rounds=25), RMBoostClassifier(oracle="stumps")])
def test_sklearn_contract(estimator, check):
    check(estimator)


class _Fixed:
    """A hypothesis given by a function of X."""

    def __init__(self, fn):
        self.fn = fn

    def predict(self, X):
        return self.fn(np.asarray(X))


def test_negative_weights_are_used_by_decision_function():
    # a base rule that is the NEGATION of a good stump gets a negative weight
    X, y = cancer_subset(80, 4, 1)
    good = Stumps(X, y).price(np.full(y.size, 1 / y.size)).hypothesis
    bad = _Fixed(lambda Z: -good.predict(Z))
    clf = RMBoostClassifier(oracle=lambda Xs, ys, d: bad, prune=False).fit(X, y)
    assert clf.weights_.shape == (1,) and clf.weights_[0] == pytest.approx(-0.5)
    f = clf.decision_function(X)
    np.testing.assert_allclose(f, 0.5 * good.predict(X))
    np.testing.assert_array_equal(clf.predict(X), np.where(good.predict(X) > 0, 1.0, -1.0))
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], np.clip(f + 0.5, 0, 1))
    assert clf.minimax_risk_ == pytest.approx(np.mean(good.predict(X) != y) + 0.5 / np.sqrt(y.size))


def test_decision_function_and_predict_proba_of_an_ensemble():
    X, y = cancer_subset(100, 10, 3)
    clf = RMBoostClassifier(oracle="features", prune=False).fit(X, y)
    assert np.sum(np.abs(clf.weights_) > 1e-6) > 2  # a real combination of base rules
    f = clf.decision_function(X)
    H = np.column_stack([h.predict(X) for h in clf.hypotheses_])
    np.testing.assert_allclose(f, H @ clf.weights_, atol=1e-12)
    np.testing.assert_allclose(clf.margins(X, y), clf.result_.columns @ clf.weights_, atol=1e-12)
    assert np.abs(f).max() <= 0.5 + 1e-9  # the constraints of (16) on the training set
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[:, 1], np.clip(f + 0.5, 0, 1))
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(f > 0).astype(int)])
    # the same fit with string labels: probability columns follow classes_
    named = np.where(y > 0, "yes", "no")
    clf2 = RMBoostClassifier(oracle="features", prune=False).fit(X, named)
    assert list(clf2.classes_) == ["no", "yes"]
    np.testing.assert_allclose(clf2.predict_proba(X), proba, atol=1e-12)
    # away from the training set |f| may exceed 1/2: the probabilities stay in [0, 1]
    far = clf.predict_proba(X * 3.0)
    assert far.min() >= 0.0 and far.max() <= 1.0
    np.testing.assert_allclose(far.sum(axis=1), 1.0)


def test_zero_decision_goes_to_the_first_class():
    X, y = cancer_subset(40, 3, 0)
    zero = _Fixed(lambda Z: np.zeros(len(Z)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = RMBoostClassifier(oracle=lambda Xs, ys, d: zero, max_rounds=1).fit(X, y)
    assert np.all(clf.decision_function(X) == 0)
    assert np.all(clf.predict(X) == clf.classes_[0])
    np.testing.assert_allclose(clf.predict_proba(X), 0.5)
    assert clf.minimax_risk_ == pytest.approx(0.5)


def test_trees_get_the_leaf_budget():
    X, y = cancer_subset(150, 6, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = RMBoostClassifier(max_rounds=5).fit(X, y)
        deep = RMBoostClassifier(max_leaf_nodes=10, max_rounds=5).fit(X, y)
    assert max(h.tree.get_n_leaves() for h in clf.hypotheses_) <= 3
    assert max(h.tree.get_n_leaves() for h in deep.hypotheses_) > 3
    assert all(h.tree.get_n_leaves() <= 10 for h in deep.hypotheses_)
    assert clf.history_.meta["params"] == {"lam": None, "prune": False}
    assert {"risk", "removed", "active"} <= set(clf.history_[0].extra)


@pytest.mark.parametrize("lam", [0.0, -0.1, float("nan"), float("inf"), "a", True])
def test_bad_lam_is_rejected(lam):
    with pytest.raises(ValueError, match="lam must be"):
        RMBoost(lam)
    X, y = cancer_subset(30, 3, 0)
    with pytest.raises(ValueError, match="lam must be"):
        RMBoostClassifier(lam=lam, oracle="stumps").fit(X, y)


@pytest.mark.parametrize("leaves", [1, 0, 2.5, "ten"])
def test_bad_max_leaf_nodes_is_rejected(leaves):
    X, y = cancer_subset(30, 3, 0)
    with pytest.raises(ValueError, match="max_leaf_nodes"):
        RMBoostClassifier(max_leaf_nodes=leaves).fit(X, y)


def test_bad_prune_and_columns_are_rejected():
    with pytest.raises(ValueError, match="prune"):
        RMBoost(prune="yes")
    session = get_backend("highspy").open(RMBoost(), 3)
    with pytest.raises(ValueError, match="shape"):
        session.add_column(np.ones(4))
    with pytest.raises(ValueError, match="NaN"):
        session.add_column(np.array([1.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="at least one column"):
        session.solve()


# -- label noise ------------------------------------------------------------------------------
def _binomial_bound(n: int, p: float) -> float:
    return 5.0 * np.sqrt(n * p * (1 - p)) + 1.0


@pytest.mark.parametrize("rate", [0.05, 0.2, 0.45])
def test_uniform_noise_rate(rate):
    rng = np.random.default_rng(0)
    y = rng.choice([0, 1], 40_000)
    noisy = flip_labels(y, rate, "uniform", random_state=1)
    assert noisy.dtype == y.dtype and set(np.unique(noisy)) <= {0, 1}
    flipped = noisy != y
    assert abs(flipped.sum() - rate * y.size) <= _binomial_bound(y.size, rate)
    for c in (0, 1):  # symmetric: the same rate in both classes
        m = int((y == c).sum())
        assert abs(flipped[y == c].sum() - rate * m) <= _binomial_bound(m, rate)


@pytest.mark.parametrize("rate", [0.1, 0.3])
def test_one_sided_noise_flips_only_the_positive_class(rate):
    rng = np.random.default_rng(2)
    y = rng.choice(np.array(["neg", "pos"]), 30_000)
    noisy = flip_labels(y, rate, "one-sided", random_state=5)
    flipped = noisy != y
    assert not flipped[y == "neg"].any()
    m = int((y == "pos").sum())
    assert abs(flipped[y == "pos"].sum() - rate * m) <= _binomial_bound(m, rate)
    assert set(noisy[flipped]) == {"neg"}
    # positive= picks the other class
    other = flip_labels(y, rate, "one-sided", random_state=5, positive="neg")
    assert not (other != y)[y == "pos"].any() and (other != y)[y == "neg"].any()


def test_noise_is_reproducible():
    y = np.random.default_rng(3).choice([-1.0, 1.0], 500)
    for kind in ("uniform", "one-sided"):
        a = flip_labels(y, 0.2, kind, random_state=7)
        b = flip_labels(y, 0.2, kind, random_state=7)
        c = flip_labels(y, 0.2, kind, random_state=8)
        np.testing.assert_array_equal(a, b)
        assert np.any(a != c)
    np.testing.assert_array_equal(flip_labels(y, 0.0, "uniform", random_state=0), y)
    np.testing.assert_array_equal(flip_labels(y, 1.0, "uniform", random_state=0), -y)
    y_copy = y.copy()
    flip_labels(y, 0.5, "uniform", random_state=0)
    np.testing.assert_array_equal(y, y_copy)  # the input is not modified


def test_adversarial_noise_flips_the_largest_margins():
    X, y = cancer_subset(200, 5, 1)
    labels = np.where(y > 0, "malignant?", "benign?")  # sorted: benign? < malignant?
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference = RMBoostClassifier(oracle="stumps", max_rounds=30).fit(X, labels)
    scores = reference.decision_function(X) + np.random.default_rng(0).normal(0, 1e-6, y.size)
    for rate in (0.0, 0.1, 0.25):
        noisy = flip_labels(labels, rate, "adversarial", scores=scores)
        flipped = noisy != labels
        k = int(round(rate * y.size))
        assert flipped.sum() == k
        margin = np.where(labels == reference.classes_[1], 1.0, -1.0) * scores
        if k:
            assert margin[flipped].min() >= margin[~flipped].max()
            np.testing.assert_array_equal(np.sort(np.flatnonzero(flipped)),
                                          np.sort(np.argsort(-margin)[:k]))
        assert np.all(noisy[flipped] != labels[flipped])
    # deterministic, and random_state does not matter
    np.testing.assert_array_equal(flip_labels(labels, 0.1, "adversarial", random_state=1, scores=scores),
                                  flip_labels(labels, 0.1, "adversarial", random_state=2, scores=scores))


@pytest.mark.parametrize("kwargs, match", [
    ({"rate": -0.1}, "rate must be"),
    ({"rate": 1.5}, "rate must be"),
    ({"rate": float("nan")}, "rate must be"),
    ({"rate": "x"}, "rate must be"),
    ({"kind": "gaussian"}, "unknown noise kind"),
    ({"kind": "adversarial"}, "needs scores"),
    ({"kind": "adversarial", "scores": np.zeros(3)}, "one value per label"),
    ({"kind": "adversarial", "scores": np.full(6, np.nan)}, "NaN"),
    ({"scores": np.zeros(6)}, "only used by"),
    ({"positive": 7}, "not one of the labels"),
])
def test_noise_errors(kwargs, match):
    y = np.array([0, 1, 0, 1, 1, 0])
    args = {"rate": 0.2, "kind": "uniform", **kwargs}
    with pytest.raises(ValueError, match=match):
        flip_labels(y, **args)


def test_noise_needs_two_classes_and_1d_labels():
    with pytest.raises(ValueError, match="exactly two classes"):
        flip_labels(np.ones(5), 0.1)
    with pytest.raises(ValueError, match="exactly two classes"):
        flip_labels(np.array([0, 1, 2]), 0.1)
    with pytest.raises(ValueError, match="1-D"):
        flip_labels(np.zeros((3, 2)), 0.1)


# -- the classifier's defaults converge on real data (issue: RMBoost's defaults) ---------------
def _real(name: str) -> tuple[np.ndarray, np.ndarray]:
    from lpboosting.datasets.loaders import breast_cancer, load_keel

    return breast_cancer() if name == "breast-cancer" else load_keel(name)


def _certify_over_all_stumps(clf: RMBoostClassifier, X: np.ndarray, y: np.ndarray, tol: float) -> None:
    """The fitted master's duals are feasible for (17) over every stump (enumerated by brute
    force) and its dual value equals R: weak duality makes R the optimum over all stumps."""
    sol = clf.result_.solution
    alpha, beta = sol.info["alpha"], sol.info["beta"]
    assert alpha.min() >= 0 and beta.min() >= 0
    d = 1.0 / y.size - (alpha - beta)
    edges = d @ all_stump_columns(X, y)
    assert np.abs(edges).max() <= clf.lam_ + tol
    assert dual_value(alpha, beta) == pytest.approx(clf.minimax_risk_, abs=tol)


@pytest.mark.parametrize("name", ["breast-cancer", "pima"])
def test_defaults_converge_with_trees(name):
    X, y = _real(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = RMBoostClassifier().fit(X, y)
    assert clf.status_ == "converged" and clf.result_.converged
    assert clf.history_.meta["backend"] == "highspy:ipm"
    assert all(h.tree.get_n_leaves() <= 3 for h in clf.hypotheses_)
    # the last tree does not violate (17) by more than tol at the master's duals
    assert clf.history_[-1].edge <= clf.lam_ + clf.tol
    # R is the optimum of the LP over the trees kept, stated independently
    keep = np.flatnonzero(np.isfinite(clf.result_.solution.dual_edges))
    H = np.column_stack([clf.hypotheses_[j].predict(X) for j in keep])
    assert clf.minimax_risk_ == pytest.approx(minimax_lp(H, y, clf.lam_)["value"], abs=1e-7)


@pytest.mark.parametrize("name", ["breast-cancer", "pima"])
def test_defaults_converge_with_stumps_to_the_lp_over_all_stumps(name):
    X, y = _real(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = RMBoostClassifier(oracle="stumps").fit(X, y)
    assert clf.status_ == "converged"
    assert clf.history_[-1].gap <= clf.tol
    _certify_over_all_stumps(clf, X, y, 1e-7)
    if name == "pima":  # small enough (2494 stumps) for the full LP by scipy in a few seconds
        full = minimax_lp(y[:, None] * all_stump_columns(X, y), y, clf.lam_)
        assert clf.minimax_risk_ == pytest.approx(full["value"], abs=1e-7)


def test_the_previous_defaults_do_not_converge_and_say_so():
    """Round 1's R is already the optimum on Pima with stumps, but the vertex duals of a simplex
    backend keep pricing violated stumps: the dedicated backend ends at max_rounds with the
    advice to use the default backend; the default (central duals) converges."""
    X, y = _real("pima")
    with pytest.warns(ConvergenceWarning, match="max_rounds=100 .*try: the default backend 'highspy:ipm'"):
        vertex = RMBoostClassifier(oracle="stumps", backend="dedicated", max_rounds=100).fit(X, y)
    central = RMBoostClassifier(oracle="stumps", max_rounds=100).fit(X, y)
    assert vertex.status_ == "max_rounds" and central.status_ == "converged"
    assert vertex.minimax_risk_ == pytest.approx(central.minimax_risk_, abs=1e-7)


def test_a_fit_stopped_early_advises_what_was_measured_to_help_rmboost():
    # not the loop's general remedies (smoothing, stumps, more columns a round: each measured slower
    # for RMBoost) but a larger lam, and more rounds
    X, y = _real("pima")
    with pytest.warns(ConvergenceWarning) as caught:
        RMBoostClassifier(max_rounds=2).fit(X, y)
    message = str(caught[0].message)
    assert "try: a larger lam" in message and "a larger max_rounds" in message
    assert "smoothing'" not in message and "exact oracle" not in message and "default backend" not in message


def test_an_optimum_with_one_vote_for_every_row_says_so():
    # lam above every stump's expected margin |tau_j|: mu = 0 is the only optimum (R = 1/2); the
    # classifier predicts one class and one warning says why and what to change
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.integers(0, 2, 60)
    stumps = Stumps(X, np.where(y == 1, 1.0, -1.0))
    best_tau = float(np.max(np.abs(stumps.price(np.full(60, 1 / 60)).edge)))
    with pytest.warns(ConvergenceWarning, match="same vote .*mu = 0 .*smaller lam"):
        clf = RMBoostClassifier(oracle="stumps", lam=best_tau + 0.05).fit(X, y)
    assert clf.minimax_risk_ == pytest.approx(0.5, abs=1e-9)
    assert np.all(clf.weights_ == 0.0) and len(set(clf.predict(X))) == 1
    # at the paper's lam = 1/sqrt(n) a stump counts, and nothing is said
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fitted = RMBoostClassifier(oracle="stumps").fit(X, y)
    assert fitted.lam_ < best_tau and np.any(fitted.weights_ != 0)
