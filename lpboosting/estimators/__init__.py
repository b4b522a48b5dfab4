"""scikit-learn classifiers."""

from lpboosting.estimators.entropy import (
    ERLPBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from lpboosting.estimators.cv import ERLPBoostCV, LPBoostCV, SoftBoostCV
from lpboosting.estimators.lpboost import LPBoostClassifier
from lpboosting.estimators.rmboost import RMBoostClassifier

__all__ = [
    "ERLPBoostCV", "ERLPBoostClassifier", "LPBoostCV", "LPBoostClassifier", "RMBoostClassifier",
    "SoftBoostCV", "SoftBoostClassifier", "TotalBoostClassifier",
]
