"""A markdown page of these docs as a Jupyter notebook, and the Sphinx extension that offers it.

The page's fenced ``python`` blocks become code cells, the ``output`` block
after each becomes that cell's printed output (the page's output is checked by
the tests, so the notebook shows what running it prints), and the prose
between them becomes markdown cells, with the page's figures embedded as
attachments so the notebook stands on its own.  Nothing is executed.

As a Sphinx extension, it writes ``_notebooks/PAGE.ipynb`` for every page named
in the ``notebook_pages`` setting and puts a download link at the top of the
page (only in the site: the markdown file is left as it is).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from run_docs import BLOCK

FOLDER = "_notebooks"
IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+\.png)\)")
COMMENT = re.compile(r"<!--.*?-->", re.S)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _markdown_cell(text: str, base: Path, index: int) -> dict[str, Any] | None:
    """A markdown cell of ``text`` (HTML comments dropped), images embedded; None if blank."""
    text = COMMENT.sub("", text).strip()
    if not text:
        return None
    attachments = {}

    def attach(match: re.Match[str]) -> str:
        name = Path(match.group(2)).name
        attachments[name] = {"image/png": base64.b64encode((base / match.group(2)).read_bytes()).decode()}
        return f"![{match.group(1)}](attachment:{name})"

    cell: dict[str, Any] = {"cell_type": "markdown", "id": f"cell-{index}", "metadata": {},
                            "source": _lines(IMAGE.sub(attach, text))}
    if attachments:
        cell["attachments"] = attachments
    return cell


def _code_cell(code: str, printed: str | None, index: int) -> dict[str, Any]:
    outputs = [] if printed is None else [{"output_type": "stream", "name": "stdout", "text": _lines(printed)}]
    return {"cell_type": "code", "id": f"cell-{index}", "metadata": {}, "execution_count": None,
            "source": _lines(code.rstrip("\n")), "outputs": outputs}


def page_notebook(path: Path) -> dict[str, Any]:
    """The notebook (nbformat 4.5, as a dict) of the markdown page at ``path``."""
    text = path.read_text(encoding="utf-8")
    cells: list[dict[str, Any]] = []
    matches = list(BLOCK.finditer(text))
    pos = 0

    def prose(upto: int) -> None:
        cell = _markdown_cell(text[pos:upto], path.parent, len(cells))
        if cell is not None:
            cells.append(cell)

    i = 0
    while i < len(matches):
        match = matches[i]
        i += 1
        if match.group(1) != "python":
            continue  # other fenced blocks (diagrams, shell commands) stay in the prose
        prose(match.start())
        output = None  # as docs/run_docs.py reads a page: the output block right after the code
        if i < len(matches) and matches[i].group(1) == "output":
            output = matches[i]
            i += 1
        cells.append(_code_cell(match.group(2), None if output is None else output.group(2), len(cells)))
        pos = (output or match).end()
    prose(len(text))
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}}


def write_notebooks(app: Any) -> None:
    """builder-inited: write the notebook of every page in ``notebook_pages``."""
    folder = Path(app.srcdir) / FOLDER
    folder.mkdir(exist_ok=True)
    for page in app.config.notebook_pages:
        notebook = page_notebook(Path(app.srcdir) / f"{page}.md")
        (folder / f"{page}.ipynb").write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")


def add_download_link(app: Any, docname: str, source: list[str]) -> None:
    """source-read: a download link under the first heading of a page that has a notebook."""
    if docname not in app.config.notebook_pages:
        return
    title, _, rest = source[0].partition("\n")
    link = (f"\n\n```{{note}}\nThis page is also a Jupyter notebook: "
            f"{{download}}`{docname}.ipynb </{FOLDER}/{docname}.ipynb>` "
            f"(its outputs are the ones shown here).\n```\n")
    source[0] = title + link + rest


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("notebook_pages", [], "env")
    app.connect("builder-inited", write_notebooks)
    app.connect("source-read", add_download_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
