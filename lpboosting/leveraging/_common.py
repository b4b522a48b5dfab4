"""What the leveraging boosters share as scikit-learn estimators.

* :func:`training_data`: X and y checked (two classes), ``sample_weight`` validated and the
  rows of weight 0 dropped (a weight counts an example that many times, so a
  weight of 0 is the same as leaving the row out), and a fingerprint of the
  data a fit was made on (a warm start must continue on the same data).
* :func:`check_warm_start`: may a fit continue the previous one?
* :func:`round_line`: the line printed per round with ``verbose > 0``.
* :class:`CtrlC`: Ctrl-C during a fit.  A round's effects on the model are
  applied with Ctrl-C held back until they are complete (:meth:`CtrlC.hold`
  / :meth:`CtrlC.release`), so an interrupted fit has every round it
  finished and nothing of the round it was in.
"""

from __future__ import annotations

import hashlib
import signal
import threading
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from lpboosting.params import Integral, Interval

__all__ = ["CtrlC", "TrainingData", "VERBOSE", "check_warm_start", "encode_binary", "print_round",
           "round_line", "training_data", "warm_start_key", "warn_interrupted"]

#: the constraint of ``verbose``: an integer >= 0 (True and False count as 1 and 0)
VERBOSE = [Interval(Integral, 0, None, closed="left"), "boolean"]


@dataclass
class TrainingData:
    """The rows a booster is fitted on: those of positive weight."""

    X: np.ndarray
    y_pm: np.ndarray  # -1 (classes[0]) / +1 (classes[1])
    weight: np.ndarray  # > 0, ones without sample_weight
    classes: np.ndarray
    fingerprint: str

    @property
    def total_weight(self) -> float:
        return float(self.weight.sum())


def encode_binary(estimator: Any, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classes (sorted) and labels as -1 (classes[0]) / +1 (classes[1]); exactly two classes."""
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
    only one class with positive weight.
    """
    name = type(estimator).__name__
    X, y = validate_data(estimator, X, y, dtype=np.float64)
    if sample_weight is None:
        classes, y_pm = encode_binary(estimator, y)
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
                f"class {kept_classes[0]!r} has any weight; give examples of both classes a positive "
                "weight"
            )
        classes, y_pm = encode_binary(estimator, y_kept)
        if not keep.all():
            X = X[keep]
        s = s[keep]
    return TrainingData(X=X, y_pm=y_pm, weight=s, classes=classes,
                        fingerprint=_fingerprint(X, y_pm, s, classes))


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
    """Print :func:`round_line` to standard output when ``estimator.verbose > 0``."""
    if estimator.verbose:
        print(round_line(type(estimator).__name__, t, values), flush=True)


def warn_interrupted(estimator: Any, n_rounds: int, what: str = "rounds", advice: str = "") -> None:
    """The RuntimeWarning of a fit stopped by Ctrl-C that kept its completed rounds."""
    warnings.warn(
        f"{type(estimator).__name__}: interrupted by the user (Ctrl-C); the model holds the {n_rounds} "
        f"{what} completed (status 'interrupted'){advice}", RuntimeWarning, stacklevel=3,
    )


class CtrlC:
    """Ctrl-C (SIGINT) during a fit, as a context manager around the rounds.

    Between :meth:`hold` and :meth:`release` -- while a round's effects are
    applied to the model -- a Ctrl-C is held back and raised as
    KeyboardInterrupt by :meth:`release`, after the round is complete.
    Elsewhere it raises KeyboardInterrupt at once, as Python's own handler
    does.  The handler is installed only in the main thread and only when
    SIGINT has Python's default handler (otherwise nothing is held back).
    """

    def __init__(self) -> None:
        self._held = False
        self._pending = False
        self._previous: Any = None

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
        if self._pending:
            self._pending = False
            raise KeyboardInterrupt
