"""The synthetic experiment of Krause & Singer, *Leveraging the margin more carefully* (ICML 2004), Sec. 6.

1000 training points in R^40 drawn from N(0, I); a hyperplane lambda* drawn
from the same normal distribution; labels y = sign(lambda* . x).  The training
points are divided into four quarters by their margin |lambda* . x|, group 1
holding the quarter of LARGEST margin and group 4 the smallest.  Experiment i
(i = 1..5) contaminates groups 1..i-1 with Bernoulli(p) label noise (each
label in them flipped independently with probability p): experiment 1 is
noise free, experiment 5 is uniform noise of rate p, and the overall noise
rate of experiment i is p (i - 1) / 4.  The 1000 test points are noise free.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["krause_singer_synthetic"]


def krause_singer_synthetic(
    p: float = 0.2,
    n_contaminated: int = 1,
    n_train: int = 1000,
    n_test: int = 1000,
    n_features: int = 40,
    random_state: int | np.random.Generator | None = None,
    return_details: bool = False,
) -> tuple[Any, ...]:
    """Draw one training/test split of the Sec. 6 experiment.

    Parameters
    ----------
    p : float in [0, 1]
        Bernoulli flip probability inside the contaminated groups.
    n_contaminated : int in 0..4
        How many margin quarters are contaminated, starting from the quarter
        of largest margin: experiment i of the paper is ``n_contaminated = i - 1``.
    n_train, n_test, n_features : int
        1000, 1000 and 40 in the paper.
    random_state : int, Generator or None
    return_details : bool
        Also return a dict with ``hyperplane`` (lambda*), ``y_train_clean``,
        ``group`` (1..4 per training point, 1 = largest margin), ``flipped``
        (bool mask) and ``noise_rate`` (the realised fraction of flipped labels).

    Returns
    -------
    X_train, y_train (noisy, in {-1, +1}), X_test, y_test (noise free)
    [, details]
    """
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real) or not (0.0 <= p <= 1.0):
        raise ValueError(f"p is a flip probability and must lie in [0, 1], got {p!r}")
    if isinstance(n_contaminated, (bool, np.bool_)) or not isinstance(n_contaminated, numbers.Integral) \
            or not (0 <= n_contaminated <= 4):
        raise ValueError(
            f"n_contaminated counts margin quarters and must be 0, 1, 2, 3 or 4, got {n_contaminated!r} "
            "(experiment i of the paper contaminates i - 1 quarters)"
        )
    for name, value, low in (("n_train", n_train, 4), ("n_test", n_test, 1), ("n_features", n_features, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    rng = np.random.default_rng(random_state)
    hyperplane = rng.standard_normal(n_features)
    X_train = rng.standard_normal((n_train, n_features))
    X_test = rng.standard_normal((n_test, n_features))
    s_train = X_train @ hyperplane
    s_test = X_test @ hyperplane
    y_clean = np.where(s_train >= 0, 1.0, -1.0)
    y_test = np.where(s_test >= 0, 1.0, -1.0)
    # quarters by margin |lambda* . x|: rank 0 = largest margin
    order = np.argsort(-np.abs(s_train), kind="stable")
    group = np.empty(n_train, dtype=int)
    group[order] = 1 + (np.arange(n_train) * 4) // n_train
    contaminated = group <= n_contaminated
    flipped = contaminated & (rng.random(n_train) < p)
    y_train = np.where(flipped, -y_clean, y_clean)
    out: tuple[Any, ...] = (X_train, y_train, X_test, y_test)
    if return_details:
        out = out + ({
            "hyperplane": hyperplane, "y_train_clean": y_clean, "group": group,
            "flipped": flipped, "noise_rate": float(flipped.mean()),
        },)
    return out
