"""Master problems of column generation, one formulation per module (no solver code).

``MASTERS`` (:mod:`lpboosting.masters.registry`) lists them by name.
Importing this package loads neither a solver nor scikit-learn.
"""

from lpboosting.masters.base import CvxpyStatement, Master, MasterSolution, SolveControl
from lpboosting.masters.entropy import EntropyMaster, ProjectionResult
from lpboosting.masters.erlpboost import ERLPBoost
from lpboosting.masters.lpboost import LPBoost, soft_margin
from lpboosting.masters.matrix_form import MatrixForm
from lpboosting.masters.multiclass import MulticlassLPBoost
from lpboosting.masters.multiclass_erlpboost import MulticlassERLPBoost
from lpboosting.masters.pool import ColumnPool
from lpboosting.masters.registry import MASTERS, MasterSpec, make_master
from lpboosting.masters.rmboost import RMBoost
from lpboosting.masters.softboost import SoftBoost, TotalBoost

__all__ = [
    "ColumnPool", "CvxpyStatement", "ERLPBoost", "EntropyMaster", "LPBoost", "MASTERS", "Master", "MasterSolution", "SolveControl",
    "MasterSpec", "MatrixForm", "MulticlassERLPBoost", "MulticlassLPBoost", "ProjectionResult", "RMBoost", "SoftBoost", "TotalBoost", "make_master", "soft_margin",
]
