"""Master problems of column generation, one formulation per module."""

from lpboosting.masters.base import CvxpyStatement, Master, MasterSession, MasterSolution
from lpboosting.masters.lpboost import LPBoost, soft_margin

__all__ = ["CvxpyStatement", "LPBoost", "Master", "MasterSession", "MasterSolution", "soft_margin"]
