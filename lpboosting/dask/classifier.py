"""LPBoost on data partitioned over a Dask cluster, in the style of ``xgboost.dask`` and ``lightgbm.dask``."""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np
from sklearn.utils.validation import check_is_fitted

from lpboosting.dask.frame import DaskFrame, import_dask
from lpboosting.dask.oracle import DaskBinnedStumps
from lpboosting.estimators.base import adaboost_proba
from lpboosting.estimators.lpboost import LPBoostClassifier
from lpboosting.params import check_params


def _decide(block: np.ndarray, hypotheses: list[Any], weights: np.ndarray, decimals: int) -> np.ndarray:
    """sum_m w_m h_m(x) on one block of rows (what ``decision_function`` gives in memory)."""
    X = np.asarray(block, dtype=float)
    f = np.zeros(X.shape[0])
    for m in np.flatnonzero(weights):
        f += weights[m] * np.asarray(hypotheses[m].predict(X), dtype=float)
    return np.round(f, decimals) + 0.0


def _labels(f: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``classes[1]`` where the decision is positive, else ``classes[0]`` (the in-memory rule)."""
    return classes[(f > 0).astype(int)]


def _is_dask(X: Any) -> bool:
    return hasattr(X, "dask") and (hasattr(X, "map_blocks") or hasattr(X, "to_dask_array"))


class DaskLPBoostClassifier(LPBoostClassifier):
    """LPBoost fitted where the data lives: a dask array or DataFrame partitioned over a cluster.

    The same LP (:class:`lpboosting.masters.LPBoost`), the same loop, the
    same HiGHS session (LPBoost's master by sifting,
    :class:`~lpboosting.backends.highs.sifting.HighsSiftingLP`) and the same
    binned stumps as ``LPBoostClassifier(oracle="binned-stumps")``; what
    differs is where the rows are.  Each partition of X stays on its worker,
    binned (:class:`~lpboosting.dask.frame.DaskFrame`):

    - pricing sums d * y over each partition's bins on its worker; the
      client adds the tables and picks the stumps
      (:class:`~lpboosting.dask.oracle.DaskBinnedStumps`);
    - a hypothesis' column y h(x) is made on the workers from the binned
      codes whenever it is read (never stored: a worker holds its rows'
      codes, F bytes a row, whatever the number of hypotheses);
    - the sifting session's full check computes the ensemble's margins on
      the workers; only the rows that enter its working set travel;
    - the master runs on the client, which also keeps vectors of one entry a
      row (the distribution, the margins of a check).

    Parameters are LPBoostClassifier's, with ``oracle="binned-stumps"``
    (the one oracle here; ``oracle_params`` may give ``max_bins`` and
    ``thresholds``, one array per feature, to fix the bins) and a number for
    ``nu`` (choosing it by cross-validation, ``nu="auto"``, is not done on
    a cluster), plus:

    client : distributed.Client or None, default None
        The cluster's client; None takes the current one
        (``distributed.default_client()``), as ``xgboost.dask`` does.

    ``predict``, ``predict_proba`` and ``decision_function`` of a dask
    array or DataFrame give dask arrays (``map_blocks``: computed where the
    rows are); of a numpy array, numpy arrays.  The fitted model pickles
    and predicts without the cluster; its ``result_.columns`` has no
    column (the hypotheses and their weights are the model).  A degenerate optimum
    (soft margin near 0) is reported by its warning but not re-chosen by a
    second stage (that LP is over every row on the client).
    """

    _second_stage = False
    _warm_path = False
    _choose_on_path = False

    def __init__(
        self,
        nu: float = 0.1,
        oracle: str = "binned-stumps",
        oracle_params: dict[str, Any] | None = None,
        backend: "str | None" = None,
        tol: float = 1e-6,
        max_rounds: int = 1000,
        callback: Callable[..., Any] | None = None,
        columns_per_round: int = 20,
        stabilization: Any = "smoothing",
        time_limit: float | None = None,
        stall_rounds: int | None = None,
        pool: Any = None,
        warm_start: bool = False,
        verbose: int = 0,
        random_state: Any = None,
        n_jobs: int | None = None,
        client: Any = None,
    ) -> None:
        super().__init__(nu=nu, oracle=oracle, oracle_params=oracle_params, backend=backend, tol=tol,
                         max_rounds=max_rounds, callback=callback, columns_per_round=columns_per_round,
                         stabilization=stabilization, time_limit=time_limit, stall_rounds=stall_rounds,
                         pool=pool, warm_start=warm_start, verbose=verbose, random_state=random_state,
                         n_jobs=n_jobs)
        self.client = client

    def _get_client(self) -> Any:
        _, distributed = import_dask()
        if self.client is not None:
            return self.client
        try:
            return distributed.default_client()
        except ValueError as exc:
            raise ValueError(f"{type(self).__name__} needs a Dask client: pass client=distributed.Client(...) "
                             "or create one first (it becomes the default)") from exc

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "DaskLPBoostClassifier":
        """Fit on X (dask array or DataFrame; numpy is partitioned first) and y (dask array or Series,
        or numpy) of two classes; ``sample_weight`` (one weight >= 0 a row) is gathered to the client,
        as the master's caps are."""
        check_params(self)
        name = type(self).__name__
        if isinstance(self.nu, str):
            raise ValueError(f"{name}: nu={self.nu!r} chooses nu by cross-validation, which is not done on a "
                             "cluster; give a number (0.1 is the papers' value), or choose it with LPBoostCV "
                             "on a sample that fits in memory")
        if self.oracle != "binned-stumps":
            raise ValueError(f"{name} prices binned stumps (oracle='binned-stumps'), got oracle={self.oracle!r}")
        if self.warm_start:
            raise ValueError(f"{name} does not keep its columns after a fit: warm_start must be False")
        params = dict(self.oracle_params or {})
        unknown = set(params) - {"max_bins", "thresholds"}
        if unknown:
            raise ValueError(f"{name}: oracle_params takes max_bins and thresholds, got {sorted(unknown)}")
        frame = DaskFrame(self._get_client(), X, y, max_bins=params.get("max_bins", 255),
                          thresholds=params.get("thresholds"))
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight.compute() if _is_dask(sample_weight) else sample_weight,
                                       dtype=float)
            if sample_weight.shape != (frame.n_samples,) or not np.all(np.isfinite(sample_weight)) \
                    or sample_weight.min() < 0 or not sample_weight.sum() > 0:
                raise ValueError(f"{name}: sample_weight must hold one finite weight >= 0 a row "
                                 f"({frame.n_samples}), not all 0")
        self._forget_fit()
        self.classes_ = frame.classes
        self.n_features_in_ = frame.n_features
        if frame.feature_names is not None:
            self.feature_names_in_ = np.asarray(frame.feature_names, dtype=object)
        self._rows = self.row_map_ = None
        return self._fit_binary(DaskBinnedStumps(frame), sample_weight)

    def _store(self, result: Any) -> "DaskLPBoostClassifier":
        super()._store(result)
        # the columns are stumps over the fit's partitions, of no use without its cluster: the
        # hypotheses and their weights are the model
        self.result_ = copy.copy(result)
        self.result_.columns = np.empty((result.distribution.size, 0), dtype=np.int8)
        self.result_.state = None
        self._run = None
        return self

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop("_oracle", None)
        state["client"] = None
        return state

    # -- prediction where the rows are -------------------------------------------------
    def _dask_decision(self, X: Any) -> Any:
        check_is_fitted(self)
        if hasattr(X, "to_dask_array"):
            X = X.to_dask_array(lengths=True)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1] if X.ndim == 2 else X.ndim} features, but "
                             f"{type(self).__name__} was fitted with {self.n_features_in_}")
        X = X.rechunk({1: -1})
        return X.map_blocks(_decide, self.hypotheses_, self.weights_, self.decision_decimals,
                            drop_axis=1, dtype=float)

    def decision_function(self, X: Any) -> Any:
        if _is_dask(X):
            return self._dask_decision(X)
        return super().decision_function(X)

    def predict(self, X: Any) -> Any:
        if _is_dask(X):
            return self._dask_decision(X).map_blocks(_labels, self.classes_, dtype=self.classes_.dtype)
        return super().predict(X)

    def predict_proba(self, X: Any) -> Any:
        if _is_dask(X):
            f, n = self._dask_decision(X), len(self.classes_)
            return f.map_blocks(adaboost_proba, n, new_axis=1, chunks=(f.chunks[0], (n,)), dtype=float)
        return super().predict_proba(X)
