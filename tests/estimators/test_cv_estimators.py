"""nu chosen by cross-validation: LPBoostCV, SoftBoostCV, ERLPBoostCV and nu="auto"."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.estimator_checks import parametrize_with_checks

from lpboosting import ERLPBoostCV, LPBoostClassifier, LPBoostCV, SoftBoostClassifier, SoftBoostCV
from lpboosting.datasets.noise import flip_labels
from tests.helpers import DATASETS


@parametrize_with_checks([LPBoostCV(nus=[0.5, 0.1]), SoftBoostCV(nus=[0.5, 0.2], delta=0.1),
                          ERLPBoostCV(nus=[0.5, 0.2], delta=0.1)])
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_lpboostcv_picks_the_best_mean_score_and_refits_there():
    X, y = DATASETS["cancer-80x5"]()
    clf = LPBoostCV(nus=[0.4, 0.2, 0.1, 0.05], cv=StratifiedKFold(3), oracle="stumps",
                    early_stopping=False).fit(X, y)
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
        plain = SoftBoostClassifier(nu=soft.nu_, delta=0.1, oracle=soft.oracle_,
                                    oracle_params=soft.oracle_params_).fit(X, y)
    np.testing.assert_array_equal(soft.decision_function(X), plain.decision_function(X))


def test_fold_scores_of_separate_fits_when_a_master_asks_for_them():
    # a classifier that fits each nu of each fold itself: its scores are those of plain fits
    X, y = DATASETS["cancer-60x8"]()
    folds = StratifiedKFold(3)

    class Separate(SoftBoostCV):
        _choose_on_path = False

    clf = Separate(nus=[0.5, 0.1], cv=folds, delta=0.1, oracle="stumps").fit(X, y)
    for f, (train, test) in enumerate(folds.split(X, y)):
        for i, nu in enumerate(clf.nus_):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = SoftBoostClassifier(nu=nu, delta=0.1).fit(X[train], y[train])
            assert clf.cv_scores_[f, i] == model.score(X[test], y[test])


def test_a_new_capped_masters_classifier_fits_each_nu_itself_unless_it_says_otherwise(monkeypatch):
    """A classifier of another master with a nu (a subclass of the base, as the architecture
    page's recipe writes one) does not silently get its nu chosen on LPBoost's path: that is
    right only for masters whose soft margin is LPBoost's (within delta), which say so."""
    from lpboosting.estimators import cv
    from lpboosting.estimators.base import ColumnGenerationClassifier

    assert not ColumnGenerationClassifier._choose_on_path
    assert LPBoostClassifier._choose_on_path and SoftBoostClassifier._choose_on_path

    class NewCapped(ColumnGenerationClassifier):
        _parameter_constraints = LPBoostClassifier._parameter_constraints
        __init__ = LPBoostClassifier.__init__
        _make_master = LPBoostClassifier._make_master

    def no_path(*args, **kwargs):
        raise AssertionError("LPBoost's nu path was used")

    monkeypatch.setattr(cv, "NuPathRun", no_path)
    X, y = DATASETS["cancer-60x8"]()
    clf = NewCapped(nu="auto").set_params(pool=None)
    clf.nus, clf.cv = [0.5, 0.1], 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    assert clf.nu_ in (0.5, 0.1)
    with pytest.raises(AssertionError, match="nu path was used"):  # LPBoost's own classifier does use it
        LPBoostClassifier(nu="auto").fit(X, y)


def test_nu_auto_is_lpboostcv_at_the_same_oracle():
    X, y = DATASETS["cancer-80x5"]()
    auto = LPBoostClassifier(nu="auto").fit(X, y)
    cv = LPBoostCV(oracle="stumps").fit(X, y)
    assert auto.nu_ == cv.nu_ and np.array_equal(auto.cv_scores_, cv.cv_scores_, equal_nan=True)
    np.testing.assert_array_equal(auto.decision_function(X), cv.decision_function(X))
    assert not hasattr(cv, "oracle_")  # the oracle was named, not chosen


def test_early_stopping_scores_a_prefix_of_the_full_path_and_stops_by_its_rule():
    from lpboosting.estimators.cv import PATIENCE, _stop_early

    X, y = DATASETS["cancer-80x5"]()
    noisy = flip_labels(y, 0.3, random_state=1)
    nus = [0.8, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01]
    full = LPBoostCV(nus=nus, oracle="stumps", early_stopping=False).fit(X, noisy)
    early = LPBoostCV(nus=nus, oracle="stumps").fit(X, noisy)
    scored = np.flatnonzero(~np.isnan(early.cv_scores_[0]))
    k = scored[-1] + 1
    assert np.array_equal(scored, np.arange(k)) and not np.isnan(full.cv_scores_).any()
    assert np.isnan(early.cv_scores_[:, k:]).all()
    # the same paths: the scores of the nus evaluated are those of the full run
    np.testing.assert_array_equal(early.cv_scores_[:, :k], full.cv_scores_[:, :k])
    # it stopped where the rule says and not before
    assert not any(_stop_early(full.cv_scores_[:, :j]) for j in range(1, k))
    if k < len(nus):
        assert _stop_early(full.cv_scores_[:, :k])
        mean = full.cv_scores_[:, :k].mean(axis=0)
        assert mean[-1] < mean.max()  # it stops on a fall, never on a rise
    best = early.cv_scores_[:, :k].mean(axis=0)
    assert early.nu_ == early.nus_[np.flatnonzero(best == best.max())[0]]
    assert PATIENCE >= 1


def test_stop_rule_on_known_scores():
    from lpboosting.estimators.cv import _stop_early

    rising = np.array([[0.6, 0.7, 0.8], [0.6, 0.7, 0.8]])
    assert not _stop_early(rising)
    # (rows: folds; columns: the nus so far) one nu slightly below a noisy best: go on; two in a row: stop
    slightly = np.array([[0.9, 0.85, 0.85], [0.7, 0.74, 0.74], [0.8, 0.79, 0.79]])
    assert not _stop_early(slightly[:, :2]) and _stop_early(slightly)
    # far below the best (beyond its standard error): stop at once
    noisy_best = np.array([[0.9, 0.78], [0.7, 0.78], [0.8, 0.8]])
    assert not _stop_early(noisy_best)
    assert _stop_early(np.array([[0.9, 0.6], [0.7, 0.6], [0.8, 0.6]]))


def test_oracle_auto_chooses_trees_where_stumps_cannot_and_refits_with_them(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(160, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # XOR: no sum of stumps separates it
    clf = LPBoostCV(nus=[0.4, 0.2, 0.1]).fit(X, y)
    from lpboosting.estimators.cv import AUTO_ORACLES, STUMP_BINS, _se, oracle_name

    # binned stumps and the forest's trees (with the forest itself), the forest with its 200 trees and
    # stopped early
    names = [oracle_name(*o) for o in AUTO_ORACLES]
    assert names == [f"binned-stumps(max_bins={STUMP_BINS})", "gb-trees(whole_forest=True)",
                     "gb-trees(whole_forest=True, early_stopping=True)"]
    assert set(clf.cv_scores_by_oracle_) == set(names)
    assert clf.oracle_ == "gb-trees" and ("gb-trees", clf.oracle_params_) in AUTO_ORACLES
    chosen = oracle_name(clf.oracle_, clf.oracle_params_)
    stumps = np.nanmax(np.nanmean(clf.cv_scores_by_oracle_[names[0]], axis=0))
    trees = np.nanmax(np.nanmean(clf.cv_scores_by_oracle_[chosen], axis=0))
    assert trees > stumps and np.array_equal(clf.cv_scores_, clf.cv_scores_by_oracle_[chosen], equal_nan=True)
    plain = LPBoostClassifier(nu=clf.nu_, oracle="gb-trees", oracle_params=clf.oracle_params_).fit(X, y)
    np.testing.assert_array_equal(clf.decision_function(X), plain.decision_function(X))
    # on additive data the stumps win, or the first of the others whose best is above the one
    # chosen so far by more than that one's standard error (the stumps are preferred)
    Xa, ya = DATASETS["cancer-80x5"]()
    additive = LPBoostCV(nus=[0.4, 0.2]).fit(Xa, ya)
    best = None
    for name, params in AUTO_ORACLES:
        table = additive.cv_scores_by_oracle_[oracle_name(name, params)]
        mean = np.nanmean(table, axis=0)
        k = int(np.nanargmax(mean))
        if best is None or mean[k] > best[0] + best[1]:
            best = (mean[k], _se(table[:, k], rows=Xa.shape[0]), name, params)
    assert (additive.oracle_, additive.oracle_params_) == (best[2], best[3])
    # one multiclass LP chooses between a forest's staged class votes (its 200 iterations, stopped
    # early, and K binary forests stopped early: these on at least ONE_VS_REST_ROWS_PER_CLASS rows a
    # class), class stumps and class trees (a binary forest's trees do not vote for a class)
    from lpboosting.estimators import cv

    X3 = np.column_stack([X, rng.uniform(-1, 1, 160)])
    y3 = np.where(X[:, 0] * X[:, 1] > 0, 0, 1) + (X3[:, 2] > 0.5)
    few = {"gb-trees", "gb-trees(early_stopping=True)", "stumps", "trees(max_depth=5)"}
    assert X3.shape[0] < 3 * cv.ONE_VS_REST_ROWS_PER_CLASS
    three = LPBoostCV(nus=[0.4, 0.2]).fit(X3, y3)
    assert set(three.cv_scores_by_oracle_) == few
    monkeypatch.setattr(cv, "ONE_VS_REST_ROWS_PER_CLASS", X3.shape[0] // 3)  # 160 rows: 53 a class
    three = LPBoostCV(nus=[0.4, 0.2]).fit(X3, y3)
    assert set(three.cv_scores_by_oracle_) == few | {"gb-trees(one_vs_rest=True, early_stopping=True)"}
    monkeypatch.setattr(cv, "ONE_VS_REST_ROWS_PER_CLASS", X3.shape[0] // 3 + 1)
    assert set(LPBoostCV(nus=[0.4, 0.2]).fit(X3, y3).cv_scores_by_oracle_) == few


def test_oracle_auto_refuses_what_it_cannot_choose():
    from lpboosting import RMBoostClassifier

    X, y = DATASETS["cancer-60x8"]()
    with pytest.raises(ValueError, match="has no nu"):
        RMBoostClassifier(oracle="auto").fit(X, y)
    with pytest.raises(ValueError, match="name the oracle"):
        LPBoostCV(oracle_params={"max_depth": 2}).fit(X, y)


def test_threads_give_the_same_choice_and_the_chosen_values_are_saved(tmp_path, monkeypatch):
    from lpboosting import load_model, save_model
    from lpboosting.estimators import cv

    # a family whose hypotheses JSON writes (a forest's trees are saved by pickle)
    monkeypatch.setattr(cv, "AUTO_ORACLES", (("stumps", {}), ("trees", {"max_depth": 5})))
    X, y = DATASETS["cancer-60x8"]()
    one = LPBoostCV(nus=[0.5, 0.2, 0.05]).fit(X, y)
    two = LPBoostCV(nus=[0.5, 0.2, 0.05], n_jobs=2).fit(X, y)
    assert one.nu_ == two.nu_ and one.oracle_ == two.oracle_
    for name in one.cv_scores_by_oracle_:
        np.testing.assert_array_equal(one.cv_scores_by_oracle_[name], two.cv_scores_by_oracle_[name])
    # the fold threads run with one BLAS (and OpenMP) thread each, and the limits end with the fit
    from threadpoolctl import threadpool_info

    seen, decisions = [], cv._FoldPath.decisions

    def counting(self, *args, **kwargs):
        seen.extend(pool["num_threads"] for pool in threadpool_info())
        return decisions(self, *args, **kwargs)

    before = [pool["num_threads"] for pool in threadpool_info()]
    monkeypatch.setattr(cv._FoldPath, "decisions", counting)
    LPBoostCV(nus=[0.5, 0.2], n_jobs=2).fit(X, y)
    assert seen and set(seen) == {1}
    assert [pool["num_threads"] for pool in threadpool_info()] == before
    save_model(one, tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert back.nu_ == one.nu_ and back.oracle_ == one.oracle_ and back.oracle_params_ == one.oracle_params_
    np.testing.assert_array_equal(back.cv_scores_, one.cv_scores_)
    np.testing.assert_array_equal(back.decision_function(X), one.decision_function(X))


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


@pytest.mark.parametrize("make, first", [
    (lambda: LPBoostCV(nus=[0.4, 0.2, 0.1], oracle="stumps"), "0.4"),
    (lambda: LPBoostClassifier(nu="auto"), "0.8"),  # the default grid's first
    (lambda: type("Separate", (SoftBoostCV,), {"_choose_on_path": False})(nus=[0.4, 0.2, 0.1], oracle="stumps",
                                                                         delta=0.1), "0.4")])
def test_ctrl_c_while_choosing_nu_stops_and_names_the_best_nu_scored(monkeypatch, make, first):
    # Ctrl-C once the first nu is scored on every fold, while the second is being fitted: the fold's
    # loop keeps its rounds (as a plain fit does), the search must stop rather than go on
    import lpboosting.estimators.cv as cv
    from sklearn.exceptions import NotFittedError

    from lpboosting.oracles.stumps import Stumps

    X, y = DATASETS["cancer-80x5"]()
    score, price_many, scored = cv._score, Stumps.price_many, []

    def counted(*args):
        scored.append(1)
        return score(*args)

    def pressed(self, distribution, k):
        if len(scored) == 3:  # the three folds of nu=0.4 are scored
            raise KeyboardInterrupt
        return price_many(self, distribution, k)

    monkeypatch.setattr(cv, "_score", counted)
    monkeypatch.setattr(Stumps, "price_many", pressed)
    clf = make()
    with pytest.raises(KeyboardInterrupt, match=r"interrupted while choosing nu by 3-fold cross-validation; "
                       rf"no model was fitted; the best so far is nu={first} with stumps \(mean score .*\); "
                       rf"fit with nu={first}, oracle='stumps' to use it"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a separate fit warns that it was interrupted
        clf.fit(X, y)
    assert len(scored) == 3
    with pytest.raises(NotFittedError):
        clf.predict(X)


def test_outscored_rule_on_known_scores():
    from lpboosting.estimators.cv import _outscored

    first = np.array([[0.90, 0.94], [0.92, 0.96], [0.91, 0.95]])  # best 0.95 at the 2nd nu, se 0.0058
    # its best 0.917 < 0.944 and its score fell from there: outscored
    assert _outscored(first, np.array([[0.90, 0.88], [0.93, 0.90], [0.92, 0.89]]))
    assert _outscored(first, np.array([[0.90, np.nan], [0.93, np.nan], [0.92, np.nan]]))
    assert not _outscored(first, np.array([[0.95, 0.90], [0.94, 0.90], [0.95, 0.90]]))  # its best 0.947
    assert not _outscored(np.full((3, 2), np.nan), first)  # nothing to compare with yet


def test_a_later_oracle_is_chosen_only_beyond_the_earliers_standard_error():
    from lpboosting.estimators.cv import _best

    stumps = np.array([[0.74, 0.76, 0.75], [0.75, 0.77, 0.74], [0.76, 0.75, 0.73]])  # best 0.76 at nu 1
    trees = np.array([[0.75, 0.77, np.nan], [0.76, 0.78, np.nan], [0.74, 0.76, np.nan]])  # best 0.77
    # the folds' standard error of the stumps' best is 0.0058: 0.77 is beyond it
    assert _best([stumps, trees]) == (1, 1)
    # with the binomial error of 537 validation rows (0.018) it is not: the stumps stay
    assert _best([stumps, trees], rows=537) == (0, 1)
    # within an oracle the larger nu on a tie; an oracle with no complete nu is passed over
    assert _best([np.array([[0.8, 0.8], [0.7, 0.7]])]) == (0, 0)
    assert _best([np.full((3, 2), np.nan), trees]) == (1, 1)
    assert _best([np.full((3, 2), np.nan)]) is None


def test_rising_is_the_last_score_at_the_best():
    from lpboosting.estimators.cv import _rising

    assert _rising(np.array([[0.90, 0.93, np.nan], [0.92, 0.93, np.nan]]))
    assert _rising(np.array([[0.90, 0.90], [0.92, 0.92]]))  # flat counts as rising
    assert not _rising(np.array([[0.90, 0.93, 0.91], [0.92, 0.93, 0.92]]))


def test_the_standard_error_has_the_accuracys_binomial_floor():
    from lpboosting.estimators.cv import _accuracy_rows, _se, _stop_early

    # KEEL magic's forest path (13 314 validation rows in all): a fall of 0.001 at the third nu
    # where the folds' spread gives 0.0006; the binomial error of 0.84 on those rows is 0.0032
    scores = np.array([[0.8326, 0.8371, 0.8360], [0.8331, 0.8377, 0.8367], [0.8336, 0.8380, 0.8371]])
    assert _se(scores[:, 1]) < 0.001 and _stop_early(scores)
    rows = _accuracy_rows(None, [None] * 3, [4438, 4438, 4438])
    assert rows == 13314 and _se(scores[:, 1], rows) == pytest.approx(np.sqrt(0.8376 * 0.1624 / 13314), rel=1e-3)
    assert not _stop_early(scores, rows=rows)
    # a fall beyond the binomial error still stops it at once
    fallen = scores.copy()
    fallen[:, 2] -= 0.01
    assert _stop_early(fallen, rows=rows)
    # weighted rows count by their effective number; another scoring has no floor
    assert _accuracy_rows("accuracy", [np.array([1.0, 1.0, 2.0, 2.0])], [4]) == pytest.approx(36 / 10)
    assert _accuracy_rows("roc_auc", [None], [100]) == 0.0


def test_the_trees_path_stops_once_outscored_by_the_stumps_and_never_the_reverse(monkeypatch):
    # the later (costlier) oracle stops after PATIENCE nus in a row with its best score below the
    # stumps' best by more than its standard error, once its own score has stopped rising; the
    # scores it has are those of the full run (a few CART trees of depth 5 as the later oracle:
    # on additive data the stumps outscore them)
    from lpboosting.estimators import cv
    from lpboosting.estimators.cv import PATIENCE, _accuracy_rows, _outscored, _rising, _stop_early

    monkeypatch.setattr(cv, "AUTO_ORACLES", (("stumps", {}), ("trees", {"max_depth": 5})))

    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 10))
    y = np.where(X.sum(axis=1) > 0, 1, -1)  # additive: the stumps' sum follows it, a few trees cannot
    nus = [0.8, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05]
    full = LPBoostCV(nus=nus, early_stopping=False).fit(X, y)
    early = LPBoostCV(nus=nus).fit(X, y)
    stumps, trees = (full.cv_scores_by_oracle_[k] for k in ("stumps", "trees(max_depth=5)"))
    # where each path stops by the rules, from the full tables
    rows = _accuracy_rows(None, [None], [X.shape[0]])  # the three folds' validation rows
    own = next((j + 1 for j in range(1, len(nus)) if _stop_early(stumps[:, :j], rows=rows)), len(nus))
    stumps_seen = np.where(np.arange(len(nus)) < own, 0, np.nan) + stumps
    behind, stop = 0, len(nus)
    for j in range(1, len(nus)):
        behind = behind + 1 if _outscored(stumps_seen[:, :j], trees[:, :j]) else 0
        if _stop_early(trees[:, :j], rows=rows) or (behind >= PATIENCE and not _rising(trees[:, :j])):
            stop = j
            break
    # the rule is what stopped the trees here, not their own
    assert behind >= PATIENCE and stop < len(nus) and not _stop_early(trees[:, :stop], rows=rows)
    got = early.cv_scores_by_oracle_["trees(max_depth=5)"]
    np.testing.assert_array_equal(got[:, :stop], trees[:, :stop])
    assert np.isnan(got[:, stop:]).all()
    np.testing.assert_array_equal(early.cv_scores_by_oracle_["stumps"][:, :own], stumps[:, :own])
    assert np.isnan(early.cv_scores_by_oracle_["stumps"][:, own:]).all()  # the stumps: their own rule only


def test_the_forest_stopped_early_is_stopped_early_in_the_folds_and_the_refit(monkeypatch):
    from lpboosting.estimators import cv

    # the family's forest stopped early alone: the folds score the forest the refit fits
    stopped = ("gb-trees", {"whole_forest": True, "early_stopping": True})
    monkeypatch.setattr(cv, "AUTO_ORACLES", (stopped,))
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(400, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    y[rng.random(400) < 0.2] *= -1  # noisy labels: the forest stops well before its 200 trees
    seen = []
    real = cv._FoldPath.__init__

    def recorded(self, *args, **kwargs):
        real(self, *args, **kwargs)
        seen.extend(run[0].oracle for run in self.runs)

    monkeypatch.setattr(cv._FoldPath, "__init__", recorded)
    clf = LPBoostCV(nus=[0.4, 0.2]).fit(X, y)
    assert clf.oracle_ == "gb-trees" and clf.oracle_params_ == stopped[1]
    assert len(seen) == 3 and all(o.early_stopping is True and o.forest.n_trees < 200 for o in seen)
    assert clf._oracle.early_stopping is True and clf._oracle.forest.n_trees < 200
    plain = LPBoostClassifier(nu=clf.nu_, oracle="gb-trees", oracle_params=stopped[1]).fit(X, y)
    np.testing.assert_array_equal(clf.decision_function(X), plain.decision_function(X))


def test_a_later_oracles_flat_path_stops_and_the_choice_stays():
    from lpboosting.estimators.cv import PATIENCE, _flat

    assert _flat(np.array([[0.8, 0.8, 0.8], [0.7, 0.7, 0.7]]))
    assert not _flat(np.array([[0.8, 0.8], [0.7, 0.7]]))  # fewer than PATIENCE + 1 nus
    assert not _flat(np.array([[0.8, 0.8, 0.8], [0.7, 0.6, 0.7]]))  # one fold moved (the mean did too)
    assert not _flat(np.array([[0.8, 0.7, 0.8], [0.7, 0.8, 0.7]]))  # the mean stayed, the folds did not
    # XOR with noisy labels: the LP puts all its weight on a forest, whose path stays flat
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(300, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    y[rng.random(300) < 0.1] *= -1
    nus = [0.8, 0.6, 0.4, 0.3, 0.2, 0.1]
    full = LPBoostCV(nus=nus, early_stopping=False).fit(X, y)
    early = LPBoostCV(nus=nus).fit(X, y)
    flat = [name for name, t in full.cv_scores_by_oracle_.items()
            if name != "stumps" and (t[:, :PATIENCE + 1] == t[:, :1]).all()]
    assert flat  # the rule has something to stop here
    for name in flat:  # scored down to the third nu, then stopped (and not by another rule before)
        got = early.cv_scores_by_oracle_[name]
        np.testing.assert_array_equal(got[:, :PATIENCE + 1], full.cv_scores_by_oracle_[name][:, :PATIENCE + 1])
        assert np.isnan(got[:, PATIENCE + 1:]).all()
    assert (early.oracle_, early.oracle_params_, early.nu_) == (full.oracle_, full.oracle_params_, full.nu_)
    np.testing.assert_array_equal(early.decision_function(X), full.decision_function(X))


def test_reach_carries_the_last_rise_per_unit_of_nu_to_the_smallest_nu():
    from lpboosting.estimators.cv import _reach

    nus = np.array([0.8, 0.6, 0.4, 0.2, 0.1])
    rising = np.array([[0.80, 0.84, 0.86], [0.80, 0.86, 0.88]])  # means 0.80, 0.85, 0.87
    # the last rise 0.02 over 0.2 of nu, carried from nu 0.4 to 0.1: 0.87 + 0.1 * 0.3
    assert _reach(rising, nus) == pytest.approx(0.90)
    assert _reach(np.array([[0.86, 0.82], [0.84, 0.84]]), nus) == pytest.approx(0.85)  # fallen: its best
    assert _reach(np.array([[0.80, 0.86, 0.86], [0.80, 0.84, 0.84]]), nus) == pytest.approx(0.85)  # flat
    # one nu, or scores that have not moved from the largest nu's: nothing to carry on
    assert _reach(rising[:, :1], nus) == np.inf
    assert _reach(np.array([[0.81, 0.81, 0.81], [0.79, 0.79, 0.79]]), nus) == np.inf
    # at the smallest nu nothing of the grid is left: its best
    assert _reach(np.array([[0.80, 0.82, 0.84, 0.86, 0.88]] * 2), nus) == pytest.approx(0.88)


def test_overtaken_is_a_lead_beyond_the_reach_by_more_than_the_leaders_standard_error():
    from lpboosting.estimators.cv import _overtaken, _se

    nus = np.array([0.8, 0.6, 0.4, 0.2, 0.1])
    first = np.array([[0.80, 0.84, 0.86], [0.80, 0.86, 0.88], [0.80, 0.85, 0.87]])  # reach 0.90
    leader = np.array([[0.93, 0.94, np.nan], [0.95, 0.96, np.nan], [0.94, 0.95, np.nan]])  # best 0.95
    assert _se(leader[:, 1]) == pytest.approx(0.0058, abs=1e-4)
    assert _overtaken(first, [leader], nus)
    assert not _overtaken(first, [leader - 0.048], nus)  # 0.902 - 0.0058 is within the reach
    assert _overtaken(first, [np.full((3, 5), np.nan), leader], nus)  # any later oracle
    assert not _overtaken(first, [leader], nus, rows=10)  # the binomial error of 10 rows: 0.069
    assert not _overtaken(first[:, :1], [leader], nus)  # one nu: no reach yet


def test_the_stumps_path_stops_once_the_trees_lead_beyond_its_reach(monkeypatch):
    # the first oracle stops after PATIENCE nus in a row with a later one's best above its best by
    # more than that one's standard error, once the later one is beyond its reach (its last rise per
    # unit of nu carried on to the smallest nu); the scores it has are those of the full run (an
    # interaction of two features that CART trees of depth 5 follow and a sum of stumps cannot)
    from lpboosting.estimators import cv
    from lpboosting.estimators.cv import _accuracy_rows, _stop_early
    from tests.helpers import nus_until_out_of_reach

    monkeypatch.setattr(cv, "AUTO_ORACLES", (("stumps", {}), ("trees", {"max_depth": 5})))
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + X[:, 1] + 3 * X[:, 2] * X[:, 3] > 0, 1, -1)
    nus = [0.8, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05, 0.02]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        full = LPBoostCV(nus=nus, early_stopping=False).fit(X, y)
        early = LPBoostCV(nus=nus).fit(X, y)
    stumps, trees = (full.cv_scores_by_oracle_[k] for k in ("stumps", "trees(max_depth=5)"))
    rows = _accuracy_rows(None, [None], [X.shape[0]])
    own = next((j for j in range(1, len(nus) + 1) if _stop_early(stumps[:, :j], rows=rows)), len(nus))
    stop = nus_until_out_of_reach(trees, stumps, nus, rows)
    # the rule stopped the stumps, before their own rule would have, with the trees still ahead
    assert stop < own <= len(nus)
    got = early.cv_scores_by_oracle_["stumps"]
    np.testing.assert_array_equal(got[:, :stop], stumps[:, :stop])
    assert np.isnan(got[:, stop:]).all()
    assert early.oracle_ == "trees" and np.nanmax(trees.mean(axis=0)) > np.nanmax(stumps.mean(axis=0)) + 0.1


def test_a_nu_that_runs_out_of_its_time_budget_ends_the_path_and_is_not_chosen(monkeypatch):
    """Each nu's run on a fold may take at most BUDGET_FACTOR times that fold's path so far (at least
    BUDGET_FLOOR seconds). The clock is virtual: every master solve takes one second of it."""
    import time

    from lpboosting.estimators import cv
    from tests.helpers import SlowBackend, VirtualClock

    X, y = DATASETS["cancer-80x5"]()
    clock = VirtualClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    monkeypatch.setattr(cv, "BUDGET_FLOOR", 0.5)

    def fit(**params):
        clf = LPBoostCV(oracle="stumps", nus=[0.8, 0.05], columns_per_round=1, stabilization=None,
                        backend=SlowBackend("highspy", 1.0, sleep=clock.sleep), **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return clf.fit(X, y)

    full = fit(early_stopping=False)
    assert not np.isnan(full.cv_scores_).any() and full.cv_budget_stops_ == {}
    runs = []  # the nu of every fold run
    decisions = cv._FoldPath.decisions
    monkeypatch.setattr(cv._FoldPath, "decisions", lambda self, nu, budgeted=False: (
        runs.append(nu), decisions(self, nu, budgeted))[1])
    budgeted = fit()
    # the folds run one after the other: the first that runs out ends nu = 0.05 for all
    assert runs.count(0.8) == 3 and runs.count(0.05) == 1
    # at nu = 0.8 a fold's path takes a round or two; nu = 0.05 needs more than BUDGET_FACTOR times that
    assert np.isnan(budgeted.cv_scores_[:, 1]).all() and budgeted.cv_budget_stops_ == {"stumps": 0.05}
    assert budgeted.nu_ == 0.8 and budgeted.status_ == "converged"
    np.testing.assert_array_equal(budgeted.cv_scores_[:, 0], full.cv_scores_[:, 0])


def test_cv_folds_without_conflicting_repeated_rows_are_scikit_learns():
    from lpboosting.estimators.cv import cv_folds

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), rng.integers(0, 2, 40)
    # no weights; weights 1; weights that are not whole; whole weights on rows of one label each
    for w in (None, np.ones(40), rng.uniform(0.5, 2.0, 40), rng.integers(1, 5, 40).astype(float)):
        ours = cv_folds(3, X, y, w)
        for (train, w_train, test, w_test), (train_s, test_s) in zip(ours, StratifiedKFold(3).split(X, y)):
            assert train.tolist() == train_s.tolist() and test.tolist() == test_s.tolist()
            assert (w_test is None) == (w is None) and (w is None or np.array_equal(w_test, w[test]))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 12)), min_size=8, max_size=30),
       st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_cv_folds_spread_the_copies_of_rows_whose_features_have_two_labels(rows, k, seed):
    # a row of weight s whose features also come with another label is s copies spread over the
    # folds, as repeated rows would be: the first in scikit-learn's fold for the row, the others in
    # the folds after it; any other row is held out whole, in scikit-learn's fold
    from lpboosting.estimators.cv import cv_folds

    features, counts = (np.array(v) for v in zip(*rows))
    y = np.random.default_rng(seed).permutation(np.arange(counts.size) % 2)
    X = features[:, None].astype(float)
    keep = np.unique(np.column_stack([features, y]), axis=0, return_index=True)[1]  # merged rows are distinct
    X, y, counts = X[np.sort(keep)], y[np.sort(keep)], counts[np.sort(keep)]
    if np.bincount(y, minlength=2).min() < k:
        return
    folds = cv_folds(k, X, y, counts.astype(float))
    test = np.zeros((k, counts.size))
    for f, (train, w_train, val, w_val) in enumerate(folds):
        test[f, val] = w_val
        whole = np.zeros(counts.size)
        whole[train] = w_train
        assert np.array_equal(whole + test[f], counts)  # each copy is in training or validation
    assert np.array_equal(test.sum(axis=0), counts)  # each copy is validated once
    first = np.empty(counts.size, dtype=int)
    for f, (_, val) in enumerate(StratifiedKFold(k).split(X, y)):
        first[val] = f
    two_labels = np.array([np.unique(y[X[:, 0] == x]).size > 1 for x in X[:, 0]])
    if two_labels.any() and counts.max() > 1:
        spread = test[:, two_labels]
        assert np.all(spread.max(axis=0) - spread.min(axis=0) <= 1)  # evenly over the folds
        assert np.all(test[first, np.arange(counts.size)][two_labels] >= 1)
    one = ~two_labels if counts.max() > 1 else np.ones(counts.size, dtype=bool)
    assert np.array_equal(test[first, np.arange(counts.size)][one], counts[one])  # whole, in its fold
