"""Column generation against the full LP over the whole hypothesis class."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpboosting import column_generation
from lpboosting.datasets import softboost_synthetic
from lpboosting.masters import LPBoost
from lpboosting.oracles import CallableOracle, Columns, Features, Stumps, Trees
from lpboosting.backends import RecordingBackend
from tests.helpers import (
    all_stump_columns, blobs, cancer_subset, check_optimality, DATASETS, FailingBackend, soft_margin_lp,
)


@pytest.mark.parametrize("data", sorted(DATASETS))
@pytest.mark.parametrize("nu", [0.05, 0.2, 0.5])
def test_stumps_column_generation_reaches_full_lp(data, nu):
    X, y = DATASETS[data]()
    full = soft_margin_lp(all_stump_columns(X, y), nu)
    rec = RecordingBackend("highspy")
    res = column_generation(LPBoost(nu), Stumps(X, y), backend=rec, tol=1e-9)
    assert res.status == "converged"
    assert res.objective == pytest.approx(full["value"], abs=1e-7)
    # the returned weights realise that soft margin on the returned columns
    check_optimality(res.solution, res.columns, nu, 1e-8)
    # every round: primal = dual, d in the capped simplex, w in the simplex, CS
    for t, sol in enumerate(rec.solutions, start=1):
        check_optimality(sol, res.columns[:, :t], nu, 1e-8)
    for record in res.history:
        assert record.primal == pytest.approx(record.dual, abs=1e-9)
        # the gap bounds the full optimum from above: gamma_t <= gamma* <= best edge
        assert record.dual <= full["value"] + 1e-9 <= record.edge + 2e-9
        assert record.gap == pytest.approx(record.edge - record.dual)
    assert res.history[-1].gap <= 1e-9
    # the master value never decreases as columns are added
    duals = np.array(res.history.to_dict()["dual"])
    assert np.all(np.diff(duals) >= -1e-9)


@pytest.mark.parametrize("nu", [0.1, 0.3])
def test_features_oracle_reaches_full_lp_on_softboost_synthetic(nu):
    Xtr, ytr, _, _ = softboost_synthetic(n_rows=800, n_features=40, n_train=300, random_state=1)
    oracle = Features(Xtr, ytr)
    full = soft_margin_lp(oracle.margin_matrix(), nu)
    res = column_generation(LPBoost(nu), oracle, tol=1e-9)
    assert res.status == "converged"
    assert res.objective == pytest.approx(full["value"], abs=1e-7)
    # the same optimum with the finite pool given as columns
    pool = column_generation(LPBoost(nu), Columns(oracle.margin_matrix()), tol=1e-9)
    assert pool.objective == pytest.approx(full["value"], abs=1e-7)


def test_stump_oracle_is_exact_against_brute_force():
    rng = np.random.default_rng(0)
    for trial in range(30):
        n, f = rng.integers(2, 40), rng.integers(1, 5)
        X = rng.integers(0, 5, size=(n, f)).astype(float) if trial % 2 else rng.normal(size=(n, f))
        y = rng.choice([-1.0, 1.0], n)
        d = rng.dirichlet(np.ones(n))
        cand = Stumps(X, y).price(d)
        best = np.max(d @ all_stump_columns(X, y))
        assert cand.edge == pytest.approx(best, abs=1e-12)
        # the column is the stump's own prediction on the training data
        np.testing.assert_array_equal(cand.column, y * cand.hypothesis.predict(X))
        assert cand.edge == pytest.approx(d @ cand.column)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 30), f=st.integers(1, 4), seed=st.integers(0, 2**31),
    levels=st.integers(2, 6),
)
def test_stump_edges_table_matches_brute_force(n, f, seed, levels):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, f)).astype(float)
    y = rng.choice([-1.0, 1.0], n)
    d = rng.dirichlet(np.ones(n))
    table = Stumps(X, y).edges(d)
    finite = table[np.isfinite(table)]
    brute = d @ all_stump_columns(X, y)
    assert np.max(np.abs(finite)) == pytest.approx(np.max(brute), abs=1e-12)
    # each valid split is one stump and its negation
    assert np.allclose(np.sort(np.unique(np.round(np.concatenate([finite, -finite]), 12))),
                       np.sort(np.unique(np.round(brute, 12))))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 60), f=st.integers(1, 5), levels=st.integers(1, 4), block=st.integers(1, 40),
       seed=st.integers(0, 2**31))
def test_best_row_of_each_feature_by_blocks_is_the_first_largest_absolute_edge(n, f, levels, block, seed):
    """price_many's per-feature search over blocks of rows: the first row of the largest |e|, ties included."""
    rng = np.random.default_rng(seed)
    e = rng.integers(-levels, levels + 1, size=(n, f)).astype(float)  # many ties, of both signs
    rows = Stumps._best_rows(e, block=block)
    for j in range(f):
        a = np.abs(e[:, j])
        assert rows[j] == np.flatnonzero(a == a.max())[0]


def test_features_oracle_is_exact():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    X[:, 2] = 3.0  # a constant feature gives the zero hypothesis
    y = rng.choice([-1.0, 1.0], 40)
    o = Features(X, y)
    H = o.margin_matrix()
    assert np.all(np.abs(H) <= 1) and np.all(H[:, 2] == 0)
    for _ in range(10):
        d = rng.dirichlet(np.ones(40))
        cand = o.price(d)
        assert cand.edge == pytest.approx(np.max(d @ H), abs=1e-12)
        np.testing.assert_allclose(cand.column, y * cand.hypothesis.predict(X))


def test_inexact_oracle_reports_no_gap():
    X, y = blobs(60, 0)
    res = column_generation(LPBoost(0.2), Trees(X, y, max_depth=2), max_rounds=15)
    assert res.history.meta["exact"] is False
    assert all(r.gap is None and not r.exact for r in res.history)
    assert res.gap is None


def test_callable_oracle_and_duplicate_column_stop():
    U = np.array([[1.0, -1.0, 0.5], [-1.0, 1.0, 0.5], [1.0, 1.0, -1.0]])
    calls = []

    def fn(d):
        calls.append(d)
        m = int(np.argmax(d @ U))
        return U[:, m], m

    res = column_generation(LPBoost(1.0), CallableOracle(fn, 3, exact=True), tol=1e-9)
    ref = soft_margin_lp(U, 1.0)
    assert res.status == "converged"
    assert res.objective == pytest.approx(ref["value"], abs=1e-9)
    assert res.hypotheses == sorted(set(res.hypotheses), key=res.hypotheses.index)


def test_callback_stops_and_keeps_the_model():
    X, y = cancer_subset(80, 5, 0)
    seen = []
    res = column_generation(LPBoost(0.1), Stumps(X, y), callback=lambda r: seen.append(r) or r.round == 3)
    assert res.status == "stopped" and res.n_rounds == 3 and len(seen) == 3
    assert res.history[-1].status == "stopped"
    assert res.columns.shape == (80, 3) and len(res.hypotheses) == 3
    assert res.objective == pytest.approx(res.history[-1].primal)


def test_keyboard_interrupt_keeps_the_last_master():
    X, y = cancer_subset(80, 5, 0)

    def interrupt(record):
        if record.round == 4:
            raise KeyboardInterrupt

    res = column_generation(LPBoost(0.1), Stumps(X, y), callback=interrupt)
    assert res.status == "interrupted" and res.n_rounds == 4
    assert res.history.meta["status"] == "interrupted"
    assert res.objective == pytest.approx(res.history[3].primal)
    check_optimality(res.solution, res.columns, 0.1, 1e-8)


def test_solver_failure_mid_run_keeps_the_previous_master():
    X, y = cancer_subset(80, 5, 0)
    rec = FailingBackend("highspy", fail_at=5)
    res = column_generation(LPBoost(0.1), Stumps(X, y), backend=rec)
    assert res.status == "solver_error" and "injected failure" in res.message
    assert [s.ok for s in rec.solutions] == [True] * 4 + [False]
    assert res.columns.shape[1] == 4
    assert res.objective == pytest.approx(rec.solutions[3].objective)
    assert res.history[-1].status == "solver_error" and res.history[-1].primal is None


def test_max_rounds_and_option_checks():
    X, y = cancer_subset(80, 5, 0)
    res = column_generation(LPBoost(0.1), Stumps(X, y), max_rounds=2)
    assert res.status == "max_rounds" and res.n_rounds == 2
    with pytest.raises(ValueError, match="max_rounds"):
        column_generation(LPBoost(0.1), Stumps(X, y), max_rounds=0)
    with pytest.raises(ValueError, match="tol"):
        column_generation(LPBoost(0.1), Stumps(X, y), tol=-1)


def test_oracles_accept_signed_weightings():
    # RMBoost prices with signed weights; every oracle maximises sum_n d_n y_n h(x_n) all the same
    X, y = cancer_subset(60, 4, 3)
    rng = np.random.default_rng(0)
    d = rng.normal(size=60) / 60
    best = np.max(d @ all_stump_columns(X, y))
    assert Stumps(X, y).price(d).edge == pytest.approx(best, abs=1e-12)
    tree = Trees(X, y, max_depth=1).price(d)
    np.testing.assert_allclose(tree.column, y * tree.hypothesis.predict(X))
    # a depth-1 tree is a stump (or a constant): its edge cannot beat the best stump, and CART's
    # weighted-majority leaves make it positive
    assert 0 < tree.edge <= best + 1e-12


def test_trees_oracle_fits_the_same_tree_as_plain_scikit_learn():
    # the oracle skips scikit-learn's input checks after the first fit; the trees it grows
    # must be the ones a plain, fully checked fit grows from the same weighting
    from sklearn.tree import DecisionTreeClassifier

    X, y = cancer_subset(120, 6, 5)
    oracle = Trees(X, y, max_depth=None, max_leaf_nodes=6)
    rng = np.random.default_rng(4)
    for _ in range(4):
        d = rng.normal(size=y.size) / y.size
        candidate = oracle.price(d)
        plain = DecisionTreeClassifier(max_depth=None, max_leaf_nodes=6, random_state=0).fit(
            X, np.where(d < 0, -y, y), sample_weight=np.abs(d))
        np.testing.assert_array_equal(candidate.column, y * plain.predict(X))
        assert candidate.edge == pytest.approx(float(d @ (y * plain.predict(X))), abs=1e-12)
    with pytest.raises(ValueError):  # parameters are still validated on the first fit
        Trees(X, y, max_leaf_nodes=1).price(np.full(y.size, 1 / y.size))


def test_one_stumps_oracle_priced_many_times_stays_exact_and_allocates_no_n_by_f_array():
    import pickle
    import tracemalloc

    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(60, 3)), 1)  # ties
    y = rng.choice([-1.0, 1.0], 60)
    oracle = Stumps(X, y)
    U = all_stump_columns(X, y)
    for _ in range(20):  # the reused buffer leaves nothing behind from an earlier call
        d = rng.dirichlet(np.ones(60))
        assert oracle.price(d).edge == pytest.approx(np.max(d @ U), abs=1e-12)
        many = oracle.price_many(d, 7)
        best_seven = np.sort(np.unique(np.round(d @ U, 12)))[::-1]
        assert many[0].edge == pytest.approx(best_seven[0], abs=1e-12)
        assert len({c.column.tobytes() for c in many}) == len(many) == 7
        table = oracle.edges(d)
        assert np.isnan(table[oracle._invalid]).all()
    assert pickle.loads(pickle.dumps(oracle))._buffer is None
    # large N: after the first call, pricing allocates nothing of size N x F
    n, f = 100_000, 60
    X = rng.normal(size=(n, f))
    y = rng.choice([-1.0, 1.0], n)
    big = Stumps(X, y)
    d = np.full(n, 1.0 / n)
    big.price_many(d, 12)
    tracemalloc.start()
    big.price(d)
    big.price_many(d, 12)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # what may be allocated: the 12 candidate columns returned and a few length-N vectors,
    # well below one N x F float array (48 MB here; before pricing worked in place: 97 MB at F = 40)
    assert peak < 12 * n * 8 + 8 * n * 8 < n * f * 8 / 2, f"a pricing call allocated {peak / 1e6:.0f} MB"


def distinct_columns(res) -> bool:
    """No column of the run equals another, as vectors and as hypotheses."""
    columns = np.asarray(res.columns, dtype=float).T
    hypotheses = [repr(h) for h in res.hypotheses]
    return len(np.unique(columns, axis=0)) == len(columns) and len(set(hypotheses)) == len(hypotheses)


@pytest.mark.parametrize("columns_per_round", [1, 20])
def test_a_tol_below_the_solvers_accuracy_adds_no_column_twice(columns_per_round):
    """tol=1e-15: a column already in the master looks improving by the round-off of its solve
    (20 columns a round re-added some); none is added twice, and the run reaches the full LP."""
    X, y = cancer_subset(60, 30, 0)
    res = column_generation(LPBoost(0.2), Stumps(X, y), tol=1e-15, columns_per_round=columns_per_round,
                            max_rounds=300)
    assert res.status == "converged"
    assert distinct_columns(res)
    # the restricted master's optimum is the full LP's, to HiGHS's accuracy (1e-9 feasibility, scaled)
    assert res.objective == pytest.approx(soft_margin_lp(all_stump_columns(X, y), 0.2)["value"], abs=1e-7)


class _RoundOffOracle(Columns):
    """A column pool whose edges come out 1e-12 above d . u, as a solve's round-off can make them."""

    def price_many(self, distribution, k):
        return [type(c)(c.hypothesis, c.column, c.edge + 1e-12) for c in super().price_many(distribution, k)]


@pytest.mark.parametrize("columns_per_round", [1, 3])
def test_a_run_whose_improving_columns_are_all_in_the_master_has_converged(columns_per_round):
    """When every column that improves the master by more than tol is already in it, the run stops,
    converged to the solver's accuracy (it re-added them until max_rounds)."""
    U = np.array([[1.0, -1.0, 0.5, 1.0], [-1.0, 1.0, 0.5, -1.0], [1.0, 1.0, -1.0, -1.0]])
    res = column_generation(LPBoost(1.0), _RoundOffOracle(U), tol=1e-15, columns_per_round=columns_per_round,
                            max_rounds=50)
    assert res.status == "converged" and res.n_rounds < 50
    assert "accuracy of the master's solver" in res.message
    assert res.history[-1].extra["repeated_columns"] >= 1
    assert distinct_columns(res)
    assert res.objective == pytest.approx(soft_margin_lp(U, 1.0)["value"], abs=1e-9)
