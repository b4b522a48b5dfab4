"""What the leveraging boosters share as scikit-learn estimators.

* :func:`training_data`: X and y checked (at least two classes), ``sample_weight``
  validated and the rows of weight 0 dropped (a weight counts an example that
  many times, so a weight of 0 is the same as leaving the row out), and a
  fingerprint of the data a fit was made on (a warm start must continue on
  the same data).
* :func:`check_warm_start`: may a fit continue the previous one?
* :func:`round_line`: the line printed per round with ``verbose > 0``.
* :class:`OneVsRest`: more than two classes, one binary model per class.
* :class:`BoosterConventions`: ``staged_predict_proba`` and ``feature_importances_``
  with the meaning they have for the column-generation classifiers.
* :class:`CtrlC`: Ctrl-C during a fit.  A round's effects on the model are
  applied with Ctrl-C held back until they are complete (:meth:`CtrlC.hold`
  / :meth:`CtrlC.release`), so an interrupted fit has every round it
  finished and nothing of the round it was in.
"""

from __future__ import annotations

import copy
import hashlib
import signal
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from lpboosting.estimators.base import caller_level
from lpboosting.estimators.parallel import map_in_threads, n_threads
from lpboosting.params import Integral, Interval

__all__ = ["BoosterConventions", "CtrlC", "OneVsRest", "TrainingData", "VERBOSE", "check_warm_start",
           "encode_labels", "linear_importances", "print_round", "round_line", "training_data",
           "warm_start_key", "warn_interrupted"]

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


def _fingerprint(*arrays: np.ndarray) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(repr((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes() if a.dtype != object else repr(a.tolist()).encode())
    return h.hexdigest()


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
                f"class {_plain(kept_classes[0])!r} has any weight; give examples of both classes a "
                "positive weight"
            )
        classes, y_pm = encode_labels(estimator, y_kept)
        if not keep.all():
            X = X[keep]
            y = y_kept
        s = s[keep]
    codes = y_pm if y_pm is not None else np.searchsorted(classes, y)
    return TrainingData(X=X, y=y, y_pm=y_pm, weight=s, classes=classes,
                        fingerprint=_fingerprint(X, codes, s, classes))


def check_warm_start(estimator: Any, data: TrainingData, frozen: dict[str, Any], max_rounds: int,
                     n_done_attr: str = "n_rounds_") -> bool:
    """True when this fit continues the previous one (``warm_start`` and a fitted model).

    The previous fit must have been made on the same data and with the same
    values of the parameters in ``frozen`` (those that define the model being
    continued); ``max_rounds`` counts all rounds, so it must be at least the
    number already made.
    """
    saved = getattr(estimator, "_warm_start_key", None)
    if not estimator.warm_start or saved is None:
        return False
    name = type(estimator).__name__
    if saved["fingerprint"] != data.fingerprint:
        raise ValueError(
            f"{name}: warm_start=True continues the previous fit, which was made on other data (X, y "
            "or sample_weight differ); pass the same training data, or set warm_start=False to fit "
            "afresh"
        )
    changed = [f"{k} from {saved['frozen'][k]!r} to {v!r}" for k, v in frozen.items()
               if saved["frozen"].get(k) != v]
    if changed:
        raise ValueError(
            f"{name}: warm_start=True continues the previous fit, but {', '.join(changed)} changed; "
            "these parameters define the model being continued: restore them, or set "
            "warm_start=False to fit afresh"
        )
    models = getattr(estimator, "one_vs_rest_", None)
    if models is not None and len(estimator.classes_) > 2:
        # one-vs-rest: max_rounds caps each class's model
        done = [int(getattr(m, n_done_attr)) for m in models]
        k = int(np.argmax(done))
        if max_rounds < done[k]:
            raise ValueError(
                f"{name}: max_rounds={max_rounds} is below the {done[k]} rounds already fitted by the "
                f"model of class {_plain(estimator.classes_[k])!r} against the rest; with "
                "warm_start=True, max_rounds is the total number of rounds of each class's model: "
                "raise it, or set warm_start=False to fit afresh"
            )
        return True
    n_done = int(getattr(estimator, n_done_attr))
    if max_rounds < n_done:
        raise ValueError(
            f"{name}: max_rounds={max_rounds} is below the {n_done} rounds already fitted; with "
            "warm_start=True, max_rounds is the total number of rounds: raise it, or set "
            "warm_start=False to fit afresh"
        )
    return True


def warm_start_key(data: TrainingData, frozen: dict[str, Any]) -> dict[str, Any]:
    """What :func:`check_warm_start` compares a later fit against."""
    return {"fingerprint": data.fingerprint, "frozen": dict(frozen)}


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
        prefix = getattr(estimator, "_verbose_prefix", "")
        print(prefix + round_line(type(estimator).__name__, t, values), flush=True)


def warn_interrupted(estimator: Any, n_rounds: int, what: str = "rounds", advice: str = "") -> None:
    """The RuntimeWarning of a fit stopped by Ctrl-C that kept its completed rounds."""
    warnings.warn(
        f"{type(estimator).__name__}: interrupted by the user (Ctrl-C); the model holds the {n_rounds} "
        f"{what} completed (status 'interrupted'){advice}", RuntimeWarning, stacklevel=caller_level(),
    )


class CtrlC:
    """Ctrl-C (SIGINT) during a fit, as a context manager around the rounds.

    Between :meth:`hold` and :meth:`release` -- while a round's effects are
    applied to the model -- a Ctrl-C is held back and raised as
    KeyboardInterrupt by :meth:`release`, after the round is complete.
    Elsewhere it raises KeyboardInterrupt at once, as Python's own handler
    does.  The handler is installed only in the main thread and only when
    SIGINT has Python's default handler (otherwise nothing is held back).
    A fit in another thread (``n_jobs``) is given the ``stop`` event its
    one-vs-rest fit sets on Ctrl-C: :meth:`release` raises then too.
    """

    def __init__(self, stop: threading.Event | None = None) -> None:
        self._held = False
        self._pending = False
        self._previous: Any = None
        self._stop = stop  # set when a one-vs-rest fit in parallel threads is interrupted

    def __enter__(self) -> "CtrlC":
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: Any) -> bool:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False

    def _handler(self, signum: int, frame: Any) -> None:
        if self._held:
            self._pending = True
        else:
            raise KeyboardInterrupt

    def hold(self) -> None:
        """From here on, hold a Ctrl-C back."""
        self._held = True

    def release(self) -> None:
        """Stop holding; raise KeyboardInterrupt if a Ctrl-C came in meanwhile."""
        self._held = False
        if self._pending or (self._stop is not None and self._stop.is_set()):
            self._pending = False
            raise KeyboardInterrupt


#: decisions of two classes closer than this (relative to max(1, max_k |f_k(x)|)) are tied: the
#: K models are fitted separately, and rounding (the same sums taken over repeated rows or over
#: weighted ones, say) must not choose between classes whose decisions agree in exact arithmetic
CLASS_TIE = 1e-9


def tied_to_the_largest(decision: np.ndarray) -> np.ndarray:
    """(n, K) booleans: the columns of each row within ``CLASS_TIE`` of its largest."""
    top = decision.max(axis=1, keepdims=True)
    scale = np.maximum(1.0, np.abs(decision).max(axis=1, keepdims=True))
    return decision >= top - CLASS_TIE * scale


def _plain(label: Any) -> Any:
    """A numpy scalar label as the Python value it holds (for messages)."""
    return label.item() if isinstance(label, np.generic) else label


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


class BoosterConventions:
    """``staged_predict_proba`` and ``feature_importances_`` of a fitted booster, with the meaning
    they have for the column-generation classifiers.

    A booster defines ``_proba(decision)`` (``predict_proba`` from the decision function: one
    value per row, or one column per class with more than two classes) and
    ``_importances()`` (the importances of a two-class model, or an AttributeError saying why
    its hypotheses do not name the features they use).
    """

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """``predict_proba`` of the model after each round (a generator); the last equals
        ``predict_proba(X)``."""
        for decision in self.staged_decision_function(X):
            yield self._proba(decision)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Weight mass per feature: sum_m |w_m| times hypothesis m's importances, normalised to 1
        (:func:`lpboosting.estimators.base.weighted_importances`; a feature no hypothesis uses has
        importance 0).  More than two classes: the mean over the classes' models.  What the
        hypotheses and their weights are is the booster's (see its docstring)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        if len(self.classes_) > 2:
            return np.mean([m.feature_importances_ for m in self.one_vs_rest_], axis=0)
        return self._importances()

    def _proba(self, decision: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _importances(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


def _class_prefix(label: Any) -> str:
    """How a one-vs-rest model's lines and warnings name its class."""
    return f"[{_plain(label)!r} vs rest] "


def _pass_on(caught: list[Any], prefix: str, stopped: bool) -> None:
    """A class's fit's warnings again, with its class's prefix (except those said for the whole fit)."""
    for w in caught:
        if issubclass(w.category, FutureWarning) and "was renamed" in str(w.message):
            continue  # this fit has said so already
        if stopped and issubclass(w.category, RuntimeWarning) and "(Ctrl-C)" in str(w.message):
            continue  # said for the whole fit
        warnings.warn(prefix + str(w.message), w.category, stacklevel=caller_level())


class OneVsRest:
    """More than two classes: one binary model per class, class k against the rest.

    Mixed into every leveraging booster.  ``fit`` calls :meth:`_fit_one_vs_rest`
    when the data have K > 2 classes; it fits K models with the estimator's
    parameters, model k on the labels ``y == classes_[k]`` (so its
    ``classes_`` are ``[False, True]`` and class k is its positive class), and
    keeps them in ``one_vs_rest_``.  Each is exactly the binary fit on those
    labels (with the same ``sample_weight``).  Work that does not depend on
    the labels may be shared between the K fits through ``_shared`` (a dict
    that lives during the fit only); a booster uses it only where the result
    is the same arithmetic as a fit of its own.

    A subclass sets ``_binary_attributes`` (its fitted attributes that exist
    for two classes only; a K-class fit removes those of an earlier binary
    fit) and ``_summed`` (counts that are summed over the K models).
    """

    _binary_attributes: tuple[str, ...] = ()
    _summed: tuple[str, ...] = ("n_estimators_",)

    @property
    def _multiclass(self) -> bool:
        return len(getattr(self, "classes_", ())) > 2

    # -- fit -----------------------------------------------------------------------------
    def _fit_one_vs_rest(self, data: TrainingData, weighted: bool, frozen: dict[str, Any] | None = None,
                         max_rounds: int | None = None) -> Any:
        """Fit (or, with ``warm_start``, continue) the K binary models.

        ``weighted``: whether ``fit`` was given ``sample_weight`` (the binary
        fits are then given the weights of the rows kept).  ``frozen`` and
        ``max_rounds`` as :func:`check_warm_start` (None: no warm start).

        Warnings of a binary fit are passed on with a prefix naming the
        class.  Ctrl-C: a fresh fit is abandoned (KeyboardInterrupt; the
        classes after the interrupted one have no model yet), a continued
        fit keeps the models continued so far (RuntimeWarning; the status
        of the interrupted class is "interrupted").
        """
        name = type(self).__name__
        resume = frozen is not None and check_warm_start(self, data, frozen, max_rounds)
        params = {**self.get_params(deep=False), "n_jobs": None}
        previous = self.one_vs_rest_ if resume else None
        shared: dict[str, Any] = {}

        def fit_class(k: int, label: Any, stop: threading.Event | None) -> Any:
            if resume:
                model = copy.deepcopy(previous[k])  # the fitted model is kept until all are done
                model.set_params(**params)
            else:
                model = clone(self).set_params(n_jobs=None)
            model._verbose_prefix, model._shared, model._stop = _class_prefix(label), shared, stop
            try:
                model.fit(data.X, data.y == label, sample_weight=data.weight if weighted else None)
            finally:
                del model._verbose_prefix, model._shared, model._stop
            return model

        jobs = n_threads(getattr(self, "n_jobs", None), data.classes.size)
        if jobs > 1:
            return self._fit_classes_in_parallel(fit_class, data, jobs, resume, previous, frozen)
        models: list[Any] = []
        interrupted = None
        for k, label in enumerate(data.classes):
            prefix = _class_prefix(label)
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    model = fit_class(k, label, None)
            except KeyboardInterrupt:  # before the model's first new round (or between two classes)
                if not resume:
                    raise
                interrupted, cut = k, "it and the classes after it were not continued"
                break
            stopped = model.history_.meta.get("status") == "interrupted"
            _pass_on(caught, prefix, stopped)
            models.append(model)
            if stopped:
                if not resume:
                    raise KeyboardInterrupt(
                        f"{name}: interrupted by the user (Ctrl-C) while fitting class {_plain(label)!r} "
                        f"against the rest ({k + 1} of {data.classes.size}); the classes after it have "
                        "no model yet, so no model is kept"
                    )
                interrupted, cut = k, "its status is 'interrupted', the classes after it were not continued"
                break
        if interrupted is not None:
            models += previous[len(models):]
            warnings.warn(
                f"{name}: interrupted by the user (Ctrl-C) while continuing the model of class "
                f"{_plain(data.classes[interrupted])!r} against the rest; the models hold the rounds "
                f"completed ({cut}); fit again with warm_start=True to continue", RuntimeWarning,
                stacklevel=caller_level(),
            )
        self._keep_one_vs_rest(data.classes, models)
        if frozen is not None:
            self._warm_start_key = warm_start_key(data, frozen)
        return self

    def _fit_classes_in_parallel(self, fit_class: Any, data: TrainingData, jobs: int, resume: bool,
                                 previous: list[Any] | None, frozen: dict[str, Any] | None) -> Any:
        """The K binary fits ``jobs`` at a time, in threads.

        Each fit's warnings are passed on with its class's prefix, as in the
        sequential fit.  Ctrl-C (in the main thread, which waits here) stops
        every fit under way at its next round: a fresh fit keeps no model
        (KeyboardInterrupt), a continued one keeps every model with the
        rounds it completed (RuntimeWarning).
        """
        name = type(self).__name__
        stop = threading.Event()
        local = threading.local()
        caught: dict[int, list[Any]] = {k: [] for k in range(data.classes.size)}

        def show(message, category, filename, lineno, file=None, line=None):  # in the warning's thread
            k = getattr(local, "k", None)
            record = warnings.WarningMessage(message, category, filename, lineno, file, line)
            if k is None:
                outside.append(record)
            else:
                caught[k].append(record)

        def run(k: int, label: Any) -> Any:
            local.k = k
            try:
                return fit_class(k, label, stop)
            finally:
                local.k = None

        outside: list[Any] = []
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = show
            try:
                models = map_in_threads(lambda item: run(*item), list(enumerate(data.classes)), jobs, stop)
            except KeyboardInterrupt:
                if not resume:
                    raise KeyboardInterrupt(f"{name}: interrupted by the user (Ctrl-C) while fitting the "
                                            "one-vs-rest models in parallel; no model is kept") from None
                raise KeyboardInterrupt(f"{name}: interrupted by the user (Ctrl-C) while continuing the "
                                        "one-vs-rest models in parallel; the models fitted before are "
                                        "kept unchanged") from None
        for record in outside:
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
        stopped = [model.history_.meta.get("status") == "interrupted" for model in models]
        for k, label in enumerate(data.classes):
            _pass_on(caught[k], _class_prefix(label), stopped[k])
        if any(stopped) and not resume:
            raise KeyboardInterrupt(f"{name}: interrupted by the user (Ctrl-C) while fitting the one-vs-rest "
                                    "models in parallel; no model is kept")
        if any(stopped):
            warnings.warn(f"{name}: interrupted by the user (Ctrl-C) while continuing the one-vs-rest models "
                          "in parallel; the models hold the rounds completed; fit again with "
                          "warm_start=True to continue", RuntimeWarning, stacklevel=caller_level())
        self._keep_one_vs_rest(data.classes, models)
        if frozen is not None:
            self._warm_start_key = warm_start_key(data, frozen)
        return self

    def _keep_one_vs_rest(self, classes: np.ndarray, models: list[Any]) -> None:
        """The K-class model of the binary ``models`` (fitted, or read back by ``load_model``)."""
        for attr in self._binary_attributes:
            self.__dict__.pop(attr, None)
        self.classes_ = classes
        self.one_vs_rest_ = models
        self.history_ = [m.history_ for m in models]
        for attr in self._summed:
            setattr(self, attr, int(sum(getattr(m, attr) for m in models)))
        self._store_one_vs_rest(models)

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        """Subclasses set their own attributes of a K-class fit."""

    def _forget_one_vs_rest(self) -> None:
        """A binary fit: drop the models of an earlier K-class fit."""
        self.__dict__.pop("one_vs_rest_", None)

    # -- prediction ----------------------------------------------------------------------
    def _ovr_columns(self, X: np.ndarray) -> list[np.ndarray]:
        """Each model's decision function on X (validated); subclasses may share work."""
        return [m.decision_function(X) for m in self.one_vs_rest_]

    def _ovr_decision(self, X: np.ndarray) -> np.ndarray:
        """(n, K): column k is model k's decision function."""
        return np.column_stack(self._ovr_columns(X))

    @staticmethod
    def _ovr_normalise(P: np.ndarray) -> np.ndarray:
        """Each model's probability of its class (columns), normalised over the classes; uniform
        where they are all 0."""
        total = P.sum(axis=1, keepdims=True)
        positive = total > 0
        return np.where(positive, P / np.where(positive, total, 1.0), 1.0 / P.shape[1])

    def _ovr_staged(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """(n, K) after every round: each model's staged decision function, a model that stopped
        earlier held at its last step."""
        models = self.one_vs_rest_
        stages = [m.staged_decision_function(X) for m in models]
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
                        last[k] = models[k].decision_function(X)
            if not moved:
                return
            yield np.column_stack(last)

    def _label(self, decision: np.ndarray) -> np.ndarray:
        """Labels from a decision function: the sign for two classes; for K, the class of the
        largest column, where the columns within ``CLASS_TIE`` of the largest are tied and the tie
        goes to the first of them in ``classes_`` (what ``argmax`` does with exact ties)."""
        if decision.ndim == 2:
            return self.classes_[np.argmax(tied_to_the_largest(decision), axis=1)]
        return self.classes_[(decision > 0).astype(int)]

    def _binary_only(self, method: str, arguments: str = "X") -> None:
        """The error of a method defined for two classes only, called on a K-class model."""
        if self._multiclass:
            K = len(self.classes_)
            raise ValueError(
                f"{type(self).__name__}.{method} is defined for two classes; this model has {K} "
                f"(fitted one-vs-rest): use one_vs_rest_[k].{method}({arguments}) for class "
                "classes_[k] against the rest"
            )
