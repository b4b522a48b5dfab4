"""Every installed backend on the same instances; registry errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from lpboosting import column_generation
from lpboosting.backends import available_backends, get_backend, known_backends
from lpboosting.errors import SolverNotInstalledError, UnknownBackendError
from lpboosting.masters import LPBoost
from lpboosting.oracles import Stumps
from lpboosting.backends import RecordingBackend
from tests.conftest import LP_BACKENDS
from tests.test_column_generation import cancer_subset
from tests.test_lpboost_master import TOL, check_optimality


@pytest.fixture(scope="module")
def column_sequence():
    X, y = cancer_subset(80, 6, 3)
    res = column_generation(LPBoost(0.15), Stumps(X, y), tol=1e-9)
    assert res.columns.shape[1] >= 5
    return res.columns


def test_the_reference_backends_are_installed():
    # the project depends on all four; a missing one would silently shrink the agreement test
    for name in ["highspy", "cvxpy:HIGHS", "cvxpy:CLARABEL", "cvxpy:ECOS"]:
        assert name in LP_BACKENDS


@pytest.mark.parametrize("backend", [b for b in LP_BACKENDS if b != "highspy"])
def test_backends_agree_on_a_fixed_column_sequence(column_sequence, backend):
    U = column_sequence
    tol = TOL.get(backend, 1e-5)
    fast = RecordingBackend("highspy")
    other = RecordingBackend(backend)
    for rec in (fast, other):
        session = rec.open(LPBoost(0.15), U.shape[0])
        for t in range(U.shape[1]):
            session.add_column(U[:, t])
            session.solve()
    for t, (a, b) in enumerate(zip(fast.solutions, other.solutions), start=1):
        assert b.objective == pytest.approx(a.objective, abs=tol), t
        assert b.dual_objective == pytest.approx(a.dual_objective, abs=tol), t
        check_optimality(b, U[:, :t], 0.15, 10 * tol)
        # the edge game value is unique, and so is the soft margin of any optimal w
        assert np.max(b.distribution @ U[:, :t]) == pytest.approx(a.gamma, abs=10 * tol)


def test_incremental_session_equals_rebuilt_solves(column_sequence):
    U = column_sequence
    session = get_backend("highspy").open(LPBoost(0.15), U.shape[0])
    for t in range(U.shape[1]):
        session.add_column(U[:, t])
        inc = session.solve()
        fresh = LPBoost(0.15).solve(U[:, : t + 1], backend="highspy")
        assert inc.objective == pytest.approx(fresh.objective, abs=1e-12)


def test_column_generation_runs_on_every_backend():
    X, y = cancer_subset(60, 4, 2)
    values = {b: column_generation(LPBoost(0.2), Stumps(X, y), backend=b, tol=1e-7).objective
              for b in ["highspy", "cvxpy:HIGHS", "cvxpy:CLARABEL", "cvxpy:ECOS"]}
    for b, v in values.items():
        assert v == pytest.approx(values["highspy"], abs=1e-6), b


def test_unknown_backend():
    with pytest.raises(UnknownBackendError, match="known names"):
        get_backend("gurobi-direct")
    with pytest.raises(UnknownBackendError):
        get_backend(3)


def test_cvxpy_solver_not_installed():
    missing = next(n for n in known_backends() if n.startswith("cvxpy:") and n not in available_backends())
    with pytest.raises(SolverNotInstalledError, match="pip install"):
        LPBoost(0.5).solve(np.eye(3), backend=missing)


def test_highspy_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "highspy", None)  # makes `import highspy` fail
    assert not get_backend("highspy").is_available()
    with pytest.raises(SolverNotInstalledError, match="pip install highspy"):
        LPBoost(0.5).solve(np.eye(3), backend="highspy")


def test_backend_names_are_case_insensitive():
    assert get_backend("cvxpy:clarabel").name == "cvxpy:CLARABEL"
    assert get_backend("HiGHSpy").name == "highspy"


def test_a_master_solved_alone_uses_its_own_default_backend():
    from lpboosting.masters import RMBoost, SoftBoost

    U = np.array([[1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    assert LPBoost(0.5).solve(U).backend == LPBoost.default_backend == "highspy"
    assert RMBoost(0.1).solve(U).backend == RMBoost.default_backend == "highspy:ipm"
    assert RMBoost(0.1).solve(U, backend="dedicated").info["record"]["solver"] == "dedicated"  # checked
    assert RMBoost(0.1).solve(U).objective == pytest.approx(RMBoost(0.1).solve(U, backend="highspy").objective,
                                                            abs=1e-12)
    projection = SoftBoost(0.5, 0.1).project(U, bound=0.5)
    assert projection.solver == "dedicated" and projection.verified


@pytest.mark.parametrize("name, solves, refuses", [
    ("dedicated:newton", ["SoftBoost", "TotalBoost", "ERLPBoost"], ["LPBoost", "RMBoost"]),
    ("dedicated:minimax-simplex", ["RMBoost"], ["LPBoost", "SoftBoost", "TotalBoost", "ERLPBoost"]),
    ("dedicated", ["SoftBoost", "TotalBoost", "ERLPBoost", "RMBoost"], ["LPBoost"]),
    ("highspy", ["LPBoost", "RMBoost"], ["SoftBoost", "TotalBoost", "ERLPBoost"]),
    ("cvxpy:HIGHS", ["LPBoost", "RMBoost"], ["SoftBoost", "TotalBoost", "ERLPBoost"]),
])
def test_what_each_backend_solves_comes_from_the_session_table(name, solves, refuses):
    from lpboosting.errors import BackendCapabilityError
    from lpboosting.masters import MASTERS

    backend = get_backend(name)
    specs = {spec.name: spec for spec in MASTERS.values()}
    assert sorted(n for n, spec in specs.items() if backend.solves(spec.cls)) == sorted(solves)
    for master in refuses:
        params = {k: v if v is not None else 0.1 for k, v in specs[master].params.items()}
        with pytest.raises(BackendCapabilityError, match=name):
            backend.open(specs[master].cls(**params), 5)


def test_the_named_dedicated_solvers_are_the_ones_dedicated_runs():
    from lpboosting.masters import RMBoost, SoftBoost

    X, y = cancer_subset(60, 4, 2)
    for master, solver in [(RMBoost(0.1), "dedicated:minimax-simplex"), (SoftBoost(0.2, 0.05), "dedicated:newton")]:
        a = column_generation(master, Stumps(X, y), backend="dedicated", max_rounds=50)
        b = column_generation(master, Stumps(X, y), backend=solver, max_rounds=50)
        np.testing.assert_array_equal([r.primal for r in a.history], [r.primal for r in b.history])
        assert b.history.meta["backend"] == solver
