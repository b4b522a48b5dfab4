"""Label noise for robustness experiments (RMBoost, NeurIPS 2025, Sec. 6 and Appendix H).

Three protocols:

``"uniform"``
    symmetric and uniform noise: every label is flipped independently with
    probability ``rate`` (p_{+1}(x) = p_{-1}(x) = rate in the paper's notation);
``"one-sided"``
    only labels of the class ``positive`` (default: the second label in
    sorted order, the class lpboosting encodes as +1) are flipped, each
    independently with probability ``rate``; the other class is untouched
    (asymmetric noise: p_{positive}(x) = rate, p_{other}(x) = 0);
``"adversarial"``
    the paper's adversarial noise (Appendix H.1): the round(rate * n)
    training points with the LARGEST margin y * score under a reference rule
    trained on the clean labels are flipped (p_y(x) = 1 for them, 0 for the
    others).  ``scores`` are that rule's decision values, positive meaning
    ``positive`` (as scikit-learn's ``decision_function`` of a classifier
    with ``classes_[1] == positive``); the paper uses LogitBoost, any rule
    works.  Ties in the margin are broken by the lower index first.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

KINDS = ("uniform", "one-sided", "adversarial")


def _check_rate(rate: Any) -> float:
    if isinstance(rate, (bool, np.bool_)):
        raise ValueError(f"rate must be a number in [0, 1], got {rate!r}")
    try:
        value = float(rate)
    except (TypeError, ValueError):
        raise ValueError(f"rate must be a number in [0, 1], got {rate!r}") from None
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise ValueError(
            f"rate must be a probability in [0, 1] (e.g. 0.1 for 10 % noise), got {rate!r}"
        )
    return value


def flip_labels(
    y: Any,
    rate: float,
    kind: str = "uniform",
    random_state: int | np.random.Generator | None = None,
    scores: Any = None,
    *,
    positive: Any = None,
) -> np.ndarray:
    """A copy of the binary labels ``y`` with some labels flipped to the other class.

    Parameters
    ----------
    y : array-like of shape (n,)
        Two distinct label values (any type: -1/+1, 0/1, strings, ...).
        The result has the same dtype and uses the same two values.
    rate : float in [0, 1]
        Flip probability ("uniform", "one-sided") or fraction of flipped
        points ("adversarial": round(rate * n) points).
    kind : {"uniform", "one-sided", "adversarial"}
        See the module docstring.
    random_state : int, numpy Generator or None
        Seed of the random flips ("adversarial" is deterministic).
    scores : array-like of shape (n,), required for "adversarial" only
        Decision values of a reference rule trained on the clean labels;
        the margin of point i is +score_i if y_i == positive else -score_i.
    positive : label, optional
        The class encoded as +1 (default: the second label in sorted order):
        the class whose labels "one-sided" flips, and the sign of ``scores``.

    Returns
    -------
    numpy.ndarray of shape (n,), same dtype as ``np.asarray(y)``.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels, got shape {y.shape}")
    rate = _check_rate(rate)
    if not isinstance(kind, str) or kind.strip().lower() not in KINDS:
        raise ValueError(f"unknown noise kind {kind!r}; choose one of {', '.join(KINDS)}")
    kind = kind.strip().lower()
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(
            f"flip_labels needs labels of exactly two classes, got {classes.size} "
            f"({classes.tolist()[:5]}); flipping is only defined for binary labels"
        )
    if positive is None:
        positive = classes[1]
    elif positive not in classes.tolist():
        raise ValueError(f"positive={positive!r} is not one of the labels {classes.tolist()}")
    negative = classes[0] if classes[1] == positive else classes[1]
    is_pos = y == positive
    n = y.size
    if kind != "adversarial" and scores is not None:
        raise ValueError(
            f"scores are only used by kind='adversarial', not by {kind!r}; drop scores or "
            "use kind='adversarial'"
        )

    if kind == "uniform":
        flip = np.random.default_rng(random_state).random(n) < rate
    elif kind == "one-sided":
        flip = is_pos & (np.random.default_rng(random_state).random(n) < rate)
    else:
        if scores is None:
            raise ValueError(
                "kind='adversarial' needs scores: the decision values of a reference rule "
                "trained on the clean labels (e.g. clf.decision_function(X)); the points of "
                "largest margin y * score are flipped"
            )
        s = np.asarray(scores, dtype=float)
        if s.ndim != 1 or s.size != n:
            raise ValueError(
                f"scores must have one value per label: got shape {s.shape} for {n} labels"
            )
        if not np.all(np.isfinite(s)):
            raise ValueError("scores contain NaN or inf; pass finite decision values")
        margins = np.where(is_pos, s, -s)
        k = int(round(rate * n))
        order = np.argsort(-margins, kind="stable")
        flip = np.zeros(n, dtype=bool)
        flip[order[:k]] = True

    out = y.copy()
    out[flip & is_pos] = negative
    out[flip & ~is_pos] = positive
    return out


def flip_classes(y: Any, rate: float, random_state: int | np.random.Generator | None = None) -> np.ndarray:
    """A copy of the labels ``y`` (any number of classes) with uniform label noise: each label is
    replaced, independently with probability ``rate``, by one of the *other* classes drawn
    uniformly.  With two classes it flips as ``flip_labels(y, rate, "uniform")`` does (with other
    random draws)."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels, got shape {y.shape}")
    rate = _check_rate(rate)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"flip_classes needs at least two classes, got {classes.tolist()}")
    rng = np.random.default_rng(random_state)
    flip = rng.random(y.size) < rate
    shift = rng.integers(1, classes.size, size=y.size)  # another class, uniformly
    out = y.copy()
    out[flip] = classes[(codes[flip] + shift[flip]) % classes.size]
    return out
