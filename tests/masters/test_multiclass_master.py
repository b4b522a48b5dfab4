"""The multiclass master against an independent statement of its LP over all (example, wrong class) pairs.

The reference is the primal written here pair by pair with scipy's linprog
(HiGHS through scipy, its own model and its own dual): optimum values within
the solvers' tolerances (:data:`tests.helpers.TOL`: 1e-9 for HiGHS's simplex,
1e-6 for the interior-point solvers), both solutions feasible, complementary
slackness, and the pair distribution's structure (one cap per example).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from lpboosting import column_generation
from lpboosting.masters import LPBoost, MulticlassLPBoost
from lpboosting.oracles.multiclass import ClassPool
from lpboosting.pairs import pair_columns
from tests.helpers import TOL, check_verify_rejects_a_tampered_pair


def pool(seed: int, n: int, K: int, m: int):
    """Random predicted classes, right more often than chance (so the margins are not all <= 0)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    P = rng.integers(0, K, (n, m))
    right = rng.random((n, m)) < 0.35
    P[right] = np.broadcast_to(y[:, None], (n, m))[right]
    return y, P


def independent_lp(y: np.ndarray, P: np.ndarray, K: int, nu: float) -> dict:
    """max rho - 1/(nu N) sum psi s.t. sum_m w_m([P_im = y_i] - [P_im = k]) >= rho - psi_i for every
    i and k != y_i, w in the simplex, psi >= 0: one row per pair, built here from P, not from the
    library's pair layout."""
    n, m = P.shape
    rows, pairs = [], []
    for i in range(n):
        for k in range(K):
            if k == y[i]:
                continue
            a = np.zeros(m + 1 + n)
            a[:m] = -((P[i] == y[i]).astype(float) - (P[i] == k).astype(float))
            a[m], a[m + 1 + i] = 1.0, -1.0
            rows.append(a)
            pairs.append((i, k))
    cost = np.zeros(m + 1 + n)
    cost[m], cost[m + 1:] = -1.0, 1.0 / (nu * n)
    simplex = np.zeros((1, m + 1 + n))
    simplex[0, :m] = 1.0
    bounds = [(0, None)] * m + [(None, None)] + [(0, None)] * n
    res = linprog(cost, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=simplex, b_eq=[1.0],
                  bounds=bounds, method="highs")
    assert res.status == 0
    d = -res.ineqlin.marginals  # the distribution over pairs: linprog's marginals are <= 0
    return {"value": -res.fun, "w": res.x[:m], "d": d, "pairs": pairs}


def check_certificate(sol, U: np.ndarray, K: int, nu: float, tol: float) -> None:
    """Both solutions feasible, equal values, complementary slackness (over pairs, per example)."""
    rows, t = U.shape
    n = rows // (K - 1)
    cap = 1.0 / (nu * n)
    d, w, psi, rho, gamma = sol.distribution, sol.weights, sol.slacks, sol.rho, sol.gamma
    D = d.reshape(n, K - 1).sum(axis=1)
    assert d.min() >= -tol and abs(d.sum() - 1) <= tol and D.max() <= cap + tol
    edges = U.T.astype(float) @ d
    assert edges.max() <= gamma + tol
    assert w.min() >= -tol and abs(w.sum() - 1) <= tol and psi.min() >= -tol and psi.shape == (n,)
    margins = (U.astype(float) @ w).reshape(n, K - 1)
    assert np.all(margins >= rho - psi[:, None] - tol)  # primal feasible
    assert sol.objective == pytest.approx(gamma, abs=tol)  # equal values
    # complementary slackness: w_m > 0 -> edge = gamma; d_ik > 0 -> its margin = rho - psi_i;
    # psi_i > 0 -> example i's mass at the cap
    assert np.all(w[edges < gamma - 10 * tol] <= tol)
    assert np.all(d.reshape(n, K - 1)[margins > rho - psi[:, None] + 10 * tol] <= tol)
    assert np.all(D[psi > 10 * tol] >= cap - 10 * tol)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("K", [3, 5])
@pytest.mark.parametrize("nu", [0.05, 0.3, 1.0])
def test_master_matches_independent_lp(lp_backend, seed, K, nu):
    y, P = pool(seed, 24 + 5 * seed, K, 4 + 3 * seed)
    U = pair_columns(P, y, K)
    ref = independent_lp(y, P, K, nu)
    master = MulticlassLPBoost(nu, K)
    sol = master.solve(U, backend=lp_backend)
    tol = TOL[lp_backend]
    assert sol.objective == pytest.approx(ref["value"], abs=tol)
    assert sol.dual_objective == pytest.approx(ref["value"], abs=tol)
    check_certificate(sol, U, K, nu, 10 * tol)
    assert master.verify(sol, U) == ""
    # the independent LP's dual is a distribution over the same pairs, in the same layout, with
    # the same value: the pair order (example-major, wrong classes ascending) is the library's
    ref_edges = U.T.astype(float) @ ref["d"]
    assert ref_edges.max() == pytest.approx(ref["value"], abs=1e-8)
    assert [k for i, k in ref["pairs"] if i == 0] == [k for k in range(K) if k != y[0]]


@pytest.mark.parametrize("seed", range(3))
def test_any_pair_matrix_not_only_votes(lp_backend, seed):
    # margins that are not votes (a user's matrix): written term by term on the pairs
    rng = np.random.default_rng(seed)
    n, K, nu = 20, 4, 0.25
    U = rng.uniform(-1.0, 1.0, size=(n * (K - 1), 5))
    rows = [np.concatenate([-U[p], [1.0], -np.eye(n)[p // (K - 1)]]) for p in range(U.shape[0])]
    cost = np.concatenate([np.zeros(5), [-1.0], np.full(n, 1.0 / (nu * n))])
    res = linprog(cost, A_ub=np.array(rows), b_ub=np.zeros(len(rows)),
                  A_eq=np.concatenate([np.ones(5), np.zeros(1 + n)])[None], b_eq=[1.0],
                  bounds=[(0, None)] * 5 + [(None, None)] + [(0, None)] * n, method="highs")
    sol = MulticlassLPBoost(nu, K).solve(U, backend=lp_backend)
    assert sol.objective == pytest.approx(-res.fun, abs=TOL[lp_backend])
    check_certificate(sol, U, K, nu, 10 * TOL[lp_backend])


def test_the_highs_model_writes_votes_as_differences():
    # the model over every pair (highspy:delta): stumps of one feature at nearby thresholds vote alike on most examples: the live model holds
    # about one nonzero per example where their votes differ, not K - 1 per pair column entry
    from lpboosting.backends import get_backend

    rng = np.random.default_rng(0)
    n, K = 200, 5
    x, y = rng.normal(size=n), rng.integers(0, K, n)
    P = np.column_stack([np.where(x > t, 1, 2) for t in np.linspace(-1, 1, 30)])
    U = pair_columns(P, y, K)
    master = MulticlassLPBoost(0.2, K)
    session = get_backend("highspy:delta").open(master, U.shape[0])
    for j in range(U.shape[1]):
        session.add_column(U[:, j])
    solution = session.solve()
    assert master.verify(solution, U) == ""
    assert solution.objective == pytest.approx(MulticlassLPBoost(0.2, K).solve(U, backend="cvxpy:HIGHS").objective,
                                               abs=1e-9)
    written = session.nonzeros - (n + n * K)  # beyond the sum and cap rows
    assert written < np.count_nonzero(U) / 4


def test_known_instance_signs():
    # two examples of class 0, K = 3; h1 votes 0 (right on both), h2 votes 1 on example 0 and 0 on
    # example 1.  Pair columns (rows (0,1), (0,2), (1,1), (1,2)): h1 (1, 1, 1, 1), h2 (-1, 0, 1, 1).
    y = np.array([0, 0])
    P = np.array([[0, 1], [0, 0]])
    U = pair_columns(P, y, 3)
    np.testing.assert_array_equal(U, [[1, -1], [1, 0], [1, 1], [1, 1]])
    sol = MulticlassLPBoost(1.0, 3).solve(U)
    # h1 alone gives every margin 1, the best possible: w = (1, 0), value 1
    assert sol.objective == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(sol.weights, [1.0, 0.0], atol=1e-12)
    # gamma = 1 is h1's edge under any d; h2's edge d.u2 <= 1 too; every example's mass at most
    # its cap 1/(nu N) = 1/2, so both examples carry exactly 1/2
    np.testing.assert_allclose(sol.distribution.reshape(2, 2).sum(axis=1), [0.5, 0.5], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 14), m=st.integers(1, 5), nu=st.floats(0.02, 1.0))
def test_two_classes_are_lpboost(seed, n, m, nu):
    y, P = pool(seed, n, 2, m)
    U = pair_columns(P, y, 2)
    np.testing.assert_array_equal(U, np.where(P == y[:, None], 1, -1))  # u_i = y_i h(x_i) in +-1 terms
    a = MulticlassLPBoost(nu, 2).solve(U)
    b = LPBoost(nu).solve(U.astype(float))
    assert a.objective == pytest.approx(b.objective, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), K=st.integers(3, 5), nu=st.floats(0.05, 1.0))
def test_invariant_to_class_names_row_and_column_order(seed, K, nu):
    y, P = pool(seed, 12, K, 4)
    rng = np.random.default_rng(seed)
    base = MulticlassLPBoost(nu, K).solve(pair_columns(P, y, K)).objective
    rename = rng.permutation(K)  # the classes renamed: the pair layout changes, the LP does not
    rows, cols = rng.permutation(y.size), rng.permutation(P.shape[1])
    other = MulticlassLPBoost(nu, K).solve(pair_columns(rename[P][rows][:, cols], rename[y][rows], K)).objective
    assert other == pytest.approx(base, abs=1e-9)


@pytest.mark.parametrize("nu", [0.1, 0.5])
def test_column_generation_over_a_pool_equals_the_lp_over_the_pool(nu):
    y, P = pool(7, 40, 4, 60)
    full = MulticlassLPBoost(nu, 4).solve(pair_columns(P, y, 4))
    result = column_generation(MulticlassLPBoost(nu, 4), ClassPool(P, y, 4), tol=1e-9)
    assert result.status == "converged"
    assert result.objective == pytest.approx(full.objective, abs=1e-9)
    assert result.gap <= 1e-9
    assert result.columns.shape == (40 * 3, len(result.hypotheses))
    assert len(result.hypotheses) < 60  # it needed only some of the pool


def test_sample_weights_are_repeated_examples():
    y, P = pool(3, 15, 3, 6)
    w = np.arange(15) % 3
    repeated = np.repeat(np.arange(15), w)
    a = MulticlassLPBoost(0.3, 3, sample_weight=w.astype(float)).solve(pair_columns(P, y, 3))
    b = MulticlassLPBoost(0.3, 3).solve(pair_columns(P[repeated], y[repeated], 3))
    assert a.objective == pytest.approx(b.objective, abs=1e-9)


def test_matrix_form_is_the_same_lp():
    y, P = pool(2, 20, 3, 5)
    U = pair_columns(P, y, 3)
    master = MulticlassLPBoost(0.2, 3)
    value = master.solve(U).objective
    for form in ("dual", "primal"):
        lp = master.matrix_form(U, form)
        res = linprog(**lp.linprog_arguments())
        assert res.status == 0
        objective = -res.fun + lp.offset if lp.sense == "max" else res.fun + lp.offset
        assert objective == pytest.approx(value, abs=1e-9)
    dual = master.matrix_form(U)
    assert dual.row_names[-1] == "cap_19" and dual.col_names[-1] == "gamma"


def test_verify_rejects_a_wrong_answer():
    y, P = pool(4, 20, 3, 6)
    U = pair_columns(P, y, 3)
    master = MulticlassLPBoost(0.2, 3)
    sol = master.solve(U)
    assert master.verify(sol, U) == ""
    d = sol.distribution.copy()
    sol.distribution = np.zeros_like(d)
    sol.distribution[:2] = 0.5  # one example's pairs carry everything: far above its cap
    assert "cap" in master.verify(sol, U)
    sol.distribution = d
    sol.weights = np.roll(sol.weights, 1)
    assert master.verify(sol, U) != ""


@pytest.mark.parametrize("bad", [1, 0, 2.5, "three"])
def test_bad_number_of_classes(bad):
    with pytest.raises(ValueError, match="n_classes must be an integer >= 2"):
        MulticlassLPBoost(0.1, bad)


def test_rows_that_are_not_whole_examples_are_refused():
    with pytest.raises(ValueError, match="not whole examples"):
        MulticlassLPBoost(0.1, 4).solve(np.ones((10, 2)))


def test_a_column_pool_deletes_rows_and_keeps_the_optimum():
    from sklearn.datasets import load_wine

    from lpboosting.oracles.multiclass import ClassStumps

    X, y = load_wine(return_X_y=True)
    pooled = column_generation(MulticlassLPBoost(0.2, 3, pool={"inactive_rounds": 2}), ClassStumps(X, y, 3),
                               columns_per_round=5)
    plain = column_generation(MulticlassLPBoost(0.2, 3), ClassStumps(X, y, 3), columns_per_round=5)
    assert pooled.status == plain.status == "converged"
    assert sum(r.extra.get("removed", 0) for r in pooled.history) > 0
    assert pooled.objective == pytest.approx(plain.objective, abs=1e-9)


def sifting(working_size: int):
    """The default HiGHS session (sifting over pairs) with a working set of ``working_size``."""
    from lpboosting.backends.highs.model import HighspyBackend

    return HighspyBackend(working_size=working_size)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("K", [3, 5])
@pytest.mark.parametrize("nu", [0.05, 0.3, 1.0])
@pytest.mark.parametrize("working_size", [1, 7])
def test_sifting_over_pairs_matches_independent_lp(seed, K, nu, working_size):
    # a working set far smaller than the pairs: the answer is still the LP over every pair (its
    # value, both solutions feasible, complementary slackness), with d = 0 outside the set
    y, P = pool(seed, 24 + 5 * seed, K, 4 + 3 * seed)
    U = pair_columns(P, y, K)
    ref = independent_lp(y, P, K, nu)
    master = MulticlassLPBoost(nu, K)
    session = sifting(working_size).open(master, U.shape[0])
    for j in range(U.shape[1]):
        session.add_column(U[:, j])
    sol = session.solve()
    assert sol.objective == pytest.approx(ref["value"], abs=1e-9)
    check_certificate(sol, U, K, nu, 1e-8)
    assert master.verify(sol, U) == ""
    assert sol.record["working"] < U.shape[0] or working_size * (K - 1) >= U.shape[0]


def test_sifting_over_pairs_round_by_round_and_along_nu():
    # column generation on wine with a working set of 10 pairs: every round's master equals the
    # model over every pair (highspy:delta) given the same columns, at each nu of a path whose
    # caps change in the live model (refresh_caps), and pairs both enter and leave the set
    from sklearn.datasets import load_wine

    from lpboosting.oracles.multiclass import ClassStumps

    X, y = load_wine(return_X_y=True)
    K = 3
    oracle = ClassStumps(X, y, K)
    master = MulticlassLPBoost(0.3, K)
    session = sifting(10).open(master, master.n_rows(X.shape[0]))
    columns = []
    d = master.initial_distribution(X.shape[0])
    records = []
    for nu in (0.3, 0.1, 0.5):
        master.nu = nu
        session.refresh_caps()
        for _ in range(8):
            for candidate in oracle.price_many(d, 3):
                session.add_column(candidate.column)
                columns.append(candidate.column)
            sol = session.solve()
            U = np.column_stack(columns)
            full = MulticlassLPBoost(nu, K).solve(U, backend="highspy:delta")
            assert sol.objective == pytest.approx(full.objective, abs=1e-9)
            check_certificate(sol, U, K, nu, 1e-8)
            records.append(sol.record)
            d = sol.distribution
    assert sum(r["entered"] for r in records) > 0 and sum(r["left"] for r in records) > 0
    assert max(r["working"] for r in records) < U.shape[0]


def check_feasible_pair(sol, U: np.ndarray, K: int, nu: float, tol: float) -> None:
    """An early answer: d in the capped simplex over pairs with every edge <= gamma, w in the
    simplex, and the objective rho - c . (rho - least pair margin of each example)^+ of w at the
    reported rho (the slacks of every pair, not only of the working set's), at most gamma."""
    n = U.shape[0] // (K - 1)
    cap = 1.0 / (nu * n)
    d, w, rho = sol.distribution, sol.weights, sol.rho
    assert abs(d.sum() - 1) <= tol and d.min() >= -tol and d.reshape(n, K - 1).sum(axis=1).max() <= cap + tol
    assert np.all(U.T.astype(float) @ d <= sol.gamma + tol)
    assert abs(w.sum() - 1) <= tol and w.min() >= -tol
    least = (U.astype(float) @ w).reshape(n, K - 1).min(axis=1)
    value = rho - cap * np.maximum(rho - least, 0.0).sum()
    assert sol.objective == pytest.approx(value, abs=tol)
    assert sol.primal_objective == sol.objective and value <= sol.gamma + tol


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("nu", [0.05, 0.3])
def test_early_answers_over_pairs_are_feasible_pairs_and_the_run_ends_on_the_optimum(seed, nu):
    # column generation over a finite pool with a working set of 2 pairs: a round may answer after
    # the first run while pairs remain to enter (control.optimal False); its d and w are feasible
    # for the LP over every pair, so w's value bounds the full optimum from below and the gap taken
    # from it is a certified one; the run ends on the LP over the whole pool
    from lpboosting.backends.recording import RecordingBackend

    K = 4
    y, P = pool(seed, 40, K, 30)
    ref = independent_lp(y, P, K, nu)
    rec = RecordingBackend(sifting(2))
    res = column_generation(MulticlassLPBoost(nu, K), ClassPool(P, y, K), backend=rec, tol=1e-10,
                            columns_per_round=2)
    assert res.converged and res.objective == pytest.approx(ref["value"], abs=1e-9)
    early = [s for s in rec.solutions if not s.control.optimal]
    assert early, "no round answered early: the test does not exercise early answers"
    for sol in rec.solutions:
        U = res.columns[:, :sol.weights.size]
        if sol.control.optimal:
            check_certificate(sol, U, K, nu, 1e-8)
            continue
        check_feasible_pair(sol, U, K, nu, 1e-8)
        assert sol.objective <= ref["value"] + 1e-9  # a lower bound on the full LP's optimum
        assert sol.record["optimal"] is False and sol.record["violators"] > 0
    assert res.solution.control.optimal
    check_certificate(res.solution, res.columns, K, nu, 1e-8)
    for record in res.history:
        if record.extra.get("optimal") is False:  # the gap is taken from w's value, a lower bound
            assert record.primal <= ref["value"] + 1e-9 <= record.primal + record.gap + 2e-9


def test_an_early_answer_over_pairs_is_verified_by_the_value_of_its_w():
    # the value is rho - c . psi with each example's slack from its least margin over all its
    # pairs: a tampered objective, or one computed from the pairs of the working set alone, fails
    from lpboosting.backends.recording import RecordingBackend

    K, nu = 4, 0.1
    y, P = pool(1, 40, K, 30)
    rec = RecordingBackend(sifting(2))
    res = column_generation(MulticlassLPBoost(nu, K), ClassPool(P, y, K), backend=rec, tol=1e-10,
                            columns_per_round=2)
    sol = next(s for s in rec.solutions if not s.control.optimal)
    U = res.columns[:, :sol.weights.size]
    check_verify_rejects_a_tampered_pair(MulticlassLPBoost(nu, K), sol, U)


def test_early_answers_over_pairs_can_be_turned_off():
    from lpboosting.backends.highs.model import HighspyBackend
    from lpboosting.backends.recording import RecordingBackend

    K = 4
    y, P = pool(0, 40, K, 30)
    rec = RecordingBackend(HighspyBackend(working_size=2, early_answers=False))
    res = column_generation(MulticlassLPBoost(0.3, K), ClassPool(P, y, K), backend=rec, tol=1e-10,
                            columns_per_round=2)
    assert res.converged and all(s.control.optimal for s in rec.solutions)
    assert sum(s.record["entered"] for s in rec.solutions) > 0  # the pairs entered within the solves
    with pytest.raises(ValueError, match="early_answers"):
        HighspyBackend(early_answers="no").open(MulticlassLPBoost(0.3, K), 40 * (K - 1))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), K=st.integers(3, 6), working_size=st.sampled_from([2, 5, 2000]),
       nu=st.sampled_from([0.1, 0.2, 0.5]))
def test_sifting_over_pairs_is_the_same_model_in_any_row_order(seed, K, working_size, nu):
    # the session orders the pairs it takes in by their entries, not by their position: with the
    # examples permuted it builds the same model up to interchangeable pairs, so the weights (not
    # only the value) are the same, on degenerate masters too (votes: many optimal vertices)
    y, P = pool(seed, 40, K, 12)
    perm = np.random.default_rng(seed).permutation(y.size)
    solutions = []
    for labels, votes in ((y, P), (y[perm], P[perm])):
        U = pair_columns(votes, labels, K)
        session = sifting(working_size).open(MulticlassLPBoost(nu, K), U.shape[0])
        for j in range(U.shape[1]):
            session.add_column(U[:, j])
        solutions.append(session.solve())
    first, second = solutions
    assert second.objective == pytest.approx(first.objective, abs=1e-9)
    np.testing.assert_allclose(second.weights, first.weights, atol=1e-9)
