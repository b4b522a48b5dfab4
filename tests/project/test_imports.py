"""The package's layering: every module imports on its own, masters/ knows no solver, the
product imports no study (lpboosting.benchmark, lpboosting.experiments) and its docstrings quote
no measurement (docs/ holds them, with the commands that give them).

Each module is imported first of all in a fresh interpreter, so an import
cycle cannot hide behind the order in which other modules happened to be
loaded.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import lpboosting

PACKAGE = Path(lpboosting.__file__).parent


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules()


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_every_module_imports_first_in_a_fresh_interpreter():
    # one interpreter per module, a few at a time (each spends most of its time loading numpy)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(MODULES, pool.map(lambda name: _run(f"import {name}"), MODULES)))
    failures = {name: (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
                for name, out in results.items() if out.returncode != 0}
    assert len(MODULES) > 40 and not failures, failures


def test_importing_the_masters_loads_no_scikit_learn_solver_or_booster():
    code = (
        "import sys\n"
        "from lpboosting.masters import LPBoost, RMBoost, SoftBoost, ERLPBoost, TotalBoost\n"
        "loaded = [m for m in sys.modules if m == 'sklearn' or m.startswith('sklearn.')\n"
        "          or m.startswith(('lpboosting.backends', 'lpboosting.leveraging',\n"
        "                           'lpboosting.estimators', 'highspy', 'cvxpy'))]\n"
        "print(loaded)\n"
    )
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_top_level_names_load_on_first_use():
    out = _run("import sys, lpboosting\n"
               "print('sklearn' in sys.modules)\n"
               "print(lpboosting.LPBoostClassifier.__name__, 'sklearn' in sys.modules)\n"
               "print(sorted(set(lpboosting.__all__) - set(dir(lpboosting))))\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["False", "LPBoostClassifier True", "[]"]
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        lpboosting.Nope  # noqa: B018


def _imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from ... import`` anywhere in the file names (absolute)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", sorted((PACKAGE / "masters").glob("*.py")), ids=lambda p: p.name)
def test_no_formulation_imports_a_solver(path):
    # not even inside a function: the formulations are the mathematics only
    imported = _imported_modules(path)
    solvers = sorted(m for m in imported if m == "lpboosting.backends" or m.startswith("lpboosting.backends.")
                     or m.split(".")[0] in ("highspy", "sklearn"))
    assert not solvers, solvers


def test_the_session_table_names_real_sessions_and_backends():
    from lpboosting.backends import table
    from lpboosting.masters.base import Master

    for (solver, cls), path in table.SESSIONS.items():
        assert issubclass(cls, Master)
        assert callable(table.session_factory(path)), path
    for name in table.BACKENDS.values():
        assert isinstance(table.session_factory(name), type), name


# -- the studies apart: the product runs lpboosting.benchmark and lpboosting.experiments by name ---
STUDIES = ("lpboosting.benchmark", "lpboosting.experiments")
PRODUCT_FILES = sorted(path for path in PACKAGE.rglob("*.py")
                       if path.relative_to(PACKAGE).parts[0] not in ("benchmark", "experiments"))


def _names_a_study(module: str) -> bool:
    return any(module == study or module.startswith(study + ".") for study in STUDIES)


@pytest.mark.parametrize("path", PRODUCT_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_product_module_imports_a_study(path):
    # not even inside a function: `lpboosting bench` and `reproduce` launch them by module name
    studies = sorted(m for m in _imported_modules(path) if _names_a_study(m))
    assert not studies, studies


def test_the_command_line_loads_no_study_until_one_runs():
    code = ("import sys\n"
            "from lpboosting.cli import main\n"
            "loaded = lambda: sorted(m for m in sys.modules\n"
            "                        if m.startswith(('lpboosting.benchmark', 'lpboosting.experiments')))\n"
            "print('loaded', loaded())\n"
            "assert main(['--help']) == 0 and main(['backends']) == 0\n"
            "print('loaded', loaded())\n"
            "assert main(['reproduce', '--help']) == 0\n"
            "print('loaded', loaded())\n")
    out = _run(code)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.startswith("loaded ")]
    # after importing the CLI, and after its help and another command
    assert lines[:2] == ["loaded []", "loaded []"], lines
    # reproduce's own help loads its command from the study
    assert "'lpboosting.experiments.command'" in lines[2]


#: what a measurement looks like in prose: a time, a speed-up, "took ..." with a figure
MEASUREMENT = re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms|seconds|minutes)\b(?![-_])"
                         r"|\b\d+(?:\.\d+)?\s?x\s(?:faster|slower|fewer|more|less)\b"
                         r"|\b(?:faster|slower)\b[^.]*\b\d+(?:\.\d+)?\s?(?:x|times)\b"
                         r"|\btook\b[^.]{0,40}\d")


def _docstrings(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text())
    nodes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [(getattr(node, "name", "module"), ast.get_docstring(node) or "")
            for node in ast.walk(tree) if isinstance(node, nodes)]


@pytest.mark.parametrize("text, measured", [
    ("stopping early cut the fit from 60 s to 4 s", True), ("6-16x fewer master solves", True),
    ("the nus 0.4 to 0.1 took 95 % of a full path", True), ("about 10-20 minutes", True),
    ("a time limit in seconds", False), ("nu = 0.1 (docs/defaults.md)", False),
    ("k x N products", False), ("a stall of 5 rounds", False),
])
def test_the_measurement_pattern(text, measured):
    assert bool(MEASUREMENT.search(text)) is measured


@pytest.mark.parametrize("path", PRODUCT_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_product_docstring_quotes_a_measurement(path):
    # figures go stale with new releases and data: docs/defaults.md, docs/accuracy.md and the
    # user guide hold them, each with the command that measures it
    found = [(name, match.group()) for name, text in _docstrings(path)
             for match in MEASUREMENT.finditer(text)]
    assert not found, found

