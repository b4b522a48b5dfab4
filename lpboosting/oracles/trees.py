"""Heuristic oracle: a CART tree of bounded size fitted with sample_weight = d."""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.oracles.base import Candidate, Oracle, check_features, check_labels_pm


class TreeHypothesis:
    """A fitted scikit-learn tree predicting -1/+1."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.tree.predict(np.asarray(X, dtype=float)), dtype=float)

    def __repr__(self) -> str:
        return f"TreeHypothesis(depth={self.tree.get_depth()}, leaves={self.tree.get_n_leaves()})"


class Trees(Oracle):
    """CART (scikit-learn DecisionTreeClassifier) weighted by the distribution.

    A signed weighting d (as RMBoost's) is fitted as weights |d| on labels
    y * sign(d), which maximises the same edge sum_n d_n y_n h(x_n).

    Greedy tree growth does not maximise the edge over all trees of the given
    size, so this oracle is **inexact**: the loop reports no gap for it.
    Extra keyword arguments go to ``DecisionTreeClassifier``.
    """

    exact = False
    name = "trees"
    _validated = False

    def __init__(self, X, y, *, max_depth: int | None = 3, max_leaf_nodes: int | None = None,
                 random_state: int | None = 0, **tree_params: Any) -> None:
        X = check_features(X)
        super().__init__(X.shape[0])
        self.y = check_labels_pm(y, X.shape[0])
        self.X = X
        # the trees work in float32 (scikit-learn converts every fit and predict): convert once
        self._X32 = np.ascontiguousarray(X, dtype=np.float32)
        self.tree_params = dict(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes,
                                random_state=random_state, **tree_params)

    def price(self, distribution):
        import sklearn
        from sklearn.tree import DecisionTreeClassifier

        d = self._check_distribution(distribution)
        # a signed weighting (RMBoost) is the positive weighting |d| of the labels y * sign(d)
        labels = np.where(d < 0, -self.y, self.y)
        weights = np.abs(d)
        tree = DecisionTreeClassifier(**self.tree_params)
        # X was checked once in __init__ (finite, 2-D, float32 C-contiguous) and the tree
        # parameters when the first tree is fitted; later fits skip scikit-learn's checks
        # (``check_input=False``, ``skip_parameter_validation``), which cost more than the
        # fit itself on a few hundred rows
        with sklearn.config_context(skip_parameter_validation=self._validated):
            tree.fit(self._X32, labels, sample_weight=weights, check_input=False)
            predicted = np.asarray(tree.predict(self._X32, check_input=False), dtype=float)
        self._validated = True
        column = self.y * predicted
        return Candidate(TreeHypothesis(tree), column, float(d @ column))
