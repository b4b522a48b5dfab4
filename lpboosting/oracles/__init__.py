"""Pricing oracles and a registry by name."""

from __future__ import annotations

from typing import Any

from lpboosting.errors import UnknownOracleError
from lpboosting.oracles.base import Candidate, Oracle
from lpboosting.oracles.binned import BinnedStumps
from lpboosting.oracles.boosted_trees import BoostedTree, BoostedTrees
from lpboosting.oracles.columns import (
    CallableOracle,
    ColumnRef,
    Columns,
    HypothesisOracle,
)
from lpboosting.oracles.features import Features, ScaledFeature
from lpboosting.oracles.hist_trees import HistTrees
from lpboosting.oracles.stumps import Stump, Stumps
from lpboosting.oracles.trees import TreeHypothesis, Trees

__all__ = [
    "BoostedTree", "BoostedTrees", "CallableOracle", "Candidate", "ColumnRef", "Columns", "Features", "HypothesisOracle",
    "BinnedStumps", "HistTrees", "Oracle", "ScaledFeature", "Stump", "Stumps", "TreeHypothesis", "Trees",
    "ORACLES",
    "make_oracle",
]

#: oracles that can be named by a string
ORACLES: dict[str, type[Oracle]] = {"stumps": Stumps, "binned-stumps": BinnedStumps, "features": Features,
                                    "trees": Trees, "hist-trees": HistTrees, "gb-trees": BoostedTrees}


def make_oracle(spec: Any, X, y, sample_weight: Any = None, **params: Any) -> Oracle:
    """Build the oracle ``spec`` over training data (X, y with labels +-1).

    ``spec`` is a name in :data:`ORACLES` or a callable ``fn(X, y, d)``
    returning a hypothesis with ``predict``.  ``sample_weight`` (the fit's
    weights of the rows) goes to an oracle that is fitted on the rows
    (:attr:`Oracle.takes_sample_weight`, the forest of ``"gb-trees"``); the
    others price the master's distribution, which holds the weights already.
    """
    if isinstance(spec, str):
        key = spec.strip().lower()
        if key not in ORACLES:
            raise UnknownOracleError(
                f"unknown oracle {spec!r}; choose one of {sorted(ORACLES)} or pass a callable "
                "fn(X, y, d) that returns a hypothesis with predict(X)"
            )
        if sample_weight is not None and ORACLES[key].takes_sample_weight:
            params = {**params, "sample_weight": sample_weight}
        return ORACLES[key](X, y, **params)
    if callable(spec):
        return HypothesisOracle(spec, X, y, **params)
    raise UnknownOracleError(
        f"oracle must be one of {sorted(ORACLES)} or a callable fn(X, y, d), got {type(spec).__name__}"
    )
