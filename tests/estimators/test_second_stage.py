"""A degenerate optimum gives a useful model and says so: LPBoost's second stage.

When the soft margin's optimum is at or near 0, the classifier re-chooses its weights among
the optimal combinations: the one of largest mean margin, the soft margin held within
``second_stage_delta`` (lpboosting.backends.highs.second_stage), with one warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning

from lpboosting import LPBoostClassifier, SoftBoostClassifier
from lpboosting.backends.highs.second_stage import largest_mean_margin
from lpboosting.masters import LPBoost, soft_margin

#: margins of three hypotheses on four examples: h and -h cancel (u1 = -u2), u3 is right on one
#: example and abstains on the rest.  The soft margin's optimum at nu = 1/4 is 0, reached by
#: (1/2, 1/2, 0) (a constant vote) and by (0, 0, 1) (mean margin 1/4) and their mixtures.
FACE = np.array([[1.0, -1.0, 1.0], [1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]])


def second_stage_lp(U: np.ndarray, nu: float, value: float, delta: float) -> float:
    """The second stage written independently (scipy's HiGHS): the largest mean margin of a
    combination whose soft margin is at least value - delta.  Variables [w, rho, psi]."""
    n, t = U.shape
    c = 1.0 / (nu * n)
    cost = np.concatenate([-U.mean(axis=0), [0.0], np.zeros(n)])
    A_ub = np.vstack([np.hstack([-U, np.ones((n, 1)), -np.eye(n)]),
                      np.concatenate([np.zeros(t), [-1.0], np.full(n, c)])[None]])
    b_ub = np.concatenate([np.zeros(n), [delta - value]])
    A_eq = np.concatenate([np.ones(t), [0.0], np.zeros(n)])[None]
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0],
                  bounds=[(0, None)] * t + [(None, None)] + [(0, None)] * n, method="highs")
    assert res.status == 0, res.message
    return -res.fun


def test_the_second_stage_picks_the_non_constant_optimal_combination():
    stage = largest_mean_margin(FACE, LPBoost(0.25), 0.0, 1e-9)
    assert stage.status.ok
    np.testing.assert_allclose(stage.weights, [0.0, 0.0, 1.0], atol=1e-9)
    # the largest mean margin, as the independent statement says (HiGHS's tolerances 1e-7)
    assert stage.mean_margin == pytest.approx(second_stage_lp(FACE, 0.25, 0.0, 1e-9), abs=1e-7)
    assert stage.soft_margin >= -1e-9  # the soft margin held at its optimum, 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_second_stage_keeps_the_soft_margin_and_matches_the_independent_statement(seed):
    rng = np.random.default_rng(seed)
    U = rng.choice([-1.0, 1.0], (30, 12))
    master = LPBoost(0.2)
    value = master.solve(U, backend="highspy:rows").objective
    stage = largest_mean_margin(U, master, value, 1e-9)
    assert stage.soft_margin == pytest.approx(soft_margin(U @ stage.weights, 0.2))
    assert stage.soft_margin >= value - 1e-7
    assert stage.mean_margin == pytest.approx(second_stage_lp(U, 0.2, value, 1e-9), abs=1e-7)


def fit_on_xor(**attributes):
    """LPBoostClassifier(nu=0.1) on XOR under stumps (an additive model cannot fit it: a soft margin
    near 0), its class attributes set from ``attributes``; the fitted model and its
    ConvergenceWarnings' messages."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (200, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, 0)
    clf = LPBoostClassifier(nu=0.1)
    for name, value in attributes.items():
        setattr(clf, name, value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    return clf, [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


def test_on_a_near_zero_optimum_the_classifier_takes_the_largest_mean_margin_and_warns():
    """XOR under stumps (an additive model cannot fit it): a soft margin near 0, many optimal
    combinations.  With the threshold raised to this fit's soft margin, the classifier re-chooses:
    its weights reach the largest mean margin of the optimal face (the independent statement),
    the soft margin is held, and one warning says so."""
    clf, messages = fit_on_xor(degenerate_margin=0.05)
    assert len(messages) == 1 and "largest mean margin" in messages[0], messages
    U = np.asarray(clf.result_.columns, dtype=float)
    value = clf.objective_
    stage = clf.second_stage_
    assert stage["mean_margin"] == pytest.approx(second_stage_lp(U, 0.1, value, 1e-9), abs=1e-7)
    assert stage["mean_margin"] >= stage["mean_margin_before"] - 1e-12
    margins = U @ clf.weights_
    assert soft_margin(margins, 0.1) >= value - 1e-7  # still optimal for the soft margin
    assert margins.mean() == pytest.approx(stage["mean_margin"], abs=1e-9)


def test_a_second_stage_out_of_time_keeps_the_first_stages_weights_and_says_so():
    reference, _ = fit_on_xor()
    clf, messages = fit_on_xor(degenerate_margin=0.05, second_stage_share=0.0, second_stage_floor=1e-9)
    assert len(messages) == 1 and "vertex is kept" in messages[0], messages
    assert clf.second_stage_["status"] == "time_limit"
    np.testing.assert_array_equal(clf.weights_, reference.weights_)


def test_when_the_largest_mean_margin_is_out_of_time_the_central_optimal_combination_is_taken(monkeypatch):
    """The interior point's answer (no crossover) lies in the optimal face's relative interior: its
    soft margin is the optimum, and its mean margin at least that of the solver's vertex here."""
    import lpboosting.backends.highs.second_stage as second_stage
    from lpboosting.status import SolveStatus

    def out_of_time(U, master, value, delta, time_limit=None):
        return second_stage.SecondStage(SolveStatus.TIME_LIMIT, np.zeros(U.shape[1]), np.nan, np.nan, 0.0)

    monkeypatch.setattr(second_stage, "largest_mean_margin", out_of_time)
    clf, messages = fit_on_xor(degenerate_margin=0.05)
    assert len(messages) == 1 and "the central one" in messages[0], messages
    U = np.asarray(clf.result_.columns, dtype=float)
    margins = U @ clf.weights_
    assert soft_margin(margins, 0.1) >= clf.objective_ - 1e-7  # optimal for the soft margin
    assert abs(clf.weights_.sum() - 1) < 1e-12 and clf.weights_.min() >= 0
    assert clf.second_stage_["mean_margin"] == pytest.approx(margins.mean(), abs=1e-12)


def test_a_face_of_constant_votes_only_says_the_model_is_constant():
    """One feature whose scaled values have both signs under the labels: h and -h, hard margin.
    The only optimal combination is (1/2, 1/2): the warning says the model is constant."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1, 0, 0, 1])
    clf = LPBoostClassifier(nu=0.05, oracle="features")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    messages = [str(w.message) for w in caught]
    assert any("the model is constant" in m for m in messages), messages
    assert np.ptp(clf.decision_function(X)) == 0.0


def test_a_constant_vote_far_from_0_names_the_smaller_class_share_not_noise():
    """5 of 100 rows in the smaller class, drawn at random, nu 0.2: the constant vote for the larger
    class has the soft margin 1 - 2 (0.05) / 0.2 = 0.5, and no combination of stumps does better
    here.  The warning says so, with the smaller class's share and a nu below it, and not that the
    optimum is near 0."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    y = np.zeros(100, dtype=int)
    y[rng.choice(100, 5, replace=False)] = 1
    clf = LPBoostClassifier(nu=0.2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    messages = [str(w.message) for w in caught if "optimal combination" in str(w.message)]
    assert len(messages) == 1, [str(w.message) for w in caught]
    assert clf.objective_ == pytest.approx(1 - 2 * 0.05 / 0.2, abs=1e-9)
    assert "near 0" not in messages[0] and "smaller class's share 0.05" in messages[0], messages
    assert "a nu below the smaller class's share (0.05)" in messages[0]


def test_benign_data_is_left_alone():
    """A soft margin well above 0: no second stage, no warning, the solver's weights."""
    from lpboosting.datasets import breast_cancer

    X, y = breast_cancer()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = SoftBoostClassifier(nu=0.2).fit(X[::4], y[::4])
        lp = LPBoostClassifier(nu=0.2).fit(X[::4], y[::4])
    assert clf.second_stage_ is None and lp.second_stage_ is None


def test_a_run_stopped_on_an_early_answer_has_no_optimal_face_to_choose_on():
    """A fit stopped by max_rounds on a sifting session's early answer (a feasible pair, its value
    a lower bound rather than the optimum) keeps its weights: no second stage, no warning that
    names an optimum."""
    from lpboosting.backends import HighspyBackend

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (200, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, 0)
    for rounds in range(1, 8):
        clf = LPBoostClassifier(nu=0.1, backend=HighspyBackend(working_size=2), max_rounds=rounds)
        clf.degenerate_margin = 10.0  # every optimum would count as degenerate
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf.fit(X, y)
        if not clf.result_.solution.control.optimal:
            break
    assert not clf.result_.solution.control.optimal, "no fit stopped on an early answer"
    assert clf.second_stage_ is None
    assert not any("largest mean margin" in str(w.message) for w in caught)
