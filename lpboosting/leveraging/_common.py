"""What the leveraging boosters share as scikit-learn estimators, beyond every classifier's.

:class:`Booster` is the base of LLM, LLD, log-loss boosting, bounded loss and
MODABOOST: a :class:`~lpboosting.estimators.classifier.BoostingClassifier`
(one-vs-rest, warm start, the tie rule, verbose output, Ctrl-C and save/load
are every classifier's) whose binary fit is the booster's ``fit`` on the
labels ``y == classes_[k]`` and whose fitted state
:mod:`lpboosting.leveraging.persist` writes.  Also here:

* :func:`training_data`: X and y checked (at least two classes), ``sample_weight``
  validated and the rows of weight 0 dropped (a weight counts an example that
  many times, so a weight of 0 is the same as leaving the row out), and a
  fingerprint of the data a fit was made on (a warm start must continue on
  the same data).
* :func:`round_line` / :func:`print_round`: the line printed per round with ``verbose > 0``.
* :func:`warn_interrupted`: the warning of a fit stopped by Ctrl-C.  A round's
  effects on the model are applied with Ctrl-C held back until they are
  complete (:class:`~lpboosting.estimators.interrupt.CtrlC`), so an
  interrupted fit has every round it finished and nothing of the round it
  was in.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from lpboosting.estimators.classifier import CLASS_TIE, BoostingClassifier, fingerprint, plain, tied_to_the_largest
from lpboosting.estimators.interrupt import CtrlC
from lpboosting.params import Integral, Interval
from lpboosting.stacklevel import caller_level

__all__ = ["Booster", "BoosterConventions", "CLASS_TIE", "CtrlC", "OneVsRest", "TrainingData", "VERBOSE",
           "encode_labels", "linear_importances", "print_round", "round_line", "tied_to_the_largest",
           "training_data", "warn_interrupted"]

#: the constraint of ``verbose``: an integer >= 0 (True and False count as 1 and 0)
VERBOSE = [Interval(Integral, 0, None, closed="left"), "boolean"]


@dataclass
class TrainingData:
    """The rows a booster is fitted on: those of positive weight."""

    X: np.ndarray
    y: np.ndarray  # the labels, as given
    y_pm: np.ndarray | None  # -1 (classes[0]) / +1 (classes[1]); None for more than two classes
    weight: np.ndarray  # > 0, ones without sample_weight
    classes: np.ndarray
    fingerprint: str

    @property
    def total_weight(self) -> float:
        return float(self.weight.sum())


def encode_labels(estimator: Any, y: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Classes (sorted, at least two) and, for two classes, the labels as -1 (classes[0]) / +1
    (classes[1]); None for more than two classes (those are fitted one-vs-rest)."""
    from lpboosting.estimators.base import encode_classes

    classes = encode_classes(estimator, y)  # the same checks and messages as the LP classifiers
    if classes.size > 2:
        return classes, None
    return classes, np.where(y == classes[1], 1.0, -1.0)


def training_data(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> TrainingData:
    """X and y validated (``validate_data``), the weights checked, the rows of weight 0 dropped.

    Errors: a negative weight, weights that are all 0, or weights that leave
    only one class with positive weight.  The classes are those of the rows
    kept; with more than two, ``y_pm`` is None.
    """
    name = type(estimator).__name__
    X, y = validate_data(estimator, X, y, dtype=np.float64)
    if sample_weight is None:
        classes, y_pm = encode_labels(estimator, y)
        s = np.ones(X.shape[0])
    else:
        s = _check_sample_weight(sample_weight, X, dtype=np.float64, allow_all_zero_weights=True)
        negative = s < 0
        if negative.any():
            raise ValueError(
                f"{name}: sample_weight must be >= 0 (a weight counts how many times an example is "
                f"seen), got {int(negative.sum())} negative value(s), the smallest {float(s.min()):g}; "
                "drop those rows or give them weight 0"
            )
        keep = s > 0
        if not keep.any():
            raise ValueError(
                f"{name}: sample_weight is zero for every example, so there is nothing to fit; give "
                "at least one example of each class a positive weight"
            )
        check_classification_targets(y)
        y_kept = y[keep]
        kept_classes = np.unique(y_kept)
        if kept_classes.size < 2 and np.unique(y).size >= 2:
            raise ValueError(
                f"{name} needs two classes among the examples of positive sample_weight, but only "
                f"class {plain(kept_classes[0])!r} has any weight; give examples of both classes a "
                "positive weight"
            )
        classes, y_pm = encode_labels(estimator, y_kept)
        if not keep.all():
            X = X[keep]
            y = y_kept
        s = s[keep]
    codes = y_pm if y_pm is not None else np.searchsorted(classes, y)
    return TrainingData(X=X, y=y, y_pm=y_pm, weight=s, classes=classes,
                        fingerprint=fingerprint(X, codes, s, classes))


def _value(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return str(v)


def round_line(name: str, t: int, values: dict[str, Any]) -> str:
    """One round as ``"<name> round <t>  <key> <value>  ..."`` (numbers to 6 significant digits,
    the first value, the loss or objective, to 10)."""
    parts = [f"{name} round {t:>5}"]
    for i, (key, v) in enumerate(values.items()):
        text = f"{float(v):.10g}" if i == 0 and isinstance(v, (float, np.floating)) else _value(v)
        parts.append(f"{key} {text}")
    return "  ".join(parts)


def print_round(estimator: Any, t: int, values: dict[str, Any]) -> None:
    """Print :func:`round_line` to standard output when ``estimator.verbose > 0`` (after the
    prefix that names the class, for a model of a one-vs-rest fit)."""
    if estimator.verbose:
        estimator._say(round_line(type(estimator).__name__, t, values))


def warn_interrupted(estimator: Any, n_rounds: int, what: str = "rounds", advice: str = "") -> None:
    """The RuntimeWarning of a fit stopped by Ctrl-C that kept its completed rounds."""
    warnings.warn(
        f"{type(estimator).__name__}: interrupted by the user (Ctrl-C); the model holds the {n_rounds} "
        f"{what} completed (status 'interrupted'){advice}", RuntimeWarning, stacklevel=caller_level(),
    )


def linear_importances(coef: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """feature_importances_ of a linear model sum_j coef_j x_j whose feature j spans [low_j, high_j]
    on the training rows: there x_j is (high_j - low_j) / 2 times the scaled feature
    :class:`~lpboosting.oracles.ScaledFeature` h_j in [-1, 1] plus a constant, so hypothesis h_j has
    weight coef_j (high_j - low_j) / 2 (a constant feature none), whatever the feature's unit."""
    from lpboosting.estimators.base import weighted_importances
    from lpboosting.oracles import ScaledFeature

    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    hypotheses = [ScaledFeature(j, float(lo), float(hi), 1.0) for j, (lo, hi) in enumerate(zip(low, high))]
    return weighted_importances(np.asarray(coef, dtype=float) * (high - low) / 2.0, hypotheses, low.size)


class Booster(BoostingClassifier):
    """Base of the leveraging boosters (LLM, LLD, log-loss boosting, bounded loss, MODABOOST).

    More than two classes (:meth:`_fit_each_class`): K binary models, model
    k the booster's own ``fit`` on the labels ``y == classes_[k]`` (so its
    ``classes_`` are ``[False, True]`` and class k is its positive class),
    with the same parameters and ``sample_weight``, kept in
    ``one_vs_rest_``.  Work that does not depend on the labels may be shared
    between the K fits through ``_shared`` (a dict that lives during the fit
    only); a booster uses it only where the result is the same arithmetic as
    a fit of its own.

    A subclass sets ``_binary_attributes`` (its fitted attributes that exist
    for two classes only) and ``_summed`` (counts that are summed over the K
    models), and defines ``_decision``, ``_staged``, ``_proba`` and
    ``_importances`` (:class:`~lpboosting.estimators.classifier.BoostingClassifier`).
    """

    _private_fitted = ("_warm_start_key", "_steps", "_train_decision", "_feature_range", "_path_coef",
                       "_path_intercept")

    def _fit_each_class(self, data: TrainingData, weighted: bool, frozen: dict[str, Any] | None = None,
                        max_rounds: int | None = None) -> Any:
        """Fit (or, with ``warm_start``, continue) the K binary models.

        ``weighted``: whether ``fit`` was given ``sample_weight`` (the binary
        fits are then given the weights of the rows kept).  ``frozen`` and
        ``max_rounds`` as :meth:`~lpboosting.estimators.classifier.
        BoostingClassifier._check_warm_start` (None: no warm start).
        """
        resume = frozen is not None and self._check_warm_start(data.fingerprint, frozen, max_rounds)
        weight = data.weight if weighted else None

        def fit_class(model: Any, k: int, label: Any) -> None:
            model.fit(data.X, data.y == label, sample_weight=weight)

        self._fit_one_vs_rest(data.classes, fit_class, resume)
        if frozen is not None:
            self._remember_fit(data.fingerprint, frozen)
        return self

    # -- save/load: the fitted state persist.SAVED names --------------------------------------
    def _binary_state(self) -> dict[str, Any]:
        from lpboosting.leveraging.persist import booster_to_dict

        return booster_to_dict(self)

    def _set_binary_state(self, data: dict[str, Any]) -> None:
        from lpboosting.leveraging.persist import booster_from_dict

        booster_from_dict(self, data)


#: the former names of the parts of :class:`Booster`
BoosterConventions = OneVsRest = Booster
