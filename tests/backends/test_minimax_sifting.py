"""RMBoost's sifting session (margin rows of a working set, columns as differences) against the full LP.

Every check uses a working set far smaller than n, so that rows must enter
and leave it: each answer must be the optimum of (16) over all n rows, with
the KKT conditions of the paper's form (16)-(17) checked by the independent
helper (scipy's statement of eq. (6), ``minimax_lp``).  Tolerances: HiGHS's
simplex answers to its feasibility tolerance 1e-7 on the row activities, the
interior point without crossover to ``ipm_optimality_tolerance`` 1e-10
relative (``highspy:ipm``); the objectives are compared to 1e-8 and the KKT
conditions to 1e-7.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lpboosting import column_generation
from lpboosting.backends import HighspyBackend
from lpboosting.backends.highs.minimax_sifting import HighsMinimaxSifting, minimax_session
from lpboosting.backends.highs.rmboost import HighsMinimaxLP
from lpboosting.masters import RMBoost
from lpboosting.datasets import twonorm
from lpboosting.oracles import Stumps, Trees
from tests.helpers import all_stump_columns, cancer_subset, check_kkt, minimax_lp

TOL = {"ipm": 1e-7, "dual": 1e-7}


def solve_growing(U: np.ndarray, y: np.ndarray, variant: str, working_size: int, lam: float | None = None):
    """Add U's columns one by one to a sifting session (no pool), solving after each; every answer
    is checked against scipy's LP over the columns so far and by the KKT conditions."""
    master = RMBoost(lam=lam, prune=False)
    s = HighsMinimaxSifting(master, U.shape[0], HighspyBackend(variant), working_size=working_size)
    lam_used = master.lam_for(U.shape[0])
    for j in range(U.shape[1]):
        s.add_column(U[:, j])
        sol = s.solve()
        assert sol.ok
        full = minimax_lp(y[:, None] * U[:, :j + 1], y, lam_used)
        assert sol.objective == pytest.approx(full["value"], abs=1e-8)
        check_kkt(sol, U[:, :j + 1], y, lam_used, TOL[variant])
        # rows outside W (now, after the trim: rows left only more than ``tight`` inside) carry no dual
        outside = ~s.in_w
        assert np.all(sol.info["alpha"][outside] <= 1e-9) and np.all(sol.info["beta"][outside] <= 1e-9)
    return s, sol


margin_matrices = st.integers(8, 60).flatmap(
    lambda n: st.integers(1, 7).flatmap(
        lambda t: arrays(np.float64, (n, t), elements=st.sampled_from([-1.0, 1.0, 1.0, -0.5, 0.25]))
    )
)


@settings(max_examples=60, deadline=None)
@given(U=margin_matrices, variant=st.sampled_from(["ipm", "dual"]), working_size=st.integers(1, 6),
       lam=st.sampled_from([None, 0.05, 0.3]), seed=st.integers(0, 10))
def test_sifting_equals_the_full_lp_property(U, variant, working_size, lam, seed):
    y = np.random.default_rng(seed).choice([-1.0, 1.0], U.shape[0])
    solve_growing(U, y, variant, working_size, lam)


@pytest.mark.parametrize("variant", ["ipm", "dual"])
def test_tree_columns_rows_leave_and_enter_the_working_set(variant):
    # trees separate the examples: W shrinks far below n, and rows come back as the weights move
    X, y = twonorm(400, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    backend = HighspyBackend(variant, working_size=20)
    res = column_generation(RMBoost(prune=False), Trees(X, y, max_leaf_nodes=3), backend=backend, max_rounds=60)
    lam = 1.0 / np.sqrt(y.size)
    assert res.objective == pytest.approx(minimax_lp(y[:, None] * res.columns, y, lam)["value"], abs=1e-8)
    working = [r.extra["working"] for r in res.history]
    assert working[0] == y.size and min(working) < y.size // 2
    assert sum(r.extra["entered"] for r in res.history[1:]) > 0
    # the final weights keep every margin within the bounds
    assert np.max(np.abs(res.columns @ res.weights)) <= 0.5 + 1e-7


def test_sample_weights_drop_rows_of_weight_zero():
    X, y = cancer_subset(120, 5, 4)
    U = all_stump_columns(X, y)[:, :12]
    weights = np.random.default_rng(1).integers(0, 3, y.size).astype(float)
    master = RMBoost(sample_weight=weights, prune=False)
    a = HighsMinimaxSifting(master, y.size, HighspyBackend("dual"), working_size=5)
    b = HighsMinimaxLP(master, y.size, HighspyBackend("dual"))
    for j in range(U.shape[1]):
        a.add_column(U[:, j])
        b.add_column(U[:, j])
        sa, sb = a.solve(), b.solve()
        assert sa.objective == pytest.approx(sb.objective, abs=1e-9)
        assert master.verify(sa, U[:, :j + 1]) == ""
        assert not np.any(a.in_w[weights == 0])


@pytest.mark.parametrize("variant", ["ipm", "dual"])
def test_column_generation_with_the_pool_reaches_the_lp_over_all_stumps(variant):
    X, y = cancer_subset(150, 4, 7)
    lam = 0.05
    backend = HighspyBackend(variant, working_size=10)
    res = column_generation(RMBoost(lam=lam, prune=True), Stumps(X, y), backend=backend, max_rounds=500)
    full = minimax_lp(y[:, None] * all_stump_columns(X, y), y, lam)
    assert res.status == "converged"
    assert res.objective == pytest.approx(full["value"], abs=1e-7)
    assert any(r.extra.get("removed", 0) for r in res.history)  # the pool removed columns
    assert max(r.extra["working"] for r in res.history) <= y.size


def test_the_session_is_chosen_by_the_number_of_constrained_rows():
    master = RMBoost()
    assert isinstance(minimax_session(master, 600, HighspyBackend("ipm")), HighsMinimaxSifting)
    assert isinstance(minimax_session(master, 400, HighspyBackend("ipm")), HighsMinimaxLP)
    assert isinstance(minimax_session(master, 400, HighspyBackend("ipm", working_size=100)), HighsMinimaxSifting)
    weights = np.r_[np.ones(300), np.zeros(300)]  # 300 constrained rows of 600
    assert isinstance(minimax_session(RMBoost(sample_weight=weights), 600, HighspyBackend()), HighsMinimaxLP)
    with pytest.raises(ValueError, match="working_size"):
        HighsMinimaxSifting(master, 600, HighspyBackend(), working_size=0)


@pytest.mark.parametrize("variant", ["ipm", "dual"])
def test_a_sample_of_the_rows_at_the_bound_still_gives_the_optimum(variant):
    # max_tight caps the rows at the bound that W takes (all n are at the bound with one column):
    # the answer is still the full LP's optimum, its duals an optimal dual of it (zero outside W)
    X, y = twonorm(300, random_state=1)
    y = np.where(y > 0, 1.0, -1.0)
    backend = HighspyBackend(variant, working_size=10, max_tight=40)
    res = column_generation(RMBoost(prune=False), Trees(X, y, max_leaf_nodes=3), backend=backend, max_rounds=30)
    lam = 1.0 / np.sqrt(y.size)
    assert res.objective == pytest.approx(minimax_lp(y[:, None] * res.columns, y, lam)["value"], abs=1e-8)
    assert res.history[0].extra["working"] <= 40
    assert max(r.extra["working"] for r in res.history) < y.size
