"""The Trees oracle's fast path grows exactly the trees of scikit-learn's public ``fit``.

From its second call on, :class:`~lpboosting.oracles.Trees` builds trees with scikit-learn's
private builder classes.  The reference here is always a ``DecisionTreeClassifier`` fitted
the public way (with its input checks) on the same features (the ranks the oracle grows its
trees on), labels and weights: the tree arrays, the column and the edge must be equal, not
merely close.  The hypotheses split the raw values: they are the trees scikit-learn grows
on the raw features, at any scale of the features.
"""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from lpboosting import LPBoostClassifier, RMBoostClassifier
from lpboosting.model_io import model_from_dict, model_to_dict
from lpboosting.oracles import TreeHypothesis, Trees
from lpboosting.oracles.trees import _SeedReplay, rank_features

TREE_ARRAYS = ("feature", "threshold", "children_left", "children_right", "value", "impurity",
               "n_node_samples", "weighted_n_node_samples")
DEFAULTS = dict(max_depth=3, max_leaf_nodes=None, random_state=0)


def real_data() -> tuple[np.ndarray, np.ndarray]:
    """Breast cancer (shipped with scikit-learn; 569 x 30, first 8 features), labels -1/+1."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[:, :8], np.where(y == 1, 1.0, -1.0)


def public_tree(X: np.ndarray, y: np.ndarray, d: np.ndarray, ranks: bool = True,
                **params) -> DecisionTreeClassifier:
    """The tree the oracle must return for d, fitted with every public check on the ranks of X
    (``ranks=False``: on X itself)."""
    return DecisionTreeClassifier(**{**DEFAULTS, **params}).fit(
        rank_features(X)[0] if ranks else X, np.where(d < 0, -y, y), sample_weight=np.abs(d))


def assert_same_tree(tree: DecisionTreeClassifier, ref: DecisionTreeClassifier) -> None:
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(tree.tree_, name), getattr(ref.tree_, name), err_msg=name)
    np.testing.assert_array_equal(tree.classes_, ref.classes_)
    assert tree.classes_.dtype == ref.classes_.dtype
    for name in ("n_classes_", "n_outputs_", "n_features_in_", "max_features_"):
        assert getattr(tree, name) == getattr(ref, name), name
    params, ref_params = tree.get_params(), ref.get_params()
    if isinstance(ref_params["random_state"], np.random.RandomState):  # compared by identity
        params.pop("random_state"), ref_params.pop("random_state")
    assert params == ref_params


def assert_prices_like_public(oracle: Trees, X, y, d, **params) -> DecisionTreeClassifier:
    candidate = oracle.price(d)
    ref = public_tree(X, y, d, **params)
    assert_same_tree(candidate.hypothesis.tree, ref)
    column = y * ref.predict(rank_features(X)[0])
    # the column is the hypothesis's (its rule on raw values), the tree's on every row of nonzero
    # weight (a row of weight 0 between two of them may fall on the other side of the raw threshold)
    np.testing.assert_array_equal(candidate.column, y * candidate.hypothesis.predict(X))
    np.testing.assert_array_equal(candidate.column[d != 0], column[d != 0])
    assert candidate.edge == float(d @ column)
    return ref


@pytest.fixture
def public_fits(monkeypatch) -> list[int]:
    """Counts the oracle's calls of the public ``fit`` (one entry per call)."""
    calls: list[int] = []
    original = Trees._public_fit

    def counting(self, labels, weights):
        calls.append(1)
        return original(self, labels, weights)

    monkeypatch.setattr(Trees, "_public_fit", counting)
    return calls


# -- random data and weightings ------------------------------------------------------------
WEIGHTINGS = ("dense", "sparse", "signed", "concentrated", "one_class", "one_class_weighted")


def weighting(kind: str, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = y.size
    if kind == "dense":
        d = rng.random(n)
    elif kind == "sparse":  # LP duals: most weights exactly zero
        d = rng.random(n) * (rng.random(n) < 0.25)
    elif kind == "signed":  # RMBoost prices signed weightings, zeros included
        d = rng.normal(size=n) * (rng.random(n) < 0.8)
    elif kind == "concentrated":
        d = np.full(n, 1e-9)
        d[rng.choice(n, size=min(n, 2), replace=False)] = 1.0
    elif kind == "one_class":  # after the sign flip every label is the same
        d = rng.choice([-1.0, 1.0]) * y * (rng.random(n) + 0.1)
    else:  # both labels present, but one class carries no weight at all
        d = rng.random(n) * (y == rng.choice([-1.0, 1.0]))
    d[rng.integers(n)] = rng.random() + 0.5  # never all zero (the public fit rejects that)
    return d / np.abs(d).sum()


@st.composite
def problems(draw):
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):  # few distinct values: ties in X and in the split improvements
        X = rng.integers(0, 3, size=(n, p)).astype(float)
    else:
        X = rng.normal(size=(n, p))
    y = rng.choice([-1.0, 1.0], size=n)
    kinds = draw(st.lists(st.sampled_from(WEIGHTINGS), min_size=2, max_size=4))
    params = dict(max_leaf_nodes=draw(st.sampled_from([2, 3, 10, None])),
                  max_depth=draw(st.sampled_from([1, 3, None])),
                  random_state=draw(st.sampled_from([0, 7])))
    return X, y, [weighting(k, y, rng) for k in kinds], params


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=problems())
def test_fast_path_grows_the_public_trees(problem, public_fits):
    X, y, ds, params = problem
    oracle = Trees(X, y, **params)
    public_fits.clear()
    for d in ds:
        assert_prices_like_public(oracle, X, y, d, **params)
    assert len(public_fits) == 1  # the first call only: the rest went through the fast path


@pytest.mark.parametrize("max_leaf_nodes", [2, 3, 10, None])
@pytest.mark.parametrize("max_depth", [1, 3, None])
@pytest.mark.parametrize("kind", WEIGHTINGS)
def test_fast_path_on_real_data(max_leaf_nodes, max_depth, kind, public_fits):
    X, y = real_data()
    rng = np.random.default_rng(hash((max_leaf_nodes, max_depth, kind)) % 2**32)
    oracle = Trees(X, y, max_depth=max_depth, max_leaf_nodes=max_leaf_nodes)
    for _ in range(3):
        assert_prices_like_public(oracle, X, y, weighting(kind, y, rng),
                                  max_depth=max_depth, max_leaf_nodes=max_leaf_nodes)
    assert len(public_fits) == 1


# -- random_state --------------------------------------------------------------------------
def tied_features(n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Copies of one feature: every split is tied across features, so the splitter's
    random feature order decides which one the tree uses."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return np.column_stack([x, x, x, x]), np.where(x + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)


def test_the_seed_decides_among_tied_features():
    # guards the tests below: with other seeds the trees differ, so a wrong seed is seen
    X, y = tied_features()
    d = np.full(y.size, 1 / y.size)
    roots = {public_tree(X, y, d, random_state=s).tree_.feature[0] for s in range(20)}
    assert len(roots) == X.shape[1]


@pytest.mark.parametrize("seed", [0, 1, 5, 123, np.int64(9)])
def test_int_seeds_are_a_fresh_random_state_per_fit(seed, public_fits):
    X, y = tied_features()
    rng = np.random.default_rng(1)
    oracle = Trees(X, y, max_depth=None, max_leaf_nodes=5, random_state=seed)
    for _ in range(4):
        assert_prices_like_public(oracle, X, y, rng.random(y.size),
                                  max_depth=None, max_leaf_nodes=5, random_state=seed)
    assert len(public_fits) == 1


def test_random_state_none_draws_from_the_global_state(public_fits):
    X, y = tied_features()
    rng = np.random.default_rng(2)
    oracle = Trees(X, y, max_depth=2, random_state=None)
    for i in range(6):
        d = rng.random(y.size)
        np.random.seed(i)
        candidate = oracle.price(d)
        after_oracle = np.random.get_state()[1].copy(), np.random.get_state()[2]
        np.random.seed(i)
        ref = public_tree(X, y, d, max_depth=2, random_state=None)
        assert_same_tree(candidate.hypothesis.tree, ref)
        # the same draws were taken from numpy's global RandomState
        after_ref = np.random.get_state()
        np.testing.assert_array_equal(after_oracle[0], after_ref[1])
        assert after_oracle[1] == after_ref[2]
    assert len(public_fits) == 1


def test_a_random_state_instance_is_drawn_from_in_turn(public_fits):
    X, y = tied_features()
    rng = np.random.default_rng(3)
    oracle = Trees(X, y, max_depth=2, random_state=np.random.RandomState(11))
    twin = np.random.RandomState(11)  # the same stream for the reference fits
    for _ in range(6):
        d = rng.random(y.size)
        ref = public_tree(X, y, d, max_depth=2, random_state=twin)
        assert_same_tree(oracle.price(d).hypothesis.tree, ref)
    assert len(public_fits) == 1


def test_seed_replay_gives_the_draws_of_a_fresh_random_state():
    memo: dict = {}
    for _ in range(2):  # the second round is served from the memo
        replay, fresh = _SeedReplay(4, memo), np.random.RandomState(4)
        assert replay.randint(0, 2**31 - 1) == fresh.randint(0, 2**31 - 1)
        assert replay.randint(0, 10, size=3).tolist() == fresh.randint(0, 10, size=3).tolist()
        assert replay.random_sample() == fresh.random_sample()
    assert len(memo) == 1
    # another method first: a real RandomState(seed) from the start
    replay, fresh = _SeedReplay(4, memo), np.random.RandomState(4)
    assert replay.random_sample() == fresh.random_sample()
    assert replay.randint(0, 100) == fresh.randint(0, 100)


# -- parameters: handled, unhandled, invalid -----------------------------------------------
# parameters the fast path reproduces (the first fit only is public) and those it leaves to fit
REPRODUCED = [
    dict(criterion="entropy"), dict(criterion="log_loss"), dict(min_samples_leaf=3),
    dict(min_samples_leaf=0.07), dict(min_samples_split=7), dict(min_samples_split=0.13),
    dict(min_weight_fraction_leaf=0.1), dict(min_impurity_decrease=0.01),
    dict(splitter="best", max_features=None, class_weight=None, ccp_alpha=0.0),
]
LEFT_TO_FIT = [
    dict(class_weight="balanced"), dict(class_weight={-1.0: 2.0, 1.0: 1.0}), dict(max_features=2),
    dict(max_features="sqrt"), dict(monotonic_cst=[1, 0, 0, -1]), dict(ccp_alpha=0.01),
    dict(splitter="random"),
]


@pytest.mark.parametrize("extra, public_calls",
                         [(e, 1) for e in REPRODUCED] + [(e, 3) for e in LEFT_TO_FIT])
def test_parameters_take_the_fast_path_or_fall_back_with_the_same_trees(extra, public_calls,
                                                                         public_fits):
    X, y = tied_features(80, seed=4)
    X = X + np.random.default_rng(5).normal(size=X.shape)
    rng = np.random.default_rng(6)
    params = dict(max_depth=None, max_leaf_nodes=8, **extra)
    oracle = Trees(X, y, **params)
    for kind in ("dense", "sparse", "signed"):
        assert_prices_like_public(oracle, X, y, weighting(kind, y, rng), **params)
    assert len(public_fits) == public_calls


def test_invalid_parameters_raise_scikit_learns_error_on_every_call():
    X, y = tied_features()
    oracle = Trees(X, y, max_leaf_nodes=1)
    for _ in range(2):
        with pytest.raises(ValueError, match="max_leaf_nodes"):
            oracle.price(np.full(y.size, 1 / y.size))


@pytest.mark.parametrize("d", [np.zeros(60), np.r_[np.nan, np.ones(59)], np.r_[np.inf, np.ones(59)]])
def test_weights_the_public_fit_rejects_are_still_rejected(d):
    X, y = tied_features()
    oracle = Trees(X, y)
    oracle.price(np.full(y.size, 1 / y.size))
    with pytest.raises(ValueError) as from_oracle:
        oracle.price(d)
    with pytest.raises(ValueError) as from_sklearn:
        public_tree(X, y, d)
    assert str(from_oracle.value) == str(from_sklearn.value)


def test_a_changed_private_api_falls_back_to_the_public_fit(monkeypatch, public_fits):
    import sklearn.tree._splitter as splitter_module

    def changed_signature(*args):
        raise TypeError("takes exactly 7 positional arguments")

    monkeypatch.setattr(splitter_module, "BestSplitter", changed_signature)
    X, y = tied_features()
    rng = np.random.default_rng(10)
    oracle = Trees(X, y, max_leaf_nodes=4)
    for _ in range(3):
        assert_prices_like_public(oracle, X, y, rng.random(y.size), max_leaf_nodes=4)
    assert oracle._fast is None
    assert len(public_fits) == 3


def test_a_missing_private_module_falls_back_to_the_public_fit(monkeypatch, public_fits):
    import sklearn.tree

    monkeypatch.delattr(sklearn.tree, "_criterion")
    monkeypatch.setitem(sys.modules, "sklearn.tree._criterion", None)  # import raises
    X, y = tied_features()
    rng = np.random.default_rng(11)
    oracle = Trees(X, y, max_leaf_nodes=4)
    for _ in range(3):
        assert_prices_like_public(oracle, X, y, rng.random(y.size), max_leaf_nodes=4)
    assert len(public_fits) == 3


# -- the hypothesis on new data, pickling ---------------------------------------------------
@pytest.mark.parametrize("kind", ["dense", "sparse", "signed", "one_class"])
def test_hypotheses_are_the_trees_scikit_learn_grows_on_the_raw_values(kind):
    X, y = real_data()
    rng = np.random.default_rng(12)
    oracle = Trees(X, y, max_depth=None, max_leaf_nodes=10)
    oracle.price(np.full(y.size, 1 / y.size))
    d = weighting(kind, y, rng)
    hypothesis = oracle.price(d).hypothesis
    raw = public_tree(X, y, d, ranks=False, max_depth=None, max_leaf_nodes=10)
    # the same tree (these features have no values closer than float32 tells apart) ...
    for name in TREE_ARRAYS:
        if name != "threshold":
            np.testing.assert_array_equal(getattr(hypothesis.tree.tree_, name), getattr(raw.tree_, name))
    # ... its thresholds midway between the same training values (scikit-learn's in float32)
    rule = hypothesis.rule
    inner = rule.feature >= 0
    np.testing.assert_allclose(rule.threshold[inner], raw.tree_.threshold[inner], rtol=1e-6)
    # the same predictions on the rows the tree was grown from (a row of weight 0 exactly midway
    # may go either way: scikit-learn rounds it and the threshold to float32) and on new data
    X_new = np.vstack([X[d != 0], rng.normal(size=(300, X.shape[1])) * X.std(axis=0) + X.mean(axis=0)])
    np.testing.assert_array_equal(hypothesis.predict(X_new), raw.predict(X_new))
    assert repr(hypothesis) == repr(TreeHypothesis(raw))
    assert repr(hypothesis) == f"TreeHypothesis(depth={raw.get_depth()}, leaves={raw.get_n_leaves()})"


def scaled_data() -> tuple[np.ndarray, np.ndarray]:
    """200 rows of breast cancer divided by each feature's largest value: in [0, 1], so that
    X * 1e300 is finite."""
    X, y = real_data()
    X = X[:200]
    return X / np.abs(X).max(axis=0), y[:200]


SCALES = (1e-40, 1e-9, 1.0, 1e9, 1e300)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make", [
    lambda: LPBoostClassifier(nu=0.2, oracle="trees", max_rounds=20),
    lambda: RMBoostClassifier(max_rounds=20),
], ids=["lpboost-trees", "rmboost"])
def test_the_trees_do_not_depend_on_the_scale_of_the_features(make):
    # scikit-learn's trees do not split values closer than about 1e-7 and compare in float32:
    # on X * 1e-9 they found no split (LPBoost "converged" at training accuracy 0.5) and on
    # X * 1e-40 or X * 1e300 every RMBoost weight was 0.  Grown on ranks, the trees are the same
    # at every scale: the same columns every round, so the same LPs and the same optimum
    # (compared within 1e-7, HiGHS's default primal and dual feasibility tolerance)
    X, y = scaled_data()
    ref = make().fit(X, y)
    assert ref.score(X, y) > 0.9
    for scale in SCALES:
        clf = make().fit(X * scale, y)
        np.testing.assert_array_equal(clf.predict(X * scale), ref.predict(X), err_msg=f"scale {scale}")
        np.testing.assert_array_equal(clf.decision_function(X * scale), ref.decision_function(X))
        assert clf.objective_ == pytest.approx(ref.objective_, abs=1e-7)
        saved = model_to_dict(clf)["model"]["hypotheses"]
        for h, h_ref, written in zip(clf.hypotheses_, ref.hypotheses_, saved):  # thresholds on the raw scale
            inner = h.rule.feature >= 0
            np.testing.assert_allclose(h.rule.threshold[inner], h_ref.rule.threshold[inner] * scale,
                                       rtol=1e-6)
            np.testing.assert_array_equal(np.array(written["threshold"], dtype=float)[inner],
                                          h.rule.threshold[inner])
        np.testing.assert_array_equal(model_from_dict(model_to_dict(clf)).predict(X * scale), ref.predict(X))


def test_an_oracle_on_the_fast_path_pickles_and_copies(public_fits):
    import copy

    X, y = tied_features(80, seed=17)
    rng = np.random.default_rng(18)
    oracle = Trees(X, y, max_depth=None, max_leaf_nodes=6, random_state=3)
    oracle.price(rng.random(y.size))
    oracle.price(rng.random(y.size))
    for twin in (pickle.loads(pickle.dumps(oracle)), copy.deepcopy(oracle)):
        d = rng.random(y.size)
        assert_same_tree(twin.price(d).hypothesis.tree, oracle.price(d).hypothesis.tree)
    assert len(public_fits) == 1


def test_pickled_hypotheses_predict_the_same():
    X, y = tied_features(80, seed=13)
    X = X + np.random.default_rng(14).normal(size=X.shape)
    oracle = Trees(X, y, max_depth=None, max_leaf_nodes=6)
    rng = np.random.default_rng(15)
    oracle.price(rng.random(y.size))
    hypothesis = oracle.price(rng.random(y.size)).hypothesis
    restored = pickle.loads(pickle.dumps(hypothesis))
    X_new = rng.normal(size=(200, X.shape[1])) * 2
    np.testing.assert_array_equal(restored.predict(X_new), hypothesis.predict(X_new))
    assert_same_tree(restored.tree, hypothesis.tree)
    assert repr(restored) == repr(hypothesis)


@pytest.mark.filterwarnings("ignore:LPBoostClassifier stopped after")
def test_a_boosted_ensemble_is_the_one_the_public_fit_gives(monkeypatch):
    # a whole LPBoost run with the fast path against one forced onto the public fit
    X, y = real_data()
    X_new = np.random.default_rng(16).normal(size=(300, X.shape[1])) * X.std(axis=0) + X.mean(axis=0)
    params = dict(nu=0.2, oracle="trees", oracle_params=dict(max_depth=None, max_leaf_nodes=4),
                  max_rounds=25)
    fast = LPBoostClassifier(**params).fit(X, y)
    monkeypatch.setattr(Trees, "_fast_setup", lambda self, tree: None)
    public = LPBoostClassifier(**params).fit(X, y)
    assert fast.n_rounds_ == public.n_rounds_
    np.testing.assert_array_equal(fast.weights_, public.weights_)
    for a, b in zip(fast.hypotheses_, public.hypotheses_):
        assert_same_tree(a.tree, b.tree)
    restored = pickle.loads(pickle.dumps(fast))
    np.testing.assert_array_equal(restored.decision_function(X_new), public.decision_function(X_new))
    np.testing.assert_array_equal(restored.predict(X_new), public.predict(X_new))
