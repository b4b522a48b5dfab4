"""Leveraging boosters (not LPs): LLM, LLD, bounded-loss EM and MODABOOST.

``reproduce_long_servedio`` and ``reproduce_krause_singer`` are imported
lazily so that ``python -m lpboosting.leveraging.experiments`` runs cleanly.
"""

from lpboosting.leveraging.bounded_loss import BoundedLossClassifier
from lpboosting.leveraging.lld import LLDClassifier
from lpboosting.leveraging.llm import LLMClassifier, LogLossBoostClassifier
from lpboosting.leveraging.modaboost import ModaBoostClassifier, solve_alpha

__all__ = [
    "BoundedLossClassifier", "LLDClassifier", "LLMClassifier", "LogLossBoostClassifier",
    "ModaBoostClassifier", "reproduce_krause_singer", "reproduce_long_servedio", "solve_alpha",
]


def __getattr__(name: str):
    if name == "reproduce_long_servedio":
        from lpboosting.leveraging.experiments import reproduce_long_servedio

        return reproduce_long_servedio
    if name == "reproduce_krause_singer":
        from lpboosting.leveraging.reproduce import reproduce_krause_singer

        return reproduce_krause_singer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
