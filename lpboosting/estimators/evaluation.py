"""Validation scores after every round: ``fit(X, y, eval_set=[(X_val, y_val)])``.

In the style of XGBoost's and LightGBM's scikit-learn interfaces: each pair
of ``eval_set`` is scored by the model after each round (the same models as
``staged_predict``), and the scores are kept in ``evals_result_``::

    {"validation_0": {"error": [...], "logloss": [...]}, "validation_1": {...}}

one value per round.  ``error`` is the misclassification rate (1 - accuracy),
``logloss`` the mean negative log-likelihood of ``predict_proba`` (clipped
away from 0 and 1 by the float64 machine epsilon, as scikit-learn's
``log_loss`` does; RMBoost's randomised rule can give 0 and 1; these
probabilities are AdaBoost's uncalibrated form, so it ranks rounds rather
than measures calibration).  ``best_iteration_`` is the round (1-based, as
``n_rounds_`` counts) of least error on the first set, the earliest of equal
ones (the smaller model), and ``best_score_`` that error.

Column generation stops when the master is solved, not on a validation
score: the scores say how the rounds generalise; ``staged_predict`` gives
the model of any round.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["check_eval_set", "record_evals", "with_eval_set", "METRICS"]

#: the metrics recorded for every validation set
METRICS = ("error", "logloss")
#: probabilities are clipped to [EPS, 1 - EPS] in the log loss (scikit-learn's log_loss does too)
EPS = float(np.finfo(np.float64).eps)


def check_eval_set(estimator: Any, eval_set: Any, y: Any) -> list[tuple[Any, Any]]:
    """``eval_set`` as a list of (X, y) pairs; a clear error for anything else (before the fit:
    ``y`` is the training labels)."""
    name = type(estimator).__name__
    if eval_set is None:
        return []
    if isinstance(eval_set, tuple) and len(eval_set) == 2 and not isinstance(eval_set[0], tuple):
        raise TypeError(f"{name}.fit: eval_set is a list of (X, y) pairs; wrap one pair in a "
                        "list: eval_set=[(X_val, y_val)]")
    try:
        pairs = list(eval_set)
    except TypeError:
        raise TypeError(f"{name}.fit: eval_set must be a list of (X, y) pairs, "
                        f"got {type(eval_set).__name__}") from None
    for k, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(f"{name}.fit: eval_set[{k}] must be an (X, y) pair, got {type(pair).__name__}")
        n_x, n_y = _rows(pair[0]), _rows(pair[1])
        if n_x != n_y:
            raise ValueError(f"{name}.fit: eval_set[{k}] has {n_x} rows in X and {n_y} labels in y")
    classes = np.unique(np.asarray(y))
    for k, (_, y_val) in enumerate(pairs):
        y_val = np.asarray(y_val)
        if y_val.ndim != 1:
            raise ValueError(f"{name}.fit: eval_set[{k}]: y must be one label per row, got shape {y_val.shape}")
        unknown = np.setdiff1d(np.unique(y_val), classes)
        if unknown.size:
            raise ValueError(f"{name}.fit: eval_set[{k}] has labels {unknown.tolist()} the training data "
                             f"does not have (its labels: {classes.tolist()})")
    return [tuple(pair) for pair in pairs]


def _rows(a: Any) -> int:
    shape = getattr(a, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else len(a)


def record_evals(estimator: Any, eval_set: list[tuple[Any, Any]]) -> None:
    """Score every round of the fitted ``estimator`` on each pair; set ``evals_result_``,
    ``best_iteration_`` and ``best_score_`` (removed when there is no eval_set)."""
    for attribute in ("evals_result_", "best_iteration_", "best_score_"):
        estimator.__dict__.pop(attribute, None)
    if not eval_set:
        return
    classes = estimator.classes_
    results = {}
    for k, (X, y) in enumerate(eval_set):
        y = np.asarray(y)
        index = np.searchsorted(classes, y)
        error, logloss = [], []
        for decision in estimator.staged_decision_function(X):
            proba = estimator._proba(decision)
            error.append(float(np.mean(estimator._label(decision) != y)))
            p = np.clip(proba[np.arange(y.size), index], EPS, 1 - EPS)
            logloss.append(float(-np.mean(np.log(p))))
        results[f"validation_{k}"] = {"error": error, "logloss": logloss}
    first = results["validation_0"]["error"]
    estimator.evals_result_ = results
    estimator.best_iteration_ = int(np.argmin(first)) + 1
    estimator.best_score_ = float(min(first))


EVAL_SET_DOC = """
        ``eval_set=[(X_val, y_val), ...]`` scores the model after every round
        on each pair: ``evals_result_``, ``best_iteration_``, ``best_score_``
        (:mod:`lpboosting.estimators.evaluation`; with more than two classes,
        round k is every class's model at its k-th round).
"""


def with_eval_set(fit: Callable[..., Any]) -> Callable[..., Any]:
    """``fit(X, y, sample_weight=None)`` given an ``eval_set`` keyword: the pairs are checked
    before the fit and every round of the fitted model is scored after it."""

    @functools.wraps(fit)
    def wrapper(self: Any, X: Any, y: Any, sample_weight: Any = None, eval_set: Any = None) -> Any:
        pairs = check_eval_set(self, eval_set, y)
        fit(self, X, y, sample_weight)
        record_evals(self, pairs)
        return self

    signature = inspect.signature(fit)
    parameters = [*signature.parameters.values(),
                  inspect.Parameter("eval_set", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
    wrapper.__signature__ = signature.replace(parameters=parameters)  # what scikit-learn inspects
    wrapper.__doc__ = (fit.__doc__ or "").rstrip() + "\n" + EVAL_SET_DOC
    return wrapper
