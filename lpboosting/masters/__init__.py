"""Master problems of column generation, one formulation per module."""

from lpboosting.masters.base import (
    CvxpyStatement,
    Master,
    MasterSession,
    MasterSolution,
)
from lpboosting.masters.erlpboost import ERLPBoost
from lpboosting.masters.lpboost import LPBoost, soft_margin
from lpboosting.masters.rmboost import RMBoost
from lpboosting.masters.softboost import SoftBoost, TotalBoost

__all__ = [
    "CvxpyStatement", "ERLPBoost", "LPBoost", "Master", "MasterSession", "MasterSolution", "RMBoost",
    "SoftBoost", "TotalBoost", "soft_margin",
]
