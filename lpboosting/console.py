"""The rich console the command line prints to (and the commands of the studies, through it).

On a terminal rich fits tables to the window; into pipes, files and CI logs it writes lines of
up to 200 columns instead of squeezing tables to 80.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["terminal_console"]


def terminal_console(stderr: bool = False) -> Any:
    """A ``rich.console.Console`` on standard output (standard error if ``stderr``)."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    console = Console(file=stream, soft_wrap=True, highlight=False)
    if not console.is_terminal:  # pipes, files and CI logs: do not squeeze tables to 80 columns
        console = Console(file=stream, soft_wrap=True, highlight=False, width=200)
    return console
