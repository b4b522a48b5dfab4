"""The trees of a gradient-boosted forest as a finite pool (``oracle="gb-trees"``).

The pool is checked against the forest itself (its trees, scaled back and
summed with the constant start, are scikit-learn's decision function), the
column generation over it against the soft-margin LP over the whole pool
solved directly (scipy's HiGHS, objective to 1e-7: HiGHS's feasibility and
optimality tolerances are 1e-7), and the classifier's output against the LP's
weights.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

from lpboosting import LPBoostClassifier, column_generation, save_model
from lpboosting.masters import LPBoost
from lpboosting.oracles import BoostedTree, BoostedTrees, make_oracle
from tests.helpers import soft_margin_lp


def data(n=300, seed=0, flip=0.05):
    X, y = make_classification(n, 8, n_informative=5, flip_y=flip, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def test_the_pool_is_the_forests_trees():
    X, y = data()
    oracle = make_oracle("gb-trees", X, y, max_iter=30)
    assert isinstance(oracle, BoostedTrees) and oracle.exact
    forest = oracle.forest
    trees = forest.outputs(X)
    assert trees.shape == (X.shape[0], 30)
    np.testing.assert_allclose(forest.start + trees.sum(axis=1), forest.model.decision_function(X), atol=1e-9)
    half = oracle.trees.size
    H = oracle.U[:, :half] * y[:, None]
    np.testing.assert_allclose(H * oracle.scales, trees[:, oracle.trees], atol=1e-12)
    np.testing.assert_array_equal(oracle.U[:, half:], -oracle.U[:, :half])
    assert np.allclose(np.abs(H).max(axis=0), 1.0)  # each tree scaled to [-1, 1] on the training rows


def test_the_forest_fits_the_weighted_rows():
    # the pool is the trees of the forest scikit-learn fits with the same weights, and its start
    # is the weighted log-odds; without the weights the trees differ
    X, y = data(seed=3)
    w = np.random.default_rng(0).integers(0, 4, size=y.size).astype(float)
    oracle = make_oracle("gb-trees", X, y, sample_weight=w, max_iter=20)
    forest = oracle.forest
    share = w[y > 0].sum() / w.sum()
    assert forest.start == pytest.approx(np.log(share / (1 - share)), abs=1e-12)
    from sklearn.ensemble import HistGradientBoostingClassifier

    alone = HistGradientBoostingClassifier(early_stopping=False, **oracle.params).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(forest.start + forest.outputs(X).sum(axis=1), alone.decision_function(X), atol=1e-9)
    unweighted = make_oracle("gb-trees", X, y, max_iter=20)
    assert not np.allclose(unweighted.forest.outputs(X), forest.outputs(X))
    # one-vs-rest relabels the pool: the new forest keeps the weights
    relabelled = oracle.relabel(-y)
    np.testing.assert_array_equal(relabelled.sample_weight, w)
    # the oracles that only price the master's distribution are built as before
    assert make_oracle("stumps", X, y, sample_weight=w).n_samples == y.size
    with pytest.raises(ValueError, match="sample_weight"):
        BoostedTrees(X, y, sample_weight=np.zeros(y.size))


def test_a_weighted_fit_prices_the_forest_of_its_weights():
    # the classifier hands its (merged) weights to the forest: its model is that of the LP over the
    # weighted forest's trees, and integer weights give the fit on repeated rows
    X, y = data(n=200, seed=4)
    w = np.random.default_rng(1).integers(1, 4, size=y.size).astype(float)
    params = {"nu": 0.2, "oracle": "gb-trees", "oracle_params": {"max_iter": 15}, "tol": 1e-9}
    weighted = LPBoostClassifier(**params).fit(X, y, sample_weight=w)
    given = {row.tobytes(): weight for row, weight in zip(X, w)}  # the fit merges (and sorts) the rows
    oracle = weighted._oracle
    np.testing.assert_array_equal(oracle.sample_weight, [given[row.tobytes()] for row in oracle._X])
    repeated = LPBoostClassifier(**params).fit(np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-7)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


@pytest.mark.parametrize("nu", [0.1, 0.3])
def test_column_generation_reaches_the_lp_over_the_whole_pool(nu):
    X, y = data(seed=1)
    oracle = BoostedTrees(X, y, max_iter=25)
    result = column_generation(LPBoost(nu), oracle, tol=1e-9)
    direct = soft_margin_lp(oracle.U, nu)
    assert result.converged
    assert result.objective == pytest.approx(direct["value"], abs=1e-7)
    # the hypotheses are the pool's columns: h(x_n) y_n is the column the LP weighted
    for h, column in zip(result.hypotheses, result.columns.T):
        assert isinstance(h, BoostedTree)
        np.testing.assert_allclose(y * h.predict(X), column, atol=1e-12)


def test_the_classifier_predicts_with_the_lps_weights_and_survives_pickle():
    X, y = data(seed=2)
    X_new = data(n=100, seed=3)[0]
    clf = LPBoostClassifier(nu=0.2, oracle="gb-trees", oracle_params={"max_iter": 40}).fit(X, y)
    oracle = BoostedTrees(X, y, max_iter=40)
    assert clf.objective_ == pytest.approx(soft_margin_lp(oracle.U, 0.2)["value"], abs=1e-7)
    f = sum(w * h.predict(X_new) for w, h in zip(clf.estimator_weights_, clf.estimators_))
    np.testing.assert_allclose(clf.decision_function(X_new), f, atol=1e-9)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X_new), clf.predict(X_new))
    np.testing.assert_allclose(clf.margins(X, y), y * clf.decision_function(X), atol=1e-12)


def test_a_forest_answers_the_rows_it_is_asked_even_after_they_change():
    X, y = data(seed=4)
    oracle = BoostedTrees(X, y, max_iter=10)
    h = oracle.price(np.full(X.shape[0], 1.0 / X.shape[0])).hypothesis
    first = h.predict(X).copy()
    X2 = X.copy()
    X2[:, :] = X2[::-1]  # the same shape, other rows: not the remembered answer
    np.testing.assert_allclose(h.predict(X2), first[::-1], atol=1e-12)


def test_missing_values_go_where_the_forest_sends_them():
    X, y = data(seed=5)
    X[::7, 0] = np.nan
    clf = LPBoostClassifier(nu=0.2, oracle="gb-trees", oracle_params={"max_iter": 20}).fit(X, y)
    assert np.all(np.isfinite(clf.decision_function(X)))
    assert clf.score(X, y) > 0.8


def test_more_than_two_classes_one_vs_rest_and_its_refusals(tmp_path):
    X, y3 = make_classification(240, 6, n_informative=4, n_classes=3, random_state=6)
    clf = LPBoostClassifier(nu=0.4, oracle="gb-trees", oracle_params={"max_iter": 15},
                            multiclass="one-vs-rest").fit(X, y3)
    assert len(clf.one_vs_rest_) == 3 and clf.score(X, y3) > 0.8
    # one multiclass LP over the forest's staged class votes (a pool of its own: the trees of a
    # multiclass forest score one class each and do not vote)
    native = LPBoostClassifier(nu=0.4, oracle="gb-trees", oracle_params={"max_iter": 15}).fit(X, y3)
    assert native._native_fit and native.score(X, y3) > 0.8
    assert all(type(h).__name__ == "ForestStage" for h in native.hypotheses_)
    X2, y2 = data(seed=7)
    binary = LPBoostClassifier(nu=0.4, oracle="gb-trees", oracle_params={"max_iter": 10}).fit(X2, y2)
    with pytest.raises(TypeError, match="JSON"):
        save_model(binary, tmp_path / "m.json")


@pytest.mark.parametrize("bad, message", [({"max_iter": 0}, "max_iter"), ({"max_iter": 2.5}, "max_iter")])
def test_bad_parameters_say_what_is_wrong(bad, message):
    X, y = data(n=60)
    with pytest.raises(ValueError, match=message):
        BoostedTrees(X, y, **bad)
    with pytest.raises(ValueError, match="both classes"):
        BoostedTrees(X, np.ones(60))


def test_a_forest_that_cannot_split_gives_the_two_constants():
    X = np.ones((30, 3))
    y = np.where(np.arange(30) < 20, 1.0, -1.0)
    oracle = BoostedTrees(X, y, max_iter=5)
    assert oracle.U.shape == (30, 2)
    clf = LPBoostClassifier(nu=0.5, oracle="gb-trees", oracle_params={"max_iter": 5}).fit(X, y)
    np.testing.assert_array_equal(clf.predict(X), np.ones(30))  # the majority, +1


def test_the_whole_forest_is_one_more_hypothesis_when_asked():
    from lpboosting.oracles.boosted_trees import WHOLE_FOREST

    X, y = data(seed=8)
    plain = BoostedTrees(X, y, max_iter=20)
    oracle = BoostedTrees(X, y, max_iter=20, whole_forest=True)
    half = oracle.trees.size
    assert half == plain.trees.size + 1 and oracle.trees[-1] == WHOLE_FOREST
    np.testing.assert_array_equal(oracle.U[:, :half - 1], plain.U[:, :half - 1])  # the trees as before
    # the forest's column is its expected label 2p - 1, p scikit-learn's probability of +1
    p = oracle.forest.model.predict_proba(X)[:, list(oracle.forest.model.classes_).index(1.0)]
    np.testing.assert_allclose(oracle.U[:, half - 1] * y, 2.0 * p - 1.0, atol=1e-9)
    np.testing.assert_array_equal(oracle.U[:, half:], -oracle.U[:, :half])
    # column generation over the pool reaches the LP over all of it
    result = column_generation(LPBoost(0.3), oracle, tol=1e-9)
    assert result.objective == pytest.approx(soft_margin_lp(oracle.U, 0.3)["value"], abs=1e-7)
    # the forest's hypothesis is its column on the training rows and the forest's classes elsewhere
    h = oracle._candidate(np.zeros(2 * half), half - 1).hypothesis
    assert h.index == WHOLE_FOREST and "expected label" in h.describe()
    np.testing.assert_allclose(y * h.predict(X), oracle.U[:, half - 1], atol=1e-12)
    X_new = data(n=80, seed=9)[0]
    p_new = oracle.forest.model.predict_proba(X_new)[:, list(oracle.forest.model.classes_).index(1.0)]
    np.testing.assert_allclose(h.predict(X_new), 2.0 * p_new - 1.0, atol=1e-9)
    # one-vs-rest's relabelled pools keep it; the parameter is a flag
    assert oracle.relabel(-y).trees[-1] == WHOLE_FOREST
    with pytest.raises(ValueError, match="whole_forest"):
        BoostedTrees(X, y, max_iter=5, whole_forest="yes")


def test_the_forest_stops_early_as_asked():
    # early_stopping goes to the forest: its trees (and the forest's hypothesis) are those of the
    # forest scikit-learn fits with it; "auto" stops early only on more than 10 000 rows
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y = data(n=600, seed=10, flip=0.2)
    oracle = BoostedTrees(X, y, max_iter=150, early_stopping=True, whole_forest=True)
    alone = HistGradientBoostingClassifier(early_stopping=True, **oracle.params).fit(X, y)
    assert oracle.forest.n_trees == alone.n_iter_ < 150
    np.testing.assert_allclose(oracle.forest.decision(X), alone.decision_function(X), atol=1e-9)
    assert BoostedTrees(X, y, max_iter=30, early_stopping="auto").forest.n_trees == 30
    assert oracle.relabel(-y).early_stopping is True
    with pytest.raises(ValueError, match="early_stopping"):
        BoostedTrees(X, y, max_iter=5, early_stopping="yes")
    # rows too few to hold a tenth out with both classes (scikit-learn would refuse): all the trees
    from lpboosting.oracles.boosted_trees import can_hold_out

    assert not can_hold_out(y[:10]) and not can_hold_out(np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1]))
    assert can_hold_out(np.array([1, -1] * 10)) and not can_hold_out(np.array([1, -1] * 5))
    small = BoostedTrees(X[:10], y[:10], max_iter=8, early_stopping=True)
    assert small.early_stopping is True and small.forest.n_trees == 8
    assert not small.forest.model.get_params()["early_stopping"]
    # where it can, scikit-learn's own split succeeds: two classes of at least two rows, 20 rows
    HistGradientBoostingClassifier(early_stopping=True, max_iter=5).fit(X[:20], np.array([1, -1] * 10))
