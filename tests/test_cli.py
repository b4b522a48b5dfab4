"""The `lpboosting demo` command prints a ledger consistent with the fitted model."""

from __future__ import annotations

import re

import pytest

from lpboosting.cli import main


def test_demo_ledger_and_summary(capsys):
    assert main(["demo", "--nu", "0.2"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s", line)]
    assert rows, out
    rounds = [int(r[0]) for r in rows]
    assert rounds == list(range(1, len(rows) + 1))
    assert rows[-1][-1] == "converged"
    # primal equals dual on every printed round, and the summary repeats the last one
    for r in rows:
        assert float(r[2]) == pytest.approx(float(r[3]), abs=2e-7)
    margin = float(re.search(r"soft margin\s+(\S+)", out).group(1))
    assert margin == pytest.approx(float(rows[-1][2]), abs=1e-6)
    assert float(re.search(r"final gap\s+(\S+)", out).group(1)) <= 1e-6
    test_acc = float(re.search(r"test accuracy\s+(\S+)", out).group(1))
    assert 0.85 <= test_acc <= 1.0
    assert f"after {len(rows)} rounds" in out


def test_demo_bad_option_is_a_clear_error(capsys):
    assert main(["demo", "--nu", "3"]) == 2
    assert "nu must be a fraction" in capsys.readouterr().err
    assert main(["demo", "--backend", "nope"]) == 2
    assert "unknown backend" in capsys.readouterr().err
