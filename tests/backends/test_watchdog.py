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


# -- an interior point run that ends without an answer --------------------------------------------
def duplicate_rows_model():
    """RMBoost's first master as the ``highspy:ipm`` session writes it, with 5 000 margin rows that
    are one row up to sign (``reproducers/highs-ipm-unknown``, built in a model with the session's
    options).  On 50 000 twonorm rows at lam 0.0316, HiGHS 1.16's interior point without presolve
    ended it with status "Unknown" (so does this order of the rows); presolve removes the
    duplicate rows.  The model and its optimum."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "reproducers" / "highs-ipm-unknown" / "unknown.py"
    spec = importlib.util.spec_from_file_location("highs_ipm_unknown", path)
    reproducer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reproducer)
    return reproducer.build(HighspyBackend("ipm").new_model()), reproducer.OPTIMUM


def test_an_interior_point_run_without_an_answer_is_run_again_after_presolve():
    # whether or not this HiGHS still ends the first run without an answer, the watched run ends at
    # the optimum (to the interior point's tolerance, 1e-10, and the rows' feasibility, 1e-7) and
    # the model keeps its options: no presolve, no crossover (central duals)
    import highspy

    h, optimum = duplicate_rows_model()
    watched = highs_model.run_watched(h)
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert h.getInfo().objective_function_value == pytest.approx(optimum, abs=1e-7)
    assert watched in ({}, {"stalled_iterations": watched.get("stalled_iterations"), "stalled_kind": "ipm",
                            "rescued_by": "interior point after presolve"})
    assert h.getOptionValue("presolve")[1] == "off" and h.getOptionValue("run_crossover")[1] == "off"


def test_each_interior_point_rescue_is_tried_in_turn_and_the_options_come_back(monkeypatch):
    """A model whose runs end "Unknown" until crossover runs: both rescues are tried, in order,
    with their options, and the model's own options are restored after each."""
    import highspy

    class Model:
        options = {"solver": "ipm", "presolve": "off", "run_crossover": "off",
                   "simplex_iteration_limit": highs_model.NO_ITERATION_LIMIT}

        def __init__(self):
            self.runs = []

        def getOptionValue(self, key):
            return highspy.HighsStatus.kOk, self.options[key]

        def setOptionValue(self, key, value):
            self.options = {**self.options, key: value}

        def run(self):
            self.runs.append((self.options["presolve"], self.options["run_crossover"]))

        def getModelStatus(self):
            return (highspy.HighsModelStatus.kOptimal if self.runs[-1][1] == "on"
                    else highspy.HighsModelStatus.kUnknown)

        def getInfo(self):
            return type("Info", (), {"ipm_iteration_count": 34})()

        def getNumRow(self):
            return 5002

        def getNumCol(self):
            return 3

    model = Model()
    watched = highs_model.run_watched(model)
    assert model.runs == [("off", "off"), ("on", "off"), ("on", "on")]
    assert watched == {"stalled_iterations": 34, "stalled_kind": "ipm", "rescued_by": "interior point with crossover"}
    assert model.options["presolve"] == "off" and model.options["run_crossover"] == "off"
