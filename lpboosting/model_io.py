"""A fitted column-generation classifier as a JSON file, and back.

The file holds what the model needs to predict and what says where it came
from: the classifier's class and parameters, the classes, the feature
names, every hypothesis (a stump as feature, threshold, sign and the side
of missing values when it is not the default; a multiclass LP's stump as
feature, threshold and the class codes it votes for on each side, its tree
as a tree with class codes for leaf values; a scaled feature as feature,
range and sign; a tree as its node arrays, the side of missing values at
each node and whether it compares float64 values) with its
weight, the weights after each round (for ``staged_*``), the fitted
summary (objective, rounds, status), the history, and the versions of the
libraries it was fitted with.  NaN and +-inf are written as null.

:func:`load_model` gives back a fitted classifier whose ``predict``,
``decision_function``, ``predict_proba`` and ``staged_*`` equal the saved
model's.  What it cannot carry: the training distribution and margin
matrix (``distribution_``, ``result_``) and a live run to continue
(``warm_start``); pickle keeps everything but is tied to the library's
version.  Hypotheses of a callable oracle cannot be written (a TypeError
says so: use pickle).

The leveraging boosters (LLM, LLD, log-loss boosting, bounded loss,
MODABOOST) are written in the same envelope, each binary model as
:mod:`lpboosting.leveraging.persist` writes its fitted state.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from lpboosting.colgen.history import History
from lpboosting.jsonfile import to_json_value
from lpboosting.oracles.features import ScaledFeature
from lpboosting.oracles.multiclass import ClassStump, ClassTree
from lpboosting.oracles.stumps import Stump
from lpboosting.oracles.trees import TreeHypothesis, TreeRule
from lpboosting.provenance import versions

__all__ = ["FORMAT", "FORMAT_VERSION", "load_model", "model_to_dict", "model_from_dict", "save_model"]

FORMAT = "lpboosting-model"
FORMAT_VERSION = 1

#: scalar fitted attributes written with the model
_FITTED = ("objective_", "n_rounds_", "status_", "minimax_risk_", "lam_")
#: what cross-validation chose (nu="auto", oracle="auto"; lpboosting.estimators.cv)
_CHOSEN = ("nu_", "nus_", "cv_scores_", "oracle_", "oracle_params_", "cv_scores_by_oracle_")


def _chosen_value(name: str, value: Any) -> Any:
    """A chosen value read back: the grid and the scores as float arrays (null is NaN: not scored)."""
    def array(v: Any) -> np.ndarray:
        return np.array([[np.nan if x is None else x for x in row] for row in v], dtype=float)

    if name == "nus_":
        return np.asarray(value, dtype=float)
    if name == "cv_scores_":
        return array(value)
    if name == "cv_scores_by_oracle_":
        return {k: array(v) for k, v in value.items()}
    return value


# -- hypotheses ---------------------------------------------------------------------------
def hypothesis_to_dict(h: Any) -> dict[str, Any]:
    if isinstance(h, Stump):
        out = {"kind": "stump", "feature": h.feature, "threshold": h.threshold, "sign": h.sign}
        if math.isinf(h.threshold):  # a constant on present values: +sign below every value, -sign above
            out.update(threshold=None, constant=h.sign if h.threshold < 0 else -h.sign)
        if h.missing_right != Stump(h.feature, h.threshold, h.sign).missing_right:
            out["missing_right"] = h.missing_right  # a learned side other than the default
        return out
    if isinstance(h, ClassStump):  # a multiclass LP's: the class codes voted for on each side
        out = {"kind": "class_stump", "feature": h.feature, "threshold": h.threshold, "left": h.left,
               "right": h.right}
        if math.isinf(h.threshold):
            out["threshold"] = "-inf" if h.threshold < 0 else "inf"
        if h.missing_right:
            out["missing_right"] = True
        return out
    if isinstance(h, ClassTree):
        return {**hypothesis_to_dict(h.rule), "kind": "class_tree"}
    if isinstance(h, ScaledFeature):
        return {"kind": "scaled_feature", "feature": h.feature, "low": h.low, "high": h.high, "sign": h.sign}
    if isinstance(h, (TreeHypothesis, TreeRule)):
        rule = h if isinstance(h, TreeRule) else h.rule if h.rule is not None else TreeRule.of(h.tree)
        out = {"kind": "tree", "left": rule.left, "right": rule.right, "feature": rule.feature,
               "threshold": rule.threshold, "leaf_value": rule.leaf_value, "depth": rule.depth,
               "importances": rule.importances(0)}
        if rule.missing_left is not None:
            out["missing_left"] = rule.missing_left
        if not rule.float32:
            out["float32"] = False  # thresholds on raw float64 values
        return out
    raise TypeError(
        f"a {type(h).__name__} hypothesis cannot be written as JSON (stumps, scaled features and "
        "trees can); save this model with pickle instead"
    )


def hypothesis_from_dict(data: dict[str, Any]) -> Any:
    kind = data.get("kind")
    if kind == "stump":
        sign = float(data["sign"])
        if data["threshold"] is None:
            threshold = -math.inf if float(data["constant"]) == sign else math.inf
        else:
            threshold = float(data["threshold"])
        missing_right = data.get("missing_right")  # absent: the default side
        return Stump(int(data["feature"]), threshold, sign, None if missing_right is None else bool(missing_right))
    if kind == "class_stump":
        threshold = data["threshold"]
        return ClassStump(int(data["feature"]), float(threshold), int(data["left"]), int(data["right"]),
                          bool(data.get("missing_right", False)))
    if kind == "class_tree":
        return ClassTree.of_rule(hypothesis_from_dict({**data, "kind": "tree"}))
    if kind == "scaled_feature":
        return ScaledFeature(int(data["feature"]), float(data["low"]), float(data["high"]), float(data["sign"]))
    if kind == "tree":
        # null: the threshold inf of a split of missing against present values
        threshold = [math.inf if t is None else t for t in data["threshold"]]
        return TreeRule(data["left"], data["right"], data["feature"], threshold, data["leaf_value"],
                        data["depth"], data["importances"], data.get("missing_left"), data.get("float32", True))
    raise ValueError(f"unknown hypothesis kind {kind!r} in the model file; it was written by a newer "
                     "version of lpboosting or is not a model file")


# -- one binary model -----------------------------------------------------------------------
def binary_to_dict(model: Any) -> dict[str, Any]:
    """A column-generation classifier's binary model as JSON data (its ``_binary_state``)."""
    return {
        "hypotheses": [hypothesis_to_dict(h) for h in model.hypotheses_],
        "weights": model.weights_,
        "weight_path": [{"index": i, "value": v} for i, v in model._weight_path],
        "fitted": {name: getattr(model, name) for name in _FITTED if hasattr(model, name)},
        "history": model.history_.to_json(),
    }


def binary_from_dict(model: Any, data: dict[str, Any]) -> None:
    """Set the fitted state of :func:`binary_to_dict` on a new binary model."""
    model.hypotheses_ = [hypothesis_from_dict(h) for h in data["hypotheses"]]
    model.weights_ = np.asarray(data["weights"], dtype=float)
    model._weight_path = [(np.asarray(p["index"], dtype=np.int32), np.asarray(p["value"], dtype=float))
                          for p in data["weight_path"]]
    for name, value in data["fitted"].items():
        setattr(model, name, float("nan") if value is None and name.endswith("objective_") else value)
    model.history_ = History.from_json(data["history"])


# -- the classifier ------------------------------------------------------------------------------
def _params_to_dict(estimator: Any) -> tuple[dict[str, Any], list[str]]:
    """The parameters that JSON can hold, and the names of those it cannot (callables, objects)."""
    params, left_out = {}, []
    for name, value in estimator.get_params(deep=False).items():
        try:
            json.dumps(to_json_value(value), allow_nan=False)
        except (TypeError, ValueError):
            left_out.append(name)
            continue
        params[name] = to_json_value(value)
    return params, left_out


def model_to_dict(estimator: Any) -> dict[str, Any]:
    """A fitted column-generation classifier or leveraging booster as JSON data (see the module
    docstring)."""
    from lpboosting.estimators.classifier import BoostingClassifier

    if not isinstance(estimator, BoostingClassifier):
        raise TypeError(f"save_model writes the column-generation classifiers and the leveraging boosters; "
                        f"got {type(estimator).__name__} (save it with pickle)")
    if not hasattr(estimator, "classes_"):
        raise ValueError(f"{type(estimator).__name__} is not fitted; call fit(X, y) before saving it")
    params, left_out = _params_to_dict(estimator)
    classes = np.asarray(estimator.classes_)
    out: dict[str, Any] = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "estimator": type(estimator).__name__, "params": params, "params_not_saved": left_out,
        "classes": classes.tolist(), "classes_dtype": classes.dtype.str if classes.dtype != object else None,
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": (list(map(str, estimator.feature_names_in_))
                             if hasattr(estimator, "feature_names_in_") else None),
        "versions": versions(),
    }
    chosen = {name: getattr(estimator, name) for name in _CHOSEN if hasattr(estimator, name)}
    if chosen:  # what cross-validation chose (nu="auto", oracle="auto")
        out["chosen"] = chosen
    if hasattr(estimator, "one_vs_rest_"):  # each binary model's state is its own (column generation or leveraging)
        out["one_vs_rest"] = [m._binary_state() for m in estimator.one_vs_rest_]
    else:
        out["model"] = estimator._binary_state()
    return to_json_value(out)


def model_from_dict(data: dict[str, Any]) -> Any:
    """The fitted classifier of :func:`model_to_dict`'s data."""
    import lpboosting.estimators as estimators
    import lpboosting.leveraging as leveraging

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not an lpboosting model file (its 'format' is not "
                         f"{FORMAT!r}); models are written by lpboosting.save_model")
    if int(data.get("format_version", 0)) > FORMAT_VERSION:
        raise ValueError(f"the model file has format version {data['format_version']}, newer than this "
                         f"lpboosting reads ({FORMAT_VERSION}); upgrade lpboosting to read it")
    name = str(data.get("estimator"))
    cls = getattr(estimators, name, None)
    if cls is None and name in leveraging.__all__:
        cls = getattr(leveraging, name)
    if not isinstance(cls, type):
        raise ValueError(f"unknown classifier {data.get('estimator')!r} in the model file")
    estimator = cls(**data["params"])
    if data.get("params_not_saved"):
        warnings.warn(f"{cls.__name__} read back with default values for {data['params_not_saved']} "
                      "(not JSON: callables or objects); set them again before refitting", UserWarning,
                      stacklevel=3)
    dtype = data.get("classes_dtype")
    estimator.classes_ = np.asarray(data["classes"], dtype=np.dtype(dtype) if dtype else object)
    estimator.n_features_in_ = int(data["n_features_in"])
    if data.get("feature_names_in") is not None:
        estimator.feature_names_in_ = np.asarray(data["feature_names_in"], dtype=object)
    chosen = data.get("chosen") or {}
    for name, value in chosen.items():
        if name in _CHOSEN:
            setattr(estimator, name, _chosen_value(name, value))
    if "one_vs_rest" in data:
        models = []
        for label, part in zip(estimator.classes_, data["one_vs_rest"]):
            model = cls(**data["params"])
            model.classes_ = np.array([False, True])
            model.n_features_in_ = estimator.n_features_in_
            if hasattr(estimator, "feature_names_in_"):
                model.feature_names_in_ = estimator.feature_names_in_
            for name in ("nu_", "oracle_", "oracle_params_"):
                if name in chosen:
                    setattr(model, name, _chosen_value(name, chosen[name]))
            model._set_binary_state(part)
            models.append(model)
        estimator._keep_one_vs_rest(estimator.classes_, models)
    else:
        estimator._set_binary_state(data["model"])
    return estimator


def save_model(estimator: Any, path: str | Path) -> None:
    """Write a fitted column-generation classifier or leveraging booster to ``path`` as JSON (see the
    module docstring)."""
    Path(path).write_text(json.dumps(model_to_dict(estimator), indent=1, allow_nan=False))


def load_model(path: str | Path) -> Any:
    """Read a classifier written by :func:`save_model`; its predictions equal the saved model's."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not a JSON model file ({exc.msg} at line {exc.lineno}); models are "
                         "written by lpboosting.save_model") from None
    return model_from_dict(data)
