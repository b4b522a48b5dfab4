"""Exact decision-stump oracle, vectorised over presorted features."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lpboosting.columns import is_array
from lpboosting.oracles.base import Candidate, Oracle, check_features, check_labels_pm


@dataclass(frozen=True)
class Stump:
    """h(x) = sign * (+1 if x[feature] > threshold else -1), a missing x[feature] (NaN) on the
    right side (+sign) when ``missing_right``, else on the left (-sign).

    ``threshold = -inf`` (with ``missing_right``) gives the constant ``sign``; ``+inf`` (without
    it) the constant ``-sign``; ``+inf`` with ``missing_right`` is the missing-value indicator
    ``sign * (+1 if x[feature] is missing else -1)``.  The oracles learn the side of a feature
    that has missing values in training (the side of larger edge).  ``missing_right=None`` (the
    default, and what the oracles give a feature with no missing value in training) is the
    documented default side: the left one, where the comparison x > threshold puts NaN, except
    that the threshold -inf stays the constant ``sign``.
    """

    feature: int
    threshold: float
    sign: float
    missing_right: bool | None = None

    def __post_init__(self) -> None:
        right = self.threshold == -np.inf if self.missing_right is None else bool(self.missing_right)
        object.__setattr__(self, "missing_right", bool(right))

    def __repr__(self) -> str:
        side = "" if self.missing_right == (self.threshold == -np.inf) else f", missing_right={self.missing_right}"
        return f"Stump(feature={self.feature!r}, threshold={self.threshold!r}, sign={self.sign!r}{side})"

    @property
    def constant(self) -> float | None:
        """The stump's value if it is a constant (on present and missing values alike), else None."""
        if self.threshold == -np.inf and self.missing_right:
            return self.sign
        if self.threshold == np.inf and not self.missing_right:
            return -self.sign
        return None

    def predict(self, X: np.ndarray) -> np.ndarray:
        x = np.asarray(X, dtype=float)[:, self.feature]
        right = x > self.threshold  # False for NaN: the left side
        if self.missing_right:
            right |= np.isnan(x)
        out = right.astype(float)  # sign * (2 right - 1): +-sign, exactly
        out *= 2.0 * self.sign
        out -= self.sign
        return out

    def describe(self, feature_names: Sequence[str] | None = None) -> str:
        """The rule in words, e.g. ``+1 if radius > 15.5 else -1`` (names from a DataFrame's columns).

        A missing value goes to the ``else`` side unless the rule says ``or radius is missing``.
        """
        if self.constant is not None:
            return f"{self.constant:+.0f} (constant)"
        name = f"x[{self.feature}]" if feature_names is None else str(feature_names[self.feature])
        if self.threshold == np.inf:  # the missing-value indicator
            return f"{self.sign:+.0f} if {name} is missing else {-self.sign:+.0f}"
        if self.threshold == -np.inf:  # present against missing
            return f"{self.sign:+.0f} if {name} is present else {-self.sign:+.0f}"
        missing = f" or {name} is missing" if self.missing_right else ""
        return f"{self.sign:+.0f} if {name} > {self.threshold!r}{missing} else {-self.sign:+.0f}"

    def importances(self, n_features: int) -> np.ndarray:
        """1 for the feature the stump splits (0 everywhere for a constant)."""
        out = np.zeros(n_features)
        if self.constant is None:
            out[self.feature] = 1.0
        return out


def clean_threshold(lo: float, hi: float) -> float:
    """The midpoint of two consecutive values lo < hi, without float noise.

    (0.1 + 0.2) / 2 is 0.15000000000000002 in floating point; this returns
    the shortest decimal within a millionth of the gap from the midpoint
    (0.15), so that a stump prints and saves as the number it means and
    still splits the training data where the midpoint does.  Falls back to
    the midpoint, or to ``lo`` when the two are adjacent floats.
    """
    mid = lo + (hi - lo) / 2.0
    if not np.isfinite(mid):  # hi - lo overflows (values near +-1.8e308)
        mid = lo / 2.0 + hi / 2.0
    for digits in range(1, 18):
        value = float(f"{mid:.{digits}g}")
        if lo < value < hi and abs(value - mid) <= 1e-6 * (hi - lo):
            return value
    return float(mid if lo <= mid < hi else lo)


class Stumps(Oracle):
    """All axis-aligned stumps h(x) = s * sign(x_j - theta), s = +-1.

    theta ranges over the midpoints between consecutive distinct values of
    feature j and beyond either end (the constants +-1).  Exact: the edge of
    every stump is evaluated at once from cumulative sums of d*y along each
    presorted feature, so a pricing call costs one gather and one cumsum of
    an (N x F) array — no Python loop over thresholds.

    Missing values (NaN in X): a feature with missing values adds, for every
    threshold, the choice of side for its missing rows, and the missing-value
    indicator (every present value on one side, the missing ones on the
    other); the oracle stays exact over that class (every threshold x both
    sides for missing values x both signs).  The missing rows sort last, so
    the sorted table's splits put them on the +1 side; the stumps that put
    them on the -1 side are one more table column per such feature, the
    same edges less twice the mass of d*y on the missing rows.  A feature
    with no missing value in training sends a missing value at prediction
    to :class:`Stump`'s default side (the left one).
    """

    exact = True
    name = "stumps"

    def __init__(self, X, y) -> None:
        X = check_features(X, allow_nan=True)
        super().__init__(X.shape[0])
        self.y = check_labels_pm(y, X.shape[0])
        # one feature a contiguous column: a stump's column reads one feature of every row
        self.X = np.asfortranarray(X)
        n, f = X.shape
        self._order = np.argsort(X, axis=0, kind="stable")  # NaN sorts last
        xs = np.take_along_axis(X, self._order, axis=0)
        self._sorted = xs
        # split k (0..N) puts sorted rows [0, k) on the -1 side; valid only between distinct values
        valid = np.ones((n + 1, f), dtype=bool)
        valid[1:n] = xs[1:] > xs[:-1]  # False at and after the first NaN
        present = np.count_nonzero(~np.isnan(X), axis=0)
        self._missing_splits(present, n, valid)
        self._buffer: np.ndarray | None = None  # the (N+1) x F edges, reused by every pricing call

    def _missing_splits(self, last: np.ndarray, end: np.ndarray | int, valid: np.ndarray) -> None:
        """Set up the stumps of the missing values and ``_invalid``.

        ``last[j]`` is the split that puts every present value of feature j
        on the -1 side (and the missing ones, sorted last, on the +1 side),
        ``end[j]`` the one that puts every row there (feature j has missing
        values when ``last[j] < end[j]``); ``valid`` marks the valid splits
        of the table, missing rows on the +1 side.  Adds the indicator split
        ``last[j]`` of every feature with missing values and, per such
        feature, one table column for its stumps with the missing rows on
        the -1 side (splits 1 .. last[j] - 1: split 0 would be the indicator
        negated and ``last[j]`` a constant).
        """
        has_missing = np.asarray(last) < end
        self._end_split = np.broadcast_to(np.asarray(end, dtype=np.intp), has_missing.shape)
        n_rows, f = valid.shape
        self._last_present = np.asarray(last, dtype=np.intp)
        self._has_missing = has_missing
        nan = self._missing_features = np.flatnonzero(has_missing)
        valid[self._last_present[nan], nan] = True  # the missing-value indicator
        if nan.size:
            left = valid[:, nan] & (np.arange(n_rows)[:, None] < self._last_present[nan][None, :])
            left[0] = False
            valid = np.hstack([valid, left])
        self._invalid = ~valid

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_buffer"] = None  # scratch space, rebuilt by the next call
        return state

    def all_columns(self) -> tuple[np.ndarray, list[Stump]]:
        """Every stump of the class as a column matrix: (U, stumps), U[n, m] = y_n h_m(x_n).

        The two constants, then for each feature each threshold between
        consecutive distinct values with both signs (and, for a feature with
        missing values, both sides for them and the missing-value
        indicator): the class this oracle maximises over (so ``U.T @ d``
        holds every edge and its maximum is :meth:`price`'s).
        N x (2 + 2 sum_j (distinct values of j - 1)) floats without missing
        values: for teaching and checking on small data.
        """
        stumps = [Stump(0, -np.inf, 1.0), Stump(0, -np.inf, -1.0)]
        for col in range(self._invalid.shape[1]):
            for k in np.flatnonzero(~self._invalid[:, col]):
                stump = self._stump(int(k), col, 1.0)
                if stump.constant is None:
                    stumps += [stump, self._stump(int(k), col, -1.0)]
        U = np.column_stack([self.y * h.predict(self.X) for h in stumps])
        return U, stumps

    def _labels_changed(self) -> None:
        self._buffer = None  # the presorted features are shared, the scratch space is not

    def _split_edges(self, d: np.ndarray) -> np.ndarray:
        """Edge of the sign +1 stump at every split k = 0..N of every feature, (N+1, F).

        Written into one (N+1) x F buffer that the oracle keeps and reuses: the
        gather, the cumulative sums and the edges are computed in place, so a
        pricing call allocates nothing of size N x F.  Splits inside ties hold
        0 (:attr:`_invalid` marks them).  The result is overwritten by the next call.
        With missing values the table has one more column per feature with
        missing values (:meth:`_missing_left`).
        """
        a = d * self.y
        n, f = self.X.shape
        if self._buffer is None:
            self._buffer = np.empty(self._invalid.shape)
        s = self._buffer
        table = s[:, :f] if self._missing_features.size else s  # the sorted features' splits
        table[0] = 0.0
        np.take(a, self._order, out=table[1:], mode="clip")  # "clip": no buffered copy (indices are valid)
        np.cumsum(table[1:], axis=0, out=table[1:])
        table *= -2.0
        table += a.sum()
        self._missing_left(s)
        s[self._invalid] = 0.0
        return s

    def _missing_left(self, s: np.ndarray) -> None:
        """Fill the table's columns F.. : the features with missing values, their missing rows on the -1 side.

        Split k of feature j has edge e[k, j] with the missing rows on the +1
        side; on the -1 side it is e[k, j] - 2 M_j, M_j the sum of d*y over
        the missing rows, which is (e[last_j, j] - e[end_j, j]) / 2 (split
        ``last_j`` puts every present row on the -1 side, ``end_j`` every row).
        """
        nan = self._missing_features
        if nan.size:
            f = s.shape[1] - nan.size
            s[:, f:] = s[:, nan]
            s[:, f:] -= s[self._last_present[nan], nan] - s[self._end_split[nan], nan]

    def edges(self, distribution: np.ndarray) -> np.ndarray:
        """Edge of every sign +1 stump, shape (N+1, F) (a new array); splits inside ties are NaN.

        With missing values, one more column per feature with missing values
        (in the order of ``_missing_features``): its stumps that send the
        missing rows to the -1 side (the first F columns send them to the +1
        side, and split ``last_j`` is the missing-value indicator).
        """
        e = self._split_edges(self._check_distribution(distribution)).copy()
        e[self._invalid] = np.nan
        return e

    @staticmethod
    def _best_abs(e: np.ndarray) -> int:
        """Flat index of the largest |e| (the first one on ties), without an |e| temporary."""
        hi, lo = int(np.argmax(e)), int(np.argmin(e))
        a, b = abs(e.flat[hi]), abs(e.flat[lo])
        return hi if a > b or (a == b and hi < lo) else lo

    @staticmethod
    def _best_rows(e: np.ndarray, block: int = 1 << 16) -> np.ndarray:
        """Per column j of the table, the row of the largest |e[:, j]| (the first one on ties).

        Block by block of rows: numpy's argmax along axis 0 copies the table
        it reads, and a column of a table stored by row is read with a stride,
        so a block of about ``block`` entries is the unit (an earlier block
        keeps a tie).
        """
        n, f = e.shape
        best = np.full(f, -1.0)
        rows = np.zeros(f, dtype=np.intp)
        cols = np.arange(f)
        step = max(1, block // max(1, f))
        for start in range(0, n, step):
            b = e[start:start + step]
            hi, lo = b.argmax(axis=0), b.argmin(axis=0)
            above, below = np.abs(b[hi, cols]), np.abs(b[lo, cols])
            row = np.where((below > above) | ((below == above) & (lo < hi)), lo, hi)
            value = np.maximum(above, below)
            better = value > best
            rows[better] = start + row[better]
            best[better] = value[better]
        return rows

    def price(self, distribution):
        d = self._check_distribution(distribution)
        e = self._split_edges(d)
        k, j = np.unravel_index(self._best_abs(e), e.shape)
        return self._candidate(d, e, int(k), int(j))

    def price_many(self, distribution, k):
        """``k`` stumps of large |edge| with distinct columns, spread over the features.

        First the best stump of each feature, the features ranked by that
        score (the first is :meth:`price`'s); when ``k`` exceeds the number
        of features, the next stumps by score over all features and splits.
        Ties go by position, and a stump whose column equals a better one's
        (the constants of every feature, splits that order the rows alike)
        is skipped.  One stump per feature first because stumps at adjacent
        thresholds of one feature are nearly the same column (the master
        solves this saves are measured in docs/defaults.md,
        ``columns_per_round``).  The search works feature by feature
        (temporaries of size N, not N x F).
        """
        k = int(k)
        if k <= 1:
            return [self.price(distribution)]
        d = self._check_distribution(distribution)
        e = self._split_edges(d)
        n_splits, n_features = e.shape
        rows = self._best_rows(e)
        per_feature = rows * n_features + np.arange(n_features)  # flat index of each feature's best
        best = np.abs(e[rows, np.arange(n_features)])
        order = list(per_feature[np.lexsort((per_feature, -best))])
        if k > n_features:
            m = min(n_splits, 4 * k + 2 * n_features)  # room for the constants and duplicates
            top = []
            for j in range(n_features):  # the m largest |e| of each feature hold the m largest overall
                score = np.abs(e[:, j])
                pick = np.argpartition(-score, m - 1)[:m] if m < n_splits else np.arange(n_splits)
                top.append(pick * n_features + j)
            top = np.concatenate(top)
            flat_score = np.abs(e.ravel()[top])
            order += list(top[np.lexsort((top, -flat_score))])
        out, seen = [], set()
        for index in order:
            kk, j = np.unravel_index(int(index), e.shape)
            if self._invalid[kk, j]:
                continue
            candidate = self._candidate(d, e, int(kk), int(j))
            column = candidate.column
            # a stump's column is +-1: where it is positive says all of it
            key = (hashlib.blake2b(np.packbits(column > 0).tobytes(), digest_size=16).digest()
                   if is_array(column) else column.key)
            if key not in seen:
                seen.add(key)
                out.append(candidate)
                if len(out) == k:
                    break
        return out

    def _candidate(self, d: np.ndarray, e: np.ndarray, k: int, j: int) -> Candidate:
        stump = self._stump(k, j, 1.0 if e[k, j] >= 0 else -1.0)
        column = self.y * stump.predict(self.X)
        return Candidate(stump, column, float(d @ column))

    def _stump(self, k: int, col: int, sign: float) -> Stump:
        """The stump of split ``k`` in column ``col`` of the edge table, with ``sign``."""
        f = self._has_missing.size  # the features
        if col >= f:  # a feature with missing values, its missing rows on the -1 side
            j = int(self._missing_features[col - f])
            return Stump(j, self._threshold(k, j), sign, False)
        missing_right = None  # no missing value in training: the default side
        if self._has_missing[col]:  # the missing rows on the +1 side, except in the last split
            missing_right = bool(k <= self._last_present[col])
        return Stump(col, self._threshold(k, col), sign, missing_right)

    def _threshold(self, k: int, j: int) -> float:
        xs = self._sorted[:, j]
        if k == 0:
            return -np.inf
        if k >= self._last_present[j]:
            return np.inf
        return clean_threshold(float(xs[k - 1]), float(xs[k]))
