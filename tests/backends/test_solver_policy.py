"""One record per solver and one fallback policy (lpboosting/backends/solvers.py, fallback.py).

The chains written here are policy, not solver output: they are the orders the
library has used since the fallbacks were written (the loop's re-solve of a
rejected answer, the minimax simplex's HiGHS fallback, the Newton projection's
conic fallback), and a change to them is a change of behaviour.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from lpboosting import column_generation
from lpboosting.backends import fallback, get_backend
from lpboosting.backends.dedicated.minimax_simplex import MinimaxDualSimplex, SimplexResult
from lpboosting.backends.fallback import backend_for, fallback_backends, session_fallbacks
from lpboosting.backends.highs.sifting import HighsSiftingLP
from lpboosting.backends.solvers import (
    CVXPY_STATUS_MAP,
    HIGHS_STATUS_MAP,
    SOLVE_STATUS_MAP,
    SOLVERS,
    records,
)
from lpboosting.backends.table import KIND_NAMES, install_hint, nameable_backends
from lpboosting.colgen.verify import fallback_chain
from lpboosting.errors import SolverNotInstalledError
from lpboosting.masters import (
    ERLPBoost,
    LPBoost,
    MulticlassERLPBoost,
    MulticlassLPBoost,
    RMBoost,
    SoftBoost,
    TotalBoost,
)
from lpboosting.masters.registry import MASTERS
from lpboosting.oracles import Columns, Stumps
from lpboosting.status import SolveStatus
from tests.helpers import DATASETS, graded_pool

#: today's chains: a rejected answer solved afresh (the loop), and a dedicated session's own
#: fallback, by master; the failed backend and those not installed are left out of each
LOOP_CHAINS = {
    "LPBoost": ["highspy", "highspy:rows", "cvxpy:CLARABEL", "cvxpy:ECOS"],
    # the pairs' LP has no dense-rows session: a fresh HiGHS model, then the conic solvers
    "MulticlassLPBoost": ["highspy", "cvxpy:CLARABEL", "cvxpy:ECOS"],
    "RMBoost": ["highspy:ipm", "highspy", "cvxpy:CLARABEL"],
    "SoftBoost": [], "TotalBoost": [], "ERLPBoost": [], "MulticlassERLPBoost": [],
}
SESSION_CHAINS = {
    "LPBoost": [],
    "MulticlassLPBoost": [],
    "RMBoost": ["highspy"],
    "SoftBoost": ["cvxpy:CLARABEL", "cvxpy:ECOS", "cvxpy:SCS"],
    "TotalBoost": ["cvxpy:CLARABEL", "cvxpy:ECOS", "cvxpy:SCS"],
    "ERLPBoost": ["cvxpy:CLARABEL", "cvxpy:ECOS", "cvxpy:SCS"],
    "MulticlassERLPBoost": ["cvxpy:CLARABEL", "cvxpy:ECOS", "cvxpy:SCS"],
}
MASTER_OF = {"LPBoost": lambda: LPBoost(0.2), "RMBoost": lambda: RMBoost(),
             "MulticlassLPBoost": lambda: MulticlassLPBoost(0.2, 3),
             "SoftBoost": lambda: SoftBoost(0.2, 0.1), "TotalBoost": lambda: TotalBoost(0.2),
             "ERLPBoost": lambda: ERLPBoost(0.2, 0.1),
             "MulticlassERLPBoost": lambda: MulticlassERLPBoost(0.2, 0.1, 3)}


def available(names: list[str]) -> list[str]:
    """``names`` whose backend says it is installed (the backends' own word, not the records')."""
    return [name for name in names if get_backend(name).is_available()]


# -- the records ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", nameable_backends() + ["dedicated:newton", "dedicated:minimax-simplex"])
def test_every_backend_name_has_its_solvers_records(name):
    found = records(name)
    assert found and all(SOLVERS.get(r.name) is r for r in found)  # none made up for an unknown name
    assert all(r.kinds and r.kinds <= set(KIND_NAMES) for r in found)
    assert install_hint(name) == found[0].install
    backend = get_backend(name)
    # what the backend says of itself agrees with its records
    assert backend.is_available() == all(r.installed() for r in found)
    if name.startswith("cvxpy:"):
        assert all(backend.handles_kind(kind) == (kind in found[0].kinds) for kind in KIND_NAMES)


def test_the_records_name_their_family_and_only_the_library_needs_no_package():
    for name, record in SOLVERS.items():
        assert record.name == name and name.split(":")[0] == record.family
        assert (record.requirement == "") == (record.family == "dedicated"), name
        assert record.verbosity or record.family == "dedicated", name


def test_the_cvxpy_status_map_covers_every_status_cvxpy_reports():
    import cvxpy.settings as s

    reported = set(s.SOLUTION_PRESENT) | set(s.INF_OR_UNB) | set(s.ERROR)
    for record in SOLVERS.values():
        if record.family == "cvxpy":
            assert record.status_map is CVXPY_STATUS_MAP
    assert reported <= set(CVXPY_STATUS_MAP)
    assert {raw for raw in reported if CVXPY_STATUS_MAP[raw].ok} == {s.OPTIMAL, s.OPTIMAL_INACCURATE}


def test_the_highs_status_map_covers_every_model_status_highspy_has():
    highspy = pytest.importorskip("highspy")
    from lpboosting.backends.highs.model import map_highs_status

    members = highspy.HighsModelStatus.__members__
    assert set(members) <= set(HIGHS_STATUS_MAP) and SOLVERS["highspy"].status_map is HIGHS_STATUS_MAP
    for name, member in members.items():
        assert map_highs_status(highspy, member) is HIGHS_STATUS_MAP[name]
    assert [name for name in members if HIGHS_STATUS_MAP[name].ok] == ["kOptimal"]


def test_the_dedicated_solvers_report_solve_statuses():
    for name in ("dedicated:newton", "dedicated:minimax-simplex"):
        assert SOLVERS[name].status_map is SOLVE_STATUS_MAP
    assert all(SOLVE_STATUS_MAP[status.value] is status for status in SolveStatus)
    assert SOLVERS["cvxpy:CLARABEL"].status("no such status") is SolveStatus.ERROR


# -- the policy ----------------------------------------------------------------------------------
def test_every_registered_master_has_its_chains_written_here():
    assert {spec.cls.name for spec in MASTERS.values()} <= set(LOOP_CHAINS)


@pytest.mark.parametrize("name", sorted(LOOP_CHAINS))
def test_each_library_master_falls_back_as_it_always_has(name):
    master = MASTER_OF[name]()
    assert master.name == name
    loop, session = available(LOOP_CHAINS[name]), available(SESSION_CHAINS[name])
    assert fallback_backends(master) == loop
    assert fallback_chain(master, master.default_backend) == [
        b for b in loop if b != master.default_backend or b == "highspy"]
    # the one that failed is not asked again, but a fresh model of the default HiGHS is
    for failed in LOOP_CHAINS[name]:
        assert fallback_backends(master, failed) == [b for b in loop if b != failed or b == "highspy"]
    assert session_fallbacks(master, "dedicated") == session


def test_a_master_defined_outside_the_library_is_solved_afresh_through_cvxpy_only():
    class MyLPBoost(LPBoost):
        pass

    class MyRMBoost(RMBoost):
        pass

    assert fallback_backends(MyLPBoost(0.2), "highspy") == available(["cvxpy:CLARABEL", "cvxpy:ECOS"])
    assert fallback_backends(MyRMBoost(), "highspy:ipm") == available(["cvxpy:CLARABEL"])
    # a session's own fallback solves the problem that session solves: not restricted
    assert session_fallbacks(MyRMBoost(), "dedicated") == available(["highspy"])


def test_a_backend_not_installed_is_left_out(monkeypatch):
    monkeypatch.setitem(sys.modules, "highspy", None)  # makes `import highspy` fail
    assert fallback_backends(LPBoost(0.2)) == available(["cvxpy:CLARABEL", "cvxpy:ECOS"])
    assert session_fallbacks(RMBoost(), "dedicated") == []


# -- falling back, end to end --------------------------------------------------------------------
def _fail_solve(monkeypatch, cls, at: int, wrong) -> None:
    """Make ``cls.solve``'s answer number ``at`` wrong (``wrong(answer)``) or failed."""
    original, calls = cls.solve, {"n": 0}

    def solve(self):
        calls["n"] += 1
        answer = original(self)
        return wrong(answer) if calls["n"] == at else answer

    monkeypatch.setattr(cls, "solve", solve)


def _nan_d(answer):
    answer.distribution = answer.distribution.copy()
    answer.distribution[0] = np.nan
    return answer


@pytest.mark.parametrize("chain", [None, ("cvxpy:CLARABEL",)])
def test_the_loop_answers_a_rejected_round_by_the_masters_fallbacks(monkeypatch, chain):
    X, y = DATASETS["cancer-60x8"]()
    exact = column_generation(LPBoost(0.2), Stumps(X, y), max_rounds=40)
    _fail_solve(monkeypatch, HighsSiftingLP, 3, _nan_d)
    master = LPBoost(0.2)
    if chain is not None:
        master.fallback_backends = chain  # what the master declares is what the loop tries
    with pytest.warns(RuntimeWarning, match="round 3: the answer was rejected"):
        result = column_generation(master, Stumps(X, y), max_rounds=40)
    record = result.history[2]
    assert "highspy" in record.extra["rejected"]
    assert record.extra["fallback"] == ("highspy" if chain is None else "cvxpy:CLARABEL")
    assert result.status == "converged"
    # CLARABEL's answer of round 3 is optimal to its default tolerance (about 1e-8): the run ends
    # at the same optimum
    assert result.objective == pytest.approx(exact.objective, abs=1e-6)


@pytest.mark.parametrize("chain", [None, ("cvxpy:CLARABEL",)])
def test_the_minimax_simplex_answers_a_failed_round_by_the_masters_session_fallbacks(monkeypatch, chain):
    y, pool = graded_pool(40, 12, 3)
    exact = column_generation(RMBoost(0.1), Columns(pool), backend="highspy", tol=1e-9, max_rounds=50)
    _fail_solve(monkeypatch, MinimaxDualSimplex, 4, lambda r: SimplexResult(
        SolveStatus.FAILED, r.mu, r.y, np.nan, r.iterations, 0.0, "forced for the test"))
    master = RMBoost(0.1)
    if chain is not None:
        master.session_fallbacks = chain
    result = column_generation(master, Columns(pool), backend="dedicated", tol=1e-9, max_rounds=50)
    solvers = [r.extra["solver"] for r in result.history]
    assert solvers[3] == ("highspy" if chain is None else "cvxpy:CLARABEL") + " (fallback)"
    assert result.history[3].extra["fallback"] and result.history[3].extra["message"] == "forced for the test"
    assert result.converged
    # the risk is the LP's optimum: HiGHS's simplex to 1e-9, CLARABEL's round to about 1e-8
    assert result.objective == pytest.approx(exact.objective, abs=1e-7)


def test_the_newton_projection_answers_an_unverified_round_by_the_masters_session_fallbacks(monkeypatch):
    import lpboosting.backends.dedicated.newton_projection as newton

    if not get_backend("cvxpy:ECOS").is_available():
        pytest.skip("ECOS is not installed")
    real = newton.project_softboost

    def unverified_at_3(U, bound, cap, **kw):
        res = real(U, bound, cap, **kw)
        if U.shape[1] == 3:
            res.status, res.verified, res.message = SolveStatus.FAILED, False, "forced for the test"
        return res

    X, y = DATASETS["cancer-60x8"]()
    reference = column_generation(SoftBoost(0.2, 0.1), Stumps(X, y), max_rounds=30)
    monkeypatch.setattr(newton, "project_softboost", unverified_at_3)
    master = SoftBoost(0.2, 0.1)
    master.session_fallbacks = ("cvxpy:ECOS", "cvxpy:CLARABEL")
    result = column_generation(master, Stumps(X, y), max_rounds=30)
    assert [r.extra["solver"] for r in result.history][:4] == [
        "dedicated", "dedicated", "cvxpy:ECOS (fallback)", "dedicated"]
    # the projection is strictly convex: ECOS's answer (default tolerance about 1e-8) is the same
    # distribution, and the run goes on along the same path
    assert result.n_rounds == reference.n_rounds
    assert result.objective == pytest.approx(reference.objective, abs=1e-6)


def test_the_entropy_masters_lp_is_solved_by_another_lp_backend_without_highspy(monkeypatch):
    X, y = DATASETS["cancer-60x8"]()
    with_highs = column_generation(SoftBoost(0.2, 0.1), Stumps(X, y), max_rounds=10)
    session = get_backend("dedicated").open(SoftBoost(0.2, 0.1), y.size)
    assert session._lp_backend.name == "highspy"
    monkeypatch.setitem(sys.modules, "highspy", None)
    lp_backend = backend_for(LPBoost(0.2))
    assert lp_backend == available(["cvxpy:CLARABEL", "cvxpy:ECOS"])[0]
    session = get_backend("dedicated").open(SoftBoost(0.2, 0.1), y.size)
    assert session._lp_backend.name == lp_backend
    without = column_generation(SoftBoost(0.2, 0.1), Stumps(X, y), max_rounds=10)
    assert without.n_rounds == with_highs.n_rounds
    # the LP's value is the soft margin: HiGHS's simplex against an interior point's 1e-8
    assert without.objective == pytest.approx(with_highs.objective, abs=1e-6)
    monkeypatch.setattr(fallback, "installed", lambda name: False)
    with pytest.raises(SolverNotInstalledError, match="pip install highspy"):
        get_backend("dedicated").open(SoftBoost(0.2, 0.1), y.size)


def test_a_master_of_another_kind_has_no_loop_fallback_unless_it_declares_one():
    """A user's master of kind exp_cone written on Master directly gets no LP fallback (the loop's
    rule before the policy: only LP masters are solved again afresh)."""
    from lpboosting.backends.fallback import declared
    from lpboosting.masters.base import LP_FALLBACKS, Master

    class Conic(Master):
        kind, name = "exp_cone", "Conic"

        def cvxpy_statement(self, U):  # pragma: no cover - never solved here
            raise NotImplementedError

        def cvxpy_solution(self, statement, U, status):  # pragma: no cover
            raise NotImplementedError

        def gap(self, solution, edge):  # pragma: no cover
            raise NotImplementedError

        def converged(self, solution, edge, tol):  # pragma: no cover
            raise NotImplementedError

    class Linear(Conic):
        kind = "lp"

    assert declared(Conic()) == () and declared(Linear()) == LP_FALLBACKS
