"""The scale benchmark's Dask mode: which configs run, and one small Dask run's row."""

from __future__ import annotations

import pytest

from lpboosting.benchmark import scale


def test_dask_runs_only_when_asked():
    assert "dask" not in scale.parse_args([]).configs
    assert scale.parse_args(["--dask"]).configs == ["dask"]
    assert scale.parse_args(["--dask", "--configs", "default"]).configs == ["default", "dask"]


def test_a_small_dask_run_reports_workers_memory_and_the_split_of_time():
    pytest.importorskip("distributed")
    r = scale._run_dask(3000, 0.2, 1e-6, 300.0, 0, 0, 20, 2, 1000)
    assert r["status"] == "converged" and r["partitions"] == 3 and len(r["worker_peak_gb"]) == 2
    assert all(g > 0 for g in r["worker_peak_gb"])
    split = r["split_seconds"]
    assert set(split) == {"check", "rows", "edges", "histograms", "master_on_client"}
    assert all(v >= 0 for v in split.values()) and split["histograms"] > 0 and split["check"] > 0
    assert 0.5 < r["test_accuracy"] <= 1.0
    row = scale.format_row(r)
    assert "2 workers, 3 partitions" in row and "check" in row


def test_columns_per_round_and_working_size_reach_each_run_and_not_the_optimum():
    assert scale.parse_args([]).columns_per_round == 20 and scale.parse_args([]).working_size is None
    args = scale.parse_args(["--columns-per-round", "50", "--working-size", "8000"])
    assert args.columns_per_round == 50 and args.working_size == 8000
    tol = 1e-6
    one = scale._run("default", 3000, 0.2, tol, 300.0, 0, 0, 1)
    many = scale._run("default", 3000, 0.2, tol, 300.0, 0, 0, 10)
    assert one["status"] == many["status"] == "converged"
    # one column a round: at most one column more than rounds (the first pricing adds one)
    assert one["columns"] <= one["rounds"] + 1 < many["columns"]
    assert many["rounds"] < one["rounds"]
    # both certified within tol of the LP's optimum over all stumps, so within 2 tol of each other
    assert abs(one["objective"] - many["objective"]) <= 2 * tol
    # 3000 rows are within 4 default working sets (every example in the model); 500 sift
    sifted = scale._run("default", 3000, 0.2, tol, 300.0, 0, 0, 10, 500)
    assert sifted["status"] == "converged" and abs(sifted["objective"] - many["objective"]) <= 2 * tol


def test_max_bins_reaches_the_binned_run():
    assert scale.parse_args([]).max_bins == 255 and scale.parse_args(["--max-bins", "16"]).max_bins == 16
    coarse = scale._run("binned", 3000, 0.2, 1e-6, 300.0, 0, 0, 10, None, 4)
    fine = scale._run("binned", 3000, 0.2, 1e-6, 300.0, 0, 0, 10, None, 255)
    assert coarse["max_bins"] == 4 and coarse["status"] == fine["status"] == "converged"
    # 4 bins hold 3 thresholds a feature: a smaller class of stumps, a soft margin no larger
    assert coarse["objective"] < fine["objective"] - 1e-6


def test_highs_options_reach_the_run_and_not_the_optimum(capsys, monkeypatch):
    assert scale.parse_args([]).highs_options == {}
    args = scale.parse_args(["--highs-options", "simplex_dual_edge_weight_strategy=1", "random_seed=3"])
    assert args.highs_options == {"simplex_dual_edge_weight_strategy": 1, "random_seed": 3}
    for bad in (["--highs-options", "no_such_option=1"], ["--highs-options", "=1"]):
        with pytest.raises(SystemExit):
            scale.parse_args(bad)
    assert "no_such_option" in capsys.readouterr().err
    import lpboosting.backends as backends

    made = []
    real = backends.get_backend

    def recorded(name, **options):
        made.append((name, options))
        return real(name, **options)

    monkeypatch.setattr(backends, "get_backend", recorded)
    tol = 1e-6
    plain = scale._run("default", 3000, 0.2, tol, 300.0, 0, 0, 20)
    assert all(not options for _, options in made)  # the session's defaults
    made.clear()
    devex = scale._run("default", 3000, 0.2, tol, 300.0, 0, 0, 20, None, 255, args.highs_options)
    assert ("highspy", args.highs_options) in made
    assert plain["status"] == devex["status"] == "converged"
    # another pricing rule, another path of bases: both certified within tol of the LP over all stumps
    assert abs(plain["objective"] - devex["objective"]) <= 2 * tol


def test_the_optimal_config_answers_every_round_with_the_optimum_and_reaches_the_same_one():
    args = scale.parse_args([])
    assert "optimal" in args.configs and args.optimal_max == 200_000
    tol = 1e-6
    early = scale._run("default", 3000, 0.2, tol, 300.0, 0, 0, 10, 500)
    optimal = scale._run("optimal", 3000, 0.2, tol, 300.0, 0, 0, 10, 500)
    assert early["status"] == optimal["status"] == "converged"
    assert early["early_rounds"] > 0 == optimal["early_rounds"]
    # both certified within tol of the LP's optimum over all stumps, so within 2 tol of each other
    assert abs(early["objective"] - optimal["objective"]) <= 2 * tol


def test_a_run_cut_short_reports_the_gap_of_its_last_round_that_has_one():
    from types import SimpleNamespace

    rounds = [SimpleNamespace(round=1, gap=0.5), SimpleNamespace(round=2, gap=0.01),
              SimpleNamespace(round=3, gap=None)]  # round 3 stopped at the solver's time limit
    assert scale._last_gap(rounds) == {"gap": 0.01, "gap_round": 2}
    assert scale._last_gap(rounds[:2]) == {"gap": 0.01, "gap_round": 2}
    assert scale._last_gap([]) == {"gap": None, "gap_round": None}
    row = {"config": "default", "n": 10, "status": "time_limit", "rounds": 3, "columns": 4, "gap": 0.01,
           "gap_round": 2, "seconds": 1.0, "master_seconds": 0.5, "pricing_seconds": 0.1, "peak_gb": 0.1}
    assert "1.0e-02 @2" in scale.format_row(row)
    assert "@" not in scale.format_row({**row, "rounds": 2})
