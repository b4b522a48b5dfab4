"""Every master answer is verified before the loop accepts it; a fault keeps what was done.

A backend wrapper corrupts the session's answer at a chosen round (NaN, a
weight of the wrong sign, d above its cap, primal != dual, an "inaccurate"
answer with a wrong d, a signed d of the wrong sign); the loop must reject
it, answer the round with a fallback backend (LP masters) or end the run as
``solver_error`` keeping the last verified round (entropy masters), and no
accepted round may fail the master's own certificate.  Exceptions from the
oracle or a callback end the run with the partial result attached.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from lpboosting import LPBoostClassifier, RMBoostClassifier, column_generation
from lpboosting.backends.base import Backend, MasterSession
from lpboosting.backends.registry import get_backend
from lpboosting.masters import ERLPBoost, LPBoost, RMBoost, SoftBoost, TotalBoost
from lpboosting.oracles import Stumps
from lpboosting.status import SolveStatus
from tests.helpers import DATASETS

CORRUPTIONS = ("nan", "negative_w", "d_above_cap", "primal_dual", "inaccurate_wrong_d", "flipped_d")


def corrupt(solution, kind: str):
    bad = copy.deepcopy(solution)
    d, w = bad.distribution, bad.weights
    if kind == "nan":
        d[0] = np.nan
    elif kind == "negative_w":
        w[np.argmax(np.abs(w))] *= -1.0
    elif kind == "d_above_cap":
        d[:] = 0.0
        d[0] = 1.0
    elif kind == "primal_dual":
        bad.dual_objective += 0.1
        bad.objective += 0.05
    elif kind == "inaccurate_wrong_d":
        bad.status = SolveStatus.INACCURATE
        bad.distribution = d[::-1].copy()
        if np.array_equal(bad.distribution, d):
            bad.dual_objective -= 0.1
    elif kind == "flipped_d":
        bad.distribution = -d
    return bad


class CorruptingSession(MasterSession):
    def __init__(self, inner, backend, n_samples):
        super().__init__(n_samples)
        self.inner, self.backend, self.backend_name = inner, backend, inner.backend_name
        self.solves = 0

    def add_column(self, column, edge=None):
        self.inner.add_column(column, edge)
        self.n_columns += 1

    def solve(self):
        self.solves += 1
        solution = self.inner.solve()
        if self.solves == self.backend.at_round:
            return corrupt(solution, self.backend.kind)
        return solution


class CorruptingBackend(Backend):
    """``inner`` whose answer of solve number ``at_round`` is corrupted by ``kind``."""

    def __init__(self, inner: str, kind: str, at_round: int) -> None:
        super().__init__()
        self.inner = get_backend(inner)
        self.name, self.solvers, self.incremental = self.inner.name, self.inner.solvers, self.inner.incremental
        self.kind, self.at_round = kind, at_round

    def handles_kind(self, kind):
        return self.inner.handles_kind(kind)

    def is_available(self):
        return self.inner.is_available()

    def require(self):
        self.inner.require()

    def open(self, master, n_samples):
        return CorruptingSession(self.inner.open(master, n_samples), self, n_samples)


CASES = {
    "lpboost-highspy": (lambda: LPBoost(0.2), "highspy"),
    "lpboost-delta": (lambda: LPBoost(0.2), "highspy:delta"),
    "lpboost-clarabel": (lambda: LPBoost(0.2), "cvxpy:CLARABEL"),
    "lpboost-rows": (lambda: LPBoost(0.2), "highspy:rows"),
    "lpboost-cvxpy-highs": (lambda: LPBoost(0.2), "cvxpy:HIGHS"),
    "rmboost-highspy": (lambda: RMBoost(), "highspy"),
    "totalboost": (lambda: TotalBoost(0.1), "dedicated"),
    "softboost-clarabel": (lambda: SoftBoost(0.2, 0.1), "cvxpy:CLARABEL"),
    "rmboost-ipm": (lambda: RMBoost(), "highspy:ipm"),
    "rmboost-dedicated": (lambda: RMBoost(), "dedicated"),
    "softboost": (lambda: SoftBoost(0.2, 0.1), "dedicated"),
    "erlpboost": (lambda: ERLPBoost(0.2, 0.1), "dedicated"),
}


def run(case: str, kind: str, at_round: int, max_rounds: int = 8):
    make, inner = CASES[case]
    X, y = DATASETS["cancer-60x8"]()
    master = make()
    accepted = []

    def keep(record, state):
        accepted.append((record, copy.deepcopy(state.solution), state.columns[:, :record.n_columns].copy()))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = column_generation(master, Stumps(X, y), backend=CorruptingBackend(inner, kind, at_round),
                                   max_rounds=max_rounds, callback=keep)
    return master, result, accepted


@settings(max_examples=120, deadline=None)
@given(case=st.sampled_from(sorted(CASES)), kind=st.sampled_from(CORRUPTIONS), at_round=st.integers(1, 6))
def test_no_accepted_round_is_unverified(case, kind, at_round):
    master, result, accepted = run(case, kind, at_round)
    for record, solution, U in accepted:
        assert master.verify(solution, U, solution.control.active_columns) == "", (record.round, kind)
    rounds = {r.round: r for r in result.history}
    if at_round in rounds:
        record = rounds[at_round]
        assert "rejected" in record.extra, (case, kind, record)
        if master.kind == "lp":
            assert record.extra.get("fallback") and record.status != "solver_error"
        else:
            assert record.status == "solver_error" and result.status == "solver_error"
            assert result.n_rounds == at_round and len(accepted) == at_round - 1
    if result.solution is not None:
        assert np.all(np.isfinite(result.weights)) and np.isfinite(result.objective)


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_lp_masters_answer_a_rejected_round_by_a_fallback(kind):
    master, result, _ = run("lpboost-highspy", kind, 3, max_rounds=40)
    record = result.history[2]
    assert record.extra["fallback"] == "highspy" and "highspy" in record.extra["rejected"]
    assert result.status == "converged"
    exact = column_generation(LPBoost(0.2), Stumps(*DATASETS["cancer-60x8"]()), max_rounds=40)
    assert result.objective == pytest.approx(exact.objective, abs=1e-9)


def test_a_fitted_model_never_holds_a_corrupt_last_round(monkeypatch):
    X, y = DATASETS["cancer-60x8"]()
    with pytest.warns(RuntimeWarning, match="rejected"):
        clf = LPBoostClassifier(nu=0.1, backend=CorruptingBackend("highspy", "nan", 2)).fit(X, y)
    assert np.isfinite(clf.objective_) and np.all(np.isfinite(clf.decision_function(X)))
    soft = RMBoostClassifier(oracle="stumps", backend=CorruptingBackend("highspy:ipm", "flipped_d", 4),
                             max_rounds=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        soft.fit(X, y)
    assert "fallback" in soft.history_[3].extra and np.isfinite(soft.objective_)


def test_an_inaccurate_but_correct_answer_is_used_and_said():
    X, y = DATASETS["cancer-60x8"]()

    class Inaccurate(CorruptingBackend):
        def open(self, master, n_samples):
            session = super().open(master, n_samples)
            inner_solve = session.inner.solve

            def solve():
                solution = inner_solve()
                solution.status = SolveStatus.INACCURATE
                return solution

            session.inner.solve = solve
            return session

    with pytest.warns(RuntimeWarning, match="optimal_inaccurate"):
        result = column_generation(LPBoost(0.2), Stumps(X, y), backend=Inaccurate("highspy", "none", 0))
    assert result.status == "converged"
    assert all(r.extra.get("solve_status") == "optimal_inaccurate" for r in result.history)
    assert all("fallback" not in r.extra for r in result.history)


# -- nothing done is lost ---------------------------------------------------------------------------
class FailingStumps(Stumps):
    """Exact stumps that raise on their ``fail_at``-th pricing call (the first is the initial
    pricing, so 4 fails in round 3's pricing, after 2 recorded rounds)."""

    fail_at = 4

    def price_many(self, distribution, k):
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == self.fail_at:
            raise RuntimeError("a bug in the oracle")
        return super().price_many(distribution, k)


def test_an_oracle_exception_keeps_the_run_so_far():
    X, y = DATASETS["cancer-60x8"]()
    with pytest.raises(RuntimeError, match="a bug in the oracle") as caught:
        column_generation(LPBoost(0.2), FailingStumps(X, y), max_rounds=20)
    result = caught.value.result
    assert result.status == "error" and result.n_rounds == 2 and result.solution is not None
    assert result.history.meta["status"] == "error" and "RuntimeError" in result.message
    stopped = column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=2)
    assert result.objective == stopped.objective  # the same as a run stopped there


def test_a_callback_exception_keeps_the_run_so_far():
    X, y = DATASETS["cancer-60x8"]()

    def broken(record):
        if record.round == 2:
            raise ValueError("a bug in the callback")

    with pytest.raises(ValueError, match="callback") as caught:
        column_generation(LPBoost(0.2), Stumps(X, y), callback=broken)
    assert caught.value.result.n_rounds == 2 and caught.value.result.solution is not None


def test_the_classifier_keeps_the_partial_fit_or_stays_unfitted(monkeypatch):
    X, y = DATASETS["cancer-60x8"]()
    clf = LPBoostClassifier(nu=0.1, stabilization=None, columns_per_round=1).fit(X, y)
    first = clf.decision_function(X)

    import lpboosting.estimators.base as base

    monkeypatch.setattr(base, "make_oracle", lambda spec, X, y, **kw: FailingStumps(X, y))
    with pytest.warns(RuntimeWarning, match="round 2 is kept"), pytest.raises(RuntimeError):
        clf.fit(X[:50], y[:50])
    assert clf.n_rounds_ == 2 and clf.status_ == "error"
    assert not np.array_equal(clf.decision_function(X), first)  # not the previous fit

    FailingStumps.fail_at = 1  # before the first round: unfitted, never the previous fit
    try:
        with pytest.raises(RuntimeError):
            clf.fit(X[10:], y[10:])
    finally:
        FailingStumps.fail_at = 4
    with pytest.raises(NotFittedError):
        clf.predict(X)


# -- a time limit reaches the solver ------------------------------------------------------------------
def test_the_time_limit_reaches_the_solver():
    from lpboosting.backends.base import with_time_limit

    highs = with_time_limit(get_backend("highspy"), 7.0)
    assert highs.options["time_limit"] == 7.0 and "time_limit" not in get_backend("highspy").options
    scs = with_time_limit(get_backend("cvxpy:SCS"), 7.0)
    assert scs.options["time_limit_secs"] == 7.0
    dedicated = get_backend("dedicated")
    assert with_time_limit(dedicated, 7.0) is dedicated  # no limit of its own: the loop's clock


def test_a_solve_stopped_by_its_time_limit_keeps_the_last_round():
    X, y = DATASETS["cancer-60x8"]()

    class Timed(CorruptingBackend):
        def open(self, master, n_samples):
            session = super().open(master, n_samples)
            inner_solve = session.inner.solve

            def solve():
                solution = inner_solve()
                if session.solves == 3:
                    from lpboosting.masters.base import MasterSolution

                    return MasterSolution.failed(n_samples, SolveStatus.TIME_LIMIT, "time limit reached")
                return solution

            session.inner.solve = solve
            return session

    result = column_generation(LPBoost(0.2), Stumps(X, y), backend=Timed("highspy", "none", 0))
    assert result.status == "time_limit" and result.n_rounds == 3
    assert result.solution is not None and result.history[1].status == "added"
    assert "stopped at its time limit (time limit reached); kept the master of round 2" in result.message
