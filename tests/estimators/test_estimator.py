"""LPBoostClassifier: the scikit-learn contract, invariances and clear errors."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from lpboosting import (
    ERLPBoostClassifier, History, LPBoostClassifier, SoftBoostClassifier, TotalBoostClassifier,
)
from lpboosting.errors import SolverNotInstalledError, UnknownBackendError, UnknownOracleError
from tests.helpers import all_stump_columns, cancer_subset, soft_margin_lp


@parametrize_with_checks([
    LPBoostClassifier(), LPBoostClassifier(oracle="trees", nu=0.2),
    SoftBoostClassifier(delta=0.05), TotalBoostClassifier(delta=0.05), ERLPBoostClassifier(delta=0.05),
])
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def data():
    return cancer_subset(90, 5, 4)


def test_fitted_attributes_match_independent_lp(data):
    X, y = data
    clf = LPBoostClassifier(nu=0.2, tol=1e-9).fit(X, y)
    full = soft_margin_lp(all_stump_columns(X, y), 0.2)
    assert clf.objective_ == pytest.approx(full["value"], abs=1e-7)
    assert clf.status_ == "converged" and clf.n_rounds_ == len(clf.history_)
    assert clf.weights_.shape == (len(clf.hypotheses_),)
    assert clf.distribution_.shape == (X.shape[0],)
    # margins of the training data under the fitted model are the LP's margins
    margins = clf.margins(X, np.where(y > 0, 1.0, -1.0))
    np.testing.assert_allclose(margins, clf.result_.columns @ clf.weights_, atol=1e-12)
    np.testing.assert_allclose(margins, clf.decision_function(X) * y, atol=1e-12)


def test_string_labels_and_relabelling_give_the_same_objective(data):
    X, y = data
    base = LPBoostClassifier(nu=0.1).fit(X, y)
    names = np.where(y > 0, "spam", "ham")
    named = LPBoostClassifier(nu=0.1).fit(X, names)
    assert list(named.classes_) == ["ham", "spam"]
    assert named.objective_ == pytest.approx(base.objective_, abs=1e-9)
    assert set(named.predict(X)) <= {"ham", "spam"}
    np.testing.assert_array_equal(named.predict(X) == "spam", base.predict(X) == 1)
    # swapping which class is positive negates y; stumps are closed under negation
    swapped = np.where(y > 0, "a", "z")
    flipped = LPBoostClassifier(nu=0.1).fit(X, swapped)
    assert flipped.objective_ == pytest.approx(base.objective_, abs=1e-9)
    np.testing.assert_allclose(flipped.decision_function(X), -base.decision_function(X), atol=1e-9)


def test_row_permutation_gives_the_same_objective(data):
    X, y = data
    perm = np.random.default_rng(0).permutation(X.shape[0])
    a = LPBoostClassifier(nu=0.3).fit(X, y)
    b = LPBoostClassifier(nu=0.3).fit(X[perm], y[perm])
    assert b.objective_ == pytest.approx(a.objective_, abs=1e-9)


def test_callable_oracle(data):
    X, y = data

    def weak(Xs, ys, d):
        tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(Xs, ys, sample_weight=d)
        return tree

    clf = LPBoostClassifier(nu=0.2, oracle=weak, max_rounds=20).fit(X, y)
    assert clf.history_.meta["exact"] is False
    assert clf.score(X, y) > 0.8


def test_history_roundtrip(tmp_path, data):
    X, y = data
    clf = LPBoostClassifier(nu=0.2).fit(X, y)
    path = tmp_path / "history.json"
    clf.history_.save(path)
    loaded = History.load(path)
    assert loaded == clf.history_
    table = loaded.to_dict()
    assert table["round"] == list(range(1, clf.n_rounds_ + 1))
    assert table["status"][-1] == "converged"
    assert len(loaded) == clf.n_rounds_ and loaded[-1].gap == clf.history_[-1].gap


def test_callback_stop_keeps_model(data):
    X, y = data
    clf = LPBoostClassifier(callback=lambda r: r.round >= 2).fit(X, y)
    assert clf.status_ == "stopped" and clf.n_rounds_ == 2
    assert clf.predict(X).shape == y.shape


def test_interrupt_keeps_model(data):
    X, y = data

    def cb(r):
        if r.round == 3:
            raise KeyboardInterrupt

    with pytest.warns(RuntimeWarning, match="interrupted"):
        clf = LPBoostClassifier(callback=cb).fit(X, y)
    # the master of round 3 (its columns: up to columns_per_round a round)
    assert clf.status_ == "interrupted" and clf.n_rounds_ == 3
    assert len(clf.hypotheses_) == clf.history_[2].n_columns > 3
    assert clf.objective_ == clf.history_[2].primal


def test_max_rounds_warns(data):
    X, y = data
    with pytest.warns(ConvergenceWarning, match="max_rounds"):
        LPBoostClassifier(max_rounds=1).fit(X, y)


# -- bad input -----------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_inf_in_X(data, bad):
    X, y = data
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match="infinite value.* row 3, feature 1.*NaN to mark them missing"):
        LPBoostClassifier().fit(X, y)
    clf = LPBoostClassifier().fit(data[0], y)
    with pytest.raises(ValueError, match="infinite value.* row 3, feature 1"):
        clf.predict(X)


def test_nan_in_X_is_a_missing_value(data):
    # tests/oracles/test_missing_values.py checks how the oracles treat them
    X, y = data
    X = X.copy()
    X[3, 1] = np.nan
    clf = LPBoostClassifier().fit(X, y)
    assert clf.predict(X).shape == y.shape
    with pytest.raises(ValueError, match="missing values .*features oracle.*'stumps', 'binned-stumps', 'trees'"):
        LPBoostClassifier(oracle="features").fit(X, y)


def test_one_class(data):
    X, _ = data
    with pytest.raises(ValueError, match="only one class"):
        LPBoostClassifier().fit(X, np.ones(X.shape[0]))


def test_mismatched_lengths(data):
    X, y = data
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        LPBoostClassifier().fit(X, y[:-1])
    clf = LPBoostClassifier().fit(X, y)
    with pytest.raises(ValueError, match="one label per row"):
        clf.margins(X, y[:-1])
    with pytest.raises(ValueError, match="not seen in fit"):
        clf.margins(X, np.full(X.shape[0], 7.0))


@pytest.mark.parametrize("nu", [0, -0.5, 1.01, float("nan")])
def test_nu_outside_unit_interval(data, nu):
    X, y = data
    with pytest.raises(ValueError, match=r"nu must be a fraction in \(0, 1\]"):
        LPBoostClassifier(nu=nu).fit(X, y)


def test_unknown_oracle(data):
    X, y = data
    with pytest.raises(UnknownOracleError, match="stumps"):
        LPBoostClassifier(oracle="perceptron").fit(X, y)


def test_unknown_backend(data):
    X, y = data
    with pytest.raises(UnknownBackendError, match="highspy"):
        LPBoostClassifier(backend="simplex9000").fit(X, y)


def test_backend_not_installed(data, monkeypatch):
    X, y = data
    monkeypatch.setitem(sys.modules, "highspy", None)
    with pytest.raises(SolverNotInstalledError, match="pip install highspy"):
        LPBoostClassifier().fit(X, y)
    with pytest.raises(SolverNotInstalledError, match="not installed"):
        LPBoostClassifier(backend="cvxpy:MOSEK").fit(X, y)


def test_backends_agree_through_the_classifier(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = [LPBoostClassifier(nu=0.25, backend=b, tol=1e-8).fit(X, y).objective_
                  for b in ["highspy", "cvxpy:HIGHS", "cvxpy:CLARABEL", "cvxpy:ECOS"]]
    assert np.ptp(values) < 1e-6


def test_solver_failure_mid_run_keeps_model(data):
    from tests.helpers import FailingBackend

    X, y = data
    backend = FailingBackend("highspy", fail_at=3)
    with pytest.warns(RuntimeWarning, match="kept the master of round 2"):
        clf = LPBoostClassifier(nu=0.1, backend=backend).fit(X, y)
    assert clf.status_ == "solver_error" and len(clf.hypotheses_) == clf.history_[1].n_columns > 2
    assert clf.objective_ == pytest.approx(backend.solutions[1].objective)
    assert clf.predict(X).shape == y.shape
    # a failure before any master was solved leaves nothing to keep: a clear error
    from lpboosting.errors import SolverError

    with pytest.raises(SolverError, match="no model was fitted"):
        LPBoostClassifier(backend=FailingBackend("highspy", fail_at=1)).fit(X, y)
