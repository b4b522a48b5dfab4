"""The catalog of certified master instances in models/ (lpboosting.catalog).

(a) every installed backend that can solve an instance reproduces its certified objective;
(b) rebuilding the catalog gives the same index and the same arrays (the data exactly, the solved
    values within the instances' tolerance: another release of a solver may differ in the last
    bits), and the same MPS files: byte for byte with the HiGHS version that wrote them (index.json
    records it), the same model read back with any other;
(c) every MPS file, read back by HiGHS, solves to the certified objective, with its names;
(d) the hand instances' objectives are their closed forms;
(e) the index is well formed and its files exist;
(f) the catalog is read from the checkout's models/ or the installed copy, and a missing one is
    reported with the path looked for and what to do.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from lpboosting import catalog
from lpboosting.backends import available_backends, known_backends
from lpboosting.catalog import (
    EXCLUDED_BACKENDS,
    REQUIRED_KEYS,
    CatalogNotFoundError,
    build_catalog,
    capable_backends,
    default_directory,
    export_directory,
    load_columns,
    load_index,
    master_for,
    solve_entry,
    verify_catalog,
)
from lpboosting.masters.rmboost import minimax_objective
from tests.helpers import ROOT

MODELS = default_directory()
REPOSITORY_MODELS = ROOT / "models"
INDEX = load_index(MODELS)
ENTRIES = {entry["name"]: entry for entry in INDEX}
PAIRS = [(entry["name"], backend) for entry in INDEX for backend in capable_backends(entry)]
LP_MASTERS = {"LPBoost", "RMBoost"}
ENTROPY_MASTERS = {"SoftBoost", "TotalBoost", "ERLPBoost"}


# -- (a) every capable backend agrees with the certified objective ------------------------

@pytest.mark.parametrize("name, backend", PAIRS, ids=[f"{n}-{b}" for n, b in PAIRS])
def test_backend_reproduces_the_certified_objective(name, backend):
    entry = ENTRIES[name]
    value = solve_entry(entry, MODELS, backend)
    assert abs(value - entry["objective"]) <= entry["tolerance"], (value, entry["objective"])


def test_every_entry_is_checked_by_several_backends():
    for entry in INDEX:
        backends = capable_backends(entry)
        # the library's default backend of the master is always among them
        assert master_for(entry).default_backend in backends, entry["name"]
        assert len(backends) >= 2, entry["name"]
        general = set(available_backends(entry["kind"]))
        assert set(backends) - general == ({"dedicated"} - general
                                           if master_for(entry).name == "RMBoost" else set())


def test_exclusions_are_documented_and_refer_to_real_pairs():
    for (name, backend), reason in EXCLUDED_BACKENDS.items():
        assert name in ENTRIES, name
        assert backend in known_backends(), backend
        assert len(reason) > 40 and backend.split(":")[-1] in reason
        assert backend not in capable_backends(ENTRIES[name])


def test_verify_catalog_flags_a_wrong_objective(tmp_path):
    for path in MODELS.iterdir():
        if path.suffix in (".npz", ".json"):
            shutil.copy(path, tmp_path / path.name)
    rows = verify_catalog(tmp_path, backends=["highspy", "dedicated"])
    # each entry is an LP (highspy) or a projection (dedicated); RMBoost's LP is solved by both
    n_rmboost = sum(entry["master"] == "RMBoost" for entry in INDEX)
    assert n_rmboost >= 1 and len(rows) == len(INDEX) + n_rmboost
    assert all(ok for *_, ok in rows), rows
    entries = load_index(tmp_path)
    entries[0]["objective"] += 10 * entries[0]["tolerance"]
    (tmp_path / "index.json").write_text(json.dumps(entries), encoding="utf-8")
    rows = verify_catalog(tmp_path, backends=["highspy", "dedicated"])
    assert entries[0]["master"] != "RMBoost"
    assert [ok for *_, ok in rows] == [False] + [True] * (len(INDEX) + n_rmboost - 1)


# -- (b) the export is deterministic --------------------------------------------------------

@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    directory = tmp_path_factory.mktemp("catalog")
    return directory, build_catalog(directory)


#: how far a rebuilt solver value may move under another release of numpy, HiGHS or the dedicated
#: solver: the instances' own tolerance (every backend must reproduce the objective to it; the
#: certificates at build time are 1e-9 to 1e-7, so two certified builds agree well within it)
REBUILD_TOLERANCE = catalog.TOLERANCE


def _same_within(new, old, tol, where=""):
    """Structure, strings and integers equal; floats within ``tol`` (solver output is not bit-exact)."""
    if isinstance(old, dict):
        assert isinstance(new, dict) and sorted(new) == sorted(old), where
        for key in old:
            _same_within(new[key], old[key], tol, f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for k, (a, b) in enumerate(zip(new, old)):
            _same_within(a, b, tol, f"{where}[{k}]")
    elif isinstance(old, float) and not isinstance(old, bool):
        assert isinstance(new, (int, float)) and abs(new - old) <= tol, (where, new, old)
    else:
        assert new == old, (where, new, old)


def test_rebuild_gives_the_same_index(rebuilt):
    directory, entries = rebuilt
    assert entries == load_index(directory)
    assert [e["name"] for e in entries] == [e["name"] for e in INDEX]
    installed = catalog.highs_version()
    for new, old in zip(entries, INDEX):
        assert abs(new["objective"] - old["objective"]) <= REBUILD_TOLERANCE, new["name"]
        # the rebuild records the HiGHS that wrote its MPS files
        assert new["highs_version"] == (installed if new["mps"] is not None else None), new["name"]
        # everything but the measured certificate diagnostics (and the writer's version when
        # another HiGHS is installed) is the same: texts and counts equal, solver values (the
        # objective, a projection's edge bound and d) within the instances' tolerance
        skip = ("certificate",) + (() if old["highs_version"] == installed else ("highs_version",))
        _same_within({k: v for k, v in new.items() if k not in skip},
                     {k: v for k, v in old.items() if k not in skip}, REBUILD_TOLERANCE, new["name"])


def test_rebuild_gives_the_same_arrays(rebuilt):
    directory, entries = rebuilt
    for entry in entries:
        new, old = load_columns(entry, directory), load_columns(entry, MODELS)
        assert sorted(new) == sorted(old), entry["name"]
        for key in old:
            assert new[key].dtype == old[key].dtype, (entry["name"], key)
            if key == "d":  # a projection's optimal distribution, as solved: within the tolerance
                np.testing.assert_allclose(new[key], old[key], rtol=0, atol=REBUILD_TOLERANCE,
                                           err_msg=f"{entry['name']} {key}")
            else:  # the instance itself (columns, labels, stumps) is data: the same, exactly
                assert np.array_equal(new[key], old[key]), (entry["name"], key)
        if entry["mps"] is not None:
            assert (directory / entry["mps"]).stat().st_size > 0


# -- (c) the MPS files -----------------------------------------------------------------------

MPS_ENTRIES = [e["name"] for e in INDEX if e["mps"] is not None]


def _read_mps(path):
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    return h


def _model_arrays(h):
    lp = h.getLp()
    a = lp.a_matrix_
    return {"col_names": list(lp.col_names_), "row_names": list(lp.row_names_), "sense": lp.sense_,
            "offset": lp.offset_, "start": np.asarray(a.start_), "index": np.asarray(a.index_),
            **{key: np.asarray(getattr(lp, key)) for key in (
                "col_cost_", "col_lower_", "col_upper_", "row_lower_", "row_upper_")},
            "value": np.asarray(a.value_)}


@pytest.mark.parametrize("name", MPS_ENTRIES)
def test_rebuild_gives_the_same_mps_file(rebuilt, name):
    directory, _ = rebuilt
    entry = ENTRIES[name]
    new, old = directory / entry["mps"], MODELS / entry["mps"]
    if entry["highs_version"] == catalog.highs_version():
        # the HiGHS that wrote the committed file writes it again, byte for byte
        assert new.read_bytes() == old.read_bytes()
        return
    # another HiGHS may format numbers differently: the models read back are the same LP, with
    # the same names, structure and bounds, and numbers equal to 1e-14 relative (a writer that
    # rounds to 15 significant digits stays within that)
    a, b = _model_arrays(_read_mps(new)), _model_arrays(_read_mps(old))
    for key in a:
        if isinstance(a[key], np.ndarray) and a[key].dtype.kind == "f":
            np.testing.assert_allclose(a[key], b[key], rtol=1e-14, atol=0, err_msg=key)
        elif isinstance(a[key], np.ndarray):
            assert np.array_equal(a[key], b[key]), key
        else:
            assert a[key] == b[key], key


@pytest.mark.parametrize("name", MPS_ENTRIES)
def test_mps_file_solves_to_the_certified_objective(name):
    import highspy

    entry = ENTRIES[name]
    h = _read_mps(MODELS / entry["mps"])
    n, t = entry["n"], entry["t"]
    lp = h.getLp()
    if entry["master"] == "LPBoost":  # capped edge game: d (n) and gamma; sum d = 1 and t edge rows
        assert (h.getNumCol(), h.getNumRow()) == (n + 1, t + 1)
        assert list(lp.col_names_) == [f"d_{i}" for i in range(n)] + ["gamma"]
        assert list(lp.row_names_) == ["sum_d"] + [f"edge_{j}" for j in range(t)]
        expected_offset = 0.0
    else:  # RMBoost primal (16): mu+ and mu- per column, rows margin <= 1/2 and >= -1/2, offset 1/2
        assert (h.getNumCol(), h.getNumRow()) == (2 * t, 2 * n)
        assert list(lp.col_names_) == ([f"mu_plus_{j}" for j in range(t)]
                                       + [f"mu_minus_{j}" for j in range(t)])
        assert list(lp.row_names_) == [f"upper_{i}" for i in range(n)] + [f"lower_{i}" for i in range(n)]
        expected_offset = 0.5
    offset = h.getObjectiveOffset()
    offset = offset[1] if isinstance(offset, tuple) else offset  # (status, value) in highspy 1.15
    assert offset == expected_offset  # the MPS keeps RMBoost's offset (RHS of the objective row)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    value = h.getInfo().objective_function_value
    assert abs(value - entry["objective"]) <= entry["tolerance"], (value, entry["objective"])


# -- (d) hand instances ------------------------------------------------------------------------

def test_hand_lpboost_is_its_closed_form():
    entry = ENTRIES["hand-lpboost"]
    U = load_columns(entry, MODELS)["U"]
    assert np.array_equal(U, [[1, -1], [-1, 1], [1, 1]])
    nu = Fraction(entry["params"]["nu"]).limit_denominator(100)
    c = 1 / (3 * nu)
    assert (nu, c) == (Fraction(4, 5), Fraction(5, 12))
    assert entry["objective"] == float(1 - 2 * c) == 1 / 6
    assert entry["d"] == [float(c), float(c), float(1 - 2 * c)]
    solution = master_for(entry).solve(U, backend="highspy")
    assert solution.objective == pytest.approx(1 / 6, abs=1e-12)
    np.testing.assert_allclose(solution.distribution, entry["d"], atol=1e-12)
    # the primal point of the description attains the value: w = (1/2, 1/2), rho = 1, psi = (1, 1, 0)
    margins = U @ np.array([0.5, 0.5])
    assert 1 - float(c) * np.maximum(1 - margins, 0).sum() == pytest.approx(1 / 6, abs=1e-15)


def test_hand_rmboost_is_its_closed_form():
    entry = ENTRIES["hand-rmboost"]
    U = load_columns(entry, MODELS)["U"]
    assert np.array_equal(U, [[1, 1], [1, -1], [-1, 1]])
    lam = Fraction(entry["params"]["lam"]).limit_denominator(100)
    assert lam == Fraction(1, 10)
    assert entry["objective"] == float(Fraction(1, 3) + lam / 2) == 23 / 60
    assert master_for(entry).solve(U, backend="highspy").objective == pytest.approx(23 / 60, abs=1e-12)
    # the mu of the description is feasible and attains the closed form
    mu = np.array([0.25, 0.25])
    assert np.max(np.abs(U @ mu)) <= 0.5
    assert minimax_objective(U, mu, float(lam)) == pytest.approx(23 / 60, abs=1e-15)


def test_independent_certificates_on_the_hand_instances():
    U = load_columns(ENTRIES["hand-lpboost"], MODELS)["U"]
    cert = catalog.certify_lpboost(U, 0.8)
    assert cert["value"] == pytest.approx(1 / 6, abs=1e-12)
    # a different nu moves the optimum to 1 - 2c with c = 1/(3 nu): the certificate is not a constant
    assert catalog.certify_lpboost(U, 0.9)["value"] == pytest.approx(1 - 2 / 2.7, abs=1e-12)
    U = load_columns(ENTRIES["hand-rmboost"], MODELS)["U"]
    assert catalog.certify_rmboost(U, 0.2)["value"] == pytest.approx(1 / 3 + 0.1, abs=1e-12)


# -- (e) the index and its files ----------------------------------------------------------------

def test_index_is_well_formed():
    text = (MODELS / "index.json").read_text(encoding="utf-8")
    assert text == json.dumps(INDEX, sort_keys=True, indent=2, allow_nan=False) + "\n"
    assert len(INDEX) >= 8
    assert len(ENTRIES) == len(INDEX)  # unique names
    assert {"LPBoost", "RMBoost", "SoftBoost", "ERLPBoost"} <= {e["master"] for e in INDEX}
    for entry in INDEX:
        missing = [key for key in REQUIRED_KEYS if key not in entry]
        assert not missing, (entry.get("name"), missing)
        assert entry["master"] in LP_MASTERS | ENTROPY_MASTERS
        assert entry["kind"] == ("lp" if entry["master"] in LP_MASTERS else "exp_cone")
        assert entry["kind"] == master_for(entry).kind
        assert (entry["mps"] is not None) == (entry["kind"] == "lp")
        if entry["mps"] is None:
            assert entry["highs_version"] is None
        else:  # the HiGHS that wrote the file, as Highs.version() gives it
            assert entry["highs_version"].count(".") == 2, entry["highs_version"]
        assert isinstance(entry["objective"], float) and np.isfinite(entry["objective"])
        assert 0 < entry["tolerance"] <= 1e-6
        assert entry["certified_by"] and entry["description"].endswith(".")
        if entry["master"] in ("SoftBoost", "TotalBoost"):
            assert "bound" in entry["params"]
        if entry["master"] == "ERLPBoost":
            assert entry["params"]["eta"] == master_for(entry).eta(entry["n"])


def test_files_exist_and_match_the_index():
    for entry in INDEX:
        path = MODELS / entry["columns"]
        assert path.is_file() and path.stat().st_size < 300_000, entry["name"]
        if entry["mps"] is not None:
            assert (MODELS / entry["mps"]).is_file()
        arrays = load_columns(entry, MODELS)
        U = arrays["U"]
        assert U.shape == (entry["n"], entry["t"]) and np.all(np.isfinite(U))
        assert np.max(np.abs(U)) <= 1.0
        if "H" in arrays:
            y = arrays["y"]
            assert set(np.unique(y)) <= {-1.0, 1.0}
            assert np.array_equal(y[:, None] * arrays["H"], U)
        if "d" in arrays:  # entropy instances: the unique optimal distribution
            d = arrays["d"]
            assert d.shape == (entry["n"],) and abs(d.sum() - 1) <= 1e-12 and d.min() >= 0
            assert d.max() <= master_for(entry).cap(entry["n"]) + 1e-12
            if "bound" in entry["params"]:
                assert np.max(d @ U) <= entry["params"]["bound"] + 1e-9


# -- where the catalog is read and written ---------------------------------------------

def test_default_directory_is_the_catalog_of_this_install():
    package = Path(catalog.__file__).resolve().parent
    assert MODELS.name == "models" and (MODELS / "index.json").is_file()
    if (package.parent / "pyproject.toml").is_file():  # a source checkout: its models/
        assert MODELS == package.parent / "models"
    else:  # an installed package: the copy it carries
        assert MODELS == package / "models"
        if REPOSITORY_MODELS.is_dir():  # tests run next to the repository: the same files
            for path in REPOSITORY_MODELS.iterdir():
                assert (MODELS / path.name).read_bytes() == path.read_bytes(), path.name


def test_an_installed_package_reads_its_own_copy_and_writes_to_the_working_directory(
        tmp_path, monkeypatch):
    site = tmp_path / "site-packages" / "lpboosting"
    monkeypatch.setattr(catalog, "__file__", str(site / "catalog.py"))
    monkeypatch.chdir(tmp_path)
    assert default_directory() == site / "models"
    assert export_directory() == tmp_path / "models"


def test_a_missing_catalog_says_what_was_looked_for_and_what_to_do(tmp_path):
    with pytest.raises(CatalogNotFoundError) as info:
        load_index(tmp_path / "nowhere")
    message = str(info.value)
    assert str(tmp_path / "nowhere" / "index.json") in message
    assert "--models-dir" in message and "lpboosting export --out DIR" in message
    assert "Errno" not in message


def test_a_missing_columns_file_names_it(tmp_path):
    shutil.copy(MODELS / "index.json", tmp_path / "index.json")
    entry = load_index(tmp_path)[0]
    with pytest.raises(CatalogNotFoundError, match=f"{entry['columns']} does not exist"):
        load_columns(entry, tmp_path)


@pytest.mark.parametrize("how", ["default", "--models-dir"])
def test_compare_without_a_catalog_is_a_clear_error(how, tmp_path, monkeypatch, capsys):
    from lpboosting.cli import main

    missing = tmp_path / "no-catalog"
    args = ["compare", "--instance", "hand-lpboost"]
    if how == "default":
        monkeypatch.setattr(catalog, "default_directory", lambda: missing)
    else:
        args += ["--models-dir", str(missing)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"no model catalog at {missing}" in err and "Errno" not in err, err
