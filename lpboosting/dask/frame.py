"""The training rows on a Dask cluster, and the margin columns made from them.

:class:`DaskFrame` keeps, per partition of the data, the binned feature codes
and the labels +-1 on the workers (the raw features are dropped once
binned).  The client keeps the bins, the partitions' sizes, vectors of one
entry a row (the distribution d, the margins of a check: 8 bytes a row) and
the rows its master's session reads (:class:`RowCache`); the workers keep
the features' F bytes a row, whatever the number of hypotheses.

:class:`PartitionedColumn` is one margin column u = y h(x) of a binned
stump, made on the workers from the codes whenever it is read (its values
are never stored); :class:`PartitionedColumns` is the N x t
matrix of them that the master's session reads through
:mod:`lpboosting.columns` (``weighted_sum``, ``column_dots``, ``take``): the
margins of the ensemble and the edges are computed where the rows are, and
only the rows a session asks for (its working set and the examples that
enter it) travel to the client.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import numpy as np

from lpboosting.dask import partition as part
from lpboosting.oracles.binned import bin_thresholds, check_max_bins

#: the rows the bins are computed from, drawn across the partitions (LightGBM's
#: ``bin_construct_sample_cnt``); with at most this many rows, every row
BIN_SAMPLE = 200_000


def import_dask() -> Any:
    """dask.array and distributed, or an ImportError that says how to install them."""
    try:
        import dask.array as da
        import distributed
    except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
        raise ImportError("lpboosting's Dask classifiers need dask and distributed: "
                          "pip install 'lpboosting[dask]'") from exc
    return da, distributed


def as_dask_arrays(X: Any, y: Any, client: Any) -> tuple[Any, Any, list[str] | None]:
    """X (dask array or DataFrame, or numpy) as a dask array with one chunk of columns, y (dask array
    or Series, or numpy) chunked as X's rows, and the feature names of a DataFrame."""
    da, _ = import_dask()
    names = None
    if hasattr(X, "to_dask_array"):  # a dask DataFrame
        names = [str(c) for c in X.columns]
        X = X.to_dask_array(lengths=True)
    elif not isinstance(X, da.Array):
        if hasattr(X, "columns"):  # a pandas DataFrame
            names = [str(c) for c in X.columns]
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (rows x features), got shape {X.shape}")
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        X = da.from_array(X, chunks=(max(1, -(-X.shape[0] // (2 * workers))), X.shape[1]))
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (rows x features), got {X.ndim} dimensions")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    X = X.rechunk({1: -1})
    if hasattr(y, "to_dask_array"):  # a dask Series
        y = y.to_dask_array(lengths=True)
    elif not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got shape {y.shape}")
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got shape {y.shape}")
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    return X, y, names


class DaskFrame:
    """Binned features and labels of the training rows, one partition per chunk of rows of X.

    ``thresholds`` (one array per feature, as
    :func:`lpboosting.oracles.binned.bin_features` gives) fixes the bins;
    without it they are computed by :func:`~lpboosting.oracles.binned.bin_thresholds`
    from ``bin_sample`` rows drawn across the partitions (every row when
    there are no more: then the bins are those of the in-memory
    ``oracle="binned-stumps"``).  The labels must be two classes; the larger
    one (numpy's order) is +1.
    """

    def __init__(self, client: Any, X: Any, y: Any, max_bins: int = 255, thresholds: list[np.ndarray] | None = None,
                 bin_sample: int = BIN_SAMPLE, random_state: int = 0) -> None:
        check_max_bins(max_bins)
        self.client = client
        X, y, self.feature_names = as_dask_arrays(X, y, client)
        self.sizes = np.asarray(X.chunks[0], dtype=np.intp)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.intp)
        self.n_samples = int(self.offsets[-1])
        self.n_features = int(X.shape[1])
        self.max_bins = int(max_bins)
        raw_X = client.compute(list(X.to_delayed().ravel()))
        raw_y = client.compute(list(y.to_delayed().ravel()))
        facts = client.gather(client.map(part.partition_facts, raw_X, raw_y))
        self.classes = self._check(facts)
        missing = np.any([f["missing"] for f in facts if f["rows"]], axis=0)
        self.has_missing = np.asarray(missing, dtype=bool).reshape(self.n_features)
        if thresholds is None:
            thresholds = self._bins(raw_X, int(bin_sample), int(random_state))
        elif len(thresholds) != self.n_features:
            raise ValueError(f"thresholds must hold one array per feature ({self.n_features}), got {len(thresholds)}")
        self.thresholds = [np.asarray(t, dtype=float) for t in thresholds]
        self.n_bins = np.array([t.size + 1 for t in self.thresholds])
        self.parts = client.map(part.encode_partition, raw_X, raw_y, thresholds=self.thresholds,
                                max_bins=self.max_bins, missing_bin=bool(self.has_missing.any()),
                                positive=self.classes[1], pure=False)
        client.gather(self.parts)  # binned everywhere: the raw partitions can go
        del raw_X, raw_y
        self._vector: tuple[bytes, list[Any]] | None = None
        #: seconds spent in :meth:`map` calls, by the name of the function run on the partitions
        self.seconds: dict[str, float] = {}
        #: the rows the master's session reads (its working set), kept on the client
        self.row_cache = RowCache(self)

    @property
    def n_partitions(self) -> int:
        return self.sizes.size

    def _check(self, facts: list[dict[str, Any]]) -> np.ndarray:
        for f in facts:
            if f["shape"] is not None:
                raise ValueError(f"a partition of X and y do not match: shapes {f['shape']}")
        if self.n_samples == 0:
            raise ValueError("X has no rows; fit needs at least two rows of two classes")
        if any(f["infinite"] for f in facts if f["rows"]):
            raise ValueError("X contains infinity; replace it (NaN is a missing value and is allowed)")
        labels = [f["labels"] for f in facts if f["rows"]]
        classes = np.unique(np.concatenate(labels))
        if classes.size != 2:
            raise ValueError(f"the Dask classifiers fit two classes; y holds {classes.size} "
                             f"({', '.join(map(repr, classes[:5].tolist()))}{', ...' if classes.size > 5 else ''})")
        return classes

    def _bins(self, raw_X: list[Any], sample: int, seed: int) -> list[np.ndarray]:
        """Thresholds of every feature from ``sample`` rows drawn across the partitions, each
        partition in proportion to its rows."""
        share = self.sizes if self.n_samples <= sample else np.floor(self.sizes * (sample / self.n_samples))
        rows = self.client.gather(self.client.map(part.sample_rows, raw_X, [int(s) for s in share],
                                                  [seed + p for p in range(self.n_partitions)]))
        X = np.concatenate([r for r in rows if r.shape[0]], axis=0)
        return [bin_thresholds(X[~np.isnan(X[:, j]), j], self.max_bins) for j in range(self.n_features)]

    # ---- vectors of one entry a row --------------------------------------------------------

    def split(self, v: np.ndarray) -> list[Any]:
        """v (one entry a row) as one future a partition, on the workers; the last vector split is
        reused while its values are the same (the loop hands the same d to several calls)."""
        v = np.ascontiguousarray(v, dtype=float)
        if v.shape != (self.n_samples,):
            raise ValueError(f"a vector over the rows must have shape ({self.n_samples},), got {v.shape}")
        key = hashlib.blake2b(v.tobytes(), digest_size=16).digest()
        if self._vector is None or self._vector[0] != key:
            pieces = [v[a:b] for a, b in zip(self.offsets[:-1], self.offsets[1:])]
            self._vector = (key, self.client.scatter(pieces))
        return self._vector[1]

    def map_rows(self, func: Any, rows: np.ndarray, out: np.ndarray, **kwargs: Any) -> np.ndarray:
        """``func(partition, local_rows, **kwargs)`` on the partitions that hold these (global) rows,
        its results written into ``out`` at the rows' positions; returns ``out``."""
        rows = np.asarray(rows, dtype=np.intp)
        if not rows.size:
            return out
        if rows.min() < 0 or rows.max() >= self.n_samples:
            raise IndexError(f"row index out of range for {self.n_samples} rows")
        p = np.searchsorted(self.offsets, rows, side="right") - 1
        local = rows - self.offsets[p]
        holding = np.unique(p)
        where = [np.flatnonzero(p == q) for q in holding]
        results = self.map(func, [self.parts[q] for q in holding], [local[w] for w in where], **kwargs)
        for w, values in zip(where, results):
            out[w] = values
        return out

    def map(self, func: Any, *per_partition: list[Any], vector: np.ndarray | None = None,
            retries: int = 2, **kwargs: Any) -> list[Any]:
        """``func`` on every partition (its arguments per partition, then the partition's piece of
        ``vector`` when given), the results gathered.  When a worker is lost the call is made again
        (up to ``retries`` times): the partitions and columns are recomputed by Dask from their
        lineage, the vector is scattered again."""
        start = time.perf_counter()
        try:
            return self._map(func, per_partition, vector, retries, kwargs)
        finally:
            name = getattr(func, "__name__", "task")
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def _map(self, func: Any, per_partition: tuple[list[Any], ...], vector: np.ndarray | None, retries: int,
             kwargs: dict[str, Any]) -> list[Any]:
        for attempt in range(retries + 1):
            args = list(per_partition)
            if vector is not None:
                args.append(self.split(vector))
            futures = [self.client.submit(func, *a, pure=False, **kwargs) for a in zip(*args)]
            try:
                return self.client.gather(futures)
            except Exception as exc:  # a lost worker: its scattered pieces cannot be recomputed
                if attempt == retries or not _lost_worker(exc):
                    raise
                self._vector = None
        raise AssertionError("unreachable")  # pragma: no cover


def _lost_worker(exc: BaseException) -> bool:
    """Is this the error of a task whose worker or data went away (worth a retry)?"""
    _, distributed = import_dask()
    from distributed.client import FutureCancelledError

    kinds = (distributed.scheduler.KilledWorker, FutureCancelledError, OSError)
    return isinstance(exc, kinds) or "lost" in str(exc).lower() or "cancel" in str(exc).lower()


class RowCache:
    """The entries of the rows a session reads often (its working set), kept on the client.

    A block of rows R x columns C: a read of rows and columns fetches only
    the new rows (for C and the columns asked for) and the new columns (for
    R), so a working set's rows travel once and then only the new columns'
    entries do.  Above ``max_rows`` rows it starts again from the rows of
    the read.
    """

    def __init__(self, frame: "DaskFrame", max_rows: int = 50_000) -> None:
        self.frame, self.max_rows = frame, int(max_rows)
        self.clear()

    def clear(self) -> None:
        self.rows = np.empty(0, dtype=np.intp)  # sorted
        #: the columns held (the cache keeps them alive, so their ids stay theirs) and their positions
        self.columns: list["PartitionedColumn"] = []
        self.keys: dict[int, int] = {}
        self.block = np.empty((0, 0), dtype=np.int8)  # rows x columns

    def take(self, rows: np.ndarray, columns: list["PartitionedColumn"]) -> np.ndarray:
        wanted = np.unique(rows)
        if np.union1d(self.rows, wanted).size > self.max_rows:
            self.clear()
        new_columns = list({id(c): c for c in columns if id(c) not in self.keys}.values())
        if new_columns:  # the new columns on the rows held
            fetched = self._fetch(self.rows, new_columns)
            self.block = np.hstack([self.block, fetched])
            for c in new_columns:
                self.keys[id(c)] = len(self.columns)
                self.columns.append(c)
        new_rows = np.setdiff1d(wanted, self.rows, assume_unique=True)
        if new_rows.size:  # every column held on the new rows
            fetched = self._fetch(new_rows, self.columns)
            merged = np.concatenate([self.rows, new_rows])
            order = np.argsort(merged, kind="stable")
            self.rows = merged[order]
            self.block = np.vstack([self.block, fetched])[order]
        at = np.searchsorted(self.rows, rows)
        return self.block[np.ix_(at, [self.keys[id(c)] for c in columns])]

    def _fetch(self, rows: np.ndarray, columns: list["PartitionedColumn"]) -> np.ndarray:
        """The columns' entries at these rows, from the partitions that hold them."""
        out = np.zeros((rows.size, len(columns)), dtype=np.int8)
        if not columns:
            return out
        return self.frame.map_rows(part.block_take, rows, out, specs=[c.spec for c in columns])


class PartitionedColumn:
    """One margin column u = y h(x) of a binned stump, made on the workers from their binned codes
    whenever it is read (``spec``, :data:`lpboosting.dask.partition.Spec`): no column is stored, so
    a worker holds its binned rows whatever the number of hypotheses.

    ``key`` identifies it (the hypothesis); ``d @ column`` is its edge,
    computed where the rows are.
    """

    __array_ufunc__ = None  # numpy hands ``d @ column`` to __rmatmul__
    is_sign = True
    dtype = np.dtype(np.int8)

    def __init__(self, frame: DaskFrame, spec: part.Spec, key: bytes) -> None:
        self.frame, self.spec, self.key = frame, spec, key

    @property
    def shape(self) -> tuple[int]:
        return (self.frame.n_samples,)

    def __rmatmul__(self, d: np.ndarray) -> float:
        return float(PartitionedColumns(self.frame, [self]).column_dots(d, np.array([0]))[0])

    def new_matrix(self) -> "PartitionedColumns":
        return PartitionedColumns(self.frame)

    def to_numpy(self) -> np.ndarray:
        """The whole column on the client (for checks on small data)."""
        blocks = self.frame.map(part.columns_of, self.frame.parts, specs=[self.spec])
        return np.concatenate([b[:, 0] for b in blocks])


class PartitionedColumns:
    """The N x t matrix of :class:`PartitionedColumn`, read through :mod:`lpboosting.columns`.

    ``U[:, :t]`` is the matrix of the first t columns and
    ``U[:, j]`` column j; every other read names its rows (``take``) or is
    a sum over the rows computed on the workers.  ``np.asarray(U)`` gathers
    the whole matrix (for checks on small data).
    """

    dtype = np.dtype(np.int8)
    ndim = 2

    def __init__(self, frame: DaskFrame, columns: list[PartitionedColumn] | None = None) -> None:
        self.frame = frame
        self.columns = list(columns or [])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.frame.n_samples, len(self.columns))

    def append(self, column: PartitionedColumn) -> None:
        self.columns.append(column)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], slice) and key[0] == slice(None):
            index = key[1]
            if isinstance(index, (int, np.integer)):
                return self.columns[int(index)]
            if isinstance(index, slice):
                return PartitionedColumns(self.frame, self.columns[index])
            return PartitionedColumns(self.frame, [self.columns[int(j)] for j in np.asarray(index).ravel()])
        raise TypeError("the columns are kept on the Dask workers: read whole columns (U[:, j], U[:, a:b]), "
                        "or rows by lpboosting.columns.take_rows")

    def _specs(self, index: np.ndarray) -> list[part.Spec]:
        return [self.columns[int(j)].spec for j in index]

    def column_dots(self, d: np.ndarray, index: np.ndarray) -> np.ndarray:
        """U[:, index]^T d, each partition's share summed on the client."""
        index = np.asarray(index, dtype=np.intp)
        if not index.size:
            return np.zeros(0)
        sums = self.frame.map(part.block_dots, self.frame.parts, vector=d, specs=self._specs(index))
        return np.sum(sums, axis=0)

    def weighted_sum(self, index: np.ndarray, weights: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """sum_j weights_j U[:, index_j] (at ``rows`` only, when given)."""
        index = np.asarray(index, dtype=np.intp)
        weights = np.asarray(weights, dtype=float)
        if rows is not None:
            return self._weighted_sum_at(index, weights, np.asarray(rows, dtype=np.intp))
        if not index.size:
            return np.zeros(self.frame.n_samples)
        frame = self.frame
        return np.concatenate(frame.map(part.block_margins, frame.parts, specs=self._specs(index),
                                        weights=weights))

    def _weighted_sum_at(self, index: np.ndarray, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The weighted sum at these rows: from the row cache when it holds them all, else computed
        on the partitions that hold them (only the sums travel)."""
        out = np.zeros(rows.size)
        if not index.size or not rows.size:
            return out
        if np.isin(rows, self.frame.row_cache.rows).all():
            return self.take(rows, index).astype(float) @ weights
        return self.frame.map_rows(part.block_margins_at, rows, out, specs=self._specs(index), weights=weights)

    def take(self, rows: np.ndarray, index: np.ndarray) -> np.ndarray:
        """U[rows, index] (int8), from the frame's :class:`RowCache`: only the entries it does not hold
        are fetched from the partitions that hold those rows."""
        rows = np.asarray(rows, dtype=np.intp)
        index = np.asarray(index, dtype=np.intp)
        if not rows.size or not index.size:
            return np.zeros((rows.size, index.size), dtype=np.int8)
        return self.frame.row_cache.take(rows, [self.columns[int(j)] for j in index])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.column_stack([c.to_numpy() for c in self.columns]) if self.columns else \
            np.empty((self.frame.n_samples, 0), dtype=np.int8)
        return out if dtype is None else out.astype(dtype)
