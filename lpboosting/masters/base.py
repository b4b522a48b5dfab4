"""The master-problem contract shared by every formulation.

A *master* is the restricted problem of column generation: it is solved over
the columns (hypotheses) found so far, and its dual solution is the
distribution over the training examples that the pricing oracle receives.
This package holds the mathematics only: each master states itself once in
cvxpy (the reference statement, solvable by any installed cvxpy solver),
reads a solver's primal and dual values back into a :class:`MasterSolution`
in the one sign convention, and says what its gap and its convergence test
are.  The solvers live in :mod:`lpboosting.backends`, which opens *sessions*
(stateful objects that take one new column at a time and re-solve); no
module here imports a solver.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpboosting.masters.pool import ColumnPool
from lpboosting.status import SolveStatus


#: the backends that solve an LP master again when it rejects an answer (see Master.fallback_backends)
LP_FALLBACKS: tuple[str, ...] = ("highspy", "highspy:rows", "cvxpy:CLARABEL", "cvxpy:ECOS")


@dataclass
class SolveControl:
    """What the loop acts on in a master's answer, apart from its values.

    stop:
        The master ends the run with this answer (SoftBoost's infeasible
        projection); the loop records the round and stops.
    active_columns:
        The indices, among the columns added so far, of those the answer is
        over (a column pool removes some); None: all of them.
    message:
        Why a solve failed (the solver's words), or a note on the answer.
    verified:
        How the master checked the answer ("full", "sampled"), when it says.
    optimal:
        False for a round's answer that is a feasible primal-dual pair of the
        restricted master but not yet its optimum (LPBoost's sifting session
        answers so while examples remain to enter its working set: they enter
        before the next solve).  ``primal_objective`` is then the value of w,
        a lower bound on the optimum of the full problem, ``dual_objective``
        that of d over the restricted columns; the gap is taken from the
        primal value, and the loop asks the session for the optimum
        (:meth:`~lpboosting.backends.base.MasterSession.solve`) before a run
        ends converged.
    """

    stop: bool = False
    active_columns: np.ndarray | None = None
    message: str = ""
    verified: str | None = None
    optimal: bool = True


@dataclass
class MasterSolution:
    """Solution of one restricted master problem, in one convention for every backend.

    What the fields hold depends on the master (each master's ``read_back``
    builds them):

    - LPBoost (and the LP over the chosen columns that gives the entropy
      masters their weights): ``weights`` w in the simplex, ``distribution``
      d a probability vector capped at 1/(nu N) (the dual), ``rho``,
      ``slacks`` psi >= 0, ``gamma`` the dual value; ``objective`` the soft
      margin rho - sum_n c_n psi_n, equal to gamma at the optimum.
    - SoftBoost, TotalBoost, ERLPBoost: ``weights``, ``rho``, ``slacks`` and
      ``objective`` those of that LP; ``distribution`` the projection's d (a
      probability vector); ``primal_objective`` / ``dual_objective`` the
      projection's values (NaN at the stopping round, which solves none).
    - RMBoost: ``weights`` the *signed* mu of the minimax LP (not in the
      simplex); ``distribution`` the *signed* weighting d = p - (alpha - beta)
      the oracle prices (not a probability vector: w_i = |d_i|, ytilde_i =
      y_i sign(d_i)); ``objective`` the minimax risk R; ``gamma`` lam;
      ``rho`` and ``slacks`` None.

    Every master's solution also carries, typed:

    - ``dual_edges``: d . u^m of every column of the master (NaN where a
      column is not in the solved master), when the session computes them
      (the LP sessions do; a column pool needs them);
    - ``margins``: U w of every example for ``weights``, when the session
      computed them for its own check (LPBoost's sifting session): exact
      wherever at most ``margins_exact_below``, above it for certain
      elsewhere; the verification then reads them instead of summing U w
      again;
    - ``record``: the values the round's record shows (``extra`` of
      :class:`~lpboosting.colgen.RoundRecord`): the master's own (RMBoost's
      risk, the entropy masters' bounds) and the session's (sifting passes);
    - ``control``: what the loop acts on rather than shows
      (:class:`SolveControl`: stop, the active columns, the message of a
      failed solve, how the answer was verified).

    ``info`` holds the master's other values (RMBoost's alpha and beta, the
    entropy masters' projection and LP distribution).  The rows of the
    master are its examples for every master of this package (``d`` has one
    entry per row); a master whose rows are other than its examples says so
    in :meth:`Master.n_rows`.
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
    dual_edges: np.ndarray | None = None
    margins: np.ndarray | None = None
    margins_exact_below: float = -np.inf
    record: dict[str, Any] = field(default_factory=dict)
    control: "SolveControl" = field(default_factory=lambda: SolveControl())

    @property
    def ok(self) -> bool:
        return self.status.ok

    @classmethod
    def failed(cls, n_samples: int, status: SolveStatus, message: str = "") -> "MasterSolution":
        """The solution of a failed solve: every value NaN, ``control.message`` says why."""
        nan = float("nan")
        return cls(
            status=status, objective=nan, primal_objective=nan, dual_objective=nan,
            weights=np.empty(0), distribution=np.full(n_samples, nan),
            control=SolveControl(message=message),
        )


@dataclass
class CvxpyStatement:
    """A master stated in cvxpy: the problem plus named handles to read it back.

    A parametric statement (:meth:`Master.cvxpy_parametric_statement`) also
    names its cvxpy Parameters and says how many columns its block holds.
    """

    problem: Any
    variables: dict[str, Any]
    constraints: dict[str, Any]
    #: the cvxpy Parameters of a parametric statement, by name (empty for a statement over one U)
    parameters: dict[str, Any] = field(default_factory=dict)
    #: the columns a parametric statement's block holds (None: the statement is over its U)
    capacity: int | None = None


def check_answer(solution: MasterSolution, n: int, t: int, objective_only: bool = False) -> str:
    """'' when the answer has an optimal status and finite values of the right shapes, else why not.

    ``objective_only``: the primal and dual values may be NaN (an entropy
    master's round without a projection); the objective must be finite.
    """
    if not solution.status.ok:
        return f"status {solution.status.value}"
    d = np.asarray(solution.distribution)
    w = np.asarray(solution.weights)
    if d.shape != (n,):
        return f"d has shape {d.shape}, not ({n},)"
    if w.shape != (t,):
        return f"w has shape {w.shape}, not ({t},)"
    if not np.all(np.isfinite(d)):
        return "d holds NaN or inf"
    if not np.all(np.isfinite(w)):
        return "w holds NaN or inf"
    values = {"objective": solution.objective}
    if not objective_only:
        values.update({"primal value": solution.primal_objective, "dual value": solution.dual_objective})
    for name, value in values.items():
        if value is None or not np.isfinite(value):
            return f"the {name} is {value}"
    return ""


def scaled_tol(tol: float, *values: float) -> float:
    """``tol`` relative to 1 + the largest |value|."""
    return tol * (1.0 + max((abs(float(v)) for v in values), default=0.0))


def check_unit_interval(value: Any, name: str, meaning: str, advice: str) -> float:
    """``value`` as a float in (0, 1], or a ValueError that says what it means and what to use."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1], got {value!r}") from None
    if not (0.0 < value <= 1.0) or not np.isfinite(value):
        raise ValueError(f"{name} must be {meaning}, got {value!r}; {advice}")
    return value


def check_sample_weight(sample_weight: Any) -> np.ndarray | None:
    """Per-example weights as a float vector (finite, >= 0, positive sum), or None for uniform.

    A master with weights s uses the weighted empirical distribution
    p = s / sum(s) wherever the unweighted one uses 1/N (the cap 1/(nu N)
    becomes p_n / nu, the uniform prior becomes p): integer weights give the
    master of the data with every row repeated s_n times, and a zero weight
    the master without that row.
    """
    if sample_weight is None:
        return None
    s = np.asarray(sample_weight, dtype=float)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"sample_weight must be a 1-D array with one weight per example, got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("sample_weight contains NaN or inf; pass finite weights >= 0")
    if np.any(s < 0):
        raise ValueError("sample_weight has negative entries; weights must be >= 0 (0 drops an example)")
    if not s.sum() > 0:
        raise ValueError("sample_weight sums to 0: at least one example needs a positive weight")
    return s


#: margins smaller than this (the largest |u| of a column or matrix) are below the LP solvers'
#: absolute tolerances (about 1e-7 to 1e-9): the answer would not be about the data
SMALLEST_MARGIN = 1e-6
#: margins larger than this lose the solvers' relative accuracy
LARGEST_MARGIN = 1e6


def check_magnitude(largest: float, what: str) -> None:
    """Refuse margins whose size the solvers cannot work with (0, an abstaining column, is fine)."""
    if largest == 0.0:
        return
    if largest < SMALLEST_MARGIN or largest > LARGEST_MARGIN:
        raise ValueError(
            f"{what} largest margin |y h(x)| is {largest:.3g}: the solvers' tolerances are absolute "
            f"(about 1e-7), so margins must lie within [{SMALLEST_MARGIN:g}, {LARGEST_MARGIN:g}] in size; "
            "hypotheses are meant to output values in [-1, 1] (divide U by its largest entry: the "
            "LPBoost optimum scales with it)")


def check_margin_matrix(U: Any) -> np.ndarray:
    """Validate a margin matrix (N x T, finite, entries in [-1, 1] not required; a scipy sparse
    matrix is made dense)."""
    if hasattr(U, "toarray") and hasattr(U, "nnz"):  # scipy.sparse: the masters work on dense U
        U = U.toarray()
    try:
        U = np.asarray(U, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"the margin matrix U must be numbers (N examples x T columns), got "
                         f"{type(U).__name__}; pass U[n, m] = y_n * h_m(x_n) as a float array") from None
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
    check_magnitude(float(np.max(np.abs(U))), "the margin matrix U's")
    return U


class Master(ABC):
    """Base class of master problems.

    Subclasses write their optimisation model in the class docstring
    (primal, dual, which dual vector is the distribution), implement
    :meth:`cvxpy_statement` and its read-back :meth:`cvxpy_solution`, and
    give a public ``read_back`` that maps a solver's primal and dual values
    to a :class:`MasterSolution`.  Which solver runs a master is decided by
    the session table of :mod:`lpboosting.backends`.
    """

    #: problem class: "lp" or "exp_cone"
    kind: str = "lp"
    name: str = "master"
    #: backend used when none is named (by :meth:`solve`, the loop and the classifiers)
    default_backend: str = "highspy"
    #: backends that solve this master again, afresh over its columns, when it rejects an answer,
    #: in order (the policy of :mod:`lpboosting.backends.fallback` skips the one that failed and
    #: those not installed); None: by kind, an LP master's :data:`LP_FALLBACKS` (HiGHS, a fresh
    #: model; its dense-row model; two interior-point solvers through cvxpy), none for other kinds
    fallback_backends: tuple[str, ...] | None = None
    #: backends that solve a round's problem again inside a session whose own solver checks its
    #: answers (the dedicated solvers) when that check fails, in order; none by default
    session_fallbacks: tuple[str, ...] = ()

    # -- the declarative statement -------------------------------------------------
    @abstractmethod
    def cvxpy_statement(self, U: np.ndarray) -> CvxpyStatement:
        """The master over margin matrix U as a cvxpy problem."""

    @abstractmethod
    def cvxpy_solution(
        self, statement: CvxpyStatement, U: np.ndarray, status: SolveStatus
    ) -> MasterSolution:
        """Read a solved cvxpy statement back into a :class:`MasterSolution`.

        U holds the statement's columns; for a parametric statement, the t
        columns loaded into its block (the values are read over the first t).
        """

    def cvxpy_parametric_statement(self, n_samples: int, capacity: int) -> CvxpyStatement | None:
        """The master over a block of ``capacity`` columns held in cvxpy Parameters, or None.

        Once :meth:`cvxpy_load` has put t <= capacity columns in the block it
        is the problem :meth:`cvxpy_statement` states over those columns: the
        other capacity - t columns are set so that they change neither the
        optimum nor the values :meth:`cvxpy_solution` reads back over the
        first t.  The parameters enter by cvxpy's rules of disciplined
        parametrized programming (DPP), so cvxpy compiles the statement on
        its first solve and later solves only put in the new values (the
        cvxpy backend's parametric session: one compilation per capacity).
        None (the default): the master has only :meth:`cvxpy_statement`,
        which the cvxpy backend rebuilds and compiles at every solve.
        """
        return None

    def cvxpy_load(self, statement: CvxpyStatement, U: np.ndarray) -> None:
        """Set a parametric statement's parameters to the columns U (N x t, t <= its capacity)
        and to the master's current values (its caps: a regularisation path changes them)."""
        raise NotImplementedError(f"{self.name} has no parametric cvxpy statement")

    #: the forms of an LP master's :meth:`matrix_form`, each with what it is (LPBoost's
    #: ``{"dual": "capped edge game", "primal": "soft-margin LP"}``); the first is the default, the
    #: form its HiGHS sessions solve.  Empty: the master is not an LP
    lp_forms: dict[str, str] = {}

    def check_lp_form(self, form: str | None) -> str:
        """``form`` as one of :attr:`lp_forms` (None: the first), or a ValueError that lists them."""
        if not self.lp_forms:
            raise ValueError(f"{self!r} is not an LP master: it has no matrix form")
        if form is None:
            return next(iter(self.lp_forms))
        key = str(form).strip().lower()
        if key not in self.lp_forms:
            names = " or ".join(repr(name) for name in self.lp_forms)
            raise ValueError(f"form must be {names} (None: the master's default, "
                             f"{next(iter(self.lp_forms))!r}), got {form!r}")
        return key

    def matrix_form(self, U: np.ndarray, form: str | None = None) -> Any:
        """The LP master over U as a :class:`~lpboosting.masters.matrix_form.MatrixForm`.

        Derived from the master's cvxpy statement of that form (the one
        source of the LP), with the master's names of rows and columns.
        ``form`` is one of :attr:`lp_forms` (None: the first).  A master that
        is not an LP raises a ValueError.
        """
        self.check_lp_form(form)
        raise NotImplementedError(f"{type(self).__name__} lists LP forms but gives no matrix form")

    #: per-example weights (None: every example counts 1/N); see :func:`check_sample_weight`
    sample_weight: np.ndarray | None = None

    def prior(self, n_samples: int) -> np.ndarray:
        """The empirical distribution p of the examples: 1/N each, or sample_weight / its sum."""
        if self.sample_weight is None:
            return np.full(n_samples, 1.0 / n_samples)
        if self.sample_weight.size != n_samples:
            raise ValueError(
                f"{self.name} has {self.sample_weight.size} sample weights but the data has "
                f"{n_samples} examples; pass one weight per example"
            )
        return self.sample_weight / self.sample_weight.sum()

    @property
    def weighted(self) -> bool:
        """True when the examples carry weights other than uniform."""
        return self.sample_weight is not None

    def n_rows(self, n_examples: int) -> int:
        """The master's rows over ``n_examples`` training examples: what a session is opened over,
        d has one entry per and a column one margin per.  One per example for every master of
        this package; a master over (example, wrong class) pairs has more."""
        return int(n_examples)

    def examples(self, n_rows: int) -> int:
        """The examples of a master of ``n_rows`` rows (the inverse of :meth:`n_rows`)."""
        return int(n_rows)

    # -- column-generation hooks ---------------------------------------------------
    def initial_distribution(self, n_samples: int) -> np.ndarray:
        return self.prior(n_samples)

    #: where the run's gap is taken: False at this round's ``edge`` (LPBoost, RMBoost: priced at
    #: the master's own dual); True at the best (lowest) :meth:`bound` that an exact oracle gave at
    #: any point priced so far, d_0 included (the entropy masters, whose d_t is a projection, not
    #: the dual of the LP that gives their weights)
    gap_at_best_bound: bool = False

    def bound(self, solution: MasterSolution, edge: float) -> float | None:
        """The bound on the full problem's value that an exact oracle's best ``edge`` gives.

        ``edge`` is the largest edge over the whole class at some distribution
        the master accepts (not only its own dual): a Lagrangian bound, used
        by dual stabilisation to certify a stop; None when the master has
        none (then only pricing at the master's own dual certifies).
        """
        return None

    def recheck_point(self, solution: MasterSolution) -> np.ndarray | None:
        """A second point where an inexact oracle prices every round, or None (the default).

        A master whose final weights solve another problem than the one its
        distribution comes from (ERLPBoost: the LP over its columns) returns
        that problem's distribution; the columns the oracle finds there for
        which :meth:`recheck_violated` holds are added too, and the run stops
        only when neither point gives a column.  An exact oracle's stop is
        certified and is never rechecked.
        """
        return None

    def recheck_violated(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        """Whether a column of this ``edge`` at :meth:`recheck_point` improves the final weights."""
        return False

    @abstractmethod
    def gap(self, solution: MasterSolution, edge: float) -> float:
        """Column-generation gap certified by an exact oracle's best edge."""

    @abstractmethod
    def converged(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        """True when no column with this edge can improve the master by more than tol."""

    def convergence_advice(self, exact_oracle: bool, smoothing: bool, columns_per_round: int,
                           backend: str = "") -> list[str] | None:
        """What to change when a run of this master (on the backend of that name) stops before
        converging (max_rounds, a time limit, a stall), in place of the loop's general advice
        (smoothing, several columns a round, an exact oracle); None keeps the general advice.  A
        master whose measured remedies differ says so here."""
        return None

    #: the column pool of the restricted master (:mod:`lpboosting.masters.pool`): when a session
    #: deletes inactive columns; None keeps every column
    pool: "ColumnPool | None" = None

    def inactive(self, solution: MasterSolution) -> np.ndarray | None:
        """Mask of the solution's columns that are inactive: zero weight and a strictly
        satisfied dual constraint, so that deleting them keeps the solution optimal.
        None when the master has no such notion (then its columns are never deleted)."""
        return None

    def params(self) -> dict[str, Any]:
        return {}

    # -- verification of an answer -----------------------------------------------------
    #: tolerance of :meth:`verify`: sums, edges and primal = dual, relative to 1 + |value|
    verify_tol: float = 1e-6
    #: how far a variable may lie outside its bounds in a verified answer: the solvers' own primal
    #: feasibility tolerance (HiGHS's default is 1e-7, absolute)
    bound_tol: float = 1e-7

    def verify(self, solution: MasterSolution, U: np.ndarray, active: np.ndarray | None = None) -> str:
        """'' when ``solution`` is a verified answer of this master over the columns U, else why not.

        U holds every column added so far (N x t, int8 or float64; the
        solution's ``weights`` has one entry per column); ``active`` the
        indices of the columns still in the live master (None: all).  The
        base checks what every master's answer must satisfy: an optimal
        status, finite values of the right shapes.  Masters add their own
        certificate (feasibility of both sides, equal objectives, signs).
        """
        return check_answer(solution, U.shape[0], U.shape[1])

    # -- stand-alone use -------------------------------------------------------------
    def solve(self, U: Any, backend: Any = None, **options: Any) -> MasterSolution:
        """Solve this master on a given margin matrix U (N x T), U[n, m] = y_n h_m(x_n).

        ``backend=None`` uses the master's :attr:`default_backend`, as the
        loop and the classifiers do.  Raises
        :class:`~lpboosting.errors.SolverError` when the solver fails.  (The
        work is done by :func:`lpboosting.colgen.solve_master`, the layer
        that knows both the masters and the solvers.)
        """
        from lpboosting.colgen.solve import solve_master

        return solve_master(self, U, backend, **options)
