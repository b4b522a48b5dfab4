"""The master-problem contract shared by every formulation.

A *master* is the restricted problem of column generation: it is solved over
the columns (hypotheses) found so far, and its dual solution is the
distribution over the training examples that the pricing oracle receives.
A master states itself once in cvxpy (the reference statement, solvable by
any installed cvxpy solver); an LP master may also provide an incremental
HiGHS session.  Backends (``lpboosting.backends``) open *sessions*: stateful
objects that take one new column at a time and re-solve.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from lpboosting.errors import BackendCapabilityError, SolverError
from lpboosting.status import SolveStatus

if TYPE_CHECKING:  # pragma: no cover
    from lpboosting.backends.base import Backend


@dataclass
class MasterSolution:
    """Solution of one restricted master problem.

    Sign conventions are the same for every backend: ``weights`` (w) lie in
    the simplex, ``distribution`` (d) is a probability vector, ``slacks``
    (psi) are non-negative, ``objective`` is the value of the master's
    primal (for LPBoost the soft margin rho - cap * sum(psi)).
    """

    status: SolveStatus
    objective: float
    primal_objective: float
    dual_objective: float
    weights: np.ndarray
    distribution: np.ndarray
    rho: float | None = None
    slacks: np.ndarray | None = None
    gamma: float | None = None
    iterations: int | None = None
    seconds: float = 0.0
    backend: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status.ok


@dataclass
class CvxpyStatement:
    """A master stated in cvxpy: the problem plus named handles to read it back."""

    problem: Any
    variables: dict[str, Any]
    constraints: dict[str, Any]


class MasterSession(ABC):
    """An open master problem that grows by one column at a time."""

    backend_name: str = ""

    def __init__(self, n_samples: int) -> None:
        self.n_samples = int(n_samples)
        self.n_columns = 0

    @abstractmethod
    def add_column(self, column: np.ndarray, edge: float | None = None) -> None:
        """Add the margin column u (u_n = y_n h(x_n)); ``edge`` is d_{t-1}.u."""

    @abstractmethod
    def solve(self) -> MasterSolution:
        """Solve the master over the columns added so far."""


def check_unit_interval(value: Any, name: str, meaning: str, advice: str) -> float:
    """``value`` as a float in (0, 1], or a ValueError that says what it means and what to use."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1], got {value!r}") from None
    if not (0.0 < value <= 1.0) or not np.isfinite(value):
        raise ValueError(f"{name} must be {meaning}, got {value!r}; {advice}")
    return value


def check_margin_matrix(U: Any) -> np.ndarray:
    """Validate a margin matrix (N x T, finite, entries in [-1, 1] not required)."""
    U = np.asarray(U, dtype=float)
    if U.ndim == 1:
        U = U[:, None]
    if U.ndim != 2:
        raise ValueError(
            f"the margin matrix U must be 2-D (N examples x T columns), got shape {U.shape}; "
            "pass U[n, m] = y_n * h_m(x_n)"
        )
    if U.shape[0] == 0 or U.shape[1] == 0:
        raise ValueError(
            f"the margin matrix U is empty (shape {U.shape}); it needs at least one example and one column"
        )
    if not np.all(np.isfinite(U)):
        raise ValueError("the margin matrix U contains NaN or inf; replace them with finite margins")
    return U


class Master(ABC):
    """Base class of master problems.

    Subclasses write their optimisation model in the class docstring
    (primal, dual, which dual vector is the distribution) and implement
    :meth:`cvxpy_statement` / :meth:`cvxpy_solution`.  LP masters may also
    implement :meth:`open_highspy` for the incremental HiGHS backend.
    """

    #: problem class: "lp" or "exp_cone"; backends declare what they solve.
    kind: str = "lp"
    name: str = "master"
    #: backend used when none is named
    default_backend: str = "highspy"

    # -- the declarative statement -------------------------------------------------
    @abstractmethod
    def cvxpy_statement(self, U: np.ndarray) -> CvxpyStatement:
        """The master over margin matrix U as a cvxpy problem."""

    @abstractmethod
    def cvxpy_solution(
        self, statement: CvxpyStatement, U: np.ndarray, status: SolveStatus
    ) -> MasterSolution:
        """Read a solved cvxpy statement back into a :class:`MasterSolution`."""

    # -- optional fast paths -----------------------------------------------------------
    def open_session(self, n_samples: int, backend: "Backend") -> MasterSession | None:
        """A master-specific session for ``backend``, or None for the backend's default one."""
        return None

    def open_highspy(self, n_samples: int, backend: "Backend") -> MasterSession:
        raise BackendCapabilityError(
            f"the highspy backend has no incremental form of the {self.name} master; "
            "use a cvxpy backend, e.g. backend='cvxpy:CLARABEL'"
        )

    # -- column-generation hooks ---------------------------------------------------
    def initial_distribution(self, n_samples: int) -> np.ndarray:
        return np.full(n_samples, 1.0 / n_samples)

    @abstractmethod
    def gap(self, solution: MasterSolution, edge: float) -> float:
        """Column-generation gap certified by an exact oracle's best edge."""

    @abstractmethod
    def converged(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        """True when no column with this edge can improve the master by more than tol."""

    def params(self) -> dict[str, Any]:
        return {}

    # -- stand-alone use -------------------------------------------------------------
    def solve(self, U: Any, backend: "str | Backend" = "highspy", **options: Any) -> MasterSolution:
        """Solve this master on a given margin matrix U (N x T), U[n, m] = y_n h_m(x_n).

        Raises :class:`~lpboosting.errors.SolverError` when the solver fails.
        """
        from lpboosting.backends import get_backend

        U = check_margin_matrix(U)
        session = get_backend(backend, **options).open(self, U.shape[0])
        for m in range(U.shape[1]):
            session.add_column(U[:, m])
        solution = session.solve()
        if not solution.ok and solution.status is not SolveStatus.INFEASIBLE:
            raise SolverError(
                f"{solution.backend} could not solve the {self.name} master: status "
                f"{solution.status.value} ({solution.info.get('message', 'no message')}); "
                "try another backend, e.g. backend='cvxpy:CLARABEL'",
                solution.status,
            )
        return solution
