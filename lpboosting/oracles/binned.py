"""Histogram (binned) decision-stump oracle: exact over stumps at its bin edges, for large N."""

from __future__ import annotations

import numpy as np

from lpboosting.oracles.base import Candidate, Oracle, check_features, check_labels_pm
from lpboosting.oracles.stumps import Stumps


def bin_thresholds(x: np.ndarray, max_bins: int) -> np.ndarray:
    """Thresholds cutting one feature into at most ``max_bins`` bins of about equal counts.

    With at most ``max_bins`` distinct values every midpoint between
    consecutive values is a threshold (the binned class is then every stump
    of the feature); otherwise the cuts fall at the count quantiles, each at
    the midpoint between the distinct values on either side.
    """
    values, counts = np.unique(x, return_counts=True)
    if values.size <= max_bins:
        lo, hi = values[:-1], values[1:]
    else:
        cum = np.cumsum(counts)
        targets = cum[-1] * np.arange(1, max_bins) / max_bins
        # the last distinct value of each quantile's bin
        last = np.unique(np.searchsorted(cum, targets, side="left"))
        last = last[last < values.size - 1]
        lo, hi = values[last], values[last + 1]
    mid = lo + (hi - lo) / 2.0
    return np.where((lo <= mid) & (mid < hi), mid, lo)


def bin_features(X: np.ndarray, max_bins: int) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """Every feature of X cut by :func:`bin_thresholds` and coded one byte (two above 256 bins) a value.

    Returns (thresholds, n_bins, codes, has_missing): ``codes[i, j]`` is the
    number of thresholds of feature j below ``X[i, j]`` (so code k means
    thresholds[j][k-1] < x <= thresholds[j][k]); a missing value (NaN) has
    code ``n_bins[j]``, one bin after the present values'.  ``codes`` is in
    Fortran order (a feature's codes are contiguous).
    """
    n, f = X.shape
    missing = np.isnan(X)
    has_missing = missing.any(axis=0)
    thresholds = [bin_thresholds(X[~missing[:, j], j], max_bins) for j in range(f)]
    n_bins = np.array([t.size + 1 for t in thresholds])  # bins of the present values
    top = max_bins if has_missing.any() else max_bins - 1  # the largest code
    codes = np.empty((n, f), dtype=np.uint8 if top <= 255 else np.uint16, order="F")
    for j, thr in enumerate(thresholds):
        codes[:, j] = np.searchsorted(thr, X[:, j], side="left")  # number of thresholds < x
        if has_missing[j]:
            codes[missing[:, j], j] = n_bins[j]  # the missing values' bin, last
    return thresholds, n_bins, codes, has_missing


class BinnedStumps(Stumps):
    """Stumps h(x) = s * sign(x_j - theta) with theta among the bin edges of feature j.

    Each feature is cut into at most ``max_bins`` bins (count quantiles;
    every distinct value is its own bin when there are at most ``max_bins``)
    and coded as one byte an example.  Pricing sums d * y per bin with one
    ``bincount`` a feature and reads every stump's edge off the cumulative
    sums: O(N F) with a (max_bins + 1) x F table, no sort and no N x F float
    temporary.  Exact over its class (``exact`` is True): the best stump
    whose thresholds are bin edges, so a column-generation gap certifies the
    LP over *binned* stumps; with fewer distinct values than ``max_bins``
    in every feature the class is all stumps and the results equal
    :class:`Stumps`'s.

    Missing values (NaN) are one more bin a feature, after the others; as
    in :class:`Stumps` every threshold of such a feature comes with both
    sides for its missing rows, and the class holds the missing-value
    indicator.
    """

    exact = True
    name = "binned-stumps"

    def __init__(self, X, y, max_bins: int = 255) -> None:
        X = check_features(X, allow_nan=True)
        if int(max_bins) != max_bins or not 2 <= max_bins <= 65536:
            raise ValueError(f"max_bins must be an integer in [2, 65536], got {max_bins!r}")
        Oracle.__init__(self, X.shape[0])
        self.y = check_labels_pm(y, X.shape[0])
        self.X = X
        self.max_bins = int(max_bins)
        self.thresholds, self.n_bins, self.codes, has_missing = bin_features(X, self.max_bins)
        end = self.n_bins + has_missing  # the split with every row on the -1 side
        rows = int(end.max()) + 1
        # split k puts the codes < k on the -1 side; k = 0 .. end_j are stumps of feature j
        self._missing_splits(self.n_bins, end, np.arange(rows)[:, None] <= end[None, :])
        self._buffer = None

    def _split_edges(self, d: np.ndarray) -> np.ndarray:
        """Edge of the sign +1 stump at every split k of every feature, (max n_bins + 1, F)
        (one more column per feature with missing values, as :meth:`Stumps._split_edges`)."""
        a = d * self.y
        rows, f = self._invalid.shape[0], self.X.shape[1]
        if self._buffer is None:
            self._buffer = np.empty(self._invalid.shape)
        s = self._buffer
        s[0] = 0.0
        for j in range(f):
            s[1:, j] = np.cumsum(np.bincount(self.codes[:, j], weights=a, minlength=rows - 1))
        s[:, :f] *= -2.0
        s[:, :f] += a.sum()
        self._missing_left(s)
        s[self._invalid] = 0.0
        return s

    def _candidate(self, d: np.ndarray, e: np.ndarray, k: int, j: int) -> Candidate:
        stump = self._stump(k, j, 1.0 if e[k, j] >= 0 else -1.0)
        codes = self.codes[:, stump.feature]
        right = codes >= k  # the missing rows' bin is last: on the +1 side ...
        if j >= self.X.shape[1]:  # ... except in the stumps that send them to the -1 side
            right &= codes < self.n_bins[stump.feature]
        column = np.where(right, stump.sign, -stump.sign) * self.y
        return Candidate(stump, column, float(d @ column))

    def _threshold(self, k: int, j: int) -> float:
        thr = self.thresholds[j]
        return -np.inf if k == 0 else (np.inf if k > thr.size else float(thr[k - 1]))
