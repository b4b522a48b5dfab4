"""The backend registry's capabilities, data sets by name and the solver-comparison harness."""

from __future__ import annotations

import json

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
from lpboosting.oracles import Stumps

from .conftest import FailingBackend, soft_margin_lp


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
