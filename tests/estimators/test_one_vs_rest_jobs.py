"""n_jobs: the one-vs-rest models fitted in parallel (threads) are those of the sequential fit, for the
column-generation classifiers and the leveraging boosters alike."""

from __future__ import annotations

import threading
import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification

from lpboosting import (
    BoundedLossClassifier,
    LLDClassifier,
    LLMClassifier,
    LPBoostClassifier,
    LPBoostCV,
    ModaBoostClassifier,
    RMBoostClassifier,
    SoftBoostClassifier,
)
from lpboosting.leveraging import LogLossBoostClassifier


@pytest.fixture(scope="module")
def four_classes():
    X, y = make_classification(240, 6, n_informative=4, n_classes=4, n_clusters_per_class=1, random_state=3)
    return X, np.array(["a", "b", "c", "d"])[y]


@pytest.mark.parametrize("make", [
    lambda **kw: LPBoostClassifier(multiclass="one-vs-rest", nu=0.2, **kw),
    lambda **kw: LPBoostClassifier(multiclass="one-vs-rest", nu=0.2, oracle="trees", oracle_params={"max_depth": 2}, max_rounds=30, **kw),
    lambda **kw: LPBoostClassifier(multiclass="one-vs-rest", nu=0.2, oracle="binned-stumps", **kw),
    lambda **kw: SoftBoostClassifier(nu=0.2, delta=0.1, **kw),
    lambda **kw: RMBoostClassifier(oracle="stumps", max_rounds=40, **kw),
])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_parallel_models_are_the_sequential_ones(four_classes, make):
    X, y = four_classes
    one, two = make().fit(X, y), make(n_jobs=2).fit(X, y)
    assert len(two.one_vs_rest_) == 4
    for a, b in zip(one.one_vs_rest_, two.one_vs_rest_):
        # the same computation on the same inputs: the threads share no mutable state
        assert a.n_rounds_ == b.n_rounds_ and a.status_ == b.status_
        np.testing.assert_array_equal(a.weights_, b.weights_)
        assert [r.primal for r in a.history_] == [r.primal for r in b.history_]
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))


def test_the_fits_run_in_threads_at_once(monkeypatch):
    """With n_jobs=2 two classes' fits are under way at the same time (a barrier both must reach)."""
    X, y = load_iris(return_X_y=True)
    barrier = threading.Barrier(2, timeout=60)
    lock = threading.Lock()
    arrived = []

    def callback(record):
        if record.round == 1:
            # the first two fits to reach round 1 meet (counted under a lock: a third class's fit,
            # started in a thread whose first class is done, must not wait at the barrier alone)
            with lock:
                arrived.append(threading.get_ident())
                meet = len(arrived) <= 2
            if meet:
                barrier.wait()  # a sequential fit would wait here forever (timeout: BrokenBarrierError)
        return False

    LPBoostClassifier(multiclass="one-vs-rest", nu=0.2, n_jobs=2, callback=callback).fit(X, y)
    assert len(set(arrived[:2])) == 2


def test_warm_start_continues_models_fitted_in_parallel(four_classes):
    X, y = four_classes
    clf = LPBoostClassifier(multiclass="one-vs-rest", nu=0.2, max_rounds=3, warm_start=True, n_jobs=2)
    with pytest.warns(Warning):
        clf.fit(X, y)
    clf.set_params(max_rounds=1000, n_jobs=1).fit(X, y)  # n_jobs may change in a warm start
    once = LPBoostClassifier(multiclass="one-vs-rest", nu=0.2).fit(X, y)
    np.testing.assert_allclose(clf.objective_, once.objective_, atol=1e-7)  # HiGHS's feasibility tol


@pytest.mark.parametrize("where", ["main thread", "a fit's thread"])
@pytest.mark.filterwarnings("ignore:.*interrupted:RuntimeWarning")
def test_ctrl_c_in_a_parallel_fit_keeps_no_model_and_stops_the_other_fits(four_classes, where):
    import _thread

    X, y = four_classes
    seen = []

    def callback(record):
        seen.append(record.round)
        if len(seen) == 3:
            if where == "main thread":  # what Ctrl-C does: SIGINT, KeyboardInterrupt in the main thread
                _thread.interrupt_main()
                # the main thread handles it at its next short wait (every 0.1 s); this fit waits
                # meanwhile, so that its class cannot end before the stop, however busy the machine
                time.sleep(2.0)
            else:
                raise KeyboardInterrupt
        return False

    clf = LPBoostClassifier(multiclass="one-vs-rest", nu=0.2, n_jobs=2, callback=callback)
    with pytest.raises(KeyboardInterrupt, match="no model is kept"):  # the message of every classifier
        clf.fit(X, y)
    assert not hasattr(clf, "one_vs_rest_") and not hasattr(clf, "classes_")
    full = sum(m.n_rounds_ for m in LPBoostClassifier(multiclass="one-vs-rest", nu=0.2).fit(X, y).one_vs_rest_)
    assert len(seen) < full  # the fits under way stopped at their next round; no class started after


def test_n_jobs_is_a_parameter_of_every_classifier_and_the_cv_ones_take_it_once():
    for cls in (LPBoostClassifier, SoftBoostClassifier, RMBoostClassifier, LPBoostCV):
        assert cls().get_params()["n_jobs"] is None
    with pytest.raises(ValueError, match="n_jobs"):
        LPBoostClassifier(n_jobs=1.5).fit(*load_iris(return_X_y=True))


# -- the leveraging boosters -----------------------------------------------------------------------

LEVERAGING = {
    "LLM": lambda **kw: LLMClassifier(max_rounds=40, **kw),
    "LLD": lambda **kw: LLDClassifier(max_rounds=40, **kw),
    "LogLossBoost": lambda **kw: LogLossBoostClassifier(mode="sequential", oracle="stumps", max_rounds=40, **kw),
    "BoundedLoss": lambda **kw: BoundedLossClassifier(max_rounds=10, **kw),
    "ModaBoost": lambda **kw: ModaBoostClassifier(model="tree", max_rounds=20, **kw),
    "ModaBoost-nn": lambda **kw: ModaBoostClassifier(model="nn", max_rounds=10, **kw),
}


@pytest.mark.parametrize("name", sorted(LEVERAGING))
def test_leveraging_parallel_models_are_the_sequential_ones(four_classes, name):
    X, y = four_classes
    with warnings.catch_warnings(record=True) as one_said:
        warnings.simplefilter("always")
        one = LEVERAGING[name]().fit(X, y)
    with warnings.catch_warnings(record=True) as two_said:
        warnings.simplefilter("always")
        two = LEVERAGING[name](n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
    for a, b in zip(one.one_vs_rest_, two.one_vs_rest_):
        assert a.history_.meta.get("status") == b.history_.meta.get("status")
        assert len(a.history_) == len(b.history_)
    # the same warnings, each with its class's prefix (the threads' warnings are told apart)
    assert sorted(str(w.message) for w in one_said) == sorted(str(w.message) for w in two_said)
    assert all(str(w.message).startswith("[") for w in two_said)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_leveraging_ctrl_c_in_a_parallel_fit_keeps_no_model(four_classes, monkeypatch):
    import _thread

    from lpboosting.leveraging import _common

    X, y = four_classes
    calls = []
    release = _common.CtrlC.release

    def interrupting_release(self):
        calls.append(1)
        if len(calls) == 5:
            _thread.interrupt_main()  # what Ctrl-C does: KeyboardInterrupt in the main thread
        return release(self)

    monkeypatch.setattr(_common.CtrlC, "release", interrupting_release)
    clf = LLMClassifier(max_rounds=5000, tol=0, n_jobs=2)
    with pytest.raises(KeyboardInterrupt, match="no model is kept"):
        clf.fit(X, y)
    assert not hasattr(clf, "one_vs_rest_")
    assert len(calls) < 4 * 5000  # the fits stopped at their next round


def test_leveraging_n_jobs_is_a_parameter():
    for make in LEVERAGING.values():
        assert make().get_params()["n_jobs"] is None
    with pytest.raises(ValueError, match="n_jobs"):
        LLMClassifier(n_jobs="two").fit(*load_iris(return_X_y=True))


def test_an_error_in_one_parallel_fit_is_raised_and_keeps_no_model(four_classes):
    X, y = four_classes

    def callback(record):
        if record.round == 2 and threading.current_thread() is not threading.main_thread():
            raise ValueError("a callback's own error")
        return False

    clf = LPBoostClassifier(multiclass="one-vs-rest", nu=0.2, n_jobs=2, callback=callback)
    with pytest.raises(ValueError, match="a callback's own error"):
        clf.fit(X, y)
    assert not hasattr(clf, "one_vs_rest_")
