"""Pricing oracles: find the hypothesis whose dual constraint is most violated.

For the LP masters the most violated constraint d . u <= gamma is the
hypothesis of largest edge d . u under the master's distribution d.  An
oracle is bound to its training data (or its finite pool of columns) when it
is built; :meth:`Oracle.price` maps a distribution to a :class:`Candidate`.
``exact`` says whether the returned edge is the true maximum over the
oracle's class: only then is the column-generation gap a valid bound.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Candidate:
    """A hypothesis proposed by an oracle.

    ``column`` is u with u_n = y_n h(x_n); ``edge`` is d . u under the
    distribution the oracle was given.
    """

    hypothesis: Any
    column: np.ndarray
    edge: float


class Oracle(ABC):
    """Base class of pricing oracles."""

    #: True when :meth:`price` returns the maximum edge over the whole class
    exact: bool = False
    name: str = "oracle"
    #: True when the oracle is built from the fit's sample weights as well (``sample_weight=`` of
    #: its constructor, handed over by :func:`~lpboosting.oracles.make_oracle`): an oracle fitted
    #: once on the training rows, not one that only prices the master's distribution
    takes_sample_weight: bool = False

    def __init__(self, n_samples: int) -> None:
        self.n_samples = int(n_samples)

    @abstractmethod
    def price(self, distribution: np.ndarray) -> Candidate:
        """The best hypothesis under ``distribution`` (length n_samples)."""

    def price_many(self, distribution: np.ndarray, k: int) -> list[Candidate]:
        """Up to ``k`` hypotheses of largest edge, best first, with distinct columns.

        The first is :meth:`price`'s.  Oracles that can rank their class
        (stumps, features, a column pool) return k; the others (trees, a
        callable) return the one best they find.
        """
        return [self.price(distribution)]

    def relabel(self, y: Any) -> "Oracle":
        """The same oracle over the same X with other labels y (+-1).

        What does not depend on the labels (sorted features, bins) is shared,
        not recomputed: this is how one-vs-rest fits K binary models over one
        data set.
        """
        if not hasattr(self, "y"):
            raise TypeError(f"the {self.name} oracle has no labels to change; build one per label set")
        new = copy.copy(self)
        new.y = check_labels_pm(y, self.n_samples)
        new._labels_changed()
        return new

    def _labels_changed(self) -> None:
        """Refresh what depends on ``self.y`` after :meth:`relabel` (subclasses)."""

    def _check_distribution(self, d: np.ndarray) -> np.ndarray:
        d = np.asarray(d, dtype=float)
        if d.shape != (self.n_samples,):
            raise ValueError(
                f"the distribution must have shape ({self.n_samples},), got {d.shape}"
            )
        return d


def check_labels_pm(y: Any, n_samples: int) -> np.ndarray:
    """Labels as a float array of -1/+1 of the right length."""
    y = np.asarray(y, dtype=float).ravel()
    if y.shape != (n_samples,):
        raise ValueError(f"y has {y.size} labels but X has {n_samples} rows; pass one label per row")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("oracles take labels in {-1, +1}; encode the two classes as -1 and +1")
    return y


#: the oracles that take missing values (NaN) in X (for messages)
MISSING_VALUE_ORACLES = ("stumps", "binned-stumps", "trees", "hist-trees", "gb-trees")


def check_features(X: Any, allow_nan: bool = False, oracle: str | None = None) -> np.ndarray:
    """X as a 2-D float array, non-empty; +-inf refused, NaN (a missing value) refused unless ``allow_nan``."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (samples x features), got shape {X.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X is empty (shape {X.shape}); it needs at least one row and one feature")
    if not np.all(np.isfinite(X)):
        infinite = np.isinf(X)
        if infinite.any():
            row, col = np.argwhere(infinite)[0]
            raise ValueError(
                f"X contains {int(infinite.sum())} infinite value(s) (the first in row {row}, feature "
                f"{col}); replace them by finite values, or by NaN to mark them missing")
        if not allow_nan:
            raise ValueError(
                f"X contains missing values (NaN), which {'this' if oracle is None else f'the {oracle}'} "
                f"oracle does not handle; use one of "
                f"the oracles {list(MISSING_VALUE_ORACLES)} (they learn a side for missing values), or "
                "impute or drop those entries first")
    return X
