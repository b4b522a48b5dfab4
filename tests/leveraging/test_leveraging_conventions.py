"""What scikit-learn users take for granted, checked on every leveraging booster.

``sample_weight`` (integer weights are repeated rows, weight 0 is a dropped
row), ``staged_decision_function`` / ``staged_predict`` / ``n_estimators_``,
``warm_start`` (T1 rounds continued to T2 are the T2-round fit; not for the
bounded-loss classifier, whose annealing cannot be continued exactly),
``verbose`` (one line per round), Ctrl-C (the completed rounds are kept)
and determinism.  None of the boosters draws random numbers, so none takes
a ``random_state``: two fits on the same data are identical.
"""

from __future__ import annotations

import signal
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from lpboosting.leveraging import (
    BoundedLossClassifier,
    LLDClassifier,
    LLMClassifier,
    LogLossBoostClassifier,
    ModaBoostClassifier,
)
from lpboosting.leveraging import llm as llm_module
from lpboosting.leveraging import modaboost as modaboost_module
from lpboosting.leveraging._common import CtrlC


def noisy_data(n=90, f=4, seed=0, flip=0.15):
    """A linear concept with label noise, 0/1 labels, and held-out points from the same law."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, f))
    w = rng.normal(size=f)
    y = (X @ w > 0).astype(int)
    y[rng.random(n) < flip] ^= 1
    Xt = rng.normal(size=(40, f))
    return X, y, Xt


def quiet_fit(est, X, y, **fit_params):
    """fit, with the ConvergenceWarning of a round cap (the tests fix the number of rounds) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, **fit_params)


# Each case makes an estimator of at most ``rounds`` rounds; the LLM family runs exactly that many
# (tol=0), MODABOOST stops earlier when the weak learner has no edge left or every example is fitted.
LEVERAGING = {
    "LLM parallel features": lambda rounds, **kw: LLMClassifier(
        epsilon=0.2, max_rounds=rounds, tol=0.0, **kw),
    "LLM sequential stumps, eps updated": lambda rounds, **kw: LLMClassifier(
        epsilon=0.2, update_epsilon=True, update_every=3, mode="sequential", oracle="stumps",
        max_rounds=rounds, tol=0.0, **kw),
    "LLD parallel features": lambda rounds, **kw: LLDClassifier(mu=2.0, max_rounds=rounds, tol=0.0, **kw),
    "LLD sequential stumps": lambda rounds, **kw: LLDClassifier(
        mu=2.0, mode="sequential", oracle="stumps", max_rounds=rounds, tol=0.0, **kw),
    "log-loss sequential features": lambda rounds, **kw: LogLossBoostClassifier(
        mode="sequential", max_rounds=rounds, tol=0.0, **kw),
}
MODABOOST = {
    "MODABOOST tree": lambda rounds, **kw: ModaBoostClassifier(model="tree", max_rounds=rounds, **kw),
    "MODABOOST tree of depth 3, asymmetric loss": lambda rounds, **kw: ModaBoostClassifier(
        model="tree", max_depth=3, loss="asymmetric", max_rounds=rounds, **kw),
    "MODABOOST linear with intercept": lambda rounds, **kw: ModaBoostClassifier(
        model="linear", fit_intercept=True, gamma_wl=1e-9, max_rounds=rounds, **kw),
    "MODABOOST 3-NN, square loss": lambda rounds, **kw: ModaBoostClassifier(
        model="nn", n_neighbors=3, loss="square", max_rounds=rounds, **kw),
}
CASES = {**LEVERAGING, **MODABOOST}
ROUNDS = 60


def final_loss(est):
    return est.history_[-1].primal


def round_loss(est, t):
    return {r.round: r.primal for r in est.history_}[t]


def assert_same_model(a, b):
    """The fitted structures agree: hypotheses, tree, coefficients, leverages (to rounding)."""
    if hasattr(a, "hypotheses_"):
        assert a.hypotheses_ == b.hypotheses_
    if hasattr(a, "tree_"):
        for key in ("feature", "threshold", "left", "right", "depth"):
            np.testing.assert_array_equal(a.tree_[key], b.tree_[key])
        np.testing.assert_allclose(a.tree_["value"], b.tree_["value"], rtol=1e-9, atol=1e-10)
    if hasattr(a, "coef_"):
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-10)
    if hasattr(a, "leverage_"):
        # the leverage of each distinct point (over repeated rows: summed over its copies)
        def by_point(est):
            points, inverse = np.unique(est.X_fit_, axis=0, return_inverse=True)
            return points, np.bincount(inverse.ravel(), weights=est.leverage_, minlength=len(points))
        (pa, la), (pb, lb) = by_point(a), by_point(b)
        np.testing.assert_array_equal(pa, pb)
        np.testing.assert_allclose(la, lb, rtol=1e-9, atol=1e-10)
    if hasattr(a, "epsilon_"):
        assert a.epsilon_ == pytest.approx(b.epsilon_, rel=1e-10)


# ----------------------------------------------------------------------------- sample_weight


@pytest.mark.parametrize("case", CASES)
def test_integer_weights_are_repeated_rows(case):
    """Weights 0..3: the same model as the data with every row repeated that many times (so a
    weight-0 row is dropped): same hypotheses, decision function on held-out points to rounding,
    same predictions and the same weighted loss."""
    X, y, Xt = noisy_data(seed=1)
    sw = np.random.default_rng(2).integers(0, 4, size=len(y))
    assert (sw == 0).any() and (sw > 1).any()
    weighted = quiet_fit(CASES[case](ROUNDS), X, y, sample_weight=sw)
    repeated = quiet_fit(CASES[case](ROUNDS), np.repeat(X, sw, axis=0), np.repeat(y, sw))
    assert weighted.n_estimators_ == repeated.n_estimators_ >= 3
    if case in LEVERAGING:
        assert weighted.n_estimators_ == ROUNDS
    np.testing.assert_allclose(weighted.decision_function(Xt), repeated.decision_function(Xt),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(weighted.predict(Xt), repeated.predict(Xt))
    assert final_loss(weighted) == pytest.approx(final_loss(repeated), rel=1e-10)
    assert_same_model(weighted, repeated)


@pytest.mark.parametrize("case", CASES)
def test_zero_weights_drop_rows_and_unit_weights_change_nothing(case):
    X, y, Xt = noisy_data(seed=3)
    keep = np.ones(len(y), dtype=bool)
    keep[::4] = False
    dropped = quiet_fit(CASES[case](ROUNDS), X, y, sample_weight=keep.astype(float))
    subset = quiet_fit(CASES[case](ROUNDS), X[keep], y[keep])
    # the very same arithmetic: the rows of weight 0 are left out before anything is computed
    np.testing.assert_array_equal(dropped.decision_function(Xt), subset.decision_function(Xt))
    ones = quiet_fit(CASES[case](ROUNDS), X, y, sample_weight=np.ones(len(y)))
    plain = quiet_fit(CASES[case](ROUNDS), X, y)
    np.testing.assert_array_equal(ones.decision_function(Xt), plain.decision_function(Xt))
    assert final_loss(ones) == final_loss(plain)


@pytest.mark.parametrize("case", CASES)
def test_the_order_of_the_rows_does_not_matter(case):
    """Ties between equally good hypotheses go by features, thresholds, leaves and the order of
    x -- never by row positions -- so shuffled weighted rows fit the model of the rows repeated in
    their original order (scikit-learn's sample-weight check shuffles too)."""
    X, y, Xt = noisy_data(seed=29)
    sw = np.random.default_rng(30).integers(0, 4, size=len(y))
    perm = np.random.default_rng(31).permutation(len(y))
    shuffled = quiet_fit(CASES[case](ROUNDS), X[perm], y[perm], sample_weight=sw[perm])
    repeated = quiet_fit(CASES[case](ROUNDS), np.repeat(X, sw, axis=0), np.repeat(y, sw))
    assert shuffled.n_estimators_ == repeated.n_estimators_
    np.testing.assert_allclose(shuffled.decision_function(Xt), repeated.decision_function(Xt),
                               rtol=1e-9, atol=1e-10)
    assert_same_model(shuffled, repeated)


@pytest.mark.parametrize("case", [c for c in CASES if "NN" not in c])
def test_scaled_uniform_weights_give_the_same_rounds(case):
    """LLM, LLD, log-loss boosting: W+-, W and the template scales are ratios of weighted sums, so
    weights c * 1 take the same steps as no weights (the loss, a sum, is c times as large; only the
    stop test tol * max(loss, 1) sees c).  MODABOOST (trees, linear): the edges, eq. (15), J's order
    and the risk (a weighted mean) do not see c at all."""
    X, y, Xt = noisy_data(seed=4)
    scaled = quiet_fit(CASES[case](ROUNDS), X, y, sample_weight=np.full(len(y), 2.5))
    plain = quiet_fit(CASES[case](ROUNDS), X, y)
    assert scaled.n_estimators_ == plain.n_estimators_
    np.testing.assert_allclose(scaled.decision_function(Xt), plain.decision_function(Xt),
                               rtol=1e-9, atol=1e-10)
    c = 2.5 if case in LEVERAGING else 1.0
    assert final_loss(scaled) == pytest.approx(c * final_loss(plain), rel=1e-10)


def test_nn_weights_count_as_neighbours():
    """Leveraged K-NN: a row of weight s counts as s neighbours, as s copies would.  So every row
    weighted 3 with K = 3 is 1-NN without weights, and weights 0.5 with K = 1 need two rows."""
    X, y, Xt = noisy_data(seed=16)
    triple = quiet_fit(ModaBoostClassifier(model="nn", n_neighbors=3, max_rounds=40), X, y,
                       sample_weight=np.full(len(y), 3.0))
    one = quiet_fit(ModaBoostClassifier(model="nn", n_neighbors=1, max_rounds=40), X, y)
    np.testing.assert_allclose(triple.decision_function(Xt), one.decision_function(Xt), rtol=1e-10, atol=1e-12)
    half = quiet_fit(ModaBoostClassifier(model="nn", n_neighbors=1, max_rounds=40), X, y,
                     sample_weight=np.full(len(y), 0.5))
    two = quiet_fit(ModaBoostClassifier(model="nn", n_neighbors=2, max_rounds=40), X, y)
    np.testing.assert_allclose(half.decision_function(Xt), two.decision_function(Xt), rtol=1e-10, atol=1e-12)
    assert not np.allclose(one.decision_function(Xt), two.decision_function(Xt))
    with pytest.raises(ValueError, match=r"n_neighbors=3 exceeds the total sample_weight 2 .*lower n_neighbors"):
        ModaBoostClassifier(model="nn", n_neighbors=3).fit(X[:4], [0, 1, 0, 1], sample_weight=[0.5] * 4)


def test_tree_split_ties_go_to_the_lowest_feature_whatever_the_row_count():
    """MODABOOST trees: with feature 1 = -feature 0 every split has a twin of equal edge; the
    tree uses feature 0 only, and integer weights grow the same tree as repeated rows."""
    X, y, Xt = noisy_data(seed=17, f=3)
    X[:, 1] = -X[:, 0]
    Xt[:, 1] = -Xt[:, 0]
    sw = np.random.default_rng(18).integers(1, 4, size=len(y))
    weighted = quiet_fit(ModaBoostClassifier(model="tree"), X, y, sample_weight=sw)
    repeated = quiet_fit(ModaBoostClassifier(model="tree"), np.repeat(X, sw, axis=0), np.repeat(y, sw))
    features = set(weighted.tree_["feature"].tolist()) - {-1}
    assert 1 not in features and 0 in features
    assert_same_model(weighted, repeated)
    np.testing.assert_allclose(weighted.decision_function(Xt), repeated.decision_function(Xt),
                               rtol=1e-10, atol=1e-10)


def test_stump_ties_go_to_the_lowest_feature_whatever_the_row_count():
    """Feature 1 is -feature 0: every stump of one has a twin of equal |edge| on the other (the
    same column, summed in the opposite order).  The tie goes to feature 0 -- not to whichever
    twin sits at the lower sorted position, which moves when rows are repeated."""
    X, y, Xt = noisy_data(seed=5, f=3)
    X[:, 1] = -X[:, 0]
    Xt[:, 1] = -Xt[:, 0]
    sw = np.random.default_rng(6).integers(1, 4, size=len(y))
    for cls in (LLMClassifier, LLDClassifier):
        weighted = quiet_fit(cls(mode="sequential", oracle="stumps", max_rounds=40, tol=0.0), X, y,
                             sample_weight=sw)
        repeated = quiet_fit(cls(mode="sequential", oracle="stumps", max_rounds=40, tol=0.0),
                             np.repeat(X, sw, axis=0), np.repeat(y, sw))
        features = {h.feature for h in weighted.hypotheses_}
        assert 1 not in features and 0 in features
        assert weighted.hypotheses_ == repeated.hypotheses_
        np.testing.assert_allclose(weighted.decision_function(Xt), repeated.decision_function(Xt),
                                   rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("cls", [LLMClassifier, LLDClassifier, LogLossBoostClassifier, ModaBoostClassifier])
def test_bad_sample_weights_are_clear_errors(cls):
    X, y, _ = noisy_data(n=30)
    sw = np.ones(30)
    sw[3] = -1.0
    with pytest.raises(ValueError, match=r"sample_weight must be >= 0 .*1 negative value.*-1"):
        cls().fit(X, y, sample_weight=sw)
    with pytest.raises(ValueError, match="sample_weight is zero for every example"):
        cls().fit(X, y, sample_weight=np.zeros(30))
    with pytest.raises(ValueError, match="two classes among the examples of positive sample_weight"):
        cls().fit(X, y, sample_weight=(y == 1).astype(float))
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(29,\), expected \(30,\)"):
        cls().fit(X, y, sample_weight=np.ones(29))


# ----------------------------------------------------------------------------- staged predictions


@pytest.mark.parametrize("case", CASES)
def test_staged_decision_function_is_the_model_after_every_round(case):
    X, y, Xt = noisy_data(seed=7)
    clf = quiet_fit(CASES[case](ROUNDS), X, y)
    T = clf.n_estimators_
    staged = list(clf.staged_decision_function(Xt))
    assert len(staged) == T == clf.n_rounds_ >= 3
    np.testing.assert_array_equal(staged[-1], clf.decision_function(Xt))  # exactly
    predicted = list(clf.staged_predict(Xt))
    assert len(predicted) == T
    np.testing.assert_array_equal(predicted[-1], clf.predict(Xt))
    assert not np.allclose(staged[0], staged[-1])
    for t in sorted({1, 2, T // 2, T - 1}):
        short = quiet_fit(CASES[case](t), X, y)
        assert short.n_estimators_ == t
        # the same rounds; only the summation order of a matrix product may differ
        np.testing.assert_allclose(staged[t - 1], short.decision_function(Xt), rtol=1e-12, atol=1e-13)
        np.testing.assert_array_equal(predicted[t - 1], short.predict(Xt))
    # labels come back as classes_
    clf = quiet_fit(CASES[case](5), X, np.array(["no", "yes"])[y])
    assert set(np.concatenate(list(clf.staged_predict(Xt)))) <= {"no", "yes"}


# ----------------------------------------------------------------------------- warm start


@pytest.mark.parametrize("case", CASES)
def test_warm_start_continues_to_the_longer_fit(case):
    """LLM, LLD, log-loss boosting: 50 rounds and then 50 more are the 100-round fit.  MODABOOST
    (which stops by itself, T <= 100 calls): T // 2 calls and then the rest are the T-call fit."""
    X, y, Xt = noisy_data(seed=8)
    sw = np.random.default_rng(9).integers(0, 3, size=len(y))
    full = quiet_fit(CASES[case](100), X, y, sample_weight=sw)
    T = full.n_rounds_
    half = T // 2
    if case in LEVERAGING:
        assert (T, half) == (100, 50)
    warm = quiet_fit(CASES[case](half, warm_start=True), X, y, sample_weight=sw)
    assert warm.n_rounds_ == half >= 2
    first = warm.decision_function(Xt)
    quiet_fit(warm.set_params(max_rounds=100), X, y, sample_weight=sw)
    assert warm.n_rounds_ == warm.n_estimators_ == T and len(warm.history_) == len(full.history_)
    np.testing.assert_allclose(warm.decision_function(Xt), full.decision_function(Xt), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose([r.primal for r in warm.history_], [r.primal for r in full.history_],
                               rtol=1e-12)
    assert warm.history_.meta["status"] == full.history_.meta["status"]
    assert [r.status for r in warm.history_] == [r.status for r in full.history_]
    assert_same_model(warm, full)
    if hasattr(full, "train_margins_"):
        np.testing.assert_allclose(warm.train_margins_, full.train_margins_, rtol=1e-12, atol=1e-12)
    assert not np.allclose(first, full.decision_function(Xt))  # the second fit did add rounds
    staged = list(warm.staged_decision_function(Xt))
    assert len(staged) == T
    np.testing.assert_allclose(staged[half - 1], first, rtol=1e-12, atol=1e-13)
    # without warm_start the next fit starts afresh
    fresh = quiet_fit(warm.set_params(warm_start=False, max_rounds=half), X, y, sample_weight=sw)
    np.testing.assert_array_equal(fresh.decision_function(Xt), first)


def test_modaboost_warm_start_after_convergence_needs_a_lower_gamma_wl():
    X, y, Xt = noisy_data(seed=19)
    clf = ModaBoostClassifier(model="linear", warm_start=True, gamma_wl=0.05).fit(X, y)
    assert clf.status_ == "converged"
    n = clf.n_rounds_
    assert clf.fit(X, y).n_rounds_ == n  # the weak learner still has no edge >= gamma_wl
    clf.set_params(gamma_wl=1e-6).fit(X, y)
    assert clf.n_rounds_ > n and clf.history_.meta["gamma_wl"] == 1e-6
    with pytest.raises(ValueError, match="model from 'linear' to 'tree' changed"):
        clf.set_params(model="tree").fit(X, y)


def test_warm_start_after_convergence_adds_nothing_and_checks_its_inputs():
    X, y, _ = noisy_data(seed=10)
    clf = LLMClassifier(max_rounds=100_000, tol=1e-4, warm_start=True).fit(X, y)
    assert clf.history_.meta["status"] == "converged"
    n = clf.n_rounds_
    clf.set_params(max_rounds=200_000).fit(X, y)
    assert clf.n_rounds_ == n  # a longer fresh run would have stopped at the same round
    # a smaller tol continues where the larger one stopped
    clf.set_params(tol=1e-6).fit(X, y)
    assert clf.n_rounds_ > n
    with pytest.raises(ValueError, match="made on other data"):
        clf.fit(X[:-1], y[:-1])
    with pytest.raises(ValueError, match="epsilon from 0.1 to 0.2 changed"):
        clf.set_params(epsilon=0.2).fit(X, y)
    clf.set_params(epsilon=0.1)
    with pytest.raises(ValueError, match=r"max_rounds=10 is below the \d+ rounds already fitted"):
        clf.set_params(max_rounds=10).fit(X, y)
    same = clf.set_params(max_rounds=clf.n_rounds_)
    coef = same.coef_.copy()
    assert same.fit(X, y).coef_.tolist() == coef.tolist()


# ----------------------------------------------------------------------------- verbose


@pytest.mark.parametrize("case", CASES)
def test_verbose_prints_one_line_per_round(case, capsys):
    X, y, _ = noisy_data(seed=12)
    quiet_fit(CASES[case](4), X, y)
    assert capsys.readouterr().out == ""
    clf = quiet_fit(CASES[case](4, verbose=1, warm_start=True), X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == clf.n_rounds_ == 4
    name = type(clf).__name__
    for t, line in enumerate(lines, start=1):
        assert line.startswith(f"{name} round {t:>5}  loss ")
        loss = float(line.split("  loss ")[1].split()[0])
        assert loss == pytest.approx(round_loss(clf, t), rel=1e-9)
        assert ("hypotheses" if case in LEVERAGING else "edge") in line
    quiet_fit(clf.set_params(max_rounds=9), X, y)  # a warm start prints its new rounds only
    lines = capsys.readouterr().out.splitlines()
    assert [int(line.split()[2]) for line in lines] == list(range(5, clf.n_rounds_ + 1))
    assert clf.n_rounds_ > 4


# ----------------------------------------------------------------------------- Ctrl-C


def _interrupt_at_call(monkeypatch, cls, name, k):
    """Make the k-th call of ``cls.name`` (a step of every round) raise KeyboardInterrupt."""
    original = getattr(cls, name)
    calls = {"n": 0}

    def patched(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == k:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, patched)


def _round_step(case):
    """A method called once in every round (while it is priced), as (class, name)."""
    if case in MODABOOST:
        model = next(m for m in ("tree", "linear", "nn") if m in case.lower())
        return {"tree": modaboost_module._TreeModel, "linear": modaboost_module._LinearModel,
                "nn": modaboost_module._NNModel}[model], "propose"
    problem = llm_module._StumpProblem if "stumps" in case else llm_module._FeatureProblem
    return problem, ("signed_sums" if case.startswith("LLD") else "split_sums")


@pytest.mark.parametrize("case", CASES)
def test_ctrl_c_inside_a_round_keeps_the_rounds_completed(case, monkeypatch):
    """KeyboardInterrupt while round 4 is priced: a fitted model of rounds 1-3, a RuntimeWarning,
    status "interrupted"; warm_start continues it into the uninterrupted fit."""
    X, y, Xt = noisy_data(seed=12)
    reference = quiet_fit(CASES[case](30), X, y)
    three = quiet_fit(CASES[case](3), X, y)
    with monkeypatch.context() as m:
        _interrupt_at_call(m, *_round_step(case), 4)
        clf = CASES[case](30, warm_start=True)
        with pytest.warns(RuntimeWarning, match=r"interrupted by the user \(Ctrl-C\).*the 3 \w.* completed"):
            quiet_fit(clf, X, y)
    assert clf.n_rounds_ == 3 and clf.history_.meta["status"] == "interrupted"
    np.testing.assert_array_equal(clf.decision_function(Xt), three.decision_function(Xt))
    assert len(list(clf.staged_decision_function(Xt))) == 3
    quiet_fit(clf, X, y)  # continue
    assert clf.n_rounds_ == reference.n_rounds_
    assert clf.history_.meta["status"] == reference.history_.meta["status"]
    np.testing.assert_allclose(clf.decision_function(Xt), reference.decision_function(Xt), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_ctrl_c_before_any_round_propagates(case, monkeypatch):
    X, y, _ = noisy_data(seed=13)
    _interrupt_at_call(monkeypatch, *_round_step(case), 1)
    clf = CASES[case](30)
    with pytest.raises(KeyboardInterrupt):
        clf.fit(X, y)
    with pytest.raises(NotFittedError):
        clf.predict(X)


def test_a_real_sigint_while_a_round_is_applied_is_held_until_the_round_is_complete(monkeypatch):
    """SIGINT delivered in the middle of round 5's update: round 5 is finished and kept."""
    X, y, Xt = noisy_data(seed=14)
    original = llm_module._FeatureProblem.step_all
    calls = {"n": 0}

    def step_all(self, delta):
        calls["n"] += 1
        if calls["n"] == 5:
            signal.raise_signal(signal.SIGINT)
        original(self, delta)

    monkeypatch.setattr(llm_module._FeatureProblem, "step_all", step_all)
    with pytest.warns(RuntimeWarning, match="5 rounds completed"):
        clf = quiet_fit(LLMClassifier(max_rounds=30, tol=0.0), X, y)
    monkeypatch.undo()
    five = quiet_fit(LLMClassifier(max_rounds=5, tol=0.0), X, y)
    assert clf.n_rounds_ == 5
    np.testing.assert_array_equal(clf.decision_function(Xt), five.decision_function(Xt))
    np.testing.assert_array_equal(clf.train_margins_, five.train_margins_)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_ctrl_c_guard():
    with CtrlC() as guard:
        guard.hold()
        signal.raise_signal(signal.SIGINT)
        reached = True  # not interrupted while held
        with pytest.raises(KeyboardInterrupt):
            guard.release()
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)  # not held: at once
    assert reached
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# ----------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("case", CASES)
def test_two_fits_are_identical(case):
    """No booster draws random numbers (ties are broken by fixed rules), so there is no
    random_state: refitting gives the same model, bit for bit."""
    X, y, Xt = noisy_data(seed=15)
    a = quiet_fit(CASES[case](ROUNDS), X, y)
    b = quiet_fit(CASES[case](ROUNDS), X, y)
    assert "random_state" not in a.get_params()
    np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))
    assert [r.primal for r in a.history_] == [r.primal for r in b.history_]


# ----------------------------------------------------------------------------- bounded loss


def outlier_data(seed, n=80, n_out=8):
    """Two Gaussians 3 apart along x0 and a cluster of mislabelled points far away; held-out points."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    X = rng.normal(size=(n, 2))
    X[:, 0] += 1.5 * y
    Xo = rng.normal(scale=0.5, size=(n_out, 2))
    Xo[:, 0] += 10.0
    return np.vstack([X, Xo]), np.concatenate([y, -np.ones(n_out, dtype=int)]), rng.normal(size=(50, 2)) * 2


BOUNDED = {
    "annealed linear": dict(),
    "linear, one stage": dict(anneal=False, C=5.0),
    "rbf kernel": dict(kernel="rbf", gamma=0.5),
}


@pytest.mark.parametrize("params", BOUNDED.values(), ids=BOUNDED.keys())
def test_bounded_loss_integer_weights_are_repeated_rows(params):
    """log sum_i s_i sigma_i with lam = 1/(2 C sum_i s_i): the fit on the rows repeated s_i times,
    the same EM iterations and annealing path; the kernel model too (another eigen-basis of the
    span, the same Newton steps)."""
    X, y, Xt = outlier_data(20)
    sw = np.random.default_rng(21).integers(0, 4, size=len(y))
    weighted = quiet_fit(BoundedLossClassifier(**params), X, y, sample_weight=sw)
    repeated = quiet_fit(BoundedLossClassifier(**params), np.repeat(X, sw, axis=0), np.repeat(y, sw))
    assert weighted.n_iter_ == repeated.n_iter_ == weighted.n_estimators_ > 3
    np.testing.assert_allclose(weighted.lambda_path_, repeated.lambda_path_, rtol=1e-12)
    np.testing.assert_allclose(weighted.decision_function(Xt), repeated.decision_function(Xt),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(weighted.predict(Xt), repeated.predict(Xt))
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-9)
    # the recorded objective is log sum_i s_i sigma_i - lam ||w||^2 of the fitted model
    if "kernel" not in params:
        z = X @ weighted.coef_ + weighted.intercept_
        direct = np.log(np.sum(sw / (1 + np.exp(-y * z)))) - weighted.lambda_ * weighted.coef_ @ weighted.coef_
        assert weighted.objective_ == pytest.approx(direct, rel=1e-10)


@pytest.mark.parametrize("params", BOUNDED.values(), ids=BOUNDED.keys())
def test_bounded_loss_zero_weights_drop_rows_and_unit_weights_change_nothing(params):
    X, y, Xt = outlier_data(22)
    keep = np.ones(len(y), dtype=bool)
    keep[::5] = False
    dropped = quiet_fit(BoundedLossClassifier(**params), X, y, sample_weight=keep.astype(float))
    subset = quiet_fit(BoundedLossClassifier(**params), X[keep], y[keep])
    np.testing.assert_array_equal(dropped.decision_function(Xt), subset.decision_function(Xt))
    ones = quiet_fit(BoundedLossClassifier(**params), X, y, sample_weight=np.ones(len(y)))
    plain = quiet_fit(BoundedLossClassifier(**params), X, y)
    np.testing.assert_array_equal(ones.decision_function(Xt), plain.decision_function(Xt))


def test_bounded_loss_scaled_weights_are_a_scaled_C():
    """Weights c * 1 make lam = 1/(2 C c n) and shift log sum sigma by log c: the fit of C c."""
    X, y, Xt = outlier_data(23)
    scaled = quiet_fit(BoundedLossClassifier(C=1.0, anneal=False, tol=0.0, max_rounds=8), X, y,
                       sample_weight=np.full(len(y), 2.5))
    larger_c = quiet_fit(BoundedLossClassifier(C=2.5, anneal=False, tol=0.0, max_rounds=8), X, y)
    plain = quiet_fit(BoundedLossClassifier(C=1.0, anneal=False, tol=0.0, max_rounds=8), X, y)
    np.testing.assert_allclose(scaled.decision_function(Xt), larger_c.decision_function(Xt), rtol=1e-9, atol=1e-10)
    assert scaled.objective_ == pytest.approx(larger_c.objective_ + np.log(2.5), rel=1e-10)
    assert not np.allclose(scaled.decision_function(Xt), plain.decision_function(Xt))


@pytest.mark.parametrize("params", BOUNDED.values(), ids=BOUNDED.keys())
def test_bounded_loss_staged_decision_function(params):
    X, y, Xt = outlier_data(24)
    clf = quiet_fit(BoundedLossClassifier(**params), X, y)
    staged = list(clf.staged_decision_function(Xt))
    assert len(staged) == clf.n_estimators_ == clf.n_iter_
    np.testing.assert_array_equal(staged[-1], clf.decision_function(Xt))  # exactly
    predicted = list(clf.staged_predict(Xt))
    np.testing.assert_array_equal(predicted[-1], clf.predict(Xt))
    assert not np.allclose(staged[0], staged[-1])
    # one stage: the model after t iterations is the fit capped at t iterations
    one_stage = dict(params, anneal=False, tol=0.0)
    long = quiet_fit(BoundedLossClassifier(**one_stage, max_rounds=9), X, y)
    staged = list(long.staged_decision_function(Xt))
    assert len(staged) == 9
    for t in (1, 4, 8):
        short = quiet_fit(BoundedLossClassifier(**one_stage, max_rounds=t), X, y)
        np.testing.assert_allclose(staged[t - 1], short.decision_function(Xt), rtol=1e-12, atol=1e-12)


def test_bounded_loss_verbose_prints_one_line_per_em_iteration(capsys):
    X, y, _ = outlier_data(25)
    quiet_fit(BoundedLossClassifier(), X, y)
    assert capsys.readouterr().out == ""
    clf = quiet_fit(BoundedLossClassifier(verbose=1), X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == clf.n_iter_ > 10
    iterations = [r for r in clf.history_ if r.extra["iteration"] > 0]
    for t, (line, r) in enumerate(zip(lines, iterations), start=1):
        assert line.startswith(f"BoundedLossClassifier round {t:>5}  objective ")
        assert float(line.split("  objective ")[1].split()[0]) == pytest.approx(r.primal, rel=1e-9)
        assert f"stage {r.extra['stage']}  " in line


def test_bounded_loss_ctrl_c_keeps_the_iterations_completed(monkeypatch):
    """KeyboardInterrupt in the 4th M-step: the model of 3 E + M iterations, a RuntimeWarning."""
    X, y, Xt = outlier_data(26)
    three = quiet_fit(BoundedLossClassifier(anneal=False, tol=0.0, max_rounds=3), X, y)
    with monkeypatch.context() as m:
        _interrupt_at_call(m, BoundedLossClassifier, "_newton", 4)
        with pytest.warns(RuntimeWarning, match=r"interrupted by the user \(Ctrl-C\).*the 3 E \+ M iterations"):
            clf = quiet_fit(BoundedLossClassifier(anneal=False, tol=0.0, max_rounds=10), X, y)
    assert clf.n_iter_ == 3 and clf.history_.meta["status"] == "interrupted"
    np.testing.assert_array_equal(clf.decision_function(Xt), three.decision_function(Xt))
    assert clf.objective_ == three.objective_ and clf.lambda_ == three.lambda_
    with monkeypatch.context() as m:
        _interrupt_at_call(m, BoundedLossClassifier, "_newton", 1)
        fresh = BoundedLossClassifier()
        with pytest.raises(KeyboardInterrupt):
            fresh.fit(X, y)
        with pytest.raises(NotFittedError):
            fresh.predict(Xt)


def test_bounded_loss_is_deterministic_and_offers_no_warm_start():
    """Annealing caps every stage at max_rounds and moves on, so a longer run is no continuation
    of a shorter one: there is no warm_start (and nothing random: no random_state)."""
    X, y, Xt = outlier_data(27)
    a = BoundedLossClassifier(kernel="rbf", gamma=0.5).fit(X, y)
    b = BoundedLossClassifier(kernel="rbf", gamma=0.5).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))
    assert "warm_start" not in a.get_params() and "random_state" not in a.get_params()


def test_bounded_loss_bad_sample_weights_are_clear_errors():
    X, y, _ = outlier_data(28, n=30, n_out=2)
    with pytest.raises(ValueError, match=r"sample_weight must be >= 0"):
        BoundedLossClassifier().fit(X, y, sample_weight=-np.ones(32))
    with pytest.raises(ValueError, match="sample_weight is zero for every example"):
        BoundedLossClassifier().fit(X, y, sample_weight=np.zeros(32))
    with pytest.raises(ValueError, match="two classes among the examples of positive sample_weight"):
        BoundedLossClassifier().fit(X, y, sample_weight=(y == 1).astype(float))


# ----------------------------------------------------------------------------- save_model, staged_predict_proba,
# ----------------------------------------------------------------------------- feature_importances_

#: every leveraging classifier: the cases above and the bounded-loss models
ALL = {**CASES, **{f"bounded loss, {k}": (lambda params: lambda rounds, **kw: BoundedLossClassifier(
    **params, **kw))(p) for k, p in BOUNDED.items()}}


def labelled(classes, seed=30):
    """noisy_data with a feature that is 0 everywhere (no hypothesis can use it) as feature 2, and
    two classes or three (the linear score cut at two quantiles)."""
    X, y, Xt = noisy_data(seed=seed)
    X, Xt = np.insert(X, 2, 0.0, axis=1), np.insert(Xt, 2, 0.0, axis=1)
    if classes == 3:
        score = X @ np.random.default_rng(seed).normal(size=X.shape[1])
        y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    return X, np.array(["ant", "bee", "cat"])[y], Xt


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("case", ALL)
def test_save_model_round_trip_predicts_alike(case, classes, tmp_path):
    """save_model writes every leveraging booster as JSON (it raised TypeError); load_model gives a
    model whose predictions, probabilities, staged predictions and importances are the saved one's."""
    from lpboosting import load_model, save_model

    X, y, Xt = labelled(classes)
    clf = quiet_fit(ALL[case](ROUNDS), X, y)
    save_model(clf, tmp_path / "model.json")
    back = load_model(tmp_path / "model.json")
    assert type(back) is type(clf) and back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.classes_, clf.classes_)
    for method in ("predict", "decision_function", "predict_proba"):
        np.testing.assert_array_equal(getattr(back, method)(Xt), getattr(clf, method)(Xt))  # exactly
    for method in ("staged_decision_function", "staged_predict_proba"):
        saved, loaded = list(getattr(clf, method)(Xt)), list(getattr(back, method)(Xt))
        assert len(saved) == len(loaded) > 1
        assert all(np.array_equal(a, b) for a, b in zip(saved, loaded))
    assert back.n_estimators_ == clf.n_estimators_ and back.history_ == clf.history_
    if hasattr(clf, "feature_importances_"):
        np.testing.assert_array_equal(back.feature_importances_, clf.feature_importances_)


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("case", ALL)
def test_staged_predict_proba_ends_at_predict_proba(case, classes):
    X, y, Xt = labelled(classes)
    clf = quiet_fit(ALL[case](ROUNDS), X, y)
    staged = list(clf.staged_predict_proba(Xt))
    assert len(staged) == len(list(clf.staged_decision_function(Xt))) > 1
    np.testing.assert_array_equal(staged[-1], clf.predict_proba(Xt))  # exactly
    for p in staged:
        assert p.shape == (len(Xt), classes) and np.all(p >= 0)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    assert not np.allclose(staged[0], staged[-1])


def _expected_importances(clf, X):
    """The importances by their definition, from the fitted coefficients (two classes)."""
    if isinstance(clf, ModaBoostClassifier) and clf.model == "tree":
        return None  # the half splits' alphas: checked through the properties below
    if isinstance(clf, (BoundedLossClassifier, ModaBoostClassifier)):  # linear models
        scale = (np.ptp(X, axis=0) / 2 if isinstance(clf, BoundedLossClassifier) else np.abs(X).max(axis=0))
        mass = np.abs(clf.coef_) * scale
    elif hasattr(clf, "hypotheses_"):  # stumps: |lambda| summed by feature (constants use none)
        mass = np.zeros(X.shape[1])
        for h, c in zip(clf.hypotheses_, clf.coef_):
            if np.isfinite(h.threshold):
                mass[h.feature] += abs(c)
    else:  # scaled features: |lambda_j| (the intercept uses no feature)
        mass = np.abs(clf.coef_[:X.shape[1]])
    return mass / mass.sum()


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("case", ALL)
def test_feature_importances_are_the_weight_mass_per_feature(case, classes):
    X, y, _ = labelled(classes)
    clf = quiet_fit(ALL[case](ROUNDS), X, y)
    if "NN" in case or "kernel" in case:
        with pytest.raises(AttributeError, match="feature_importances_ is defined for .*every feature"):
            clf.feature_importances_
        assert not hasattr(clf, "feature_importances_")
        return
    imp = clf.feature_importances_
    assert imp.shape == (X.shape[1],) and np.all(imp >= 0)
    assert imp.sum() == pytest.approx(1.0, rel=1e-12)
    assert imp[2] == 0.0  # the feature that is 0 everywhere
    assert np.count_nonzero(imp) >= 2
    models = clf.one_vs_rest_ if classes == 3 else [clf]
    if classes == 3:  # the mean over the classes' models
        np.testing.assert_allclose(imp, np.mean([m.feature_importances_ for m in models], axis=0), rtol=1e-12)
    for m in models:
        expected = _expected_importances(m, X)
        if expected is not None:
            np.testing.assert_allclose(m.feature_importances_, expected, rtol=1e-9, atol=1e-15)


def test_modaboost_tree_importances_follow_the_features_split():
    """A tree's importances sit on the features of its splits, in proportion to the alphas leveraged."""
    X, y, _ = labelled(2)
    clf = quiet_fit(ModaBoostClassifier(model="tree", max_depth=1, max_rounds=1), X, y)
    assert clf.history_[0].extra["kind"] == "split"  # one split of the root: two halves
    f = clf.history_[0].extra["feature"]
    expected = np.zeros(X.shape[1])
    expected[f] = 1.0
    np.testing.assert_array_equal(clf.feature_importances_, expected)
    # more rounds: the mass of each feature is its splits' |alpha| + |alpha_companion|
    clf = quiet_fit(ModaBoostClassifier(model="tree", max_depth=3, max_rounds=ROUNDS), X, y)
    mass = np.zeros(X.shape[1])
    for r in clf.history_:
        if r.extra["kind"] == "split":
            mass[r.extra["feature"]] += abs(r.extra["alpha"]) + abs(r.extra["alpha_companion"])
    np.testing.assert_allclose(clf.feature_importances_, mass / mass.sum(), rtol=1e-9)


@pytest.mark.parametrize("classes", [2, 3])
def test_lld_predict_proba_sums_to_one_and_ranks_like_the_decision_function(classes):
    """LLD had no predict_proba: it is LLM's noise-free logistic model (the same loss, Sec. 4)."""
    X, y, Xt = labelled(classes)
    clf = quiet_fit(LLDClassifier(mu=2.0, max_rounds=ROUNDS, tol=0.0), X, y)
    p, f = clf.predict_proba(Xt), clf.decision_function(Xt)
    assert p.shape == (len(Xt), classes) and np.all((p > 0) & (p < 1))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    if classes == 2:
        order = np.argsort(f, kind="stable")
        assert np.all(np.diff(p[order, 1]) > 0) and np.all(np.diff(f[order]) > 0)
        np.testing.assert_allclose(p[:, 1], 1 / (1 + np.exp(-f)), rtol=1e-12)
    else:  # each row ranks the classes as its K decisions do
        assert np.array_equal(np.argsort(p, axis=1), np.argsort(f, axis=1))
    np.testing.assert_array_equal(clf.classes_[np.argmax(p, axis=1)], clf.predict(Xt))


def test_what_json_cannot_hold_is_refused_naming_pickle(tmp_path):
    from lpboosting import save_model
    from lpboosting.losses import LogLoss

    X, y, _ = labelled(2)

    class MyLoss(LogLoss):
        pass

    quadratic = BoundedLossClassifier(kernel=lambda A, B: (A @ B.T + 1.0) ** 2)
    for clf in (quadratic, ModaBoostClassifier(loss=MyLoss())):
        quiet_fit(clf, X, y)
        with pytest.raises(TypeError, match="cannot be written as JSON.*pickle"):
            save_model(clf, tmp_path / "model.json")


@pytest.mark.parametrize("n_classes, n_jobs", [(2, None), (3, None), (3, 2)])
def test_a_boosters_warning_points_at_the_callers_line(n_classes, n_jobs):
    """A ConvergenceWarning names the line that called fit, not a line of the library (the
    eval_set keyword's wrapper, the one-vs-rest loop or a thread)."""
    from sklearn.datasets import make_classification
    from sklearn.exceptions import ConvergenceWarning

    from lpboosting import LLMClassifier, ModaBoostClassifier

    X, y = make_classification(90, 4, n_informative=3, n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=0)
    for clf in (LLMClassifier(max_rounds=2, n_jobs=n_jobs), ModaBoostClassifier(max_rounds=1, n_jobs=n_jobs)):
        with pytest.warns(ConvergenceWarning) as caught:
            clf.fit(X, y)
        assert {w.filename for w in caught if issubclass(w.category, ConvergenceWarning)} == {__file__}
