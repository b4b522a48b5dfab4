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
