"""The forecast that gives up a fold's budgeted run early (``cv._Forecast``), on gaps given round by
round on a virtual clock, and in ``LPBoostCV`` with every solve taking a second of that clock."""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpboosting import LPBoostCV
from lpboosting.estimators import cv
from tests.helpers import DATASETS, SlowBackend, VirtualClock


def _watch(gaps: list[float | None], seconds: float, limit: float | None, tol: float = 1e-6) -> list[bool]:
    """The forecast's answer after each round of a run whose rounds take ``seconds`` each."""
    clock = VirtualClock()
    with mock.patch("time.perf_counter", clock):
        forecast = cv._Forecast(tol)
        forecast.arm(limit)
        answers = []
        for gap in gaps:
            clock.sleep(seconds)
            answers.append(forecast(SimpleNamespace(gap=gap)))
    return answers


def test_a_run_without_a_budget_is_never_given_up():
    assert not any(_watch([1e-2] * 50, 10.0, None))


def test_a_gap_that_does_not_fall_is_given_up_at_the_first_round_judged():
    answers = _watch([1e-2] * 10, 1.0, 1.0)
    assert answers[:cv.GIVE_UP_ROUNDS - 1] == [False] * (cv.GIVE_UP_ROUNDS - 1)
    assert answers[cv.GIVE_UP_ROUNDS - 1]


def test_a_run_is_judged_only_once_it_has_taken_a_share_of_its_budget():
    # rounds of 0.1 s against a limit of 100 s: judged from round 250 on (GIVE_UP_AFTER = 0.25)
    first = math.ceil(cv.GIVE_UP_AFTER * 100.0 / 0.1 - 1e-9)
    answers = _watch([1e-2] * (first + 1), 0.1, 100.0)
    assert not any(answers[:first - 1]) and answers[first - 1]


def test_rounds_without_a_finite_gap_are_not_counted():
    gaps = [None, math.inf, 1e-2, None, 1e-2, math.nan]
    assert not any(_watch(gaps, 1.0, 1.0))  # two gaps only
    assert _watch(gaps + [1e-2], 1.0, 1.0)[-1]


def test_a_gap_at_the_target_is_not_given_up():
    # the target is the run's tol when that is above GIVE_UP_GAP: a gap at it is done
    assert not any(_watch([1e-2] * 10, 1.0, 1.0, tol=1e-2))
    assert _watch([1e-2] * 10, 1.0, 1.0, tol=1e-6)[-1]


def test_a_gap_that_halves_every_second_reaches_its_target_and_goes_on():
    # from 1e-2 to 1e-4: log2(100) = 6.6 s, inside twice a budget of 4 s, outside twice 3 s
    gaps = [1e-2 * 0.5 ** k for k in range(8)]
    assert not any(_watch(gaps, 1.0, 4.0))
    answers = _watch(gaps, 1.0, 3.0)
    assert answers[cv.GIVE_UP_ROUNDS - 1] and not any(answers[:cv.GIVE_UP_ROUNDS - 1])


@settings(max_examples=200, deadline=None)
@given(g1=st.floats(2e-4, 1.0), ratio=st.floats(0.05, 0.99), seconds=st.floats(0.01, 10.0),
       limit=st.floats(0.5, 100.0), rounds=st.integers(cv.GIVE_UP_ROUNDS, 12))
def test_a_geometric_gap_is_given_up_exactly_when_it_reaches_its_target_after_twice_the_budget(
        g1, ratio, seconds, limit, rounds):
    """For a gap g_1 ratio^(k-1) at round k (k seconds-long rounds) the forecast is exact: the run is
    given up at the first round judged (the GIVE_UP_ROUNDS-th on, from GIVE_UP_AFTER times the
    limit on) iff the gap reaches the target after GIVE_UP_FACTOR times the limit, counted from
    the run's start."""
    gaps = [g1 * ratio ** k for k in range(rounds)]
    target = cv.GIVE_UP_GAP
    reached = seconds * (1 + math.log(target / g1) / math.log(ratio))  # when g_1 ratio^x = target
    late = reached > cv.GIVE_UP_FACTOR * limit
    if abs(reached - cv.GIVE_UP_FACTOR * limit) < 1e-6 * max(reached, 1.0):
        return  # on the boundary: round-off decides
    judged = [k for k in range(cv.GIVE_UP_ROUNDS - 1, rounds)
              if gaps[k] > target and (k + 1) * seconds >= cv.GIVE_UP_AFTER * limit]
    answers = _watch(gaps, seconds, limit)
    if not judged:  # the target was reached before a round was judged
        assert not any(answers)
    else:
        assert answers[judged[0]] == late
        assert not any(answers[:judged[0]])


def test_lpboostcv_gives_up_a_run_before_its_budget_and_does_not_choose_it(monkeypatch):
    """nu = 0.05 on a fold: each solve takes a second of a virtual clock, so its gap, falling a
    little a round, is seen not to reach its target within twice the budget (30 s), and the run
    stops (status "stopped") long before it.  Without the forecast (GIVE_UP_FACTOR infinite) it runs
    on to its budget, and the choice is the same."""
    X, y = DATASETS["cancer-80x5"]()
    clock = VirtualClock()
    monkeypatch.setattr("time.perf_counter", clock)
    monkeypatch.setattr(cv, "BUDGET_FLOOR", 30.0)  # room for 30 rounds
    rounds: dict[float, list[int]] = {}
    decisions = cv._FoldPath.decisions

    def counted(self, nu, budgeted=False):
        out = decisions(self, nu, budgeted)
        result = self.runs[0][0].results[-1]
        rounds.setdefault(nu, []).append((len(result.history), result.status))
        return out

    monkeypatch.setattr(cv._FoldPath, "decisions", counted)

    def fit():
        rounds.clear()
        clf = LPBoostCV(oracle="stumps", nus=[0.8, 0.05], columns_per_round=1, stabilization=None,
                        backend=SlowBackend("highspy", 1.0, sleep=clock.sleep))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return clf.fit(X, y), dict(rounds)

    forecast, seen = fit()
    monkeypatch.setattr(cv, "GIVE_UP_FACTOR", math.inf)
    budget_only, ran = fit()
    for model in (forecast, budget_only):
        assert model.cv_budget_stops_ == {"stumps": 0.05} and model.nu_ == 0.8
        assert np.isnan(model.cv_scores_[:, 1]).all()
    np.testing.assert_array_equal(forecast.cv_scores_, budget_only.cv_scores_)
    assert seen[0.8] == ran[0.8]
    # the first fold's run ends nu = 0.05 for all: given up after a few rounds, or at the budget
    (given_up, why), = seen[0.05]
    (budgeted, limit), = ran[0.05]
    assert why == "stopped" and limit == "time_limit"
    assert cv.GIVE_UP_ROUNDS <= given_up < budgeted // 2 and budgeted >= 25


@pytest.mark.parametrize("tol", [1e-6, 1e-3])
def test_the_target_is_the_larger_of_tol_and_give_up_gap(tol):
    assert cv._Forecast(tol).target == max(tol, cv.GIVE_UP_GAP)


def test_one_vs_rest_stops_a_nu_at_the_first_class_out_of_its_budget(monkeypatch):
    """One-vs-rest on three classes: a fold's budget is shared by its classes' runs; once one of
    them is out of it (given up or at its limit) the nu is not scored, and the later classes'
    runs at that nu are not started."""
    from sklearn.datasets import load_iris

    from lpboosting.colgen.path import NuPathRun

    X, y = load_iris(return_X_y=True)
    clock = VirtualClock()
    monkeypatch.setattr("time.perf_counter", clock)
    monkeypatch.setattr(cv, "BUDGET_FLOOR", 0.5)
    solves: list[tuple[float, str]] = []  # (nu, the run's status) of every class's run
    solve = NuPathRun.solve

    def recorded(self, nu, time_limit=None):
        result = solve(self, nu, time_limit=time_limit)
        solves.append((nu, result.status))
        return result

    monkeypatch.setattr(NuPathRun, "solve", recorded)
    clf = LPBoostCV(oracle="stumps", nus=[0.8, 0.02], multiclass="one-vs-rest", columns_per_round=1,
                    stabilization=None, backend=SlowBackend("highspy", 1.0, sleep=clock.sleep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    assert clf.cv_budget_stops_ == {"stumps": 0.02} and clf.nu_ == 0.8
    # every fold ran its three classes at nu = 0.8; at 0.02 the first fold's classes ran until one
    # was out of its budget, and none after it
    assert [s for nu, s in solves if nu == 0.8] == ["converged"] * 9
    last = [s for nu, s in solves if nu == 0.02]
    assert last[-1] in ("stopped", "time_limit") and set(last[:-1]) <= {"converged"} and len(last) < 3
