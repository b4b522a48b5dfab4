"""The documentation pages are programs: their code runs and prints what the pages show."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

DOCS = Path(__file__).resolve().parents[1] / "docs"


def load_runner():
    spec = importlib.util.spec_from_file_location("run_docs", DOCS / "run_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["tutorial-duality.md", "user-guide.md", "architecture.md"])
def test_page_prints_what_it_shows(page, tmp_path):
    (tmp_path / "figures").mkdir()
    results = load_runner().run_page(DOCS / page, cwd=tmp_path)
    checked = [(code, expected, printed) for code, expected, printed in results if expected is not None]
    assert checked, f"{page} has no output blocks to check"
    for code, expected, printed in checked:
        assert printed == expected, f"{page}: the block\n{code}\nprinted\n{printed}"
    # the figures the page shows are the ones its code writes
    text = (DOCS / page).read_text()
    for figure in sorted(p.name for p in (tmp_path / "figures").iterdir()):
        assert f"figures/{figure}" in text
        assert (DOCS / "figures" / figure).is_file(), f"run docs/run_docs.py --write docs/{page}"


def test_the_tutorial_runs_in_a_directory_without_a_figures_folder(tmp_path):
    """Run outside docs/, the tutorial's code makes the folder its figure goes into."""
    results = load_runner().run_page(DOCS / "tutorial-duality.md", cwd=tmp_path)
    assert all(expected is None or printed == expected for _, expected, printed in results)
    assert (tmp_path / "figures" / "tutorial-duality.png").stat().st_size > 0
