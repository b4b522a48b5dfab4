"""Bounded loss classification (Rennie 2003): claims of the paper as tests."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.datasets import make_circles
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from lpboosting.leveraging.bounded_loss import BoundedLossClassifier, bounded_loss_objective


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # small dense Newton systems: BLAS threads only contend on the shared 2-core machine
    with threadpool_limits(limits=1):
        yield


@parametrize_with_checks([
    BoundedLossClassifier(),
    BoundedLossClassifier(kernel="rbf", gamma=0.5),
])
def test_sklearn_contract(estimator, check):
    check(estimator)


def outlier_data(seed, n=200, n_out=20):
    """Two unit Gaussians 3 apart along x0, plus a tight cluster of mislabelled points far away."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    X = rng.normal(size=(n, 2))
    X[:, 0] += 1.5 * y
    Xo = rng.normal(scale=0.5, size=(n_out, 2))
    Xo[:, 0] += 10.0  # deep on the +1 side, labelled -1
    return np.vstack([X, Xo]), np.concatenate([y, -np.ones(n_out)])


def clean_data(seed, n=2000):
    rng = np.random.default_rng(seed + 1000)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    X = rng.normal(size=(n, 2))
    X[:, 0] += 1.5 * y
    return X, y


def independent_objective(clf, X, y, lam, lam_b=0.0):
    """log sum_i 1/(1 + e^{-y_i z_i}) - lam ||w||^2 - lam_b b^2 from the fitted model, written directly."""
    z = clf.decision_function(X)
    if clf.kernel is None:
        sq = clf.coef_ @ clf.coef_
    else:
        K = clf._kernel(X, X)
        sq = clf.dual_coef_ @ K @ clf.dual_coef_
    return np.log(np.sum(1.0 / (1.0 + np.exp(-y * z)))) - lam * sq - lam_b * clf.intercept_**2


@pytest.mark.parametrize("params", [
    dict(), dict(anneal=False, C=5.0), dict(kernel="rbf", gamma=0.5, C=3.0),
])
def test_em_never_decreases_the_objective_at_fixed_lambda(params):
    """Sec. 2: E makes B(q, theta) = A(theta), M raises B, so A_lam(theta_{t+1}) >= A_lam(theta_t)."""
    X, y = outlier_data(0)
    clf = BoundedLossClassifier(**params).fit(X, y)
    h = {k: np.asarray(v) for k, v in clf.history_.to_dict().items()}
    n_checked = 0
    for stage in np.unique(h["stage"]):
        obj = h["objective"][h["stage"] == stage]
        assert np.all(np.diff(obj) >= -1e-10 * (1 + np.abs(obj[:-1]))), (stage, np.diff(obj).min())
        n_checked += obj.size - 1
    assert n_checked >= 3
    # the recorded objective of the last stage is A_lam of the fitted model (b free there)
    assert h["lambda_b"][-1] == 0.0
    assert clf.objective_ == pytest.approx(independent_objective(clf, X, y, clf.lambda_), rel=1e-8)
    sq_norm = (clf.coef_ @ clf.coef_ if clf.kernel is None
               else clf.dual_coef_ @ clf._kernel(X, X) @ clf.dual_coef_)
    assert clf.objective_ == pytest.approx(
        bounded_loss_objective(y * clf.decision_function(X), sq_norm, clf.lambda_), rel=1e-8)


def test_em_converges_to_a_stationary_point_of_the_objective():
    """The EM fixed point has q = sigma / sum sigma and grad of the M-step = 0, i.e. grad A_lam = 0."""
    X, y = outlier_data(1)
    clf = BoundedLossClassifier(C=3.0, tol=1e-12, max_rounds=500).fit(X, y)
    lam = clf.lambda_
    theta = np.concatenate([clf.coef_, [clf.intercept_]])

    def A(t):
        z = X @ t[:2] + t[2]
        return np.log(np.sum(expit(y * z))) - lam * t[:2] @ t[:2]

    h = 1e-6
    grad = np.array([(A(theta + h * e) - A(theta - h * e)) / (2 * h) for e in np.eye(3)])
    assert np.abs(grad).max() < 1e-5, grad


def test_c_is_logistic_regression_c_in_the_first_m_step():
    """lam = 1/(2 C n): with q uniform the M-step is scikit-learn's LogisticRegression(C)."""
    X, y = outlier_data(2)
    for C in (0.05, 1.0, 20.0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            one = BoundedLossClassifier(C=C, anneal=False, max_rounds=1).fit(X, y)
        lr = LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(X, y)
        np.testing.assert_allclose(one.coef_, lr.coef_.ravel(), rtol=1e-5, atol=1e-7)
        assert one.intercept_ == pytest.approx(lr.intercept_[0], rel=1e-5, abs=1e-7)
        assert one.lambda_ == pytest.approx(1.0 / (2 * C * len(y)))


def test_annealing_halves_lambda_down_to_the_floor():
    X, y = outlier_data(3)
    clf = BoundedLossClassifier(C=2.0, anneal_tol=0.0).fit(X, y)
    path = np.asarray(clf.lambda_path_)
    floor = 1.0 / (2 * 2.0 * len(y))
    assert path[0] == 100.0
    np.testing.assert_allclose(path[1:-1], path[:-2] / 2)  # lam <- lam / 2 ...
    assert path[-1] == pytest.approx(floor) and path[-2] > floor  # ... clipped at 1/(2 C n)
    assert clf.lambda_ == pytest.approx(floor)
    lam_b = np.asarray(clf.history_["lambda_b"])
    stage = np.asarray(clf.history_["stage"])
    assert np.all(lam_b[stage < stage.max()] > 0) and np.all(lam_b[stage == stage.max()] == 0)
    # theta settles: a looser anneal_tol stops earlier, at a larger lambda, then runs the last stage
    early = BoundedLossClassifier(C=2.0, anneal_tol=0.2).fit(X, y)
    assert len(early.lambda_path_) < len(path)
    assert early.lambda_path_[-1] == early.lambda_path_[-2]
    plain = BoundedLossClassifier(C=2.0, anneal=False).fit(X, y)
    assert plain.lambda_path_ == [pytest.approx(floor)]


def test_bounded_loss_ignores_far_outliers_that_pull_logistic_regression():
    """Sec. 1 / 2: the bounded loss 'incurs a unit penalty and effectively ignores points that
    clearly cannot be classified correctly'; the convex log-loss lets them drag the boundary.

    Measured (seeds 0-4, 2000 clean test points): LogisticRegression 49.4/41.2/49.0/41.6/49.4 %,
    bounded loss 6.9/6.8/6.5/7.0/8.3 % (Bayes error about 6.7 %).
    """
    for seed in range(3):
        X, y = outlier_data(seed)
        Xt, yt = clean_data(seed)
        lr_err = np.mean(LogisticRegression(C=1.0).fit(X, y).predict(Xt) != yt)
        bl_err = np.mean(BoundedLossClassifier(C=1.0).fit(X, y).predict(Xt) != yt)
        assert bl_err < 0.10 and lr_err > 0.30, (seed, lr_err, bl_err)


def test_kernel_form_fits_circles_that_the_linear_model_cannot():
    """Sec. 3.3: with an RBF kernel the same EM finds a non-linear boundary.

    Measured (make_circles, 200 train / 500 test, seeds 0-2): RBF 98.8/99.0/99.4 % accuracy,
    linear 63.6/63.8/63.4 %.
    """
    for seed in range(2):
        X, y = make_circles(200, noise=0.1, factor=0.5, random_state=seed)
        Xt, yt = make_circles(500, noise=0.1, factor=0.5, random_state=seed + 50)
        rbf = BoundedLossClassifier(kernel="rbf", gamma=2.0).fit(X, y)
        lin = BoundedLossClassifier().fit(X, y)
        acc_rbf, acc_lin = rbf.score(Xt, yt), lin.score(Xt, yt)
        assert acc_rbf >= 0.95 and acc_lin <= 0.75, (seed, acc_rbf, acc_lin)
        assert rbf.dual_coef_.shape == (200,) and not hasattr(rbf, "coef_")


def test_linear_kernel_form_equals_the_primal_model():
    """||w||^2 = beta^T K beta and z = K beta + b: the kernel form with K = X X^T is the primal model."""
    X, y = outlier_data(4, n=80, n_out=8)
    primal = BoundedLossClassifier(C=2.0).fit(X, y)
    dual = BoundedLossClassifier(C=2.0, kernel="linear").fit(X, y)
    Xt, _ = clean_data(4, n=50)
    np.testing.assert_allclose(dual.decision_function(Xt), primal.decision_function(Xt), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(X.T @ dual.dual_coef_, primal.coef_, rtol=1e-5, atol=1e-6)
    # a callable kernel gives the same model as the name
    called = BoundedLossClassifier(C=2.0, kernel=lambda A, B: A @ B.T).fit(X, y)
    np.testing.assert_allclose(called.decision_function(Xt), dual.decision_function(Xt), rtol=1e-8, atol=1e-9)


def test_predict_proba_is_the_logistic_model():
    X, y = outlier_data(5)
    labels = np.where(y > 0, "pos", "neg")
    clf = BoundedLossClassifier().fit(X, labels)
    assert list(clf.classes_) == ["neg", "pos"]
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P[:, 1], expit(clf.decision_function(X)))
    np.testing.assert_array_equal(clf.predict(X), np.where(P[:, 1] > 0.5, "pos", "neg"))


@pytest.mark.parametrize("params, message", [
    (dict(C=0.0), "C must be a finite number > 0"),
    (dict(C=-1.0), "C must be a finite number > 0"),
    (dict(C=np.inf), "C must be a finite number > 0"),
    (dict(kernel="gaussian"), "unknown kernel 'gaussian'.*None for the linear model.*'rbf'"),
    (dict(kernel="precomputed"), "unknown kernel 'precomputed'"),
    (dict(kernel="rbf", gamma=0.0), "gamma must be a finite number > 0"),
    (dict(max_iter=0), "max_iter must be an integer >= 1"),
    (dict(lambda_start=-3.0), "lambda_start must be a finite number > 0"),
    (dict(tol=-1e-3), "tol must be a finite number >= 0"),
    (dict(degree=0, kernel="poly"), "degree must be an integer >= 1"),
])
def test_clear_errors(params, message):
    X, y = outlier_data(0, n=30, n_out=2)
    with pytest.raises(ValueError, match=message):
        BoundedLossClassifier(**params).fit(X, y)


def test_bad_callable_kernel_is_reported():
    X, y = outlier_data(0, n=30, n_out=2)
    with pytest.raises(ValueError, match=r"kernel callable must return a finite matrix of shape \(32, 32\)"):
        BoundedLossClassifier(kernel=lambda A, B: np.ones((2, 2))).fit(X, y)
