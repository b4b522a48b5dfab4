"""The sifting session of LPBoost's master against the full LP, and compact (int8) columns.

Every check uses a working set far smaller than N, so that examples must
enter it and leave it: the answer must still be the full LP's optimum, with
d, w, rho and psi satisfying every KKT condition of the full LP.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lpboosting import column_generation
from lpboosting.backends import HighspyBackend, RecordingBackend, get_backend
from lpboosting.backends.highs.sifting import FIXED_CAP, WORKING, HighsSiftingLP
import lpboosting.columns as columns
from lpboosting.columns import (approximate_sum, column_dots, compact, gram, screened_sum, stack, take_rows,
                                weighted_sum)
from lpboosting.masters import ColumnPool, LPBoost
from lpboosting.masters.base import MasterSolution
from lpboosting.oracles import Columns, Stumps, Trees
from lpboosting.status import SolveStatus
from tests.helpers import (all_stump_columns, check_optimality, check_verify_rejects_a_tampered_pair, DATASETS,
                           soft_margin_lp)


def sifting(nu: float, n: int, working_size: int, **kw) -> HighsSiftingLP:
    return HighsSiftingLP(LPBoost(nu, **kw), n, get_backend("highspy"), working_size=working_size)


def solve_growing(U: np.ndarray, nu: float, working_size: int, every: int = 1):
    """Add U's columns one by one to a sifting session, solving after every ``every``-th;
    each solve is checked against the full LP over the columns so far."""
    s = sifting(nu, U.shape[0], working_size)
    sol = None
    for j in range(U.shape[1]):
        s.add_column(U[:, j])
        if (j + 1) % every == 0 or j == U.shape[1] - 1:
            sol = s.solve()
            assert sol.ok
            assert sol.objective == pytest.approx(soft_margin_lp(U[:, :j + 1], nu)["value"], abs=1e-9)
            check_optimality(sol, U[:, :j + 1], nu, 1e-8)
    return s, sol


margin_matrices = st.integers(3, 40).flatmap(
    lambda n: st.integers(1, 8).flatmap(
        lambda t: arrays(np.float64, (n, t), elements=st.sampled_from([-1.0, -0.5, 0.0, 0.25, 1.0]))
    )
)


@settings(max_examples=80, deadline=None)
@given(U=margin_matrices, nu=st.floats(0.01, 1.0), working_size=st.integers(1, 6),
       every=st.integers(1, 3))
def test_sifting_equals_the_full_lp_property(U, nu, working_size, every):
    nu = max(nu, 1.001 / U.shape[0])
    solve_growing(U, nu, working_size, every)


@settings(max_examples=40, deadline=None)
@given(U=arrays(np.float64, (30, 6), elements=st.sampled_from([-1.0, 1.0])),
       which=st.sampled_from(["just above 1", "1", "integer", "1/2 above integer"]),
       working_size=st.integers(1, 4))
def test_sifting_at_the_extremes_of_nu(U, which, working_size):
    n = U.shape[0]
    nu = {"just above 1": 1.001 / n, "1": 1.0, "integer": 3.0 / n, "1/2 above integer": 3.5 / n}[which]
    solve_growing(U, nu, working_size)


def test_sifting_with_ties_many_equal_examples():
    # 8 distinct rows, each repeated 25 times: margins tie in large groups
    rng = np.random.default_rng(0)
    base = rng.choice([-1.0, 1.0], size=(8, 7))
    U = np.repeat(base, 25, axis=0)[rng.permutation(200)]
    for nu in (0.05, 0.2, 1.0):
        s, sol = solve_growing(U, nu, working_size=3)
        # examples are fixed at their bounds; the answer holds for every copy
        assert np.sum(s.state == FIXED_CAP) + np.sum(s.state == WORKING) >= 1


@pytest.mark.parametrize("data", sorted(DATASETS))
@pytest.mark.parametrize("nu", [0.05, 0.3])
def test_column_generation_with_sifting_reaches_the_lp_over_all_stumps(data, nu):
    X, y = DATASETS[data]()
    full = soft_margin_lp(all_stump_columns(X, y), nu)["value"]
    rec = RecordingBackend(HighspyBackend(working_size=5, early_answers=False))
    res = column_generation(LPBoost(nu), Stumps(X, y), backend=rec, tol=1e-10, columns_per_round=3)
    assert res.converged and res.objective == pytest.approx(full, abs=1e-8)
    assert len(rec.solutions) == len(res.history)
    for record, sol in zip(res.history, rec.solutions):
        check_optimality(sol, res.columns[:, :record.n_columns], nu, 1e-8)
        np.testing.assert_allclose(sol.dual_edges,
                                   sol.distribution @ res.columns[:, :record.n_columns], atol=1e-9)


def check_feasible_pair(sol, U, nu, tol):
    """An early answer: d in the capped simplex with every edge <= gamma, w in the simplex, and
    the objective rho - c . (rho - U w)^+ of w at the reported rho, at most gamma."""
    n = U.shape[0]
    cap = 1.0 / (nu * n)
    d, w, rho = sol.distribution, sol.weights, sol.rho
    assert abs(d.sum() - 1) <= tol and d.min() >= -tol and d.max() <= cap + tol
    assert np.all(d @ U <= sol.gamma + tol)
    assert abs(w.sum() - 1) <= tol and w.min() >= -tol
    value = rho - cap * np.maximum(rho - U @ w, 0.0).sum()
    assert sol.objective == pytest.approx(value, abs=tol)
    assert sol.primal_objective == sol.objective and value <= sol.gamma + tol


@pytest.mark.parametrize("data", sorted(DATASETS))
@pytest.mark.parametrize("nu", [0.05, 0.3])
def test_early_answers_are_feasible_pairs_and_the_run_ends_on_the_optimum(data, nu):
    # a round may answer after the first run (control.optimal False) while examples remain to
    # enter: its d and w are feasible for the full problem, so w's value bounds the full LP's
    # optimum from below and the gap taken from it is a certified one; the run ends on an optimum
    X, y = DATASETS[data]()
    full = soft_margin_lp(all_stump_columns(X, y), nu)["value"]
    rec = RecordingBackend(HighspyBackend(working_size=2))
    res = column_generation(LPBoost(nu), Stumps(X, y), backend=rec, tol=1e-10, columns_per_round=3)
    assert res.converged and res.objective == pytest.approx(full, abs=1e-8)
    early = [s for s in rec.solutions if not s.control.optimal]
    assert early, "no round answered early: the test does not exercise early answers"
    for sol in rec.solutions:
        U = res.columns[:, :sol.weights.size]
        if sol.control.optimal:
            check_optimality(sol, U, nu, 1e-8)
            continue
        check_feasible_pair(sol, U, nu, 1e-8)
        assert sol.objective <= full + 1e-9  # a lower bound on the full LP's optimum
        assert sol.gamma >= soft_margin_lp(U, nu)["value"] - 1e-9  # d bounds the restricted one
        assert sol.record["optimal"] is False and sol.record["violators"] > 0
    assert res.solution.control.optimal
    check_optimality(res.solution, res.columns, nu, 1e-8)
    for record in res.history:
        if record.extra.get("optimal") is False:  # the gap is taken from w's value, a lower bound
            assert record.primal <= full + 1e-9 <= record.primal + record.gap + 2e-9


def test_a_feasible_pair_is_verified_by_the_value_of_its_w():
    X, y = DATASETS["cancer-80x5"]()
    rec = RecordingBackend(HighspyBackend(working_size=4))
    res = column_generation(LPBoost(0.1), Stumps(X, y), backend=rec, tol=1e-10, columns_per_round=2)
    sol = next(s for s in rec.solutions if not s.control.optimal)
    U = res.columns[:, :sol.weights.size]
    check_verify_rejects_a_tampered_pair(LPBoost(0.1), sol, U)


def test_sifting_with_a_column_pool_keeps_the_optimum():
    X, y = DATASETS["cancer-80x5"]()
    full = soft_margin_lp(all_stump_columns(X, y), 0.1)["value"]
    backend = HighspyBackend(working_size=4)
    res = column_generation(LPBoost(0.1, pool=ColumnPool(1, 1)), Stumps(X, y), backend=backend, tol=1e-10)
    assert res.converged and res.objective == pytest.approx(full, abs=1e-8)
    assert sum(r.extra["removed"] for r in res.history) > 0


def test_small_sets_keep_every_example_in_the_model():
    s = sifting(0.2, 40, working_size=10)  # N = 4 working_size: no sifting
    s.add_column(np.where(np.arange(40) % 3 == 0, 1.0, -1.0))
    s.solve()
    assert not s.sifting and np.all(s.state == WORKING)
    assert sifting(0.2, 41, working_size=10).sifting


def test_sifting_is_selected_by_name_and_takes_its_options():
    session = HighspyBackend(working_size=7).open(LPBoost(0.2), 50)
    assert isinstance(session, HighsSiftingLP) and session.working_size == 7
    assert isinstance(get_backend("highspy").open(LPBoost(0.2), 5), HighsSiftingLP)  # the default
    with pytest.raises(ValueError, match="working_size"):
        HighspyBackend(working_size=0).open(LPBoost(0.2), 50)
    # the model can be looked at before the first solve
    session.add_column(np.where(np.arange(50) % 3 == 0, 1.0, -1.0))
    assert session.model.getNumRow() == 2  # sum d = 1 and one row a hypothesis


def test_the_default_working_set_grows_with_n_from_250_000_rows():
    from lpboosting.backends.highs.sifting import default_working_size

    assert [default_working_size(n) for n in (50, 250_000, 250_125, 500_000, 10**6, 10**7)] == [
        2000, 2000, 2001, 4000, 8000, 80000]
    assert get_backend("highspy").open(LPBoost(0.2), 500_000).working_size == 4000
    assert HighspyBackend(working_size=7).open(LPBoost(0.2), 500_000).working_size == 7  # given: kept


def test_the_working_set_is_trimmed_between_rounds():
    rng = np.random.default_rng(1)
    U = rng.choice([-1.0, 1.0], size=(400, 30))
    s = sifting(0.2, 400, working_size=10)
    entered = 0
    for j in range(30):
        s.add_column(U[:, j])
        entered += s.solve().record["entered"]
        # back to max(working_size, 2 t); only nonbasic examples leave, the basic ones (at most
        # one a row) may stay
        assert np.sum(s.state == WORKING) <= max(10, 2 * (j + 1)) + s.model.getNumRow()
    assert np.sum(s.state == WORKING) < 400
    assert entered > 0  # examples had to enter the working set


# ---- compact columns -----------------------------------------------------------------------

def test_compact_columns_are_int8_only_when_exact():
    assert compact(np.array([1.0, -1.0, 0.0])).dtype == np.int8
    assert compact(np.array([1.0, 0.5])).dtype == np.float64
    assert stack([compact(np.ones(3)), compact(-np.ones(3))], 3).dtype == np.int8
    assert stack([compact(np.ones(3)), np.full(3, 0.5)], 3).dtype == np.float64


def test_chunked_products_equal_float64_products(monkeypatch):
    import lpboosting.columns as columns

    monkeypatch.setattr(columns, "CHUNK_BYTES", 64)  # many blocks
    rng = np.random.default_rng(2)
    U = rng.choice([-1, 1], size=(101, 9)).astype(np.int8)
    w = rng.dirichlet(np.ones(4))
    idx = np.array([0, 3, 4, 8])
    np.testing.assert_allclose(weighted_sum(U, idx, w), U[:, idx].astype(float) @ w, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(gram(U[:, :3], U), U[:, :3].astype(float).T @ U.astype(float))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), t=st.integers(1, 60),
       quantile=st.floats(0.0, 1.0), spread=st.sampled_from(["dirichlet", "equal", "one large"]))
def test_float32_screening_is_exact_below_the_threshold_and_within_its_bound(seed, n, t, quantile, spread):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "SCREEN_ROWS", 0)  # screen every size (the default starts at 10^5 rows)
        check_screening(seed, n, t, quantile, spread)


def check_screening(seed, n, t, quantile, spread):
    rng = np.random.default_rng(seed)
    U = np.asfortranarray(rng.choice([-1, 0, 1], size=(n, t + 3)).astype(np.int8))
    idx = np.sort(rng.choice(t + 3, t, replace=False))
    w = {"dirichlet": rng.dirichlet(np.ones(t)), "equal": np.full(t, 1.0 / t),
         "one large": np.r_[1.0 - 1e-6 * (t - 1), np.full(t - 1, 1e-6)]}[spread]
    exact = weighted_sum(U, idx, w)
    approx, bound = approximate_sum(U, idx, w)
    assert np.all(np.abs(approx - exact) <= bound)
    below = float(np.quantile(exact, quantile))
    out = screened_sum(U, idx, w, below)
    low = exact <= below
    # below the threshold: weighted_sum's float64 sums (its own round-off, rows summed in another block)
    np.testing.assert_allclose(out[low], exact[low], rtol=0, atol=1e-15)
    assert np.all(out[~low] > below - 1e-15)
    assert np.all(np.abs(out - exact) <= bound)
    # at some rows, exact within a band [above, below] and on the same side of it elsewhere
    rows = np.sort(rng.choice(n, rng.integers(0, n + 1), replace=False))
    above = float(np.quantile(exact, quantile / 2))
    banded = screened_sum(U, idx, w, below, rows=rows, above=above)
    inside = (exact[rows] >= above) & (exact[rows] <= below)
    np.testing.assert_allclose(banded[inside], exact[rows][inside], rtol=0, atol=1e-15)
    assert np.all(banded[exact[rows] > below] > below - 1e-15)
    assert np.all(banded[exact[rows] < above] < above + 1e-15)
    assert np.all(np.abs(banded - exact[rows]) <= bound)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), nu=st.floats(0.01, 1.0),
       weighted=st.booleans())
def test_screened_margins_give_the_exact_soft_margin(seed, n, nu, weighted):
    rng = np.random.default_rng(seed)
    U = np.asfortranarray(rng.choice([-1, 1], size=(n, 12)).astype(np.int8))
    w = rng.dirichlet(np.ones(12))
    idx = np.arange(12)
    master = LPBoost(max(nu, 1.001 / n), sample_weight=rng.uniform(0.1, 2.0, n) if weighted else None)
    exact = master.value_at(weighted_sum(U, idx, w))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "SCREEN_ROWS", 0)
        screened = master.margins_for_value(U, idx, w)
    assert master.value_at(screened) == pytest.approx(exact, rel=0, abs=1e-14)


@pytest.mark.parametrize("support", [40, 300])  # below and above the support read row by row
def test_column_dots_over_the_support_of_d_equal_the_dense_sums(support):
    rng = np.random.default_rng(4)
    U = np.asfortranarray(rng.choice([-1, 1], size=(500, 7)).astype(np.int8))
    d = np.zeros(500)
    d[rng.choice(500, support, replace=False)] = rng.dirichlet(np.ones(support))
    dense = U.astype(float).T @ d
    np.testing.assert_allclose(column_dots(U, d), dense, rtol=0, atol=1e-15)
    np.testing.assert_allclose(column_dots(U.astype(float), d, np.array([1, 5])), dense[[1, 5]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("rows", ["all", "all but one", "reversed", "repeated"])
def test_take_rows_equals_fancy_indexing_and_reads_all_rows_in_place(rows):
    """Every row in order (a working set that holds every example) is read in place: a view for a
    slice of columns, the same entries as U[rows, index] whatever the rows."""
    U = np.asfortranarray(np.random.default_rng(2).choice([-1, 1], size=(40, 9)).astype(np.int8))
    rows = {"all": np.arange(40), "all but one": np.delete(np.arange(40), 7),
            "reversed": np.arange(40)[::-1], "repeated": np.r_[np.arange(39), 38]}[rows]
    index = np.array([0, 4, 8])
    np.testing.assert_array_equal(take_rows(U, rows, slice(2, 6)), U[rows, 2:6])
    np.testing.assert_array_equal(take_rows(U, rows, index), U[np.ix_(rows, index)])
    in_order = rows.size == 40 and bool(np.all(rows == np.arange(40)))
    assert np.shares_memory(take_rows(U, rows, slice(2, 6)), U) == in_order


@pytest.mark.parametrize("own", [None, 0.5])
def test_a_time_limited_solve_stops_at_highs_clock_and_the_model_keeps_its_own_limit(own):
    """Inside ``time_limited(s)`` HiGHS's time_limit is its run time so far plus s (or the model's own
    limit, when smaller), and afterwards the model's own again; with s = 0 the solve stops at once."""
    from lpboosting.datasets import breast_cancer

    X, y = breast_cancer()
    backend = HighspyBackend() if own is None else HighspyBackend(time_limit=own)
    session = backend.open(LPBoost(0.2), X.shape[0])
    candidates = Stumps(X, y).price_many(np.full(X.shape[0], 1.0 / X.shape[0]), 3)
    session.add_column(candidates[0].column)
    assert session.solve().status is SolveStatus.OPTIMAL
    h = session._h
    own_limit = h.getOptionValue("time_limit")[1]
    assert own_limit == (np.inf if own is None else own)
    with session.time_limited(100.0):
        assert h.getOptionValue("time_limit")[1] == min(own_limit, h.getRunTime() + 100.0)
        session.add_column(candidates[1].column)
        assert session.solve().status is SolveStatus.OPTIMAL
    assert h.getOptionValue("time_limit")[1] == own_limit
    with session.time_limited(0.0):
        session.add_column(candidates[2].column)
        assert session.solve().status is SolveStatus.TIME_LIMIT
    assert h.getOptionValue("time_limit")[1] == own_limit
    assert session.solve().status is SolveStatus.OPTIMAL  # the same model, solved on


def test_a_column_key_depends_on_its_values_not_its_dtype():
    from lpboosting.colgen.loop import column_key

    signs = np.array([1.0, -1.0, 0.0, -0.0])
    assert column_key(signs) == column_key(signs.astype(np.int8)) == column_key(np.array([1.0, -1.0, -0.0, 0.0]))
    assert column_key(np.array([0.5, 1.0])) == column_key(np.array([0.5, 1.0]) + 0.0)
    assert column_key(np.array([0.5, -0.0])) == column_key(np.array([0.5, 0.0]))
    assert column_key(np.array([0.5, 1.0])) != column_key(np.array([0.0, 1.0]))  # not truncated to int8
    assert column_key(np.array([300.0, 1.0])) != column_key(np.array([44.0, 1.0]))  # nor wrapped


def test_sifting_with_float32_screening_reaches_the_lp_over_all_stumps(monkeypatch):
    monkeypatch.setattr(columns, "SCREEN_ROWS", 0)  # every full check and verification screens
    X, y = DATASETS["cancer-60x8"]()
    U = all_stump_columns(X, y)
    s, sol = solve_growing(U, 0.2, working_size=8, every=7)
    assert s.sifting
    # the loop too: each round verified on screened margins
    run = column_generation(LPBoost(0.2), Stumps(X, y), backend=HighspyBackend(working_size=8), tol=1e-9)
    assert run.status == "converged"
    assert run.objective == pytest.approx(soft_margin_lp(U, 0.2)["value"], abs=1e-8)


@pytest.mark.parametrize("backend", ["highspy", "highspy:delta", "highspy:rows"])
def test_compact_columns_give_identical_results(monkeypatch, backend):
    X, y = DATASETS["cancer-60x8"]()
    a = column_generation(LPBoost(0.1), Stumps(X, y), backend=backend, tol=1e-9, columns_per_round=4)
    assert a.columns.dtype == np.int8
    import lpboosting.backends.base as base

    as_float = lambda u: np.asarray(u, dtype=float)  # noqa: E731
    monkeypatch.setattr(base, "compact", as_float)  # the sessions' and the loop's column stores
    b = column_generation(LPBoost(0.1), Stumps(X, y), backend=backend, tol=1e-9, columns_per_round=4)
    assert b.columns.dtype == np.float64
    np.testing.assert_array_equal(a.columns, b.columns)
    assert a.objective == b.objective
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.distribution, b.distribution)


def test_a_column_that_is_not_sign_valued_turns_the_store_to_float():
    rng = np.random.default_rng(3)
    U = np.column_stack([rng.choice([-1.0, 1.0], size=40), rng.uniform(-1, 1, size=40),
                         rng.choice([-1.0, 1.0], size=40)])
    res = column_generation(LPBoost(0.2), Columns(U), backend="highspy", tol=1e-10)
    assert res.objective == pytest.approx(soft_margin_lp(U, 0.2)["value"], abs=1e-9)
    s, _ = solve_growing(U, 0.2, working_size=3)
    assert s.store.data.dtype == np.float64


def test_trees_oracle_with_sifting_and_compact_columns():
    X, y = DATASETS["cancer-80x5"]()
    rec = RecordingBackend(HighspyBackend(working_size=6, early_answers=False))
    res = column_generation(LPBoost(0.1), Trees(X, y, max_depth=2), backend=rec, tol=1e-9, max_rounds=30)
    assert res.columns.dtype == np.int8  # tree columns are +-1
    for record, sol in zip(res.history, rec.solutions):
        U = res.columns[:, :record.n_columns].astype(float)
        assert sol.objective == pytest.approx(soft_margin_lp(U, 0.1)["value"], abs=1e-9)
        check_optimality(sol, U, 0.1, 1e-8)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 120), nu=st.floats(0.05, 1.0),
       screen=st.booleans())
def test_the_sifting_check_margins_are_those_the_verification_would_sum(seed, n, nu, screen):
    # the verification reads the session's margins (exact at or below rho + tol, above it for
    # certain elsewhere): their soft margin is that of U w summed afresh, and a wrong threshold
    # makes the master sum them itself
    rng = np.random.default_rng(seed)
    U = rng.choice([-1, 1], size=(n, 10)).astype(np.int8)
    with pytest.MonkeyPatch.context() as patch:
        if screen:
            patch.setattr(columns, "SCREEN_ROWS", 0)
        s, sol = solve_growing(U.astype(float), nu, working_size=3, every=5)
    master = LPBoost(nu)
    positive = np.flatnonzero(sol.weights)
    exact = weighted_sum(U, positive, sol.weights[positive])
    assert sol.margins is not None
    below = sol.margins <= sol.margins_exact_below
    np.testing.assert_allclose(sol.margins[below], exact[below], rtol=0, atol=1e-15)
    assert np.all(exact[~below] > sol.margins_exact_below)
    if master.known_margins(sol, n) is not None:
        assert master.value_at(sol.margins) == pytest.approx(master.value_at(exact), rel=0, abs=1e-14)
    assert master.verify(sol, U.astype(float)) == ""
    sol.margins_exact_below = float(np.min(exact)) - 1.0  # no margin is known exactly
    assert master.known_margins(sol, n) is None
    assert master.verify(sol, U.astype(float)) == ""


def test_the_verification_reads_the_session_margins_when_they_cover_the_caps():
    master = LPBoost(0.5)
    margins = np.array([-0.2, 0.1, 0.3, 0.9])
    sol = MasterSolution(status=SolveStatus.OPTIMAL, objective=0.0, primal_objective=0.0, dual_objective=0.0,
                         weights=np.ones(1), distribution=np.full(4, 0.25), margins=margins,
                         margins_exact_below=0.1)
    assert master.known_margins(sol, 4) is None  # caps of {-0.2, 0.1}: 1/2 each, their sum not above 1
    sol.margins_exact_below = 0.3
    assert master.known_margins(sol, 4) is margins
    assert master.known_margins(sol, 5) is None  # not one margin an example
