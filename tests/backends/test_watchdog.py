"""No HiGHS solve hangs: every simplex run is watched, and a stalled one is solved on by another method.

The three instances are those where HiGHS 1.16's warm-started dual simplex cycled
(hundreds of thousands of iterations on a 500-row master; reproducers/highs-dual-cycling):
the SoftBoost paper's synthetic data, the raw features as hypotheses, one column a round,
no smoothing.  They run here without any time limit and must end at the optimum of the LP
over all 200 hypotheses, solved independently (scipy's HiGHS on the soft-margin LP).
"""

from __future__ import annotations

import numpy as np
import pytest

import lpboosting.backends.highs.model as highs_model
from lpboosting import column_generation
from lpboosting.backends.highs.model import HighspyBackend
from lpboosting.datasets import softboost_synthetic
from lpboosting.masters import LPBoost
from lpboosting.oracles import Features
from tests.helpers import soft_margin_lp

CYCLING = [(13, 0.1), (20, 0.2), (34, 0.2)]


def instance(seed: int):
    X, y, _, _ = softboost_synthetic(random_state=seed)
    oracle = Features(X, y)
    # every hypothesis of the class: each scaled feature and its negation
    U = np.hstack([oracle._YH, -oracle._YH])
    return X, y, U


@pytest.fixture(scope="module")
def optima():
    return {(seed, nu): soft_margin_lp(instance(seed)[2], nu)["value"] for seed, nu in CYCLING}


@pytest.mark.parametrize("backend", ["highspy", "highspy:rows", "highspy:delta"])
@pytest.mark.parametrize("seed, nu", CYCLING)
def test_the_instances_where_the_dual_simplex_cycled_end_at_the_full_lps_optimum(seed, nu, backend, optima):
    X, y, _ = instance(seed)
    result = column_generation(LPBoost(nu), Features(X, y), backend=backend)  # no time limit
    assert result.status == "converged", result.message
    # both optima to HiGHS's feasibility and optimality tolerances (1e-7)
    assert result.objective == pytest.approx(optima[(seed, nu)], abs=1e-7)
    for record in result.history:
        assert "rejected" not in record.extra  # every answer, a rescue's too, passed the master's check
        if "watchdog" in record.extra:
            watched = record.extra["watchdog"]
            watched = watched if isinstance(watched, list) else [watched]
            assert all(w["rescued_by"] in ("primal simplex", "interior point") for w in watched)


def test_a_stalled_run_is_solved_on_by_the_primal_simplex_and_the_model_keeps_its_options(monkeypatch):
    """A budget of one iteration for the first run makes it stall: the rescue answers, the round's
    record says so, the answer is the optimum, and the model goes on with its own options."""
    X, y, U = instance(13)
    budgets = iter([1])
    monkeypatch.setattr(highs_model, "simplex_budget", lambda h: next(budgets, 10**6))
    master = LPBoost(0.1)
    session = HighspyBackend("rows").open(master, U.shape[0])
    for m in range(40):
        session.add_column(U[:, m])
    solution = session.solve()
    assert solution.ok and solution.record["watchdog"]["rescued_by"] == "primal simplex"
    assert solution.record["watchdog"]["stalled_iterations"] >= 1
    assert solution.objective == pytest.approx(soft_margin_lp(U[:, :40], 0.1)["value"], abs=1e-7)
    assert master.verify(solution, U[:, :40]) == ""
    h = session.model
    assert h.getOptionValue("simplex_strategy")[1] == 1 and h.getOptionValue("solver")[1] == "simplex"
    assert h.getOptionValue("simplex_iteration_limit")[1] == highs_model.NO_ITERATION_LIMIT


def test_a_models_own_iteration_limit_is_kept():
    """simplex_iteration_limit given by the user is the user's: no watchdog, HiGHS's status stands."""
    X, y, _ = instance(13)
    result = column_generation(LPBoost(0.1), Features(X, y), backend=HighspyBackend(simplex_iteration_limit=1))
    assert result.status == "solver_error" and "iteration_limit" in result.message
