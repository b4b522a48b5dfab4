"""Bad input gets a message that says what was wrong and what to do.

History files (truncated, empty, foreign JSON, newer versions), the command line's ``-p NAME=VALUE``
and ``--test-size``, files given to ``plot`` that are not models or histories, and CSV files
(missing values, other separators, a label column that is not one).
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from lpboosting.colgen import History
from lpboosting.colgen.history import RoundRecord


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
