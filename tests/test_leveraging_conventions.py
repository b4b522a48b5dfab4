"""What scikit-learn users take for granted, checked on every leveraging booster.

``sample_weight`` (integer weights are repeated rows, weight 0 is a dropped
row), ``staged_decision_function`` / ``staged_predict`` / ``n_estimators_``,
``warm_start`` (T1 rounds continued to T2 are the T2-round fit), ``verbose``
(one line per round), Ctrl-C (the completed rounds are kept) and
determinism.  None of the boosters draws random numbers, so none takes a
``random_state``: two fits on the same data are identical.
"""

from __future__ import annotations

import signal
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from threadpoolctl import threadpool_limits

from lpboosting.leveraging import LLDClassifier, LLMClassifier, LogLossBoostClassifier
from lpboosting.leveraging import llm as llm_module
from lpboosting.leveraging._common import CtrlC


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # small dense products: BLAS threads only contend on a shared machine
    with threadpool_limits(limits=1):
        yield


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


# Each case makes an estimator that runs exactly ``rounds`` rounds (tol=0) on the data above.
CASES = {
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
ROUNDS = 60


def final_loss(est):
    return est.history_["loss"][-1]


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
    assert weighted.n_estimators_ == repeated.n_estimators_ == ROUNDS
    np.testing.assert_allclose(weighted.decision_function(Xt), repeated.decision_function(Xt),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(weighted.predict(Xt), repeated.predict(Xt))
    assert final_loss(weighted) == pytest.approx(final_loss(repeated), rel=1e-10)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-9, atol=1e-10)
    if hasattr(weighted, "hypotheses_"):
        assert weighted.hypotheses_ == repeated.hypotheses_
    if hasattr(weighted, "epsilon_"):
        assert weighted.epsilon_ == pytest.approx(repeated.epsilon_, rel=1e-10)


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
def test_scaled_uniform_weights_give_the_same_rounds(case):
    """W+-, W and the template scales are ratios of weighted sums: weights c * 1 take the same steps
    as no weights (the loss is c times as large; only the stop test, tol * max(loss, 1), sees c)."""
    X, y, Xt = noisy_data(seed=4)
    scaled = quiet_fit(CASES[case](ROUNDS), X, y, sample_weight=np.full(len(y), 2.5))
    plain = quiet_fit(CASES[case](ROUNDS), X, y)
    np.testing.assert_allclose(scaled.decision_function(Xt), plain.decision_function(Xt),
                               rtol=1e-9, atol=1e-10)
    assert final_loss(scaled) == pytest.approx(2.5 * final_loss(plain), rel=1e-10)


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


@pytest.mark.parametrize("cls", [LLMClassifier, LLDClassifier, LogLossBoostClassifier])
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
    staged = list(clf.staged_decision_function(Xt))
    assert len(staged) == clf.n_estimators_ == clf.n_rounds_ == ROUNDS
    np.testing.assert_array_equal(staged[-1], clf.decision_function(Xt))  # exactly
    predicted = list(clf.staged_predict(Xt))
    assert len(predicted) == ROUNDS
    np.testing.assert_array_equal(predicted[-1], clf.predict(Xt))
    for t in (1, 2, 17, ROUNDS - 1):
        short = quiet_fit(CASES[case](t), X, y)
        # the same rounds; only the summation order of a matrix product may differ
        np.testing.assert_allclose(staged[t - 1], short.decision_function(Xt), rtol=1e-12, atol=1e-13)
        np.testing.assert_array_equal(predicted[t - 1], short.predict(Xt))
    # labels come back as classes_
    clf = quiet_fit(CASES[case](5), X, np.array(["no", "yes"])[y])
    assert set(np.concatenate(list(clf.staged_predict(Xt)))) <= {"no", "yes"}


# ----------------------------------------------------------------------------- warm start


@pytest.mark.parametrize("case", CASES)
def test_warm_start_50_then_100_rounds_is_the_100_round_fit(case):
    X, y, Xt = noisy_data(seed=8)
    sw = np.random.default_rng(9).integers(0, 3, size=len(y))
    full = quiet_fit(CASES[case](100), X, y, sample_weight=sw)
    warm = quiet_fit(CASES[case](50, warm_start=True), X, y, sample_weight=sw)
    first = warm.decision_function(Xt)
    quiet_fit(warm.set_params(max_rounds=100), X, y, sample_weight=sw)
    assert warm.n_rounds_ == warm.n_estimators_ == 100 and len(warm.history_) == 101
    np.testing.assert_allclose(warm.decision_function(Xt), full.decision_function(Xt), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(warm.history_["loss"], full.history_["loss"], rtol=1e-12)
    np.testing.assert_allclose(warm.train_margins_, full.train_margins_, rtol=1e-12, atol=1e-12)
    assert not np.allclose(first, full.decision_function(Xt))  # the second fit did add rounds
    staged = list(warm.staged_decision_function(Xt))
    assert len(staged) == 100
    np.testing.assert_allclose(staged[49], first, rtol=1e-12, atol=1e-13)
    if hasattr(full, "epsilon_"):
        assert warm.epsilon_ == pytest.approx(full.epsilon_, rel=1e-12)
    # without warm_start the next fit starts afresh
    fresh = quiet_fit(warm.set_params(warm_start=False, max_rounds=50), X, y, sample_weight=sw)
    np.testing.assert_array_equal(fresh.decision_function(Xt), first)


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
    X, y, _ = noisy_data(seed=11)
    quiet_fit(CASES[case](12), X, y)
    assert capsys.readouterr().out == ""
    clf = quiet_fit(CASES[case](12, verbose=1, warm_start=True), X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 12
    name = type(clf).__name__
    for t, line in enumerate(lines, start=1):
        assert line.startswith(f"{name} round {t:>5}  loss ")
        loss = float(line.split("  loss ")[1].split()[0])
        assert loss == pytest.approx(clf.history_["loss"][t], rel=1e-9)
        assert "hypotheses" in line
    quiet_fit(clf.set_params(max_rounds=15), X, y)  # a warm start prints its new rounds only
    lines = capsys.readouterr().out.splitlines()
    assert [int(line.split()[2]) for line in lines] == [13, 14, 15]


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


@pytest.mark.parametrize("case", CASES)
def test_ctrl_c_inside_a_round_keeps_the_rounds_completed(case, monkeypatch):
    """KeyboardInterrupt while round 8 is priced: a fitted model of rounds 1-7, a RuntimeWarning,
    status "interrupted"; warm_start continues it into the uninterrupted fit."""
    X, y, Xt = noisy_data(seed=12)
    reference = quiet_fit(CASES[case](30), X, y)
    seven = quiet_fit(CASES[case](7), X, y)
    problem = llm_module._StumpProblem if "stumps" in case else llm_module._FeatureProblem
    with monkeypatch.context() as m:
        method = "signed_sums" if case.startswith("LLD") else "split_sums"
        _interrupt_at_call(m, problem, method, 8)
        clf = CASES[case](30, warm_start=True)
        with pytest.warns(RuntimeWarning, match=r"interrupted by the user \(Ctrl-C\).*7 rounds completed"):
            quiet_fit(clf, X, y)
    assert clf.n_rounds_ == 7 and clf.history_.meta["status"] == "interrupted"
    assert clf.history_[-1].status == "interrupted"
    np.testing.assert_array_equal(clf.decision_function(Xt), seven.decision_function(Xt))
    assert len(list(clf.staged_decision_function(Xt))) == 7
    quiet_fit(clf, X, y)  # continue
    assert clf.n_rounds_ == 30
    np.testing.assert_allclose(clf.decision_function(Xt), reference.decision_function(Xt), rtol=1e-12, atol=1e-12)


def test_ctrl_c_before_any_round_propagates(monkeypatch):
    X, y, _ = noisy_data(seed=13)
    _interrupt_at_call(monkeypatch, llm_module._FeatureProblem, "split_sums", 1)
    clf = LLMClassifier()
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
    assert a.history_["loss"] == b.history_["loss"]
