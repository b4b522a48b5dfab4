"""The column pool: deletion of long-inactive columns, re-entry, and no cycling.

Every run with a pool is checked against the LP over the whole class solved
independently (scipy's HiGHS over every stump or pool column), and every
round's master against its own active columns.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lpboosting import LPBoostClassifier, RMBoostClassifier, column_generation
from lpboosting.backends import RecordingBackend
from lpboosting.backends.base import ColumnStore
from lpboosting.colgen import ColumnPool
from lpboosting.masters import LPBoost, RMBoost
from lpboosting.masters.pool import ALGORITHM_1, make_pool
from lpboosting.oracles import Columns, Stumps
from tests.helpers import (
    all_stump_columns, cancer_subset, check_optimality, DATASETS, graded_pool, minimax_lp, soft_margin_lp,
)

POOLS = [ColumnPool(1, 1), ColumnPool(3, 2), ColumnPool(1, 5)]


@pytest.mark.parametrize("pool", POOLS, ids=str)
@pytest.mark.parametrize("backend", ["highspy", "cvxpy:HIGHS"])
@pytest.mark.parametrize("data", sorted(DATASETS))
def test_lpboost_with_a_pool_reaches_the_full_lp(pool, backend, data):
    X, y = DATASETS[data]()
    nu = 0.2
    full = soft_margin_lp(all_stump_columns(X, y), nu)
    rec = RecordingBackend(backend)
    res = column_generation(LPBoost(nu, pool=pool), Stumps(X, y), backend=rec, tol=1e-9)
    assert res.converged
    assert res.objective == pytest.approx(full["value"], abs=1e-7)
    assert res.history[-1].gap <= 1e-9
    removed = sum(r.extra["removed"] for r in res.history)
    for record, sol in zip(res.history, rec.solutions):
        active = sol.control.active_columns
        # each master is optimal over the columns it was solved with; deleted columns weigh 0
        assert sol.weights.size == record.n_columns
        deleted = np.setdiff1d(np.arange(record.n_columns), active)
        assert np.all(sol.weights[deleted] == 0)
        sub = dataclasses.replace(sol, weights=sol.weights[active])
        check_optimality(sub, res.columns[:, active], nu, 1e-7)
        assert record.extra["active"] == active.size - record.extra["removed"]
    assert res.weights.size == res.columns.shape[1]
    # the ensemble's margins are those of the master (deleted hypotheses carry no weight)
    margins = res.columns @ res.weights
    assert np.sort(margins)[0] == pytest.approx(np.sort(res.columns[:, res.weights > 0]
                                                        @ res.weights[res.weights > 0])[0])
    assert removed <= res.columns.shape[1]


def test_a_deleted_column_reenters_when_priced_again_and_stays_after_max_removals():
    store = ColumnStore(3, keep_data=False, max_removals=2)
    u, v = np.array([1.0, -1.0, 1.0]), np.array([1.0, 1.0, -1.0])
    store.add(u)
    store.add(v)
    # inactive for 2 solves: due only once the count reaches inactive_rounds=2
    assert store.due([True, False], 2).size == 0
    assert store.due([True, False], 2).tolist() == [0]
    store.remove(np.array([0]))
    assert store.active == [1] and store.removed == [0]
    store.add(u)  # priced again: re-enters, still removable (1 removal of 2)
    assert store.reentered == 1 and store.removable == [True, True]
    store.remove(np.array([1]))
    store.add(u)  # removed twice: kept for good
    assert store.reentered == 2 and store.removable == [True, False]
    assert store.due([False, True], 1).size == 0
    # an activity resets the count
    store.add(v)
    assert store.due([True, False, True], 2).size == 0
    assert store.due([False, False, True], 2).tolist() == [2]
    assert store.idle == [0, 0, 2]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("pool", POOLS, ids=str)
def test_rmboost_pool_policies_reach_the_full_lp_without_cycling(seed, pool):
    y, columns = graded_pool(50, 20, seed)
    lam = 0.1
    full = minimax_lp(y[:, None] * columns, y, lam)
    for backend in ("dedicated", "highspy", "highspy:ipm", "cvxpy:HIGHS"):
        res = column_generation(RMBoost(lam, prune=pool), Columns(columns), backend=backend,
                                tol=1e-10, max_rounds=500)
        assert res.converged, backend
        assert res.objective == pytest.approx(full["value"], abs=1e-7), backend
        # no cycling: each of the 40 columns is deleted at most max_removals times
        removed = sum(r.extra["removed"] for r in res.history)
        assert removed <= columns.shape[1] * pool.max_removals
        assert res.history[-1].extra["reentered"] <= removed


def test_prune_true_is_algorithm_1_and_false_keeps_every_column():
    assert RMBoost(0.1, prune=True).pool == ALGORITHM_1 == ColumnPool(inactive_rounds=1, max_removals=1)
    assert RMBoost(0.1, prune=False).pool is None and RMBoost(0.1).pool is None  # the default keeps all
    assert RMBoost(0.1, prune=ColumnPool(4, 2)).params() == {
        "lam": 0.1, "prune": {"inactive_rounds": 4, "max_removals": 2}}
    assert LPBoost(0.2).pool is None and LPBoost(0.2).params() == {"nu": 0.2}
    assert LPBoost(0.2, pool={"inactive_rounds": 5}).pool == ColumnPool(5, 1)
    X, y = cancer_subset(80, 5, 0)
    kept = column_generation(RMBoost(prune=False), Stumps(X, y), backend="highspy:ipm", max_rounds=300)
    assert sum(r.extra["removed"] for r in kept.history) == 0


@pytest.mark.parametrize("bad, match", [
    ({"inactive_rounds": 0}, "inactive_rounds must be an integer >= 1"),
    ({"max_removals": 1.5}, "max_removals must be an integer >= 1"),
    ({"inactive_rounds": True}, "inactive_rounds must be an integer >= 1"),
])
def test_bad_pools_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        ColumnPool(**bad)
    with pytest.raises(ValueError, match=match):
        LPBoost(0.1, pool=bad)


def test_make_pool_rejects_what_it_does_not_know():
    assert make_pool(None) is None and make_pool(False) is None and make_pool(True) is ALGORITHM_1
    with pytest.raises(ValueError, match="unknown ColumnPool field"):
        make_pool({"rounds": 3})
    with pytest.raises(ValueError, match="must be None, False, True, a ColumnPool"):
        make_pool("often")
    with pytest.raises(ValueError, match="prune must be True, False or a ColumnPool"):
        RMBoost(0.1, prune="yes")


def test_the_classifiers_take_a_pool():
    X, y = cancer_subset(120, 6, 1)
    plain = LPBoostClassifier(nu=0.2).fit(X, y)
    pooled = LPBoostClassifier(nu=0.2, pool=ColumnPool(2, 2)).fit(X, y)
    assert pooled.status_ == plain.status_ == "converged"
    assert pooled.objective_ == pytest.approx(plain.objective_, abs=1e-7)
    assert pooled.history_.meta["params"]["pool"] == {"inactive_rounds": 2, "max_removals": 2}
    assert sum(r.extra["removed"] for r in pooled.history_) > 0
    np.testing.assert_allclose(pooled.decision_function(X) @ np.ones(y.size),
                               pooled.decision_function(X).sum())
    rm = RMBoostClassifier(oracle="stumps", prune=ColumnPool(5, 2)).fit(X, y)
    assert rm.status_ == "converged"
    with pytest.raises(ValueError, match="pool"):
        LPBoostClassifier(pool=3).fit(X, y)
