"""LP boosting on data partitioned over a Dask cluster (the optional extra ``lpboosting[dask]``)."""

from lpboosting.dask.classifier import DaskLPBoostClassifier
from lpboosting.dask.frame import DaskFrame, PartitionedColumn, PartitionedColumns
from lpboosting.dask.oracle import DaskBinnedStumps

__all__ = ["DaskBinnedStumps", "DaskFrame", "DaskLPBoostClassifier", "PartitionedColumn", "PartitionedColumns"]
