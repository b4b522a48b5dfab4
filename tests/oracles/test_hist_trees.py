"""The histogram tree oracle: its columns, its exact last split, the binned stumps at depth 1, CART's root."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpboosting import LPBoostClassifier, RMBoostClassifier
from lpboosting.model_io import hypothesis_from_dict, hypothesis_to_dict
from lpboosting.oracles import BinnedStumps, HistTrees, Trees, make_oracle


def data(seed: int, n: int = 240, f: int = 4, missing: float = 0.0, distinct: int | None = None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, f))
    if distinct is not None:
        X = np.floor(X * distinct / 6)
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    if missing:
        X[rng.random((n, f)) < missing] = np.nan
    return X, y


def weighting(seed: int, n: int, signed: bool) -> np.ndarray:
    rng = np.random.default_rng(seed + 100)
    d = rng.dirichlet(np.ones(n))
    return d * np.where(rng.random(n) < 0.3, -1.0, 1.0) if signed else d


def leaves_of(rule, X: np.ndarray) -> np.ndarray:
    """The leaf of every row, by walking the rule's arrays (NaN takes the learned side)."""
    node = np.zeros(X.shape[0], dtype=np.intp)
    for i in range(X.shape[0]):
        while rule.feature[node[i]] >= 0:
            k = node[i]
            x = X[i, rule.feature[k]]
            go_left = bool(rule.missing_left[k]) if np.isnan(x) else x <= rule.threshold[k]
            node[i] = rule.left[k] if go_left else rule.right[k]
    return node


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), missing=st.sampled_from([0.0, 0.15]), signed=st.booleans(),
       max_bins=st.sampled_from([4, 16, 255]))
def test_depth_one_is_the_best_binned_stump(seed, missing, signed, max_bins):
    X, y = data(seed, missing=missing)
    d = weighting(seed, X.shape[0], signed)
    tree = HistTrees(X, y, max_depth=1, max_bins=max_bins).price(d)
    stump = BinnedStumps(X, y, max_bins=max_bins).price(d)
    assert tree.edge == pytest.approx(abs(stump.edge), abs=1e-12)
    np.testing.assert_array_equal(y * tree.hypothesis.predict(X), tree.column)


@pytest.mark.parametrize("shape", [dict(max_depth=3), dict(max_depth=None, max_leaf_nodes=3),
                                   dict(max_depth=2, max_leaf_nodes=4), dict(max_depth=5, max_leaf_nodes=8),
                                   dict(max_depth=4, min_samples_leaf=15)])
@pytest.mark.parametrize("seed", range(4))
def test_columns_are_the_trees_predictions_and_the_tree_keeps_its_limits(shape, seed):
    X, y = data(seed, missing=0.1 if seed % 2 else 0.0)
    d = weighting(seed, X.shape[0], signed=seed >= 2)
    oracle = HistTrees(X, y, **shape)
    found = oracle.price_many(d, 5)
    assert [c.edge for c in found] == sorted((c.edge for c in found), reverse=True)
    assert len({c.column.tobytes() for c in found}) == len(found)
    assert found[0].edge >= oracle.price(d).edge - 1e-12
    for c in [oracle.price(d), *found]:
        rule = c.hypothesis
        np.testing.assert_array_equal(y * rule.predict(X), c.column)
        assert c.edge == pytest.approx(d @ c.column, abs=1e-12)
        leaf = leaves_of(rule, X)
        assert np.all(rule.feature[leaf] < 0)
        # each leaf votes the sign of its sum of d y: the edge is sum over leaves of |G_leaf|
        G = np.bincount(leaf, weights=d * y, minlength=rule.feature.size)
        assert c.edge == pytest.approx(np.abs(G[rule.feature < 0]).sum(), abs=1e-12)
        assert rule.depth <= (shape.get("max_depth") or 99)
        assert int(np.sum(rule.feature < 0)) <= (shape.get("max_leaf_nodes") or 2 ** rule.depth)
        counts = np.bincount(leaf, minlength=rule.feature.size)[rule.feature < 0]
        assert counts.min() >= shape.get("min_samples_leaf", 1)


@pytest.mark.parametrize("seed", range(6))
def test_the_last_split_of_a_three_leaf_tree_is_the_best_by_edge(seed):
    """Given its root split, the tree's second split is the best binned split of either child:
    the best |edge| of a binned stump over one child's rows (a split with leaves of free signs
    gains max(|G_L - G_R|, |G_L + G_R|) = |G_L| + |G_R|), plus |G| of the other child."""
    X, y = data(seed, missing=0.1 if seed % 2 else 0.0)
    d = weighting(seed, X.shape[0], signed=seed >= 3)
    tree = HistTrees(X, y, max_depth=None, max_leaf_nodes=3).price(d)
    rule = tree.hypothesis
    root_left = leaves_of(_root_only(rule), X) == rule.left[0]
    stumps = BinnedStumps(X, y)
    best = max(abs(stumps.price(np.where(side, d, 0.0)).edge) + abs(d[~side] @ y[~side])
               for side in (root_left, ~root_left))
    assert tree.edge == pytest.approx(best, abs=1e-12)


def _root_only(rule):
    """The rule cut to its root split (both children leaves)."""
    from lpboosting.oracles.trees import TreeRule

    t = rule.feature.size
    feature = np.full(t, -1)
    feature[0] = rule.feature[0]
    return TreeRule(rule.left, rule.right, feature, rule.threshold, rule.leaf_value, 1, rule.importances(0),
                    rule.missing_left, float32=False)


@pytest.mark.parametrize("seed", range(4))
def test_with_every_value_its_own_bin_the_root_is_cart_s(seed):
    """The Gini gain is scikit-learn's criterion: with fewer distinct values than bins the root
    split (feature and threshold) is the Trees oracle's."""
    X, y = data(seed, n=400, distinct=30)
    d = weighting(seed, 400, signed=False)
    ours = HistTrees(X, y, max_depth=3).price(d).hypothesis
    cart = Trees(X, y, max_depth=3).price(d).hypothesis.rule
    assert ours.feature[0] == cart.feature[0]
    assert ours.threshold[0] == pytest.approx(cart.threshold[0], abs=1e-12)


def test_trees_round_trip_through_the_json_model_and_take_missing_values():
    X, y = data(3, missing=0.2)
    d = weighting(3, X.shape[0], signed=False)
    oracle = make_oracle("hist-trees", X, y, max_depth=3)
    for c in oracle.price_many(d, 4):
        back = hypothesis_from_dict(hypothesis_to_dict(c.hypothesis))
        np.testing.assert_array_equal(back.predict(X), c.hypothesis.predict(X))


def test_bad_parameters_say_what_to_pass():
    X, y = data(0)
    with pytest.raises(ValueError, match="max_depth or max_leaf_nodes"):
        HistTrees(X, y, max_depth=None)
    with pytest.raises(ValueError, match="min_samples_leaf must be an integer >= 1"):
        HistTrees(X, y, min_samples_leaf=0)
    with pytest.raises(ValueError, match="max_bins"):
        HistTrees(X, y, max_bins=1)
    with pytest.raises(ValueError, match="max_leaf_nodes must be an integer >= 2"):
        HistTrees(X, y, max_leaf_nodes=1)


def test_the_classifiers_take_hist_trees_by_name():
    X, y = data(5, n=400)
    lp = LPBoostClassifier(nu=0.2, oracle="hist-trees", oracle_params={"max_depth": 2}).fit(X, y)
    assert lp.status_ == "converged" and lp.score(X, y) > 0.8
    rm = RMBoostClassifier(oracle="hist-trees", max_rounds=300).fit(X, y)
    assert rm.status_ == "converged"
    # RMBoost's trees have max_leaf_nodes leaves (3 by default)
    assert all(int(np.sum(h.feature < 0)) <= 3 for h in rm.hypotheses_)


@pytest.mark.parametrize("shape", [dict(max_depth=3), dict(max_depth=None, max_leaf_nodes=3)])
@pytest.mark.parametrize("seed", range(3))
def test_with_gini_throughout_and_every_value_its_own_bin_the_tree_is_cart_s(shape, seed):
    """last_split="gini" chooses every split as CART does: the same partition of the training rows."""
    X, y = data(seed, n=400, distinct=30)
    d = weighting(seed, 400, signed=False)
    ours = HistTrees(X, y, last_split="gini", **shape).price(d)
    cart = Trees(X, y, **shape).price(d)
    np.testing.assert_array_equal(ours.column, cart.column)
    # the edge-chosen last split adds at least as much edge
    assert HistTrees(X, y, **shape).price(d).edge >= ours.edge - 1e-12


def test_last_split_must_be_edge_or_gini():
    X, y = data(0)
    with pytest.raises(ValueError, match="last_split must be 'edge' or 'gini'"):
        HistTrees(X, y, last_split="entropy")
