"""Binned stumps priced on a Dask cluster: histograms per partition, summed on the client."""

from __future__ import annotations

import hashlib

import numpy as np

from lpboosting.dask import partition as part
from lpboosting.dask.frame import DaskFrame, PartitionedColumn
from lpboosting.oracles.base import Candidate, Oracle
from lpboosting.oracles.binned import BinnedStumps


class DaskBinnedStumps(BinnedStumps):
    """:class:`~lpboosting.oracles.BinnedStumps` over the partitions of a :class:`DaskFrame`.

    The same class of hypotheses and the same pricing: each partition sums
    d * y over the bins of every feature (one ``bincount`` a feature), the
    client adds the partitions' tables and reads every stump's edge off
    their cumulative sums, exactly as the in-memory oracle does from its
    one table.  Only the tables ((bins + 1) x F floats a partition) travel;
    a chosen stump's column is made on the workers
    (:class:`~lpboosting.dask.frame.PartitionedColumn`).  Exact over its
    class, as the in-memory oracle.
    """

    exact = True
    name = "binned-stumps"

    def __init__(self, frame: DaskFrame) -> None:
        Oracle.__init__(self, frame.n_samples)
        self.frame = frame
        self.max_bins = frame.max_bins
        self.thresholds, self.n_bins = frame.thresholds, frame.n_bins
        self._set_splits(frame.has_missing)

    def __getstate__(self) -> dict:
        raise TypeError("a DaskBinnedStumps oracle holds futures of a live cluster and does not pickle")

    @property
    def y(self) -> None:  # the labels stay on the workers
        return None

    def _bin_sums(self, d: np.ndarray, n_codes: int) -> tuple[np.ndarray, float]:
        frame = self.frame
        tables = frame.map(part.partition_bin_sums, frame.parts, vector=d, n_codes=n_codes)
        return np.sum([t for t, _ in tables], axis=0), float(np.sum([s for _, s in tables]))

    def _candidate(self, d: np.ndarray, e: np.ndarray, k: int, j: int) -> Candidate:
        stump = self._stump(k, j, 1.0 if e[k, j] >= 0 else -1.0)
        missing_left = j >= self.n_bins.size
        spec = (stump.feature, k, stump.sign, int(self.n_bins[stump.feature]), bool(missing_left))
        constant = stump.constant
        what = repr(("constant", constant)) if constant is not None else repr(stump)
        key = hashlib.blake2b(what.encode(), digest_size=16).digest()
        return Candidate(stump, PartitionedColumn(self.frame, spec, key), float(abs(e[k, j])))
