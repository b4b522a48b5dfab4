"""The documentation site's sources are complete: every public name in the API reference, every
page in a table of contents, every gallery example listed with a title, the tutorial's notebook
the page itself, and README's docs command the one CI runs.  (CI builds the site itself.)"""

from __future__ import annotations

import importlib
import re
import sys
from types import ModuleType

import pytest
from tests.helpers import ROOT

DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
#: the layers of docs/architecture.md whose public names the API reference must hold
LAYERS = ("lpboosting.estimators", "lpboosting.leveraging", "lpboosting.plots", "lpboosting.compare",
          "lpboosting.catalog", "lpboosting.export", "lpboosting.model_io", "lpboosting.datasets",
          "lpboosting.losses", "lpboosting.colgen", "lpboosting.backends", "lpboosting.masters",
          "lpboosting.oracles", "lpboosting.status", "lpboosting.errors", "lpboosting.dask")
AUTOSUMMARY = re.compile(r"\.\. currentmodule:: ([\w.]+)\s+\.\. autosummary::\n((?:[ \t]+.*\n|\n)+)")
DOCS_COMMAND = 'pip install ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html'


def api_entries() -> list[str]:
    """The dotted names the API reference (docs/api.md) lists in its autosummary tables."""
    names = []
    for module, body in AUTOSUMMARY.findall((DOCS / "api.md").read_text(encoding="utf-8")):
        for line in body.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                names.append(f"{module}.{line}")
    return names


def resolve(dotted: str) -> object:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def public_names(module: ModuleType) -> list[str]:
    """``__all__``, or the public names a module without one defines itself."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [n for n, v in vars(module).items()
            if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__]


def test_the_api_reference_documents_every_public_name():
    entries = api_entries()
    assert len(entries) == len(set(entries)), "a name is listed twice"
    documented = {id(resolve(e)) for e in entries}
    listed_modules = {e.rpartition(".")[0] for e in entries}
    assert set(LAYERS) <= listed_modules, f"layers missing from docs/api.md: {set(LAYERS) - listed_modules}"
    missing = []
    for module_name in ["lpboosting", *sorted(listed_modules)]:
        module = importlib.import_module(module_name)
        missing += [f"{module_name}.{n}" for n in public_names(module) if id(getattr(module, n)) not in documented]
    assert missing == [], f"public names not in docs/api.md: {missing}"


def test_every_page_is_in_the_table_of_contents():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    toctrees = "\n".join(re.findall(r"```\{toctree\}\n(.*?)```", index, re.S))
    entries = {line.strip() for line in toctrees.splitlines() if line.strip() and not line.startswith(":")}
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    assert pages - entries == set(), "pages in no toctree of docs/index.md"
    assert {"api", "auto_examples/index"} <= entries


def test_every_gallery_example_has_a_title_and_uses_the_library():
    examples = sorted(EXAMPLES.glob("*.py"))
    assert len(examples) >= 10
    for path in examples:
        text = path.read_text(encoding="utf-8")
        title = re.match(r'r?"""\n(.+)\n(=+)\n', text)
        assert title and len(title.group(2)) >= len(title.group(1)), f"{path.name}: no title in its docstring"
        assert "from lpboosting" in text, f"{path.name} does not use the library"
        assert "plt.show()" in text, f"{path.name} shows no figure"
    assert (EXAMPLES / "GALLERY_HEADER.rst").is_file()


@pytest.fixture
def docs_module(monkeypatch):
    """Import a module of docs/ (notebooks.py imports run_docs.py beside it)."""
    monkeypatch.syspath_prepend(str(DOCS))

    def load(name: str) -> ModuleType:
        monkeypatch.delitem(sys.modules, name, raising=False)
        return importlib.import_module(name)

    return load


def test_the_tutorial_notebook_is_the_page(docs_module):
    page = DOCS / "tutorial-duality.md"
    notebook = docs_module("notebooks").page_notebook(page)
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    blocks = docs_module("run_docs").page_blocks(page.read_text(encoding="utf-8"))
    assert ["".join(c["source"]) for c in code] == [b.code.rstrip("\n") for b in blocks]
    assert ["".join(o["text"]) for c in code for o in c["outputs"]] == \
        [b.expected for b in blocks if b.expected is not None]
    prose = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert "$$" in prose and "```output" not in prose and "output varies" not in prose
    figures = [c for c in notebook["cells"] if "attachments" in c]
    assert figures and "attachment:tutorial-duality.png" in "".join(figures[0]["source"])


def test_the_tutorial_notebook_is_valid(docs_module):
    import nbformat
    notebook = docs_module("notebooks").page_notebook(DOCS / "tutorial-duality.md")
    nbformat.validate(nbformat.from_dict(notebook))


def test_readme_and_ci_build_the_docs_the_same_way():
    assert DOCS_COMMAND in (ROOT / "README.md").read_text(encoding="utf-8")
    assert DOCS_COMMAND in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
