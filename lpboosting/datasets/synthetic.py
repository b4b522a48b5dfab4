"""Data generators from the source papers."""

from __future__ import annotations

import numpy as np


def softboost_synthetic(
    n_rows: int = 2000,
    n_features: int = 100,
    n_informative: int = 10,
    noise: float = 0.1,
    n_train: int = 500,
    random_state: int | None = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The synthetic set of Warmuth, Glocer, Rätsch (NIPS 2007), Sec. 5.

    A uniform [0, 1] matrix of ``n_rows`` x ``n_features``; the first half of
    the rows get +1/2 on the first ``n_informative`` columns, which are then
    rescaled back to [0, 1]; the first half is labelled +1, the rest -1; the
    labels of a random ``noise`` fraction are flipped; a random ``n_train``
    rows form the training set, the rest the test set.  The paper's
    hypotheses are the columns and their negations (``oracle="features"``).

    Returns X_train, y_train, X_test, y_test with labels in {-1, +1}.
    """
    if not (0 < n_train < n_rows):
        raise ValueError(f"n_train must be between 1 and n_rows - 1 = {n_rows - 1}, got {n_train}")
    if not (0.0 <= noise <= 1.0):
        raise ValueError(f"noise must be a fraction in [0, 1], got {noise}")
    if not (0 <= n_informative <= n_features):
        raise ValueError(f"n_informative must be in [0, n_features], got {n_informative}")
    rng = np.random.default_rng(random_state)
    X = rng.uniform(0.0, 1.0, size=(n_rows, n_features))
    half = n_rows // 2
    X[:half, :n_informative] += 0.5
    X[:, :n_informative] /= 1.5
    y = np.where(np.arange(n_rows) < half, 1.0, -1.0)
    flip = rng.choice(n_rows, size=int(round(noise * n_rows)), replace=False)
    y[flip] = -y[flip]
    perm = rng.permutation(n_rows)
    train, test = perm[:n_train], perm[n_train:]
    return X[train], y[train], X[test], y[test]


def twonorm(n_rows: int = 7400, n_features: int = 20, random_state: int | None = 0
            ) -> tuple[np.ndarray, np.ndarray]:
    """Breiman's twonorm (*Bias, variance and arcing classifiers*, 1996), of any size.

    Two Gaussians with identity covariance and means +-a (1, ..., 1),
    a = 2 / sqrt(n_features); each row's class is +1 or -1 with probability
    1/2.  The Bayes rule is sign(sum x) with error Phi(-2), about 2.3 %.
    KEEL's ``twonorm`` is one draw of 7400 rows.  Returns X (n_rows x
    n_features) and y in {-1, +1}.
    """
    if int(n_rows) != n_rows or n_rows < 2:
        raise ValueError(f"n_rows must be an integer >= 2, got {n_rows!r}")
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}")
    rng = np.random.default_rng(random_state)
    y = rng.choice([-1.0, 1.0], size=int(n_rows))
    X = rng.standard_normal((int(n_rows), int(n_features)))
    X += (2.0 / np.sqrt(n_features)) * y[:, None]
    return X, y
