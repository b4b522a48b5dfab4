"""Every installed backend on the same instances; registry errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from lpboosting import column_generation
from lpboosting.backends import available, available_backends, get_backend, known_backends
from lpboosting.errors import SolverNotInstalledError, UnknownBackendError
from lpboosting.masters import LPBoost, RMBoost
from lpboosting.oracles import Stumps
from lpboosting.status import SolveStatus
from lpboosting.backends import RecordingBackend
from tests.helpers import cancer_subset, check_optimality, LP_BACKENDS, TOL


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
    assert RMBoost(0.1).solve(U, backend="dedicated").record["solver"] == "dedicated"  # checked
    assert RMBoost(0.1).solve(U).objective == pytest.approx(RMBoost(0.1).solve(U, backend="highspy").objective,
                                                            abs=1e-12)
    projection = SoftBoost(0.5, 0.1).project(U, bound=0.5)
    assert projection.solver == "dedicated" and projection.verified


@pytest.mark.parametrize("name, solves, refuses", [
    ("dedicated:newton", ["SoftBoost", "TotalBoost", "ERLPBoost", "MulticlassERLPBoost"],
     ["LPBoost", "MulticlassLPBoost", "RMBoost"]),
    ("dedicated:minimax-simplex", ["RMBoost"],
     ["LPBoost", "MulticlassLPBoost", "SoftBoost", "TotalBoost", "ERLPBoost", "MulticlassERLPBoost"]),
    ("dedicated", ["SoftBoost", "TotalBoost", "ERLPBoost", "MulticlassERLPBoost", "RMBoost"],
     ["LPBoost", "MulticlassLPBoost"]),
    ("highspy", ["LPBoost", "MulticlassLPBoost", "RMBoost"],
     ["SoftBoost", "TotalBoost", "ERLPBoost", "MulticlassERLPBoost"]),
    ("cvxpy:HIGHS", ["LPBoost", "MulticlassLPBoost", "RMBoost"],
     ["SoftBoost", "TotalBoost", "ERLPBoost", "MulticlassERLPBoost"]),
])
def test_what_each_backend_solves_comes_from_the_session_table(name, solves, refuses):
    from lpboosting.errors import BackendCapabilityError
    from lpboosting.masters import MASTERS

    backend = get_backend(name)
    specs = {spec.name: spec for spec in MASTERS.values()}
    assert sorted(n for n, spec in specs.items() if backend.solves(spec.cls)) == sorted(solves)
    for master in refuses:
        unset = {"n_classes": 3}  # a parameter the registry leaves to the data (else lam: 0.1)
        params = {k: v if v is not None else unset.get(k, 0.1) for k, v in specs[master].params.items()}
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


# -- HiGHS's methods by name, with their own iterations ------------------------------------------
def _solve_sequence(backend, U, master):
    session = get_backend(backend).open(master, U.shape[0])
    solutions = []
    for t in range(U.shape[1]):
        session.add_column(U[:, t])
        solutions.append(session.solve())
    return solutions


@pytest.mark.parametrize("name, kind", [("highspy:ipm", "ipm"), ("highspy:pdlp", "pdlp"),
                                        ("highspy:dual", "simplex"), ("highspy:primal", "simplex")])
@pytest.mark.parametrize("master", [LPBoost(0.15), RMBoost(0.1, prune=False)], ids=["lpboost", "rmboost"])
def test_highs_methods_count_their_own_iterations_and_reach_the_simplex_value(column_sequence, name,
                                                                              kind, master):
    from lpboosting.backends.highs.model import PDLP_TOLERANCE, VARIANTS

    U = column_sequence
    reference = _solve_sequence("highspy", U, master)
    solutions = _solve_sequence(name, U, master)
    # the accuracy each method promises: PDLP's relative termination tolerance, the interior
    # point's optimality tolerance; the simplex methods end at the same vertex value
    eps = {"pdlp": PDLP_TOLERANCE, "ipm": VARIANTS["ipm"]["ipm_optimality_tolerance"]}.get(kind, 1e-12)
    for t, (ref, sol) in enumerate(zip(reference, solutions), start=1):
        assert sol.ok and sol.backend == name, t
        counts = sol.info["iterations_by_kind"]
        assert set(counts) <= {kind}, (t, counts)  # no simplex iterations in an ipm/pdlp run
        assert sol.iterations == sum(counts.values())
        assert sol.info["solver_seconds"] > 0
        assert abs(sol.objective - ref.objective) <= eps * (1 + abs(sol.objective) + abs(ref.objective)), t
    assert sum(s.iterations for s in solutions) > 0
    assert get_backend(name).iteration_kind == kind


def test_highs_methods_without_a_basis_do_not_sift():
    # sifting moves examples out of the model at their bound: it needs a basis
    assert get_backend("highspy").solvers == ("highspy",)
    for name in ("highspy:ipm", "highspy:pdlp"):
        backend = get_backend(name)
        assert backend.solvers[0] == "highspy-delta" and not backend.incremental
    assert get_backend("highspy", solver="ipm").solvers[0] == "highspy-delta"
    assert get_backend("highspy:primal").incremental
    with pytest.raises(UnknownBackendError, match="pdlp"):
        get_backend("highspy:barrier")


# -- install hints and solver options ------------------------------------------------------------
def test_the_install_hint_of_ortools_solvers_names_ortools_with_cvxpys_range(monkeypatch):
    from importlib import metadata

    from lpboosting.backends import install_hint

    hint = install_hint("cvxpy:PDLP")
    assert hint == install_hint("cvxpy:GLOP")
    assert hint.startswith('pip install "ortools>=') and hint.endswith('"') and ",<" in hint
    # the range is cvxpy's own (its pdlp extra), when its metadata names one
    declared = [r for r in (metadata.requires("cvxpy") or []) if r.startswith("ortools")
                and 'extra == "pdlp"' in r]
    if declared:
        for bound in declared[0].split(";")[0][len("ortools"):].strip(" ()").split(","):
            assert bound.strip() in hint
    # the HiGHS methods are all highspy's
    assert {install_hint(n) for n in ("highspy:ipm", "highspy:pdlp", "highspy:rows")} == {"pip install highspy"}
    # the error of a missing PDLP says the same
    import cvxpy

    installed = [s for s in cvxpy.installed_solvers() if s != "PDLP"]
    monkeypatch.setattr(cvxpy, "installed_solvers", lambda: installed)
    with pytest.raises(SolverNotInstalledError) as info:
        get_backend("cvxpy:PDLP").require()
    assert hint in str(info.value)


def test_pdlp_is_nameable_but_never_picked_automatically():
    from lpboosting.backends import available
    from lpboosting.backends.registry import nameable_backends

    assert "cvxpy:PDLP" not in known_backends() and "cvxpy:PDLP" in nameable_backends()
    assert get_backend("cvxpy:PDLP").kinds == frozenset({"lp"})
    listed = [info.name for info in available(include_missing=True, include_unlisted=True)]
    assert listed == nameable_backends()


def test_time_limit_options_of_each_solver():
    assert get_backend("highspy:pdlp").time_limit_options(2) == {"time_limit": 2.0}
    assert get_backend("cvxpy:CLARABEL").time_limit_options(2) == {"time_limit": 2.0}
    assert get_backend("cvxpy:SCS").time_limit_options(2) == {"time_limit_secs": 2.0}
    assert get_backend("cvxpy:PDLP").time_limit_options(2) == {"time_limit_sec": 2.0}
    assert get_backend("cvxpy:ECOS").time_limit_options(2) == {}
    from lpboosting.compare import time_limit_options

    assert time_limit_options(get_backend("dedicated"), 2) == {}  # no limit of its own
    # nested parameter dicts keep the user's other parameters
    scipy = get_backend("cvxpy:SCIPY", scipy_options={"presolve": False})
    assert scipy.time_limit_options(3) == {"scipy_options": {"presolve": False, "time_limit": 3.0}}


def test_highs_time_limit_bounds_a_whole_session():
    rng = np.random.default_rng(0)
    U = np.sign(rng.standard_normal((3000, 300)))
    session = get_backend("highspy:delta", time_limit=0.2).open(LPBoost(0.1), U.shape[0])
    statuses = []
    for t in range(U.shape[1]):
        session.add_column(U[:, t])
        statuses.append(session.solve().status)
        if not statuses[-1].ok:
            break
    assert statuses[-1] is SolveStatus.TIME_LIMIT  # each round is short; their sum reaches it


# -- cvxpy: the solver's time apart from cvxpy's compile time ------------------------------------
def test_cvxpy_reports_compile_and_solver_time_apart(column_sequence):
    from lpboosting.masters import SoftBoost

    U = column_sequence
    backend = get_backend("cvxpy:CLARABEL")
    session = backend.open(LPBoost(0.15), U.shape[0])
    total_compile = total_solver = 0.0
    for t in range(U.shape[1]):
        session.add_column(U[:, t])
        sol = session.solve()
        assert sol.ok and sol.info["compile_seconds"] > 0 and sol.info["solver_seconds"] > 0
        assert sol.info["compile_seconds"] + sol.info["solver_seconds"] <= sol.seconds
        total_compile += sol.info["compile_seconds"]
        total_solver += sol.info["solver_seconds"]
    assert backend.times.solves == U.shape[1]
    assert backend.times.compile_seconds == pytest.approx(total_compile)
    assert backend.times.solver_seconds == pytest.approx(total_solver)
    # the projections of the entropy masters are counted too
    cone = get_backend("cvxpy:CLARABEL")
    SoftBoost(0.5, 0.1).project(U, backend=cone, bound=0.5)
    assert cone.times.solves == 1 and cone.times.compile_seconds > 0 and cone.times.solver_seconds > 0


def test_a_backend_plugged_in_by_the_recipe_is_listed_in_its_own_words():
    """docs/architecture.md's recipe: a Backend subclass and its line in the table; available()
    lists it (it raised KeyError), with its docstring and its install command (it said
    'pip install ')."""
    from lpboosting.backends import Backend, table
    from lpboosting.backends.table import install_hint
    from lpboosting.masters import LPBoost

    class Plugged(Backend):
        """A plugged-in solver of LPBoost's LP."""

        name, solvers = "plugged", ("highspy-delta",)  # HiGHS's session under another name

        def is_available(self):
            return True

        def require(self):
            pass

    table.BACKENDS["plugged"] = Plugged
    try:
        assert get_backend("plugged").solves(LPBoost)
        info = next(i for i in available() if i.name == "plugged")
        assert info.description == "A plugged-in solver of LPBoost's LP."
        assert "no install command known for 'plugged'" in info.install
        Plugged.install, Plugged.description = "pip install plugged-solver", "in its own words"
        info = next(i for i in available(include_missing=True) if i.name == "plugged")
        assert (info.install, info.description) == ("pip install plugged-solver", "in its own words")
        assert install_hint("plugged") == "pip install plugged-solver"
    finally:
        del table.BACKENDS["plugged"]
    assert "plugged" not in [i.name for i in available()]
