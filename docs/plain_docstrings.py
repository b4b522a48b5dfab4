"""Read the package's docstrings as the plain text they are written in, not as reStructuredText.

The docstrings follow numpydoc's sections (read by napoleon) but write their
formulas as plain text: ``|w_m|`` is an absolute value, not a substitution;
``classes_`` is an attribute, not a hyperlink target; ``x**2`` is a power, not
the start of bold text.  Before napoleon reads a docstring, this extension
escapes those three characters outside inline literals (````...````) and
roles (``:class:`...```), so that what the site shows is what the source says.

It also leaves out the metadata-routing methods scikit-learn adds to every
estimator (``set_fit_request``, ...), documented by scikit-learn itself.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

#: inline literals, interpreted text and roles: kept as they are
LITERAL = re.compile(r"(``.+?``|(?::[\w:.-]+:)?`[^`]+`_{0,2})")
#: a word followed by "_" (an attribute such as classes_), not inside a word
TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?=[^\w]|$)")
BULLET = re.compile(r"\s*[*+-] ")
#: "(16) over ..." cites an equation; reStructuredText would start a numbered list
EQUATION_FIRST = re.compile(r"(\s*)\((\d+)\) ")
REQUEST_METHOD = re.compile(r"set_\w+_request")


def escape_plain_text(line: str) -> str:
    """``line`` with ``|``, ``*`` and a word's trailing ``_`` escaped outside literals and roles."""
    bullet = BULLET.match(line)
    if bullet:  # a list item's marker stays a marker
        return bullet.group() + escape_plain_text(line[bullet.end():])
    equation = EQUATION_FIRST.match(line)
    if equation:
        return f"{equation.group(1)}\\({equation.group(2)}) " + escape_plain_text(line[equation.end():])
    parts = LITERAL.split(line)
    for i in range(0, len(parts), 2):  # the even parts are outside literals
        text = parts[i].replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
        parts[i] = TRAILING_UNDERSCORE.sub(r"\\_", text)
    return "".join(parts)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def escape_lines(lines: list[str]) -> list[str]:
    """Every line escaped, except literal blocks (after a line ending in ``::``) and doctests."""
    out, literal_above = [], None  # the indentation of the line that opened a literal block
    for line in lines:
        if literal_above is not None and (not line.strip() or _indent(line) > literal_above):
            out.append(line)
            continue
        literal_above = _indent(line) if line.rstrip().endswith("::") else None
        out.append(line if line.lstrip().startswith(">>>") else escape_plain_text(line))
    return out


def escape_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """autodoc-process-docstring, before napoleon: escape the lines in place.  A constant
    without a docstring of its own (a dict, a tuple) gets no text, rather than its type's."""
    if what in ("data", "attribute") and type(obj).__doc__ and \
            "\n".join(lines).strip() == inspect.cleandoc(type(obj).__doc__).strip():
        lines[:] = []
        return
    lines[:] = escape_lines(lines)


def skip_request_methods(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """autodoc-skip-member: scikit-learn's generated metadata-routing methods."""
    return True if REQUEST_METHOD.fullmatch(name) else None


def setup(app: Any) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", escape_docstring, priority=100)
    app.connect("autodoc-skip-member", skip_request_methods)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
