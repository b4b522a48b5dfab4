"""scikit-learn classifiers."""

from lpboosting.estimators.lpboost import LPBoostClassifier

__all__ = ["LPBoostClassifier"]
