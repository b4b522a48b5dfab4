"""The dedicated dual simplex of the RMBoost master and its verified session.

Every solve is compared with the LP (16) written independently in
tests/masters/test_rmboost.py (scipy's HiGHS on the paper's variables), over random
sequences of added and removed base rules: degenerate +-1 columns (as trees
give), real-valued ones, duplicates and negations.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpboosting import column_generation
from lpboosting.backends import RecordingBackend, get_backend
from lpboosting.backends.dedicated.minimax_session import MinimaxSimplexSession
from lpboosting.backends.dedicated.minimax_simplex import MinimaxDualSimplex, SimplexResult
from lpboosting.backends.highs.rmboost import solve_minimax_with_highs
from lpboosting.errors import BackendCapabilityError
from lpboosting.masters import LPBoost, MasterSolution, RMBoost
from lpboosting.oracles import Columns
from lpboosting.status import SolveStatus
from tests.helpers import check_kkt, graded_pool, minimax_lp


def reference_value(U: np.ndarray, lam: float) -> float:
    """R over the margin columns U: eq. (6) with labels +1 (h-values = margins)."""
    return minimax_lp(U, np.ones(U.shape[0]), lam)["value"]


def assert_certified(result: SimplexResult, U: np.ndarray, lam: float, tol: float = 1e-9) -> None:
    """mu primal feasible, d = 1/n + y dual feasible, equal objectives, R = the reference."""
    n = U.shape[0]
    assert result.ok, result.message
    assert np.abs(U @ result.mu).max() <= 0.5 + tol
    assert np.abs((1.0 / n + result.y) @ U).max() <= lam + tol
    risk = 0.5 - U.mean(axis=0) @ result.mu + lam * np.abs(result.mu).sum()
    assert risk == pytest.approx(0.5 * (1.0 - result.objective), abs=tol)
    assert risk == pytest.approx(reference_value(U, lam), abs=1e-8)


def columns(kind: str, n: int, t: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "signs":  # +-1 outputs of classifiers that agree with the labels more often
        return np.where(rng.random((n, t)) < 0.65, 1.0, -1.0)
    if kind == "graded":
        return np.clip(0.3 + rng.normal(0.0, 0.6, (n, t)), -1.0, 1.0)
    base = np.where(rng.random((n, max(t // 3, 1))) < 0.7, 1.0, -1.0)  # duplicates, negations
    picks = rng.integers(0, base.shape[1], t)
    return base[:, picks] * rng.choice([-1.0, 1.0], t)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), t=st.integers(1, 25),
       kind=st.sampled_from(["signs", "graded", "repeats"]), lam=st.floats(0.01, 0.6))
def test_every_solve_of_a_random_add_and_remove_sequence_is_optimal(seed, n, t, kind, lam):
    rng = np.random.default_rng(seed)
    pool = columns(kind, n, t, rng)
    solver = MinimaxDualSimplex(n, lam)
    active: list[int] = []
    for j in range(t):
        solver.add_row(pool[:, j])
        active.append(j)
        result = solver.solve()
        assert_certified(result, pool[:, active], lam)
        np.testing.assert_array_equal(solver.U, pool[:, active])
        if rng.random() < 0.4 and len(active) > 1:  # remove any rows, active constraints included
            drop = np.flatnonzero(rng.random(len(active)) < 0.3)
            solver.remove_rows(drop)
            active = [a for k, a in enumerate(active) if k not in set(drop.tolist())]
            if active:
                assert_certified(solver.solve(), pool[:, active], lam)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), kind=st.sampled_from(["signs", "graded"]))
def test_warm_and_cold_solves_agree(seed, n, kind):
    rng = np.random.default_rng(seed)
    pool = columns(kind, n, 12, rng)
    lam = 1 / np.sqrt(n)
    warm = MinimaxDualSimplex(n, lam)
    for j in range(12):
        warm.add_row(pool[:, j])
        warm_result = warm.solve()
        cold = MinimaxDualSimplex(n, lam)
        for k in range(j + 1):
            cold.add_row(pool[:, k])
        cold_result = cold.solve()
        assert warm_result.objective == pytest.approx(cold_result.objective, abs=1e-10)
        assert_certified(warm_result, pool[:, :j + 1], lam)


def test_removing_a_basic_row_keeps_the_basis_and_an_active_row_resets_it():
    rng = np.random.default_rng(3)
    n, lam = 30, 0.1
    pool = columns("signs", n, 10, rng)
    solver = MinimaxDualSimplex(n, lam)
    for j in range(10):
        solver.add_row(pool[:, j])
    result = solver.solve()
    edges = (1.0 / n + result.y) @ pool
    slack = np.flatnonzero(np.abs(edges) < lam - 1e-7)
    tight = np.flatnonzero(np.abs(edges) >= lam - 1e-7)
    assert slack.size and tight.size
    # a slack constraint's logical is basic: it leaves with its row, the others stay basic
    basic_before = solver.state()["basic"]
    solver.remove_rows(slack[:1])
    basic_after = solver.state()["basic"]
    assert solver.t == 9 and basic_after.size == 9
    # the examples in the basis (p_i, q_i: ids < 2n) are the same ones
    assert sorted(basic_before[basic_before < 2 * n]) == sorted(basic_after[basic_after < 2 * n])
    keep = np.delete(np.arange(10), slack[:1])
    again = solver.solve()
    assert again.iterations == 0  # the remaining basis is still optimal
    assert_certified(again, pool[:, keep], lam)
    # an active constraint: the basis restarts from the all-logical one and stays correct
    row = int(np.flatnonzero(np.isin(keep, tight))[0])
    solver.remove_rows([row])
    n2 = 2 * n
    np.testing.assert_array_equal(solver.state()["basic"], n2 + np.arange(8))
    keep = np.delete(keep, row)
    assert_certified(solver.solve(), pool[:, keep], lam)


def test_the_iteration_limit_is_reported():
    solver = MinimaxDualSimplex(20, 0.05, max_iterations=0)
    solver.add_row(np.ones(20))  # tau = 1 > lam: the all-logical start is infeasible
    result = solver.solve()
    assert not result.ok and "iteration limit 0" in result.message
    assert MinimaxDualSimplex(5, 0.1).solve().message == "no rows"


def test_highs_fallback_statement_agrees_with_the_reference():
    y, pool = graded_pool(40, 6, 2)
    U = pool[:, :6]
    lam = 0.08
    status, mu, yy, iterations = solve_minimax_with_highs(U, lam)
    assert status.ok and iterations > 0
    risk = 0.5 - U.mean(axis=0) @ mu + lam * np.abs(mu).sum()
    assert risk == pytest.approx(reference_value(U, lam), abs=1e-9)
    assert np.abs((1 / 40 + yy) @ U).max() <= lam + 1e-9


# -- the session: checks every answer, falls back to HiGHS ------------------------------------
def wrap_solve(monkeypatch, hook: Callable[[int, Callable[[], SimplexResult]], SimplexResult]) -> None:
    """Route MinimaxDualSimplex.solve through hook(call number from 1, the real solve)."""
    original = MinimaxDualSimplex.solve
    calls = itertools.count(1)
    monkeypatch.setattr(MinimaxDualSimplex, "solve", lambda self: hook(next(calls), lambda: original(self)))


def _session(n: int) -> MinimaxSimplexSession:
    session = get_backend("dedicated").open(RMBoost(prune=False), n)
    assert isinstance(session, MinimaxSimplexSession)
    return session


def test_the_check_rejects_each_kind_of_wrong_answer():
    y, pool = graded_pool(30, 5, 1)
    U = pool[:, :5]
    session = _session(30)
    for j in range(5):
        session.add_column(U[:, j])
    good = session.simplex.solve()
    assert session.check(U, good.mu, good.y) == ""
    assert "primal infeasible" in session.check(U, 1.5 * good.mu + 0.2, good.y)
    assert "dual infeasible" in session.check(U, good.mu, good.y + 0.5 * y / 30)
    assert "duality gap" in session.check(U, 0.5 * good.mu, good.y)
    assert "non-finite" in session.check(U, good.mu * np.nan, good.y)


@pytest.mark.parametrize("failure", ["wrong answer", "solver failure"])
def test_a_rejected_answer_is_resolved_by_highs_and_recorded(monkeypatch, failure):
    y, pool = graded_pool(60, 25, 0)
    lam = 1 / np.sqrt(y.size)

    def sometimes_wrong(call, solve):
        result = solve()
        if call % 3 == 0:
            if failure == "wrong answer":
                result.mu = 1.01 * result.mu
            else:
                result = SimplexResult(SolveStatus.FAILED, result.mu, result.y, np.nan, 7, 0.0, "test failure")
        return result

    wrap_solve(monkeypatch, sometimes_wrong)
    recorder = RecordingBackend("dedicated")
    result = column_generation(RMBoost(), Columns(pool), backend=recorder, tol=1e-9, max_rounds=60)
    assert result.converged
    records = [r.extra for r in result.history]
    fallbacks = [r for r in records if r["fallback"]]
    assert len(fallbacks) == sum(1 for k in range(1, len(records) + 1) if k % 3 == 0)
    assert all(r["solver"] == "highspy (fallback)" for r in fallbacks)
    assert all(r["solver"] == "dedicated" for r in records if not r["fallback"])
    if failure == "solver failure":
        assert all(r["message"] == "test failure" for r in fallbacks)
    U_all = np.column_stack([pool[:, ref.index] for ref in result.hypotheses])
    for t, sol in enumerate(recorder.solutions, start=1):
        check_kkt(sol, U_all[:, :t], y, lam, 1e-8, columns=sol.control.active_columns)
    assert result.objective == pytest.approx(minimax_lp(y[:, None] * pool, y, lam)["value"], abs=1e-8)


def test_dedicated_matches_highspy_on_the_same_columns():
    y, pool = graded_pool(50, 15, 4)
    lam = 0.1
    ours = column_generation(RMBoost(lam, prune=False), Columns(pool), backend="dedicated", tol=1e-10,
                             max_rounds=200)
    assert ours.history[-1].extra["solver"] == "dedicated"
    highs = get_backend("highspy").open(RMBoost(lam, prune=False), y.size)
    for ref in ours.hypotheses:
        highs.add_column(pool[:, ref.index])
    assert highs.solve().objective == pytest.approx(ours.objective, abs=1e-9)


def test_the_dedicated_backend_still_refuses_lpboost():
    with pytest.raises(BackendCapabilityError, match="dedicated"):
        get_backend("dedicated").open(LPBoost(0.2), 10)


def test_when_highs_fails_too_the_run_stops_with_its_history(monkeypatch):
    from lpboosting.backends.dedicated import minimax_session as module

    y, pool = graded_pool(40, 12, 3)

    def fails_at_round_4(call, solve):
        result = solve()
        if call == 4:
            result.status, result.message = SolveStatus.FAILED, "test failure"
        return result

    wrap_solve(monkeypatch, fails_at_round_4)
    # the fallback policy's backend (HiGHS) fails too
    monkeypatch.setattr(module, "resolve",
                        lambda master, U, name: MasterSolution.failed(U.shape[0], SolveStatus.ERROR, "test"))
    result = column_generation(RMBoost(0.1), Columns(pool), backend="dedicated", tol=1e-9, max_rounds=50)
    assert result.status == "solver_error"
    assert "test failure" in result.message and "highspy returned error" in result.message
    # the three solved rounds are kept, with the last optimal model
    assert [r.status for r in result.history][:3] == ["added"] * 3
    assert result.solution is not None and result.solution.ok
    assert result.objective == result.history[2].primal


def test_ctrl_c_inside_the_simplex_keeps_the_last_model(monkeypatch):
    from lpboosting import RMBoostClassifier
    from tests.helpers import cancer_subset

    X, y = cancer_subset(80, 5, 0)

    def interrupted_at_round_5(call, solve):
        if call == 5:
            raise KeyboardInterrupt
        return solve()

    wrap_solve(monkeypatch, interrupted_at_round_5)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        clf = RMBoostClassifier(oracle="stumps", backend="dedicated", max_rounds=50).fit(X, y)
    assert clf.status_ == "interrupted" and clf.n_rounds_ == 4
    assert clf.minimax_risk_ == clf.history_[3].primal
    assert np.count_nonzero(clf.weights_) >= 1
    assert clf.predict(X).shape == y.shape
