"""The accuracy benchmark's arithmetic: the table, the check against boosted trees, the nu sweep."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lpboosting.benchmark import accuracy
from lpboosting.estimators.cv import AUTO_ORACLES, DEFAULT_NUS


def _row(name, noise, split, errors):
    return {"set": name, "noise": noise, "split": split,
            **{m: {"error": e, "seconds": 1.0 + split, "nu": 0.5, "oracle": "stumps"} for m, e in errors.items()}}


def test_the_check_uses_the_mean_error_and_the_larger_standard_deviation():
    methods = ["LPBoostCV", "AdaBoost", "GradientBoosting"]
    rows = [_row("pima", 0.1, 0, {"LPBoostCV": 0.30, "AdaBoost": 0.20, "GradientBoosting": 0.25}),
            _row("pima", 0.1, 1, {"LPBoostCV": 0.30, "AdaBoost": 0.30, "GradientBoosting": 0.25})]
    (entry,) = accuracy.summarise(rows, methods)
    assert entry["AdaBoost"]["error"] == pytest.approx(0.25) and entry["LPBoostCV"]["std"] == 0.0
    assert entry["AdaBoost"]["std"] == pytest.approx(np.std([0.2, 0.3], ddof=1))
    # the best of theirs: AdaBoost and GradientBoosting tie at 0.25, the first listed wins
    assert entry["best_of_theirs"] == "AdaBoost"
    # 0.30 <= 0.25 + max(0, 0.0707): within
    assert entry["LPBoostCV"]["within_one_std"] is True
    assert entry["LPBoostCV"]["x_adaboost"] == pytest.approx(1.0)
    rows[1]["LPBoostCV"]["error"] = rows[0]["LPBoostCV"]["error"] = 0.33
    (entry,) = accuracy.summarise(rows, methods)
    assert entry["LPBoostCV"]["within_one_std"] is False
    assert "(error not within)" in accuracy.format_markdown([entry], methods)


def test_a_small_run_and_its_json_reloaded(tmp_path, capsys):
    out = tmp_path / "acc.json"
    assert accuracy.main(["--sets", "wdbc", "--noise", "0.2", "--splits", "2", "--methods", "LPBoostCV",
                          "AdaBoost", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert len(data["rows"]) == 2
    for row in data["rows"]:
        assert 0 <= row["LPBoostCV"]["error"] <= 1
        # which member of the auto family: the oracle and its parameters
        assert (row["LPBoostCV"]["oracle"], row["LPBoostCV"]["oracle_params"]) in AUTO_ORACLES
        assert row["AdaBoost"]["oracle"] is None and row["AdaBoost"]["oracle_params"] is None
        assert row["LPBoostCV"]["nu"] in DEFAULT_NUS
    (entry,) = data["table"]
    assert entry["LPBoostCV"]["error"] == pytest.approx(np.mean([r["LPBoostCV"]["error"] for r in data["rows"]]))
    capsys.readouterr()
    assert accuracy.main(["--from-json", str(out), "--markdown"]) == 0
    printed = capsys.readouterr().out
    assert f"{entry['LPBoostCV']['error']:.3f} ± {entry['LPBoostCV']['std']:.3f}" in printed


def test_the_nu_sweep_scores_each_nus_model_of_the_path():
    from sklearn.model_selection import train_test_split

    from lpboosting.colgen import nu_path
    from lpboosting.oracles import Stumps

    X, y = accuracy.load("wdbc")
    nus = (0.6, 0.2, 0.05)
    row = accuracy.nu_sweep("wdbc", X, y, 0.0, 0, nus)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    path = nu_path(nus, Stumps(X_tr, np.where(y_tr == 1, 1.0, -1.0)))
    for i, result in enumerate(path.results):
        f = sum(w * h.predict(X_te) for w, h in zip(result.weights, path.hypotheses) if w)
        assert row["errors"][i] == pytest.approx(np.mean((f > 0) != (y_te == 1)))
    text = accuracy.format_sweep([row], nus)
    assert text.splitlines()[-1].split()[-1] == f"{nus[int(np.argmin(row['errors']))]:g}"
