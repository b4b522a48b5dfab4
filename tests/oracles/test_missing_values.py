"""Missing values (NaN in X): each split learns the side of its missing rows.

A stump on a feature with missing values chooses, with its threshold and sign, the side of the
missing rows; the class it spans is that of the stumps on three complete features: the
feature with its missing values below every value, the same above every value, and the 0/1
missing-value indicator.  So the LP over the learned-side stumps is the LP over the stumps of
those indicator features, which the tests solve directly (scipy's HiGHS) over every column.
Trees learn the side at each split as scikit-learn's trees do.  A split that saw no missing
value in training sends one at prediction to the left side (x <= threshold).
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from lpboosting import LPBoostClassifier, RMBoostClassifier, column_generation, load_model, save_model
from lpboosting.estimators.base import merge_rows
from lpboosting.masters import LPBoost
from lpboosting.model_io import hypothesis_from_dict, hypothesis_to_dict
from lpboosting.oracles import BinnedStumps, Stump, Stumps, Trees
from tests.helpers import all_stump_columns, soft_margin_lp

#: LP optima are compared within 1e-7: HiGHS's default primal and dual feasibility tolerance
LP_TOL = 1e-7


def nan_data(kind: str, n: int = 80, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three features (one decimal: few distinct values), labels from the first two; feature 2
    all missing ("all"), feature 1 missing in 30 % of the rows ("part"), or both ("both")."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 1)
    y = np.where(X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    if kind in ("all", "both"):
        X[:, 2] = np.nan
    if kind in ("part", "both"):
        X[rng.permutation(n)[: int(0.3 * n)], 1] = np.nan
        y[np.isnan(X[:, 1]) & (rng.random(n) < 0.7)] = 1.0  # missingness says something of the label
    return X, y


def indicator_features(X: np.ndarray) -> np.ndarray:
    """Each feature with missing values as three complete ones: missing below every value, missing
    above every value, and the 0/1 missing-value indicator."""
    cols = []
    for x in X.T:
        missing = np.isnan(x)
        if not missing.any():
            cols.append(x)
            continue
        present = x[~missing]
        lo, hi = (present.min() - 1, present.max() + 1) if present.size else (0.0, 0.0)
        cols += [np.where(missing, lo, x), np.where(missing, hi, x), missing.astype(float)]
    return np.column_stack(cols)


KINDS = ["all", "part", "both"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("oracle_class", [Stumps, BinnedStumps])
def test_the_class_is_the_stumps_over_the_indicator_features(kind, oracle_class):
    X, y = nan_data(kind)
    U, stumps = oracle_class(X, y).all_columns()
    np.testing.assert_array_equal(np.unique(U, axis=1), all_stump_columns(indicator_features(X), y))
    for h, u in zip(stumps, U.T):  # every column is its hypothesis's
        np.testing.assert_array_equal(u, y * h.predict(X))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("oracle_class", [Stumps, BinnedStumps])
@pytest.mark.parametrize("nu", [0.1, 0.3])
def test_the_lp_is_the_lp_over_the_indicator_features(kind, oracle_class, nu):
    X, y = nan_data(kind)
    direct = soft_margin_lp(all_stump_columns(indicator_features(X), y), nu)["value"]
    res = column_generation(LPBoost(nu), oracle_class(X, y), tol=1e-9)
    assert res.status == "converged"
    assert res.objective == pytest.approx(direct, abs=LP_TOL)
    assert res.history[-1].gap <= 1e-9 + LP_TOL  # the exact oracle certifies it
    clf = LPBoostClassifier(nu=nu, oracle=oracle_class.name, tol=1e-9).fit(X, y)
    assert clf.objective_ == pytest.approx(direct, abs=LP_TOL)
    assert clf.objective_ == pytest.approx(
        LPBoostClassifier(nu=nu, oracle=oracle_class.name, tol=1e-9).fit(indicator_features(X), y).objective_,
        abs=LP_TOL)


@pytest.mark.parametrize("oracle_class", [Stumps, BinnedStumps])
def test_pricing_is_exact_over_every_side_for_missing_values(oracle_class):
    X, y = nan_data("both", n=120, seed=3)
    X[::7, 0] = np.nan
    oracle = oracle_class(X, y)
    U, _ = oracle.all_columns()
    rng = np.random.default_rng(4)
    for d in [rng.random(y.size), rng.normal(size=y.size), rng.random(y.size) * np.isnan(X[:, 1])]:
        best = oracle.price(d)
        assert best.edge == pytest.approx(np.max(d @ U), abs=1e-12)
        np.testing.assert_array_equal(best.column, y * best.hypothesis.predict(X))
        for candidate in oracle.price_many(d, 8):
            np.testing.assert_array_equal(candidate.column, y * candidate.hypothesis.predict(X))
            assert candidate.edge == pytest.approx(d @ candidate.column, abs=1e-12)


def test_the_missing_value_indicator_is_learned():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    y = np.where(rng.random(60) < 0.5, 1.0, -1.0)
    X[y > 0, 1] = np.nan  # the class is whether feature 1 is missing
    clf = LPBoostClassifier(nu=0.1).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert "+1 if x[1] is missing else -1" in clf.describe()


def test_trees_learn_the_side_of_missing_values_as_scikit_learn():
    from sklearn.tree import DecisionTreeClassifier

    X, y = nan_data("both", n=150, seed=6)
    X[:, 0] += np.random.default_rng(7).normal(size=y.size) * 1e-3  # no two values equal in float32
    oracle = Trees(X, y, max_depth=3)
    rng = np.random.default_rng(8)
    for _ in range(3):
        d = rng.random(y.size)
        candidate = oracle.price(d)
        raw = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=d)
        np.testing.assert_array_equal(candidate.column, y * raw.predict(X))
        np.testing.assert_array_equal(candidate.hypothesis.predict(X), raw.predict(X))
    assert oracle._fast is not None  # the fast path grows them too (tests/oracles/test_trees_oracle.py)


CLASSIFIERS = {
    "stumps": lambda: LPBoostClassifier(nu=0.2),
    "binned-stumps": lambda: LPBoostClassifier(nu=0.2, oracle="binned-stumps"),
    "trees": lambda: LPBoostClassifier(nu=0.2, oracle="trees", max_rounds=30),
    "rmboost": lambda: RMBoostClassifier(max_rounds=30),
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_predictions_with_missing_values_are_the_same_after_save_and_load(name, tmp_path):
    X, y = nan_data("both", n=150, seed=9)
    clf = CLASSIFIERS[name]().fit(X, y)
    rng = np.random.default_rng(10)
    X_new = np.round(rng.normal(size=(200, 3)), 2)
    X_new[rng.random(X_new.shape) < 0.3] = np.nan  # in every feature, feature 0 had none in training
    path = tmp_path / "model.json"
    save_model(clf, path)
    json.loads(path.read_text())  # plain JSON (no NaN or Infinity)
    for back in (load_model(path), pickle.loads(pickle.dumps(clf))):
        np.testing.assert_array_equal(back.decision_function(X_new), clf.decision_function(X_new))
        np.testing.assert_array_equal(back.predict(X_new), clf.predict(X_new))
        np.testing.assert_array_equal(back.predict(X), clf.predict(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_a_feature_without_missing_values_in_training_sends_them_left(name):
    # the documented default side: x <= threshold at every split, so a missing value is predicted
    # as a value below every threshold
    X, y = nan_data("part", n=150, seed=11)
    clf = CLASSIFIERS[name]().fit(X, y)
    X_new = X.copy()
    X_new[::2, 0] = np.nan
    below = X_new.copy()
    below[::2, 0] = -1e300
    np.testing.assert_array_equal(clf.decision_function(X_new), clf.decision_function(below))


def test_stumps_describe_and_save_the_side_of_missing_values():
    cases = {
        Stump(0, 1.5, 1.0, True): "+1 if x[0] > 1.5 or x[0] is missing else -1",
        Stump(0, 1.5, 1.0, False): "+1 if x[0] > 1.5 else -1",
        Stump(0, 1.5, -1.0): "-1 if x[0] > 1.5 else +1",
        Stump(2, np.inf, 1.0, True): "+1 if x[2] is missing else -1",
        Stump(2, -np.inf, 1.0, False): "+1 if x[2] is present else -1",
        Stump(1, np.inf, -1.0): "+1 (constant)",
        Stump(1, -np.inf, -1.0): "-1 (constant)",
    }
    X = np.array([[0.0, 1.0, np.nan], [2.0, np.nan, 3.0], [np.nan, 0.0, np.nan]])
    for stump, text in cases.items():
        assert stump.describe() == text
        data = json.loads(json.dumps(hypothesis_to_dict(stump), allow_nan=False))
        back = hypothesis_from_dict(data)
        assert back == stump
        np.testing.assert_array_equal(back.predict(X), stump.predict(X))
    # a stump without a learned side is written as before missing values were handled
    assert "missing_right" not in hypothesis_to_dict(Stump(0, 1.5, 1.0))


def test_repeated_rows_with_missing_values_merge():
    X, y = nan_data("both", n=40, seed=12)
    X_rep, y_rep = np.vstack([X, X[:10]]), np.concatenate([y, y[:10]])
    merged, _, weight, rows = merge_rows(X_rep, y_rep, None)
    assert merged.shape[0] == 40 and weight.sum() == 50
    np.testing.assert_array_equal(rows.row[:10], rows.row[40:])


def test_infinite_values_are_refused_and_missing_values_only_where_handled():
    X, y = nan_data("part")
    X_inf = X.copy()
    X_inf[5, 0] = -np.inf
    for oracle in (Stumps, BinnedStumps, Trees):
        with pytest.raises(ValueError, match=r"infinite value\(s\) \(the first in row 5, feature 0\)"):
            oracle(X_inf, y)
    with pytest.raises(ValueError, match="missing values .*features oracle"):
        LPBoostClassifier(oracle="features").fit(X, y)
    with pytest.raises(ValueError, match="missing values .*callable oracle"):
        LPBoostClassifier(oracle=lambda X, y, d: Stump(0, 0.0, 1.0)).fit(X, y)
