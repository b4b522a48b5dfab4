"""The built wheel carries what the installed package needs, and the tests run against it.

The wheel test builds a wheel from the sources next to these tests (a few
seconds; pip fetches the build backend as for any install).
"""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

import lpboosting
from tests.helpers import ROOT

#: what a build of the wheel reads
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "lpboosting", "models")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Iterator[zipfile.ZipFile]:
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("no source tree next to the tests")
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif path.is_file():
            shutil.copy(path, source / name)
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(source),
                            "-w", str(out)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    (path,) = out.glob("lpboosting-*.whl")
    with zipfile.ZipFile(path) as archive:
        yield archive


def test_the_wheel_carries_the_catalog(wheel):
    names = set(wheel.namelist())
    assert "lpboosting/models/index.json" in names, "the wheel does not carry the catalog"
    index = json.loads(wheel.read("lpboosting/models/index.json"))
    assert index == json.loads((ROOT / "models" / "index.json").read_text(encoding="utf-8"))
    files = {e["columns"] for e in index} | {e["mps"] for e in index if e["mps"]} | {"README.md"}
    assert len(files) > 8
    for name in sorted(files):
        assert f"lpboosting/models/{name}" in names, name
        assert wheel.read(f"lpboosting/models/{name}") == (ROOT / "models" / name).read_bytes(), name


def test_the_wheel_carries_every_module(wheel):
    names = set(wheel.namelist())
    modules = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "lpboosting").rglob("*.py")
                     if "__pycache__" not in p.parts)
    assert len(modules) > 40
    assert [m for m in modules if m not in names] == []


def test_the_tests_import_the_installed_package():
    """After a regular (not editable) install the tests must exercise that install, not the
    source tree next to them: run `pytest`, not `python -m pytest`, which puts the working
    directory first on sys.path."""
    # look in site-packages only: a source tree built in place has its own lpboosting.egg-info
    places = [*site.getsitepackages(), site.getusersitepackages()]
    found = list(metadata.distributions(name="lpboosting", path=places))
    if not found:
        pytest.skip("lpboosting is not installed: the tests import the source tree")
    dist = found[0]
    url = json.loads(dist.read_text("direct_url.json") or "{}")
    if url.get("dir_info", {}).get("editable"):
        pytest.skip("an editable install: the tests import the source tree")
    installed = Path(dist.locate_file("lpboosting/__init__.py")).resolve()
    assert installed.is_file()
    assert Path(lpboosting.__file__).resolve() == installed



def _requirement_name(text: str) -> str:
    import re

    return re.split(r"[\s<>=!~\[;]", text.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_the_tested_versions_pin_every_declared_dependency():
    """constraints/tested.txt (the releases the suite last passed with; README says how to install
    them) names exactly one version of every dependency pyproject.toml declares for a test run."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    if not (ROOT / "constraints" / "tested.txt").is_file():
        pytest.skip("no source tree next to the tests")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_requirement_name(r) for r in
                [*project["dependencies"], *project["optional-dependencies"]["test"]]}
    pins = {}
    for line in (ROOT / "constraints" / "tested.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and version.strip(), f"not an exact pin: {line!r}"
            assert _requirement_name(name) not in pins, f"pinned twice: {line!r}"
            pins[_requirement_name(name)] = version.strip()
    assert sorted(declared - set(pins)) == []
    assert "lpboosting" not in pins
    assert "pip install -c constraints/tested.txt" in (ROOT / "README.md").read_text()
