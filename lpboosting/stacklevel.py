"""Warnings that point at the user's line: the stack level of the first frame outside the package."""

from __future__ import annotations

import sys

__all__ = ["caller_level"]


def caller_level() -> int:
    """The stacklevel of a warning that points at the first frame outside this package."""
    frame, level = sys._getframe(1), 1
    package = __name__.split(".")[0]
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == package:
        frame, level = frame.f_back, level + 1
    return level
