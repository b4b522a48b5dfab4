"""Shared scikit-learn machinery for the column-generation classifiers."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lpboosting.backends import Backend, get_backend
from lpboosting.colgen import Smoothing, column_generation
from lpboosting.errors import SolverError
from lpboosting.masters.base import Master
from lpboosting.masters.entropy import DELTA_ADVICE, DELTA_MEANING
from lpboosting.masters.lpboost import NU_ADVICE, NU_MEANING
from lpboosting.oracles import make_oracle
from lpboosting.params import Explain, Integral, Interval, Real, StrOptions, check_params

#: ``nu`` of the capped masters (LPBoost, SoftBoost, ERLPBoost): constraint and wording
NU = [Interval(Real, 0, 1, closed="right")]
NU_MESSAGE = Explain(what=NU_MEANING, advice=NU_ADVICE)
#: ``delta`` of the entropy masters (SoftBoost, TotalBoost, ERLPBoost)
DELTA = [Interval(Real, 0, 1, closed="right")]
DELTA_MESSAGE = Explain(what=DELTA_MEANING, advice=DELTA_ADVICE)


def encode_binary(estimator: BaseEstimator, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classes (sorted) and labels as -1 (classes[0]) / +1 (classes[1])."""
    check_classification_targets(y)
    classes = np.unique(y)
    name = type(estimator).__name__
    if classes.size < 2:
        raise ValueError(
            f"{name} needs two classes in y but only one class is present ({classes[0]!r}); "
            "check the labels or the train/test split"
        )
    if classes.size > 2:
        raise ValueError(
            f"Only binary classification is supported. The type of the target is multiclass: "
            f"{name} got {classes.size} classes; wrap it in "
            "sklearn.multiclass.OneVsRestClassifier for more than two classes"
        )
    return classes, np.where(y == classes[1], 1.0, -1.0)


def labels_to_signs(classes: np.ndarray, y: Any, n_rows: int) -> np.ndarray:
    """Labels from ``classes`` as -1 (classes[0]) / +1 (classes[1]), checked against the data."""
    y = np.asarray(y)
    if y.shape != (n_rows,):
        raise ValueError(f"y has {y.size} labels but X has {n_rows} rows; pass one label per row")
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise ValueError(
            f"y holds labels {np.unique(y[unknown]).tolist()} that were not seen in fit "
            f"(classes_ = {classes.tolist()})"
        )
    return np.where(y == classes[1], 1.0, -1.0)


class DecisionClassifierMixin:
    """predict and margins of a binary classifier from its ``decision_function``."""

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where the decision function is positive, else ``classes_[0]``."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def margins(self, X: Any, y: Any) -> np.ndarray:
        """y_n f(x_n) for labelled data (labels from ``classes_``)."""
        check_is_fitted(self)
        f = self.decision_function(X)
        return labels_to_signs(self.classes_, y, f.size) * f


class ColumnGenerationClassifier(DecisionClassifierMixin, ClassifierMixin, BaseEstimator):
    """Base of the classifiers that fit a master by column generation.

    Subclasses define ``_make_master(n_samples)`` and their ``__init__``
    parameters (which must include ``oracle``, ``oracle_params``,
    ``backend``, ``tol``, ``max_rounds`` and ``callback``), and add the
    constraints of their own parameters to ``_parameter_constraints``.  An
    oracle name is checked by the oracle registry, a backend name by the
    backend registry.
    """

    _parameter_constraints: dict[str, Any] = {
        "oracle": [str, callable],
        "oracle_params": [None, dict],
        "backend": [None, str, Backend],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_rounds": [Interval(Integral, 1, None, closed="left")],
        "callback": [None, callable],
        "columns_per_round": [Interval(Integral, 1, None, closed="left")],
        "stabilization": [None, StrOptions({"smoothing", "none"}), Smoothing],
        "time_limit": [None, Interval(Real, 0, None, closed="neither")],
        "stall_rounds": [None, Interval(Integral, 1, None, closed="left")],
    }
    _parameter_messages: dict[str, Explain] = {}

    def _make_master(self, n_samples: int) -> Master:  # pragma: no cover - abstract
        raise NotImplementedError

    def _oracle_params(self) -> dict[str, Any]:
        """Keyword arguments of the oracle (subclasses add their own defaults)."""
        return dict(self.oracle_params or {})

    def _store_extra(self, result) -> None:
        """Subclasses set their own fitted attributes from the loop's result."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X: Any, y: Any) -> "ColumnGenerationClassifier":
        """Fit by column generation; the history of every round is kept in ``history_``."""
        check_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, y_pm = encode_binary(self, y)
        master = self._make_master(X.shape[0])
        backend = get_backend(master.default_backend if self.backend is None else self.backend)
        backend.require()
        oracle = make_oracle(self.oracle, X, y_pm, **self._oracle_params())
        result = column_generation(
            master, oracle, backend=backend, tol=self.tol, max_rounds=self.max_rounds,
            callback=self.callback, columns_per_round=self.columns_per_round,
            stabilization=self.stabilization, time_limit=self.time_limit, stall_rounds=self.stall_rounds,
        )
        if result.solution is None:
            if result.status == "interrupted":
                raise KeyboardInterrupt(result.message)
            raise SolverError(f"{type(self).__name__}: {result.message}; no model was fitted")
        if result.status in ("solver_error", "interrupted"):
            warnings.warn(f"{type(self).__name__}: {result.message}", RuntimeWarning, stacklevel=2)
        elif result.status in ("max_rounds", "stalled", "time_limit"):
            # the loop's message says what happened, what was tried and what to change
            warnings.warn(f"{type(self).__name__}: {result.message}", ConvergenceWarning, stacklevel=2)
        self.result_ = result
        self.history_ = result.history
        self.hypotheses_ = result.hypotheses
        self.weights_ = np.asarray(result.weights, dtype=float)
        self.distribution_ = np.asarray(result.distribution, dtype=float)
        self.objective_ = float(result.objective)
        self.n_rounds_ = int(result.n_rounds)
        self.status_ = result.status
        self._store_extra(result)
        return self

    def _predict_hypotheses(self, X: np.ndarray) -> np.ndarray:
        """Outputs of the chosen hypotheses, shape (n_samples, T)."""
        return np.column_stack([h.predict(X) for h in self.hypotheses_])

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x) = sum_m w_m h_m(x) in [-1, 1]; positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        f = np.zeros(X.shape[0])
        for w, h in zip(self.weights_, self.hypotheses_):
            if w != 0.0:  # weights are signed for RMBoost
                f += w * np.asarray(h.predict(X), dtype=float)
        return f
