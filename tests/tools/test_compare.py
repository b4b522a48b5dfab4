"""The backend registry's capabilities, data sets by name and the solver-comparison harness."""

from __future__ import annotations

import csv
import json
import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from lpboosting.backends import (
    available,
    available_backends,
    get_backend,
    known_backends,
)
from lpboosting.compare import compare, make_master
from lpboosting.datasets import load_dataset
from lpboosting.errors import BackendCapabilityError
from lpboosting.masters import ERLPBoost, LPBoost, RMBoost, SoftBoost, TotalBoost
from lpboosting.masters.base import MasterSolution
from lpboosting.oracles import Stumps
from lpboosting.status import SolveStatus

from tests.helpers import FailingBackend, SlowBackend, VirtualClock, soft_margin_lp


def small_cancer(n=80, f=4, seed=1):
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(seed)
    rows = rng.choice(X.shape[0], n, replace=False)
    return X[rows][:, :f], np.where(y[rows] == 1, 1.0, -1.0)


# -- registry ------------------------------------------------------------------------------------
def test_available_lists_installed_backends_with_their_real_capabilities():
    infos = available()
    assert infos and all(info.installed for info in infos)
    for info in infos:
        backend = get_backend(info.name)
        assert backend.is_available()
        assert set(info.kinds) == set(backend.kinds)
        assert info.incremental == backend.incremental
        assert info.lp == ("lp" in backend.kinds) and info.exp_cone == ("exp_cone" in backend.kinds)
    names = [info.name for info in infos]
    assert "highspy" in names and "dedicated" in names
    assert names == available_backends()
    # masters of another kind a backend solves too: the dedicated backend opens RMBoost's LP
    assert {info.name: info.masters for info in infos if info.masters} == {"dedicated": ("RMBoost",)}
    session = get_backend("dedicated").open(make_master("rmboost"), 5)
    session.add_column(np.array([1.0, 1.0, -1.0, 1.0, 1.0]))
    assert session.solve().ok
    with pytest.raises(BackendCapabilityError):
        get_backend("dedicated").open(make_master("lpboost", nu=0.2), 5)


def test_available_by_kind_and_missing_backends():
    lp = {info.name for info in available("lp")}
    cone = {info.name for info in available("exp_cone")}
    assert "highspy" in lp and "highspy" not in cone
    assert "dedicated" in cone and "dedicated" not in lp
    everything = available(include_missing=True)
    assert [info.name for info in everything] == known_backends()
    for info in everything:
        if not info.installed:
            assert info.install.startswith("pip install ")
            assert not get_backend(info.name).is_available()
    with pytest.raises(ValueError, match="unknown problem kind"):
        available("qp")


@pytest.mark.parametrize("master", [SoftBoost(0.1, 0.01), ERLPBoost(0.1, 0.01), TotalBoost(0.01)])
def test_capability_error_names_every_backend_that_can_solve_the_master(master):
    with pytest.raises(BackendCapabilityError) as info:
        get_backend("highspy").open(master, 5)
    message = str(info.value)
    for name in available_backends("exp_cone"):
        assert name in message
    for item in available("exp_cone", include_missing=True):
        if not item.installed:
            assert item.install in message


# -- data sets by name ---------------------------------------------------------------------------
def test_csv_dataset_with_named_target_and_string_labels(tmp_path):
    X, y = small_cancer(30, 3)
    path = tmp_path / "cells.csv"
    with path.open("w") as fh:
        fh.write("a,label,b,c\n")
        for row, label in zip(X, y):
            fh.write(f"{float(row[0])!r},{'benign' if label > 0 else 'malignant'},"
                     f"{float(row[1])!r},{float(row[2])!r}\n")
    data = load_dataset(str(path), target="label")
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y == "benign", y > 0)
    with pytest.raises(ValueError, match="not in"):
        load_dataset(str(path), target="nope")


def test_named_datasets_and_their_errors():
    synthetic = load_dataset("softboost-synthetic")
    assert synthetic.X.shape == (500, 100) and synthetic.X_test.shape == (1500, 100)
    cancer = load_dataset("breast-cancer")
    assert cancer.X.shape == (569, 30) and set(np.unique(cancer.y)) == {0, 1}
    with pytest.raises(ValueError, match="3 classes"):
        load_dataset("sklearn:iris")
    iris = load_dataset("sklearn:iris", positive="2")
    assert np.sum(iris.y == 1) == 50 and set(np.unique(iris.y)) == {-1, 1}
    with pytest.raises(ValueError, match="unknown data set"):
        load_dataset("no-such-set")


# -- the harness ---------------------------------------------------------------------------------
def test_make_master_by_name():
    assert isinstance(make_master("lpboost", nu=0.3), LPBoost)
    assert make_master("rmboost", lam=0.2, prune=False).params() == {"lam": 0.2, "prune": False}
    with pytest.raises(ValueError, match="takes nu"):
        make_master("lpboost", nu=0.3, delta=0.1)
    with pytest.raises(ValueError, match="unknown master"):
        make_master("adaboost")
    multiclass = make_master("multiclass-lpboost", nu=0.3, n_classes=4)
    assert type(multiclass).__name__ == "MulticlassLPBoost" and multiclass.params() == {"nu": 0.3, "n_classes": 4}
    with pytest.raises(ValueError, match="takes nu, n_classes"):
        make_master("multiclass-lpboost", lam=0.1)


def test_replay_gives_every_backend_the_same_restricted_masters():
    X, y = small_cancer()
    backends = [b for b in ("highspy", "cvxpy:HIGHS", "cvxpy:CLARABEL") if b in available_backends("lp")]
    table = compare(LPBoost(0.2), Stumps(X, y), backends)
    own = [r for r in table.runs if r.mode == "own"]
    replays = [r for r in table.runs if r.mode == "replay"]
    assert [r.backend for r in own] == backends == [r.backend for r in replays]
    assert all(r.status == "converged" for r in own)
    # the replayed restricted masters are the independent LP over the first run's columns
    from lpboosting import column_generation

    first = column_generation(LPBoost(0.2), Stumps(X, y), backend=backends[0])
    for t in (1, first.columns.shape[1] // 2, first.columns.shape[1]):
        value = soft_margin_lp(first.columns[:, :t], 0.2)["value"]
        for run in replays:
            assert run.objectives[t - 1] == pytest.approx(value, abs=1e-6)
    # converged own runs reach the full optimum whatever path they took
    assert max(abs(r.objective - own[0].objective) for r in own) <= 1e-6
    assert table.max_deviation() <= 1e-6
    rows = table.rows()
    assert rows[0]["x_first"] == pytest.approx(1.0)
    assert rows[1]["x_first"] == pytest.approx(rows[1]["seconds"] / rows[0]["seconds"])


def test_a_failing_backend_is_reported_in_its_row_not_raised(tmp_path):
    X, y = small_cancer()
    table = compare(LPBoost(0.2), Stumps(X, y), ["highspy", FailingBackend("highspy", fail_at=3)])
    own_ok, own_failed = table.runs[0], table.runs[1]
    assert own_ok.status == "converged" and own_failed.status == "solver_error"
    assert own_failed.rounds == 3
    assert not table.ok()
    table.write_csv(tmp_path / "t.csv")
    table.write_json(tmp_path / "t.json")
    lines = (tmp_path / "t.csv").read_text().splitlines()
    assert lines[0].startswith("backend,mode,rounds,seconds,x_first")
    assert len(lines) == 1 + len(table.runs)
    data = json.loads((tmp_path / "t.json").read_text())
    assert [r["status"] for r in data["rows"]] == [r.status for r in table.runs]


def test_rmboost_replay_compares_without_removal():
    X, y = small_cancer(60, 3, 2)
    backends = ["dedicated"] + [b for b in ("highspy", "cvxpy:CLARABEL") if b in available_backends("lp")]
    table = compare(RMBoost(), Stumps(X, y), backends, max_rounds=15)
    replays = [r for r in table.runs if r.mode == "replay"]
    assert {r.backend for r in replays} == set(backends)
    assert all(r.status == "optimal" for r in replays)
    assert max(r.max_dev for r in replays) <= 1e-6


def test_compare_refuses_backends_that_cannot_work():
    X, y = small_cancer()
    with pytest.raises(BackendCapabilityError):
        compare(SoftBoost(0.1, 0.05), Stumps(X, y), ["highspy"])
    with pytest.raises(ValueError, match="at least one backend"):
        compare(LPBoost(0.2), Stumps(X, y), [])


# -- replay of the relative-entropy masters ------------------------------------------------------
@pytest.mark.parametrize("name, params", [("softboost", {"nu": 0.2, "delta": 0.05}),
                                          ("totalboost", {"delta": 0.05}),
                                          ("erlpboost", {"nu": 0.2, "delta": 0.05})])
def test_replay_of_the_entropy_masters_reaches_the_own_runs_objective(name, params):
    # the entropy masters need each column's edge under the distribution it was priced at
    X, y = small_cancer(60, 3, 2)
    backends = ["dedicated"] + [b for b in ("cvxpy:CLARABEL",) if b in available_backends("exp_cone")]
    table = compare(make_master(name, **params), Stumps(X, y), backends, max_rounds=40)
    own = [r for r in table.runs if r.mode == "own"]
    replays = [r for r in table.runs if r.mode == "replay"]
    assert [r.backend for r in replays] == backends
    first = own[0]
    assert first.status in ("converged", "max_rounds"), first.message
    for run in replays:
        assert run.status == "optimal", run.message
        assert run.rounds == first.rounds
        # the same restricted masters as the first backend's own run, round by round
        np.testing.assert_allclose(run.objectives, first.objectives, rtol=0, atol=1e-6,
                                   equal_nan=True)
        assert run.objective == pytest.approx(first.objective, abs=1e-6)
    # the conic solver's rows have its solve and compile times apart
    for run in table.runs:
        if run.backend.startswith("cvxpy:"):
            assert run.compile_s > 0 and run.solve_s > 0
            assert run.compile_s + run.solve_s <= run.seconds


# -- HiGHS's methods, cvxpy's times, repeats and time limits --------------------------------------
def test_highs_methods_run_in_compare_with_their_own_iterations():
    from lpboosting.backends.highs.model import PDLP_TOLERANCE, VARIANTS

    X, y = small_cancer()
    backends = ["highspy", "highspy:ipm", "highspy:pdlp"]
    table = compare(LPBoost(0.2), Stumps(X, y), backends)
    kinds = {"highspy": "simplex", "highspy:ipm": "ipm", "highspy:pdlp": "pdlp"}
    eps = {"highspy": 1e-12, "highspy:ipm": VARIANTS["ipm"]["ipm_optimality_tolerance"],
           "highspy:pdlp": PDLP_TOLERANCE}
    for mode in ("own", "replay"):
        runs = [r for r in table.runs if r.mode == mode]
        assert [r.backend for r in runs] == backends
        for run in runs:
            assert run.status in ("converged", "optimal"), (run.backend, run.message)
            assert run.iteration_kind == kinds[run.backend] and run.iterations > 0, run.backend
    replays = {r.backend: r for r in table.runs if r.mode == "replay"}
    simplex = np.asarray(replays["highspy"].objectives)
    for name in ("highspy:ipm", "highspy:pdlp"):
        values = np.asarray(replays[name].objectives)
        # the same restricted masters, each method to its own accuracy (PDLP's is relative)
        assert np.all(np.abs(values - simplex) <= eps[name] * (1 + np.abs(values) + np.abs(simplex))), name
    text = table.format()  # each row starts with the full name and gives the iterations' kind
    for name, kind in kinds.items():
        assert any(line.startswith(name + " ") and f" {kind} " in line for line in text.splitlines())


def test_cvxpy_rows_have_the_solver_time_apart_from_the_compile_time():
    X, y = small_cancer()
    table = compare(LPBoost(0.2), Stumps(X, y), ["highspy", "cvxpy:CLARABEL", "cvxpy:HIGHS"])
    for run in table.runs:
        if run.backend.startswith("cvxpy:"):
            assert run.compile_s > 0 and run.solve_s > 0, run
            assert run.compile_s + run.solve_s <= run.seconds
        else:
            assert run.compile_s is None  # nothing to compile: the live HiGHS model
    row = table.rows()[1]
    assert {"solve_s", "compile_s"} <= set(row)


def test_repeat_gives_the_median_and_the_spread_of_the_wall_time(tmp_path):
    X, y = small_cancer()
    once = compare(LPBoost(0.2), Stumps(X, y), ["highspy", "cvxpy:HIGHS"])
    table = compare(LPBoost(0.2), Stumps(X, y), ["highspy", "cvxpy:HIGHS"], repeat=3)
    assert [(r.backend, r.mode) for r in table.runs] == [(r.backend, r.mode) for r in once.runs]
    for run, single in zip(table.runs, once.runs):
        assert run.repeats == len(run.times) == 3
        assert run.seconds == pytest.approx(float(np.median(run.times)))
        assert run.seconds_min == min(run.times) <= run.seconds <= run.seconds_max == max(run.times)
        # the runs are deterministic: the same rounds and objectives every time
        assert run.rounds == single.rounds and run.objectives == single.objectives
    assert " [" in table.format().splitlines()[2]  # median [min-max]
    table.write_csv(tmp_path / "t.csv")
    header = (tmp_path / "t.csv").read_text().splitlines()[0].split(",")
    assert {"seconds_min", "seconds_max", "repeats", "solve_s", "compile_s", "iteration_kind"} <= set(header)
    with pytest.raises(ValueError, match="repeat"):
        compare(LPBoost(0.2), Stumps(X, y), ["highspy"], repeat=0)
    with pytest.raises(ValueError, match="time_limit"):
        compare(LPBoost(0.2), Stumps(X, y), ["highspy"], time_limit=-1)


class TimedOutBackend(FailingBackend):
    """A backend whose solver reports its own time limit at solve ``at``."""

    def before_solve(self, session):
        if len(self.solutions) + 1 >= self.fail_at:
            sol = MasterSolution.failed(session.n_samples, SolveStatus.TIME_LIMIT, "time limit reached")
            sol.backend = self.name
            return sol
        return None


def test_a_time_limit_stops_one_backend_and_the_others_still_run(monkeypatch):
    X, y = small_cancer()
    # the comparison's clock is virtual: the slow backend's pauses are the only time that passes
    # for it, so the fast backends never reach the limit however loaded the machine is (the
    # solvers' own time limits, which run on their real clocks, get the generous remainder)
    clock = VirtualClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    limit, pause = 40.0, 10.0
    slow = SlowBackend("highspy", pause, sleep=clock.sleep)
    table = compare(LPBoost(0.2), Stumps(X, y), ["highspy", slow, "cvxpy:HIGHS"], time_limit=limit)
    own = {r.backend: r for r in table.runs if r.mode == "own"}
    replay = {r.backend: r for r in table.runs if r.mode == "replay"}
    assert own["highspy"].status == own["cvxpy:HIGHS"].status == "converged"
    assert replay["highspy"].status == replay["cvxpy:HIGHS"].status == "optimal"
    for run in (own["slow highspy"], replay["slow highspy"]):
        assert run.status == "time_limit", run
        assert f"time limit of {limit:g} s" in run.message
        assert run.rounds < own["highspy"].rounds
        # stopped at the first solve past the limit: the limit and at most one pause (virtual time)
        assert limit <= run.seconds <= limit + pause
    assert not table.ok()
    # the solver's own time limit (a TIME_LIMIT status) is reported the same way
    table = compare(LPBoost(0.2), Stumps(X, y), ["highspy", TimedOutBackend("highspy", fail_at=3)],
                    time_limit=60, replay=False)
    stopped = table.runs[1]
    assert stopped.status == "time_limit" and "time limit reached" in stopped.message
    assert stopped.rounds == 3


def test_the_time_limit_is_passed_to_each_solver_that_has_one():
    from lpboosting.compare import make_backend

    assert make_backend("highspy", time_limit=5).options["time_limit"] == 5.0
    clarabel = make_backend("cvxpy:CLARABEL", time_limit=5)
    assert clarabel.options["time_limit"] == 5.0 and clarabel.options["tol_feas"] == 1e-11  # tight kept
    assert make_backend("cvxpy:ECOS", time_limit=5).options.get("max_iters") is None
    assert "time_limit" not in make_backend("highspy").options
    given = get_backend("highspy")
    compare(LPBoost(0.2), Stumps(*small_cancer(40, 3)), [given], time_limit=5, replay=False)
    assert given.options == {}  # a backend object passed in is not changed


ORTOOLS = pytest.mark.skipif(
    not {"GLOP", "PDLP"} <= set(__import__("cvxpy").installed_solvers()),
    reason="cvxpy's GLOP and PDLP need OR-Tools: pip install \"lpboosting[ortools]\"")


@ORTOOLS
def test_or_tools_glop_and_pdlp_in_compare():
    X, y = small_cancer()
    table = compare(LPBoost(0.2), Stumps(X, y), ["highspy", "cvxpy:GLOP", "cvxpy:PDLP"], time_limit=20)
    runs = {(r.backend, r.mode): r for r in table.runs}
    # GLOP is a simplex: the same optimum, the same restricted masters
    assert runs["cvxpy:GLOP", "own"].status == "converged"
    assert runs["cvxpy:GLOP", "own"].max_dev <= 1e-9
    assert runs["cvxpy:GLOP", "replay"].max_dev <= 1e-9
    # PDLP (first order, cvxpy's default settings) is reported whatever it does, with its times
    for mode in ("own", "replay"):
        run = runs["cvxpy:PDLP", mode]
        assert run.compile_s > 0 and run.solve_s > 0
        assert run.status in ("converged", "optimal") or run.message, run
    # every round PDLP solved is the same restricted master as highspy's, to its accuracy (1e-6)
    first = np.asarray(runs["highspy", "replay"].objectives)
    pdlp = np.asarray(runs["cvxpy:PDLP", "replay"].objectives)
    assert pdlp.size and np.all(np.abs(pdlp - first[:pdlp.size]) <= 1e-6 * (1 + np.abs(first[:pdlp.size])))


# -- the catalog and its performance profile ------------------------------------------------------
def _profile_case():
    from lpboosting.compare import BackendRun, Comparison

    def run(backend, seconds, status="optimal", dev=0.0):
        return BackendRun(backend, "full", rounds=1, seconds=seconds, status=status, max_dev=dev)

    comparisons = [
        Comparison("p1", [run("a", 1.0), run("b", 2.0), run("c", 8.0)], {"instance": "p1", "tolerance": 1e-6}),
        Comparison("p2", [run("a", 3.0), run("b", 1.5), run("c", 1.0, "error")], {"instance": "p2", "tolerance": 1e-6}),
        Comparison("p3", [run("a", 1.0), run("b", 1.0, dev=1e-3)], {"instance": "p3", "tolerance": 1e-6}),
        Comparison("p4", [run("a", 5.0, "time_limit"), run("b", 4.0), run("c", 2.0)], {"instance": "p4", "tolerance": 1e-6}),
    ]
    return comparisons


def test_the_performance_profile_of_known_times():
    from lpboosting.compare import performance_profile

    profile = performance_profile(_profile_case())
    assert profile.backends == ["a", "b", "c"] and profile.instances == ["p1", "p2", "p3", "p4"]
    # p1: best 1 (a); p2: c failed, best 1.5 (b); p3: b off its tolerance, best 1 (a); p4: a timed out
    np.testing.assert_allclose(profile.ratios["a"], [1, 2, 1, np.inf])
    np.testing.assert_allclose(profile.ratios["b"], [2, 1, np.inf, 2])
    np.testing.assert_allclose(profile.ratios["c"], [8, np.inf, np.inf, 1])
    assert profile.wins == {"a": 0.5, "b": 0.25, "c": 0.25}
    assert profile.solved == {"a": 0.75, "b": 0.75, "c": 0.5}
    assert profile.ran == {"a": 1.0, "b": 1.0, "c": 0.75}
    assert profile.fraction("a", 1.999) == 0.5 and profile.fraction("a", 2.0) == 0.75
    taus, rho = profile.steps("c")
    np.testing.assert_allclose(taus, [1, 8])
    np.testing.assert_allclose(rho, [0.25, 0.5])
    with pytest.raises(ValueError, match="at least one comparison"):
        performance_profile([])
    with pytest.raises(ValueError, match="no 'own' rows"):
        performance_profile(_profile_case(), mode="own")


@pytest.fixture(scope="module")
def catalog_comparisons():
    from lpboosting.compare import compare_catalog

    return compare_catalog(backends=["highspy", "dedicated", "cvxpy:CLARABEL"], replay=False)


def test_compare_catalog_runs_every_instance_with_the_backends_that_solve_it(catalog_comparisons):
    from lpboosting import catalog

    entries = catalog.load_index()
    assert [c.meta["instance"] for c in catalog_comparisons] == [e["name"] for e in entries]
    for comparison, entry in zip(catalog_comparisons, entries):
        names = [r.backend for r in comparison.runs]
        assert all(r.mode == "full" for r in comparison.runs)
        assert ("highspy" in names) == (entry["kind"] == "lp")
        assert "cvxpy:CLARABEL" in names
        for run in comparison.runs:
            assert run.status == "optimal" and run.max_dev <= entry["tolerance"], (entry["name"], run)


def test_the_profile_curves_are_steps_up_to_the_fraction_solved(catalog_comparisons):
    from lpboosting.compare import performance_profile

    profile = performance_profile(catalog_comparisons)
    n = len(catalog_comparisons)
    for backend in profile.backends:
        taus, rho = profile.steps(backend)
        assert np.all(np.diff(taus) >= 0) and np.all(np.diff(rho) > 0)  # a step at each ratio
        assert taus.size == 0 or taus[0] >= 1.0
        assert rho[-1] == pytest.approx(profile.solved[backend]) if rho.size else profile.solved[backend] == 0
        # the curve is constant between its steps
        for a, b in zip(taus[:-1], taus[1:]):
            assert profile.fraction(backend, (a + b) / 2) == profile.fraction(backend, a)
        assert profile.fraction(backend, 1e9) == profile.solved[backend]
    # the fastest backends start at their share of wins at tau = 1; the wins cover every instance
    assert sum(profile.wins.values()) * n == pytest.approx(n)
    best = max(profile.backends, key=lambda b: profile.wins[b])
    assert profile.fraction(best, 1.0) == profile.wins[best] > 0
    assert profile.solved["highspy"] == pytest.approx(
        sum(e.meta["kind"] == "lp" for e in catalog_comparisons) / n)


def test_plot_performance_profile_draws_one_step_curve_per_backend(catalog_comparisons):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from lpboosting.compare import performance_profile
    from lpboosting.plots import plot_performance_profile

    profile = performance_profile(catalog_comparisons)
    ax = plot_performance_profile(catalog_comparisons)
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == len(profile.backends)
    for backend in profile.backends:
        label = next(text for text in labels if text.startswith(backend + ":"))
        n = len(profile.instances)
        assert f"solved {round(profile.solved[backend] * n)}/{n}" in label
        line = next(line for line in ax.get_lines() if line.get_label() == label)
        x, y = line.get_xdata(), line.get_ydata()
        assert x[0] == 1.0 and y[0] == pytest.approx(profile.wins[backend])
        assert np.all(np.diff(y) >= 0) and y[-1] == pytest.approx(profile.solved[backend])


# -- the command line ----------------------------------------------------------------------------
def test_cli_compare_names_the_highs_methods_with_their_iterations(capsys, tmp_path):
    from lpboosting.cli import main

    out_csv = tmp_path / "c.csv"
    assert main(["compare", "--data", "breast-cancer", "-b", "highspy", "-b", "highspy:ipm",
                 "-b", "highspy:pdlp", "-b", "cvxpy:CLARABEL", "--max-rounds", "5", "--repeat", "2",
                 "--time-limit", "60", "--csv", str(out_csv)]) == 0
    out = capsys.readouterr().out
    for name, kind in (("highspy:ipm", "ipm"), ("highspy:pdlp", "pdlp"), ("highspy ", "simplex")):
        assert any(f"│ {name}" in line and f" {kind} │" in line for line in out.splitlines()), name
    assert "median [min-max]" in out and "compile s" in out
    import csv

    with out_csv.open() as fh:
        rows = list(csv.DictReader(fh))
    assert {r["iteration_kind"] for r in rows if r["backend"] == "highspy:pdlp"} == {"pdlp"}
    assert all(int(r["repeats"]) == 2 for r in rows)
    assert all(float(r["compile_s"]) > 0 for r in rows if r["backend"] == "cvxpy:CLARABEL")


def test_cli_compare_on_more_than_two_classes_compares_the_multiclass_lp(capsys, tmp_path):
    """LPBoost on iris without --positive: the one LP over (example, wrong class) pairs, every
    backend at the optimum over all class stumps (the classifier's value, HiGHS's 1e-7 feasibility
    tolerance); an oracle the multiclass LP has not is a usage error."""
    from sklearn.datasets import load_iris

    from lpboosting import LPBoostClassifier
    from lpboosting.cli import main

    out_json = tmp_path / "c.json"
    assert main(["compare", "--data", "sklearn:iris", "--nu", "0.2", "-b", "highspy", "-b", "cvxpy:CLARABEL",
                 "--no-replay", "--json", str(out_json)]) == 0
    assert "MulticlassLPBoost(nu=0.2, n_classes=3) on iris" in capsys.readouterr().out
    runs = json.loads(out_json.read_text())["rows"]
    X, y = load_iris(return_X_y=True)
    optimum = LPBoostClassifier(nu=0.2, oracle="stumps").fit(X, y).objective_
    assert [r["status"] for r in runs] == ["converged", "converged"]
    for run in runs:
        assert run["objective"] == pytest.approx(optimum, abs=1e-6)
    assert main(["compare", "--data", "sklearn:iris", "--oracle", "features", "-b", "highspy"]) == 2
    err = capsys.readouterr().err
    assert "priced by stumps or binned-stumps or trees or gb-trees, not 'features'" in err
    # --master multiclass-lpboost names the same LP; on two classes (--positive) it is LPBoost's
    assert main(["compare", "--data", "sklearn:iris", "--master", "multiclass-lpboost", "--nu", "0.2",
                 "-b", "highspy", "--no-replay", "--json", str(out_json)]) == 0
    assert "MulticlassLPBoost(nu=0.2, n_classes=3) on iris" in capsys.readouterr().out
    assert json.loads(out_json.read_text())["rows"][0]["objective"] == pytest.approx(optimum, abs=1e-6)
    assert main(["compare", "--data", "sklearn:iris", "--positive", "2", "--master", "multiclass-lpboost",
                 "--nu", "0.2", "-b", "highspy", "--no-replay", "--json", str(out_json)]) == 0
    assert "MulticlassLPBoost(nu=0.2, n_classes=2) on iris" in capsys.readouterr().out
    binary = LPBoostClassifier(nu=0.2, oracle="stumps").fit(X, np.where(y == 2, 1, -1)).objective_
    assert json.loads(out_json.read_text())["rows"][0]["objective"] == pytest.approx(binary, abs=1e-6)



def test_cli_compare_erlpboost_over_pairs(capsys, tmp_path):
    """--master multiclass-erlpboost: ERLPBoost over the pairs, the dedicated Newton projection and
    CLARABEL's on the same columns agree (replayed: the same projections; CLARABEL's 1e-8 gap).  The
    value compared is the projection's, gamma + Delta(d)/eta: at least the LP value over the
    columns (within delta of the multiclass LP's optimum at the stop) and at most that value plus
    max Delta / eta = delta / 2."""
    from sklearn.datasets import load_wine

    from lpboosting import LPBoostClassifier
    from lpboosting.cli import main

    out_json = tmp_path / "e.json"
    assert main(["compare", "--data", "sklearn:wine", "--master", "multiclass-erlpboost", "--nu", "0.2",
                 "-b", "dedicated", "-b", "cvxpy:CLARABEL", "--json", str(out_json)]) == 0
    assert "MulticlassERLPBoost(nu=0.2, delta=0.01, n_classes=3) on wine" in capsys.readouterr().out
    rows = json.loads(out_json.read_text())["rows"]
    assert {r["status"] for r in rows} <= {"converged", "optimal"}
    replays = [r["objective"] for r in rows if r["mode"] == "replay"]
    assert len(replays) == 2 and replays[0] == pytest.approx(replays[1], abs=1e-7)
    X, y = load_wine(return_X_y=True)
    optimum = LPBoostClassifier(nu=0.2, oracle="stumps").fit(X, y).objective_
    for r in rows:
        assert optimum - 0.01 <= r["objective"] <= optimum + 0.01 / 2 + 1e-7

def test_cli_compare_catalog_draws_the_performance_profile(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    from lpboosting.cli import main

    figure, table = tmp_path / "profile.png", tmp_path / "catalog.csv"
    assert main(["compare", "--catalog", "-b", "highspy", "-b", "dedicated", "-b", "cvxpy:CLARABEL",
                 "--no-replay", "--profile", str(figure), "--csv", str(table)]) == 0
    out = capsys.readouterr().out
    assert figure.stat().st_size > 10_000
    assert "performance profile, LP masters" in out and "performance profile, entropy projections" in out
    lines = table.read_text().splitlines()
    assert lines[0].startswith("instance,backend,mode")
    assert main(["compare", "--data", "breast-cancer", "--profile", str(figure)]) == 2
    assert "--catalog" in capsys.readouterr().err
    assert main(["compare", "--catalog", "--repeat", "0"]) == 2
    assert "--repeat 1 or more" in capsys.readouterr().err
    assert main(["compare", "--catalog", "--instance", "hand-lpboost"]) == 2


def test_cli_backends_lists_the_highs_methods_and_with_all_pdlp(capsys):
    from lpboosting.cli import main

    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    assert "highspy:pdlp" in out and "highspy:primal" in out and "cvxpy:PDLP" not in out
    assert main(["backends", "--all"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "cvxpy:PDLP" in line)
    assert "ortools>=" in line or "yes" in line


def test_cli_compare_runs_the_masters_default_backend_with_its_classifiers_limits(monkeypatch, capsys,
                                                                                   tmp_path):
    """RMBoost's own default backend (highspy:ipm) is compared, first, at the round limit and the
    tolerance of RMBoostClassifier; LPBoost at LPBoostClassifier's."""
    from lpboosting import LPBoostClassifier, RMBoostClassifier
    from lpboosting import compare as harness
    from lpboosting.cli import main

    seen = {}
    real = harness.compare

    def spy(master, oracle, backends, **options):
        seen.update(options, backends=list(backends))
        return harness.Comparison("spied", [harness.BackendRun(backends[0], "own", status="converged")])

    monkeypatch.setattr(harness, "compare", spy)
    assert main(["compare", "--data", "breast-cancer", "--master", "rmboost"]) == 0
    assert seen["backends"][0] == "highspy:ipm" and {"highspy", "dedicated"} <= set(seen["backends"])
    rm = RMBoostClassifier()
    assert seen["max_rounds"] == rm.max_rounds and seen["tol"] == rm.tol
    assert main(["compare", "--data", "breast-cancer"]) == 0
    assert seen["backends"][0] == "highspy" and "highspy:ipm" not in seen["backends"]
    assert seen["max_rounds"] == LPBoostClassifier().max_rounds
    monkeypatch.setattr(harness, "compare", real)
    capsys.readouterr()
    # a simplex, whose vertex duals keep RMBoost from stopping, ends at the round limit given
    out_csv = tmp_path / "rm.csv"
    assert main(["compare", "--data", "breast-cancer", "--master", "rmboost", "-b", "dedicated",
                 "--max-rounds", "150", "--no-replay", "--csv", str(out_csv)]) == 0
    with out_csv.open() as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["backend"], r["rounds"], r["status"]) for r in rows] == [("dedicated", "150", "max_rounds")]


def test_cli_compare_catalog_counts_each_backend_on_the_instances_it_ran_on(capsys):
    from lpboosting import catalog
    from lpboosting.cli import main

    entries = catalog.load_index()
    lp = [e for e in entries if e["kind"] == "lp"]
    rmboost = [e for e in lp if e["master"] == "RMBoost"]
    assert main(["compare", "--catalog", "-b", "highspy", "-b", "dedicated", "--no-replay"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("performance profile, LP"))
    # dedicated solves only RMBoost's LP: it is counted on those instances, not failing the others
    assert f"dedicated {len(rmboost)}/{len(rmboost)} solved" in line, line
    assert f"highspy {len(lp)}/{len(lp)} solved" in line, line
    assert "counted on those it ran on" in line
