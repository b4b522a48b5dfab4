"""scikit-learn classifiers."""

from lpboosting.estimators.entropy import ERLPBoostClassifier, SoftBoostClassifier, TotalBoostClassifier
from lpboosting.estimators.lpboost import LPBoostClassifier

__all__ = ["ERLPBoostClassifier", "LPBoostClassifier", "SoftBoostClassifier", "TotalBoostClassifier"]
