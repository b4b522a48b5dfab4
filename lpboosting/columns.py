"""Margin columns stored compactly: int8 for stump and tree columns, products in row chunks.

A stump's or a tree's margin column u_n = y_n h(x_n) is +-1; as int8 it
takes one byte an example instead of eight.  A matrix of such columns is
never converted to float64 as a whole: :func:`weighted_sum` (U w) and
:func:`gram` (A^T B) work on blocks of rows, so their temporaries stay
near :data:`CHUNK_BYTES` whatever N is.  Sums of int8 entries in float32
are exact while they stay below 2^24 (N < 16 777 216 for +-1 columns).

A column matrix need not be a numpy array: one kept elsewhere (e.g. in the
partitions of a Dask cluster, :mod:`lpboosting.dask`) is any object with
``shape`` and the methods ``weighted_sum(index, weights, rows)``,
``column_dots(d, index)`` and ``take(rows, index)`` (the entries at those
rows, as a numpy array); the functions here hand such a matrix its own
method, so the masters and sessions that use them work on it unchanged,
and only the rows they ask for travel.
"""

from __future__ import annotations

import numpy as np

#: size of the float temporaries of one block of rows: a few megabytes, so that a block converted
#: from int8 is still in the processor's cache when the product reads it, and the allocator hands
#: the next block the same memory (a temporary of tens of megabytes is mapped afresh from the
#: operating system every time, and its pages are faulted in again)
CHUNK_BYTES = 1 << 22


def is_sign_valued(u: np.ndarray) -> bool:
    """True when every entry of u is -1, 0 or 1 (the column fits int8 exactly)."""
    return bool(np.all((u == 1.0) | (u == -1.0) | (u == 0.0)))


def is_sign_column(u: object) -> bool:
    """True when every entry of the column u is -1 or 1 (a column kept elsewhere says so itself)."""
    if not is_array(u):
        return bool(getattr(u, "is_sign", False))
    return bool(np.all(np.abs(u) == 1.0))


def compact(u: np.ndarray) -> np.ndarray:
    """u as int8 when its entries are -1, 0, 1; otherwise u itself (float)."""
    u = np.asarray(u)
    if u.dtype == np.int8:
        return u
    return u.astype(np.int8) if is_sign_valued(u) else np.asarray(u, dtype=float)


def stack(columns: list[np.ndarray], n_rows: int) -> np.ndarray:
    """The columns side by side (N x T, Fortran order): int8 when all are, float64 otherwise."""
    if not columns:
        return np.empty((n_rows, 0))
    dtype = np.int8 if all(c.dtype == np.int8 for c in columns) else np.float64
    out = np.empty((n_rows, len(columns)), dtype=dtype, order="F")
    for j, c in enumerate(columns):
        out[:, j] = c
    return out


def is_array(U: object) -> bool:
    """True for a numpy array; False for a column matrix kept elsewhere (see the module docstring)."""
    return isinstance(U, np.ndarray)


def take_rows(U: np.ndarray, rows: np.ndarray, index: "np.ndarray | slice") -> np.ndarray:
    """U[rows, index] as a numpy array (only those rows fetched from a matrix kept elsewhere).

    When ``rows`` are all of U's rows in order (a session whose working set
    holds every example) a slice of columns is a view of U, not a copy: the
    callers only read it."""
    rows = np.asarray(rows, dtype=np.intp)
    if is_array(U):
        if rows.size == U.shape[0] and (rows.size == 0 or bool(np.all(rows == np.arange(rows.size)))):
            return U[:, index] if isinstance(index, slice) else U[:, np.asarray(index, dtype=np.intp)]
        return U[rows, index] if isinstance(index, slice) else U[np.ix_(rows, np.asarray(index, dtype=np.intp))]
    if isinstance(index, slice):
        index = np.arange(U.shape[1])[index]
    return U.take(rows, np.asarray(index, dtype=np.intp))


def edges_at(d: np.ndarray, columns: list) -> list[float]:
    """d . u of each column; columns kept elsewhere in one pass over their matrix (``column_dots``)."""
    if columns and not is_array(columns[0]) and hasattr(columns[0], "new_matrix"):
        matrix = columns[0].new_matrix()
        for u in columns:
            matrix.append(u)
        return [float(e) for e in matrix.column_dots(d, np.arange(len(columns)))]
    return [float(d @ u) for u in columns]


def snapshot(U: np.ndarray) -> np.ndarray:
    """A copy of U (Fortran order) that later columns do not change; a matrix kept elsewhere as it is
    (its view of these columns; its entries stay where they are)."""
    return np.array(U, order="F") if is_array(U) else U


def _rows_per_block(width: int, itemsize: int = 8) -> int:
    return max(1, CHUNK_BYTES // max(1, width * itemsize))


def weighted_sum(U: np.ndarray, index: np.ndarray, weights: np.ndarray,
                 rows: np.ndarray | None = None) -> np.ndarray:
    """sum_j weights_j U[:, index_j] in float64, block by block of rows (U may be int8);
    only at ``rows`` when given."""
    index = np.asarray(index, dtype=np.intp)
    weights = np.asarray(weights, dtype=float)
    if not is_array(U):
        return U.weighted_sum(index, weights, None if rows is None else np.asarray(rows, dtype=np.intp))
    out = np.zeros(U.shape[0] if rows is None else len(rows))
    if index.size == 0:
        return out
    if U.dtype != np.int8:
        return (U[:, index] if rows is None else U[np.ix_(rows, index)]) @ weights
    step = _rows_per_block(index.size)
    for start in range(0, out.size, step):
        if rows is None:
            block = U[start:start + step, index]
        else:
            block = U[np.ix_(rows[start:start + step], index)]
        out[start:start + step] = block.astype(float) @ weights
    return out


def column_dots(U: np.ndarray, d: np.ndarray, index: np.ndarray | None = None) -> np.ndarray:
    """U[:, index]^T d in float64, block by block of rows (U may be int8; all columns without index).

    Only the rows where d is not 0 are read when they are at most an eighth
    of them (a capped distribution at an optimum is 0 on most examples): the
    same sums, added in another order.  Rows gathered from all over the
    matrix cost several times rows read in order, so a larger support reads
    every row."""
    d = np.asarray(d, dtype=float)
    cols = np.arange(U.shape[1]) if index is None else np.asarray(index, dtype=np.intp)
    if not is_array(U):
        return U.column_dots(d, cols)
    support = np.flatnonzero(d)
    sparse = 8 * support.size <= d.size
    if U.dtype != np.int8:
        return U[np.ix_(support, cols)].T @ d[support] if sparse else U[:, cols].T @ d
    out = np.zeros(cols.size)
    step = _rows_per_block(max(1, cols.size))
    if sparse:
        for start in range(0, support.size, step):
            rows = support[start:start + step]
            out += U[np.ix_(rows, cols)].astype(float).T @ d[rows]
        return out
    for start in range(0, U.shape[0], step):
        out += U[start:start + step, cols].astype(float).T @ d[start:start + step]
    return out


#: rows from which :func:`approximate_sum` screens in float32 (below, weighted_sum alone is cheap)
SCREEN_ROWS = 100_000


def approximate_sum(U: np.ndarray, index: np.ndarray, weights: np.ndarray,
                    rows: np.ndarray | None = None) -> tuple[np.ndarray, float] | None:
    """sum_j weights_j U[:, index_j] in float32 and a bound on its error, or None (use weighted_sum);
    only at ``rows`` when given.

    For an int8 U of at least :data:`SCREEN_ROWS` rows: the entries are
    exact in float32, the weights are rounded once (relative error u =
    2^-24) and a sum of T products in any order errs by at most
    T u / (1 - T u) times the sum of |products| (Higham, *Accuracy and
    Stability of Numerical Algorithms*, 2nd ed., section 3.1); with |U| <= 1 the
    returned bound, twice (T + 2) u sum_j |weights_j|, covers both.  Half
    the bytes of :func:`weighted_sum`'s float64 blocks, for a check that
    needs the exact sum only near a threshold (:func:`screened_sum`).
    """
    if not is_array(U) or U.dtype != np.int8 or U.shape[0] < SCREEN_ROWS:
        return None
    index = np.asarray(index, dtype=np.intp)
    w32 = np.asarray(weights, dtype=np.float32)
    out = np.zeros(U.shape[0] if rows is None else len(rows))
    step = _rows_per_block(max(1, index.size), 4)
    for start in range(0, out.size if index.size else 0, step):
        block = U[start:start + step, index] if rows is None else U[np.ix_(rows[start:start + step], index)]
        out[start:start + step] = block.astype(np.float32) @ w32
    unit = 2.0 ** -24
    bound = 2.0 * (index.size + 2) * unit * float(np.sum(np.abs(weights)))
    return out, bound


def screened_sum(U: np.ndarray, index: np.ndarray, weights: np.ndarray, below: float,
                 rows: np.ndarray | None = None, above: float = -np.inf) -> np.ndarray:
    """sum_j weights_j U[:, index_j] (only at ``rows`` when given): exact (as :func:`weighted_sum`)
    at every row where it lies in [``above``, ``below``], and elsewhere on the same side of that
    interval for certain and within :func:`approximate_sum`'s bound.

    What a sifting check needs: the examples on either side of a threshold
    for certain, the exact margins below it (their slacks), and an order of
    the others."""
    screened = approximate_sum(U, index, weights, rows)
    if screened is None:
        return weighted_sum(U, index, weights, rows)
    out, bound = screened
    near = np.flatnonzero((out <= below + bound) & (out >= above - bound))
    out[near] = weighted_sum(U, index, weights, rows=near if rows is None else np.asarray(rows)[near])
    return out


def gram(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A^T B (A: N x p, B: N x q) without converting either to float64 as a whole.

    Exact for int8 entries (float32 block products of integers, summed in float64).
    """
    if A.dtype != np.int8 or B.dtype != np.int8:
        return np.asarray(A, dtype=float).T @ np.asarray(B, dtype=float)
    out = np.zeros((A.shape[1], B.shape[1]))
    step = _rows_per_block(A.shape[1] + B.shape[1], 4)
    step = min(step, 1 << 23)  # float32 sums of +-1 stay exact below 2^24
    for start in range(0, A.shape[0], step):
        a = A[start:start + step].astype(np.float32)
        b = B[start:start + step].astype(np.float32)
        out += a.T @ b
    return out


def closest_references(data: np.ndarray, rows: np.ndarray, first: int, is_sign: "list[bool] | np.ndarray"
                       ) -> list[tuple[int, float]]:
    """The difference encoding's references of the columns ``first, first + 1, ...`` of ``data``.

    For each such column j, when it and an earlier column are +-1: the earlier
    +-1 column r with the largest |u_j . u_r| on ``rows``, and s = sign of
    that product, so that u_j - s u_r is zero wherever the two agree (up to
    sign); (-1, 0.0) where there is none (the first column, a column that is
    not +-1, or no rows).  ``is_sign`` says of every column so far whether
    it is +-1.
    """
    is_sign = np.asarray(is_sign, dtype=bool)
    size = is_sign.size
    block = take_rows(data, rows, slice(0, size)) if rows.size else None
    dots = gram(block[:, first:size], block) if rows.size else None
    out = []
    for offset, j in enumerate(range(first, size)):
        ref, s = -1, 0.0
        if is_sign[j] and dots is not None and is_sign[:j].any():
            row = np.abs(dots[offset, :j])
            row[~is_sign[:j]] = -1.0
            ref = int(np.argmax(row))
            s = float(np.sign(dots[offset, ref]) or 1.0)
        out.append((ref, s))
    return out
