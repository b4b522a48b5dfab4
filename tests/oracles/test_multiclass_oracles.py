"""The multiclass oracles: the pair layout, exact stumps against every stump enumerated, trees,
pools and callables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpboosting import column_generation
from lpboosting.errors import UnknownOracleError
from lpboosting.masters import MulticlassLPBoost
from lpboosting.oracles.multiclass import (
    ClassCallable,
    ClassPool,
    ClassStump,
    ClassStumps,
    ClassTrees,
    make_multiclass_oracle,
)
from lpboosting.pairs import class_scores, pair_columns, wrong_classes


def data(seed: int, n: int = 30, f: int = 3, K: int = 4, missing: bool = False):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, f)), 1)  # rounded: ties between values
    y = rng.integers(0, K, n)
    if missing:
        X[rng.random((n, f)) < 0.2] = np.nan
    return X, y


def every_stump(X: np.ndarray, K: int, max_bins: int | None = None) -> list[ClassStump]:
    """Every stump of the class ClassStumps searches, listed one by one (with ``max_bins``: the
    thresholds of the binned stumps only)."""
    from lpboosting.oracles.binned import bin_thresholds

    stumps = []
    for j in range(X.shape[1]):
        values = np.unique(X[~np.isnan(X[:, j]), j])
        cuts = (values[1:] + values[:-1]) / 2 if max_bins is None else bin_thresholds(X[~np.isnan(X[:, j]), j], max_bins)
        thresholds = [-np.inf, *cuts, np.inf]
        sides = (False, True) if np.isnan(X[:, j]).any() else (False,)
        for t in thresholds:
            for a in range(K):
                for b in range(K):
                    for missing_right in sides:
                        stumps.append(ClassStump(j, float(t), a, b, missing_right))
    return stumps


def random_pair_distribution(rng, n: int, K: int) -> np.ndarray:
    d = rng.exponential(size=n * (K - 1)) * (rng.random(n * (K - 1)) < 0.7)
    d[rng.integers(d.size)] += 1.0  # some mass: d sums to 1
    return d / d.sum()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 12), K=st.integers(2, 5))
def test_pair_columns_and_scores_follow_the_definition(seed, n, K):
    rng = np.random.default_rng(seed)
    y, predicted = rng.integers(0, K, n), rng.integers(0, K, n)
    u = pair_columns(predicted, y, K)
    expected = [int(predicted[i] == y[i]) - int(predicted[i] == k) for i in range(n) for k in range(K) if k != y[i]]
    np.testing.assert_array_equal(u, expected)
    assert u.dtype == np.int8
    d = random_pair_distribution(rng, n, K)
    S = class_scores(d, y, K)
    assert d @ u == pytest.approx(S[np.arange(n), predicted].sum(), abs=1e-12)  # the edge identity
    np.testing.assert_array_equal(wrong_classes(y, K)[0], [k for k in range(K) if k != y[0]])


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_stumps_are_exact(seed, missing):
    K = 4
    X, y = data(seed, missing=missing)
    oracle = ClassStumps(X, y, K)
    stumps = every_stump(X, K)
    U = pair_columns(np.column_stack([h.predict(X) for h in stumps]), y, K)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        d = random_pair_distribution(rng, X.shape[0], K)
        best = oracle.price(d)
        assert best.edge == pytest.approx(float(np.max(U.T @ d)), abs=1e-12)
        assert best.edge == pytest.approx(float(d @ best.column), abs=1e-15)
        np.testing.assert_array_equal(best.column, pair_columns(best.hypothesis.predict(X), y, K))
        many = oracle.price_many(d, 7)
        assert many[0].edge == pytest.approx(best.edge, abs=1e-12)
        assert len({c.column.tobytes() for c in many}) == len(many) == 7


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_binned_stumps_are_exact_over_the_binned_class(seed, missing):
    K = 4
    X, y = data(seed, n=60, missing=missing)
    X[:, 0] = np.random.default_rng(seed).normal(size=60)  # many distinct values: cut into bins
    binned = ClassStumps(X, y, K, max_bins=6)
    stumps = every_stump(X, K, max_bins=6)
    U = pair_columns(np.column_stack([h.predict(X) for h in stumps]), y, K)
    exact = ClassStumps(X, y, K)
    wide = ClassStumps(X, y, K, max_bins=256)  # more bins than values: every stump
    rng = np.random.default_rng(seed)
    for _ in range(5):
        d = random_pair_distribution(rng, X.shape[0], K)
        best = binned.price(d)
        assert best.edge == pytest.approx(float(np.max(U.T @ d)), abs=1e-12)
        np.testing.assert_array_equal(best.column, pair_columns(best.hypothesis.predict(X), y, K))
        assert best.edge == pytest.approx(float(d @ best.column), abs=1e-15)
        top = exact.price(d).edge
        assert best.edge <= top + 1e-12 and wide.price(d).edge == pytest.approx(top, abs=1e-12)
    with pytest.raises(ValueError, match="max_bins"):
        ClassStumps(X, y, K, max_bins=1)
    # oracle="binned-stumps" over more than two classes: the same class (255 bins unless given)
    named = make_multiclass_oracle("binned-stumps", X, y, K, max_bins=6)
    assert named.name == "binned-stumps" and make_multiclass_oracle("binned-stumps", X, y, K).max_bins == 255
    d = random_pair_distribution(rng, X.shape[0], K)
    assert named.price(d).edge == pytest.approx(binned.price(d).edge, abs=1e-15)


def test_stumps_column_generation_equals_the_lp_over_every_stump():
    K = 3
    X, y = data(5, n=40, f=2, K=K)
    stumps = every_stump(X, K)
    full = MulticlassLPBoost(0.2, K).solve(pair_columns(np.column_stack([h.predict(X) for h in stumps]), y, K))
    result = column_generation(MulticlassLPBoost(0.2, K), ClassStumps(X, y, K), tol=1e-9, columns_per_round=3)
    assert result.status == "converged" and result.gap <= 1e-9
    assert result.objective == pytest.approx(full.objective, abs=1e-9)


def test_trees_vote_the_best_class_of_each_leaf():
    K = 4
    X, y = data(1, n=80, f=4, K=K)
    oracle = ClassTrees(X, y, K, max_depth=2)
    assert not oracle.exact
    d = random_pair_distribution(np.random.default_rng(1), 80, K)
    c = oracle.price(d)
    assert c.edge == pytest.approx(float(d @ c.column), abs=1e-15)
    tree = c.hypothesis
    leaves = tree.tree.apply(X.astype(np.float32))
    S = class_scores(d, y, K)
    for leaf in np.unique(leaves):  # no other class of any leaf gives a larger edge
        sums = S[leaves == leaf].sum(axis=0)
        assert sums[tree.leaf_class[leaf]] == pytest.approx(sums.max(), abs=1e-15)
    assert tree.importances(4).sum() == pytest.approx(1.0)


def test_pool_is_exact_and_keeps_its_hypotheses():
    K = 3
    X, y = data(2, n=20, K=K)
    P = np.random.default_rng(2).integers(0, K, (20, 9))
    oracle = ClassPool(P, y, K, hypotheses=[f"h{m}" for m in range(9)])
    d = random_pair_distribution(np.random.default_rng(3), 20, K)
    edges = pair_columns(P, y, K).T @ d
    best = oracle.price(d)
    assert best.hypothesis == f"h{int(np.argmax(edges))}" and best.edge == pytest.approx(edges.max(), abs=1e-15)
    with pytest.raises(ValueError, match="N x M matrix"):
        ClassPool(P[:5], y, K)
    with pytest.raises(ValueError, match="class codes 0..2"):
        ClassPool(P + 1, y, K)


def test_forest_stages_are_the_forests_votes_and_the_lp_over_them_is_reached():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier

    from lpboosting.oracles.multiclass import ClassForest, ForestStage

    K = 3
    X, y = make_classification(150, 6, n_informative=4, n_classes=K, random_state=3)
    oracle = make_multiclass_oracle("gb-trees", X, y, K, max_iter=25)
    assert isinstance(oracle, ClassForest) and oracle.exact
    alone = HistGradientBoostingClassifier(early_stopping=False, **oracle.params).fit(X, y)
    # each kept stage is the class of largest staged decision; the last kept is the forest itself
    staged = [F.argmax(axis=1) for F in alone.staged_decision_function(X)]
    for m, h in zip(oracle.stages, oracle.hypotheses):
        assert isinstance(h, ForestStage) and h.stage == m
        np.testing.assert_array_equal(h.predict(X), staged[m - 1])
    assert oracle.stages[-1] == len(staged) == 25  # the forest itself, whatever the stages before vote
    np.testing.assert_array_equal(oracle.hypotheses[-1].predict(X), alone.predict(X))
    # the stages left out vote as the one after them on every row (of a run of equal columns the
    # longest stage is kept); the kept ones differ from the next
    kept = set(oracle.stages.tolist())
    assert len(kept) < len(staged)  # some stages vote alike: the test sees stages left out
    for m in range(1, len(staged)):
        assert (m in kept) == bool(np.any(staged[m - 1] != staged[m]))
    # rows it has not seen: the forest's own votes at each stage
    X_new = make_classification(40, 6, n_informative=4, n_classes=K, random_state=4)[0]
    h = oracle.hypotheses[len(oracle.stages) // 2]
    np.testing.assert_array_equal(h.predict(X_new), list(alone.staged_predict(X_new))[h.stage - 1])
    # column generation over the pool reaches the LP over all of it
    full = MulticlassLPBoost(0.2, K).solve(pair_columns(oracle.predicted, y, K))
    result = column_generation(MulticlassLPBoost(0.2, K), oracle, tol=1e-9, columns_per_round=2)
    assert result.status == "converged" and result.objective == pytest.approx(full.objective, abs=1e-9)


def test_the_forest_fits_the_rows_weights():
    from sklearn.datasets import make_classification

    K = 3
    X, y = make_classification(120, 5, n_informative=3, n_classes=K, random_state=5)
    w = np.random.default_rng(0).integers(0, 4, size=y.size).astype(float)
    weighted = make_multiclass_oracle("gb-trees", X, y, K, sample_weight=w, max_iter=10)
    np.testing.assert_array_equal(weighted.sample_weight, w)
    from sklearn.ensemble import HistGradientBoostingClassifier

    alone = HistGradientBoostingClassifier(early_stopping=False, **weighted.params).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(weighted.hypotheses[-1].predict(X), alone.predict(X))
    assert not np.array_equal(weighted.predicted, make_multiclass_oracle("gb-trees", X, y, K, max_iter=10).predicted)
    # the stump oracle prices the master's distribution, which holds the weights: none given to it
    assert make_multiclass_oracle("stumps", X, y, K, sample_weight=w).n_samples == y.size
    with pytest.raises(ValueError, match="max_iter"):
        make_multiclass_oracle("gb-trees", X, y, K, max_iter=0)
    with pytest.raises(ValueError, match="two classes"):
        make_multiclass_oracle("gb-trees", X, np.zeros(y.size, dtype=int), K)


def test_the_forest_stops_early_as_scikit_learns_own_when_asked():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier

    K = 3
    # label noise: the held-out loss stops falling long before 200 iterations
    X, y = make_classification(600, 6, n_informative=4, n_classes=K, flip_y=0.3, random_state=6)
    stopped = make_multiclass_oracle("gb-trees", X, y, K, early_stopping=True)
    alone = HistGradientBoostingClassifier(early_stopping=True, **stopped.params).fit(X, y)
    assert stopped.forest.n_iter == alone.n_iter_ < stopped.params["max_iter"]
    assert stopped.stages[-1] == alone.n_iter_  # the stopped forest itself is the last column
    np.testing.assert_array_equal(stopped.hypotheses[-1].predict(X), alone.predict(X))
    # "auto" is the forest's own default: no stopping on 10 000 rows or fewer; False never stops
    for setting in ("auto", False):
        assert make_multiclass_oracle("gb-trees", X, y, K, early_stopping=setting).forest.n_iter == 200
    # too few rows to hold a tenth out with every class: the forest's max_iter iterations
    few = np.r_[np.flatnonzero(y == 0)[:12], np.flatnonzero(y == 1)[:12], np.flatnonzero(y == 2)[:1]]
    assert make_multiclass_oracle("gb-trees", X[few], y[few], K, early_stopping=True,
                                  max_iter=15).forest.n_iter == 15
    with pytest.raises(ValueError, match="early_stopping must be True, False or 'auto'"):
        make_multiclass_oracle("gb-trees", X, y, K, early_stopping="yes")


def test_the_one_vs_rest_forests_vote_for_the_class_of_largest_decision_at_each_stage():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.multiclass import OneVsRestClassifier

    from lpboosting.oracles.multiclass import OneVsRestVotes

    K = 4
    X, y = make_classification(400, 6, n_informative=4, n_classes=K, flip_y=0.2, random_state=7)
    X_new = make_classification(60, 6, n_informative=4, n_classes=K, random_state=8)[0]
    whole = make_multiclass_oracle("gb-trees", X, y, K, one_vs_rest=True, max_iter=20, min_samples_leaf=20)
    assert isinstance(whole.forest, OneVsRestVotes) and whole.exact
    # the last stage is scikit-learn's one-vs-rest over the same binary forests
    ovr = OneVsRestClassifier(HistGradientBoostingClassifier(early_stopping=False, **whole.params)).fit(X, y)
    for rows in (X, X_new):
        np.testing.assert_array_equal(whole.hypotheses[-1].predict(rows), ovr.predict(rows))
    # every stage, stopped early: each forest k at min(m, its own length), the class of largest decision
    stopped = make_multiclass_oracle("gb-trees", X, y, K, one_vs_rest=True, early_stopping=True, max_iter=60)
    lengths = [model.n_iter_ for model in stopped.forest.models]
    assert len(set(lengths)) > 1 and max(lengths) < 60  # the forests stop, at different lengths
    for rows in (X, X_new):
        F = [np.array(list(model.staged_decision_function(rows))) for model in stopped.forest.models]
        expected = np.column_stack([np.argmax([F_k[min(m, len(F_k)) - 1] for F_k in F], axis=0)
                                    for m in range(1, max(lengths) + 1)])
        np.testing.assert_array_equal(stopped.forest.votes(rows), expected)
    for m, h in zip(stopped.stages, stopped.hypotheses):
        np.testing.assert_array_equal(h.predict(X_new), expected[:, m - 1])
    assert stopped.stages[-1] == max(lengths)
    # a class without rows of weight > 0 has no forest and gets no vote
    w = (y != 2).astype(float)
    absent = make_multiclass_oracle("gb-trees", X, y, K, one_vs_rest=True, sample_weight=w, max_iter=10)
    assert absent.forest.codes.tolist() == [0, 1, 3] and not np.any(absent.predicted == 2)
    # column generation over the pool reaches the LP over all of it
    full = MulticlassLPBoost(0.3, K).solve(pair_columns(stopped.predicted, y, K))
    result = column_generation(MulticlassLPBoost(0.3, K), stopped, tol=1e-9, columns_per_round=2)
    assert result.status == "converged" and result.objective == pytest.approx(full.objective, abs=1e-9)
    with pytest.raises(ValueError, match="one_vs_rest must be True or False"):
        make_multiclass_oracle("gb-trees", X, y, K, one_vs_rest="yes")


def test_callable_receives_the_class_scores():
    K = 3
    X, y = data(3, n=25, K=K)
    seen = {}

    class Constant:
        def __init__(self, k):
            self.k = k

        def predict(self, X):
            return np.full(len(X), self.k)

    def best_constant(X_, y_, scores):
        seen["shapes"] = (X_.shape, y_.tolist(), scores.shape)
        return Constant(int(np.argmax(scores.sum(axis=0))))

    oracle = make_multiclass_oracle(best_constant, X, y, K)
    d = random_pair_distribution(np.random.default_rng(4), 25, K)
    c = oracle.price(d)
    assert seen["shapes"] == (X.shape, y.tolist(), (25, K))
    assert c.edge == pytest.approx(class_scores(d, y, K).sum(axis=0).max(), abs=1e-15)
    bad = ClassCallable(lambda X_, y_, s: Constant(K), X, y, K)  # votes for a class that does not exist
    with pytest.raises(ValueError, match="class codes"):
        bad.price(d)


def test_errors_say_what_to_do():
    X, y = data(0)
    with pytest.raises(UnknownOracleError, match="one-vs-rest"):
        make_multiclass_oracle("features", X, y, 4)
    oracle = ClassStumps(X, y, 4)
    with pytest.raises(ValueError, match=r"one entry per \(example, wrong class\) pair"):
        oracle.price(np.full(30, 1 / 30))
    with pytest.raises(ValueError, match="one label per row"):
        ClassStumps(X[:10], y, 4)
    with pytest.raises(TypeError, match="no one-vs-rest labels"):
        oracle.relabel(np.ones(30))
