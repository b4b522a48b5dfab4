"""lpboosting: LP/QP boosting by column generation.

Masters (``lpboosting.masters``), pricing oracles (``lpboosting.oracles``),
backends (``lpboosting.backends``), the loop (``lpboosting.colgen``) and
scikit-learn classifiers (``lpboosting.estimators``).
"""

from lpboosting.colgen import (
    ColumnGenerationResult,
    History,
    RoundRecord,
    column_generation,
)
from lpboosting.estimators import (
    ERLPBoostClassifier,
    LPBoostClassifier,
    RMBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from lpboosting.leveraging import (
    BoundedLossClassifier,
    LLDClassifier,
    LLMClassifier,
    ModaBoostClassifier,
)
from lpboosting.status import SolveStatus

__version__ = "0.1.0"

__all__ = [
    "BoundedLossClassifier",
    "ColumnGenerationResult",
    "ERLPBoostClassifier",
    "History",
    "LLDClassifier",
    "LLMClassifier",
    "LPBoostClassifier",
    "ModaBoostClassifier",
    "RMBoostClassifier",
    "RoundRecord",
    "SoftBoostClassifier",
    "SolveStatus",
    "TotalBoostClassifier",
    "column_generation",
]
