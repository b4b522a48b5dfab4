"""Masters written as model files (lpboosting.export) and model files solved (solve-file).

(a) .mps and .lp exports of every LP instance of the models/ catalog, in both forms, read back by
    HiGHS, solve to the certified optimum (1e-9), with the names written;
(b) the last master of a run (LPBoost, weighted LPBoost, LPBoost with a column pool, RMBoost,
    weighted RMBoost) exported and read back solves to the run's objective (1e-9); sample weights
    give the LP of repeated rows; the dual form is the model the HiGHS session solves;
(c) the command line: `export --model` of a pickled (and a JSON) fitted classifier, `solve-file`;
(d) bad input (extension, entropy master, missing file, history, no --data, ...) is a clear error.
"""

from __future__ import annotations

import csv
import json
import pickle

import numpy as np
import pytest

import lpboosting
from lpboosting import column_generation
from lpboosting.catalog import default_directory, load_columns, load_index, master_for
from lpboosting.cli import main
from lpboosting.export import (
    ModelFileNotFoundError,
    classifier_master,
    compare_model_file,
    export_classifier,
    export_model,
    last_master_columns,
    master_lp,
)
from lpboosting.masters import ERLPBoost, LPBoost, RMBoost, SoftBoost, TotalBoost
from lpboosting.masters.pool import ColumnPool
from lpboosting.oracles import Stumps

highspy = pytest.importorskip("highspy")

MODELS = default_directory()
LP_ENTRIES = [e for e in load_index(MODELS) if e["kind"] == "lp"]
EXACT = 1e-9


def read_back(path):
    """(objective, column names, row names, offset) of a model file read and solved by HiGHS."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    lp = h.getLp()
    names = (list(lp.col_names_), list(lp.row_names_))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getInfo().objective_function_value, names[0], names[1], lp.offset_


def check_names(path, exported):
    _, cols, rows, _ = read_back(path)
    assert rows == exported.row_names
    if path.suffix == ".mps":
        assert cols == exported.col_names
    else:  # an LP file lists the columns in order of appearance (the objective first)
        assert sorted(cols) == sorted(exported.col_names)


def export_both_forms(master, U, tmp_path, stem):
    """{(form, extension): optimum read back} over both forms and both file formats."""
    values = {}
    for form in ("dual", "primal"):
        for ext in (".mps", ".lp"):
            path = tmp_path / f"{stem}-{form}{ext}"
            exported = export_model(master, U, path, form=form)
            assert exported.path == path and exported.form == form and path.stat().st_size > 0
            check_names(path, exported)
            values[form, ext] = read_back(path)[0]
    return values


def expected_names(master, N, T, form):
    if master.name == "LPBoost" and form == "dual":
        return [f"d_{n}" for n in range(N)] + ["gamma"], ["sum_d"] + [f"edge_{j}" for j in range(T)]
    if master.name == "LPBoost":
        return ([f"w_{j}" for j in range(T)] + ["rho"] + [f"psi_{n}" for n in range(N)],
                [f"margin_{n}" for n in range(N)] + ["sum_w"])
    rows = np.flatnonzero(master.constrained(N))
    if form == "primal":
        return ([f"mu_plus_{j}" for j in range(T)] + [f"mu_minus_{j}" for j in range(T)],
                [f"upper_{i}" for i in rows] + [f"lower_{i}" for i in rows])
    return ([f"alpha_{i}" for i in rows] + [f"beta_{i}" for i in rows],
            [f"edge_plus_{j}" for j in range(T)] + [f"edge_minus_{j}" for j in range(T)])


# -- (a) the catalog's LP instances ----------------------------------------------------------------

@pytest.mark.parametrize("name", [e["name"] for e in LP_ENTRIES])
def test_catalog_instance_exports_solve_to_the_certified_optimum(name, tmp_path):
    entry = next(e for e in LP_ENTRIES if e["name"] == name)
    U = load_columns(entry, MODELS)["U"]
    master = master_for(entry)
    values = export_both_forms(master, U, tmp_path, name)
    for key, value in values.items():
        assert abs(value - entry["objective"]) <= EXACT, (key, value, entry["objective"])
    for form in ("dual", "primal"):
        exported = export_model(master, U, tmp_path / f"names-{form}.mps", form=form)
        assert (exported.col_names, exported.row_names) == expected_names(master, *U.shape, form)


def test_the_default_forms_are_the_ones_the_backends_solve(tmp_path):
    U = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
    assert export_model(LPBoost(0.8), U, tmp_path / "a.mps").form == "dual"
    assert export_model(RMBoost(0.1), U, tmp_path / "b.mps").form == "primal"
    # RMBoost's offset 1/2 is kept by the file, so the optimum read back is R itself
    value, _, _, offset = read_back(tmp_path / "b.mps")
    assert offset == 0.5 and abs(value - 23 / 60) <= EXACT
    assert lpboosting.export_model is export_model


def test_the_lpboost_dual_is_the_model_of_the_highs_session():
    from lpboosting.backends import HighspyBackend

    U = load_columns(next(e for e in LP_ENTRIES if e["name"] == "lpboost-cancer-round10"), MODELS)["U"]
    master = LPBoost(0.1)
    session = HighspyBackend("rows").open(master, U.shape[0])
    for column in U.T:
        session.add_column(column)
    live, ours = session.model.getLp(), master_lp(master, U)
    for key in ("col_cost_", "col_lower_", "col_upper_", "row_lower_", "row_upper_"):
        assert np.array_equal(np.asarray(getattr(live, key)), np.asarray(getattr(ours, key))), key
    dense = []
    for lp in (live, ours):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.passModel(lp)
        A = np.zeros((lp.num_row_, lp.num_col_))
        m = h.getLp().a_matrix_
        for j in range(lp.num_col_):
            for k in range(m.start_[j], m.start_[j + 1]):
                A[m.index_[k], j] = m.value_[k]
        dense.append(A)
    assert np.array_equal(dense[0], dense[1])


def solve_lp(lp):
    """(objective, column values, row duals) of a HighsLp solved by HiGHS."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.passModel(lp) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    solution = h.getSolution()
    return (h.getInfo().objective_function_value, np.asarray(solution.col_value),
            np.asarray(solution.row_dual))


@pytest.mark.parametrize("name", ["hand-lpboost", "lpboost-cancer-round10", "hand-rmboost",
                                  "rmboost-cancer-stumps"])
def test_the_row_duals_of_one_form_solve_the_other(name):
    """The signs of the module docstring: each form's row duals (as HiGHS reports them) are an
    optimal point of the other form (the optimal points need not be unique, so their objective
    and feasibility are checked, not their values)."""
    from lpboosting.masters.lpboost import soft_margin
    from lpboosting.masters.rmboost import minimax_objective

    entry = next(e for e in LP_ENTRIES if e["name"] == name)
    U = load_columns(entry, MODELS)["U"]
    N, T = U.shape
    master = master_for(entry)
    optimum = entry["objective"]
    primal_value, _, primal_duals = solve_lp(master_lp(master, U, "primal"))
    dual_value, _, dual_duals = solve_lp(master_lp(master, U, "dual"))
    assert abs(primal_value - optimum) <= EXACT and abs(dual_value - optimum) <= EXACT
    if master.name == "LPBoost":
        d, gamma = -primal_duals[:N], primal_duals[N]            # margin_n: -d_n, sum_w: gamma
        assert abs(d.sum() - 1) <= EXACT and d.min() >= -EXACT
        assert d.max() <= master.cap(N) + EXACT
        assert abs(np.max(d @ U) - optimum) <= EXACT and abs(gamma - optimum) <= EXACT
        w, rho = -dual_duals[1:], dual_duals[0]                  # edge_j: -w_j, sum_d: rho
        assert abs(w.sum() - 1) <= EXACT and w.min() >= -EXACT
        assert abs(soft_margin(U @ np.maximum(w, 0), master.nu) - optimum) <= 1e-8
        assert rho >= optimum - EXACT
    else:
        lam = master.lam_for(N)
        alpha, beta = -primal_duals[:N], primal_duals[N:]        # upper_i: -alpha_i, lower_i: beta_i
        assert min(alpha.min(), beta.min()) >= -EXACT
        assert np.max(np.abs((1 / N - alpha + beta) @ U)) <= lam + EXACT
        assert abs(0.5 * (1 - alpha.sum() - beta.sum()) - optimum) <= EXACT
        mu = dual_duals[:T] - dual_duals[T:]                     # edge_plus/minus_j: mu_plus/minus_j
        assert min(dual_duals.min(), 0.0) >= -EXACT
        assert np.max(np.abs(U @ mu)) <= 0.5 + EXACT
        assert abs(minimax_objective(U, mu, lam) - optimum) <= EXACT


# -- (b) the last master of a run ------------------------------------------------------------------

@pytest.fixture(scope="module")
def data():
    from lpboosting.datasets import breast_cancer

    X, y = breast_cancer()
    rows = np.arange(0, X.shape[0], 4)  # 143 rows
    return X[rows][:, :10], y[rows]


def run_and_check(master, data, tmp_path, stem, **options):
    X, y = data
    result = column_generation(master, Stumps(X, y), **options)
    assert result.status == "converged"
    U = last_master_columns(result)
    values = export_both_forms(master, U, tmp_path, stem)
    for key, value in values.items():
        assert abs(value - result.objective) <= EXACT, (key, value, result.objective)
    return result, U


def test_lpboost_run_exports_its_last_master(data, tmp_path):
    result, U = run_and_check(LPBoost(0.2), data, tmp_path, "lpboost")
    assert U.shape == (data[0].shape[0], result.columns.shape[1])


def test_lpboost_run_with_a_column_pool_exports_the_columns_of_its_last_master(data, tmp_path):
    result, U = run_and_check(LPBoost(0.2, pool=ColumnPool(inactive_rounds=1)), data, tmp_path, "pool")
    active = result.solution.control.active_columns
    assert U.shape[1] == len(active) <= result.columns.shape[1]


def test_weighted_lpboost_run_honours_the_sample_weights(data, tmp_path):
    X, y = data
    weights = np.random.default_rng(0).integers(0, 4, size=X.shape[0]).astype(float)
    weights[:3] = [0.0, 2.0, 3.0]
    master = LPBoost(0.2, sample_weight=weights)
    result, U = run_and_check(master, data, tmp_path, "weighted")
    # the LP of the data with every row repeated s_n times (rows of weight 0 gone) has the same optimum
    repeated = np.repeat(U, weights.astype(int), axis=0)
    export_model(LPBoost(0.2), repeated, tmp_path / "repeated.mps")
    assert abs(read_back(tmp_path / "repeated.mps")[0] - result.objective) <= EXACT
    # and the caps are those of the weights, not 1/(nu N)
    lp = master_lp(master, U)
    assert np.array_equal(np.asarray(lp.col_upper_)[:-1], master.caps(X.shape[0]))
    assert np.asarray(lp.col_upper_)[0] == 0.0


def test_rmboost_run_exports_its_last_master(data, tmp_path):
    result, U = run_and_check(RMBoost(lam=0.1), data, tmp_path, "rmboost", backend="highspy")
    assert result.columns.shape[1] >= U.shape[1] >= 1  # pruned columns are not in the last master


def test_weighted_rmboost_run_drops_the_rows_of_weight_zero(data, tmp_path):
    X, y = data
    weights = np.random.default_rng(1).integers(0, 3, size=X.shape[0]).astype(float)
    weights[:2] = [0.0, 2.0]
    master = RMBoost(lam=0.1, sample_weight=weights)
    result, U = run_and_check(master, data, tmp_path, "weighted-rm", backend="highspy")
    exported = export_model(master, U, tmp_path / "w.mps")
    kept = np.flatnonzero(weights > 0)
    assert exported.row_names == [f"upper_{i}" for i in kept] + [f"lower_{i}" for i in kept]
    repeated = np.repeat(U, weights.astype(int), axis=0)
    export_model(RMBoost(lam=0.1), repeated, tmp_path / "repeated.lp")
    assert abs(read_back(tmp_path / "repeated.lp")[0] - result.objective) <= EXACT


def test_entropy_masters_export_their_final_lp(data, tmp_path):
    from lpboosting import SoftBoostClassifier

    X, y = data
    model = SoftBoostClassifier(nu=0.2, delta=0.05).fit(X, y)
    master, U = classifier_master(model, final_lp=True)
    assert master.name == "LPBoost" and master.nu == 0.2
    exported = export_classifier(model, tmp_path / "soft.mps", final_lp=True)
    assert exported.objective is None  # not the projection the fit solved last
    value = read_back(tmp_path / "soft.mps")[0]
    assert abs(value - LPBoost(0.2).solve(U, backend="highspy").objective) <= EXACT


# -- (c) the command line -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def fitted(data, tmp_path_factory):
    from lpboosting import LPBoostClassifier

    X, y = data
    model = LPBoostClassifier(nu=0.2).fit(X, y)
    directory = tmp_path_factory.mktemp("fitted")
    with open(directory / "model.pkl", "wb") as fh:
        pickle.dump(model, fh)
    return model, directory


def test_cli_exports_a_pickled_model(fitted, tmp_path, capsys):
    model, directory = fitted
    for form, ext in (("dual", ".mps"), ("primal", ".lp")):
        out = tmp_path / f"model-{form}{ext}"
        argv = ["export", "--model", str(directory / "model.pkl"), "--out", str(out), "--form", form]
        assert main(argv) == 0, capsys.readouterr().err
        text = capsys.readouterr().out
        assert f"LPBoost {form}" in text and str(out) in text and f"{model.objective_:.12g}" in text
        value, cols, rows, _ = read_back(out)
        assert abs(value - model.objective_) <= EXACT
        N, T = model.result_.columns.shape
        names = expected_names(LPBoost(0.2), N, T, form)
        assert rows == names[1] and sorted(cols) == sorted(names[0])


def test_cli_exports_a_json_model_with_its_training_rows(data, tmp_path, capsys):
    from lpboosting import LPBoostClassifier, save_model
    from lpboosting.datasets import load_dataset

    X, y = data
    table = tmp_path / "train.csv"
    with table.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([f"x{j}" for j in range(X.shape[1])] + ["label"])
        writer.writerows([[repr(float(v)) for v in row] + [int(label)] for row, label in zip(X, y)])
    dataset = load_dataset(str(table))
    model = LPBoostClassifier(nu=0.2).fit(dataset.X, dataset.y)
    save_model(model, tmp_path / "model.json")
    out = tmp_path / "json.mps"
    assert main(["export", "--model", str(tmp_path / "model.json"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--data" in err and "margin matrix" in err
    assert main(["export", "--model", str(tmp_path / "model.json"), "--data", str(table),
                 "--out", str(out)]) == 0, capsys.readouterr().err
    assert "rebuilt" in capsys.readouterr().out
    assert abs(read_back(out)[0] - model.objective_) <= EXACT


def test_cli_solve_file_reports_every_backend(fitted, tmp_path, capsys):
    model, directory = fitted
    out = tmp_path / "m.mps"
    assert main(["export", "--model", str(directory / "model.pkl"), "--out", str(out)]) == 0
    capsys.readouterr()
    report = tmp_path / "rows.json"
    argv = ["solve-file", str(out), "-b", "highspy", "-b", "highspy:ipm", "-b", "cvxpy:CLARABEL",
            "--json", str(report)]
    assert main(argv) == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    assert "highspy:ipm" in text and "cvxpy:CLARABEL" in text
    rows = json.loads(report.read_text())["rows"]
    assert [r["backend"] for r in rows] == ["highspy", "highspy:ipm", "cvxpy:CLARABEL"]
    assert all(r["status"] == "optimal" and r["iterations"] > 0 for r in rows)
    assert abs(rows[0]["objective"] - model.objective_) <= EXACT
    assert abs(rows[1]["objective"] - model.objective_) <= 1e-8
    assert abs(rows[2]["objective"] - model.objective_) <= 1e-6


def test_compare_model_file_reads_lp_files_and_the_rmboost_offset(tmp_path):
    entry = next(e for e in LP_ENTRIES if e["name"] == "rmboost-cancer-stumps")
    U = load_columns(entry, MODELS)["U"]
    export_model(master_for(entry), U, tmp_path / "rm.lp", form="dual")  # a maximisation
    rows = compare_model_file(tmp_path / "rm.lp", ["highspy", "cvxpy:HIGHS", "cvxpy:ECOS"])
    for row, tolerance in zip(rows, (EXACT, EXACT, 1e-6)):
        assert row["status"] == "optimal"
        assert abs(row["objective"] - entry["objective"]) <= tolerance, row


def test_the_committed_catalog_files_are_solved_by_solve_file(capsys):
    entry = next(e for e in LP_ENTRIES if e["name"] == "hand-rmboost")
    assert main(["solve-file", str(MODELS / entry["mps"]), "-b", "highspy"]) == 0
    assert f"{entry['objective']:.12g}" in capsys.readouterr().out


# -- (d) clear errors ---------------------------------------------------------------------------

HAND = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])


@pytest.mark.parametrize("name", ["model.txt", "model", "model.mps.gz", "model.json"])
def test_an_unknown_extension_says_which_ones_work(name, tmp_path):
    with pytest.raises(ValueError, match=r"\*\.mps .*\*\.lp"):
        export_model(LPBoost(0.8), HAND, tmp_path / name)
    assert not (tmp_path / name).exists()


def test_upper_case_extensions_are_accepted(tmp_path):
    export_model(LPBoost(0.8), HAND, tmp_path / "HAND.MPS")
    assert abs(read_back(tmp_path / "HAND.MPS")[0] - 1 / 6) <= EXACT


@pytest.mark.parametrize("master", [SoftBoost(0.2, 0.05), TotalBoost(0.05), ERLPBoost(0.2, 0.05)],
                         ids=lambda m: m.name)
def test_an_entropy_master_says_what_can_be_exported(master, tmp_path):
    with pytest.raises(ValueError) as info:
        export_model(master, HAND, tmp_path / "x.mps")
    message = str(info.value)
    assert "not an LP" in message and "exponential cone" in message
    assert "lp_master" in message and "LPBoost(nu=" in message and "--final-lp" in message
    assert not (tmp_path / "x.mps").exists()


def test_other_bad_input_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="form must be 'dual' or 'primal'"):
        export_model(LPBoost(0.8), HAND, tmp_path / "x.mps", form="both")
    with pytest.raises(ValueError, match="at least one example and one column"):
        export_model(LPBoost(0.8), np.empty((3, 0)), tmp_path / "x.mps")
    with pytest.raises(ValueError, match="NaN or inf"):
        export_model(LPBoost(0.8), np.array([[np.nan]]), tmp_path / "x.mps")
    with pytest.raises(ValueError, match="sample weights"):
        export_model(LPBoost(0.8, sample_weight=np.ones(4)), HAND, tmp_path / "x.mps")
    with pytest.raises(ModelFileNotFoundError, match="directory .* does not exist"):
        export_model(LPBoost(0.8), HAND, tmp_path / "missing" / "x.mps")
    with pytest.raises(ValueError, match="cannot export"):
        export_model(object(), HAND, tmp_path / "x.mps")
    with pytest.raises(ModelFileNotFoundError, match="no model file"):
        compare_model_file(tmp_path / "nope.mps")
    export_model(LPBoost(0.8), HAND, tmp_path / "x.mps")
    with pytest.raises(ValueError, match="unknown backend"):
        compare_model_file(tmp_path / "x.mps", ["gurobi"])
    with pytest.raises(ValueError, match="encodings of the LPBoost session"):
        compare_model_file(tmp_path / "x.mps", ["highspy:rows"])
    (tmp_path / "broken.mps").write_text("this is not an MPS file\n")
    with pytest.raises(ValueError, match="could not read"):
        compare_model_file(tmp_path / "broken.mps")


def test_cli_bad_input_is_a_clear_error(fitted, tmp_path, capsys):
    model, directory = fitted
    pkl = str(directory / "model.pkl")
    cases = [
        (["export", "--model", str(tmp_path / "nope.pkl"), "--out", "x.mps"], "no model file"),
        (["export", "--model", pkl, "--out", str(tmp_path / "x.txt")], "must end in .mps"),
        (["export", "--model", pkl], "must end in .mps"),
        (["export", "--out", str(tmp_path / "x.mps")], "there is no --model"),
        (["export", "--form", "primal"], "only with --model"),
        (["solve-file", str(tmp_path / "nope.mps")], "no model file"),
    ]
    for argv, expected in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert expected in err and "Traceback" not in err and "Errno" not in err, (argv, err)
    # a history holds no margin matrix: it cannot be exported, and the message says what to pass
    history = tmp_path / "history.json"
    model.history_.save(history)
    for argv in (["export", "--history", str(history), "--out", "x.mps"],
                 ["export", "--model", str(history), "--out", "x.mps"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "cannot be exported" in err and "margin matrix" in err and "--model FILE.pkl" in err
        assert "LPBoost" in err


def test_models_that_are_not_column_generation_masters_are_refused(tmp_path):
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(ValueError, match="no restricted master"):
        classifier_master(LogisticRegression())


def test_one_vs_rest_models_need_a_class(tmp_path):
    from sklearn.datasets import load_iris

    from lpboosting import LPBoostClassifier

    X, y = load_iris(return_X_y=True)
    model = LPBoostClassifier(nu=0.3, multiclass="one-vs-rest").fit(X, y)
    with pytest.raises(ValueError, match="one-vs-rest.*--class"):
        export_classifier(model, tmp_path / "x.mps")
    with pytest.raises(ValueError, match="no class 7"):
        export_classifier(model, tmp_path / "x.mps", label=7)
    for k, label in enumerate(model.classes_):
        exported = export_classifier(model, tmp_path / f"class{k}.mps", label=label)
        assert exported.objective == model.one_vs_rest_[k].objective_
        assert abs(read_back(tmp_path / f"class{k}.mps")[0] - exported.objective) <= EXACT
    # rebuilt from the rows (iris repeats some, which the fit merged into weights): the same optimum
    exported = export_classifier(model, tmp_path / "rows.lp", X=X, y=y, label=model.classes_[1])
    assert exported.objective is None
    assert abs(read_back(tmp_path / "rows.lp")[0] - model.one_vs_rest_[1].objective_) <= EXACT


def test_a_multiclass_lp_is_one_master_over_pairs(tmp_path):
    from sklearn.datasets import load_iris

    from lpboosting import LPBoostClassifier, load_model, save_model

    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    model = LPBoostClassifier(nu=0.2).fit(X, names)
    exported = export_classifier(model, tmp_path / "pairs.mps")
    assert exported.objective == model.objective_
    value, cols, rows, _ = read_back(tmp_path / "pairs.mps")
    assert abs(value - model.objective_) <= EXACT
    # the LP's rows: the sum, an edge row a hypothesis of the last master, a cap row an example
    n_examples = model.result_.columns.shape[0] // 2
    assert rows[0] == "sum_d" and rows[-1] == f"cap_{n_examples - 1}" and cols[-1] == "gamma"
    with pytest.raises(ValueError, match="one LP"):
        export_classifier(model, tmp_path / "x.mps", label="setosa")
    # a JSON model rebuilt from the training rows: the same optimum (iris repeats rows, which the fit
    # merged into weights; rebuilt on the rows as given, the repeated rows stand for them)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    export_classifier(loaded, tmp_path / "rows.lp", X=X, y=names)
    assert abs(read_back(tmp_path / "rows.lp")[0] - model.objective_) <= 1e-7
