"""The tree-oracle benchmark: every shape priced by both oracles, ratios from the figures it prints."""

from __future__ import annotations

import json

import pytest

from lpboosting.benchmark import trees


def test_a_small_run_prints_every_shape_and_writes_consistent_ratios(tmp_path, capsys):
    out = tmp_path / "trees.json"
    assert trees.main(["--n", "1500", "--repeats", "1", "--k", "3", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = json.loads(out.read_text())["rows"]
    assert [r["shape"] for r in rows] == [trees._label(s) for s in trees.SHAPES]
    for r in rows:
        assert r["shape"] in printed
        assert r["speedup"] == pytest.approx(r["cart_seconds"] / r["hist_seconds"])
        assert r["edge_ratio"] == pytest.approx(r["hist_edge"] / r["cart_edge"])
        # both oracles found a tree better than the constant on the twonorm weightings
        assert r["cart_edge"] > 0 and r["hist_edge"] > 0
