"""scikit-learn conventions of the column-generation classifiers.

sample_weight (against repeated and dropped rows), staged output, the
compacted ensemble and feature importances, warm_start, verbose,
random_state, predict_proba, the JSON model file, and multiclass input.
"""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.datasets import load_breast_cancer, load_iris

from lpboosting import (
    ERLPBoostClassifier,
    LPBoostClassifier,
    RMBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
    load_model,
    save_model,
)
from lpboosting.masters import LPBoost, RMBoost
from lpboosting.masters.lpboost import soft_margin
from lpboosting.oracles import Stump
from lpboosting.oracles.stumps import clean_threshold

ALL = [LPBoostClassifier, SoftBoostClassifier, TotalBoostClassifier, ERLPBoostClassifier, RMBoostClassifier]


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 120, replace=False)
    return X[rows][:, :8], y[rows]


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def make(cls, **kw):
    """A small, exactly converging configuration of each classifier."""
    base = {"RMBoostClassifier": {"oracle": "stumps", "max_rounds": 60},
            "TotalBoostClassifier": {"delta": 0.1}, "SoftBoostClassifier": {"delta": 0.1, "nu": 0.2},
            "ERLPBoostClassifier": {"delta": 0.1, "nu": 0.2}, "LPBoostClassifier": {"nu": 0.2}}
    return cls(**{**base[cls.__name__], **kw})


# -- sample_weight ------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", ALL)
def test_integer_weights_equal_repeated_rows(cls, cancer):
    X, y = cancer
    s = np.random.default_rng(1).integers(0, 4, size=len(y))
    weighted = quiet(make(cls).fit, X, y, sample_weight=s)
    repeated = quiet(make(cls).fit, np.repeat(X, s, axis=0), np.repeat(y, s))
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-8)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-8)
    # and in any row order (the rows are merged and sorted before the fit)
    order = np.random.default_rng(2).permutation(len(y))
    shuffled = quiet(make(cls).fit, X[order], y[order], sample_weight=s[order])
    np.testing.assert_array_equal(shuffled.decision_function(X), weighted.decision_function(X))


@pytest.mark.parametrize("cls", ALL)
def test_zero_weights_equal_dropped_rows(cls, cancer):
    X, y = cancer
    s = np.ones(len(y))
    s[::3] = 0.0
    keep = s > 0
    weighted = quiet(make(cls).fit, X, y, sample_weight=s)
    dropped = quiet(make(cls).fit, X[keep], y[keep], sample_weight=np.ones(keep.sum()))
    assert weighted.objective_ == dropped.objective_
    np.testing.assert_array_equal(weighted.decision_function(X), dropped.decision_function(X))
    # the distribution is over the rows given to fit, 0 on the dropped ones
    assert weighted.distribution_.shape == (len(y),)
    assert np.all(weighted.distribution_[~keep] == 0)


@pytest.mark.parametrize("cls", [LPBoostClassifier, SoftBoostClassifier, ERLPBoostClassifier, RMBoostClassifier])
def test_uniform_weights_change_nothing_but_the_row_order(cls, cancer):
    X, y = cancer
    plain = quiet(make(cls, **({"lam": 0.1} if cls is RMBoostClassifier else {})).fit, X, y)
    twos = quiet(make(cls, **({"lam": 0.1} if cls is RMBoostClassifier else {})).fit, X, y,
                 sample_weight=np.full(len(y), 2.5))
    assert twos.objective_ == pytest.approx(plain.objective_, abs=1e-8)


def test_weighted_distribution_splits_a_merged_row_by_weight(cancer):
    X, y = cancer
    Xd, yd = np.vstack([X, X[:1]]), np.append(y, y[0])  # row 0 given twice
    clf = LPBoostClassifier(nu=0.2).fit(Xd, yd, sample_weight=np.append(np.ones(len(y)), 3.0))
    d = clf.distribution_
    assert d.sum() == pytest.approx(1.0) and d[-1] == pytest.approx(3.0 * d[0])


def test_bad_sample_weight_is_a_clear_error(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="(?i)negative"):
        LPBoostClassifier().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="non-zero"):
        LPBoostClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match=r"\(120,\)|120"):
        LPBoostClassifier().fit(X, y, sample_weight=np.ones(5))


weights_and_margins = st.integers(4, 25).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n).filter(lambda s: sum(s) > 0),
    st.integers(1, 5).flatmap(lambda t: st.lists(
        st.lists(st.sampled_from([-1.0, -0.5, 0.0, 1.0]), min_size=t, max_size=t), min_size=n, max_size=n)),
))


@settings(max_examples=60, deadline=None)
@given(data=weights_and_margins, nu=st.floats(0.05, 1.0),
       backend=st.sampled_from(["highspy", "highspy:delta", "highspy:rows"]))
def test_weighted_lpboost_master_is_the_master_of_repeated_rows(data, nu, backend):
    s, U = np.asarray(data[0], dtype=float), np.asarray(data[1])
    nu = min(1.0, max(nu, 1.001 / s.sum()))
    repeated = LPBoost(nu).solve(np.repeat(U, s.astype(int), axis=0), backend="highspy")
    weighted = LPBoost(nu, sample_weight=s).solve(U, backend=backend)
    assert weighted.objective == pytest.approx(repeated.objective, abs=1e-9)
    caps = s / s.sum() / nu
    d = weighted.distribution
    assert np.all(d >= -1e-12) and np.all(d <= caps + 1e-12) and d.sum() == pytest.approx(1.0)
    assert float(np.max(d @ U)) <= weighted.dual_objective + 1e-9
    # the primal: rho - sum_n c_n psi_n, and the soft margin of its w is the optimum
    assert soft_margin(U @ weighted.weights, nu, s) == pytest.approx(weighted.objective, abs=1e-9)


def test_weighted_sifting_with_tiny_working_sets_equals_the_full_lp():
    from lpboosting.backends import HighspyBackend

    rng = np.random.default_rng(3)
    U = rng.choice([-1.0, 1.0], size=(60, 9))
    s = rng.integers(0, 4, size=60).astype(float)
    s[0] = 1.0
    for nu in (0.05, 0.3, 1.0):
        full = LPBoost(nu, sample_weight=s).solve(U, backend="highspy:rows")
        for size in (1, 3, 7):
            session = HighspyBackend(working_size=size).open(LPBoost(nu, sample_weight=s), 60)
            for j in range(U.shape[1]):
                session.add_column(U[:, j])
                sol = session.solve()
            assert session.sifting and sol.objective == pytest.approx(full.objective, abs=1e-9)
            assert np.all(sol.distribution <= s / s.sum() / nu + 1e-12)


def test_weighted_rmboost_master_is_the_master_of_repeated_rows():
    rng = np.random.default_rng(4)
    for _ in range(5):
        U = rng.choice([-1.0, 1.0], size=(30, 6))
        s = rng.integers(0, 4, size=30).astype(float)
        s[0] = 2.0
        repeated = RMBoost(None).solve(np.repeat(U, s.astype(int), axis=0), backend="highspy")
        for backend in ("highspy", "highspy:ipm"):
            weighted = RMBoost(None, sample_weight=s).solve(U, backend=backend)
            assert weighted.objective == pytest.approx(repeated.objective, abs=1e-9)
            assert weighted.dual_objective == pytest.approx(repeated.objective, abs=1e-7)
            assert np.all(weighted.distribution[s == 0] == 0)  # no constraint, no multiplier
        pos = s > 0
        dedicated = RMBoost(None, sample_weight=s[pos]).solve(U[pos], backend="dedicated")
        assert dedicated.objective == pytest.approx(repeated.objective, abs=1e-9)
    with pytest.raises(ValueError, match="positive sample weights"):
        RMBoost(None, sample_weight=s).solve(U, backend="dedicated")


# -- staged output and the ensemble -----------------------------------------------------------------
@pytest.mark.parametrize("cls", ALL)
def test_staged_output_ends_at_the_model_and_each_stage_is_a_shorter_fit(cls, cancer):
    X, y = cancer
    clf = quiet(make(cls, stabilization=None, columns_per_round=1).fit, X, y)
    staged = list(clf.staged_decision_function(X))
    assert len(staged) == clf.n_rounds_
    np.testing.assert_array_equal(staged[-1], clf.decision_function(X))
    np.testing.assert_array_equal(list(clf.staged_predict(X))[-1], clf.predict(X))
    r = max(1, clf.n_rounds_ // 2)
    shorter = quiet(make(cls, stabilization=None, columns_per_round=1, max_rounds=r).fit, X, y)
    np.testing.assert_allclose(staged[r - 1], shorter.decision_function(X), atol=1e-12)


def test_compacted_ensemble_and_feature_importances(cancer):
    X, y = cancer
    clf = LPBoostClassifier(nu=0.2).fit(X, y)
    w = clf.weights_
    assert clf.n_estimators_ == np.count_nonzero(w) == len(clf.estimators_) < len(clf.hypotheses_)
    np.testing.assert_array_equal(clf.estimator_weights_, w[w != 0])
    # importance = weight mass per feature (stumps), computed here independently
    mass = np.zeros(X.shape[1])
    for weight, h in zip(w, clf.hypotheses_):
        if weight and np.isfinite(h.threshold):
            mass[h.feature] += weight
    np.testing.assert_allclose(clf.feature_importances_, mass / mass.sum(), atol=1e-12)
    trees = LPBoostClassifier(nu=0.2, oracle="trees").fit(X, y)
    assert trees.feature_importances_.sum() == pytest.approx(1.0)


def test_hypotheses_print_feature_names_and_clean_thresholds():
    pd = pytest.importorskip("pandas")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = LPBoostClassifier().fit(X, y)
    text = clf.describe()
    assert "worst" in text or "mean" in text  # the DataFrame's column names
    for stump in clf.estimators_:
        if np.isfinite(stump.threshold):
            assert len(repr(stump.threshold)) <= 12  # no float noise such as 0.15000000000000002
    assert isinstance(X, pd.DataFrame)


@settings(max_examples=300, deadline=None)
@given(lo=st.floats(-1e6, 1e6, allow_nan=False), gap=st.floats(1e-12, 1e3))
def test_clean_threshold_splits_where_the_midpoint_does(lo, gap):
    hi = lo + gap
    if not lo < hi:
        return
    t = clean_threshold(lo, hi)
    mid = lo + (hi - lo) / 2.0
    assert lo <= t < hi
    if lo < mid < hi:
        assert abs(t - mid) <= 1e-6 * (hi - lo) + abs(mid) * 1e-15


def test_a_known_noisy_midpoint_prints_clean():
    assert clean_threshold(0.1, 0.2) == 0.15 and repr(clean_threshold(0.1, 0.2)) == "0.15"
    assert clean_threshold(1.9, 3.0) == 2.45


# -- predict_proba -----------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [LPBoostClassifier, SoftBoostClassifier, TotalBoostClassifier, ERLPBoostClassifier])
def test_predict_proba_is_adaboosts_form(cls, cancer):
    X, y = cancer
    clf = quiet(make(cls).fit, X, y)
    p = clf.predict_proba(X)
    np.testing.assert_allclose(p[:, 1], expit(clf.decision_function(X)))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[np.argmax(p, axis=1)][p[:, 0] != p[:, 1]],
                                  clf.predict(X)[p[:, 0] != p[:, 1]])


# -- warm_start -------------------------------------------------------------------------------------
@pytest.mark.parametrize("config", [
    {"cls": LPBoostClassifier, "oracle": "trees", "stabilization": None, "columns_per_round": 1},
    {"cls": LPBoostClassifier, "stabilization": "smoothing", "columns_per_round": 1, "data": "full"},
    {"cls": RMBoostClassifier},
    {"cls": SoftBoostClassifier},
])
def test_warm_start_50_plus_50_rounds_equal_100(config, cancer):
    X, y = cancer
    config = dict(config)
    cls = config.pop("cls")
    if config.pop("data", None) == "full":  # 111 rounds
        X, y = load_breast_cancer(return_X_y=True)
    kw = {"nu": 0.05, "tol": 1e-12} if cls is LPBoostClassifier else {}
    if cls is RMBoostClassifier:
        kw = {"lam": 0.02}
    if cls is SoftBoostClassifier:
        kw = {"nu": 0.05, "delta": 0.001}
    once = quiet(cls(**kw, **config, max_rounds=100).fit, X, y)
    assert once.n_rounds_ > 50  # the warm start has something to continue
    warm = quiet(cls(**kw, **config, max_rounds=50, warm_start=True).fit, X, y)
    assert warm.n_rounds_ == 50
    quiet(warm.set_params(max_rounds=100).fit, X, y)
    assert warm.n_rounds_ == once.n_rounds_
    np.testing.assert_array_equal(warm.decision_function(X), once.decision_function(X))
    assert warm.history_["primal"] == once.history_["primal"]
    assert warm.objective_ == once.objective_


def test_warm_start_refuses_other_data_or_parameters_and_survives_pickling(cancer):
    X, y = cancer
    clf = quiet(LPBoostClassifier(nu=0.05, max_rounds=5, warm_start=True, stabilization=None,
                                  columns_per_round=1).fit, X, y)
    with pytest.raises(ValueError, match="same data"):
        clf.fit(X[:-1], y[:-1])
    with pytest.raises(ValueError, match=r"\['nu'\]"):
        clf.set_params(nu=0.1).fit(X, y)
    clf.set_params(nu=0.05)
    with pytest.raises(ValueError, match="below"):
        clf.set_params(max_rounds=3).fit(X, y)
    revived = pickle.loads(pickle.dumps(clf.set_params(max_rounds=400)))  # no live session any more
    quiet(revived.fit, X, y)
    fresh = LPBoostClassifier(nu=0.05, max_rounds=400, stabilization=None, columns_per_round=1).fit(X, y)
    assert revived.status_ == "converged" and revived.objective_ == pytest.approx(fresh.objective_, abs=1e-6)


# -- verbose and random_state ----------------------------------------------------------------------------
def test_verbose_prints_the_ledger_and_silence_prints_nothing(cancer, capsys):
    X, y = cancer
    LPBoostClassifier().fit(X, y)
    assert capsys.readouterr().out == ""
    clf = LPBoostClassifier(verbose=1).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["round", "cols", "primal"]
    assert len(lines) == 1 + clf.n_rounds_
    assert lines[-1].split()[0] == str(clf.n_rounds_) and lines[-1].endswith("converged")


def test_random_state_reaches_the_trees(cancer):
    X, y = cancer
    params = {"oracle": "trees", "oracle_params": {"max_features": 2}, "max_rounds": 15}
    a = quiet(LPBoostClassifier(random_state=1, **params).fit, X, y)
    b = quiet(LPBoostClassifier(random_state=1, **params).fit, X, y)
    c = quiet(LPBoostClassifier(random_state=2, **params).fit, X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.decision_function(X), c.decision_function(X))
    assert a.history_.meta["random_state"] == 1
    assert a.history_.meta["versions"]["numpy"] == np.__version__


# -- the JSON model -------------------------------------------------------------------------------------
@pytest.mark.parametrize("clf", [
    LPBoostClassifier(), LPBoostClassifier(oracle="trees"), LPBoostClassifier(oracle="features"),
    RMBoostClassifier(max_rounds=20), SoftBoostClassifier(delta=0.1), TotalBoostClassifier(delta=0.1),
    ERLPBoostClassifier(delta=0.1),
], ids=lambda c: f"{type(c).__name__}-{c.oracle}")
def test_json_model_round_trip_predicts_identically(clf, cancer, tmp_path):
    X, y = cancer
    labels = np.where(y == 1, "benign", "malignant")
    quiet(clf.fit, X, labels)
    save_model(clf, tmp_path / "m.json")
    text = (tmp_path / "m.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    data = json.loads(text)
    assert data["versions"]["lpboosting"] and data["classes"] == ["benign", "malignant"]
    loaded = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    for a, b in zip(loaded.staged_decision_function(X), clf.staged_decision_function(X), strict=True):
        np.testing.assert_array_equal(a, b)
    assert loaded.history_ == clf.history_ and loaded.objective_ == clf.objective_


@pytest.mark.parametrize("params", [{}, {"multiclass": "one-vs-rest"}, {"nu": 0.1, "oracle": "trees"}])
def test_json_model_of_a_multiclass_fit_and_of_constant_stumps(tmp_path, params):
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::9, 2] = np.nan  # missing values take their learned side in the model read back
    clf = LPBoostClassifier(**params).fit(X, y)
    save_model(clf, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    for a, b in zip(loaded.staged_predict_proba(X), clf.staged_predict_proba(X)):
        np.testing.assert_array_equal(a, b)
    assert hasattr(loaded, "one_vs_rest_") == hasattr(clf, "one_vs_rest_")
    assert loaded.classes_.dtype == clf.classes_.dtype
    from lpboosting.model_io import hypothesis_from_dict, hypothesis_to_dict

    for stump in (Stump(1, -np.inf, 1.0), Stump(1, np.inf, 1.0), Stump(0, 0.15, -1.0)):
        back = hypothesis_from_dict(json.loads(json.dumps(hypothesis_to_dict(stump), allow_nan=False)))
        np.testing.assert_array_equal(back.predict(X), stump.predict(X))


def test_json_model_refuses_what_it_cannot_hold(cancer, tmp_path):
    X, y = cancer

    class Rule:
        def predict(self, Z):
            return np.where(Z[:, 0] > 15, -1.0, 1.0)

    clf = LPBoostClassifier(oracle=lambda X, y, d: Rule(), max_rounds=2)
    quiet(clf.fit, X, y)
    with pytest.raises(TypeError, match="pickle"):
        save_model(clf, tmp_path / "m.json")
    (tmp_path / "other.json").write_text('{"records": []}')
    with pytest.raises(ValueError, match="not an lpboosting model"):
        load_model(tmp_path / "other.json")
    (tmp_path / "cut.json").write_text('{"format": "lpboosting-mo')
    with pytest.raises(ValueError, match="not a JSON model"):
        load_model(tmp_path / "cut.json")


def test_history_writes_nan_and_inf_as_null(cancer, tmp_path):
    from lpboosting import History

    X, y = cancer
    clf = SoftBoostClassifier(delta=0.1).fit(X, y)
    assert any(np.isnan(v) for v in clf.history_["primal"] if v is not None)  # the last round's
    clf.history_.meta["note"] = "inf"  # a string stays a string
    clf.history_.save(tmp_path / "h.json")
    loaded = History.load(tmp_path / "h.json")
    assert loaded == clf.history_  # NaN read back as null counts as equal
    clf.history_.meta["limit"] = float("inf")
    clf.history_.save(tmp_path / "h.json")
    text = (tmp_path / "h.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    loaded = History.load(tmp_path / "h.json")
    assert loaded.meta["note"] == "inf" and loaded.meta["limit"] is None


# -- multiclass --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", ALL)
def test_multiclass_is_one_vs_rest_of_the_binary_fits(cls):
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    # LPBoost fits one LP over all classes by default (tests/estimators/test_multiclass_native.py)
    ovr = {"multiclass": "one-vs-rest"} if cls is LPBoostClassifier else {}
    clf = quiet(make(cls, **ovr).fit, X, names)
    assert list(clf.classes_) == ["setosa", "versicolor", "virginica"]
    F = clf.decision_function(X)
    assert F.shape == (len(y), 3)
    for k, label in enumerate(clf.classes_):
        binary = quiet(make(cls).fit, X, np.where(names == label, "yes", "no"))
        np.testing.assert_array_equal(F[:, k], binary.decision_function(X))  # "yes" is classes_[1]
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(F, axis=1)])
    p = clf.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.mean(clf.predict(X) == names) > 0.9
    assert len(list(clf.staged_predict(X))) == max(m.n_rounds_ for m in clf.one_vs_rest_)
    with pytest.raises(ValueError, match="two classes"):
        clf.margins(X, names)
    k = 1  # the hint of that message works
    np.testing.assert_array_equal(clf.one_vs_rest_[k].margins(X, names == clf.classes_[k]),
                                  np.where(names == clf.classes_[k], 1.0, -1.0) * F[:, k])


def test_ctrl_c_in_one_class_of_a_multiclass_fit_keeps_nothing(monkeypatch):
    X, y = load_iris(return_X_y=True)
    import lpboosting.oracles.stumps as stumps

    calls = {"n": 0}
    original = stumps.Stumps.price_many

    def interrupted(self, d, k):
        calls["n"] += 1
        if calls["n"] == 8:  # inside the second class's fit
            raise KeyboardInterrupt
        return original(self, d, k)

    monkeypatch.setattr(stumps.Stumps, "price_many", interrupted)
    clf = LPBoostClassifier(stabilization=None, columns_per_round=1, multiclass="one-vs-rest")
    with pytest.raises(KeyboardInterrupt), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        clf.predict(X)
