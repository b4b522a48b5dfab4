"""Bad input gets a message that says what was wrong and what to do.

History files (truncated, empty, foreign JSON, newer versions), the command line's ``-p NAME=VALUE``
and ``--test-size``, files given to ``plot`` that are not models or histories, and CSV files
(missing values, other separators, a label column that is not one).
"""

from __future__ import annotations

import csv
import json
import pickle
import warnings

import numpy as np
import pytest

from lpboosting.cli import _parse_value, main
from lpboosting.colgen import History
from lpboosting.colgen.history import RoundRecord
from lpboosting.datasets import breast_cancer, load_dataset


def _record(i: int, **extra) -> RoundRecord:
    return RoundRecord(round=i, n_columns=i, primal=0.5 / i, dual=0.5 / i, gap=None if i == 1 else 1e-3,
                       edge=float("nan"), exact=True, master_seconds=0.01, pricing_seconds=0.02,
                       iterations=i, status="added", extra=dict(extra))


@pytest.fixture
def history_file(tmp_path):
    path = tmp_path / "run.json"
    History([_record(1, loss=0.3), _record(2, loss=0.2), _record(3, loss=0.1)],
            {"master": "lpboost", "status": "converged"}).save(path)
    return path


# -- History.load -------------------------------------------------------------------------------

def test_a_truncated_history_names_the_file_and_says_it_is_cut_short(history_file):
    text = history_file.read_text()
    history_file.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError) as info:
        History.load(history_file)
    message = str(info.value)
    assert str(history_file) in message
    assert "truncated" in message and "line" in message
    assert "History.save" in message or "--history" in message


def test_an_empty_history_file_says_it_is_empty(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("  \n")
    with pytest.raises(ValueError, match="is empty") as info:
        History.load(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("payload, what", [
    ([1, 2, 3], "a list"),
    ({"a": 1}, "no \"records\""),
    ({"records": {"round": 1}}, "\"records\" must be a list"),
    ({"records": [1, 2]}, "round 1 of"),
])
def test_foreign_json_is_not_a_history(tmp_path, payload, what):
    path = tmp_path / "other.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(ValueError) as info:
        History.load(path)
    message = str(info.value)
    assert str(path) in message and "not a history" in message and what in message


def test_a_model_file_is_named_as_one(tmp_path):
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"format": "lpboosting-model", "format_version": 1}))
    with pytest.raises(ValueError, match="a model file") as info:
        History.load(path)
    assert "load_model" in str(info.value)


def test_a_binary_file_is_not_a_history(tmp_path):
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps({"a": np.arange(3)}))
    with pytest.raises(ValueError, match="not a history") as info:
        History.load(path)
    assert str(path) in str(info.value)


def test_a_record_without_a_field_names_the_round_and_the_field(history_file):
    payload = json.loads(history_file.read_text())
    del payload["records"][1]["status"]
    history_file.write_text(json.dumps(payload))
    with pytest.raises(ValueError) as info:
        History.load(history_file)
    message = str(info.value)
    assert "round 2" in message and "'status'" in message and str(history_file) in message


def test_fields_of_a_newer_version_are_read_into_extra_with_a_warning(history_file):
    payload = json.loads(history_file.read_text())
    for row in payload["records"]:
        row["dual_bound"] = 0.25
    payload["records"][0]["note"] = "first"
    history_file.write_text(json.dumps(payload))
    with pytest.warns(UserWarning, match="dual_bound.*note|note.*dual_bound") as caught:
        loaded = History.load(history_file)
    assert "newer version" in str(caught[0].message)
    assert [r.extra["dual_bound"] for r in loaded] == [0.25] * 3
    assert loaded[0].extra == {"loss": 0.3, "note": "first", "dual_bound": 0.25}
    assert loaded["loss"] == [0.3, 0.2, 0.1] and loaded["note"] == ["first", None, None]
    assert [r.primal for r in loaded] == [0.5, 0.25, 0.5 / 3]


def test_a_history_saved_and_loaded_is_unchanged_and_silent(history_file, recwarn):
    loaded = History.load(history_file)
    assert loaded.meta["status"] == "converged" and loaded["loss"] == [0.3, 0.2, 0.1]
    assert not recwarn.list


# -- the command line: -p NAME=VALUE and --test-size ----------------------------------------------

def test_a_parameter_of_the_wrong_type_is_a_usage_error_before_any_work(capsys):
    assert main(["fit", "lpboost", "-p", "max_rounds=abc"]) == 2
    captured = capsys.readouterr()
    assert "train" not in captured.out  # refused before the data was read
    err = " ".join(captured.err.split())
    assert "max_rounds must be an integer >= 1, got 'abc'" in err
    assert "-p max_rounds=1000" in err


def test_a_dict_parameter_given_as_text_says_to_write_json(capsys):
    assert main(["fit", "lpboost", "-p", "oracle_params=max_depth=2"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "oracle_params must be None or a dict, got 'max_depth=2'" in err
    assert """-p oracle_params='{"max_depth": 2}'""" in err and "JSON" in err


def test_invalid_json_says_where(capsys):
    assert main(["fit", "lpboost", "-p", "oracle_params={max_depth: 2}"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "oracle_params" in err and "not valid JSON" in err and "double-quoted" in err


def test_json_values_are_read_as_dicts_and_lists(tmp_path):
    assert _parse_value('{"max_depth": 2, "min_samples_leaf": 5}') == {"max_depth": 2, "min_samples_leaf": 5}
    assert _parse_value("[1, 2.5, null]") == [1, 2.5, None]
    assert _parse_value(" 3 ") == 3 and _parse_value("none") is None and _parse_value("trees") == "trees"
    model = tmp_path / "m.pkl"
    assert main(["fit", "lpboost", "-p", "oracle=trees", "-p", 'oracle_params={"max_depth": 2}',
                 "-p", "max_rounds=3", "--quiet", "--save", str(model)]) == 0
    with model.open("rb") as fh:
        clf = pickle.load(fh)
    assert clf.oracle_params == {"max_depth": 2}
    assert all(h.tree.get_depth() <= 2 for h in clf.hypotheses_ if hasattr(h, "tree"))


@pytest.mark.parametrize("value", ["-0.2", "1", "1.5", "nan"])
def test_test_size_out_of_range_is_refused(value, capsys):
    assert main(["fit", "lpboost", "--test-size", value, "-p", "max_rounds=2", "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "train" not in captured.out
    assert "--test-size" in captured.err and "0<=x<1" in captured.err


def test_test_size_zero_fits_on_every_row(capsys):
    assert main(["fit", "lpboost", "--test-size", "0", "-p", "max_rounds=2", "--quiet"]) == 0
    assert "no test split" in capsys.readouterr().out


# -- plot: files that are not models or histories ----------------------------------------------------

def _not_models(tmp_path):
    from lpboosting.estimators import LPBoostClassifier

    X, y = breast_cancer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # three rounds do not converge, and need not
        whole = pickle.dumps(LPBoostClassifier(max_rounds=3).fit(X[:80], y[:80]))
    files = {
        "random.pkl": bytes(range(7, 250, 3)),
        "empty.pkl": b"",
        "truncated.pkl": whole[: len(whole) // 2],
        "list.pkl": pickle.dumps([1, 2, 3]),
        "notes.txt": b"these are not the droids\n",
        "other.json": b'{"rows": [1, 2]}',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return files


def test_plot_of_a_file_that_is_not_a_model_is_a_clear_error(tmp_path, capsys):
    for name in _not_models(tmp_path):
        path = tmp_path / name
        assert main(["plot", str(path), "--out", str(tmp_path / "x.png")]) == 2, name
        err = " ".join(capsys.readouterr().err.split())
        assert str(path) in err, (name, err)
        assert "fit --save" in err and "fit --history" in err, (name, err)
        assert "Traceback" not in err
    assert not (tmp_path / "x.png").exists()


def test_plot_names_what_a_foreign_pickle_holds(tmp_path, capsys):
    _not_models(tmp_path)
    assert main(["plot", str(tmp_path / "list.pkl"), "--out", str(tmp_path / "x.png")]) == 2
    assert "holds a list" in " ".join(capsys.readouterr().err.split())


def test_plot_reads_a_history_whatever_its_name(tmp_path, history_file, capsys):
    pytest.importorskip("matplotlib")
    renamed = tmp_path / "run.history"
    renamed.write_text(history_file.read_text())
    assert main(["plot", str(renamed), "--kind", "duality", "--out", str(tmp_path / "d.png")]) == 0
    assert (tmp_path / "d.png").stat().st_size > 0


# -- CSV files --------------------------------------------------------------------------------------

def _write(path, header, rows, sep=","):
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh, delimiter=sep)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _cells(n=60):
    X, y = breast_cancer()
    return [[repr(float(a)), repr(float(b)), "benign" if label > 0 else "malignant"]
            for (a, b), label in zip(X[:n, :2], y[:n])]


@pytest.mark.parametrize("sep", [";", "\t", "|", ","])
def test_the_separator_is_detected(tmp_path, sep):
    rows = _cells()
    data = load_dataset(str(_write(tmp_path / "cells.csv", ["radius", "texture", "diagnosis"], rows, sep)))
    assert data.X.shape == (60, 2)
    np.testing.assert_array_equal(data.X[:, 0], [float(r[0]) for r in rows])
    assert set(data.y) == {"benign", "malignant"}


def test_a_tab_separated_file_with_another_suffix(tmp_path):
    path = _write(tmp_path / "cells.tsv", ["radius", "texture", "diagnosis"], _cells(), "\t")
    assert load_dataset(str(path), target="diagnosis").X.shape == (60, 2)


def test_a_file_whose_separator_cannot_be_told_is_refused(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("radius texture diagnosis\n" + "".join(f"{i} {i + 1} {'ab'[i % 2]}\n" for i in range(40)))
    with pytest.raises(ValueError) as info:
        load_dataset(str(path))
    message = str(info.value)
    assert str(path) in message and "separat" in message and "comma" in message
    assert "classes" not in message


@pytest.mark.parametrize("missing", ["", "NA", "NaN"])
def test_missing_values_name_the_columns_and_rows(tmp_path, missing):
    rows = _cells()
    rows[4][1] = missing
    rows[9][1] = missing
    rows[7][0] = missing
    path = _write(tmp_path / "cells.csv", ["radius", "texture", "diagnosis"], rows)
    with pytest.raises(ValueError) as info:
        load_dataset(str(path))
    message = str(info.value)
    assert str(path) in message and "missing values" in message
    assert "'texture' (rows 5, 10)" in message and "'radius' (row 8)" in message
    assert "impute" in message and "drop" in message


def test_a_missing_label_is_named(tmp_path):
    rows = _cells()
    rows[2][2] = ""
    path = _write(tmp_path / "cells.csv", ["radius", "texture", "diagnosis"], rows)
    with pytest.raises(ValueError, match=r"'diagnosis' \(row 3\)"):
        load_dataset(str(path))


def test_a_non_numeric_feature_names_the_column_row_and_value(tmp_path):
    rows = _cells()
    rows[3][0] = "big"
    path = _write(tmp_path / "cells.csv", ["radius", "texture", "diagnosis"], rows)
    with pytest.raises(ValueError) as info:
        load_dataset(str(path), target="diagnosis")
    message = str(info.value)
    assert "'radius'" in message and "row 4" in message and "'big'" in message and "encode" in message


def test_a_label_column_with_a_class_per_row_suggests_the_separator_or_target(tmp_path):
    rows = [[r[2], r[0], r[1]] for r in _cells()]  # the label first, a continuous feature last
    path = _write(tmp_path / "cells.csv", ["diagnosis", "radius", "texture"], rows)
    with pytest.raises(ValueError) as info:
        load_dataset(str(path))
    message = str(info.value)
    assert "'texture'" in message and "60 rows" in message
    assert "--target" in message and "separator" in message
    assert "--positive" not in message
    assert set(load_dataset(str(path), target="diagnosis").y) == {"benign", "malignant"}


def test_a_file_without_a_header_says_to_add_one(tmp_path):
    path = tmp_path / "bare.csv"
    path.write_text("".join(f"{i}.5,{i},{'ab'[i % 2]}\n" for i in range(1, 30)))
    with pytest.raises(ValueError, match="header") as info:
        load_dataset(str(path))
    assert "1.5" in str(info.value)


def test_fit_reports_a_csv_with_missing_values_cleanly(tmp_path, capsys):
    rows = _cells()
    rows[0][0] = "NA"
    path = _write(tmp_path / "cells.csv", ["radius", "texture", "diagnosis"], rows, ";")
    assert main(["fit", "lpboost", "--data", str(path), "--quiet"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "'radius' (row 1)" in err and "impute" in err


@pytest.mark.parametrize("extra_field", [True, False])
def test_a_row_with_another_number_of_fields_is_named(tmp_path, extra_field):
    rows = _cells()
    rows[5] = rows[5] + ["7.5"] if extra_field else rows[5][1:]
    path = _write(tmp_path / "cells.csv", ["radius", "texture", "diagnosis"], rows)
    with pytest.raises(ValueError) as info:
        load_dataset(str(path))
    message = str(info.value)
    assert "header has 3 fields" in message and f"row 6 has {4 if extra_field else 2}" in message


def test_a_decimal_comma_is_pointed_out(tmp_path):
    rows = [[a.replace(".", ","), b.replace(".", ","), label] for a, b, label in _cells()]
    path = _write(tmp_path / "cells.csv", ["radius", "texture", "diagnosis"], rows, ";")
    with pytest.raises(ValueError, match="decimal comma") as info:
        load_dataset(str(path))
    assert "'radius'" in str(info.value)


# -- masters and oracles given as something else ---------------------------------------------------

def test_a_projection_bound_that_is_not_a_number_names_it():
    from lpboosting.masters import ERLPBoost, SoftBoost, TotalBoost

    U = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
    with pytest.raises(TypeError, match=r"SoftBoost\.project: bound must be a number \(the right-hand side "
                                        r"gamma_hat - delta.*got 'a' of type str"):
        SoftBoost(0.5, 0.1).project(U, bound="a")
    with pytest.raises(TypeError, match=r"TotalBoost\.project: bound must be a number.*got None"):
        TotalBoost(0.1).project(U, bound=None)
    with pytest.raises(ValueError, match=r"bound must be a finite number.*got nan"):
        SoftBoost(0.5, 0.1).project(U, bound=float("nan"))
    with pytest.raises(TypeError, match=r"ERLPBoost\.project: eta must be a number.*got 'x'"):
        ERLPBoost(0.5, 0.1).project(U, eta="x")
    with pytest.raises(ValueError, match=r"eta must be a finite number > 0.*got -1"):
        ERLPBoost(0.5, 0.1).project(U, eta=-1)
    # numbers of any kind are taken
    assert SoftBoost(0.5, 0.1).project(U, bound=np.float32(0.2)).status.value == "optimal"


@pytest.mark.parametrize("master, got", [("lpboost", "the string 'lpboost'"),
                                         ("SoftBoost", "the string 'SoftBoost'"),
                                         (None, "NoneType None"), (0.1, "float 0.1")])
def test_a_master_that_is_not_a_master_object_names_the_masters(master, got):
    from lpboosting import column_generation
    from lpboosting.oracles import Stumps

    X, y = np.arange(12.0).reshape(6, 2), np.array([1.0, -1.0] * 3)
    with pytest.raises(TypeError, match=rf"the master must be a master object, got {got}: pass a master object "
                                        r"such as \w+\(nu=0\.1.*; masters: LPBoost, MulticlassLPBoost, SoftBoost, "
                                        r"TotalBoost, ERLPBoost, MulticlassERLPBoost, RMBoost"):
        column_generation(master, Stumps(X, y))


def test_a_master_class_or_an_oracle_name_is_refused_with_what_to_pass():
    from lpboosting import column_generation
    from lpboosting.masters import LPBoost
    from lpboosting.oracles import Stumps

    X, y = np.arange(12.0).reshape(6, 2), np.array([1.0, -1.0] * 3)
    with pytest.raises(TypeError, match=r"got the class LPBoost \(not an object of it\): pass a master object "
                                        r"such as LPBoost\(nu=0\.1\)"):
        column_generation(LPBoost, Stumps(X, y))
    with pytest.raises(TypeError, match=r"the oracle must be an oracle object built on the training data, got "
                                        r"the string 'stumps': pass e\.g\. Stumps\(X, y\).*oracles: .*Stumps"):
        column_generation(LPBoost(0.1), "stumps")
    with pytest.raises(TypeError, match=r"got the class Stumps: pass e\.g\. Stumps\(X, y\)"):
        column_generation(LPBoost(0.1), Stumps)
