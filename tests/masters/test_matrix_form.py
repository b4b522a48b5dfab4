"""The matrix form of the LP masters (lpboosting.masters.matrix_form), derived from their cvxpy statements.

(a) On random +-1 column matrices (with and without sample weights, zeros among them) the matrix form of every form
    of LPBoost and RMBoost, solved by scipy's linprog, has the optimum of the hand-built sessions
    (LPBoost: highspy, highspy:rows; RMBoost: highspy, dedicated) and of the cvxpy statement
    solved by CLARABEL, within 1e-7 (HiGHS's primal and dual feasibility tolerance; CLARABEL's
    gap tolerance is 1e-8);
(b) the live HiGHS models the sessions build (LPBoost's highspy:rows, RMBoost's highspy) hold the
    same costs, bounds and matrix as the matrix form, up to the order of rows and columns (and
    RMBoost's ranged rows, which the form writes as an upper and a lower row); exactly, since
    every number is a +-1 entry, a cap or lam -+ a column mean of +-1 entries, except the costs
    lam -+ p . u_j of weighted RMBoost (to a few units in the last place: the sums of products
    are taken in another order);
(c) names, read-only arrays, linprog's arguments, and the errors of a statement that is no LP
    in the named variables and of a master that is no LP.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from lpboosting.masters import LPBoost, RMBoost, SoftBoost
from lpboosting.masters.base import CvxpyStatement
from lpboosting.masters.matrix_form import Columns, MatrixForm, Rows, derive_matrix_form
from lpboosting.status import SolveStatus

cp = pytest.importorskip("cvxpy")
highspy = pytest.importorskip("highspy")

#: HiGHS's default primal and dual feasibility tolerance: the optima of two LP solvers agree to it
HIGHS_TOL = 1e-7


def random_columns(seed: int, n: int = 30, t: int = 8) -> np.ndarray:
    return np.random.default_rng(seed).choice([-1.0, 1.0], size=(n, t))


def weights(seed: int, n: int = 30, low: int = 0) -> np.ndarray:
    """Integer sample weights in [low, 3] (0 drops an example), at least two positive."""
    w = np.random.default_rng(100 + seed).integers(low, 4, size=n).astype(float)
    w[:2] = 1.0
    return w


MASTERS = {
    "lpboost": lambda seed: LPBoost(0.2),
    "lpboost-weighted": lambda seed: LPBoost(0.3, sample_weight=weights(seed)),
    "rmboost": lambda seed: RMBoost(0.1),
    "rmboost-weighted": lambda seed: RMBoost(None, sample_weight=weights(seed, low=1)),
    "rmboost-zero-weights": lambda seed: RMBoost(0.15, sample_weight=weights(seed)),
}
SESSIONS = {"LPBoost": ("highspy", "highspy:rows"), "RMBoost": ("highspy", "dedicated")}


def linprog_optimum(form: MatrixForm) -> float:
    res = linprog(**form.linprog_arguments(), method="highs")
    assert res.status == 0, res.message
    return (-res.fun if form.sense == "max" else res.fun) + form.offset


# -- (a) the same optimum --------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("which", list(MASTERS))
def test_the_matrix_form_solves_to_the_optimum_of_the_sessions_and_the_statement(which, seed):
    U = random_columns(seed)
    master = MASTERS[which](seed)
    values = {f"linprog {form}": linprog_optimum(master.matrix_form(U, form)) for form in master.lp_forms}
    for backend in SESSIONS[master.name]:
        if backend == "dedicated" and which == "rmboost-zero-weights":
            continue  # the dedicated simplex takes positive weights only (it says so)
        solution = master.solve(U, backend=backend)
        assert solution.ok, backend
        values[backend] = solution.objective
    statement = master.cvxpy_statement(U)
    statement.problem.solve(solver="CLARABEL")
    values["cvxpy statement"] = statement.problem.value
    reference = values["highspy"]
    assert all(abs(value - reference) <= HIGHS_TOL for value in values.values()), values


def test_rmboost_dual_statement_reads_back_the_optimum_of_the_primal():
    U = random_columns(3)
    master = RMBoost(0.1)
    statement = master.cvxpy_dual_statement(U)
    statement.problem.solve(solver="CLARABEL")
    solution = master.cvxpy_dual_solution(statement, U, SolveStatus.OPTIMAL)
    reference = master.solve(U, backend="highspy").objective
    assert abs(solution.dual_objective - reference) <= HIGHS_TOL
    assert abs(solution.objective - reference) <= HIGHS_TOL  # F(mu) at the multipliers of the edge rows


# -- (b) the sessions' models are the matrix form ------------------------------------------------

def one_sided(A, lower, upper, costs, column_of):
    """The model as a sorted list of one-sided rows ((column, coefficient), ..., sense, bound) over
    the form's column indices (``column_of[k]``: the form's column of model column k), and the
    costs in the form's order; infinite bounds (free rows) are left out."""
    A = A.tocsr()
    rows = []
    for i in range(A.shape[0]):
        start, end = A.indptr[i], A.indptr[i + 1]
        entries = tuple(sorted(zip(column_of[A.indices[start:end]].tolist(), A.data[start:end].tolist())))
        if lower[i] == upper[i]:
            rows.append((entries, "==", float(upper[i])))
            continue
        if np.isfinite(upper[i]):
            rows.append((entries, "<=", float(upper[i])))
        if np.isfinite(lower[i]):
            rows.append((entries, ">=", float(lower[i])))
    ordered = np.empty(len(costs))
    ordered[column_of] = costs
    return sorted(rows), ordered


def highs_arrays(h):
    lp = h.getLp()
    a = lp.a_matrix_
    parts = (np.asarray(a.value_, dtype=float), np.asarray(a.index_), np.asarray(a.start_))
    shape = (lp.num_row_, lp.num_col_)
    A = sp.csr_array(parts, shape=shape) if a.format_ == highspy.MatrixFormat.kRowwise else sp.csc_array(parts, shape=shape)
    return (A, np.asarray(lp.row_lower_), np.asarray(lp.row_upper_), np.asarray(lp.col_cost_),
            np.asarray(lp.col_lower_), np.asarray(lp.col_upper_), lp.offset_,
            lp.sense_ == highspy.ObjSense.kMaximize)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("which,backend", [("lpboost", "rows"), ("lpboost-weighted", "rows"),
                                           ("rmboost", None), ("rmboost-weighted", None),
                                           ("rmboost-zero-weights", None)])
def test_the_live_highs_model_of_the_session_is_the_matrix_form(which, backend, seed):
    from lpboosting.backends import HighspyBackend

    U = random_columns(seed)
    master = MASTERS[which](seed)
    session = (HighspyBackend(backend) if backend else HighspyBackend()).open(master, U.shape[0])
    for column in U.T:
        session.add_column(column)
    A, row_lower, row_upper, cost, col_lower, col_upper, offset, maximise = highs_arrays(session.model)
    form = master.matrix_form(U)
    n, t = U.shape
    if master.name == "LPBoost":  # d_0 .. d_{N-1}, gamma: the same order
        column_of = np.arange(n + 1)
    else:  # pairs (mu_plus_j, mu_minus_j); the form: mu_plus_0 .. mu_plus_{t-1}, mu_minus_0 ..
        column_of = np.ravel(np.column_stack([np.arange(t), t + np.arange(t)]))
    assert (maximise, offset) == (form.sense == "max", form.offset)
    live_rows, live_cost = one_sided(A, row_lower, row_upper, cost, column_of)
    form_rows, form_cost = one_sided(form.A, form.row_lower, form.row_upper, form.c, np.arange(form.shape[1]))
    assert live_rows == form_rows
    if master.weighted and master.name == "RMBoost":
        # tau_j = p . u_j: the session sums column by column, the statement in one matrix product
        # (another order of the same products): equal to a few units in the last place
        np.testing.assert_allclose(live_cost, form_cost, rtol=0, atol=4 * np.finfo(float).eps)
    else:
        np.testing.assert_array_equal(live_cost, form_cost)
    bounds = np.empty((2, form.shape[1]))
    bounds[:, column_of] = col_lower, col_upper
    np.testing.assert_array_equal(bounds, np.vstack([form.col_lower, form.col_upper]))


# -- (c) the form itself -----------------------------------------------------------------------------

def test_names_bounds_and_read_only_arrays_of_the_lpboost_dual():
    U = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 0.0]])
    form = LPBoost(0.8).matrix_form(U)
    assert form.col_names == ("d_0", "d_1", "d_2", "gamma")
    assert form.row_names == ("sum_d", "edge_0", "edge_1")
    assert form.sense == "min" and form.offset == 0.0
    np.testing.assert_array_equal(form.c, [0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(form.col_upper, [1 / (0.8 * 3)] * 3 + [np.inf])  # the caps 1/(nu N)
    np.testing.assert_array_equal(form.col_lower, [0.0, 0.0, 0.0, -np.inf])
    np.testing.assert_array_equal(form.A.toarray(), [[1, 1, 1, 0], [1, -1, 1, -1], [-1, 1, 0, -1]])
    assert form.A.nnz == 10  # the exact zero U[2, 1] is not stored
    with pytest.raises(ValueError):
        form.c[0] = 1.0


def test_rmboost_rows_are_named_by_the_examples_that_have_one():
    U = random_columns(4, n=5, t=3)
    master = RMBoost(0.2, sample_weight=np.array([1.0, 0.0, 2.0, 1.0, 0.0]))
    primal, dual = master.matrix_form(U), master.matrix_form(U, "dual")
    assert primal.row_names == ("upper_0", "upper_2", "upper_3", "lower_0", "lower_2", "lower_3")
    assert dual.col_names == ("alpha_0", "alpha_2", "alpha_3", "beta_0", "beta_2", "beta_3")
    assert (primal.offset, dual.offset, primal.sense, dual.sense) == (0.5, 0.5, "min", "max")


def test_linprog_arguments_split_the_rows_in_order():
    U = random_columns(5, n=6, t=4)
    arguments = LPBoost(0.5).matrix_form(U).linprog_arguments()
    np.testing.assert_array_equal(arguments["A_eq"].toarray(), [[1.0] * 6 + [0.0]])
    np.testing.assert_array_equal(arguments["A_ub"].toarray(), np.c_[U.T, -np.ones(4)])
    assert arguments["bounds"] == [(0.0, 1 / 3)] * 6 + [(None, None)]
    # a ranged row gives two rows of A_ub, in order: the row (<= upper), then minus the row (>= lower)
    ranged = MatrixForm("min", [1.0], 0.0, sp.csc_array([[2.0]]), [-1.0], [3.0], [-np.inf], [np.inf],
                        ["r"], ["x"])
    arguments = ranged.linprog_arguments()
    np.testing.assert_array_equal(arguments["A_ub"].toarray(), [[2.0], [-2.0]])
    np.testing.assert_array_equal(arguments["b_ub"], [3.0, 1.0])
    assert linprog_optimum(ranged) == -0.5


def test_a_statement_that_is_no_lp_in_its_named_variables_is_refused():
    x = cp.Variable(2, name="x")
    coupling = x[0] + x[1] <= 1
    problem = cp.Problem(cp.Minimize(cp.sum(x)), [coupling, x >= 0])
    statement = CvxpyStatement(problem, variables={"x": x}, constraints={"coupling": coupling})
    with pytest.raises(ValueError, match="not named as rows"):
        derive_matrix_form(statement, [Columns("x", "x_{}")], [])
    with pytest.raises(ValueError, match="not written"):
        derive_matrix_form(statement, [Columns("x", "x_{}")], [Rows("coupling", "c", "==")])
    norm = cp.Problem(cp.Minimize(cp.norm1(x)), [coupling])
    with pytest.raises(ValueError, match="do not cover"):
        derive_matrix_form(CvxpyStatement(norm, {"x": x}, {"coupling": coupling}), [Columns("x", "x_{}")],
                           [Rows("coupling", "c", "<=")])
    form = derive_matrix_form(statement, [Columns("x", "x_{}")], [Rows("coupling", "c", "<=")])
    assert form.row_names == ("c",) and form.col_names == ("x_0", "x_1")
    np.testing.assert_array_equal(form.col_lower, [0.0, 0.0])


def test_a_master_that_is_no_lp_has_no_matrix_form():
    with pytest.raises(ValueError, match="not an LP master"):
        SoftBoost(0.2, 0.01).matrix_form(random_columns(0))
    with pytest.raises(ValueError, match="form must be 'dual' or 'primal'"):
        LPBoost(0.2).matrix_form(random_columns(0), "both")
