"""Stabilised pricing, k columns a round, stall and time limits: still the full LP, honestly reported."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from lpboosting import column_generation
from lpboosting.backends import RecordingBackend
from lpboosting.colgen import Smoothing
from lpboosting.masters import LPBoost, RMBoost
from lpboosting.oracles import Columns, Features, Stumps, Trees
from tests.helpers import (
    all_stump_columns, cancer_subset, check_optimality, DATASETS, minimax_lp, soft_margin_lp,
)

OPTIONS = {
    "smoothing": {"stabilization": "smoothing"},
    "smoothing-0.9": {"stabilization": Smoothing(0.9)},
    "k=4": {"columns_per_round": 4},
    "smoothing+k=3": {"stabilization": "smoothing", "columns_per_round": 3},
}


# -- exact oracles: the same optimum as the LP over the whole class ------------------------------
@pytest.mark.parametrize("option", sorted(OPTIONS))
@pytest.mark.parametrize("data", sorted(DATASETS))
@pytest.mark.parametrize("nu", [0.05, 0.2, 0.5])
def test_lpboost_reaches_the_full_lp(option, data, nu):
    X, y = DATASETS[data]()
    full = soft_margin_lp(all_stump_columns(X, y), nu)
    rec = RecordingBackend("highspy")
    res = column_generation(LPBoost(nu), Stumps(X, y), backend=rec, tol=1e-9, **OPTIONS[option])
    assert res.status == "converged"
    assert res.objective == pytest.approx(full["value"], abs=1e-7)
    check_optimality(res.solution, res.columns, nu, 1e-8)
    for record, sol in zip(res.history, rec.solutions):
        check_optimality(sol, res.columns[:, :record.n_columns], nu, 1e-8)
        # a certified gap: the master's value (a lower bound) and a bound from an edge (an upper one)
        assert record.dual <= full["value"] + 1e-9 <= record.dual + record.gap + 2e-9
        assert record.dual <= full["value"] + 1e-9 <= record.edge + 2e-9  # any priced d is feasible
    assert res.history[-1].gap <= 1e-9
    # k columns a round: never more, and at least one while not converged
    added = np.diff([0] + [r.n_columns for r in res.history])
    assert added.max() <= OPTIONS[option].get("columns_per_round", 1) and added.min() >= 1


@pytest.mark.parametrize("option", sorted(OPTIONS))
@pytest.mark.parametrize("prune", [True, False])
def test_rmboost_reaches_the_full_lp(option, prune):
    X, y = cancer_subset(60, 4, 0)
    lam = 1 / np.sqrt(y.size)
    full = minimax_lp(y[:, None] * all_stump_columns(X, y), y, lam)
    res = column_generation(RMBoost(prune=prune), Stumps(X, y), tol=1e-10, max_rounds=2000,
                            **OPTIONS[option])
    assert res.converged
    assert res.objective == pytest.approx(full["value"], abs=1e-7)
    # RMBoost has no Lagrangian bound: the stop is certified at the true duals
    assert res.history[-1].edge <= lam + 1e-10
    assert res.history[-1].extra.get("priced", "true").startswith("true")


@pytest.mark.parametrize("data", sorted(DATASETS))
def test_central_duals_reach_the_full_lp_to_the_interior_point_accuracy(data):
    # HiGHS's interior point without crossover: central duals, accurate to about 1e-8
    X, y = DATASETS[data]()
    full = soft_margin_lp(all_stump_columns(X, y), 0.2)["value"]
    res = column_generation(LPBoost(0.2), Stumps(X, y), backend="highspy:ipm", tol=1e-7)
    assert res.converged and res.history.meta["backend"] == "highspy:ipm"
    assert res.objective == pytest.approx(full, abs=1e-6)
    lam = 1 / np.sqrt(y.size)
    full_rm = minimax_lp(y[:, None] * all_stump_columns(X, y), y, lam)["value"]
    rm = column_generation(RMBoost(), Stumps(X, y), backend="highspy:ipm", tol=1e-7, max_rounds=2000)
    assert rm.converged and rm.objective == pytest.approx(full_rm, abs=1e-6)


def test_the_smoothed_stop_is_certified_on_the_true_duals_or_the_best_bound():
    X, y = cancer_subset(80, 5, 0)
    full = soft_margin_lp(all_stump_columns(X, y), 0.1)["value"]
    res = column_generation(LPBoost(0.1), Stumps(X, y), tol=1e-9, stabilization=Smoothing(0.8))
    priced = [r.extra["priced"] for r in res.history]
    assert "smoothed" in priced  # the smoothed point was priced and its columns used
    assert priced[0] == "true"  # no centre yet in round 1
    best = np.minimum.accumulate([r.edge for r in res.history])
    for record, bound in zip(res.history, best):
        assert record.gap == pytest.approx(bound - record.dual, abs=1e-12)
        assert bound >= full - 1e-9
    assert res.history[-1].gap <= 1e-9


def test_features_and_a_column_pool_with_k_columns():
    from lpboosting.datasets import softboost_synthetic

    Xtr, ytr, _, _ = softboost_synthetic(n_rows=600, n_features=30, n_train=200, random_state=1)
    oracle = Features(Xtr, ytr)
    full = soft_margin_lp(oracle.margin_matrix(), 0.2)["value"]
    for pricing in (oracle, Columns(oracle.margin_matrix())):
        for option in OPTIONS.values():
            res = column_generation(LPBoost(0.2), pricing, tol=1e-9, **option)
            assert res.converged and res.objective == pytest.approx(full, abs=1e-7)


# -- the k best columns -----------------------------------------------------------------------------
def _feature_best(X, y, d):
    """Brute force: the largest |edge| of any stump on each feature (constants included)."""
    best = []
    for j in range(X.shape[1]):
        edges = [abs(d @ y)]
        values = np.unique(X[:, j])
        for lo, hi in zip(values[:-1], values[1:]):
            edges.append(abs(d @ (y * np.where(X[:, j] > (lo + hi) / 2, 1.0, -1.0))))
        best.append(max(edges))
    return np.array(best)


@pytest.mark.parametrize("seed", range(4))
def test_the_k_best_stumps_spread_over_the_features(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, (40, 5)).astype(float)
    y = rng.choice([-1.0, 1.0], 40)
    d = rng.dirichlet(np.ones(40))
    oracle = Stumps(X, y)
    distinct = all_stump_columns(X, y)  # every distinct column, both signs
    feature_best = _feature_best(X, y, d)
    for k in (1, 2, 4, 5, 9, 30):
        found = oracle.price_many(d, k)
        assert len(found) == min(k, distinct.shape[1] // 2)  # a stump and its negation: one column
        assert found[0].column.tolist() == oracle.price(d).column.tolist()
        assert len({c.column.tobytes() for c in found}) == len(found)
        for c in found:
            assert c.edge == pytest.approx(d @ (y * c.hypothesis.predict(X)), abs=1e-12)
            assert c.edge >= 0  # the better sign of every stump
        # first the best stump of each feature, best features first (unless its column is taken)
        head = found[:min(k, X.shape[1])]
        for c in head:
            if np.isfinite(c.hypothesis.threshold):
                assert c.edge == pytest.approx(feature_best[c.hypothesis.feature], abs=1e-12)
        edges = [c.edge for c in head]
        assert edges == sorted(edges, reverse=True)
        # past the features, the next best columns overall
        if k > X.shape[1]:
            chosen = {c.column.tobytes() for c in found} | {(-c.column).tobytes() for c in found}
            left = [d @ u for u in distinct.T if u.tobytes() not in chosen]
            assert min(c.edge for c in found[X.shape[1]:]) >= max(left, default=-1) - 1e-12


def test_the_k_best_of_a_pool_and_of_the_features():
    rng = np.random.default_rng(0)
    U = rng.uniform(-1, 1, (30, 9))
    d = rng.dirichlet(np.ones(30))
    found = Columns(U).price_many(d, 4)
    assert [c.hypothesis.index for c in found] == list(np.argsort(-(d @ U))[:4])
    X, y = rng.normal(size=(30, 5)), rng.choice([-1.0, 1.0], 30)
    oracle = Features(X, y)
    found = oracle.price_many(d, 3)
    np.testing.assert_allclose([c.edge for c in found], np.sort(d @ oracle.margin_matrix())[::-1][:3])
    # trees return the one tree they grow
    assert len(Trees(X, y, max_depth=2).price_many(d, 5)) == 1


# -- honest endings: stalled and timed-out runs keep their model and history ----------------------
def test_a_stalled_run_says_so_and_keeps_its_model():
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1.0, -1.0)
    oracle = Trees(X, y, max_depth=None, max_leaf_nodes=10)
    res = column_generation(RMBoost(), oracle, max_rounds=300, stall_rounds=5)
    assert res.status == "stalled" and res.history[-1].status == "stalled"
    assert res.n_rounds < 300 and res.solution is not None and res.solution.ok
    risks = [r.primal for r in res.history]
    assert max(risks[-6:]) - min(risks[-6:]) <= 1e-6  # R did not move in the last 5 rounds
    assert res.objective == risks[-1]
    # RMBoost's own advice (the master's convergence_advice), not the loop's general smoothing
    assert "no progress in 5 rounds" in res.message and "try: a larger lam" in res.message
    assert "stabilization='smoothing'" not in res.message


def test_a_timed_out_run_says_so_and_keeps_its_model():
    X, y = cancer_subset(80, 5, 0)
    res = column_generation(LPBoost(0.1), Stumps(X, y), tol=1e-12, time_limit=1e-9)
    assert res.status == "time_limit" and res.n_rounds == 1
    assert res.history[-1].status == "time_limit" and res.history.meta["time_limit"] == 1e-9
    assert res.solution is not None and res.columns.shape[1] == 1
    assert "time_limit" in res.message and "larger time_limit" in res.message


def test_max_rounds_says_what_to_change():
    X, y = cancer_subset(80, 5, 0)
    res = column_generation(LPBoost(0.1), Stumps(X, y), tol=1e-12, max_rounds=2)
    assert res.status == "max_rounds"
    assert "max_rounds=2" in res.message and "stabilization='smoothing'" in res.message


@pytest.mark.parametrize("bad, match", [
    (dict(columns_per_round=0), "columns_per_round"), (dict(time_limit=0), "time_limit"),
    (dict(stall_rounds=0), "stall_rounds"), (dict(stabilization="box"), "stabilization"),
])
def test_bad_options_are_named(bad, match):
    X, y = cancer_subset(30, 3, 0)
    with pytest.raises(ValueError, match=match):
        column_generation(LPBoost(0.1), Stumps(X, y), **bad)
    with pytest.raises(ValueError, match="alpha must be in"):
        Smoothing(1.0)


def test_a_run_continues_from_a_previous_result_or_given_columns():
    X, y = cancer_subset(80, 5, 0)
    full = soft_margin_lp(all_stump_columns(X, y), 0.1)["value"]
    first = column_generation(LPBoost(0.1), Stumps(X, y), tol=1e-9, max_rounds=5)
    assert first.status == "max_rounds"
    more = column_generation(LPBoost(0.1), Stumps(X, y), tol=1e-9, initial_columns=first)
    assert more.converged and more.objective == pytest.approx(full, abs=1e-7)
    assert more.history[0].n_columns == 5 and more.history.meta["initial_columns"] == 5
    np.testing.assert_array_equal(more.columns[:, :5], first.columns)
    # round 1 of the continued run is the master of the first run's last round
    assert more.history[0].dual == pytest.approx(first.history[-1].dual, abs=1e-12)
    with pytest.raises(TypeError, match="Candidate"):
        column_generation(LPBoost(0.1), Stumps(X, y), initial_columns=[np.ones(80)])
    with pytest.raises(ValueError, match="empty"):
        column_generation(LPBoost(0.1), Stumps(X, y), initial_columns=[])


def test_the_classifiers_stop_honestly_and_keep_their_model():
    from sklearn.exceptions import ConvergenceWarning

    from lpboosting import LPBoostClassifier, RMBoostClassifier

    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="no progress in 5 rounds"):
        rm = RMBoostClassifier(stall_rounds=5).fit(X, y)
    assert rm.status_ == "stalled" and rm.history_[-1].status == "stalled"
    assert rm.predict(X).shape == y.shape and rm.minimax_risk_ == rm.history_[-1].primal
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        lp = LPBoostClassifier(time_limit=1e-9).fit(X, y)
    assert lp.status_ == "time_limit" and lp.n_rounds_ == 1 and lp.score(X, y) > 0.5
    smooth = LPBoostClassifier(stabilization="smoothing", columns_per_round=3, tol=1e-9).fit(X[:, :4], y)
    plain = LPBoostClassifier(tol=1e-9).fit(X[:, :4], y)
    assert smooth.status_ == plain.status_ == "converged"
    assert smooth.objective_ == pytest.approx(plain.objective_, abs=1e-7)
    with pytest.raises(ValueError, match="stabilization"):
        LPBoostClassifier(stabilization="box").fit(X, y)


@pytest.mark.parametrize("data", sorted(DATASETS))
def test_the_classifier_defaults_smoothing_and_20_columns_reach_the_full_lp(data):
    from lpboosting import LPBoostClassifier

    X, y = DATASETS[data]()
    clf = LPBoostClassifier(nu=0.1, tol=1e-9)
    assert (clf.columns_per_round, clf.stabilization) == (20, "smoothing")
    clf.fit(X, y)
    assert clf.status_ == "converged"
    assert clf.history_.meta["columns_per_round"] == 20 and clf.history_.meta["stabilization"]
    full = soft_margin_lp(all_stump_columns(X, y), clf.nu)["value"]
    assert clf.objective_ == pytest.approx(full, abs=1e-7)
    assert clf.history_[-1].gap <= 1e-9
