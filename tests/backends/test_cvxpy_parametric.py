"""The cvxpy backend's parametric session: LPBoost's and RMBoost's statements over a column block
in cvxpy Parameters, compiled once per capacity and warm-started, give the answers of the statement
rebuilt every solve and of highspy, round by round."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cvxpy.reductions.solvers.solving_chain import SolvingChain

from lpboosting import column_generation
from lpboosting.backends import get_backend
from lpboosting.backends.cvxpy_backend import TIGHT_OPTIONS, CvxpyBackend, CvxpyRebuildSession
from lpboosting.backends.cvxpy_parametric import (
    INITIAL_CAPACITY,
    CvxpyParametricSession,
    capacity_for,
    has_parametric_statement,
)
from lpboosting.masters import LPBoost, Master, MasterSolution, RMBoost
from lpboosting.oracles import Stumps
from tests.helpers import cancer_subset

#: the parametric and the rebuilt statement solved by HiGHS's simplex, and highspy's own model, are
#: vertices of the same LP: their values agree to round-off, far inside HiGHS's primal and dual
#: feasibility tolerances (1e-7)
HIGHS_TOL = 1e-9
#: CLARABEL and ECOS at their tightened tolerances (TIGHT_OPTIONS) agree with the simplex to 1e-6
IPM_TOL = 1e-6


@pytest.fixture(scope="module")
def cancer():
    """120 examples of breast cancer on 6 features and 40 of their stumps' columns, in random order."""
    X, y = cancer_subset(120, 6, 0)
    U, _ = Stumps(X, y).all_columns()
    order = np.random.default_rng(1).permutation(U.shape[1])
    return X, y, np.asarray(U[:, order], dtype=float)


def rebuilt(master: Master, n: int, solver: str = "HIGHS", **options) -> CvxpyRebuildSession:
    return CvxpyRebuildSession(master, n, CvxpyBackend(solver, **options))


def parametric(master: Master, n: int, solver: str = "HIGHS", **options) -> CvxpyParametricSession:
    return CvxpyParametricSession(master, n, CvxpyBackend(solver, **options))


class SideConstrained(LPBoost):
    """LPBoost whose statement has one more constraint: its parametric statement is not its statement."""

    def cvxpy_statement(self, U):
        statement = super().cvxpy_statement(U)
        problem = statement.problem
        statement.problem = type(problem)(problem.objective,
                                          problem.constraints + [statement.variables["d"][:3].sum() <= 0.05])
        return statement


class Checked(LPBoost):
    """LPBoost with its own verify only: its statements are LPBoost's."""

    def verify(self, solution, U, active=None):
        return super().verify(solution, U, active)


class HardMargin(Master):
    """The architecture page's master: a cvxpy statement and its read-back, nothing else."""

    kind, name = "lp", "HardMargin"

    def cvxpy_statement(self, U):
        import cvxpy as cp

        from lpboosting.masters import CvxpyStatement

        d, gamma = cp.Variable(U.shape[0]), cp.Variable()
        edges = U.T @ d <= gamma
        return CvxpyStatement(cp.Problem(cp.Minimize(gamma), [edges, cp.sum(d) == 1, d >= 0]),
                              {"d": d, "gamma": gamma}, {"edges": edges})

    def cvxpy_solution(self, statement, U, status):
        gamma = float(statement.variables["gamma"].value)
        w = np.maximum(statement.constraints["edges"].dual_value, 0.0)
        return MasterSolution(status, gamma, gamma, gamma, w, statement.variables["d"].value, gamma=gamma)

    def gap(self, solution, edge):
        return edge - solution.dual_objective

    def converged(self, solution, edge, tol):
        return edge <= solution.dual_objective + tol


# -- which session -----------------------------------------------------------------------------
def test_the_masters_with_a_parametric_statement_get_the_parametric_session_where_the_solver_takes_a_start():
    assert has_parametric_statement(LPBoost(0.2)) and has_parametric_statement(RMBoost())
    assert has_parametric_statement(Checked(0.2))
    # a subclass that restates its statement, and a master with a statement only: rebuilt
    assert not has_parametric_statement(SideConstrained(0.2))
    assert not has_parametric_statement(HardMargin())
    open_ = lambda name, master: get_backend(name).open(master, 10)  # noqa: E731
    assert type(open_("cvxpy:HIGHS", LPBoost(0.2))) is CvxpyParametricSession
    assert type(open_("cvxpy:HIGHS", RMBoost())) is CvxpyParametricSession
    assert type(open_("cvxpy:HIGHS", SideConstrained(0.2))) is CvxpyRebuildSession
    assert type(open_("cvxpy:HIGHS", HardMargin())) is CvxpyRebuildSession
    # interior-point solvers take no start; the block's unused columns would cost them every solve
    assert type(open_("cvxpy:CLARABEL", LPBoost(0.2))) is CvxpyRebuildSession
    assert type(open_("cvxpy:ECOS", RMBoost())) is CvxpyRebuildSession
    # a first-order solver iterates over the unused rows: SCS keeps the rebuilt statement too
    if "SCS" in __import__("cvxpy").installed_solvers():
        assert type(open_("cvxpy:SCS", LPBoost(0.2))) is CvxpyRebuildSession


def test_a_master_with_a_statement_only_still_runs_on_the_cvxpy_backend(cancer):
    X, y, _ = cancer
    ours = column_generation(HardMargin(), Stumps(X, y), backend="cvxpy:HIGHS", tol=1e-9)
    lp = column_generation(LPBoost(nu=1 / len(y)), Stumps(X, y), backend="highspy", tol=1e-9)
    assert ours.status == lp.status == "converged"
    assert ours.objective == pytest.approx(lp.objective, abs=HIGHS_TOL)


@pytest.mark.parametrize("master", [LPBoost(0.2), LPBoost(0.2, sample_weight=np.arange(1.0, 121.0)),
                                    RMBoost(), RMBoost(sample_weight=np.r_[np.zeros(5), np.ones(115)])],
                         ids=["lpboost", "lpboost-weighted", "rmboost", "rmboost-weighted"])
def test_the_parametric_statements_are_dpp(master):
    statement = master.cvxpy_parametric_statement(120, 32)
    assert statement.capacity == 32 and statement.parameters
    assert statement.problem.is_dpp()


# -- the same answers, round by round ---------------------------------------------------------
def _same_answer(ours: MasterSolution, reference: MasterSolution, tol: float) -> None:
    assert ours.ok and reference.ok
    assert ours.objective == pytest.approx(reference.objective, abs=tol)
    assert ours.dual_objective == pytest.approx(reference.dual_objective, abs=tol)
    assert ours.weights.shape == reference.weights.shape


def _round_by_round(master, n, U, rounds, check=lambda ours, t: True):
    """The parametric session, the rebuilt statement and highspy given the same columns one at a
    time: the same answer every round (HiGHS's tolerance), the parametric one certified by the
    master over the t real columns (and ``check``); the parametric session."""
    sessions = [parametric(master, n), rebuilt(master, n), get_backend("highspy").open(master, n)]
    for t in range(1, rounds + 1):
        for session in sessions:
            session.add_column(U[:, t - 1])
        ours, rebuild, highspy = (session.solve() for session in sessions)
        _same_answer(ours, rebuild, HIGHS_TOL)
        _same_answer(ours, highspy, HIGHS_TOL)
        assert master.verify(ours, U[:, :t]) == ""
        assert check(ours, t)
    return sessions[0]


@pytest.mark.parametrize("weighted", [False, True])
def test_lpboost_agrees_with_the_rebuilt_statement_and_highspy_round_by_round(cancer, weighted):
    _, y, U = cancer
    s = np.random.default_rng(2).integers(0, 4, size=y.size).astype(float) if weighted else None
    master = LPBoost(0.2, sample_weight=s)
    session = _round_by_round(master, y.size, U, 40)
    assert session.compilations == 3  # capacities 16, 32, 64


def test_rmboost_agrees_with_the_rebuilt_statement_and_highspy_round_by_round(cancer):
    _, y, U = cancer
    master = RMBoost(prune=False)
    _round_by_round(master, y.size, U, 40, check=lambda ours, t: ours.record["active"] == t)


@pytest.mark.parametrize("solver", ["CLARABEL", "ECOS"])
@pytest.mark.parametrize("master", [LPBoost(0.2), RMBoost(prune=False)], ids=["lpboost", "rmboost"])
def test_the_block_is_neutral_for_interior_point_solvers_too(cancer, solver, master):
    # the unused columns are rows with slack (LPBoost) or weights that cost lam (RMBoost): an
    # interior point of the padded problem is one of the restricted master's
    _, y, U = cancer
    ours = parametric(master, y.size, solver, **TIGHT_OPTIONS[solver])
    highspy = get_backend("highspy").open(master, y.size)
    for t in range(1, 21):
        ours.add_column(U[:, t - 1])
        highspy.add_column(U[:, t - 1])
        if t in (1, 9, 17, 20):  # 16 unused columns, 8, 15 (a new block of 32), 12
            _same_answer(ours.solve(), highspy.solve(), IPM_TOL)


# -- compilations ---------------------------------------------------------------------------------
@pytest.fixture
def compilations(monkeypatch):
    """The problems cvxpy compiles (its reduction chain applied; a DPP problem solved again
    skips it), in order."""
    compiled = []
    apply = SolvingChain.apply

    def counting(self, problem, verbose=False):
        compiled.append(problem)
        return apply(self, problem, verbose)

    monkeypatch.setattr(SolvingChain, "apply", counting)
    return compiled


@pytest.mark.parametrize("master", [LPBoost(0.2), RMBoost(prune=False)], ids=["lpboost", "rmboost"])
def test_the_statement_compiles_once_per_capacity(cancer, compilations, master):
    _, y, U = cancer
    T = 130
    session = parametric(master, y.size)
    for t in range(1, T + 1):
        session.add_column(U[:, t - 1])
        assert session.solve().ok
    expected = math.ceil(math.log2(T / INITIAL_CAPACITY)) + 1  # 16, 32, 64, 128, 256
    assert len(compilations) == session.compilations == session.backend.times.compilations == expected
    assert session.capacity == 256 and session.backend.times.solves == T
    # the statement rebuilt every solve compiles every solve
    compilations.clear()
    rebuild = rebuilt(master, y.size)
    for t in range(1, 11):
        rebuild.add_column(U[:, t - 1])
        rebuild.solve()
    assert len(compilations) == rebuild.backend.times.compilations == 10


def test_capacity_for_doubles_from_the_initial_block():
    assert capacity_for(1) == capacity_for(16) == 16
    assert capacity_for(17) == 32 and capacity_for(17, 32) == 32 and capacity_for(65, 32) == 128


# -- growth and neutral columns ---------------------------------------------------------------------
@pytest.mark.parametrize("master", [LPBoost(0.2), RMBoost(prune=False)], ids=["lpboost", "rmboost"])
def test_growing_the_block_keeps_the_answer(cancer, master):
    _, y, U = cancer
    session = parametric(master, y.size)
    for t in range(1, 18):
        session.add_column(U[:, t - 1])
        before = session.capacity
        ours = session.solve()
        reference = rebuilt(master, y.size)
        for j in range(t):
            reference.add_column(U[:, j])
        _same_answer(ours, reference.solve(), HIGHS_TOL)
        if t in (16, 17):  # full at 16; the 17th column grows the block to 32
            assert (before, session.capacity) == ((16, 16) if t == 16 else (16, 32))
    # the same 17 columns in a block of 128 (111 unused columns)
    wide = master.cvxpy_parametric_statement(y.size, 128)
    master.cvxpy_load(wide, U[:, :17])
    solved = CvxpyBackend("HIGHS").solve_and_read(master, wide, U[:, :17])
    _same_answer(solved, ours, HIGHS_TOL)
    assert master.verify(solved, U[:, :17]) == ""


def test_unused_columns_do_not_bound_a_negative_value():
    # no d of the capped simplex gives these columns a positive edge: gamma* = -0.5, where a zero
    # column's row 0 <= gamma would give 0 if the block's unused rows were not slack
    n = 8
    U = np.column_stack([-np.ones(n), -0.5 * np.ones(n), np.r_[0.2 * np.ones(4), -np.ones(4)]])
    master = LPBoost(0.5)
    session = parametric(master, n)
    for u in U.T:
        session.add_column(u)
    solution = session.solve()
    assert solution.dual_objective == pytest.approx(-0.5, abs=HIGHS_TOL)
    _same_answer(solution, master.solve(U, backend="highspy"), HIGHS_TOL)
    assert master.verify(solution, U) == ""


# -- pools, caps and whole runs ----------------------------------------------------------------------
def test_a_new_nu_reaches_the_parametric_statement(cancer):
    _, y, U = cancer
    master = LPBoost(0.2)
    session = parametric(master, y.size)
    for t in range(20):
        session.add_column(U[:, t])
    session.solve()
    master.nu = 0.5
    session.refresh_caps()
    _same_answer(session.solve(), LPBoost(0.5).solve(U[:, :20], backend="highspy"), HIGHS_TOL)
    assert session.compilations == 1  # a block of 32 from the first solve: the caps are parameters


@pytest.mark.parametrize("master, reference, converges", [
    (lambda: LPBoost(0.2), "highspy", True),
    (lambda: LPBoost(0.2, pool={"inactive_rounds": 2}), "highspy", True),
    (lambda: RMBoost(lam=0.1), "highspy:ipm", False),
], ids=["lpboost", "lpboost-pool", "rmboost-prune"])
def test_column_generation_reaches_the_same_optimum(cancer, master, reference, converges):
    X, y, _ = cancer
    backend = CvxpyBackend("HIGHS")
    ours = column_generation(master(), Stumps(X, y), backend=backend, tol=1e-9, max_rounds=150)
    theirs = column_generation(master(), Stumps(X, y), backend=reference, tol=1e-9, max_rounds=150)
    assert theirs.status == "converged"
    # RMBoost's simplex duals are vertices of a degenerate optimal face: R is optimal long before the
    # run stops (see lpboosting.masters.rmboost), so only the value is compared at 150 rounds
    assert ours.status == ("converged" if converges else "max_rounds")
    assert ours.objective == pytest.approx(theirs.objective, abs=HIGHS_TOL)
    rounds = len(ours.history)
    assert backend.times.compilations <= math.ceil(math.log2(max(rounds, 16) / INITIAL_CAPACITY)) + 1
