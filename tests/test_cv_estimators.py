"""nu chosen by cross-validation: LPBoostCV, SoftBoostCV, ERLPBoostCV and nu="auto"."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.estimator_checks import parametrize_with_checks

from lpboosting import ERLPBoostCV, LPBoostClassifier, LPBoostCV, SoftBoostClassifier, SoftBoostCV
from lpboosting.datasets.noise import flip_labels
from tests.test_column_generation import DATASETS


@parametrize_with_checks([LPBoostCV(nus=[0.5, 0.1]), SoftBoostCV(nus=[0.5, 0.2], delta=0.1),
                          ERLPBoostCV(nus=[0.5, 0.2], delta=0.1)])
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_lpboostcv_picks_the_best_mean_score_and_refits_there():
    X, y = DATASETS["cancer-80x5"]()
    clf = LPBoostCV(nus=[0.4, 0.2, 0.1, 0.05], cv=StratifiedKFold(3)).fit(X, y)
    mean = clf.cv_scores_.mean(axis=0)
    assert clf.cv_scores_.shape == (3, 4) and list(clf.nus_) == [0.4, 0.2, 0.1, 0.05]
    assert clf.nu_ == clf.nus_[np.flatnonzero(mean == mean.max())[0]]  # the largest of the best
    plain = LPBoostClassifier(nu=clf.nu_).fit(X, y)
    np.testing.assert_array_equal(clf.decision_function(X), plain.decision_function(X))
    assert clf.objective_ == plain.objective_


def test_the_entropy_masters_choose_nu_on_lpboosts_path_and_refit_as_themselves():
    X, y = DATASETS["cancer-60x8"]()
    folds = StratifiedKFold(3)
    soft = SoftBoostCV(nus=[0.5, 0.1], cv=folds, delta=0.1).fit(X, y)
    lp = LPBoostCV(nus=[0.5, 0.1], cv=folds).fit(X, y)
    np.testing.assert_array_equal(soft.cv_scores_, lp.cv_scores_)
    assert soft.nu_ == lp.nu_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = SoftBoostClassifier(nu=soft.nu_, delta=0.1).fit(X, y)
    np.testing.assert_array_equal(soft.decision_function(X), plain.decision_function(X))


def test_fold_scores_of_separate_fits_when_a_master_asks_for_them():
    # a classifier that fits each nu of each fold itself: its scores are those of plain fits
    X, y = DATASETS["cancer-60x8"]()
    folds = StratifiedKFold(3)

    class Separate(SoftBoostCV):
        _choose_on_path = False

    clf = Separate(nus=[0.5, 0.1], cv=folds, delta=0.1).fit(X, y)
    for f, (train, test) in enumerate(folds.split(X, y)):
        for i, nu in enumerate(clf.nus_):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = SoftBoostClassifier(nu=nu, delta=0.1).fit(X[train], y[train])
            assert clf.cv_scores_[f, i] == model.score(X[test], y[test])


def test_nu_auto_is_lpboostcv():
    X, y = DATASETS["cancer-80x5"]()
    auto = LPBoostClassifier(nu="auto").fit(X, y)
    cv = LPBoostCV().fit(X, y)
    assert auto.nu_ == cv.nu_ and np.array_equal(auto.cv_scores_, cv.cv_scores_)
    np.testing.assert_array_equal(auto.decision_function(X), cv.decision_function(X))


def test_a_larger_nu_is_chosen_under_label_noise():
    X, y = DATASETS["cancer-80x5"]()
    noisy = flip_labels(y, 0.25, random_state=0)
    clean = LPBoostCV(nus=[0.6, 0.3, 0.05, 0.01]).fit(X, y)
    dirty = LPBoostCV(nus=[0.6, 0.3, 0.05, 0.01]).fit(X, noisy)
    assert dirty.nu_ >= clean.nu_


def test_cv_with_weights_multiclass_and_a_scorer():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    clf = LPBoostCV(nus=[0.5, 0.1], scoring="balanced_accuracy", n_jobs=2).fit(X, y, sample_weight=np.ones(len(y)))
    assert clf.decision_function(X).shape == (len(y), 3) and clf.score(X, y) > 0.9
    with pytest.raises(ValueError, match="nu must be"):
        LPBoostCV(nus=[0.5, 2.0]).fit(X, y)
