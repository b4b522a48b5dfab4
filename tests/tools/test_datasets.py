"""Data generators: the twonorm generator against its definition."""

from __future__ import annotations

import numpy as np
import pytest


def test_twonorm_is_breimans_two_gaussians():
    from scipy.stats import norm

    from lpboosting.datasets import twonorm

    X, y = twonorm(40_000, random_state=1)
    assert X.shape == (40_000, 20) and set(np.unique(y)) == {-1.0, 1.0}
    a = 2 / np.sqrt(20)
    # class means +-a (1, ..., 1), unit variances, balanced classes
    np.testing.assert_allclose(X[y > 0].mean(axis=0), a, atol=0.03)
    np.testing.assert_allclose(X[y < 0].mean(axis=0), -a, atol=0.03)
    np.testing.assert_allclose((X - a * y[:, None]).std(axis=0), 1.0, atol=0.02)
    assert abs(y.mean()) < 0.02
    # the Bayes rule sign(sum x) errs with probability Phi(-2)
    assert np.mean(np.sign(X.sum(axis=1)) != y) == pytest.approx(norm.cdf(-2.0), abs=0.003)
    # reproducible, and other sizes
    np.testing.assert_array_equal(twonorm(50, random_state=3)[0], twonorm(50, random_state=3)[0])
    assert twonorm(10, n_features=3)[0].shape == (10, 3)
    with pytest.raises(ValueError, match="n_rows"):
        twonorm(1)
