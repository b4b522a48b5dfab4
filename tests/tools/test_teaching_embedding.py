"""For teaching and embedding: the primal LP in cvxpy, every stump with its price, callbacks
that see the run, a result that serialises, solver logs and options, and two defects
(a plain function as the oracle; a master whose statement has a constraint its
read-back does not know)."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer

from lpboosting import ColumnGenerationResult, column_generation
from lpboosting.backends import HighspyBackend
from lpboosting.cli import main
from lpboosting.masters import LPBoost
from lpboosting.oracles import Stumps
from lpboosting.status import SolveStatus
from tests.helpers import all_stump_columns, soft_margin_lp


@pytest.fixture(scope="module")
def small():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 100, replace=False)
    return X[rows][:, :6], np.where(y[rows] == 1, 1.0, -1.0)


# -- defects -------------------------------------------------------------------------------------
def test_a_plain_function_is_an_oracle(small):
    X, y = small
    stumps = Stumps(X, y)

    def best_stump(d):
        c = stumps.price(d)
        return c.column, c.hypothesis

    res = column_generation(LPBoost(0.2), best_stump, n_samples=len(y), tol=1e-9)
    exact = column_generation(LPBoost(0.2), Stumps(X, y), tol=1e-9)
    assert res.status == "converged" and res.objective == pytest.approx(exact.objective, abs=1e-9)
    assert res.history.meta["exact"] is False and res.gap is None  # a function makes no promise
    with pytest.raises(TypeError, match="n_samples"):
        column_generation(LPBoost(0.2), best_stump)
    weighted = column_generation(LPBoost(0.2, sample_weight=np.ones(len(y))), best_stump, tol=1e-9)
    assert weighted.objective == pytest.approx(exact.objective, abs=1e-9)  # N from the weights


class SideConstrainedLPBoost(LPBoost):
    """LPBoost with sum d[:10] <= 0.05 added to its statement (the read-back does not know it)."""

    def cvxpy_statement(self, U):
        statement = super().cvxpy_statement(U)
        d = statement.variables["d"]
        problem = statement.problem
        statement.problem = type(problem)(problem.objective, problem.constraints + [d[:10].sum() <= 0.05])
        return statement


def test_a_constraint_the_read_back_does_not_know_is_reported(small):
    X, y = small
    res = column_generation(SideConstrainedLPBoost(0.2), Stumps(X, y), backend="cvxpy:CLARABEL",
                            max_rounds=15)
    # the answer is not certified by the read-back: rejected, not recorded as a closed gap
    assert res.status == "solver_error" and res.solution is None
    assert "differ" in res.history[-1].extra["rejected"]
    assert "verify()" in res.message
    plain = column_generation(LPBoost(0.2), Stumps(X, y), backend="cvxpy:CLARABEL", max_rounds=15)
    assert plain.status == "max_rounds" and all("rejected" not in r.extra for r in plain.history)


class UnverifiedSideConstraint(SideConstrainedLPBoost):
    """The same master, with the base class's check only (finite values, shapes)."""

    def verify(self, solution, U, active=None):
        from lpboosting.masters.base import check_answer

        return check_answer(solution, *U.shape)


def test_a_master_without_a_certificate_gets_its_duality_gap_recorded(small):
    X, y = small
    with pytest.warns(RuntimeWarning, match="differ by"):
        res = column_generation(UnverifiedSideConstraint(0.2), Stumps(X, y), backend="cvxpy:CLARABEL",
                                max_rounds=15)
    assert any((r.extra.get("duality_gap") or 0) > 1e-3 for r in res.history)


# -- teaching ------------------------------------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_primal_statement_solves_to_the_dual_optimum(small, weighted):
    X, y = small
    s = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float) if weighted else None
    U, _ = Stumps(X, y).all_columns()
    master = LPBoost(0.2, sample_weight=s)
    dual = master.solve(U, backend="highspy")
    statement = master.cvxpy_primal_statement(U)
    statement.problem.solve(solver="CLARABEL")
    primal = master.cvxpy_primal_solution(statement, U, SolveStatus.OPTIMAL)
    assert primal.objective == pytest.approx(dual.objective, abs=1e-6)
    assert primal.dual_objective == pytest.approx(dual.dual_objective, abs=1e-6)  # gamma, not -gamma
    d, caps = primal.distribution, master.caps(len(y))
    assert d.sum() == pytest.approx(1.0, abs=1e-6) and np.all(d <= caps + 1e-6)
    # complementary slackness of the primal: d_n > 0 only where U w = rho - psi
    slack = U @ primal.weights - primal.rho + primal.slacks
    assert float(d @ slack) == pytest.approx(0.0, abs=1e-5)
    if not weighted:
        assert dual.objective == pytest.approx(soft_margin_lp(U, 0.2)["value"], abs=1e-9)


def test_all_stumps_are_the_class_the_oracle_prices(small):
    X, y = small
    oracle = Stumps(X, y)
    U, stumps = oracle.all_columns()
    assert len(stumps) == U.shape[1]
    np.testing.assert_array_equal(U[:, 7], y * stumps[7].predict(X))
    # the same distinct columns as a brute-force enumeration
    assert {tuple(c) for c in np.unique(U, axis=1).T} == {tuple(c) for c in all_stump_columns(X, y).T}
    rng = np.random.default_rng(2)
    for _ in range(5):
        d = rng.dirichlet(np.ones(len(y)))
        assert float(np.max(U.T @ d)) == pytest.approx(oracle.price(d).edge, abs=1e-12)


def test_reduced_costs_price_every_stump(small):
    X, y = small
    U, _ = Stumps(X, y).all_columns()
    master = LPBoost(0.2)
    res = column_generation(master, Stumps(X, y), tol=1e-9, max_rounds=6)
    sol = master.solve(res.columns.astype(float))
    prices = master.reduced_costs(U, sol)
    # the largest price is the gap an exact oracle reports at this d
    assert prices.max() == pytest.approx(Stumps(X, y).price(sol.distribution).edge - sol.dual_objective, abs=1e-12)
    own = master.reduced_costs(res.columns, sol)
    assert np.all(own <= 1e-9)  # dual feasible on its own columns
    assert np.all(np.abs(own[sol.weights > 1e-9]) <= 1e-9)  # complementary slackness


# -- embedding -------------------------------------------------------------------------------------
def test_a_callback_sees_the_run_and_adds_columns(small):
    X, y = small
    seen = []
    extra = y * np.where(X[:, 0] > np.median(X[:, 0]), 1.0, -1.0)

    def watch(record, state):
        seen.append((record.round, state.distribution.copy(), len(state.candidates), state.session))
        if record.round == 2:
            state.add_column(extra, hypothesis="median split of feature 0")
        return record.round == 5

    res = column_generation(LPBoost(0.2), Stumps(X, y), callback=watch, max_rounds=20)
    assert res.status == "stopped" and [s[0] for s in seen] == [1, 2, 3, 4, 5]
    assert "median split of feature 0" in res.hypotheses
    j = res.hypotheses.index("median split of feature 0")
    np.testing.assert_array_equal(res.columns[:, j], extra)
    assert seen[0][3] is seen[-1][3]  # one live session
    assert res.history[1].n_columns + seen[1][2] + 1 == res.history[2].n_columns
    assert all(np.isclose(s[1].sum(), 1.0) for s in seen)
    with pytest.raises(ValueError, match="finite margins"):
        column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=3,
                          callback=lambda record, state: state.add_column(np.ones(3)))


def test_a_callback_can_keep_a_converged_run_going(small):
    X, y = small
    added = []

    def once_more(record, state):
        if record.status == "converged" and not added:
            added.append(record.round)
            state.add_column(-y)  # the constant of the other sign
        return False

    res = column_generation(LPBoost(0.2), Stumps(X, y), callback=once_more, tol=1e-9)
    assert res.status == "converged" and res.n_rounds == added[0] + 1


def test_result_round_trip(small, tmp_path):
    X, y = small
    res = column_generation(LPBoost(0.2), Stumps(X, y), tol=1e-9)
    res.save(tmp_path / "r.json")
    back = ColumnGenerationResult.load(tmp_path / "r.json")
    assert back.objective == res.objective and back.status == res.status and back.history == res.history
    np.testing.assert_array_equal(back.columns, res.columns)
    assert back.columns.dtype == res.columns.dtype
    np.testing.assert_array_equal(back.weights, res.weights)
    np.testing.assert_array_equal(back.distribution, res.distribution)
    np.testing.assert_array_equal(back.hypotheses[3].predict(X), res.hypotheses[3].predict(X))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(back.weight_path, res.weight_path))
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="lpboosting-result"):
        ColumnGenerationResult.load(tmp_path / "bad.json")


def _records():
    from lpboosting.colgen.history import RoundRecord

    def record(i, primal, dual, gap, edge, **extra):
        return RoundRecord(round=i, n_columns=i, primal=primal, dual=dual, gap=gap, edge=edge, exact=True,
                           master_seconds=0.0, pricing_seconds=0.0, iterations=None, status="added",
                           extra=extra)

    return [record(1, 0.5, 0.5, None, 0.7, d=np.array([0.25, 0.75])),
            record(2, float("nan"), 0.4, float("inf"), None, d=np.array([0.5, 0.5])),
            record(3, 0.3, -float("inf"), 1e-3, float("nan"), d=np.array([[1.0], [0.0]]))]


def test_a_history_round_trip_keeps_nan_inf_and_none(tmp_path):
    """NaN and +-inf are null in the file (strict JSON) and read back as they were, None as None."""
    from lpboosting.colgen import History

    history = History(_records(), {"master": "LPBoost"})
    history.save(tmp_path / "h.json")
    back = History.load(tmp_path / "h.json")
    assert back == history
    assert np.isnan(back[1].primal) and back[1].gap == float("inf") and back[2].dual == -float("inf")
    assert np.isnan(back[2].edge)
    assert back[0].gap is None and back[1].edge is None and back[0].iterations is None
    assert back[0].primal == 0.5 and back[2].gap == 1e-3
    assert [r.primal for r in History.from_json(history.to_json())][0] == 0.5
    # the file holds no NaN: a null where the value is not finite
    text = (tmp_path / "h.json").read_text()
    assert "NaN" not in text and "Infinity" not in text


def test_histories_with_arrays_in_their_extras_compare():
    """History == History compares numpy arrays in the extras by value (it raised 'truth value of
    an array is ambiguous')."""
    from lpboosting.colgen import History

    assert History(_records()) == History(_records())
    other = _records()
    other[0].extra["d"] = np.array([0.75, 0.25])
    assert History(_records()) != History(other)
    other[0].extra["d"] = np.array([0.25, 0.75, 0.0])
    assert History(_records()) != History(other)
    assert History(_records(), {"w": np.array([1.0, 2.0])}) == History(_records(), {"w": np.array([1.0, 2.0])})
    assert History(_records(), {"w": np.array([1.0, 2.0])}) != History(_records(), {"w": np.array([1.0, 3.0])})


def test_solver_log_is_off_by_default_and_on_when_asked(small, tmp_path, capfd):
    X, y = small
    column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=3)
    assert capfd.readouterr().out == ""
    column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=3,
                      backend=HighspyBackend(output_flag=True, log_to_console=True))
    assert "Simplex   iterations" in capfd.readouterr().out
    log = tmp_path / "highs.log"
    column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=3,
                      backend=HighspyBackend(output_flag=True, log_to_console=False, log_file=str(log)))
    assert "Simplex   iterations" in log.read_text() and capfd.readouterr().out == ""


def test_cli_solver_options_and_log(tmp_path, capsys):
    log = tmp_path / "fit.log"
    assert main(["fit", "lpboost", "--quiet", "--test-size", "0", "--solver-log", str(log),
                 "-o", "simplex_strategy=1"]) == 0
    assert "Simplex   iterations" in log.read_text()
    assert main(["fit", "lpboost", "--quiet", "-o", "no_such_option=1"]) != 0
    assert "no_such_option" in capsys.readouterr().err
    assert main(["fit", "llm", "--quiet", "-o", "simplex_strategy=1"]) == 2
    assert main(["fit", "lpboost", "--quiet", "-p", "backend=cvxpy:CLARABEL", "--solver-log",
                 str(log)]) == 2


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 30), seed=st.integers(0, 10_000))
def test_reduced_costs_vanish_on_positive_weights_property(n, seed):
    rng = np.random.default_rng(seed)
    U = rng.choice([-1.0, 1.0], size=(n, 6))
    master = LPBoost(max(0.3, 1.001 / n))
    sol = master.solve(U)
    prices = master.reduced_costs(U, sol)
    assert np.all(prices <= 1e-9)
    assert np.all(np.abs(prices[sol.weights > 1e-9]) <= 1e-9)


def test_a_rounds_master_prints_as_its_lp(small, tmp_path):
    import highspy

    from lpboosting.export import lp_text

    X, y = small
    res = column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=4)
    U = res.columns.astype(float)
    for form in ("dual", "primal"):
        text = lp_text(LPBoost(0.2), U, form)
        names = ["sum_d", "edge_3", "gamma"] if form == "dual" else ["margin_99", "sum_w", "psi_0"]
        assert all(name in text for name in names)
        path = tmp_path / f"{form}.lp"
        path.write_text(text)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.readModel(str(path))
        h.run()
        assert h.getInfo().objective_function_value == pytest.approx(res.objective, abs=1e-9)
