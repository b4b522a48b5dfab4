"""One record per solver: what it solves, how it reports, its options, where it comes from.

Modelled on cvxpy's solver classes (capability attributes, one status map
per solver, a name -> solver registry): every fact about a solver that the
library uses is written once, in its :class:`SolverRecord`, and the other
tables are views of the records — :data:`lpboosting.backends.table.SOLVER_KINDS`,
``SOLVER_PACKAGES`` and ``UNLISTED_SOLVERS``;
:data:`lpboosting.backends.cvxpy_backend.TIGHT_OPTIONS`, ``TIME_LIMIT_OPTIONS``
and ``CVXPY_STATUS``; :data:`lpboosting.catalog.SOLVER_OPTIONS`; HiGHS's
status map and iteration counters in :mod:`lpboosting.backends.highs.model`.

A record is named as its backend is: ``"highspy"`` (every ``highspy:...``
configuration runs it), ``"dedicated:newton"``,
``"dedicated:minimax-simplex"``, ``"cvxpy"`` (cvxpy picks the solver) and
``"cvxpy:SOLVER"``.  :data:`SOLVERS` is the registry, :func:`records` the
records behind any backend name.  Importing this module imports no solver.

Problem kinds are those of the masters: ``"lp"`` (LPBoost, RMBoost) and
``"exp_cone"`` (the relative-entropy projections of SoftBoost, TotalBoost
and ERLPBoost).  Which master a solver runs is the session table's word
(:data:`lpboosting.backends.table.SESSIONS`): the dedicated solvers each
solve one family of masters only.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from lpboosting.status import SolveStatus

__all__ = [
    "CVXPY_STATUS_MAP", "HIGHS_STATUS_MAP", "ORTOOLS_REQUIREMENT", "SOLVERS", "SOLVE_STATUS_MAP",
    "SolverRecord", "cvxpy_records", "cvxpy_requirement", "install_hint", "records",
]

#: the OR-Tools versions cvxpy's GLOP and PDLP interfaces accept (cvxpy's own ``glop`` and
#: ``pdlp`` extras), used when cvxpy's metadata cannot be read
ORTOOLS_REQUIREMENT = "ortools>=9.7,<9.15"


def _frozen(mapping: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


#: cvxpy's status strings (``Problem.status``, whatever solver ran) as SolveStatus: every status
#: cvxpy reports (``cvxpy.settings``: SOLUTION_PRESENT, INF_OR_UNB, ERROR)
CVXPY_STATUS_MAP: Mapping[str, SolveStatus] = _frozen({
    "optimal": SolveStatus.OPTIMAL,
    "optimal_inaccurate": SolveStatus.INACCURATE,
    "infeasible": SolveStatus.INFEASIBLE,
    "infeasible_inaccurate": SolveStatus.INFEASIBLE,
    "unbounded": SolveStatus.UNBOUNDED,
    "unbounded_inaccurate": SolveStatus.UNBOUNDED,
    "user_limit": SolveStatus.ITERATION_LIMIT,
    "infeasible_or_unbounded": SolveStatus.ERROR,
    "solver_error": SolveStatus.ERROR,
})

#: HiGHS's model statuses (``highspy.HighsModelStatus``, by member name) as SolveStatus
HIGHS_STATUS_MAP: Mapping[str, SolveStatus] = _frozen({
    "kOptimal": SolveStatus.OPTIMAL,
    "kInfeasible": SolveStatus.INFEASIBLE,
    "kUnbounded": SolveStatus.UNBOUNDED,
    "kUnboundedOrInfeasible": SolveStatus.INFEASIBLE,
    "kIterationLimit": SolveStatus.ITERATION_LIMIT,
    "kTimeLimit": SolveStatus.TIME_LIMIT,
    "kInterrupt": SolveStatus.INTERRUPTED,
    # no usable answer: the run failed, stopped at a limit the library never sets, or HiGHS
    # was interrupted by its own callback (not Ctrl-C)
    **{name: SolveStatus.ERROR for name in (
        "kNotset", "kLoadError", "kModelError", "kPresolveError", "kSolveError", "kPostsolveError",
        "kModelEmpty", "kObjectiveBound", "kObjectiveTarget", "kUnknown", "kSolutionLimit",
        "kMemoryLimit", "kHighsInterrupt")},
})

#: the dedicated solvers report a SolveStatus themselves
SOLVE_STATUS_MAP: Mapping[str, SolveStatus] = _frozen({status.value: status for status in SolveStatus})

@dataclass(frozen=True)
class SolverRecord:
    """One solver: what it solves, how its statuses read, its options, its package.

    name:
        Its backend name (``"highspy"``, ``"cvxpy:CLARABEL"``, ``"dedicated:newton"``).
    family:
        ``"highspy"``, ``"cvxpy"`` or ``"dedicated"``: the backend class that runs it.
    kinds:
        The problem kinds it solves (``"lp"``, ``"exp_cone"``).
    warm_start:
        Whether it starts a solve from the previous answer: a basis (HiGHS's
        simplex; its interior point and PDLP do not), the previous iterate
        (the dedicated solvers), or, for a cvxpy solver, whether cvxpy's
        ``warm_start=True`` hands it the previous solution (HIGHS, SCS,
        GUROBI; CLARABEL reuses its set-up but takes no starting point).
    status_map:
        The solver's status (a string: cvxpy's ``Problem.status``, HiGHS's
        ``HighsModelStatus`` member name, a SolveStatus value) as a
        :class:`~lpboosting.status.SolveStatus`; :meth:`status` reads it.
    module:
        The module to import for it.
    requirement:
        The pip requirement that installs it ("" for lpboosting's own).
    time_limit:
        Its time-limit option in seconds (a keyword of cvxpy's ``solve`` or
        a HiGHS option), or a function of the seconds giving the options;
        None: it has none.
    verbosity:
        The option that turns its log on (cvxpy's ``verbose``, HiGHS's
        ``output_flag``); None: it has none.
    tight_options:
        Tightened tolerances at which its answers agree with the simplex and
        the dedicated solvers to about 1e-6 or better (the comparisons and
        the benchmarks).
    catalog_options:
        The options at which it reaches the catalog's tolerance on the
        reference instances (:mod:`lpboosting.catalog`).
    iteration_kinds:
        The methods whose iterations it counts apart (HiGHS's
        ``<kind>_iteration_count``).
    compiles_once:
        A cvxpy solver for which the cvxpy backend compiles a master's
        parametric statement once per block capacity and starts each solve
        from the last (a simplex solver whose presolve drops the block's
        unused rows: HIGHS, GUROBI).  An interior-point or first-order solver
        (CLARABEL, ECOS, SCS) works on the unused rows at every solve, and
        SCS with few iterations no longer reaches an answer: they keep the
        statement rebuilt every round.
    unlisted:
        Why it is never picked automatically ("" when it is listed): it can
        be named but :func:`lpboosting.backends.table.known_backends` leaves it out.
    """

    name: str
    family: str
    kinds: frozenset[str]
    warm_start: bool
    status_map: Mapping[str, SolveStatus] = field(hash=False)
    module: str
    requirement: str
    time_limit: Any = None
    verbosity: str | None = None
    tight_options: Mapping[str, Any] = field(default_factory=_frozen, hash=False)
    catalog_options: Mapping[str, Any] = field(default_factory=_frozen, hash=False)
    iteration_kinds: tuple[str, ...] = ()
    compiles_once: bool = False
    unlisted: str = ""

    @property
    def solver(self) -> str:
        """The solver's own name in its family (``"CLARABEL"``, ``"newton"``; "" for
        ``"highspy"`` and ``"cvxpy"``)."""
        return self.name.partition(":")[2]

    def status(self, raw: str) -> SolveStatus:
        """The solver's status ``raw`` as a SolveStatus (ERROR for one the map does not know)."""
        return self.status_map.get(raw, SolveStatus.ERROR)

    @property
    def install(self) -> str:
        """The command that installs it.  A requirement with a version range is named with the
        range cvxpy's own extras give the package (:func:`cvxpy_requirement`), quoted for the
        shell."""
        if not self.requirement:
            return "(part of lpboosting)"
        if any(c in self.requirement for c in "<>=!~"):
            return f'pip install "{cvxpy_requirement(self.requirement)}"'
        return f"pip install {self.requirement}"

    def installed(self) -> bool:
        """Whether it can run here: its module imports and, for a cvxpy solver, cvxpy lists it
        (``cvxpy.installed_solvers()``)."""
        if self.family == "dedicated":
            return True
        try:
            module = importlib.import_module("cvxpy" if self.family == "cvxpy" else self.module)
        except ImportError:
            return False
        if self.family == "cvxpy" and self.solver:
            return self.solver in module.installed_solvers()
        return True


def _cvxpy(solver: str, kinds: tuple[str, ...], module: str, requirement: str | None = None,
           time_limit: Any = None, warm_start: bool = False, **facts: Any) -> SolverRecord:
    """A cvxpy solver's record: cvxpy's status strings, ``verbose`` for its log."""
    return SolverRecord(
        name=f"cvxpy:{solver}" if solver else "cvxpy", family="cvxpy", kinds=frozenset(kinds),
        warm_start=warm_start, status_map=CVXPY_STATUS_MAP, module=module,
        requirement=module if requirement is None else requirement, time_limit=time_limit,
        verbosity="verbose", **{k: _frozen(v) if k.endswith("_options") else v for k, v in facts.items()},
    )


_LP, _CONIC = ("lp",), ("lp", "exp_cone")

_PDLP_UNLISTED = (
    "OR-Tools' first-order PDLP through cvxpy: at its default tolerances it often does not declare "
    "optimality on the boosting masters (it runs to its time limit at the right value), so name it, "
    "with a time limit, where you want it compared")

#: every solver by backend name; the cvxpy solvers in the order the listings give them
SOLVERS: Mapping[str, SolverRecord] = MappingProxyType({r.name: r for r in (
    SolverRecord(
        name="highspy", family="highspy", kinds=frozenset(_LP), warm_start=True,
        status_map=HIGHS_STATUS_MAP, module="highspy", requirement="highspy",
        time_limit="time_limit", verbosity="output_flag",
        iteration_kinds=("simplex", "ipm", "crossover", "pdlp", "qp"),
    ),
    SolverRecord(
        name="dedicated:newton", family="dedicated", kinds=frozenset({"exp_cone"}), warm_start=True,
        status_map=SOLVE_STATUS_MAP, module="lpboosting.backends.dedicated.newton_projection",
        requirement="",
    ),
    SolverRecord(
        name="dedicated:minimax-simplex", family="dedicated", kinds=frozenset(_LP), warm_start=True,
        status_map=SOLVE_STATUS_MAP, module="lpboosting.backends.dedicated.minimax_session",
        requirement="",
    ),
    _cvxpy("", _CONIC, "cvxpy"),
    _cvxpy("HIGHS", _LP, "highspy", time_limit="time_limit", warm_start=True, compiles_once=True),
    _cvxpy("GLOP", _LP, "ortools", ORTOOLS_REQUIREMENT, time_limit="time_limit_sec"),
    _cvxpy("PDLP", _LP, "ortools", ORTOOLS_REQUIREMENT, time_limit="time_limit_sec", unlisted=_PDLP_UNLISTED),
    _cvxpy("CLARABEL", _CONIC, "clarabel", time_limit="time_limit",
           tight_options={"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11},
           # tighter still (1e-10) ends optimal_inaccurate on the ERLPBoost projection
           catalog_options={"tol_gap_abs": 1e-9, "tol_gap_rel": 1e-9, "tol_feas": 1e-9}),
    _cvxpy("ECOS", _CONIC, "ecos",  # no time limit
           tight_options={"abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9},
           # its default stops after 100 iterations; 1e-9 ends optimal_inaccurate on ERLPBoost
           catalog_options={"abstol": 1e-8, "reltol": 1e-8, "feastol": 1e-8, "max_iters": 500}),
    _cvxpy("SCS", _CONIC, "scs", time_limit="time_limit_secs", warm_start=True,
           tight_options={"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000},
           catalog_options={"eps_abs": 1e-8, "eps_rel": 1e-8, "max_iters": 200_000}),
    _cvxpy("MOSEK", _CONIC, "mosek",
           time_limit=lambda seconds: {"mosek_params": {"MSK_DPAR_OPTIMIZER_MAX_TIME": seconds}}),
    _cvxpy("GUROBI", _LP, "gurobipy", time_limit="TimeLimit", warm_start=True, compiles_once=True),
    _cvxpy("CPLEX", _LP, "cplex", time_limit=lambda seconds: {"cplex_params": {"timelimit": seconds}}),
    _cvxpy("SCIPY", _LP, "scipy", time_limit=lambda seconds: {"scipy_options": {"time_limit": seconds}}),
    _cvxpy("COPT", _LP, "coptpy", time_limit="TimeLimit"),
    _cvxpy("CBC", _LP, "cylp", time_limit="maximumSeconds"),
    _cvxpy("GLPK", _LP, "cvxopt"),  # no time limit
)})


def cvxpy_records() -> list[SolverRecord]:
    """The records of the cvxpy solvers (not ``"cvxpy"`` itself), in listing order."""
    return [r for r in SOLVERS.values() if r.family == "cvxpy" and r.solver]


def records(name: str) -> tuple[SolverRecord, ...]:
    """The records of the solvers behind backend ``name`` (case as :func:`get_backend
    <lpboosting.backends.get_backend>` takes it).

    ``"highspy:ipm"`` and every HiGHS configuration: HiGHS's; ``"dedicated"``:
    both dedicated solvers; ``"cvxpy:SOLVER"`` for a solver cvxpy has but
    this module does not list: a record of what is assumed of it (an LP
    solver, installed by ``pip install solver``).  () for a name of no
    library backend (a backend plugged in declares its own ``install``).
    """
    family, _, variant = name.strip().partition(":")
    family = family.lower()
    if family == "highspy":
        return (SOLVERS["highspy"],)
    if family == "dedicated":
        if not variant:
            return tuple(r for r in SOLVERS.values() if r.family == "dedicated")
        found = SOLVERS.get(f"dedicated:{variant.lower()}")
        return (found,) if found else ()
    if family == "cvxpy":
        if not variant:
            return (SOLVERS["cvxpy"],)
        solver = variant.upper()
        return (SOLVERS.get(f"cvxpy:{solver}") or _cvxpy(solver, _LP, solver.lower()),)
    return ()


def cvxpy_requirement(requirement: str) -> str:
    """``requirement`` with the version range cvxpy's own extras give its package, when cvxpy's
    metadata names one (e.g. ortools for GLOP and PDLP); else ``requirement`` as it is."""
    from importlib import metadata

    package = re.split(r"[<>=!~ ]", requirement, maxsplit=1)[0]
    try:
        requires = metadata.requires("cvxpy") or []
    except metadata.PackageNotFoundError:
        return requirement
    for line in requires:
        spec = line.split(";", 1)[0].replace(" ", "")
        match = re.fullmatch(rf"{re.escape(package)}(\(?[<>=!~][^)]*\)?)", spec, flags=re.IGNORECASE)
        if match:
            parts = match.group(1).strip("()").split(",")
            return package + ",".join(sorted(parts, key=lambda part: not part.startswith(">")))
    return requirement


def install_hint(name: str) -> str:
    """The command that installs the solver behind library backend ``name`` ("" for a name of
    no library backend); an unknown dedicated solver is lpboosting's all the same."""
    family = name.strip().partition(":")[0].lower()
    found = records(name) or records(family)
    return found[0].install if found else ""
