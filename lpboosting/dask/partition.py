"""What runs on a Dask worker: one partition's rows at a time.

Every function here takes one partition (the dict :func:`encode_partition`
makes: binned feature codes and labels +-1) and, for the hypotheses, their
specs (a binned stump's column is made from the codes when it is read), and
returns something small (sums, margins) or the rows asked for.  They are plain functions of numpy arrays, so that Dask can
ship them to the workers by name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.columns import weighted_sum
from lpboosting.oracles.binned import bin_sums, encode


def partition_facts(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """What the client checks before binning: sizes, missing and infinite values, the labels."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        return {"shape": (X.shape, y.shape)}
    return {"shape": None, "rows": X.shape[0], "features": X.shape[1], "missing": np.isnan(X).any(axis=0),
            "infinite": bool(np.isinf(X).any()), "labels": np.unique(y)}


def sample_rows(X: np.ndarray, size: int, seed: int) -> np.ndarray:
    """``size`` rows of X drawn without replacement (all of them when there are no more)."""
    X = np.asarray(X, dtype=float)
    if size >= X.shape[0]:
        return X
    rows = np.sort(np.random.default_rng(seed).choice(X.shape[0], size, replace=False))
    return X[rows]


def encode_partition(X: np.ndarray, y: np.ndarray, thresholds: list[np.ndarray], max_bins: int,
                     missing_bin: bool, positive: Any) -> dict[str, np.ndarray]:
    """The partition as the oracle reads it: codes (Fortran order) and y = +1 for ``positive``, else -1."""
    X = np.asarray(X, dtype=float)
    y = np.where(np.asarray(y) == positive, 1.0, -1.0)
    return {"codes": encode(X, thresholds, max_bins, missing_bin), "y": y, "y8": y.astype(np.int8)}


def partition_bin_sums(part: dict[str, np.ndarray], d: np.ndarray, n_codes: int) -> tuple[np.ndarray, float]:
    """Sum of d * y over each code of each feature, and over the partition."""
    a = d * part["y"]
    return bin_sums(part["codes"], a, n_codes), float(a.sum())


#: a binned stump as the workers make its column: (feature, split k, sign, n_bins of the feature,
#: missing values on the -1 side)
Spec = tuple[int, int, float, int, bool]

#: rows of a partition made into columns at a time (bounds the int8 temporaries)
ROWS_AT_A_TIME = 1 << 16


def columns_of(part: dict[str, np.ndarray], rows: np.ndarray | slice = slice(None), *, specs: list[Spec]
               ) -> np.ndarray:
    """The stumps' columns y * h(x) at these rows of the partition (rows x stumps, int8, Fortran
    order), made from the binned codes: the columns are not stored, a stump is its spec."""
    codes, y = part["codes"][rows], part["y8"][rows]
    out = np.empty((y.size, len(specs)), dtype=np.int8, order="F")
    right = np.empty(y.size, dtype=bool)
    for j, (feature, k, sign, n_bins, missing_left) in enumerate(specs):
        # the values of stump_column, in int8: +-y where the codes are on the +sign side
        np.greater_equal(codes[:, feature], k, out=right)
        if missing_left:
            right &= codes[:, feature] < n_bins
        column = out[:, j]
        np.multiply(right, 2, out=column, casting="unsafe")
        column -= 1
        column *= y if sign > 0 else -y
    return out


def block_dots(part: dict[str, np.ndarray], d: np.ndarray, *, specs: list[Spec]) -> np.ndarray:
    """d . u of each stump's column on the partition."""
    return np.array([float(d @ u) for u in columns_of(part, specs=specs).T])


def block_margins(part: dict[str, np.ndarray], *, specs: list[Spec], weights: np.ndarray) -> np.ndarray:
    """sum_j weights_j u_j on the partition's rows, by :func:`lpboosting.columns.weighted_sum` (each
    row's sum is then the one an in-memory matrix of these columns gives)."""
    n = part["y"].size
    out = np.zeros(n)
    if not specs:
        return out
    index = np.arange(len(specs))
    for start in range(0, n, ROWS_AT_A_TIME):
        rows = slice(start, min(n, start + ROWS_AT_A_TIME))
        out[rows] = weighted_sum(columns_of(part, rows, specs=specs), index, weights)
    return out


def block_margins_at(part: dict[str, np.ndarray], rows: np.ndarray, *, specs: list[Spec],
                     weights: np.ndarray) -> np.ndarray:
    """sum_j weights_j u_j at these rows of the partition, each row's sum as
    :func:`lpboosting.columns.weighted_sum` computes it at given rows (a row-major float block
    times the weights)."""
    return np.ascontiguousarray(columns_of(part, rows, specs=specs), dtype=float) @ weights


def block_take(part: dict[str, np.ndarray], rows: np.ndarray, *, specs: list[Spec]) -> np.ndarray:
    """The stumps' entries at these rows of the partition (rows x stumps, int8)."""
    return columns_of(part, rows, specs=specs)
