"""(example, wrong class) pairs: the rows of the multiclass soft-margin master.

With K classes coded 0..K-1, example i has K - 1 pairs (i, k), one for each
class k != y_i, in ascending order of k; the pairs of all examples are laid
out example after example, so pair p = i (K - 1) + j and the K - 1 pairs of
an example are contiguous (a reshape to N x (K - 1) groups them).  A
hypothesis h: X -> {0..K-1} (a one-hot vote) has the pair column

    u_(i,k) = [h(x_i) = y_i] - [h(x_i) = k]            (entries -1, 0, 1: int8)

and under a distribution d over pairs its edge is

    d . u = sum_i D_i [h(x_i) = y_i] - sum_i d_(i, h(x_i)),   D_i = sum_k d_ik,

that is sum_i S[i, h(x_i)] with the class scores S[i, y_i] = D_i and
S[i, k] = -d_ik (:func:`class_scores`): pricing is a cost-sensitive
classification.  With K = 2 a pair is an example and u_i = y_i h(x_i) in
+-1 terms: LPBoost's column.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_class_codes", "check_n_classes", "class_scores", "example_margins", "example_mass", "n_examples",
           "pair_column", "pair_columns", "wrong_classes"]


def check_n_classes(n_classes: Any) -> int:
    """K as an int >= 2, or a ValueError."""
    try:
        K = int(n_classes)
    except (TypeError, ValueError):
        raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}") from None
    if K != n_classes or K < 2:
        raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}")
    return K


def check_class_codes(codes: Any, n_classes: int, what: str = "y") -> np.ndarray:
    """Class codes as an int array of 0..K-1 (a ValueError that says what is wrong otherwise)."""
    values = np.asarray(codes)
    if values.ndim != 1:
        raise ValueError(f"{what} must be a 1-D array of class codes 0..{n_classes - 1}, got shape {values.shape}")
    if values.size and (values.dtype.kind not in "iub"):
        as_float = np.asarray(values, dtype=float)
        if not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
            raise ValueError(f"{what} must hold class codes 0..{n_classes - 1} (integers); encode the labels "
                             "first, e.g. np.unique(labels, return_inverse=True)[1]")
        values = as_float
    out = values.astype(np.intp)
    if out.size and (out.min() < 0 or out.max() >= n_classes):
        raise ValueError(f"{what} must hold class codes 0..{n_classes - 1}, got values from {out.min()} to "
                         f"{out.max()}")
    return out


def n_examples(n_rows: int, n_classes: int) -> int:
    """The examples N of a master of ``n_rows`` = N (K - 1) pairs."""
    per = n_classes - 1
    if n_rows % per:
        raise ValueError(f"{n_rows} rows are not whole examples of {per} (example, wrong class) pairs each "
                         f"(K = {n_classes} classes)")
    return n_rows // per


def wrong_classes(y: np.ndarray, n_classes: int) -> np.ndarray:
    """N x (K - 1): the wrong classes of each example, ascending (pair (i, j) is (i, result[i, j]))."""
    y = np.asarray(y, dtype=np.intp)
    j = np.arange(n_classes - 1)
    return j[None, :] + (j[None, :] >= y[:, None])


def pair_columns(predicted: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """The pair columns of hypotheses whose predicted classes are the columns of ``predicted``
    (N x M codes; a vector is one hypothesis): N (K - 1) x M int8 (a vector for a vector)."""
    P = np.asarray(predicted, dtype=np.intp)
    vector = P.ndim == 1
    if vector:
        P = P[:, None]
    y = np.asarray(y, dtype=np.intp)
    wrong = wrong_classes(y, n_classes)  # N x (K-1)
    right = (P == y[:, None]).astype(np.int8)  # N x M
    out = right[:, None, :] - (P[:, None, :] == wrong[:, :, None]).astype(np.int8)  # N x (K-1) x M
    out = out.reshape(-1, P.shape[1])
    return out[:, 0].copy() if vector else np.asfortranarray(out)


def pair_column(predicted: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """The pair column (int8, N (K - 1)) of one hypothesis' predicted classes."""
    return pair_columns(np.asarray(predicted).ravel(), y, n_classes)


def example_mass(d: np.ndarray, n_classes: int) -> np.ndarray:
    """D_i = sum_k d_ik: the mass of each example's pairs."""
    d = np.asarray(d, dtype=float)
    return d.reshape(-1, n_classes - 1).sum(axis=1)


def class_scores(d: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """S (N x K): S[i, y_i] = D_i, S[i, k] = -d_ik; the edge of h is sum_i S[i, h(x_i)]."""
    y = np.asarray(y, dtype=np.intp)
    pairs = np.asarray(d, dtype=float).reshape(y.size, n_classes - 1)
    S = np.empty((y.size, n_classes))
    rows = np.repeat(np.arange(y.size), n_classes - 1)
    S[rows, wrong_classes(y, n_classes).ravel()] = -pairs.ravel()
    S[np.arange(y.size), y] = pairs.sum(axis=1)
    return S


def example_margins(pair_margins: np.ndarray, n_classes: int) -> np.ndarray:
    """Each example's margin: the least of its pairs' (the true class's vote minus the best other's)."""
    return np.asarray(pair_margins, dtype=float).reshape(-1, n_classes - 1).min(axis=1)


class PairRows:
    """What a master over pairs says of its rows (``n_classes`` set by the master): N (K - 1)
    rows for N examples, example after example."""

    n_classes: int

    def n_rows(self, n_examples: int) -> int:
        """N (K - 1): one row per (example, wrong class) pair."""
        return int(n_examples) * (self.n_classes - 1)

    def examples(self, n_rows: int) -> int:
        """The examples N of ``n_rows`` pairs."""
        return n_examples(int(n_rows), self.n_classes)
