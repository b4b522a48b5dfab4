"""Bad input to the masters, the loop, the oracles and the classifiers: a clear message, or
the right answer where the input has one (a sparse U, a tiny nu)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from lpboosting import LPBoostClassifier, column_generation
from lpboosting.masters import ERLPBoost, LPBoost, SoftBoost
from lpboosting.oracles import Stumps, Trees
from tests.helpers import DATASETS


@pytest.fixture(scope="module")
def data():
    return DATASETS["cancer-60x8"]()


def test_mixed_text_and_number_labels(data):
    X, _ = data
    y = np.array([1, "a"] * 30, dtype=object)
    with pytest.raises(TypeError, match=r"mix text and numbers \(int, str\).*astype\(str\)"):
        LPBoostClassifier().fit(X, y)


@pytest.mark.parametrize("options, message", [
    ({"max_rounds": "abc"}, "max_rounds must be an integer, got 'abc'"),
    ({"max_rounds": 2.5}, "max_rounds must be an integer"),
    ({"tol": "small"}, "tol must be a number"),
    ({"columns_per_round": True}, "columns_per_round must be an integer"),
    ({"callback": 3}, "callback must be a function"),
])
def test_loop_options_of_the_wrong_type(data, options, message):
    X, y = data
    with pytest.raises(TypeError, match=message):
        column_generation(LPBoost(0.2), Stumps(X, y), **options)


def test_callable_oracles_with_the_wrong_signature_or_output(data):
    X, y = data
    with pytest.raises(TypeError, match=r"must take three arguments \(X, y, d\).*takes \(d\)"):
        LPBoostClassifier(oracle=lambda d: None).fit(X, y)

    class Words:
        def predict(self, Z):
            return np.array(["yes"] * len(Z))

    with pytest.raises(TypeError, match="predictions of the oracle's hypothesis must be 60 numbers"):
        LPBoostClassifier(nu=0.2, oracle=lambda X, y, d: Words()).fit(X, y)
    with pytest.raises(TypeError, match=r"must take one argument, the distribution d"):
        column_generation(LPBoost(0.2), lambda X, y, d: y, n_samples=len(y))
    with pytest.raises(TypeError, match="column returned by the oracle function must be 60 numbers"):
        column_generation(LPBoost(0.2), lambda d: ["a"] * len(d), n_samples=len(y))


def test_a_sparse_margin_matrix_is_solved_as_the_dense_one():
    U = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], size=(30, 5))
    for convert in (sp.csr_matrix, sp.csc_array):
        assert LPBoost(0.2).solve(convert(U)).objective == LPBoost(0.2).solve(U).objective


def test_a_tiny_nu_is_the_hard_margin_not_nan(data):
    X, y = data
    U = Stumps(X, y).all_columns()[0]
    hard = LPBoost(1.0 / len(y)).solve(U)
    for nu in (5e-324, 1e-300, 1e-3):
        sol = LPBoost(nu).solve(U)
        assert np.isfinite(sol.objective) and sol.objective == pytest.approx(hard.objective, abs=1e-12)
    clf = LPBoostClassifier(nu=5e-324).fit(X, y)
    assert np.isfinite(clf.objective_) and np.all(np.isfinite(clf.decision_function(X)))


@pytest.mark.parametrize("scale", [1e-300, 1e-9, 1e9])
def test_margins_the_solvers_cannot_resolve_are_refused(scale):
    U = np.random.default_rng(1).choice([-1.0, 1.0], size=(30, 4))
    with pytest.raises(ValueError, match=r"largest margin .*divide U by its largest entry"):
        LPBoost(0.2).solve(U * scale)
    with pytest.raises(ValueError, match="largest margin"):
        column_generation(LPBoost(0.2), lambda d: U[:, 0] * scale, n_samples=30)


def test_an_abstaining_column_and_ordinary_scales_are_fine():
    U = np.random.default_rng(1).choice([-1.0, 1.0], size=(30, 4))
    U[:, 1] = 0.0
    assert np.isfinite(LPBoost(0.2).solve(U * 1e-5).objective)
    assert LPBoost(0.2).solve(U * 1e-5).objective == pytest.approx(1e-5 * LPBoost(0.2).solve(U).objective)


def test_trees_split_features_float32_cannot_tell_apart(data):
    # scikit-learn's trees compare float32: the oracle grows them on the features' ranks
    X, y = data
    d = np.full(len(y), 1 / len(y))
    column = Trees(X, y).price(d).column
    np.testing.assert_array_equal(Trees(X * 1e-300, y).price(d).column, column)
    merged = X.copy()
    merged[:, 2] = 1e4 + np.arange(len(y)) * 1e-4  # distinct in float64, partly merged in float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        oracle = Trees(merged, y, max_depth=1)
    np.testing.assert_array_equal(oracle.price(d).column, Trees(np.argsort(np.argsort(merged, axis=0), axis=0),
                                                                  y, max_depth=1).price(d).column)
    assert LPBoostClassifier(oracle="trees").fit(X * 1e-50, y).score(X * 1e-50, y) > 0.8


def test_unknown_projection_keywords_are_refused():
    U = np.random.default_rng(2).choice([-1.0, 1.0], size=(20, 3))
    with pytest.raises(TypeError, match=r"unknown keyword\(s\) \['eta'\]; it takes bound"):
        SoftBoost(0.2, 0.1).project(U, bound=0.0, eta=1)
    with pytest.raises(TypeError, match=r"unknown keyword\(s\) \['bound'\]; it takes eta"):
        ERLPBoost(0.2, 0.1).project(U, bound=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ERLPBoost(0.2, 0.1).project(U, eta=5.0).ok
