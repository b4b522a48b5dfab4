"""Exact oracle over the scaled raw features and their negations.

The finite hypothesis class of the SoftBoost paper's synthetic experiment
(Warmuth, Glocer, Rätsch 2007, Sec. 5): each feature, min-max scaled to
[-1, 1] on the training data, is a hypothesis, and so is its negation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lpboosting.oracles.base import Candidate, Oracle, check_features, check_labels_pm


@dataclass(frozen=True)
class ScaledFeature:
    """h(x) = sign * clip(2 (x_j - low) / (high - low) - 1, -1, 1); 0 for a constant feature."""

    feature: int
    low: float
    high: float
    sign: float

    def predict(self, X: np.ndarray) -> np.ndarray:
        x = np.asarray(X, dtype=float)[:, self.feature]
        if self.high <= self.low:
            return np.zeros_like(x)
        return self.sign * np.clip(2.0 * (x - self.low) / (self.high - self.low) - 1.0, -1.0, 1.0)

    def describe(self, feature_names: Sequence[str] | None = None) -> str:
        """The rule in words, e.g. ``+scaled(radius, 6.98..28.1)``."""
        name = f"x[{self.feature}]" if feature_names is None else str(feature_names[self.feature])
        return f"{'+' if self.sign > 0 else '-'}scaled({name}, {self.low!r}..{self.high!r})"

    def importances(self, n_features: int) -> np.ndarray:
        """1 for the feature (0 everywhere for a constant one)."""
        out = np.zeros(n_features)
        if self.high > self.low:
            out[self.feature] = 1.0
        return out


class Features(Oracle):
    """Every feature scaled to [-1, 1] and its negation: 2F hypotheses, exact."""

    exact = True
    name = "features"

    def __init__(self, X, y) -> None:
        X = check_features(X, oracle="features")
        super().__init__(X.shape[0])
        self.y = check_labels_pm(y, X.shape[0])
        self.X = X
        self.low = X.min(axis=0)
        self.high = X.max(axis=0)
        span = self.high - self.low
        safe = np.where(span > 0, span, 1.0)
        H = 2.0 * (X - self.low) / safe - 1.0
        H[:, span <= 0] = 0.0
        self.H = H
        self._YH = self.y[:, None] * H  # margin columns of the positive-sign hypotheses

    def _labels_changed(self) -> None:
        self._YH = self.y[:, None] * self.H

    def price(self, distribution):
        d = self._check_distribution(distribution)
        scores = d @ self._YH
        return self._candidate(d, scores, int(np.argmax(np.abs(scores))))

    def price_many(self, distribution, k):
        """The ``k`` scaled features (with their signs) of largest |edge|, best first."""
        if int(k) <= 1:
            return [self.price(distribution)]
        d = self._check_distribution(distribution)
        scores = d @ self._YH
        order = np.lexsort((np.arange(scores.size), -np.abs(scores)))[: int(k)]
        return [self._candidate(d, scores, int(j)) for j in order]

    def _candidate(self, d: np.ndarray, scores: np.ndarray, j: int) -> Candidate:
        sign = 1.0 if scores[j] >= 0 else -1.0
        hyp = ScaledFeature(j, float(self.low[j]), float(self.high[j]), sign)
        column = sign * self._YH[:, j]
        return Candidate(hyp, column, float(d @ column))

    def margin_matrix(self) -> np.ndarray:
        """All 2F columns: [y*h_1 .. y*h_F, -y*h_1 .. -y*h_F]."""
        return np.hstack([self._YH, -self._YH])
