"""The histogram stumps oracle: exact over stumps at its bin edges, equal to Stumps when unbinned."""

from __future__ import annotations

import numpy as np
import pytest

from lpboosting import column_generation
from lpboosting.masters import LPBoost
from lpboosting.oracles import BinnedStumps, Stumps, make_oracle
from lpboosting.oracles.binned import bin_thresholds
from tests.helpers import soft_margin_lp


def binned_class(oracle: BinnedStumps) -> np.ndarray:
    """Every column of the binned class, by brute force over the thresholds (and constants)."""
    y = oracle.y
    cols = [y, -y]
    for j, thr in enumerate(oracle.thresholds):
        for t in thr:
            h = np.where(oracle.X[:, j] > t, 1.0, -1.0)
            cols += [y * h, -y * h]
    return np.unique(np.column_stack(cols), axis=1)


def data(n=300, f=4, seed=0, decimals=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, f))
    if decimals is not None:
        X = np.round(X, decimals)
    y = np.where(X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("seed", range(3))
def test_binned_pricing_is_exact_over_its_class(seed):
    X, y = data(seed=seed)
    oracle = BinnedStumps(X, y, max_bins=16)
    U = binned_class(oracle)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        d = rng.dirichlet(np.ones(X.shape[0]))
        best = oracle.price(d)
        assert best.edge == pytest.approx(np.max(d @ U), abs=1e-12)
        # the hypothesis predicts its own column, and the column is in the class
        np.testing.assert_array_equal(y * best.hypothesis.predict(X), best.column)
        assert np.any(np.all(U == best.column[:, None], axis=0))
        for c in oracle.price_many(d, 10):
            np.testing.assert_array_equal(y * c.hypothesis.predict(X), c.column)
            assert c.edge == pytest.approx(d @ c.column, abs=1e-12)


def test_with_few_distinct_values_binned_equals_stumps():
    X, y = data(n=400, decimals=1)  # about 60 distinct values per feature
    a, b = Stumps(X, y), BinnedStumps(X, y, max_bins=255)
    rng = np.random.default_rng(4)
    for _ in range(3):
        d = rng.dirichlet(np.ones(400))
        ca, cb = a.price_many(d, 8), b.price_many(d, 8)
        assert [c.edge for c in ca] == pytest.approx([c.edge for c in cb], abs=1e-12)
    ra = column_generation(LPBoost(0.2), a, tol=1e-9, columns_per_round=5)
    rb = column_generation(LPBoost(0.2), b, tol=1e-9, columns_per_round=5)
    assert rb.objective == pytest.approx(ra.objective, abs=1e-9)


def test_column_generation_reaches_the_lp_over_the_binned_class():
    X, y = data(n=250, seed=5)
    oracle = BinnedStumps(X, y, max_bins=12)
    res = column_generation(LPBoost(0.1), oracle, tol=1e-10, columns_per_round=3)
    assert res.converged
    full = soft_margin_lp(binned_class(oracle), 0.1)["value"]
    assert res.objective == pytest.approx(full, abs=1e-8)
    # below the LP over all stumps (a larger class)
    exact = column_generation(LPBoost(0.1), Stumps(X, y), tol=1e-10, columns_per_round=3)
    assert res.objective <= exact.objective + 1e-9


def test_bins_hold_about_equal_counts_and_separate_distinct_values():
    x = np.random.default_rng(6).exponential(size=10_000)
    thr = bin_thresholds(x, 10)
    counts = np.bincount(np.searchsorted(thr, x), minlength=10)
    assert thr.size == 9 and np.all(np.diff(thr) > 0)
    assert counts.min() > 900 and counts.max() < 1100
    # heavy ties: a value holding half the data is one bin, never split
    x = np.concatenate([np.zeros(5000), np.arange(1, 5001.0)])
    thr = bin_thresholds(x, 8)
    assert np.sum(np.searchsorted(thr, x) == 0) == 5000


def test_binned_oracle_by_name_and_bad_max_bins():
    X, y = data(n=50)
    assert isinstance(make_oracle("binned-stumps", X, y), BinnedStumps)
    with pytest.raises(ValueError, match="max_bins"):
        BinnedStumps(X, y, max_bins=1)
    assert BinnedStumps(X, y, max_bins=300).codes.dtype == np.uint16


def test_the_classifier_takes_binned_stumps_by_name():
    from sklearn.datasets import load_breast_cancer

    from lpboosting import LPBoostClassifier

    X, y = load_breast_cancer(return_X_y=True)
    binned = LPBoostClassifier(oracle="binned-stumps", oracle_params={"max_bins": 32}).fit(X, y)
    exact = LPBoostClassifier().fit(X, y)
    assert binned.history_.meta["oracle"] == "binned-stumps"
    # a smaller class: a soft margin no larger than with every stump
    assert binned.objective_ <= exact.objective_ + 1e-7
    assert binned.score(X, y) >= 0.9
