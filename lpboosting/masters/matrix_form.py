r"""An LP master as plain arrays, derived from its cvxpy statement: the solver-neutral matrix form.

A :class:`MatrixForm` is the linear program::

    minimise (or maximise)  c . x + offset
    subject to              row_lower <= A x <= row_upper
                            col_lower <= x   <= col_upper

with A a sparse matrix (CSC), one name per row and per column, and +-inf
for a missing bound.  It is what any LP solver reads (HiGHS's ``HighsLp``,
an MPS or LP file, scipy's ``linprog``: :meth:`MatrixForm.linprog_arguments`).

:func:`derive_matrix_form` computes it from a master's cvxpy statement
(:class:`~lpboosting.masters.base.CvxpyStatement`), so that the statement is
the one source of each LP: cvxpy's reductions ``Dcp2Cone``, ``CvxAttr2Constr``
and ``ConeMatrixStuffing`` (the solver-neutral part of every conic solving
chain of cvxpy, what ``Problem.get_problem_data`` runs before a solver's own
formatting) give the problem data

    minimise q . z + d   subject to   A_i z + b_i in K_i

over cvxpy's stacked variable z, with each constraint lowered to a cone K_i:
``lhs == rhs`` to the zero cone of lhs - rhs, ``lhs <= rhs`` (also written
``rhs >= lhs``) to the non-negative cone of rhs - lhs.  A maximisation is
stated as the minimisation of minus its objective and its c and offset are
negated back (exactly).  The master then says, in its own names:

- the columns (:class:`Columns`): which statement variable comes where and
  how its entries are named (``d_{}`` gives d_0, d_1, ...; labels other than
  0, 1, ... can be given, e.g. the examples that have a row);
- the rows (:class:`Rows`): which statement constraint comes where, its
  names, and how the row is written, with lhs and rhs as the master wrote
  them: ``"<="`` (lhs <= rhs as the row lhs - rhs <= constant), ``">="``
  (``U @ w >= rho - psi`` as the row U w - rho + psi >= 0) or ``"=="``;
- every other constraint of the statement must bound one variable entry per
  row (``d >= 0``, ``d <= cap``): it becomes the columns' bounds, as do the
  variables' own attributes (``nonneg=True``).

No solver is involved (cvxpy is imported inside the function); every number
of the form is one cvxpy computed from the statement's constants by sign
changes and sums of at most two terms, so it is the double the statement
holds (e.g. ``lam - tau_j``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from lpboosting.masters.base import CvxpyStatement

__all__ = ["Columns", "MatrixForm", "Rows", "derive_matrix_form"]

#: how a row is written: "<=" row <= upper, ">=" row >= lower, "==" row == value
ROW_SENSES = ("<=", ">=", "==")


@dataclass(frozen=True)
class Columns:
    """One variable of a cvxpy statement as columns of the matrix form.

    ``key`` names the variable in the statement's ``variables``; ``name`` is
    the column's name, with ``{}`` replaced by each entry's label (a scalar
    variable: the name as it is); ``labels`` the labels (None: 0, 1, ...).
    """

    key: str
    name: str
    labels: Sequence[int] | None = None


@dataclass(frozen=True)
class Rows:
    """One constraint of a cvxpy statement as rows of the matrix form.

    ``key`` names the constraint in the statement's ``constraints``;
    ``name`` and ``labels`` as in :class:`Columns`; ``sense`` how the row is
    written (:data:`ROW_SENSES`): ``"<="`` for ``lhs <= rhs`` as
    lhs - rhs <= constant, ``">="`` for ``lhs >= rhs`` as lhs - rhs >=
    constant, ``"=="`` for ``lhs == rhs`` as lhs - rhs == constant (the
    constants moved to the right-hand side).
    """

    key: str
    name: str
    sense: str
    labels: Sequence[int] | None = None


def _frozen(values: Any) -> np.ndarray:
    """A read-only float copy, -0.0 written as 0.0."""
    array = np.array(values, dtype=float) + 0.0
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class MatrixForm:
    """A linear program as arrays: min or max c . x + offset s.t. row_lower <= A x <= row_upper,
    col_lower <= x <= col_upper (see the module docstring).

    ``A`` is a ``scipy.sparse.csc_array`` without stored zeros; bounds are
    +-inf where there is none; an equality row has row_lower == row_upper.
    The arrays are read-only.
    """

    sense: str
    c: np.ndarray
    offset: float
    A: Any = field(repr=False)
    row_lower: np.ndarray = field(repr=False)
    row_upper: np.ndarray = field(repr=False)
    col_lower: np.ndarray = field(repr=False)
    col_upper: np.ndarray = field(repr=False)
    row_names: tuple[str, ...] = field(repr=False)
    col_names: tuple[str, ...] = field(repr=False)

    def __post_init__(self) -> None:
        if self.sense not in ("min", "max"):
            raise ValueError(f"sense must be 'min' or 'max', got {self.sense!r}")
        m, n = self.A.shape
        for key, size in (("c", n), ("col_lower", n), ("col_upper", n), ("row_lower", m), ("row_upper", m)):
            object.__setattr__(self, key, _frozen(getattr(self, key)))
            if getattr(self, key).shape != (size,):
                raise ValueError(f"{key} has shape {getattr(self, key).shape}, not ({size},)")
        object.__setattr__(self, "offset", float(self.offset) + 0.0)
        object.__setattr__(self, "row_names", tuple(self.row_names))
        object.__setattr__(self, "col_names", tuple(self.col_names))
        if len(self.row_names) != m or len(self.col_names) != n:
            raise ValueError(f"{len(self.row_names)} row names and {len(self.col_names)} column names "
                             f"for a {m} x {n} matrix")

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns)."""
        return self.A.shape

    def objective_value(self, x: Any) -> float:
        """c . x + offset."""
        return float(self.c @ np.asarray(x, dtype=float)) + self.offset

    def linprog_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``scipy.optimize.linprog`` for this LP (add ``method``).

        linprog minimises: a maximisation's c is negated (its optimum is
        ``-res.fun + offset``; a minimisation's ``res.fun + offset``).  The
        equality rows, in order, are ``A_eq``; every other row gives a row
        of ``A_ub`` per finite bound, in order (the row itself for an upper
        bound, minus the row for a lower bound), so the marginals come back
        in the rows' order (``res.eqlin``, ``res.ineqlin``); ``bounds`` has
        one (lower, upper) pair per column, None where unbounded.
        """
        import scipy.sparse as sp

        A = sp.csr_array(self.A)
        equal = self.row_lower == self.row_upper
        ub_rows, ub_signs = [], []
        for i in np.flatnonzero(~equal):
            if np.isfinite(self.row_upper[i]):
                ub_rows.append(i), ub_signs.append(1.0)
            if np.isfinite(self.row_lower[i]):
                ub_rows.append(i), ub_signs.append(-1.0)
        rows, signs = np.asarray(ub_rows, dtype=int), np.asarray(ub_signs)
        b_ub = np.where(signs > 0, self.row_upper[rows] if rows.size else signs,
                        -self.row_lower[rows] if rows.size else signs)
        arguments: dict[str, Any] = {
            "c": -self.c if self.sense == "max" else self.c.copy(),
            "bounds": [(None if math.isinf(lo) else float(lo), None if math.isinf(hi) else float(hi))
                       for lo, hi in zip(self.col_lower, self.col_upper)],
        }
        if rows.size:
            arguments["A_ub"] = sp.diags_array(signs) @ A[rows]
            arguments["b_ub"] = b_ub
        if equal.any():
            arguments["A_eq"] = A[np.flatnonzero(equal)]
            arguments["b_eq"] = self.row_upper[equal].copy()
        return arguments


# ======================================================================================
# the derivation from a cvxpy statement
# ======================================================================================


def _names(pattern: str, size: int, labels: Sequence[int] | None, what: str) -> list[str]:
    if labels is None:
        labels = range(size)
    labels = list(labels)
    if len(labels) != size:
        raise ValueError(f"{what} has {size} entries but {len(labels)} labels")
    if "{}" not in pattern:
        if size != 1:
            raise ValueError(f"{what} has {size} entries: its name {pattern!r} needs a {{}} for the label")
        return [pattern]
    return [pattern.format(label) for label in labels]


def _problem_data(problem: Any) -> tuple[Any, np.ndarray, float, Any, np.ndarray, dict[int, int]]:
    """(program, q, d, A, b, ids) of cvxpy's cone program of a minimisation: min q . z + d s.t.
    A z + b in K; ``ids`` maps each constraint's id to that of its lowered cone constraint."""
    from cvxpy.reductions.chain import Chain
    from cvxpy.reductions.cvx_attr2constr import CvxAttr2Constr
    from cvxpy.reductions.dcp2cone.cone_matrix_stuffing import ConeMatrixStuffing
    from cvxpy.reductions.dcp2cone.dcp2cone import Dcp2Cone

    # cvxpy's SciPy canonicalisation backend: the same numbers as its default, about twice as fast
    # on a dense U
    chain = Chain(reductions=[Dcp2Cone(), CvxAttr2Constr(), ConeMatrixStuffing(canon_backend="SCIPY")])
    program, inverse = chain.apply(problem)
    q, d, A, b = program.apply_parameters()
    ids = {c.id: c.id for c in problem.constraints}
    for data in inverse:  # follow each constraint through the reductions
        moved = getattr(data, "cons_id_map", None)
        if moved:
            ids = {old: moved.get(new, new) for old, new in ids.items()}
    q = np.asarray(q, dtype=float).ravel()
    return program, q, float(np.sum(d)), A, np.asarray(b, dtype=float).ravel(), ids


def derive_matrix_form(statement: CvxpyStatement, columns: Sequence[Columns], rows: Sequence[Rows]
                       ) -> MatrixForm:
    """The :class:`MatrixForm` of an LP stated in cvxpy, in the master's order and names.

    ``columns`` must name every variable of the problem, ``rows`` the
    constraints that are rows; every other constraint must bound single
    variable entries (one nonzero per row): it becomes column bounds.
    Raises a ValueError when the statement is not such an LP (a variable
    cvxpy introduced, a cone other than zero and non-negative, a constraint
    neither named nor a bound).
    """
    import cvxpy as cp
    import scipy.sparse as sp

    problem = statement.problem
    maximise = isinstance(problem.objective, cp.Maximize)
    if maximise:
        problem = cp.Problem(cp.Minimize(-problem.objective.expr), problem.constraints)
    program, q, d, A, b, ids = _problem_data(problem)
    A = sp.csr_array(A)
    A.eliminate_zeros()
    n_z = A.shape[1]

    # columns: cvxpy's stacked variable z reordered as the master lists them
    order, col_names = [], []
    for spec in columns:
        var = statement.variables[spec.key]
        if var.id not in program.var_id_to_col:
            raise ValueError(f"the variable {spec.key!r} does not appear in the problem")
        start = program.var_id_to_col[var.id]
        order.extend(range(start, start + var.size))
        col_names += _names(spec.name, var.size, spec.labels, f"variable {spec.key!r}")
    if sorted(order) != list(range(n_z)):
        raise ValueError(f"the columns {[s.key for s in columns]} do not cover the problem's "
                         f"{n_z} variable entries (cvxpy introduced variables: not an LP in these)")
    col_lower = np.full(n_z, -np.inf) if program.lower_bounds is None else np.array(program.lower_bounds, dtype=float)
    col_upper = np.full(n_z, np.inf) if program.upper_bounds is None else np.array(program.upper_bounds, dtype=float)

    # where each lowered constraint's rows are in cvxpy's A z + b
    where: dict[int, tuple[int, int, str]] = {}
    offset = 0
    for con in program.constraints:
        where[con.id] = (offset, con.size, type(con).__name__)
        offset += con.size
    kinds = {kind for _, _, kind in where.values()}
    if not kinds <= {"Zero", "NonNeg"}:
        raise ValueError(f"the problem has cones {sorted(kinds - {'Zero', 'NonNeg'})}: not an LP")

    blocks, lower, upper, row_names, named = [], [], [], [], set()
    for spec in rows:
        if spec.sense not in ROW_SENSES:
            raise ValueError(f"rows {spec.key!r}: sense must be one of {ROW_SENSES}, got {spec.sense!r}")
        con = statement.constraints[spec.key]
        start, size, kind = where[ids[con.id]]
        named.add(ids[con.id])
        if (kind == "Zero") != (spec.sense == "=="):
            raise ValueError(f"rows {spec.key!r} are {'equalities' if kind == 'Zero' else 'inequalities'}, "
                             f"not written {spec.sense!r}")
        # cvxpy's rows a z + b: rhs - lhs of "lhs <= rhs", lhs - rhs of "lhs >= rhs" and "lhs == rhs"
        # (with lhs and rhs as the master wrote them), >= 0 or == 0
        a, constant = A[start:start + size], b[start:start + size]
        if spec.sense == "<=":  # lhs - rhs = -a z - b <= 0
            blocks.append(-a)
            lower.append(np.full(size, -np.inf)), upper.append(constant)
        elif spec.sense == ">=":  # lhs - rhs = a z + b >= 0
            blocks.append(a)
            lower.append(-constant), upper.append(np.full(size, np.inf))
        else:  # lhs - rhs = a z + b == 0
            blocks.append(a)
            lower.append(-constant), upper.append(-constant)
        row_names += _names(spec.name, size, spec.labels, f"constraint {spec.key!r}")

    for con_id, (start, size, kind) in where.items():  # the rest: bounds on single entries
        if con_id in named:
            continue
        a = A[start:start + size].tocsr()
        if np.any(np.diff(a.indptr) != 1):
            raise ValueError("a constraint that is not named as rows has a row with other than one "
                             "variable entry: name it in the rows (it is not a bound)")
        j, coef, value = a.indices, a.data, -b[start:start + size] / a.data  # coef z_j + b >= 0 (== 0)
        if kind == "Zero":
            np.maximum.at(col_lower, j, value)
            np.minimum.at(col_upper, j, value)
        else:
            np.maximum.at(col_lower, j[coef > 0], value[coef > 0])
            np.minimum.at(col_upper, j[coef < 0], value[coef < 0])

    order = np.asarray(order)
    matrix = sp.vstack(blocks, format="csr") if blocks else sp.csr_array((0, n_z))
    matrix = sp.csc_array(matrix[:, order])
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return MatrixForm(
        sense="max" if maximise else "min",
        c=-q[order] if maximise else q[order], offset=-d if maximise else d,
        A=matrix,
        row_lower=np.concatenate(lower) if lower else np.zeros(0),
        row_upper=np.concatenate(upper) if upper else np.zeros(0),
        col_lower=col_lower[order], col_upper=col_upper[order],
        row_names=row_names, col_names=col_names,
    )
