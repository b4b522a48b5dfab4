"""What runs on a Dask worker: one partition's rows at a time.

Every function here takes one partition (the dict :func:`encode_partition`
makes: binned feature codes and labels +-1) or the int8 column blocks made
from it, and returns something small (sums, one block of a column) or the
rows asked for.  They are plain functions of numpy arrays, so that Dask can
ship them to the workers by name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpboosting.columns import weighted_sum
from lpboosting.oracles.binned import bin_sums, encode, stump_column


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
    return {"codes": encode(X, thresholds, max_bins, missing_bin),
            "y": np.where(np.asarray(y) == positive, 1.0, -1.0)}


def partition_bin_sums(part: dict[str, np.ndarray], d: np.ndarray, n_codes: int) -> tuple[np.ndarray, float]:
    """Sum of d * y over each code of each feature, and over the partition."""
    a = d * part["y"]
    return bin_sums(part["codes"], a, n_codes), float(a.sum())


def partition_stump(part: dict[str, np.ndarray], feature: int, k: int, sign: float, n_bins: int,
                    missing_left: bool) -> np.ndarray:
    """The partition's block of a binned stump's column y * h(x), int8."""
    return stump_column(part["codes"][:, feature], part["y"], k, sign, n_bins, missing_left).astype(np.int8)


def _stacked(blocks: list[np.ndarray], rows: int) -> np.ndarray:
    out = np.empty((rows, len(blocks)), dtype=np.int8, order="F")
    for j, block in enumerate(blocks):
        out[:, j] = block
    return out


def block_dots(blocks: list[np.ndarray], d: np.ndarray) -> np.ndarray:
    """d . u of each column's block."""
    return np.array([float(d @ block) for block in blocks])


def block_margins(blocks: list[np.ndarray], weights: np.ndarray, rows: int) -> np.ndarray:
    """sum_j weights_j u_j on the partition's rows, by :func:`lpboosting.columns.weighted_sum` (each
    row's sum is then the one an in-memory matrix of these columns gives)."""
    if not blocks:
        return np.zeros(rows)
    return weighted_sum(_stacked(blocks, rows), np.arange(len(blocks)), weights)


def block_take(blocks: list[np.ndarray], rows: np.ndarray) -> np.ndarray:
    """The columns' entries at these rows of the partition (rows x columns, int8)."""
    return _stacked([block[rows] for block in blocks], rows.size)
