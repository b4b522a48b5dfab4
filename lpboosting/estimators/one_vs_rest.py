"""More than two classes: one binary model per class, class k against the rest.

:func:`fit_one_vs_rest` is the one implementation for every classifier
(:class:`~lpboosting.estimators.classifier.BoostingClassifier`).  Model k is
the classifier's binary fit with class k as its positive class; the family
says how one model is fitted (``fit_class``), this module fits the K of
them: one after another, or ``n_jobs`` at a time in threads
(:func:`~lpboosting.estimators.parallel.map_in_threads`), with the same
models either way.

* Each fit runs with ``_verbose_prefix`` (``"[label vs rest] "``, before its
  ``verbose`` lines and its warnings), ``_shared`` (a dict that lives during
  the fit: label-free work the first class does and the others reuse) and
  ``_stop`` (the event a parallel fit sets on Ctrl-C; None otherwise).
* Warnings: each class's are passed on with its prefix, in class order,
  pointing at the line that called ``fit`` (a parameter's renaming and a
  Ctrl-C said for the whole fit are not repeated).
* Ctrl-C: a fresh fit keeps no model (KeyboardInterrupt; the classes after
  the interrupted one would have none).  A continued fit (``warm_start``)
  keeps every model with the rounds it completed: one after another, the
  classes after the interrupted one are not continued (RuntimeWarning); in
  threads, every fit under way stops at its next round (KeyboardInterrupt
  when the Ctrl-C reached the waiting main thread, RuntimeWarning when a fit
  caught it).
* An error in one fit is raised (in threads: once the others have stopped),
  after the warnings said so far.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from lpboosting.estimators.classifier import plain
from lpboosting.estimators.parallel import map_in_threads, n_threads
from lpboosting.stacklevel import caller_level

__all__ = ["class_prefix", "fit_one_vs_rest"]


def class_prefix(label: Any) -> str:
    """How a one-vs-rest model's lines and warnings name its class."""
    return f"[{plain(label)!r} vs rest] "


def _pass_on(caught: list[Any], prefix: str, stopped: bool) -> None:
    """A class's fit's warnings again, with its class's prefix (except those said for the whole fit)."""
    for w in caught:
        if issubclass(w.category, FutureWarning) and "was renamed" in str(w.message):
            continue  # this fit has said so already
        if stopped and issubclass(w.category, RuntimeWarning) and "(Ctrl-C)" in str(w.message):
            continue  # said for the whole fit
        warnings.warn(prefix + str(w.message), w.category, stacklevel=caller_level())


def fit_one_vs_rest(estimator: Any, classes: np.ndarray, fit_class: Callable[[Any, int, Any], Any],
                    resume: bool = False) -> list[Any]:
    """Fit (``resume``: continue) the K binary models of ``estimator`` and keep them.

    ``fit_class(model, k, label)`` fits model k in place (class ``label``
    against the rest).  Fresh: K new models (``estimator._class_model``).
    ``resume``: each fitted model of ``one_vs_rest_`` as
    ``estimator._continued_model`` gives it (a copy, so that the fitted
    model stays as it was until the new one replaces it), with the
    estimator's parameters (one thread each).  The models are kept with
    ``estimator._keep_one_vs_rest`` and returned.  Ctrl-C, errors and
    warnings: see the module docstring.
    """
    name = type(estimator).__name__
    K = len(classes)
    if resume:
        models = list(estimator.one_vs_rest_)
        params = {**estimator.get_params(deep=False), "n_jobs": None}
    else:
        models = [estimator._class_model(label) for label in classes]
    shared: dict[str, Any] = {}
    jobs = n_threads(getattr(estimator, "n_jobs", None), K)
    stop = threading.Event() if jobs > 1 else None

    def run(k: int) -> Any:
        if resume:
            models[k] = estimator._continued_model(models[k]).set_params(**params)
        model = models[k]
        model._verbose_prefix, model._shared, model._stop = class_prefix(classes[k]), shared, stop
        try:
            fit_class(model, k, classes[k])
        finally:
            del model._verbose_prefix, model._shared, model._stop
        return model

    if stop is None:
        _one_after_another(estimator, name, classes, models, run, resume)
    else:
        _in_threads(estimator, name, classes, models, run, resume, jobs, stop)
    estimator._keep_one_vs_rest(classes, models)
    return models


def _one_after_another(estimator: Any, name: str, classes: np.ndarray, models: list[Any],
                       run: Callable[[int], Any], resume: bool) -> None:
    interrupted, cut = None, ""
    for k, label in enumerate(classes):
        prefix = class_prefix(label)
        caught: list[Any] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                run(k)
        except KeyboardInterrupt:  # before the model's first new round (or between two classes)
            _pass_on(caught, prefix, True)
            if not resume:
                estimator._forget_fit()
                raise
            interrupted, cut = k, "it and the classes after it were not continued"
            break
        except BaseException:
            _pass_on(caught, prefix, False)
            raise
        stopped = models[k]._fit_status() == "interrupted"
        _pass_on(caught, prefix, stopped)
        if stopped:
            if not resume:
                estimator._forget_fit()
                raise KeyboardInterrupt(
                    f"{name}: interrupted by the user (Ctrl-C) while fitting class {plain(label)!r} "
                    f"against the rest ({k + 1} of {len(classes)}); the classes after it have no model "
                    "yet, so no model is kept"
                )
            interrupted, cut = k, "its status is 'interrupted', the classes after it were not continued"
            break
    if interrupted is not None:
        warnings.warn(
            f"{name}: interrupted by the user (Ctrl-C) while continuing the model of class "
            f"{plain(classes[interrupted])!r} against the rest; the models hold the rounds "
            f"completed ({cut}); fit again with warm_start=True to continue", RuntimeWarning,
            stacklevel=caller_level(),
        )


def _in_threads(estimator: Any, name: str, classes: np.ndarray, models: list[Any], run: Callable[[int], Any],
                resume: bool, jobs: int, stop: threading.Event) -> None:
    """The K fits ``jobs`` at a time; each thread's warnings are told apart by its class."""
    local = threading.local()
    caught: dict[int, list[Any]] = {k: [] for k in range(len(classes))}
    outside: list[Any] = []

    def show(message, category, filename, lineno, file=None, line=None):  # in the warning's thread
        k = getattr(local, "k", None)
        record = warnings.WarningMessage(message, category, filename, lineno, file, line)
        (outside if k is None else caught[k]).append(record)

    def task(k: int) -> Any:
        local.k = k
        try:
            return run(k)
        finally:
            local.k = None

    error: BaseException | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        try:
            map_in_threads(task, list(range(len(classes))), jobs, stop)
        except BaseException as exc:  # Ctrl-C (every fit under way has stopped) or a fit's error
            error = exc
    for record in outside:
        warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
    ctrl_c = isinstance(error, KeyboardInterrupt)
    stopped = [model._fit_status() == "interrupted" for model in models]
    for k, label in enumerate(classes):
        _pass_on(caught[k], class_prefix(label), stopped[k] or ctrl_c)
    if ctrl_c and not resume:
        estimator._forget_fit()
        raise KeyboardInterrupt(f"{name}: interrupted by the user (Ctrl-C) while fitting the one-vs-rest "
                                "models in parallel; no model is kept") from None
    if ctrl_c:
        estimator._keep_one_vs_rest(classes, models)
        raise KeyboardInterrupt(f"{name}: interrupted by the user (Ctrl-C) while continuing the one-vs-rest "
                                "models in parallel; the models hold the rounds completed; fit again with "
                                "warm_start=True to continue") from None
    if error is not None:
        raise error
    if any(stopped) and not resume:
        estimator._forget_fit()
        raise KeyboardInterrupt(f"{name}: interrupted by the user (Ctrl-C) while fitting the one-vs-rest "
                                "models in parallel; no model is kept")
    if any(stopped):
        warnings.warn(f"{name}: interrupted by the user (Ctrl-C) while continuing the one-vs-rest models "
                      "in parallel; the models hold the rounds completed; fit again with warm_start=True "
                      "to continue", RuntimeWarning, stacklevel=caller_level())
