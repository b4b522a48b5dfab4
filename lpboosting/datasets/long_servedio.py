"""The Long–Servedio data (Long & Servedio, MLJ 2010, Sec. 4), as used in
Mansour, Nock, Williamson, *What killed the convex booster?* (papers/002), eqs. (10)-(11), Sec. 6.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

__all__ = ["long_servedio"]


def long_servedio(
    gamma: float,
    K: float = 5.0,
    N: int = 3,
    noise: float | None = None,
    random_state: int | np.random.Generator | None = None,
    theta: float = 0.0,
) -> Bunch:
    """S_clean and S_noisy of Long and Servedio for margin parameter ``gamma``.

    ``S_clean`` (eq. 10) holds four positive examples in R^2: ``(1, 0)`` (the
    "large margin" example), ``(gamma, -gamma)`` twice (the "penalizers") and
    ``(gamma, K gamma)`` (the "puller").  ``S_noisy`` (eq. 11) is the bag of
    ``N`` copies of S_clean and one copy with every label flipped: symmetric
    label noise of rate ``eta = 1/(N + 1)``.  Bayes' posterior on S_noisy is
    ``P(Y = 1 | x) = 1 - eta > 1/2`` at every observation, so the Bayes
    classifier is 100 % accurate on S_clean.  MODABOOST trains on S_noisy and
    is scored on S_clean (Sec. 6); the whole domain is in the training set, so
    there is no generalisation question.

    Parameters
    ----------
    gamma : float > 0
        Margin parameter of eq. (10).
    K : float > 0, default 5
        The puller's second coordinate is ``K gamma`` (5 in Long & Servedio).
    N : int >= 2, default 3
        Number of clean copies in S_noisy (the paper requires N > 1).
    noise : float in [0, 1/2), optional
        If given, S_noisy is instead ``N + 1`` copies of S_clean whose labels
        are flipped independently with probability ``noise`` (random
        classification noise, drawn with ``random_state``); the rows are then
        shuffled.  Default: the deterministic bag of eq. (11).
    random_state : int, Generator or None
        Seed for ``noise``; unused for the deterministic bag.
    theta : float, default 0
        Rotate every observation by this angle (the rotation trick of
        Lemma 3, eq. 54); 0 gives eq. (10).

    Returns
    -------
    sklearn.utils.Bunch
        with

        - X_clean (4, 2), y_clean (4,) all +1 : S_clean, labels in {-1, +1};
        - X_noisy (4(N+1), 2), y_noisy : S_noisy, labels in {-1, +1};
        - noise : the noise rate of S_noisy (1/(N+1), or the realised flip rate
          when ``noise`` was given);
        - bayes_posterior_clean (4,) : P(Y = +1 | x) under S_noisy for each row of
          X_clean (the fraction of +1 labels among the S_noisy rows at x);
        - bayes_posterior_noisy (4(N+1),) : the same for each row of X_noisy;
        - n_distinct : number of distinct observations (3);
        - gamma, K, N, theta : the parameters.
    """
    gamma = float(gamma)
    if not (gamma > 0 and np.isfinite(gamma)):
        raise ValueError(f"gamma must be a positive margin parameter, got {gamma}")
    if not (float(K) > 0 and np.isfinite(K)):
        raise ValueError(f"K must be positive (Long & Servedio use K = 5), got {K}")
    if int(N) != N or N < 2:
        raise ValueError(f"N must be an integer >= 2 (the paper requires N > 1), got {N}")
    N = int(N)
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    X_clean = np.array([[1.0, 0.0], [gamma, -gamma], [gamma, -gamma], [gamma, K * gamma]]) @ R.T
    y_clean = np.ones(4)
    if noise is None:
        X_noisy = np.vstack([X_clean] * (N + 1))
        y_noisy = np.concatenate([y_clean] * N + [-y_clean])
        rate = 1.0 / (N + 1)
    else:
        noise = float(noise)
        if not (0.0 <= noise < 0.5):
            raise ValueError(f"noise must be a flip probability in [0, 1/2), got {noise}")
        rng = np.random.default_rng(random_state)
        X_noisy = np.vstack([X_clean] * (N + 1))
        y_noisy = np.concatenate([y_clean] * (N + 1))
        flip = rng.random(y_noisy.size) < noise
        y_noisy[flip] = -y_noisy[flip]
        perm = rng.permutation(y_noisy.size)
        X_noisy, y_noisy = X_noisy[perm], y_noisy[perm]
        rate = float(flip.mean())

    def posterior(X: np.ndarray) -> np.ndarray:
        same = np.all(X[:, None, :] == X_noisy[None, :, :], axis=2)
        return (same * (y_noisy == 1)).sum(axis=1) / same.sum(axis=1)

    return Bunch(
        X_clean=X_clean, y_clean=y_clean, X_noisy=X_noisy, y_noisy=y_noisy, noise=rate,
        bayes_posterior_clean=posterior(X_clean), bayes_posterior_noisy=posterior(X_noisy),
        n_distinct=int(np.unique(X_clean, axis=0).shape[0]), gamma=gamma, K=float(K), N=N,
        theta=float(theta),
    )
