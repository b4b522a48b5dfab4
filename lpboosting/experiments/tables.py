"""Small helpers shared by the reproductions' tables: means, deviations, cells, markdown."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["cell", "markdown_table", "mean_std", "text_table"]


def mean_std(values: Iterable[float | None]) -> tuple[float, float, int]:
    """Mean, standard deviation (ddof 0, as numpy) and count of the finite values; NaN when none."""
    v = np.array([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if v.size == 0:
        return float("nan"), float("nan"), 0
    return float(v.mean()), float(v.std()), int(v.size)


def cell(mean: float | None, std: float | None = None, digits: int = 1, scale: float = 1.0) -> str:
    """``"12.3 ± 1.0"`` (``"—"`` for a missing or NaN mean)."""
    if mean is None or not math.isfinite(mean):
        return "—"
    text = f"{scale * mean:.{digits}f}"
    if std is not None and math.isfinite(std):
        text += f" ± {scale * std:.{digits}f}"
    return text


def text_table(header: Sequence[str], rows: Sequence[Sequence[Any]], title: str = "") -> str:
    """A plain aligned table (first column left, the others right)."""
    cols = [list(map(str, header))] + [list(map(str, r)) for r in rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    lines = [title] if title else []
    for k, r in enumerate(cols):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table (first column left, the others right)."""
    lines = ["| " + " | ".join(map(str, header)) + " |",
             "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(lines)
