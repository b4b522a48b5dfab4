"""LPBoostClassifier and LPBoostCV with more than two classes fitted by one multiclass LP."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning

from lpboosting import LPBoostClassifier, LPBoostCV
from lpboosting.errors import UnknownOracleError
from lpboosting.masters import MulticlassLPBoost, soft_margin
from lpboosting.oracles.multiclass import ClassStump
from lpboosting.pairs import pair_columns

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
NAMES = np.array(["setosa", "versicolor", "virginica"])[Y_IRIS]


def fit(**params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LPBoostClassifier(**params).fit(X_IRIS[::2], NAMES[::2])


def test_one_lp_over_all_classes():
    clf = fit(nu=0.1)
    assert not hasattr(clf, "one_vs_rest_")
    assert clf.status_ == "converged" and clf.result_.gap <= 1e-6
    assert all(isinstance(h, ClassStump) for h in clf.hypotheses_)
    # the objective is the multiclass soft margin of the fitted votes on the training rows,
    # computed here from the votes (not read from the solver)
    X, y = X_IRIS[::2], NAMES[::2]
    votes = clf.decision_function(X)
    codes = np.searchsorted(clf.classes_, y)
    others = votes.copy()
    others[np.arange(y.size), codes] = -np.inf
    margins = votes[np.arange(y.size), codes] - others.max(axis=1)
    np.testing.assert_allclose(clf.margins(X, y), margins, atol=1e-12)
    assert clf.objective_ == pytest.approx(soft_margin(margins, 0.1), abs=1e-8)
    # the votes are the weights of the hypotheses voting for each class: rows sum to 1
    np.testing.assert_allclose(votes.sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(clf.predict_proba(X), votes, atol=1e-9)
    assert set(clf.predict(X)) <= set(clf.classes_)
    assert clf.score(X, y) >= 0.95


def test_the_distribution_is_over_pairs():
    clf = fit(nu=0.2)
    X, y = X_IRIS[::2], NAMES[::2]
    table = clf.distribution_
    codes = np.searchsorted(clf.classes_, y)
    assert table.shape == (y.size, 3)
    assert np.all(table[np.arange(y.size), codes] == 0)  # no pair with the true class
    assert table.sum() == pytest.approx(1.0, abs=1e-9)
    assert table.sum(axis=1).max() <= 1 / (0.2 * y.size) + 1e-9  # each example's cap
    # the pairs that carry mass are the hard ones: their margin is at most rho
    votes = clf.decision_function(X)
    pair_margin = votes[np.arange(y.size), codes][:, None] - votes
    rho = clf.result_.solution.rho
    assert np.all(pair_margin[table > 1e-9] <= rho + 1e-7)


def test_the_master_is_the_multiclass_lp_and_k2_is_lpboost():
    clf = fit(nu=0.3)
    assert isinstance(clf.result_.state.master, MulticlassLPBoost)
    U = pair_columns(np.column_stack([h.predict(X_IRIS[::2]) for h in clf.hypotheses_]),
                     np.searchsorted(clf.classes_, NAMES[::2]), 3)
    assert MulticlassLPBoost(0.3, 3).solve(U).objective == pytest.approx(clf.objective_, abs=1e-9)
    two = LPBoostClassifier(nu=0.3).fit(X_IRIS[:100], NAMES[:100])  # two classes: LPBoost as before
    assert type(two.result_.state.master).__name__ == "LPBoost"


def test_label_names_and_row_order_do_not_matter():
    a = fit(nu=0.1)
    rng = np.random.default_rng(0)
    rows = rng.permutation(75)
    b = LPBoostClassifier(nu=0.1).fit(X_IRIS[::2][rows], Y_IRIS[::2][rows] * 10)
    assert b.objective_ == pytest.approx(a.objective_, abs=1e-9)
    np.testing.assert_array_equal(np.searchsorted(b.classes_, b.predict(X_IRIS)),
                                  np.searchsorted(a.classes_, a.predict(X_IRIS)))


def test_staged_output_ends_at_the_model():
    clf = fit(nu=0.1, columns_per_round=2)
    stages = list(clf.staged_predict_proba(X_IRIS))
    assert len(stages) == clf.n_rounds_
    np.testing.assert_array_equal(stages[-1], clf.predict_proba(X_IRIS))
    assert list(clf.staged_predict(X_IRIS))[-1].tolist() == clf.predict(X_IRIS).tolist()


def test_one_vs_rest_stays_available():
    clf = fit(nu=0.1, multiclass="one-vs-rest")
    assert len(clf.one_vs_rest_) == 3
    assert clf.decision_function(X_IRIS).shape == (150, 3)


def test_warm_start_pickle_importances_and_describe():
    clf = LPBoostClassifier(nu=0.05, max_rounds=2, columns_per_round=1, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X_IRIS, NAMES)
        assert clf.status_ == "max_rounds"
        clf.set_params(max_rounds=500).fit(X_IRIS, NAMES)
    assert clf.status_ == "converged"
    full = LPBoostClassifier(nu=0.05, columns_per_round=1).fit(X_IRIS, NAMES)
    assert clf.objective_ == pytest.approx(full.objective_, abs=1e-9)
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(copy.predict_proba(X_IRIS), clf.predict_proba(X_IRIS))
    importances = clf.feature_importances_
    assert importances.shape == (4,) and importances.sum() == pytest.approx(1.0)
    assert "'virginica' if" in clf.describe() or "'versicolor' if" in clf.describe()


def test_trees_and_a_callable_oracle():
    clf = fit(nu=0.1, oracle="trees", oracle_params={"max_depth": 2})
    assert clf.score(X_IRIS[::2], NAMES[::2]) >= 0.95
    assert clf.result_.gap is None  # an inexact oracle certifies nothing

    class Nearest:
        def __init__(self, k):
            self.k = k

        def predict(self, X):
            return np.full(len(X), self.k)

    def constant(X, y, scores):
        return Nearest(int(np.argmax(scores.sum(axis=0))))

    clf = fit(nu=0.5, oracle=constant)
    assert clf.n_estimators_ >= 1


def test_binned_stumps_fit_one_lp_at_the_bin_edges():
    from lpboosting.oracles.binned import bin_thresholds

    clf = fit(nu=0.2, oracle="binned-stumps", oracle_params={"max_bins": 8})
    assert not hasattr(clf, "one_vs_rest_") and clf.status_ == "converged"
    X = X_IRIS[::2]
    for h in clf.hypotheses_:  # each stump splits the rows where a bin edge does
        if h.constant is None and np.isfinite(h.threshold):
            x = X[:, h.feature]
            assert any(np.array_equal(x > h.threshold, x > t) for t in bin_thresholds(x, 8))
    # each fit is certified within its tol (1e-6, the gap) of the LP over its class of stumps
    tol = clf.tol
    wide = fit(nu=0.2, oracle="binned-stumps")  # 255 bins: more than iris's distinct values, every stump
    assert wide.objective_ == pytest.approx(fit(nu=0.2).objective_, abs=2 * tol)
    assert clf.objective_ <= wide.objective_ + tol  # fewer stumps, a soft margin at most as large


def test_oracles_without_a_multiclass_form_say_what_to_do():
    with pytest.raises(UnknownOracleError, match="multiclass='one-vs-rest'"):
        fit(nu=0.1, oracle="features")
    with pytest.raises(ValueError, match="multiclass"):
        fit(nu=0.1, multiclass="ovr")


def test_cv_chooses_nu_on_the_multiclass_path():
    X, y = load_wine(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = LPBoostCV(oracle="stumps", nus=[0.5, 0.2, 0.05], early_stopping=False).fit(X, y)
    assert clf.nu_ in (0.5, 0.2, 0.05)
    assert not hasattr(clf, "one_vs_rest_") and isinstance(clf.result_.state.master, MulticlassLPBoost)
    assert clf.cv_scores_.shape == (3, 3) and np.all(np.isfinite(clf.cv_scores_))
    assert clf.score(X, y) >= 0.95


def test_cv_takes_the_merged_rows_in_the_order_they_were_given():
    # merge_rows sorts the merged rows for the fit; stratified folds of sorted rows would each hold
    # one range of x, so the folds that choose nu take them in the order of their first given row
    from lpboosting.estimators.base import merge_rows

    X = np.array([[3.0], [1.0], [3.0], [2.0], [0.0]])
    y = np.array([0, 1, 0, 1, 0])
    Xm, ym, w, rows = merge_rows(X, y, None)
    assert Xm[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0] and w.tolist() == [1.0, 1.0, 1.0, 2.0]
    assert Xm[rows.given_order(), 0].tolist() == [3.0, 1.0, 2.0, 0.0]
    # a zero weight drops a row: it has no place in the order
    Xm, ym, w, rows = merge_rows(X, y, np.array([1.0, 0.0, 1.0, 1.0, 1.0]))
    assert Xm[rows.given_order(), 0].tolist() == [3.0, 2.0, 0.0]


@pytest.mark.parametrize("nu", [0.1, 0.3])
def test_native_erlpboost_is_within_delta_of_the_multiclass_lp(nu):
    """ERLPBoostClassifier(multiclass="native"): one MulticlassERLPBoost master; its final soft
    margin (the multiclass LP's over its columns) is within delta of the optimum, which the
    native LPBoost fit certifies (gap <= its tol)."""
    from lpboosting import ERLPBoostClassifier
    from lpboosting.masters import MulticlassERLPBoost

    X, y = load_wine(return_X_y=True)
    delta = 0.02
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = ERLPBoostClassifier(nu=nu, delta=delta, multiclass="native").fit(X, y)
        exact = LPBoostClassifier(nu=nu).fit(X, y)
    assert isinstance(clf._make_master(X.shape[0]), MulticlassERLPBoost)
    assert not hasattr(clf, "one_vs_rest_") and clf.status_ == "converged"
    assert exact.status_ == "converged" and exact.result_.gap <= 1e-6
    assert exact.objective_ - delta <= clf.objective_ <= exact.objective_ + 1e-8
    # the objective is the multiclass soft margin of the fitted votes, computed from them here
    assert clf.objective_ == pytest.approx(soft_margin(clf.margins(X, y), nu), abs=1e-8)
    table = clf.distribution_
    assert table.shape == (y.size, 3) and table.sum() == pytest.approx(1.0, abs=1e-9)
    assert table.sum(axis=1).max() <= 1 / (nu * y.size) + 1e-8  # each example's pairs capped together
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0, atol=1e-9)
    assert ERLPBoostClassifier().multiclass == "one-vs-rest"
    ovr = ERLPBoostClassifier(nu=nu, delta=delta).fit(X, y)
    assert len(ovr.one_vs_rest_) == 3


def test_erlpboost_cv_chooses_nu_on_the_multiclass_path_and_refits_one_master():
    from lpboosting import ERLPBoostCV
    from lpboosting.masters import MulticlassERLPBoost

    X, y = load_wine(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = ERLPBoostCV(oracle="stumps", nus=[0.5, 0.2, 0.05], early_stopping=False, multiclass="native").fit(X, y)
        exact = LPBoostClassifier(nu=clf.nu_).fit(X, y)
    assert clf.nu_ in (0.5, 0.2, 0.05) and clf.cv_scores_.shape == (3, 3)
    assert not hasattr(clf, "one_vs_rest_") and isinstance(clf.result_.state.master, MulticlassERLPBoost)
    assert exact.objective_ - clf.delta <= clf.objective_ <= exact.objective_ + 1e-8


def discrete_noisy(K: int = 5, noise: float = 0.5, n: int = 300, seed: int = 0):
    """One feature of K levels that is the class, two coin flips, and half the labels redrawn: many
    equal rows with different labels, so the multiclass soft margin is 0 at nu = 0.8."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, K, n), rng.integers(0, 2, (n, 2))]).astype(float)
    y = X[:, 0].astype(int)
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, K, flip.sum())
    return X, y


def test_cv_goes_above_the_grid_when_its_largest_nu_is_degenerate():
    from lpboosting.estimators.cv import DEFAULT_NUS, UPPER_NUS

    X, y = discrete_noisy()
    at_top = fit_quietly(LPBoostClassifier(nu=DEFAULT_NUS[0], oracle="stumps"), X, y)
    assert at_top.objective_ <= at_top.degenerate_margin  # the grid's largest nu is degenerate here
    clf = fit_quietly(LPBoostCV(oracle="stumps"), X, y)
    assert clf.nus_.tolist() == [*UPPER_NUS, *DEFAULT_NUS]
    assert np.all(np.isfinite(clf.cv_scores_[:, 0]))  # every fold scored at nu = 1
    # a nu whose LP is degenerate on a fold is not chosen, and ends the path: so are the smaller ones
    stop = clf.cv_degenerate_stops_["stumps"]
    assert clf.nu_ > stop and np.isnan(clf.cv_scores_[:, clf.nus_ <= stop]).all()
    assert clf.objective_ > clf.degenerate_margin
    # a grid given is the grid
    given = fit_quietly(LPBoostCV(oracle="stumps", nus=[0.8, 0.5]), X, y)
    assert given.nus_.tolist() == [0.8, 0.5]


def test_cv_keeps_its_grid_when_the_largest_nu_is_not_degenerate():
    from lpboosting.estimators.cv import DEFAULT_NUS

    clf = fit_quietly(LPBoostCV(oracle="stumps"), X_IRIS, NAMES)
    assert clf.nus_.tolist() == list(DEFAULT_NUS) and clf.cv_degenerate_stops_ == {}


def fit_quietly(clf, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clf.fit(X, y)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_the_soft_margin_falls_with_nu(K, n, seed):
    # why a degenerate largest nu sends the path up: for fixed w the value is the mean of the
    # lowest nu share of the examples' least margins, so it (and its maximum over w) falls with nu
    rng = np.random.default_rng(seed)
    margins = rng.uniform(-1, 1, n * (K - 1))
    values = [MulticlassLPBoost(nu=nu, n_classes=K).value_at(margins) for nu in (1.0, 0.9, 0.8, 0.5, 0.1)]
    assert all(a >= b - 1e-12 for a, b in zip(values, values[1:]))


def test_a_degenerate_multiclass_optimum_is_said():
    X, y = discrete_noisy()
    with pytest.warns(ConvergenceWarning, match="multiclass soft margin's optimum .* at or near 0") as caught:
        clf = LPBoostClassifier(nu=0.8, oracle="stumps").fit(X, y)
    assert clf.objective_ <= clf.degenerate_margin
    assert "LPBoostCV" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # not degenerate at nu = 1 here: no warning
        assert LPBoostClassifier(nu=1.0, oracle="stumps").fit(X, y).objective_ > 1e-3


def test_cv_on_repeated_rows_scores_them_as_copies():
    # 300 rows, 20 distinct: held out whole, a row's most frequent label leaves only its other labels
    # to train on, and every nu scored below the constant vote for the most frequent class
    X, y = discrete_noisy()
    clf = fit_quietly(LPBoostCV(oracle="stumps"), X, y)
    constant = np.bincount(y).max() / y.size
    assert np.nanmax(clf.cv_scores_.mean(axis=0)) > constant + 0.1
    assert clf.score(X, y) > constant + 0.1


def test_a_later_oracle_of_the_multiclass_race_is_budgeted_from_its_first_nu(monkeypatch):
    """In one multiclass LP's race (``oracle="auto"``) the forest's staged votes come first; a later
    oracle's run on a fold gets its time budget (BUDGET_FLOOR) at the first nu too, where the first
    oracle's and every binary one's run has none.  The clock is virtual: every master solve takes
    one second of it."""
    import time

    from lpboosting.estimators import cv
    from tests.helpers import SlowBackend, VirtualClock

    X, y = load_wine(return_X_y=True)
    clock = VirtualClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    monkeypatch.setattr(cv, "BUDGET_FLOOR", 0.5)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = LPBoostCV(nus=[0.8], backend=SlowBackend("highspy", 1.0, sleep=clock.sleep)).fit(X, y)
    assert [name for name, _ in cv.MULTICLASS_AUTO_ORACLES][0] == "gb-trees"
    later = [cv.oracle_name(*oracle) for oracle in cv.MULTICLASS_AUTO_ORACLES[1:]]
    # the stumps' run takes rounds of a second each and is stopped at its budget (a run that converges
    # in its first round, as the trees' may, is scored)
    assert native.cv_budget_stops_["stumps"] == 0.8 and set(native.cv_budget_stops_) <= set(later)
    assert all(np.isnan(native.cv_scores_by_oracle_[name]).all() for name in native.cv_budget_stops_)
    assert native.oracle_ == "gb-trees" and np.isfinite(native.cv_scores_).all()
    assert native.status_ == "converged" and native.score(X, y) >= 0.95
    # a binary LP's race: the first runs are not budgeted
    two = y < 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        binary = LPBoostCV(nus=[0.8], backend=SlowBackend("highspy", 1.0, sleep=clock.sleep)).fit(X[two], y[two])
    assert binary.cv_budget_stops_ == {} and np.isfinite(binary.cv_scores_).all()


def test_a_later_path_of_the_multiclass_race_takes_at_most_the_first_oracles_time_on_its_fold(monkeypatch):
    """A later oracle's whole path on a fold (its oracle's set-up included) may take at most
    RIVAL_FACTOR times what the first oracle's path has taken on the same fold (at least
    BUDGET_FLOOR): each run gets what is left of it (when that is less than its own budget), and
    a nu with nothing left is not run (not scored: NaN, ``exhausted``).  The clock is virtual."""
    import time

    from lpboosting.colgen import NuPathRun
    from lpboosting.estimators import cv
    from tests.helpers import VirtualClock

    X, y = load_wine(return_X_y=True)
    monkeypatch.setattr(time, "perf_counter", VirtualClock())
    monkeypatch.setattr(cv, "BUDGET_FLOOR", 0.5)
    monkeypatch.setattr(cv, "RIVAL_FACTOR", 1.0)
    limits = []
    solve = NuPathRun.solve

    def recorded(self, nu, time_limit=None):
        limits.append(time_limit)
        return solve(self, nu, time_limit=time_limit)

    monkeypatch.setattr(NuPathRun, "solve", recorded)
    classes = np.unique(y)
    make = lambda oracle: cv._FoldPath(LPBoostCV(), oracle, X[::2], y[::2], None, X[1::2], classes)  # noqa: E731
    first, later = make(("gb-trees", {})), make(("trees", {"max_depth": 5}))
    later.rival = first
    first.setup, first.seconds, later.setup = 2.0, 1.0, 0.0  # the first's fold: 3 s so far
    later.seconds = 1.0  # its own budget: 2 s (BUDGET_FACTOR x 1 s); the first's time left: 2 s
    later.decisions(0.8, True)
    assert limits[-1] == pytest.approx(2.0, abs=1e-3)
    later.seconds = 2.5  # its own budget 5 s, the first's time left 0.5 s
    later.decisions(0.8, True)
    assert limits[-1] == pytest.approx(0.5, abs=1e-3)
    later.seconds, calls = 3.0, len(limits)  # nothing left: the nu is not run
    assert np.isnan(later.decisions(0.7, True)).all() and later.exhausted and len(limits) == calls
    first.seconds = 100.0  # time enough left beside the first's slow path: the run's own budget bounds it
    later.seconds = 1.0
    later.decisions(0.7, True)
    assert limits[-1] == pytest.approx(cv.BUDGET_FACTOR * 1.0, abs=1e-3)
    # the first oracle's own path: no rival, its first nu not budgeted
    first.seconds = 0.0
    first.decisions(0.8, True)
    assert limits[-1] is None


def test_a_later_path_of_the_multiclass_race_that_still_rises_stops_once_out_of_the_forests_reach():
    # three features decide the class, two of them by their product: a sum of class stumps cannot
    # follow it, the forest can.  The stumps' path still rises at its second nu, but its reach
    # (its last rise carried on to the grid's smallest nu) is below the forest's best
    from lpboosting.estimators.cv import _accuracy_rows, _rising
    from tests.helpers import nus_until_out_of_reach

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(240, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int) + (X[:, 2] > 0.3) + (X[:, 3] > 0.5)
    nus = [0.8, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = LPBoostCV(nus=nus, early_stopping=False).fit(X, y)
        early = LPBoostCV(nus=nus).fit(X, y)
    forest, stumps = (full.cv_scores_by_oracle_[k] for k in ("gb-trees", "stumps"))
    rows = _accuracy_rows(None, [None], [X.shape[0]])
    stop = nus_until_out_of_reach(forest, stumps, nus, rows)
    assert stop < len(nus) and _rising(stumps[:, :stop])  # rising: the reach stopped it
    got = early.cv_scores_by_oracle_["stumps"]
    np.testing.assert_array_equal(got[:, :stop], stumps[:, :stop])
    assert np.isnan(got[:, stop:]).all()
    assert early.oracle_ == "gb-trees" and np.isfinite(early.cv_scores_).all()


def test_a_solver_failure_on_one_oracles_path_ends_that_path_and_the_race_goes_on(monkeypatch):
    from lpboosting.errors import SolverError
    from lpboosting.estimators import cv

    X, y = load_wine(return_X_y=True)
    decisions = cv._FoldPath.decisions

    def failing(self, nu, budgeted=False):
        if self.oracle == "stumps" and nu < 0.8:
            raise SolverError("highspy returned error (Unknown)")
        return decisions(self, nu, budgeted)

    monkeypatch.setattr(cv._FoldPath, "decisions", failing)
    with pytest.warns(RuntimeWarning, match="the stumps oracle's path ended at a solver failure"):
        clf = LPBoostCV(nus=[0.8, 0.5, 0.2]).fit(X, y)
    stumps = clf.cv_scores_by_oracle_["stumps"]
    assert np.isfinite(stumps[:, 0]).all() and np.isnan(stumps[:, 1:]).all()
    assert clf.status_ == "converged" and clf.score(X, y) >= 0.95
    # the only oracle: the failure is the fit's
    with pytest.raises(SolverError, match="Unknown"):
        LPBoostCV(oracle="stumps", nus=[0.8, 0.5]).fit(X, y)
