"""scikit-learn classifiers."""

from lpboosting.estimators.entropy import (
    ERLPBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from lpboosting.estimators.lpboost import LPBoostClassifier
from lpboosting.estimators.rmboost import RMBoostClassifier

__all__ = [
    "ERLPBoostClassifier", "LPBoostClassifier", "RMBoostClassifier", "SoftBoostClassifier",
    "TotalBoostClassifier",
]
