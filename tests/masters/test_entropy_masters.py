"""SoftBoost, TotalBoost and ERLPBoost: dedicated vs conic projections, bounds, Figure 1."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lpboosting import (
    ERLPBoostClassifier, SoftBoostClassifier, TotalBoostClassifier, column_generation,
)
from lpboosting.backends import CvxpyBackend
from lpboosting.datasets import softboost_synthetic
from lpboosting.masters import ERLPBoost, LPBoost, SoftBoost, TotalBoost
from lpboosting.backends.cvxpy_backend import project_with_cvxpy
from lpboosting.masters.capped_simplex import relative_entropy
from lpboosting.oracles import Columns, Features, Stumps, Trees
from tests.helpers import all_stump_columns, cancer_subset, soft_margin_lp


def replay_states(master, result):
    """(U_t, state_t) of every projection a finished run solved."""
    U, edges = result.columns, result.edges
    n = U.shape[0]
    for t in range(1, U.shape[1] + 1):
        if isinstance(master, ERLPBoost):
            state = {"eta": master.eta(n)}
        else:
            bound = min(edges[:t]) - master.delta
            if LPBoost(master.lp_nu(n)).solve(U[:, :t]).gamma > bound - 1e-9:
                continue  # infeasible (the stopping round): nothing to compare
            state = {"bound": bound}
        yield U[:, :t], state


# conic solvers at their default accuracy give d to ~1e-5 only: ask for more
TIGHT = {
    "CLARABEL": {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11},
    "ECOS": {"abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9, "max_iters": 500},
}

RUNS = [
    ("synthetic-features", SoftBoost(0.1, 0.05)),
    ("synthetic-features", SoftBoost(0.3, 0.02)),
    ("synthetic-features", ERLPBoost(0.2, 0.05)),
    ("cancer-stumps", SoftBoost(0.2, 0.05)),
    ("cancer-stumps", TotalBoost(0.1)),
    ("cancer-stumps", ERLPBoost(0.1, 0.05)),
]


def make_oracle(name):
    if name == "synthetic-features":
        Xtr, ytr, _, _ = softboost_synthetic(n_rows=600, n_features=30, n_train=200, random_state=2)
        return Features(Xtr, ytr)
    X, y = cancer_subset(120, 8, 7)
    return Stumps(X, y)


@pytest.mark.parametrize("data, master", RUNS, ids=[f"{d}-{m!r}" for d, m in RUNS])
def test_dedicated_projection_agrees_with_conic_solvers(data, master):
    oracle = make_oracle(data)
    res = column_generation(master, oracle, backend="dedicated", max_rounds=40)
    assert res.n_rounds >= 3
    cap = master.cap(oracle.n_samples)
    compared = 0
    solved = {"CLARABEL": 0, "ECOS": 0}
    for U, state in replay_states(master, res):
        mine = master.project(U, backend="dedicated:newton", **state)
        assert mine.status == "optimal" and mine.verified
        d = mine.distribution
        assert abs(d.sum() - 1) < 1e-9 and d.min() >= 0 and d.max() <= cap + 1e-12
        assert abs(mine.objective - mine.dual_objective) <= 1e-8 * max(1.0, abs(mine.objective))
        for solver in ("CLARABEL", "ECOS"):
            ref = project_with_cvxpy(master, U, state, solver, TIGHT[solver])
            if not ref.status.ok:
                continue  # ECOS occasionally fails outright; counted below
            solved[solver] += 1
            assert np.max(np.abs(ref.distribution - d)) <= 1e-6, (solver, U.shape)
            # conic solvers stop at ~1e-7 in the objective; ours carries its own dual certificate
            assert ref.objective == pytest.approx(mine.objective, abs=1e-6)
        compared += 1
    assert compared >= 3
    assert solved["CLARABEL"] == compared  # the reference solver must answer every round
    assert solved["ECOS"] >= 0.8 * compared


@pytest.mark.parametrize("master", [SoftBoost(0.25, 0.05), ERLPBoost(0.25, 0.05)])
def test_dedicated_and_conic_runs_take_the_same_path(master):
    oracle = make_oracle("cancer-stumps")
    a = column_generation(master, oracle, backend="dedicated", max_rounds=60)
    b = column_generation(master, oracle, backend="cvxpy:CLARABEL", max_rounds=60)
    assert a.status == b.status == "converged"
    assert a.n_rounds == b.n_rounds
    np.testing.assert_allclose(a.history.to_dict()["entropy"], b.history.to_dict()["entropy"], atol=1e-6)
    assert a.objective == pytest.approx(b.objective, abs=1e-7)
    assert all(r.extra["solver"] in ("dedicated", "lp") for r in a.history)
    assert not any(r.extra["fallback"] for r in a.history)


def test_projection_kkt_on_real_rounds():
    oracle = make_oracle("synthetic-features")
    master = SoftBoost(0.3, 0.02)
    res = column_generation(master, oracle, max_rounds=30)
    n = oracle.n_samples
    cap = master.cap(n)
    for U, state in replay_states(master, res):
        p = master.project(U, backend="dedicated:newton", **state)
        d, lam = p.distribution, p.multipliers
        edges = d @ U
        assert np.all(edges <= state["bound"] + 1e-8) and np.all(lam >= 0)
        assert np.all(np.abs(lam * (edges - state["bound"])) <= 1e-7)
        # stationarity: ln(d_n N) + 1 + (U lam)_n + mu + beta_n = 0, beta_n >= 0 only where d_n = cap
        g = np.log(d * n) + 1 + U @ lam
        free = d < cap * (1 - 1e-9)
        mu = -np.median(g[free])
        assert np.max(np.abs(g[free] + mu)) <= 1e-6
        assert np.all(g[~free] + mu <= 1e-6)  # capped coordinates want to grow


@pytest.mark.parametrize("nu, delta", [(0.1, 0.1), (0.3, 0.05), (0.5, 0.1)])
def test_softboost_iteration_bound_and_margin_guarantee(nu, delta):
    X, y = cancer_subset(70, 5, 11)
    master = SoftBoost(nu, delta)
    res = column_generation(master, Stumps(X, y), max_rounds=10_000)
    N = X.shape[0]
    assert res.status == "converged"
    assert res.history[-1].extra["stop_reason"] == "infeasible"
    assert res.n_rounds <= math.ceil(2 * math.log(N / (nu * N)) / delta ** 2)
    assert master.iteration_bound(N) == math.ceil(2 * math.log(1 / nu) / delta ** 2)
    optimum = soft_margin_lp(all_stump_columns(X, y), nu)["value"]
    assert res.objective >= optimum - delta
    assert res.objective <= optimum + 1e-9
    # the recorded soft margin of the final weights is the LP value over the chosen columns
    assert res.history[-1].extra["soft_margin"] == pytest.approx(res.objective, abs=1e-9)


@pytest.mark.parametrize("nu, delta", [(0.1, 0.1), (0.3, 0.05)])
def test_erlpboost_margin_guarantee(nu, delta):
    X, y = cancer_subset(70, 5, 11)
    res = column_generation(ERLPBoost(nu, delta), Stumps(X, y), max_rounds=10_000)
    optimum = soft_margin_lp(all_stump_columns(X, y), nu)["value"]
    assert res.status == "converged"
    assert optimum - delta <= res.objective <= optimum + 1e-9
    last = res.history[-1].extra
    assert last["upper"] >= last["lower"] - 1e-9


@pytest.mark.parametrize("master", [SoftBoost(0.1, 0.1), SoftBoost(0.3, 0.05), TotalBoost(0.1),
                                    ERLPBoost(0.1, 0.1), ERLPBoost(0.3, 0.05)], ids=repr)
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_several_columns_a_round_keep_the_delta_guarantee(master, seed):
    # a round's k columns share one pricing: only the best edge bounds the LP's value, so the
    # stop stays within delta of the LP over every stump (scipy), and the recorded gap says so
    X, y = cancer_subset(70, 5, seed)
    res = column_generation(master, Stumps(X, y), columns_per_round=10, max_rounds=10_000)
    nu = master.lp_nu(X.shape[0])  # TotalBoost: 1/N, the hard margin
    optimum = soft_margin_lp(all_stump_columns(X, y), nu)["value"]
    assert res.status == "converged"
    assert optimum - master.delta <= res.objective <= optimum + 1e-9
    assert res.history[-1].gap <= master.delta + 1e-9


def test_history_records_entropy_gamma_hat_and_solver():
    oracle = make_oracle("cancer-stumps")
    res = column_generation(SoftBoost(0.2, 0.05), oracle)
    table = res.history.to_dict()
    for key in ("entropy", "gamma_hat", "gamma_star", "soft_margin", "solver", "fallback"):
        assert len(table[key]) == res.n_rounds
    # gamma_hat is the running minimum of the returned edges; gamma*_t never decreases
    np.testing.assert_allclose(table["gamma_hat"], np.minimum.accumulate(res.edges[: res.n_rounds]))
    assert np.all(np.diff(table["gamma_star"]) >= -1e-9)
    assert np.all(np.array(table["gamma_star"]) <= np.array(table["gamma_hat"]) + 1e-12)
    # relative entropy recorded is that of the distribution handed to the oracle
    assert table["entropy"][0] == pytest.approx(relative_entropy(res.history and
                                                                 column_generation(SoftBoost(0.2, 0.05), oracle,
                                                                                   max_rounds=1).distribution))


def figure1_instance(N: int, eps: float | None = None) -> np.ndarray:
    """Warmuth-Glocer-Rätsch (2007) Figure 1 generalised to even N (hard for LPBoost, nu' = 1).

    Columns t = 1..N/2: +1 on the first half (t = 1) or -1 + (2t+1) eps (t > 1);
    +1 on example N/2 + t - 1, -1 + 2t eps on example N/2 + t, -1 + (2t+1) eps
    elsewhere in the second half.  Last column: -1 + eps on the first half,
    +1 - eps on the second.  Every LP along LPBoost's path has a unique optimum.
    """
    M = N // 2
    eps = eps if eps is not None else 1.0 / (8 * N)
    U = np.empty((N, M + 1))
    for t in range(1, M + 1):
        col = np.full(N, -1 + (2 * t + 1) * eps)
        if t == 1:
            col[:M] = 1.0
        else:
            col[M + t - 2] = 1.0
        col[M + t - 1] = -1 + 2 * t * eps
        U[:, t - 1] = col
    U[:M, M] = -1 + eps
    U[M:, M] = 1 - eps
    return U


@pytest.mark.parametrize("N", [8, 16, 32, 64])
def test_figure1_lpboost_needs_n_over_2_rounds_softboost_a_handful(N):
    U = figure1_instance(N)
    nu = 1.0 / N  # the paper's nu' = 1: hard margin
    lp = column_generation(LPBoost(nu), Columns(U), tol=1e-12)
    assert lp.status == "converged"
    # LPBoost picks the columns in order; the value after t rounds is -1 + 2 t eps
    assert [h.index for h in lp.hypotheses] == list(range(N // 2 + 1))
    eps = 1.0 / (8 * N)
    duals = lp.history.to_dict()["dual"]
    np.testing.assert_allclose(duals[: N // 2], [-1 + 2 * t * eps for t in range(1, N // 2 + 1)], atol=1e-9)
    assert lp.objective >= eps / 2 - 1e-12
    for master in (SoftBoost(nu, 0.1), TotalBoost(0.1), ERLPBoost(nu, 0.1)):
        res = column_generation(master, Columns(U), max_rounds=N)
        assert res.status == "converged", master
        assert res.n_rounds <= 4, (master, res.n_rounds)
        assert N // 2 in [h.index for h in res.hypotheses]  # the good last hypothesis was found
        assert res.objective >= eps / 2 - 1e-12


def test_classifiers_fit_and_agree_with_masters():
    X, y = cancer_subset(90, 5, 4)
    # one column a round, as column_generation's own default (the classifiers' is 10)
    for clf, master in [(SoftBoostClassifier(nu=0.2, delta=0.05, columns_per_round=1), SoftBoost(0.2, 0.05)),
                        (TotalBoostClassifier(delta=0.05, columns_per_round=1), TotalBoost(0.05)),
                        (ERLPBoostClassifier(nu=0.2, delta=0.05, columns_per_round=1), ERLPBoost(0.2, 0.05))]:
        labels = np.where(y > 0, "yes", "no")
        clf.fit(X, labels)
        res = column_generation(master, Stumps(X, np.where(labels == "yes", 1.0, -1.0)))
        assert clf.objective_ == pytest.approx(res.objective, abs=1e-9)
        assert clf.n_rounds_ == res.n_rounds and clf.status_ == "converged"
        assert set(clf.predict(X)) <= {"yes", "no"}
        np.testing.assert_allclose(clf.margins(X, labels), res.columns @ res.weights, atol=1e-12)


@pytest.mark.parametrize("cls, kwargs, match", [
    (SoftBoostClassifier, {"delta": 0.0}, "delta must be"),
    (SoftBoostClassifier, {"delta": 2.0}, "delta must be"),
    (SoftBoostClassifier, {"nu": 0.0}, "nu must be"),
    (ERLPBoostClassifier, {"nu": 1.5}, "nu must be"),
    (TotalBoostClassifier, {"delta": float("nan")}, "delta must be"),
    (SoftBoostClassifier, {"backend": "highspy"}, "exp_cone"),
])
def test_bad_parameters(cls, kwargs, match):
    X, y = cancer_subset(40, 3, 0)
    with pytest.raises(ValueError, match=match):
        cls(**kwargs).fit(X, y)


def test_unverified_dedicated_answer_falls_back_to_a_conic_solver(monkeypatch):
    import lpboosting.backends.dedicated.newton_projection as ep

    real = ep.project_softboost
    calls = []

    def flaky(U, bound, cap, **kw):
        res = real(U, bound, cap, **kw)
        calls.append(res.status)
        if U.shape[1] == 3:  # pretend round 3's answer failed its checks
            res.status, res.verified, res.message = "failed", False, "forced for the test"
        return res

    monkeypatch.setattr(ep, "project_softboost", flaky)
    oracle = make_oracle("cancer-stumps")
    res = column_generation(SoftBoost(0.2, 0.05), oracle)
    monkeypatch.undo()
    ref = column_generation(SoftBoost(0.2, 0.05), oracle)
    solvers = [r.extra["solver"] for r in res.history]
    assert solvers[2] == "cvxpy:CLARABEL (fallback)" and res.history[2].extra["fallback"] is True
    assert solvers[:2] == ["dedicated", "dedicated"] and not res.history[3].extra["fallback"]
    # the conic answer is the same projection: the run continues on the same path
    assert res.n_rounds == ref.n_rounds
    assert res.objective == pytest.approx(ref.objective, abs=1e-7)


def test_conic_failure_mid_run_keeps_the_last_good_round():
    from tests.helpers import FailingBackend

    oracle = make_oracle("cancer-stumps")
    backend = FailingBackend("dedicated", fail_at=4)
    with pytest.warns(RuntimeWarning, match="kept the master of round 3"):
        clf = SoftBoostClassifier(nu=0.2, delta=0.05, backend=backend, columns_per_round=1).fit(
            oracle.X, oracle.y)
    assert clf.status_ == "solver_error" and len(clf.hypotheses_) == 3
    assert clf.history_[-1].status == "solver_error"
    assert clf.objective_ == pytest.approx(backend.solutions[2].objective)


def test_stand_alone_projection_for_or_users():
    rng = np.random.default_rng(4)
    U = rng.uniform(-1, 1, size=(60, 6))
    lp_value = LPBoost(0.25).solve(U).gamma
    sb = SoftBoost(0.25, 0.05)
    mine = sb.project(U, bound=lp_value + 0.05)
    tight = CvxpyBackend("CLARABEL", **TIGHT["CLARABEL"])
    ref = sb.project(U, backend=tight, bound=lp_value + 0.05)
    assert mine.solver == "dedicated" and ref.solver == "cvxpy:CLARABEL"
    assert np.max(np.abs(mine.distribution - ref.distribution)) <= 1e-6
    assert np.all(mine.distribution @ U <= lp_value + 0.05 + 1e-8)
    assert sb.project(U, bound=lp_value - 1e-3).status.value == "infeasible"
    with pytest.raises(ValueError, match="bound"):
        sb.project(U)
    er = ERLPBoost(0.25, 0.05)
    a, b = er.project(U), er.project(U, backend=tight)
    assert np.max(np.abs(a.distribution - b.distribution)) <= 1e-6
    with pytest.raises(NotImplementedError, match="project"):
        sb.solve(U)


def noisy_moons(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_moons

    from lpboosting.datasets.noise import flip_labels

    X, y = make_moons(300, noise=0.3, random_state=seed)
    return X, flip_labels(np.where(y == 1, 1, -1), 0.2, random_state=seed)


def test_erlpboost_with_trees_stops_only_when_the_tree_cannot_improve_the_lp_over_its_columns(monkeypatch):
    X, y = noisy_moons()
    nu, n = 0.3, X.shape[0]
    oracle = Trees(X, y, max_depth=3)
    res = column_generation(ERLPBoost(nu, 0.01), oracle)
    assert res.status == "converged"
    assert any("recheck_edge" in r.extra for r in res.history)
    # the final weights solve the LP over the chosen columns, stated independently ...
    lp = soft_margin_lp(res.columns, nu)
    assert res.objective == pytest.approx(lp["value"], abs=1e-7)
    # ... and the distribution last priced is an optimal dual of that LP, where the tree finds no
    # column improving it
    d = res.solution.info["lp_distribution"]
    assert d.sum() == pytest.approx(1.0) and d.min() >= -1e-9 and d.max() <= 1 / (nu * n) + 1e-9
    assert np.max(d @ res.columns) == pytest.approx(lp["value"], abs=1e-7)
    assert oracle.price(d).edge <= lp["value"] + 1e-6
    # the instance needs the recheck: ERLPBoost's own rule stops where the tree still improves the LP
    monkeypatch.setattr(ERLPBoost, "recheck_point", lambda self, solution: None)
    early = column_generation(ERLPBoost(nu, 0.01), Trees(X, y, max_depth=3))
    assert early.status == "converged"
    d = early.solution.info["lp_distribution"]
    assert oracle.price(d).edge > soft_margin_lp(early.columns, nu)["value"] + 1e-2


def test_an_exact_oracles_stop_is_not_rechecked(monkeypatch):
    def recheck_point(self, solution):
        raise AssertionError("an exact oracle's stop was rechecked")

    monkeypatch.setattr(ERLPBoost, "recheck_point", recheck_point)
    res = column_generation(ERLPBoost(0.1, 0.05), make_oracle("cancer-stumps"))
    assert res.status == "converged"
    assert not any("recheck_edge" in r.extra for r in res.history)


def test_erlpboost_pairs_every_column_with_the_entropy_it_was_priced_at():
    # several columns a round: the upper bound P^q(d^(q-1)) needs each column's own pricing point
    master = ERLPBoost(0.1, 0.05)
    res = column_generation(master, make_oracle("cancer-stumps"), columns_per_round=3)
    session = res.state.session
    expected = [0.0] * res.history[0].n_columns  # priced at the prior
    for record in res.history:
        expected += [record.extra["entropy"]] * record.extra["new_columns"]
    assert len(session.edges) == len(session.entropies) == len(expected) == res.columns.shape[1]
    np.testing.assert_allclose(session.entropies, expected, rtol=0, atol=1e-12)
    assert res.status == "converged" and res.history[-1].extra["new_columns"] == 0
    eta = master.eta(res.columns.shape[0])
    upper = min(e + h / eta for e, h in zip(session.edges, expected))
    assert res.history[-1].extra["upper"] == pytest.approx(upper, abs=1e-12)


@pytest.mark.parametrize("master", [SoftBoost(0.1, 0.1), SoftBoost(0.2, 0.05), TotalBoost(0.05)], ids=repr)
def test_final_gap_is_the_best_edge_minus_the_lp_value_and_within_delta(master):
    """The reported gap is certified: the best edge an exact oracle found at any distribution the
    run priced (d_0 = uniform, d_1, ..., d_t) minus the LP value over the chosen columns."""
    X, y = cancer_subset(70, 5, 11)
    priced = []  # d_t of every round, as the loop hands it to the oracle
    res = column_generation(master, Stumps(X, y), max_rounds=10_000,
                            callback=lambda record, state: priced.append(state.best.distribution.copy()))
    assert res.status == "converged" and res.history[-1].extra["stop_reason"] == "infeasible"
    N = X.shape[0]
    U_all = all_stump_columns(X, y)  # every stump, enumerated by brute force
    best_edge = min(float(np.max(d @ U_all)) for d in [np.full(N, 1.0 / N)] + priced)
    lp_value = soft_margin_lp(res.columns, master.lp_nu(N))["value"]  # scipy's HiGHS, independent
    # the last round's d is the LP's own dual: its best edge lies well above the certified bound
    assert float(np.max(priced[-1] @ U_all)) - lp_value > master.delta
    # HiGHS solves both LPs to its feasibility tolerance 1e-7; the edges are exact sums
    for gap in (res.gap, res.history[-1].gap):
        assert gap == pytest.approx(best_edge - lp_value, abs=1e-7)
        assert gap <= master.delta + 1e-9  # the stop: gamma*_t > gamma_hat_t - delta
    assert res.history[-1].extra["best_edge"] == pytest.approx(best_edge, abs=1e-12)
