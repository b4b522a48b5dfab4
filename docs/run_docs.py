"""Run the Python blocks of the documentation and check (or rewrite) their printed output.

Every fenced ``python`` block of a page runs, in order, in one namespace (the
page is a program).  A fenced ``output`` block right after a ``python`` block
holds what that block prints; ``--check`` (the default, used by the tests)
fails when the printed text differs, ``--write`` rewrites the output blocks.
Code runs with the working directory given by ``--cwd`` (default: this
directory), so figures saved to ``figures/...`` land next to the pages.

The check compares what is stable across releases of numpy, HiGHS and the
other solvers, not the bits (:func:`same_output`): the words and punctuation
exactly (runs of spaces count as one, since a wider number shifts a column),
integers exactly, and a printed decimal within one unit of its last printed
digit (the two runs may round on either side of it) plus ``RTOL`` of its
size (HiGHS's and the conic solvers' default feasibility and optimality
tolerances are 1e-7 to 1e-8; a printed solver value is trusted to 1e-6
relative).  Where a number depends on how ties between equally good
hypotheses are broken (which optimal vertex a solver returns, which of two
stumps with the same edge in floating point comes first), the page says so in
an HTML comment right before the output block, which the rendered page does
not show::

    <!-- output varies: rounds 2, accuracy 0.01 -->

Each ``word amount`` lets a number printed next to that word (the word
right before or right after it, punctuation skipped) differ by that amount.

    python docs/run_docs.py --write docs/tutorial-duality.md docs/user-guide.md
    python docs/run_docs.py docs/tutorial-duality.md     # check
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)
VARIES = re.compile(r"<!--\s*output varies:(.*?)-->\s*$", re.S)
TOKEN = re.compile(r"(?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)|(?P<word>[A-Za-z_]+)|(?P<space>\s+)|(?P<other>.)")
HERE = Path(__file__).resolve().parent
#: relative tolerance of a printed decimal (beyond its last printed digit): solver values are
#: trusted to 1e-6 relative (HiGHS's default feasibility tolerances are 1e-7)
RTOL = 1e-6


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) with kind number, word, space (a run of blanks, newlines kept) or other."""
    out = []
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        value = m.group()
        if kind == "space":
            value = "\n" * value.count("\n") or " "
        out.append((kind, value))
    return out


def _neighbours(tokens: list[tuple[str, str]], i: int) -> list[str]:
    """The words right before and right after token i on its line (punctuation skipped)."""
    found = []
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(tokens) and tokens[j][0] != "word" and "\n" not in tokens[j][1]:
            j += step
        if 0 <= j < len(tokens) and tokens[j][0] == "word":
            found.append(tokens[j][1])
    return found


def _last_digit(number: str) -> float:
    """One unit in the last printed digit of a decimal (0 for an integer)."""
    mantissa, _, exponent = number.lower().partition("e")
    if "." not in mantissa:
        return 10.0 ** int(exponent) if exponent else 0.0
    decimals = len(mantissa.split(".")[1])
    return 10.0 ** (int(exponent or 0) - decimals)


def parse_varies(comment: str) -> dict[str, float]:
    """``rounds 2, accuracy 0.01`` -> {"rounds": 2.0, "accuracy": 0.01}."""
    allowed = {}
    for part in filter(None, (p.strip() for p in comment.split(","))):
        word, _, amount = part.rpartition(" ")
        if not word or not re.fullmatch(r"[A-Za-z_]+", word.strip()):
            raise ValueError(f"'output varies' takes 'word amount' pairs separated by commas, got {part!r}")
        allowed[word.strip()] = float(amount)
    return allowed


def same_output(expected: str, printed: str, varies: dict[str, float] | None = None) -> str:
    """'' when ``printed`` shows what ``expected`` shows (see the module docstring), else why not."""
    varies = varies or {}
    a, b = _tokens(expected.strip()), _tokens(printed.strip())
    if [k for k, _ in a] != [k for k, _ in b]:
        return "the text differs (not only in its numbers)"
    for i, ((kind, x), (_, y)) in enumerate(zip(a, b)):
        if kind != "number":
            if x != y:
                return f"{x!r} printed as {y!r}"
            continue
        slack = max([varies.get(w, 0.0) for w in _neighbours(a, i)] + [0.0])
        if _last_digit(x) == 0.0 and _last_digit(y) == 0.0:  # integers
            if abs(int(x) - int(y)) > slack:
                return f"{x} printed as {y}"
            continue
        u, v = float(x), float(y)
        if abs(u - v) > slack + max(_last_digit(x), _last_digit(y)) + RTOL * max(abs(u), abs(v)):
            return f"{x} printed as {y}"
    return ""


class Result(NamedTuple):
    """One python block: its code, the output block after it (None if none), what it printed,
    and the numbers that may vary (the ``output varies`` comment before the output block)."""

    code: str
    expected: str | None
    printed: str
    varies: dict[str, float]

    def difference(self) -> str:
        """'' when the printed output shows what the page shows, else why not."""
        return "" if self.expected is None else same_output(self.expected, self.printed, self.varies)


class Block(NamedTuple):
    """One python block of a page: its code, the output block right after it (None if none) and
    the numbers that may vary (the ``output varies`` comment before the output block)."""

    code: str
    expected: str | None
    varies: dict[str, float]


def page_blocks(text: str) -> list[Block]:
    """The python blocks of a page's text, in order."""
    matches = list(BLOCK.finditer(text))
    blocks = []
    for i, m in enumerate(matches):
        if m.group(1) != "python":
            continue
        nxt = matches[i + 1] if i + 1 < len(matches) and matches[i + 1].group(1) == "output" else None
        varies = {}
        if nxt is not None:
            comment = VARIES.search(text[m.end():nxt.start()])
            varies = parse_varies(comment.group(1)) if comment else {}
        blocks.append(Block(m.group(2), None if nxt is None else nxt.group(2), varies))
    return blocks


def run_page(path: str | Path, cwd: str | Path | None = None) -> list[Result]:
    """Execute a page's python blocks, in order, in one namespace; one :class:`Result` each."""
    blocks = page_blocks(Path(path).read_text())
    namespace: dict = {"__name__": "__docs__"}
    results = []
    previous = os.getcwd()
    os.chdir(cwd or HERE)
    try:
        import matplotlib

        matplotlib.use("Agg")
        for i, block in enumerate(blocks):
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                exec(compile(block.code, f"{path}:block{i}", "exec"), namespace)
            results.append(Result(block.code, block.expected, buffer.getvalue(), block.varies))
    finally:
        os.chdir(previous)
    return results


def write_page(path: str | Path, cwd: str | Path | None = None) -> None:
    """Rewrite the output blocks of a page with what its code prints now."""
    results = iter(run_page(path, cwd))
    text = Path(path).read_text()
    out, pos = [], 0
    matches = list(BLOCK.finditer(text))
    for k, m in enumerate(matches):
        if m.group(1) != "python":
            continue
        result = next(results)
        if result.expected is not None:
            nxt = matches[k + 1]
            out.append(text[pos:nxt.start()])
            out.append(f"```output\n{result.printed}```")
            pos = nxt.end()
    out.append(text[pos:])
    Path(path).write_text("".join(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+")
    parser.add_argument("--write", action="store_true", help="rewrite the output blocks")
    parser.add_argument("--cwd", help="working directory of the code (default: docs/)")
    args = parser.parse_args(argv)
    failed = 0
    for page in args.pages:
        if args.write:
            write_page(page, args.cwd)
            print(f"wrote {page}")
            continue
        for result in run_page(page, args.cwd):
            why = result.difference()
            if why:
                failed += 1
                print(f"{page}: output differs ({why}) for block:\n{result.code}\n"
                      f"--- expected\n{result.expected}--- got\n{result.printed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
