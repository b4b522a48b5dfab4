"""Run the Python blocks of the documentation and check (or rewrite) their printed output.

Every fenced ``python`` block of a page runs, in order, in one namespace (the
page is a program).  A fenced ``output`` block right after a ``python`` block
holds what that block prints; ``--check`` (the default, used by the tests)
fails when the printed text differs, ``--write`` rewrites the output blocks.
Code runs with the working directory given by ``--cwd`` (default: this
directory), so figures saved to ``figures/...`` land next to the pages.

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

BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)
HERE = Path(__file__).resolve().parent


def run_page(path: str | Path, cwd: str | Path | None = None) -> list[tuple[str, str | None, str]]:
    """Execute a page's python blocks; returns (code, expected output or None, printed output)."""
    text = Path(path).read_text()
    blocks = [(m.group(1), m.group(2)) for m in BLOCK.finditer(text)]
    namespace: dict = {"__name__": "__docs__"}
    results = []
    previous = os.getcwd()
    os.chdir(cwd or HERE)
    try:
        import matplotlib

        matplotlib.use("Agg")
        for i, (lang, code) in enumerate(blocks):
            if lang != "python":
                continue
            expected = blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "output" else None
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                exec(compile(code, f"{path}:block{i}", "exec"), namespace)
            results.append((code, expected, buffer.getvalue()))
    finally:
        os.chdir(previous)
    return results


def write_page(path: str | Path) -> None:
    """Rewrite the output blocks of a page with what its code prints now."""
    results = iter(run_page(path))
    text = Path(path).read_text()
    out, pos = [], 0
    matches = list(BLOCK.finditer(text))
    for k, m in enumerate(matches):
        if m.group(1) != "python":
            continue
        _, expected, printed = next(results)
        if expected is not None:
            nxt = matches[k + 1]
            out.append(text[pos:nxt.start()])
            out.append(f"```output\n{printed}```")
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
            write_page(page)
            print(f"wrote {page}")
            continue
        for code, expected, printed in run_page(page, args.cwd):
            if expected is not None and expected != printed:
                failed += 1
                print(f"{page}: output differs for block:\n{code}\n--- expected\n{expected}--- got\n{printed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
