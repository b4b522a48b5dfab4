"""lpboosting: LP/QP boosting by column generation.

Masters (``lpboosting.masters``), pricing oracles (``lpboosting.oracles``),
backends (``lpboosting.backends``), the loop (``lpboosting.colgen``) and
scikit-learn classifiers (``lpboosting.estimators``, ``lpboosting.leveraging``).

The names below are imported on first use, so that ``import
lpboosting.masters`` (for a pipeline that only wants a master) loads
neither scikit-learn nor the leveraging boosters.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "ColumnGenerationResult": "lpboosting.colgen",
    "ColumnPool": "lpboosting.colgen",
    "Smoothing": "lpboosting.colgen",
    "History": "lpboosting.colgen",
    "RoundRecord": "lpboosting.colgen",
    "column_generation": "lpboosting.colgen",
    "nu_path": "lpboosting.colgen",
    "solve_master": "lpboosting.colgen",
    "export_model": "lpboosting.export",
    "ERLPBoostCV": "lpboosting.estimators",
    "ERLPBoostClassifier": "lpboosting.estimators",
    "LPBoostCV": "lpboosting.estimators",
    "SoftBoostCV": "lpboosting.estimators",
    "LPBoostClassifier": "lpboosting.estimators",
    "RMBoostClassifier": "lpboosting.estimators",
    "SoftBoostClassifier": "lpboosting.estimators",
    "TotalBoostClassifier": "lpboosting.estimators",
    "BoundedLossClassifier": "lpboosting.leveraging",
    "LLDClassifier": "lpboosting.leveraging",
    "LLMClassifier": "lpboosting.leveraging",
    "ModaBoostClassifier": "lpboosting.leveraging",
    "SolveStatus": "lpboosting.status",
    "load_model": "lpboosting.model_io",
    "save_model": "lpboosting.model_io",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lpboosting' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
