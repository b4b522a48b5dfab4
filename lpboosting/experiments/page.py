"""Writing an experiment's markdown into a page: a whole file, or the page's marked block.

A page holds each experiment's generated part between two markers::

    <!-- begin softboost-synthetic -->
    ... (replaced by :func:`write_markdown`) ...
    <!-- end softboost-synthetic -->

so that the prose around the tables is written by hand and the tables are
regenerated from the cache (``lpboosting reproduce NAME --from-cache
--markdown PAGE``).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["markers", "write_markdown"]


def markers(experiment: str) -> tuple[str, str]:
    return f"<!-- begin {experiment} -->", f"<!-- end {experiment} -->"


def write_markdown(path: str | os.PathLike, experiment: str, text: str) -> str:
    """Put ``text`` into ``path``; returns ``"block"`` or ``"file"`` (what was written).

    A new file is written whole (between the markers).  An existing file must
    hold the experiment's markers once: only the block between them is
    replaced; a file without them is left alone (ValueError), so that a page
    is never overwritten by a table.
    """
    begin, end = markers(experiment)
    block = f"{begin}\n{text.rstrip()}\n{end}"
    target = Path(path)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block + "\n")
        return "file"
    page = target.read_text()
    start, stop = page.find(begin), page.find(end)
    if page.count(begin) != 1 or page.count(end) != 1 or stop < start:
        raise ValueError(f"{target} exists and does not hold the block '{begin}' ... '{end}' (once, in "
                         "that order); add the two lines where the table goes, or name a new file")
    target.write_text(page[:start] + block + page[stop + len(end):])
    return "block"
