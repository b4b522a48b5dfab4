"""The one scikit-learn base of every classifier: :class:`BoostingClassifier`.

The column-generation classifiers
(:class:`~lpboosting.estimators.base.ColumnGenerationClassifier`: LPBoost,
SoftBoost, TotalBoost, ERLPBoost, RMBoost and the CV classifiers) and the
leveraging boosters (:class:`~lpboosting.leveraging._common.Booster`: LLM,
LLD, log-loss boosting, bounded loss, MODABOOST) are both
BoostingClassifiers.  What every classifier does alike is written here once:

* **the tie rule** (:meth:`BoostingClassifier._label`): two classes,
  ``classes_[1]`` where the decision function is > 0 (0 is ``classes_[0]``);
  more than two, the class of the largest score, where the scores within
  :data:`CLASS_TIE` of the largest are tied and the tie goes to the first of
  them in ``classes_`` (:func:`tied_to_the_largest`).
* **one-vs-rest** (:mod:`lpboosting.estimators.one_vs_rest`): K binary
  models, one after another or ``n_jobs`` at a time in threads, their
  warnings passed on with their class, Ctrl-C and errors alike for all;
  the K-class attributes of the K models (:meth:`BoostingClassifier.
  _keep_one_vs_rest`, also what :func:`lpboosting.load_model` calls);
  prediction with one column per class, staged with a model that stopped
  earlier held at its last round.
* **warm start**: the :func:`fingerprint` of the training data and the
  parameters that define the model being continued, kept by
  :meth:`~BoostingClassifier._remember_fit` and checked by
  :meth:`~BoostingClassifier._check_warm_start` (the same errors for every
  classifier).
* **verbose output** (:meth:`~BoostingClassifier._say`: a line after the
  prefix naming the class of a one-vs-rest model) and **Ctrl-C**
  (:class:`~lpboosting.estimators.interrupt.CtrlC` and the ``_stop`` event
  of a parallel fit, :meth:`~BoostingClassifier._stop_requested`).
* **save/load**: :mod:`lpboosting.model_io` writes the envelope and asks each
  binary model for its state (:meth:`~BoostingClassifier._binary_state`,
  :meth:`~BoostingClassifier._set_binary_state`).

A family defines what differs: the fit of one binary model, ``_decision(X)``
and ``_staged(X)`` (the decision function of a binary model on validated X,
after every round), ``_proba(decision)``, ``_importances()``, and the state it
saves.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from lpboosting.estimators.interrupt import CtrlC
from lpboosting.params import Integral, Interval

__all__ = ["BoostingClassifier", "CLASS_TIE", "N_JOBS", "fingerprint", "plain", "same_value", "status_of",
           "tied_to_the_largest"]

#: The tie rule of every classifier with more than two classes: scores closer than this (relative
#: to max(1, max_k |s_k|)) to the largest are tied, and the tie goes to the first class in
#: ``classes_``.  The K models are fitted separately, so scores equal in exact arithmetic may differ
#: in their last bits (the same sums over repeated rows or over weighted ones, an LP solved to about
#: 1e-9); rounding must not choose between such classes.  Scores 1e-9 apart are already tied; a
#: column-generation decision function is also rounded to 12 decimals (its weights' accuracy,
#: :attr:`~lpboosting.estimators.base.ColumnGenerationClassifier.decision_decimals`).
CLASS_TIE = 1e-9

#: the constraint of ``n_jobs`` (joblib's reading: None is 1, -1 all cores)
N_JOBS = [None, Interval(Integral, None, None, closed="neither")]


def tied_to_the_largest(scores: np.ndarray) -> np.ndarray:
    """(n, K) booleans: the columns of each row within ``CLASS_TIE`` of its largest."""
    top = scores.max(axis=1, keepdims=True)
    scale = np.maximum(1.0, np.abs(scores).max(axis=1, keepdims=True))
    return scores >= top - CLASS_TIE * scale


def fingerprint(*arrays: np.ndarray | None) -> str:
    """A digest of the training data (how warm_start knows it is given the same data): the dtype,
    shape and bytes of each array (an object array by its values); None is left out."""
    digest = hashlib.blake2b(digest_size=16)
    for part in arrays:
        if part is None:
            continue
        part = np.ascontiguousarray(part)
        digest.update(str((part.dtype.str, part.shape)).encode())
        digest.update(part.tobytes() if part.dtype != object else repr(part.tolist()).encode())
    return digest.hexdigest()


def same_value(a: Any, b: Any) -> bool:
    """Whether two parameter values are equal (arrays elementwise; objects without a usable ==:
    the same object only)."""
    try:
        return bool(a == b) if not isinstance(a, np.ndarray) else bool(np.array_equal(a, b))
    except Exception:
        return a is b


def status_of(statuses: list[str], done: tuple[str, ...]) -> str:
    """The status of a one-vs-rest fit: the models' common status, else the first that is not one
    of ``done`` (the statuses of a model that finished its fit), else ``done[0]``."""
    if len(set(statuses)) == 1:
        return statuses[0]
    return next((s for s in statuses if s not in done), done[0])


def plain(label: Any) -> Any:
    """A numpy scalar label as the Python value it holds (for messages)."""
    return label.item() if isinstance(label, np.generic) else label


class BoostingClassifier(ClassifierMixin, BaseEstimator):
    """Base of every classifier of lpboosting (column generation and leveraging).

    Predictions: ``decision_function`` is > 0 for ``classes_[1]`` with two
    classes and has one column per class (that class's one-vs-rest model)
    with more; ``predict`` follows the tie rule (:data:`CLASS_TIE`; the
    scores are the decisions unless the classifier says otherwise through
    ``_class_scores``), ``predict_proba`` is the classifier's ``_proba`` of
    the decisions, and the ``staged_*`` methods give the model after every
    round.  ``feature_importances_`` is the binary model's (``_importances``),
    the mean over the classes' models with more than two classes.

    A subclass defines ``_decision(X)``, ``_staged(X)``, ``_proba(decision)``,
    ``_importances()``, ``_binary_state()`` and ``_set_binary_state(data)``,
    and says which fitted attributes exist for two classes only
    (``_binary_attributes``), which counts are summed over the K models
    (``_summed``) and which private attributes are fitted state
    (``_private_fitted``).
    """

    #: fitted attributes of a two-class model only (a K-class fit drops those of an earlier binary one)
    _binary_attributes: tuple[str, ...] = ()
    #: counts summed over the K models of a one-vs-rest fit
    _summed: tuple[str, ...] = ("n_estimators_",)
    #: the statuses of a model that finished its fit (a one-vs-rest fit's status is the first other)
    _done_statuses: tuple[str, ...] = ("converged",)
    #: private fitted state (removed with the fitted attributes by :meth:`_forget_fit`)
    _private_fitted: tuple[str, ...] = ("_warm_start_key",)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "history_")

    # -- the tie rule ------------------------------------------------------------------------
    def _class_scores(self, decision: np.ndarray) -> np.ndarray:
        """The (n, K) scores a class is chosen by: the decisions (RMBoost: its probabilities)."""
        return decision

    def _label(self, decision: np.ndarray) -> np.ndarray:
        """Labels from a decision function: ``classes_[1]`` where it is > 0 for two classes; for
        K, the class of the largest score, the scores within ``CLASS_TIE`` of the largest tied and
        the tie going to the first of them in ``classes_`` (what ``argmax`` does with exact ties)."""
        if decision.ndim == 2:
            return self.classes_[np.argmax(tied_to_the_largest(self._class_scores(decision)), axis=1)]
        return self.classes_[(decision > 0).astype(int)]

    # -- prediction --------------------------------------------------------------------------
    def _check_X(self, X: Any) -> np.ndarray:
        """X validated against the fit (float64, the fitted number of features)."""
        return validate_data(self, X, dtype=np.float64, reset=False)

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x): positive means ``classes_[1]`` (what f is: the class docstring).

        More than two classes: shape (n_samples, K), column k from the model
        of class k against the rest.
        """
        check_is_fitted(self)
        X = self._check_X(X)
        if self._multiclass:
            return np.column_stack(self._ovr_columns(X))
        return self._decision(X)

    def staged_decision_function(self, X: Any) -> Iterator[np.ndarray]:
        """The decision function after every round (a generator); the last is
        ``decision_function(X)``, exactly.

        More than two classes: (n_samples, K) after every round up to the
        longest class's, a model that stopped earlier held at its last round.
        """
        check_is_fitted(self)
        X = self._check_X(X)
        if self._multiclass:
            yield from self._ovr_staged(X)
            return
        yield from self._staged(X)

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where the decision function is positive, else ``classes_[0]``; more
        than two classes: the class of the largest score (the tie rule, :data:`CLASS_TIE`)."""
        return self._label(self.decision_function(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns as ``classes_`` (their form: the class docstring)."""
        return self._proba(self.decision_function(X))

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """The predicted labels after every round (a generator); the last is ``predict(X)``."""
        for decision in self.staged_decision_function(X):
            yield self._label(decision)

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """``predict_proba`` of the model after every round (a generator); the last equals
        ``predict_proba(X)``."""
        for decision in self.staged_decision_function(X):
            yield self._proba(decision)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Weight mass per feature: sum_m |w_m| times hypothesis m's importances, normalised to 1
        (:func:`lpboosting.estimators.base.weighted_importances`; a feature no hypothesis uses has
        importance 0).  More than two classes: the mean over the classes' models.  What the
        hypotheses and their weights are is the classifier's (see its docstring); an
        AttributeError says when its hypotheses do not name the features they use."""
        check_is_fitted(self)
        if self._multiclass:
            return np.mean([m.feature_importances_ for m in self.one_vs_rest_], axis=0)
        return self._importances()

    def _decision(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """The decision function of a binary model on validated X."""
        raise NotImplementedError

    def _staged(self, X: np.ndarray) -> Iterator[np.ndarray]:  # pragma: no cover - abstract
        """The decision function of a binary model after every round, on validated X."""
        raise NotImplementedError

    def _proba(self, decision: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """``predict_proba`` from decisions (one per row, or one column per class)."""
        raise NotImplementedError

    def _importances(self) -> np.ndarray:  # pragma: no cover - abstract
        """The feature importances of a binary model."""
        raise NotImplementedError

    # -- one-vs-rest -------------------------------------------------------------------------
    @property
    def _multiclass(self) -> bool:
        return len(getattr(self, "classes_", ())) > 2 and hasattr(self, "one_vs_rest_")

    def _fit_one_vs_rest(self, classes: np.ndarray, fit_class: Callable[[Any, int, Any], Any],
                         resume: bool = False) -> "BoostingClassifier":
        """Fit (``resume``: continue) one binary model per class; see
        :func:`lpboosting.estimators.one_vs_rest.fit_one_vs_rest`."""
        from lpboosting.estimators.one_vs_rest import fit_one_vs_rest

        fit_one_vs_rest(self, classes, fit_class, resume)
        return self

    def _class_model(self, label: Any) -> "BoostingClassifier":
        """The unfitted binary model of class ``label`` against the rest: the classifier's
        parameters, one thread (``n_jobs=None``)."""
        return clone(self).set_params(n_jobs=None)

    def _continued_model(self, model: "BoostingClassifier") -> "BoostingClassifier":
        """The model a warm start continues in place of the fitted ``model``: a copy, so that the
        fitted model stays as it was until the continued one replaces it."""
        return copy.deepcopy(model)

    def _keep_one_vs_rest(self, classes: np.ndarray, models: list[Any]) -> None:
        """The K-class model of the binary ``models`` (fitted, or read back by ``load_model``)."""
        for attr in self._binary_attributes:
            self.__dict__.pop(attr, None)
        self.classes_ = classes
        self.one_vs_rest_ = models
        self.history_ = [m.history_ for m in models]
        for attr in self._summed:
            setattr(self, attr, int(sum(getattr(m, attr) for m in models)))
        if all(hasattr(m, "status_") for m in models):
            self.status_ = status_of([m.status_ for m in models], self._done_statuses)
        self._store_one_vs_rest(models)

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        """Subclasses set their own attributes of a K-class fit."""

    def _forget_one_vs_rest(self) -> None:
        """A binary fit: drop the models of an earlier K-class fit."""
        self.__dict__.pop("one_vs_rest_", None)

    def _fit_status(self) -> str | None:
        """How this binary model's last fit ended (``status_``, else its history's status)."""
        status = getattr(self, "status_", None)
        if status is None:
            status = getattr(getattr(self, "history_", None), "meta", {}).get("status")
        return status

    def _ovr_columns(self, X: np.ndarray) -> list[np.ndarray]:
        """Each model's decision function on validated X (a subclass may share work)."""
        return [m._decision(X) for m in self.one_vs_rest_]

    def _ovr_staged(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """(n, K) after every round: each model's staged decision function, a model that stopped
        earlier held at its last step."""
        models = self.one_vs_rest_
        stages = [m._staged(X) for m in models]
        last: list[np.ndarray | None] = [None] * len(models)
        live = [True] * len(models)
        while True:
            moved = False
            for k, stage in enumerate(stages):
                if not live[k]:
                    continue
                try:
                    last[k] = next(stage)
                    moved = True
                except StopIteration:
                    live[k] = False
                    if last[k] is None:  # a model of no round: its decision function throughout
                        last[k] = models[k]._decision(X)
            if not moved:
                return
            yield np.column_stack(last)

    @staticmethod
    def _ovr_normalise(P: np.ndarray) -> np.ndarray:
        """Each model's probability of its class (columns), normalised over the classes; uniform
        where they are all 0."""
        total = P.sum(axis=1, keepdims=True)
        positive = total > 0
        return np.where(positive, P / np.where(positive, total, 1.0), 1.0 / P.shape[1])

    def _binary_only(self, method: str, arguments: str = "X") -> None:
        """The error of a method defined for two classes only, called on a K-class model."""
        if self._multiclass:
            K = len(self.classes_)
            raise ValueError(
                f"{type(self).__name__}.{method} is defined for two classes; this model has {K} "
                f"(fitted one-vs-rest): use one_vs_rest_[k].{method}({arguments}) for class "
                "classes_[k] against the rest"
            )

    # -- warm start --------------------------------------------------------------------------
    def _remember_fit(self, data: str, frozen: dict[str, Any]) -> None:
        """What :meth:`_check_warm_start` compares a later fit against: the :func:`fingerprint` of
        the data and the values that define the model (``frozen``)."""
        self._warm_start_key = {"fingerprint": data, "frozen": dict(frozen)}

    def _check_warm_start(self, data: str, frozen: dict[str, Any], max_rounds: int) -> bool:
        """True when this fit continues the previous one (``warm_start`` and a fitted model).

        The previous fit must have been made on the same data (``data``, its
        :func:`fingerprint`) and with the same values in ``frozen`` (those
        that define the model being continued); ``max_rounds`` counts all
        rounds (of each class's model), so it must be at least the number
        already made.  Otherwise a ValueError says what differs.
        """
        saved = getattr(self, "_warm_start_key", None)
        if not getattr(self, "warm_start", False) or saved is None:
            return False
        name = type(self).__name__
        if saved["fingerprint"] != data:
            raise ValueError(
                f"{name}: warm_start=True continues the previous fit, which was made on other data (X, y "
                "or sample_weight differ); pass the same data, or set warm_start=False to fit afresh"
            )
        changed = [k for k, v in frozen.items() if not same_value(v, saved["frozen"].get(k))]
        if changed:
            said = ", ".join(f"{k} from {saved['frozen'].get(k)!r} to {frozen[k]!r}" for k in changed)
            raise ValueError(
                f"{name}: warm_start=True continues the previous fit, but {said} changed; these "
                f"parameters ({sorted(changed)}) define the model being continued: restore them, or set "
                "warm_start=False to fit afresh"
            )
        if self._multiclass:  # max_rounds caps each class's model
            done = [int(m.n_rounds_) for m in self.one_vs_rest_]
            k = int(np.argmax(done))
            if max_rounds < done[k]:
                raise ValueError(
                    f"{name}: max_rounds={max_rounds} is below the {done[k]} rounds already fitted by the "
                    f"model of class {plain(self.classes_[k])!r} against the rest; with warm_start=True, "
                    "max_rounds is the total number of rounds of each class's model: raise it, or set "
                    "warm_start=False to fit afresh"
                )
        elif max_rounds < int(self.n_rounds_):
            raise ValueError(
                f"{name}: max_rounds={max_rounds} is below the {int(self.n_rounds_)} rounds already "
                "fitted; with warm_start=True, max_rounds is the total number of rounds: raise it, or "
                "set warm_start=False to fit afresh"
            )
        return True

    def _forget_fit(self) -> None:
        """Remove every fitted attribute (those ending in ``_`` but the fit's validation's
        ``n_features_in_`` and ``feature_names_in_``, and ``_private_fitted``)."""
        keep = ("n_features_in_", "feature_names_in_")
        for name in [k for k in vars(self) if (k.endswith("_") and not k.startswith("__") and k not in keep)
                     or k in self._private_fitted]:
            delattr(self, name)

    # -- verbose output and Ctrl-C -------------------------------------------------------------
    def _say(self, text: str) -> None:
        """Print one line of ``verbose`` output, after the prefix that names the class of a model
        of a one-vs-rest fit."""
        print(getattr(self, "_verbose_prefix", "") + text, flush=True)

    def _stop_requested(self) -> bool:
        """Whether the parallel one-vs-rest fit this model belongs to was interrupted."""
        stop = getattr(self, "_stop", None)
        return stop is not None and stop.is_set()

    def _ctrl_c(self) -> CtrlC:
        """Ctrl-C around this fit's rounds (it also stops when :meth:`_stop_requested`)."""
        return CtrlC(getattr(self, "_stop", None))

    # -- save/load -----------------------------------------------------------------------------
    def _binary_state(self) -> dict[str, Any]:  # pragma: no cover - abstract
        """A binary model's fitted state as JSON data (:func:`lpboosting.save_model`)."""
        raise NotImplementedError

    def _set_binary_state(self, data: dict[str, Any]) -> None:  # pragma: no cover - abstract
        """Set the fitted state of :meth:`_binary_state` on a new binary model."""
        raise NotImplementedError
