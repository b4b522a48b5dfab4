"""The documentation pages are programs: their code runs and prints what the pages show."""

from __future__ import annotations

import importlib.util

import pytest
from tests.helpers import ROOT

pytest.importorskip("matplotlib")

DOCS = ROOT / "docs"


def load_runner():
    spec = importlib.util.spec_from_file_location("run_docs", DOCS / "run_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["tutorial-duality.md", "user-guide.md", "architecture.md", "multiclass.md"])
def test_page_prints_what_it_shows(page, tmp_path):
    (tmp_path / "figures").mkdir()
    results = load_runner().run_page(DOCS / page, cwd=tmp_path)
    checked = [result for result in results if result.expected is not None]
    assert checked, f"{page} has no output blocks to check"
    for result in checked:
        why = result.difference()
        assert not why, f"{page}: {why}; the block\n{result.code}\nprinted\n{result.printed}"
    # the figures the page shows are the ones its code writes
    text = (DOCS / page).read_text()
    for figure in sorted(p.name for p in (tmp_path / "figures").iterdir()):
        assert f"figures/{figure}" in text
        assert (DOCS / "figures" / figure).is_file(), f"run docs/run_docs.py --write docs/{page}"


@pytest.mark.parametrize("page, figure", [("tutorial-duality.md", "tutorial-duality.png"),
                                          ("user-guide.md", "user-guide-summary.png")])
def test_a_page_runs_in_a_directory_without_a_figures_folder(tmp_path, page, figure):
    """Run outside docs/, a page's code makes the folder its figures go into."""
    results = load_runner().run_page(DOCS / page, cwd=tmp_path)
    assert all(not result.difference() for result in results)
    assert (tmp_path / "figures" / figure).stat().st_size > 0


# -- the comparator of printed output (docs/run_docs.py same_output) -------------------------

@pytest.mark.parametrize("expected, printed, varies, same", [
    ("soft margin 0.228488", "soft margin 0.228488", {}, True),
    # the last printed digit may flip (the value rounds to either side of it)
    ("soft margin 0.228488", "soft margin 0.228489", {}, True),
    ("soft margin 0.228488", "soft margin 0.228498", {}, False),
    ("value 0.183333333", "value 0.183333334", {}, True),
    ("objective 1.5e-03", "objective 1.6e-03", {}, True),
    ("objective 1.5e-03", "objective 1.7e-03", {}, False),
    # integers are counts: exact unless the page says they vary, and then by that much only
    ("converged rounds  11  soft", "converged rounds  10  soft", {}, False),
    ("converged rounds  11  soft", "converged rounds   9  soft", {"rounds": 2}, True),
    ("converged rounds  11  soft", "converged rounds  14  soft", {"rounds": 2}, False),
    ("converged 55 rounds; columns", "converged 54 rounds; columns", {"rounds": 2}, True),
    # an allowance is for the number next to its word only
    ("columns 55 hypotheses 8", "columns 55 hypotheses 9", {"rounds": 2}, False),
    ("test accuracy 0.947", "test accuracy 0.941", {"accuracy": 0.01}, True),
    # words and punctuation exactly; runs of blanks count as one, line breaks do not
    ("LPBoost converged", "LPBoost stalled", {}, False),
    ("same d : True", "same d : False", {}, False),
    ("w [0.5 0.5]", "w [0.5  0.5]", {}, True),
    ("a 1\nb 2", "a 1 b 2", {}, False),
    ("rows 3", "rows 3\nrows 4", {}, False),
])
def test_same_output_compares_what_is_stable(expected, printed, varies, same):
    assert (load_runner().same_output(expected, printed, varies) == "") is same


def test_an_output_varies_comment_is_read_for_its_block(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nprint('rounds', 11)\n```\n\n<!-- output varies: rounds 2 -->\n"
                    "```output\nrounds 10\n```\n\n```python\nprint('rounds', 11)\n```\n\n"
                    "```output\nrounds 10\n```\n")
    first, second = load_runner().run_page(page, cwd=tmp_path)
    assert first.varies == {"rounds": 2.0} and first.difference() == ""
    assert second.varies == {} and "10" in second.difference()
    with pytest.raises(ValueError, match="word amount"):
        load_runner().parse_varies("rounds")
