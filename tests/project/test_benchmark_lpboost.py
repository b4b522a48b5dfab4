"""python -m lpboosting.benchmark.lpboost: progress lines reach a pipe while the benchmark runs."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time

# The benchmark in a child process whose second timed run waits for a line on stdin: the first
# run's progress line must have reached the pipe before then, or the test never sees it.
CHILD = """
import sys
import lpboosting.benchmark.lpboost as bench

real = bench.run_path
timed = []

def run_path(instance, path, max_rounds):
    if max_rounds > 2:  # not a warm-up
        timed.append(path)
        if len(timed) == 2:
            sys.stdin.readline()
    return real(instance, path, max_rounds)

bench.run_path = run_path
bench.main(sys.argv[1:])
"""

ARGS = ["--instances", "synthetic", "--paths", "ours", "bare", "--repeats", "1",
        "--max-rounds", "500", "--pricing-repeats", "1"]
PROGRESS = re.compile(r"synthetic: (ours \(highspy\)|bare HiGHS) run 1/1: (\d+) rounds, (\w+)")


def test_progress_lines_are_flushed_while_it_runs():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *ARGS], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 120
        first = None
        while first is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                continue
            assert line is not None, "the benchmark ended first:\n" + "".join(seen) + proc.stderr.read()
            seen.append(line)
            first = PROGRESS.search(line)
        assert first is not None, "no progress line while the benchmark ran:\n" + "".join(seen)
        # the child is held inside its second run: the line came through the pipe mid-run
        assert proc.poll() is None
        assert first.group(1) == "ours (highspy)" and first.group(3) == "converged"
        proc.stdin.write("\n")
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while (line := lines.get(timeout=10)) is not None:
        seen.append(line)
    out = "".join(seen)
    runs = {m.group(1): int(m.group(2)) for m in PROGRESS.finditer(out)}
    assert set(runs) == {"ours (highspy)", "bare HiGHS"}, out
    # the progress lines' round counts are those of the final table
    for label, rounds in runs.items():
        row = re.search(rf"^\s+{re.escape(label)}\s+(\d+)\s", out, re.MULTILINE)
        assert row is not None and int(row.group(1)) == rounds, out
