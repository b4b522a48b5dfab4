"""The leveraging boosters' fitted state as JSON data, for :mod:`lpboosting.model_io`.

:func:`lpboosting.save_model` writes a leveraging booster (LLM, LLD,
log-loss boosting, bounded loss, MODABOOST) in the same file format as a
column-generation classifier: the envelope (class, parameters, classes,
feature names, versions) is :mod:`lpboosting.model_io`'s, and each binary
model (one per class with more than two classes) is the dict this module
makes of the fitted attributes that prediction and the ``staged_*``
methods read (:data:`SAVED`): coefficients, the feature scaling or the
stumps chosen, the steps of every round, the tree's node arrays, the
neighbours' training rows and leverages, the history.  Floats are written
exactly (NaN and +-inf as the strings "nan", "inf", "-inf"), so a model
read back predicts bit for bit as the saved one.  Not written: the
training margins and decisions that ``warm_start`` continues from (a model
read back fits afresh).  A callable kernel or a proper loss of one's own
cannot be written (a TypeError says so: use pickle).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lpboosting.colgen.history import History

__all__ = ["SAVED", "booster_from_dict", "booster_to_dict", "is_booster"]

#: the fitted attributes of a binary model written, by class (those a model has)
SAVED: dict[str, tuple[str, ...]] = {
    "LeveragingClassifier": ("basis_", "coef_", "hypotheses_", "epsilon_", "n_rounds_", "n_estimators_",
                             "_steps", "history_"),
    "BoundedLossClassifier": ("intercept_", "coef_", "dual_coef_", "X_fit_", "lambda_", "lambda_path_",
                              "objective_", "n_iter_", "n_estimators_", "_path_coef", "_path_intercept",
                              "_feature_range", "history_"),
    "ModaBoostClassifier": ("loss_", "loss_curve_", "coef_", "intercept_", "tree_", "X_fit_",
                            "sample_weight_fit_", "leverage_", "n_neighbors_", "n_rounds_", "n_estimators_",
                            "status_", "_steps", "_feature_range", "history_"),
}

_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def is_booster(obj: Any) -> bool:
    """Is ``obj`` (an estimator or its class) a leveraging booster?"""
    from lpboosting.leveraging._common import BoosterConventions

    cls = obj if isinstance(obj, type) else type(obj)
    return issubclass(cls, BoosterConventions)


def _saved(model: Any) -> tuple[str, ...]:
    for cls in type(model).__mro__:
        if cls.__name__ in SAVED:
            return SAVED[cls.__name__]
    raise TypeError(f"save_model does not know the fitted state of {type(model).__name__}; use pickle")


def _float(x: float) -> Any:
    return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


def _encode(value: Any) -> Any:
    """``value`` as JSON data; what is not a plain JSON value is tagged with "$"."""
    from lpboosting.leveraging.llm import _FeatureBasis, _StumpPool
    from lpboosting.losses import PROPER_LOSSES, ProperLoss
    from lpboosting.model_io import hypothesis_to_dict
    from lpboosting.oracles import Stump

    if isinstance(value, History):
        return {"$": "history", "data": value.to_json()}
    if isinstance(value, _FeatureBasis):
        return {"$": "feature_basis", "state": _encode(value.state())}
    if isinstance(value, _StumpPool):
        return {"$": "stump_pool", "hypotheses": [hypothesis_to_dict(h) for h in value.hypotheses]}
    if isinstance(value, Stump):
        return {"$": "hypothesis", "data": hypothesis_to_dict(value)}
    if isinstance(value, ProperLoss):
        if PROPER_LOSSES.get(value.name) is not type(value):
            raise TypeError(f"the proper loss {value!r} is not one of lpboosting's ({', '.join(PROPER_LOSSES)}) "
                            "and cannot be written as JSON; save this model with pickle instead")
        return {"$": "proper_loss", "name": value.name}
    if isinstance(value, np.ndarray):
        data = [_float(x) if isinstance(x, float) else x for x in value.ravel().tolist()]
        return {"$": "array", "dtype": value.dtype.str, "shape": list(value.shape), "data": data}
    if isinstance(value, np.generic):
        return _encode(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$": "float", "value": _float(value)}
    if isinstance(value, tuple):
        return {"$": "tuple", "items": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {"$": "dict", "items": {str(k): _encode(v) for k, v in value.items()}}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise TypeError(f"a fitted attribute holding a {type(value).__name__} cannot be written as JSON; "
                    "save this model with pickle instead")


def _decode(data: Any) -> Any:
    from lpboosting.leveraging.llm import _FeatureBasis, _StumpPool
    from lpboosting.losses import get_proper_loss
    from lpboosting.model_io import hypothesis_from_dict

    if isinstance(data, list):
        return [_decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    kind = data.get("$")
    if kind == "array":
        values = [_NONFINITE[x] if isinstance(x, str) else x for x in data["data"]]
        return np.asarray(values, dtype=np.dtype(data["dtype"])).reshape(data["shape"])
    if kind == "float":
        return _NONFINITE[data["value"]]
    if kind == "tuple":
        return tuple(_decode(v) for v in data["items"])
    if kind == "dict":
        return {k: _decode(v) for k, v in data["items"].items()}
    if kind == "history":
        return History.from_json(data["data"])
    if kind == "feature_basis":
        return _FeatureBasis.restore(_decode(data["state"]))
    if kind == "stump_pool":
        pool = _StumpPool()
        for h in data["hypotheses"]:
            pool.add(hypothesis_from_dict(h))
        return pool
    if kind == "hypothesis":
        return hypothesis_from_dict(data["data"])
    if kind == "proper_loss":
        return get_proper_loss(data["name"])
    raise ValueError(f"unknown entry {kind!r} in the model file; it was written by a newer version of "
                     "lpboosting or is not a model file")


def booster_to_dict(model: Any) -> dict[str, Any]:
    """The fitted state of one binary leveraging model (see the module docstring)."""
    if callable(getattr(model, "kernel", None)):
        raise TypeError(f"{type(model).__name__} with a callable kernel cannot be written as JSON (the "
                        "kernel is code); save this model with pickle instead")
    return {"fitted": {name: _encode(getattr(model, name)) for name in _saved(model) if hasattr(model, name)}}


def booster_from_dict(model: Any, data: dict[str, Any]) -> None:
    """Set the fitted state of :func:`booster_to_dict` on a new binary model."""
    for name, value in data["fitted"].items():
        if name in _saved(model):
            setattr(model, name, _decode(value))
