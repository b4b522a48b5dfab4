"""docs/architecture.md's recipes, followed: a new master, backend and oracle are the library's.

The page's python blocks run in order in one namespace (docs/run_docs.py's blocks), without the
``del`` lines with which the page leaves the registries as it found them.  Then the master of the
master recipe (HardMargin), the backend of the backend recipe (scipy's linprog) and the oracle of
the oracle recipe (median splits) must be where the page says: in
``lpboosting.backends.available()``, in the command line's lists (``lpboosting backends``,
``fit``'s algorithms, ``compare --master``), in ``lpboosting.compare`` and ``lpboosting
compare``.  The registries are restored afterwards, whatever happens.
"""

from __future__ import annotations

import ast
import importlib.util
import re

import pytest
from click.testing import CliRunner

from lpboosting import compare as harness
from lpboosting.backends import available, table
from lpboosting.cli import cli
from lpboosting.masters import MASTERS, LPBoost
from lpboosting.oracles import ORACLES, make_oracle
from tests.helpers import ROOT

DOCS = ROOT / "docs"
#: what the three recipes register, by name
MASTER, BACKEND, ORACLE = "hardmargin", "linprog", "median-splits"
#: every objective below is an LP optimum solved by HiGHS (directly, through cvxpy or scipy), whose
#: default primal and dual feasibility tolerances are 1e-7
TOL = 1e-6


def _python_blocks() -> list[str]:
    spec = importlib.util.spec_from_file_location("run_docs", DOCS / "run_docs.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    return [block.code for block in runner.page_blocks((DOCS / "architecture.md").read_text())]


def _without_unregistering(code: str) -> str:
    """The block without its top-level ``del`` statements (the page's clean-up)."""
    lines = code.splitlines(keepends=True)
    for node in reversed(ast.parse(code).body):
        if isinstance(node, ast.Delete):
            del lines[node.lineno - 1:node.end_lineno]
    return "".join(lines)


@pytest.fixture(scope="module")
def page():
    """The page's namespace after its recipes ran, their registrations kept until the tests end."""
    registries = (MASTERS, table.BACKENDS, table.SESSIONS, ORACLES)
    saved = [dict(registry) for registry in registries]
    namespace: dict = {"__name__": "__docs__"}
    try:
        blocks = _python_blocks()
        assert sum("del " in code for code in blocks) >= 3  # the three recipes unregister
        for i, code in enumerate(blocks):
            exec(compile(_without_unregistering(code), f"architecture.md:block{i}", "exec"), namespace)
        yield namespace
    finally:
        for registry, before in zip(registries, saved):
            registry.clear()
            registry.update(before)


def test_the_page_registers_one_master_backend_and_oracle(page):
    assert MASTERS[MASTER].cls is page["HardMargin"]
    assert MASTERS[MASTER].estimator is page["HardMarginClassifier"]
    assert table.BACKENDS[BACKEND] is page["LinprogBackend"]
    assert ORACLES[ORACLE] is page["MedianSplits"]


def test_the_page_as_written_unregisters_what_it_registers():
    # as the docs test runs it (in the test process): the three names are gone when it ends
    registries = (MASTERS, table.BACKENDS, table.SESSIONS, ORACLES)
    saved = [dict(registry) for registry in registries]
    namespace: dict = {"__name__": "__docs__"}
    try:
        for i, code in enumerate(_python_blocks()):
            exec(compile(code, f"architecture.md:block{i}", "exec"), namespace)
        assert MASTER not in MASTERS and BACKEND not in table.BACKENDS and ORACLE not in ORACLES
        assert not any(solver == BACKEND for solver, _ in table.SESSIONS)
    finally:  # the module's fixture may hold them registered for the other tests
        for registry, before in zip(registries, saved):
            registry.clear()
            registry.update(before)


# -- lpboosting.backends.available() ---------------------------------------------------------
def test_available_lists_the_backend_in_its_own_words(page):
    info = {i.name: i for i in available()}[BACKEND]
    assert info.installed and info.install == "pip install scipy"
    assert info.description == page["LinprogBackend"].__doc__.strip()
    # one LP master of the registry: listed by name, not as solving every LP
    assert not info.lp and info.masters == ("LPBoost",)


def test_available_counts_the_master_among_the_lp_masters(page):
    listed = {i.name: i for i in available()}
    # the cvxpy backends state every master, the new one included; highspy has no session for it
    assert listed["cvxpy:HIGHS"].lp and listed["cvxpy:CLARABEL"].lp
    assert not listed["highspy"].lp and "HardMargin" not in listed["highspy"].masters
    assert set(listed["highspy"].masters) == {"LPBoost", "MulticlassLPBoost", "RMBoost"}


# -- the command line's lists ----------------------------------------------------------------
def invoke(*argv: str) -> str:
    result = CliRunner().invoke(cli, list(argv), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_lpboosting_backends_lists_the_backend(page):
    lines = [line for line in invoke("backends").splitlines() if re.search(rf"\b{BACKEND}\b", line)]
    assert len(lines) == 1 and "pip install scipy" in lines[0] and "LPBoost only" in lines[0]


def test_fit_and_compare_offer_the_master(page):
    assert MASTER in invoke("fit", "--help")
    assert MASTER in invoke("compare", "--help").split("--master", 1)[1].split("\n")[0]


def test_lpboosting_fit_fits_the_master_and_the_oracle(page, tmp_path):
    out = invoke("fit", MASTER, "--data", "breast-cancer", "--quiet", "-p", "max_rounds=200")
    assert "HardMarginClassifier on" in out and "converged after" in out
    out = invoke("fit", "lpboost", "--data", "breast-cancer", "--quiet", "-p", f"oracle={ORACLE}")
    assert "converged after" in out


# -- lpboosting.compare and `lpboosting compare` ---------------------------------------------
def _data(namespace):
    return namespace["X"], namespace["y"]


def test_compare_runs_the_master_on_the_cvxpy_backends(page):
    X, y = _data(page)
    result = harness.compare(page["HardMargin"](), make_oracle("stumps", X, y),
                             ["cvxpy:HIGHS", "cvxpy:CLARABEL"])
    assert result.ok and {r.backend for r in result.runs} == {"cvxpy:HIGHS", "cvxpy:CLARABEL"}
    # the hard margin is LPBoost's soft margin at nu = 1/N (the page's check)
    reference = harness.compare(LPBoost(nu=1 / len(y)), make_oracle("stumps", X, y), ["highspy"],
                                replay=False)
    objectives = [r.objective for r in result.runs + reference.runs if r.mode != "replay"]
    assert max(objectives) - min(objectives) < TOL


def test_compare_runs_the_backend_beside_highspy(page):
    X, y = _data(page)
    result = harness.compare(LPBoost(0.2), make_oracle("stumps", X, y), ["linprog", "highspy"])
    assert result.ok and [r.backend for r in result.runs if r.mode != "replay"] == ["linprog", "highspy"]
    assert result.max_deviation() < TOL


def test_compare_runs_the_oracle(page):
    X, y = _data(page)
    result = harness.compare(LPBoost(0.2), make_oracle(ORACLE, X, y), ["highspy", "cvxpy:HIGHS"])
    assert result.ok and result.meta["oracle"] == ORACLE
    assert result.max_deviation() < TOL


def test_lpboosting_compare_takes_all_three(page):
    out = invoke("compare", "--data", "breast-cancer", "--master", MASTER, "--max-rounds", "40",
                 "--no-replay")
    assert "HardMargin" in out and "cvxpy:HIGHS" in out
    out = invoke("compare", "--data", "breast-cancer", "-b", BACKEND, "-b", "highspy",
                 "--oracle", ORACLE)
    assert BACKEND in out and ORACLE in out
    deviation = float(re.search(r"largest objective deviation: (\S+)", out).group(1))
    assert deviation <= TOL
