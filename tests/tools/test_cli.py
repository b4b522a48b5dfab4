"""The command line: demo, fit, compare, export, plot, backends, and the README examples."""

from __future__ import annotations

import csv
import json
import pickle
import re
import shlex
import sys
import warnings

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from lpboosting.cli import main
from lpboosting.colgen import History
from lpboosting.datasets import breast_cancer, load_dataset
from lpboosting.estimators import LPBoostClassifier
from tests.helpers import ROOT


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


# -- fit, compare, export, plot, backends --------------------------------------------------------


def ledger_rows(out):
    return [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s", line)]


def test_fit_prints_the_ledger_and_saves_the_same_model_and_history(tmp_path, capsys):
    model, history = tmp_path / "m.pkl", tmp_path / "h.json"
    assert main(["fit", "lpboost", "--data", "breast-cancer", "-p", "nu=0.2", "--seed", "3",
                 "--save", str(model), "--history", str(history)]) == 0
    out = capsys.readouterr().out
    rows = ledger_rows(out)
    saved = History.load(history)
    assert len(rows) == len(saved) and rows[-1][-1] == "converged"
    for row, record in zip(rows, saved):
        assert float(row[2]) == pytest.approx(record.primal, abs=1e-7)
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    data = load_dataset("breast-cancer")
    X_train, X_test, y_train, y_test = train_test_split(data.X, data.y, test_size=0.25, random_state=3,
                                                        stratify=data.y)
    direct = LPBoostClassifier(nu=0.2).fit(X_train, y_train)
    assert clf.objective_ == pytest.approx(direct.objective_, abs=1e-9)
    np.testing.assert_array_equal(clf.predict(X_test), direct.predict(X_test))
    reported = float(re.search(r"test accuracy\s+(\S+)", out).group(1))
    assert reported == pytest.approx(direct.score(X_test, y_test), abs=1e-4)


def test_fit_a_csv_with_string_labels_and_a_leveraging_booster(tmp_path, capsys):
    X, y = breast_cancer()
    path = tmp_path / "cells.csv"
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["f0", "diagnosis", "f1", "f2"])
        for row, label in zip(X[:200], y[:200]):
            writer.writerow([repr(float(row[0])), "benign" if label > 0 else "malignant",
                             repr(float(row[1])), repr(float(row[2]))])
    model = tmp_path / "llm.pkl"
    assert main(["fit", "llm", "--data", str(path), "--target", "diagnosis", "-p", "n_rounds=30",
                 "--save", str(model), "--quiet"]) == 0
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    assert set(clf.classes_) == {"benign", "malignant"}
    assert "train accuracy" in capsys.readouterr().out


def test_fit_bad_input_is_a_clear_error(tmp_path, capsys):
    assert main(["fit", "lpboost", "-p", "nux=0.2"]) == 2
    assert "no parameter nux" in capsys.readouterr().err
    assert main(["fit", "lpboost", "-p", "nu=7"]) == 2
    assert "nu must be a fraction" in capsys.readouterr().err
    assert main(["fit", "lpboost", "--data", "sklearn:wine", "--positive", "9"]) == 2
    assert "its labels are 0 (class_0), 1 (class_1), 2 (class_2)" in capsys.readouterr().err
    assert main(["fit", "lpboost", "--data", str(tmp_path / "missing.csv")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_compare_writes_agreeing_rows_and_refuses_impossible_backends(tmp_path, capsys):
    out_csv, out_json = tmp_path / "c.csv", tmp_path / "c.json"
    assert main(["compare", "--data", "softboost-synthetic", "--nu", "0.3", "-b", "highspy",
                 "-b", "cvxpy:HIGHS", "--max-rounds", "12", "--csv", str(out_csv),
                 "--json", str(out_json)]) == 0
    with out_csv.open() as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["backend"], r["mode"]) for r in rows] == [
        ("highspy", "own"), ("cvxpy:HIGHS", "own"), ("highspy", "replay"), ("cvxpy:HIGHS", "replay")]
    assert all(int(r["rounds"]) == 12 for r in rows[2:])
    assert float(rows[3]["max_dev"]) <= 1e-6
    data = json.loads(out_json.read_text())
    first, second = data["objectives"]["highspy (replay)"], data["objectives"]["cvxpy:HIGHS (replay)"]
    assert len(first) == len(second) == 12
    assert np.allclose(first, second, atol=1e-6)
    assert "largest objective deviation" in capsys.readouterr().out
    assert main(["compare", "--data", "breast-cancer", "--master", "softboost", "-b", "highspy"]) == 2
    assert "installed backends that solve it" in capsys.readouterr().err
    assert main(["compare", "--data", "breast-cancer", "-b", "cvxpy:MOSEK"]) == 2
    assert "pip install mosek" in capsys.readouterr().err
    assert main(["compare", "--data", "breast-cancer", "--instance", "x"]) == 2


def test_plot_from_saved_model_and_history(tmp_path, capsys):
    model, history = tmp_path / "m.pkl", tmp_path / "h.json"
    assert main(["fit", "rmboost", "--data", "breast-cancer", "-p", "oracle=stumps", "-p",
                 "max_rounds=10", "--save", str(model), "--history", str(history), "--quiet"]) == 0
    summary, duality = tmp_path / "s.png", tmp_path / "d.png"
    assert main(["plot", str(model), "--data", "breast-cancer", "--out", str(summary)]) == 0
    assert main(["plot", str(history), "--kind", "duality", "--out", str(duality)]) == 0
    for path in (summary, duality):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a model that does not record its data (pickled by hand): the margins need --data
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    del clf.data_split_
    bare = tmp_path / "bare.pkl"
    with bare.open("wb") as fh:
        pickle.dump(clf, fh)
    assert main(["plot", str(bare), "--kind", "margins", "--out", str(tmp_path / "x.png")]) == 2
    assert "needs --data" in capsys.readouterr().err


@pytest.fixture
def drawn_margins(monkeypatch):
    """The Axes of every margin plot `lpboosting plot` draws."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lpboosting import plots

    drawn, real = [], plots.plot_margins

    def spy(*args, **kwargs):
        drawn.append(real(*args, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(plots, "plot_margins", spy)
    yield drawn
    plt.close("all")


def test_plot_margins_of_a_fitted_model_shows_train_and_test_apart(tmp_path, drawn_margins):
    model = tmp_path / "m.pkl"
    assert main(["fit", "lpboost", "--data", "breast-cancer", "-p", "nu=0.2", "--seed", "3",
                 "--save", str(model), "--quiet"]) == 0
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    data = load_dataset("breast-cancer")
    X_train, X_test, y_train, y_test = train_test_split(data.X, data.y, test_size=0.25, random_state=3,
                                                        stratify=data.y)
    # with --data naming the set it was fitted on, and without --data (the recorded one)
    for extra in (["--data", "breast-cancer"], []):
        out = tmp_path / "margins.png"
        assert main(["plot", str(model), "--kind", "margins", "--out", str(out), *extra]) == 0
        ax = drawn_margins[-1]
        labels = [line.get_label() for line in ax.get_lines()]
        assert labels[:2] == [f"train (N = {y_train.size})", f"test (N = {y_test.size})"], labels
        train, test = ax.get_lines()[:2]
        np.testing.assert_array_equal(train.get_xdata(), np.sort(clf.margins(X_train, y_train)))
        np.testing.assert_array_equal(test.get_xdata(), np.sort(clf.margins(X_test, y_test)))
        rho = [line for line in ax.get_lines() if line.get_label().startswith("rho (training)")]
        assert len(rho) == 1 and rho[0].get_xdata() == pytest.approx([clf.result_.solution.rho] * 2)
        # at most a fraction nu of the training margins lies below the training rho
        assert np.mean(clf.margins(X_train, y_train) < clf.result_.solution.rho - 1e-9) <= 0.2 + 1e-12
    # the summary's margin panel is split the same way
    assert main(["plot", str(model), "--out", str(tmp_path / "summary.png")]) == 0
    labels = [line.get_label() for line in drawn_margins[-1].get_lines()]
    assert labels[:2] == [f"train (N = {y_train.size})", f"test (N = {y_test.size})"]


def test_plot_margins_on_other_data_labels_all_its_rows(tmp_path, drawn_margins):
    data = load_dataset("breast-cancer")
    X, y = data.X, data.y
    model = tmp_path / "m.pkl"
    with model.open("wb") as fh:  # fitted and saved by hand: no record of its split
        pickle.dump(LPBoostClassifier(nu=0.2).fit(X[:300], y[:300]), fh)
    assert main(["plot", str(model), "--kind", "margins", "--data", "breast-cancer",
                 "--out", str(tmp_path / "m.png")]) == 0
    ax = drawn_margins[-1]
    cdf = ax.get_lines()[0]
    assert cdf.get_label() == f"breast-cancer, every row (N = {y.size})"
    assert not any(line.get_label().startswith(("train", "test")) for line in ax.get_lines())


def test_plot_without_matplotlib_says_what_to_install(tmp_path, capsys, monkeypatch):
    history = tmp_path / "h.json"
    assert main(["fit", "lpboost", "--data", "breast-cancer", "--history", str(history), "--quiet"]) == 0
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    assert main(["plot", str(history), "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "matplotlib, which is not installed" in err and 'pip install "lpboosting[plot]"' in err


def test_backends_table_lists_the_installed_ones(capsys):
    from lpboosting.backends import available_backends

    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    for name in available_backends():
        assert name in out


def readme_commands():
    lines = [line.strip() for line in (ROOT / "README.md").read_text().splitlines()]
    commands = []
    for i, line in enumerate(lines):
        if line.startswith("lpboosting "):
            while line.endswith("\\"):
                i += 1
                line = line[:-1] + " " + lines[i]
            commands.append(shlex.split(line.split("  #")[0])[1:])
    return commands


def test_readme_command_examples_run(tmp_path, monkeypatch, capsys):
    """Every `lpboosting ...` line of README.md runs, in order, in a fresh directory."""
    commands = readme_commands()
    assert {c[0] for c in commands} >= {"demo", "fit", "compare", "export", "plot", "backends"}
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        if argv[0] == "reproduce" or argv[0] == "bench":
            continue  # long experiments and benchmarks: run by hand, not in the tests
        assert main(argv) == 0, (argv, capsys.readouterr().err)
        out = capsys.readouterr().out
        if argv[0] == "compare" and "--data" in argv:
            # the done-when of the comparison: every objective agrees to 1e-6
            deviation = float(re.search(r"largest objective deviation: (\S+)", out).group(1))
            assert deviation <= 1e-6
    for name in ("model.pkl", "history.json", "summary.png", "duality.png", "compare.csv",
                 "models/index.json"):
        assert (tmp_path / name).is_file(), name


# -- bench: options after the benchmark's name are the benchmark's -----------------------------
def test_bench_help_after_the_name_is_the_benchmarks_own_help():
    from click.testing import CliRunner

    from lpboosting.cli import cli

    result = CliRunner().invoke(cli, ["bench", "lpboost", "--help"])
    assert result.exit_code == 0, result.output
    # argparse's help of lpboosting.benchmark.lpboost, not click's help of the group
    assert "usage: python -m lpboosting.benchmark.lpboost" in result.output
    assert "--rebuild-max-rounds" in result.output
    assert "Benchmarks: lpboost" not in result.output
    # before the name, --help is still the bench command's own help
    result = CliRunner().invoke(cli, ["bench", "--help"])
    assert result.exit_code == 0 and "Benchmarks: lpboost" in result.output


def test_reproduce_is_the_studys_command_listed_with_its_own_short_help():
    from click.testing import CliRunner

    from lpboosting.cli import StudyCommand, cli

    launcher = cli.commands["reproduce"]
    assert isinstance(launcher, StudyCommand)
    command = launcher.load()
    assert command is not launcher and command.name == "reproduce"
    # the group's listing shows what the study's command says of itself
    assert launcher.get_short_help_str(1000) == command.get_short_help_str(1000)
    result = CliRunner().invoke(cli, ["reproduce", "--help"])
    assert result.exit_code == 0 and "Usage: cli reproduce [OPTIONS]" in result.output
    assert "--from-cache" in result.output
    result = CliRunner().invoke(cli, ["reproduce", "long-servedio", "--sets", "twonorm"])
    assert result.exit_code == 2 and "--sets apply to" in result.output


def test_bench_bad_option_is_a_usage_error_code(capsys):
    assert main(["bench", "lpboost", "--no-such-option"]) == 2
    assert "--no-such-option" in capsys.readouterr().err


# -- fit: the progress bar on a terminal -------------------------------------------------------
def test_fit_progress_bar_counts_rounds_not_the_round_cap(monkeypatch):
    import io

    from rich.console import Console

    import lpboosting.cli as cli_module

    stream = io.StringIO()
    monkeypatch.setattr(cli_module, "_console", lambda stderr=False: Console(
        file=stream, force_terminal=True, color_system=None, width=150, soft_wrap=True))
    assert main(["fit", "lpboost", "--data", "breast-cancer", "-p", "nu=0.2", "--quiet"]) == 0
    out = stream.getvalue()
    rounds = int(re.search(r"converged after (\d+) rounds", out).group(1))
    assert rounds < 1000
    # the bar was drawn (a terminal), never as a fraction of max_rounds = 1000
    assert "/1000" not in out, out
    assert re.search(rf"round {rounds}\b", out), out  # its last frame: the real round count
    assert re.search(r"gap\s+(-?\d\.\d+e[+-]\d+|0)", out), out


# -- the ledger's numbers --------------------------------------------------------------------------
def test_the_ledger_prints_no_negative_zero():
    """A value that rounds to zero at the ledger's precision prints as 0, without a minus sign."""
    from lpboosting.colgen import RoundRecord

    record = RoundRecord(round=3, n_columns=3, primal=-4e-9, dual=-0.0, gap=-0.0, edge=-2e-8,
                         exact=True, master_seconds=0.001, pricing_seconds=0.002, iterations=7,
                         status="added")
    line = History.format_record(record)
    assert "-0.0" not in line, line
    fields = line.split()
    assert fields[2:6] == ["0.0000000", "0.0000000", "0.00e+00", "0.000000"], line
    assert len(line) == len(History.format_record(RoundRecord(
        round=3, n_columns=3, primal=0.5, dual=0.5, gap=1e-3, edge=0.25, exact=True,
        master_seconds=0.001, pricing_seconds=0.002, iterations=7, status="added")))
    # a negative value that does not round to zero keeps its sign
    assert History.format_record(RoundRecord(
        round=1, n_columns=1, primal=-0.25, dual=-0.25, gap=None, edge=-0.5, exact=True,
        master_seconds=0.0, pricing_seconds=0.0, iterations=None, status="added")).split()[2] == "-0.2500000"


def test_every_backend_name_the_listing_shows_is_accepted_by_b(capsys):
    """`lpboosting backends --all` lists names (and single solvers) that `-b NAME` accepts."""
    from lpboosting.backends import get_backend

    assert main(["backends", "--all"]) == 0
    out = capsys.readouterr().out
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.splitlines()
            if line.startswith("│")]
    names = [row[0] for row in rows] + [v for row in rows for v in row[-1].split()]
    assert "highspy:ipm" in names and "dedicated:newton" in names
    for name in names:
        get_backend(name)  # what -b does with the name: an unknown one raises UnknownBackendError
    # and on the command line: a listed single solver runs in a comparison
    assert main(["compare", "--instance", "hand-rmboost", "--no-replay",
                 "-b", "dedicated:minimax-simplex"]) == 0, capsys.readouterr().err


def test_an_inaccurate_conic_solve_is_reported_once_in_the_projects_words(capsys):
    """cvxpy's "Solution may be inaccurate" UserWarning, once per solve, stays inside the backend:
    the run says optimal_inaccurate once (SCS stopped after 25 iterations answers that way)."""
    pytest.importorskip("scs")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["fit", "lpboost", "-p", "backend=cvxpy:SCS", "-p", "nu=0.1", "-p", "max_rounds=6",
                     "-o", "max_iters=25", "--quiet", "--test-size", "0"]) == 0
    captured = capsys.readouterr()
    text = captured.out + captured.err + "".join(str(w.message) for w in caught)
    assert "may be inaccurate" not in text
    assert captured.out.count("optimal_inaccurate") == 1, captured.out


# -- what the summary says of the gap --------------------------------------------------------------
def test_demo_with_an_inexact_oracle_says_the_gap_is_not_certified(capsys):
    assert main(["demo", "--oracle", "trees", "--max-rounds", "4"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"final gap\s+n/a \(inexact oracle\)", out), out
    assert "nan" not in out


@pytest.mark.parametrize("algorithm, params", [("llm", ["max_rounds=5"]), ("lld", ["max_rounds=5"]),
                                               ("bounded-loss", ["max_rounds=3"])])
def test_the_leveraging_boosters_summary_says_nothing_of_a_gap(capsys, algorithm, params):
    """They are not LP masters: no gap at all, not a gap that an inexact oracle left unknown."""
    argv = ["fit", algorithm, "--quiet"] + [item for p in params for item in ("-p", p)]
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "train accuracy" in out and "gap" not in out, out


# -- JSON models, leveraging models and more than two classes ----------------------------------------
def test_fit_save_json_writes_the_json_model_format_and_plot_draws_it(tmp_path, capsys, drawn_margins,
                                                                     monkeypatch):
    from lpboosting import load_model

    model = tmp_path / "m.json"
    assert main(["fit", "lpboost", "--data", "breast-cancer", "-p", "nu=0.2", "--seed", "3",
                 "--save", str(model), "--quiet"]) == 0
    assert "lpboosting.load_model reads it" in capsys.readouterr().out
    clf = load_model(model)  # the JSON model format, not a pickle
    data = load_dataset("breast-cancer")
    X_train, X_test, y_train, y_test = train_test_split(data.X, data.y, test_size=0.25, random_state=3,
                                                        stratify=data.y)
    direct = LPBoostClassifier(nu=0.2, multiclass="one-vs-rest").fit(X_train, y_train)
    np.testing.assert_array_equal(clf.predict(X_test), direct.predict(X_test))
    for kind in ("summary", "duality", "timing", "margins"):
        assert main(["plot", str(model), "--kind", kind, "--out", str(tmp_path / f"{kind}.png")]) == 0, \
            capsys.readouterr().err
    # the split recorded in the JSON file: training and test margins apart
    labels = [line.get_label() for line in drawn_margins[-1].get_lines()]
    assert labels[:2] == [f"train (N = {y_train.size})", f"test (N = {y_test.size})"]
    # JSON does not carry the final distribution: said, with the kinds that apply
    assert main(["plot", str(model), "--kind", "distribution", "--out", str(tmp_path / "d.png")]) == 2
    err = capsys.readouterr().err
    assert "JSON" in err and "History" not in err and "summary, duality, margins, timing" in err
    # a leveraging booster in JSON too, drawn with what applies to it
    booster = tmp_path / "moda.json"
    assert main(["fit", "modaboost", "-p", "max_rounds=5", "--save", str(booster), "--quiet"]) == 0
    assert type(load_model(booster)).__name__ == "ModaBoostClassifier"
    assert main(["plot", str(booster), "--out", str(tmp_path / "moda.png")]) == 0, capsys.readouterr().err
    # a fitted model the format cannot hold: a usage error naming the pickle kept instead (the fit
    # is not lost), and no JSON file
    import lpboosting.model_io

    def refuse(estimator):
        raise TypeError("a fitted attribute holding a function cannot be written as JSON")

    monkeypatch.setattr(lpboosting.model_io, "model_to_dict", refuse)
    assert main(["fit", "lpboost", "--save", str(tmp_path / "x.json"), "--quiet"]) == 2
    assert "saved as a pickle instead, x.pkl" in capsys.readouterr().err.replace(str(tmp_path) + "/", "")
    assert not (tmp_path / "x.json").exists()
    with open(tmp_path / "x.pkl", "rb") as fh:
        kept = pickle.load(fh)
    assert type(kept).__name__ == "LPBoostClassifier" and kept.n_estimators_ > 0


def test_plot_draws_what_applies_to_a_leveraging_model(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    for algorithm, has_margins in (("llm", True), ("modaboost", False)):
        model = tmp_path / f"{algorithm}.pkl"
        assert main(["fit", algorithm, "-p", "max_rounds=5", "--save", str(model), "--quiet"]) == 0
        capsys.readouterr()
        for kind in ("summary", "duality", "timing") + (("margins",) if has_margins else ()):
            out = tmp_path / f"{algorithm}-{kind}.png"
            assert main(["plot", str(model), "--kind", kind, "--out", str(out)]) == 0, \
                (algorithm, kind, capsys.readouterr().err)
            assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert main(["plot", str(model), "--kind", "distribution", "--out", str(tmp_path / "x.png")]) == 2
        err = capsys.readouterr().err
        assert "not an LP master" in err and "History" not in err
        if not has_margins:
            assert main(["plot", str(model), "--kind", "margins", "--out", str(tmp_path / "x.png")]) == 2
            assert "has no margins" in capsys.readouterr().err


def test_fit_reports_more_than_two_classes_one_vs_rest(tmp_path, capsys):
    model = tmp_path / "iris.pkl"
    assert main(["fit", "lpboost", "--data", "sklearn:iris", "-p", "nu=0.2", "-p", "multiclass=one-vs-rest",
                 "--seed", "1", "--save", str(model)]) == 0
    out = capsys.readouterr().out
    assert "3 classes, fitted one-vs-rest" in out
    assert [line for line in out.splitlines() if line.startswith("-- class")] == [
        "-- class 0 against the rest", "-- class 1 against the rest", "-- class 2 against the rest"]
    assert re.search(r"final gap by class\s+0: \S+, 1: \S+, 2: \S+", out), out
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    assert list(clf.classes_) == [0, 1, 2]
    data = load_dataset("sklearn:iris", multiclass=True)
    X_train, X_test, y_train, y_test = train_test_split(data.X, data.y, test_size=0.25, random_state=1,
                                                        stratify=data.y)
    direct = LPBoostClassifier(nu=0.2, multiclass="one-vs-rest").fit(X_train, y_train)
    np.testing.assert_array_equal(clf.predict(X_test), direct.predict(X_test))
    reported = float(re.search(r"test accuracy\s+(\S+)", out).group(1))
    assert reported == pytest.approx(direct.score(X_test, y_test), abs=1e-4)
    # plot draws one class's model, named with --class
    pytest.importorskip("matplotlib")
    assert main(["plot", str(model), "--out", str(tmp_path / "s.png")]) == 2
    assert "--class LABEL (one of 0, 1, 2)" in capsys.readouterr().err
    assert main(["plot", str(model), "--class", "1", "--out", str(tmp_path / "s.png")]) == 0


def test_positive_names_a_class_by_its_name(tmp_path, capsys):
    model = tmp_path / "setosa.pkl"
    assert main(["fit", "lpboost", "--data", "sklearn:iris", "--positive", "setosa", "--save", str(model),
                 "--quiet", "--test-size", "0"]) == 0
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    data = load_dataset("sklearn:iris", multiclass=True)
    np.testing.assert_array_equal(clf.predict(data.X), np.where(data.y == 0, 1, -1))  # separable
    assert main(["fit", "lpboost", "--data", "sklearn:iris", "--positive", "setosae"]) == 2
    assert "its labels are 0 (setosa), 1 (versicolor), 2 (virginica)" in capsys.readouterr().err


def test_fit_reports_one_lp_over_more_than_two_classes(tmp_path, capsys):
    model = tmp_path / "iris.pkl"
    assert main(["fit", "lpboost", "--data", "sklearn:iris", "-p", "nu=0.2", "--seed", "1",
                 "--save", str(model)]) == 0
    out = capsys.readouterr().out
    assert "3 classes (0, 1, 2), fitted by one LP over all of them" in out
    assert not [line for line in out.splitlines() if line.startswith("-- class")]
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    assert not hasattr(clf, "one_vs_rest_") and clf.distribution_.shape[1] == 3
    pytest.importorskip("matplotlib")
    assert main(["plot", str(model), "--out", str(tmp_path / "s.png")]) == 0
    assert main(["export", "--model", str(model), "--out", str(tmp_path / "m.mps")]) == 0
