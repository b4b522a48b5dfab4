"""The loop's options object, its one clock, and continuing a run (colgen/options.py, colgen/loop.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lpboosting.colgen import Deadline, LoopOptions, column_generation, continue_run
from lpboosting.colgen.loop import Rounds
from lpboosting.datasets import breast_cancer
from lpboosting.masters import LPBoost, RMBoost
from lpboosting.oracles import Stumps
from tests.helpers import VirtualClock


@pytest.fixture(scope="module")
def data():
    X, y = breast_cancer()
    return X[::4, :8], np.where(y[::4] == 1, 1.0, -1.0)


def trace(result):
    return [(r.round, r.n_columns, r.status, r.primal, r.dual, r.edge) for r in result.history]


@pytest.mark.parametrize("name, value, error", [
    ("tol", -1.0, ValueError), ("tol", "a", TypeError), ("max_rounds", 0, ValueError),
    ("max_rounds", 2.5, TypeError), ("columns_per_round", 0, ValueError), ("time_limit", 0, ValueError),
    ("stall_rounds", 0, ValueError), ("stall_rounds", True, TypeError), ("callback", 3, TypeError),
])
def test_an_option_is_checked_once_when_the_options_are_built(name, value, error):
    with pytest.raises(error, match=name):
        LoopOptions(**{name: value})


def test_options_from_a_classifiers_parameters_take_only_the_loops_names():
    class Params:
        tol, max_rounds, nu, verbose = 1e-4, 7, 0.2, 1

    options = LoopOptions.from_params(Params(), columns_per_round=3)
    assert (options.tol, options.max_rounds, options.verbose, options.columns_per_round) == (1e-4, 7, 1, 3)
    assert options.time_limit is None and options == LoopOptions.from_params(
        {"tol": 1e-4, "max_rounds": 7, "verbose": 1, "nu": 0.2}, columns_per_round=3)
    assert set(LoopOptions.names()) == {"max_rounds", "tol", "time_limit", "stall_rounds", "columns_per_round",
                                        "stabilization", "verbose", "callback"}


def test_the_options_object_and_keywords_run_the_same_rounds(data):
    X, y = data
    options = LoopOptions(max_rounds=12, columns_per_round=2)
    a = column_generation(LPBoost(0.2), Stumps(X, y), options)
    b = column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=12, columns_per_round=2)
    # a keyword overrides the options object's field
    c = column_generation(LPBoost(0.2), Stumps(X, y), LoopOptions(max_rounds=3, columns_per_round=2),
                          max_rounds=12)
    assert trace(a) == trace(b) == trace(c)
    assert a.history.meta["columns_per_round"] == 2


def test_an_unknown_keyword_names_the_loops_options(data):
    X, y = data
    with pytest.raises(TypeError, match="columns_per_round"):
        column_generation(LPBoost(0.2), Stumps(X, y), max_round=3)
    with pytest.raises(TypeError, match="LoopOptions"):
        column_generation(LPBoost(0.2), Stumps(X, y), {"max_rounds": 3})


@pytest.mark.parametrize("make", [lambda: LPBoost(0.1), lambda: RMBoost(0.05)])
def test_continue_run_goes_on_as_one_run(data, make):
    """6 rounds and then continue_run to 14 are the 14 rounds of one run (same session, columns, oracle)."""
    X, y = data
    whole = column_generation(make(), Stumps(X, y), max_rounds=14)
    first = column_generation(make(), Stumps(X, y), max_rounds=6)
    assert first.status == "max_rounds" and first.state.resumable
    more = continue_run(first.state, first.state.options.replace(max_rounds=14))
    assert trace(more)[:-1] == trace(whole)[:-1] and more.objective == whole.objective
    assert trace(more)[-1][:3] == trace(whole)[-1][:3]


def test_restart_starts_a_new_run_on_the_same_session(data):
    """RunState.restart keeps the session and the columns and starts the history, bound and rounds afresh."""
    X, y = data
    master = LPBoost(0.2)
    first = column_generation(master, Stumps(X, y), max_rounds=50)
    state = first.state
    columns = state.n_columns
    master.nu = 0.1
    state.session.refresh_caps()
    state.restart(LoopOptions(max_rounds=200), nu=0.1)
    second = continue_run(state)
    fresh = column_generation(LPBoost(0.1), Stumps(X, y), max_rounds=200)
    assert second.history[0].round == 1 and second.history.meta["nu"] == 0.1
    assert second.history[0].n_columns == columns  # it went on from the columns found at nu = 0.2
    assert second.status == fresh.status == "converged"
    # HiGHS's optimality tolerance 1e-7 on both certified optima
    assert abs(second.objective - fresh.objective) < 1e-7


def test_the_deadline_is_one_clock_for_the_loop_and_its_caller(data):
    clock = VirtualClock()  # every reading adds a microsecond
    deadline = Deadline(10.0, clock)
    assert not deadline.expired() and deadline.remaining() == pytest.approx(10.0, abs=1e-4)
    assert deadline.remaining(floor=20.0) == 20.0
    clock.now += 4.0
    assert deadline.remaining() == pytest.approx(6.0, abs=1e-4) and deadline.elapsed() == pytest.approx(4.0, abs=1e-4)
    assert Deadline(None).remaining() is None and not Deadline(None).expired()

    X, y = data

    def tick(record):
        clock.now += 3.0  # every round takes three virtual seconds

    result = column_generation(LPBoost(0.1), Stumps(X, y), callback=tick, deadline=deadline)
    # the caller's clock had 6 s left: the second round ends the run
    assert result.status == "time_limit" and len(result.history) == 2
    assert result.history[-1].status == "time_limit"


def test_a_limited_run_gives_the_solver_the_time_left_after_its_first_round(data, monkeypatch):
    """HiGHS's clock stops one long solve at the run's limit (the loop's own is read between rounds
    only); the first round of a run, or of a nu on the path, has no master to keep and is not cut."""
    from lpboosting.backends.highs.model import HighsClock
    from lpboosting.colgen import NuPathRun
    from lpboosting.colgen.loop import SOLVER_TIME_FLOOR

    X, y = data
    given = []
    real = HighsClock.time_limited

    def spy(self, seconds):
        given.append(seconds)
        return real(self, seconds)

    monkeypatch.setattr(HighsClock, "time_limited", spy)
    free = column_generation(LPBoost(0.1), Stumps(X, y), max_rounds=4)
    assert given == [] and len(free.history) == 4
    limited = column_generation(LPBoost(0.1), Stumps(X, y), max_rounds=4, time_limit=1000.0)
    assert len(given) == len(limited.history) - 1 == 3
    assert all(SOLVER_TIME_FLOOR <= s <= 1000.0 for s in given) and given == sorted(given, reverse=True)
    # the limit is the run's: the same rounds, the same answer
    np.testing.assert_array_equal(limited.weights, free.weights)
    given.clear()
    path = NuPathRun(Stumps(X, y), max_rounds=3)
    path.solve(0.3)
    path.solve(0.2, time_limit=500.0)
    assert len(given) == 2 and all(s <= 500.0 for s in given)


def test_a_time_limit_of_the_paths_first_nu_is_not_its_sessions_own(data):
    """A first nu's time_limit (LPBoostCV's budget) bounds that nu's run only: HiGHS's own limit
    counts every run of the session's model, and as the session's it stopped the later nus'
    solves once the path's solver time passed it (a time limit at round 1, no master of that nu)."""
    import math

    from lpboosting.colgen import NuPathRun

    X, y = data
    path = NuPathRun(Stumps(X, y))
    first = path.solve(0.3, time_limit=1000.0)
    assert first.status == "converged"
    own = path.state.session._h.getOptionValue("time_limit")[1]
    assert math.isinf(float(own))  # the path's options have no time_limit
    bounded = NuPathRun(Stumps(X, y), time_limit=2000.0)
    bounded.solve(0.3, time_limit=1000.0)
    assert float(bounded.state.session._h.getOptionValue("time_limit")[1]) > 1000.0


def test_the_steps_are_named_methods_of_rounds():
    for step in ("start", "solve", "price", "record", "stop", "run", "result"):
        assert callable(getattr(Rounds, step))


def test_the_nu_path_starts_a_new_run_where_a_session_cannot_move_its_caps(data, monkeypatch):
    """A session without refresh_caps (a user's own) still walks the path: each nu after the first
    is a new run from the columns found so far, at the same optimum as the warm path (HiGHS's
    optimality tolerance 1e-7)."""
    from lpboosting.backends.recording import RecordingSession
    from lpboosting.colgen import NuPathRun
    from tests.helpers import FailingBackend

    monkeypatch.delattr(RecordingSession, "refresh_caps")  # the base class's: NotImplementedError
    X, y = data
    warm = NuPathRun(Stumps(X, y), backend="highspy")
    cold = NuPathRun(Stumps(X, y), backend=FailingBackend("highspy"))
    for nu in (0.5, 0.2, 0.1):
        a, b = warm.solve(nu), cold.solve(nu)
        assert a.status == b.status == "converged"
        assert abs(a.objective - b.objective) < 1e-7
