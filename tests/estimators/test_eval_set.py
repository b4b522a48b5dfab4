"""fit(X, y, eval_set=[(X_val, y_val)]): the validation score after every round (evals_result_,
best_iteration_, best_score_), as XGBoost's and LightGBM's scikit-learn interfaces keep it."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from lpboosting import (
    BoundedLossClassifier,
    ERLPBoostClassifier,
    LLDClassifier,
    LLMClassifier,
    LPBoostClassifier,
    ModaBoostClassifier,
    RMBoostClassifier,
    SoftBoostClassifier,
)
from lpboosting.leveraging import LogLossBoostClassifier


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    names = np.array(["malignant", "benign"])[y]
    return train_test_split(X[:, :8], names, test_size=0.4, random_state=0, stratify=names)


@pytest.mark.parametrize("make", [
    lambda: LPBoostClassifier(nu=0.1),
    lambda: SoftBoostClassifier(nu=0.1, delta=0.1),
    lambda: ERLPBoostClassifier(nu=0.1, delta=0.1),
    lambda: RMBoostClassifier(oracle="stumps", max_rounds=30),
    # the leveraging boosters (no LP master) take eval_set alike
    lambda: LLMClassifier(max_rounds=30),
    lambda: LLDClassifier(max_rounds=30),
    lambda: LogLossBoostClassifier(max_rounds=30),
    lambda: ModaBoostClassifier(model="tree", max_rounds=30),
    lambda: BoundedLossClassifier(max_rounds=20),
])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_scores_are_those_of_the_staged_models(cancer, make):
    X_train, X_val, y_train, y_val = cancer
    clf = make().fit(X_train, y_train, eval_set=[(X_val, y_val), (X_train, y_train)])
    assert sorted(clf.evals_result_) == ["validation_0", "validation_1"]
    for name, (X, y) in zip(["validation_0", "validation_1"], [(X_val, y_val), (X_train, y_train)]):
        scores = clf.evals_result_[name]
        staged = list(clf.staged_predict(X))
        probas = list(clf.staged_predict_proba(X))
        assert len(scores["error"]) == len(scores["logloss"]) == len(staged) >= 1
        # computed independently: the accuracy and scikit-learn's log loss of each staged model
        assert scores["error"] == [float(np.mean(p != y)) for p in staged]
        # the log loss as documented (probabilities clipped at the float64 epsilon), and where no
        # probability is near 0 or 1 (where the clip decides) exactly scikit-learn's log_loss
        index = np.searchsorted(clf.classes_, y)
        eps = np.finfo(float).eps
        mine = [-np.mean(np.log(np.clip(p[np.arange(y.size), index], eps, 1 - eps))) for p in probas]
        np.testing.assert_allclose(scores["logloss"], mine, rtol=1e-12)
        for score, p in zip(scores["logloss"], probas):
            if 1e-6 < p.min() and p.max() < 1 - 1e-6:
                assert score == pytest.approx(log_loss(y, p, labels=clf.classes_), rel=1e-12)
        assert scores["error"][-1] == pytest.approx(1 - clf.score(X, y), abs=1e-15)
    errors = clf.evals_result_["validation_0"]["error"]
    best = clf.best_iteration_
    assert 1 <= best <= len(errors) and errors[best - 1] == min(errors) == clf.best_score_
    assert all(e > clf.best_score_ for e in errors[:best - 1])  # the earliest of equal scores


@pytest.mark.parametrize("multiclass", ["one-vs-rest", "native"])
def test_more_than_two_classes_score_every_class_at_its_round(multiclass):
    X, y = load_iris(return_X_y=True)
    names = load_iris().target_names[y]
    clf = LPBoostClassifier(nu=0.2, multiclass=multiclass).fit(X[::2], names[::2], eval_set=[(X[1::2], names[1::2])])
    scores = clf.evals_result_["validation_0"]
    rounds = max(m.n_rounds_ for m in clf.one_vs_rest_) if multiclass == "one-vs-rest" else clf.n_rounds_
    assert len(scores["error"]) == rounds
    assert scores["error"] == [float(np.mean(p != names[1::2])) for p in clf.staged_predict(X[1::2])]
    assert scores["error"][-1] == pytest.approx(1 - clf.score(X[1::2], names[1::2]), abs=1e-15)


def test_no_eval_set_leaves_no_scores_and_a_refit_forgets_them(cancer):
    X_train, X_val, y_train, y_val = cancer
    clf = LPBoostClassifier(nu=0.1).fit(X_train, y_train)
    assert not hasattr(clf, "evals_result_") and not hasattr(clf, "best_iteration_")
    clf.fit(X_train, y_train, eval_set=[(X_val, y_val)])
    assert hasattr(clf, "evals_result_")
    clf.fit(X_train, y_train)
    assert not hasattr(clf, "evals_result_") and not hasattr(clf, "best_score_")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # the first 5 rounds
def test_warm_start_scores_every_round_of_the_continued_run(cancer):
    X_train, X_val, y_train, y_val = cancer
    clf = LPBoostClassifier(nu=0.1, max_rounds=5, warm_start=True).fit(X_train, y_train)
    clf.set_params(max_rounds=200).fit(X_train, y_train, eval_set=[(X_val, y_val)])
    once = LPBoostClassifier(nu=0.1, max_rounds=200).fit(X_train, y_train, eval_set=[(X_val, y_val)])
    assert clf.evals_result_ == once.evals_result_ and clf.best_iteration_ == once.best_iteration_


@pytest.mark.parametrize("eval_set, error, match", [
    ("pair", TypeError, r"wrap one pair in a list"),
    (5, TypeError, r"list of \(X, y\) pairs"),
    ([("X",)], TypeError, r"eval_set\[0\] must be an \(X, y\) pair"),
    ("short", ValueError, r"eval_set\[0\] has 10 rows in X and 9 labels"),
    ("unknown", ValueError, r"labels \['other'\] the training data does not have"),
])
def test_a_bad_eval_set_is_named(cancer, eval_set, error, match):
    X_train, X_val, y_train, y_val = cancer
    named = {"pair": (X_val, y_val), "short": [(X_val[:10], y_val[:9])],
             "unknown": [(X_val[:3], np.array(["benign", "other", "benign"]))]}
    given = named[eval_set] if isinstance(eval_set, str) else eval_set
    clf = LPBoostClassifier(nu=0.1, max_rounds=3)
    with pytest.raises(error, match=match):
        clf.fit(X_train, y_train, eval_set=given)
    assert not hasattr(clf, "classes_")  # refused before fitting
