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


def bin_features(X: np.ndarray, max_bins: int, thresholds: list[np.ndarray] | None = None
                 ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """Every feature of X cut by :func:`bin_thresholds` (or by the ``thresholds`` given) and coded
    one byte (two above 256 bins) a value.

    Returns (thresholds, n_bins, codes, has_missing): ``codes[i, j]`` is the
    number of thresholds of feature j below ``X[i, j]`` (so code k means
    thresholds[j][k-1] < x <= thresholds[j][k]); a missing value (NaN) has
    code ``n_bins[j]``, one bin after the present values'.  ``codes`` is in
    Fortran order (a feature's codes are contiguous).
    """
    missing = np.isnan(X)
    has_missing = missing.any(axis=0)
    if thresholds is None:
        thresholds = [bin_thresholds(X[~missing[:, j], j], max_bins) for j in range(X.shape[1])]
    n_bins = np.array([t.size + 1 for t in thresholds])  # bins of the present values
    return thresholds, n_bins, encode(X, thresholds, max_bins, bool(has_missing.any())), has_missing


def encode(X: np.ndarray, thresholds: list[np.ndarray], max_bins: int, missing_bin: bool) -> np.ndarray:
    """The codes of :func:`bin_features` for the rows of X (Fortran order; a missing value's code is
    the feature's number of bins, one byte while ``max_bins`` (+1 with ``missing_bin``) fit in one)."""
    top = max_bins if missing_bin else max_bins - 1  # the largest code
    codes = np.empty(X.shape, dtype=np.uint8 if top <= 255 else np.uint16, order="F")
    for j, thr in enumerate(thresholds):
        codes[:, j] = np.searchsorted(thr, X[:, j], side="left")  # number of thresholds < x
        missing = np.isnan(X[:, j])
        if missing.any():
            codes[missing, j] = thr.size + 1  # the missing values' bin, last
    return codes


def bin_sums(codes: np.ndarray, a: np.ndarray, n_codes: int) -> np.ndarray:
    """Sum of a over the rows of each code of each feature, (n_codes, F): one ``bincount`` a feature."""
    out = np.empty((n_codes, codes.shape[1]))
    for j in range(codes.shape[1]):
        out[:, j] = np.bincount(codes[:, j], weights=a, minlength=n_codes)
    return out


def stump_column(codes: np.ndarray, y: np.ndarray, k: int, sign: float, n_bins: int, missing_left: bool
                 ) -> np.ndarray:
    """y times the binned stump of split ``k`` of one feature's codes: codes >= k on the +sign
    side, the missing values' code ``n_bins`` with them unless ``missing_left``; float like y."""
    right = codes >= k
    if missing_left:
        right &= codes < n_bins
    return np.where(right, sign, -sign) * y


def check_max_bins(max_bins: int) -> None:
    if int(max_bins) != max_bins or not 2 <= max_bins <= 65536:
        raise ValueError(f"max_bins must be an integer in [2, 65536], got {max_bins!r}")


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

    def __init__(self, X, y, max_bins: int = 255, thresholds: list[np.ndarray] | None = None) -> None:
        X = check_features(X, allow_nan=True)
        check_max_bins(max_bins)
        Oracle.__init__(self, X.shape[0])
        self.y = check_labels_pm(y, X.shape[0])
        self.X = X
        self.max_bins = int(max_bins)
        self.thresholds, self.n_bins, self.codes, has_missing = bin_features(X, self.max_bins, thresholds)
        self._set_splits(has_missing)

    def _set_splits(self, has_missing: np.ndarray) -> None:
        """The table of splits from ``n_bins`` and the features with missing values."""
        end = self.n_bins + has_missing  # the split with every row on the -1 side
        rows = int(end.max()) + 1
        # split k puts the codes < k on the -1 side; k = 0 .. end_j are stumps of feature j
        self._missing_splits(self.n_bins, end, np.arange(rows)[:, None] <= end[None, :])
        self._buffer = None

    def _bin_sums(self, d: np.ndarray, n_codes: int) -> tuple[np.ndarray, float]:
        """Sum of d * y over each code of each feature, (n_codes, F), and over every row."""
        a = d * self.y
        return bin_sums(self.codes, a, n_codes), float(a.sum())

    def _split_edges(self, d: np.ndarray) -> np.ndarray:
        """Edge of the sign +1 stump at every split k of every feature, (max n_bins + 1, F)
        (one more column per feature with missing values, as :meth:`Stumps._split_edges`)."""
        rows, f = self._invalid.shape[0], self.n_bins.size
        sums, total = self._bin_sums(d, rows - 1)
        if self._buffer is None:
            self._buffer = np.empty(self._invalid.shape)
        s = self._buffer
        s[0] = 0.0
        np.cumsum(sums, axis=0, out=s[1:, :f])
        s[:, :f] *= -2.0
        s[:, :f] += total
        self._missing_left(s)
        s[self._invalid] = 0.0
        return s

    def _candidate(self, d: np.ndarray, e: np.ndarray, k: int, j: int) -> Candidate:
        stump = self._stump(k, j, 1.0 if e[k, j] >= 0 else -1.0)
        # the missing rows' bin is last: on the +1 side, except in the stumps of the table's
        # columns after the features', which send them to the -1 side
        column = self._column(stump.feature, k, stump.sign, j >= self.n_bins.size)
        return Candidate(stump, column, float(d @ column))

    def _column(self, feature: int, k: int, sign: float, missing_left: bool) -> np.ndarray:
        """y times the stump of split k of this feature."""
        return stump_column(self.codes[:, feature], self.y, k, sign, int(self.n_bins[feature]), missing_left)

    def _threshold(self, k: int, j: int) -> float:
        thr = self.thresholds[j]
        return -np.inf if k == 0 else (np.inf if k > thr.size else float(thr[k - 1]))
