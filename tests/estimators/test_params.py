"""Parameter checks from ``_parameter_constraints`` and the one round-count name ``max_rounds``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from lpboosting import History
from lpboosting.errors import UnknownOracleError
from lpboosting.estimators import (
    ERLPBoostClassifier,
    LPBoostClassifier,
    RMBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from lpboosting.leveraging import (
    BoundedLossClassifier,
    LLDClassifier,
    LLMClassifier,
    LogLossBoostClassifier,
    ModaBoostClassifier,
)
from lpboosting.oracles import ORACLES, Features
from lpboosting.params import (
    Explain,
    Integral,
    Interval,
    InvalidParameterError,
    Names,
    Real,
    StrOptions,
    check_params,
    deprecated_alias,
    describe,
)

ESTIMATORS = [
    LLMClassifier, LLDClassifier, LogLossBoostClassifier, BoundedLossClassifier, ModaBoostClassifier,
    LPBoostClassifier, SoftBoostClassifier, TotalBoostClassifier, ERLPBoostClassifier, RMBoostClassifier,
]

#: (class, old name, a value, other parameters that keep the fit short)
RENAMED = [
    (LLMClassifier, "n_rounds", 7, {}),
    (LLDClassifier, "n_rounds", 7, {}),
    (LogLossBoostClassifier, "n_rounds", 7, {}),
    (ModaBoostClassifier, "n_rounds", 7, {"model": "linear"}),
    (BoundedLossClassifier, "max_iter", 3, {"anneal": False}),
]


def data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def fitted_state(clf):
    h = clf.history_
    return clf.decision_function(data()[0]), (h.to_dict()["primal"] if isinstance(h, History) else h)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_every_parameter_has_a_constraint(cls):
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))
    assert set(getattr(cls, "_parameter_messages", {})) <= set(cls._parameter_constraints)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # short runs
@pytest.mark.parametrize("cls, old, value, extra", RENAMED)
def test_old_round_name_gives_the_same_fit_with_a_future_warning(cls, old, value, extra):
    X, y = data()
    new = cls(max_rounds=value, **extra).fit(X, y)
    with pytest.warns(FutureWarning, match=f"{old} was renamed max_rounds; use max_rounds={value}"):
        olds = cls(**{old: value}, **extra).fit(X, y)
    a, b = fitted_state(new), fitted_state(olds)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    # the same value under both names is accepted too
    with pytest.warns(FutureWarning):
        cls(**{old: value, "max_rounds": value}, **extra).fit(X, y)


@pytest.mark.parametrize("cls, old, value, extra", RENAMED)
def test_both_round_names_with_different_values_is_an_error(cls, old, value, extra):
    X, y = data()
    with pytest.raises(ValueError, match=f"{old} is the old name of max_rounds.*pass max_rounds only"):
        cls(**{old: value, "max_rounds": value + 1}, **extra).fit(X, y)


@pytest.mark.parametrize("cls, old, value, extra", RENAMED)
def test_get_params_clone_and_set_params_know_both_names(cls, old, value, extra):
    clf = cls(max_rounds=value)
    params = clf.get_params()
    assert params["max_rounds"] == value and params[old] == "deprecated"
    old_style = clone(cls(**{old: value}))
    assert old_style.get_params()[old] == value
    assert old_style.get_params()["max_rounds"] == cls().get_params()["max_rounds"]
    clf.set_params(**{old: value + 2, "max_rounds": value + 2})
    assert clf.get_params()[old] == value + 2 and clone(clf).get_params()["max_rounds"] == value + 2
    with pytest.raises(ValueError, match=f"{old} must be an integer >= 1"):
        clf.set_params(**{old: 0, "max_rounds": 5}).fit(*data())


def test_import_and_construction_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cls in ESTIMATORS:
            clone(cls())


# -- the validator ------------------------------------------------------------------------------


class Toy:
    """A stand-in estimator: get_params and the two class attributes are all check_params needs."""

    _parameter_constraints = {
        "rounds": [Interval(Integral, 1, None, closed="left")],
        "old": deprecated_alias([Interval(Integral, 1, None, closed="left")]),
        "rate": [Interval(Real, 0, 1, closed="right")],
        "scale": [Interval(Real, 0, None, closed="neither"), None],
        "shape": [Names({"round", "square"})],
        "flag": ["boolean"],
        "free": "no_validation",
    }
    _parameter_messages = {
        "rate": Explain(what="a fraction in (0, 1]", advice="try 0.1"),
        "shape": Explain(unknown=True, advice="choose 'round' or 'square'"),
    }

    def __init__(self, **params):
        self.params = {"rounds": 3, "old": "deprecated", "rate": 0.5, "scale": None, "shape": "round",
                       "flag": True, "free": object(), **params}

    def get_params(self, deep=False):
        return dict(self.params)


@pytest.mark.parametrize("params, message", [
    ({"rounds": 0}, r"^Toy: rounds must be an integer >= 1, got 0$"),
    ({"rounds": True}, "rounds must be an integer >= 1, got True"),  # a bool is not a number
    ({"rounds": 2.0}, "rounds must be an integer >= 1, got 2.0"),
    ({"old": 0}, r"^Toy: old must be an integer >= 1, got 0$"),  # "deprecated" is not advertised
    ({"rate": 0.0}, r"^Toy: rate must be a fraction in \(0, 1\], got 0.0; try 0.1$"),
    ({"rate": float("nan")}, "rate must be a fraction"),
    ({"scale": np.inf}, r"^Toy: scale must be a finite number > 0 or None, got inf$"),
    ({"shape": "oval"}, r"^Toy: unknown shape 'oval'; choose 'round' or 'square'$"),
    ({"flag": 1}, r"^Toy: flag must be True or False, got 1$"),
])
def test_check_params_words_the_first_invalid_parameter(params, message):
    with pytest.raises(InvalidParameterError, match=message) as err:
        check_params(Toy(**params))
    assert isinstance(err.value, ValueError)


def test_check_params_accepts_valid_values():
    check_params(Toy())
    check_params(Toy(rounds=np.int64(4), old=2, rate=1, scale=np.float64(2.5), shape=" Square",
                     flag=np.bool_(False)))


def test_describe():
    assert describe([Interval(Integral, 2, None, closed="left"), None]) == "an integer >= 2 or None"
    assert describe([None, Interval(Integral, 1, None, closed="left")]) == "None or an integer >= 1"
    assert describe([Interval(Real, 0, None, closed="left")]) == "a finite number >= 0"
    assert describe([Interval(Real, 0, 0.5, closed="neither")]) == "a number in (0, 0.5)"
    assert describe([StrOptions({"b", "a"}), callable]) == "one of ['a', 'b'] or a callable"
    assert describe(deprecated_alias([Interval(Integral, 1, None, closed="left")])) == "an integer >= 1"


def test_column_generation_classifiers_check_their_parameters_first():
    X, y = data()
    with pytest.raises(InvalidParameterError, match="max_rounds must be an integer >= 1, got 0"):
        LPBoostClassifier(max_rounds=0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="tol must be a finite number >= 0"):
        SoftBoostClassifier(tol=-1.0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="backend must be None, a str or a Backend, got 3"):
        TotalBoostClassifier(backend=3).fit(X, y)
    with pytest.raises(InvalidParameterError, match="delta must be an accuracy in"):
        ERLPBoostClassifier(delta=0.0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="oracle_params must be None or a dict"):
        RMBoostClassifier(oracle_params=[("max_depth", 2)]).fit(X, y)


# -- the leveraging boosters' oracles come from the registry ------------------------------------


@pytest.mark.parametrize("cls", [LLMClassifier, LLDClassifier, LogLossBoostClassifier])
def test_leveraging_oracle_names_come_from_the_registry(cls, monkeypatch):
    X, y = data()
    with pytest.raises(UnknownOracleError, match="'features' .*'stumps' .*every candidate"):
        cls(oracle="nope").fit(X, y)
    monkeypatch.setitem(ORACLES, "coordinates", Features)  # a new registry name of a usable class
    by_alias = cls(oracle="Coordinates", max_rounds=5).fit(X, y)
    np.testing.assert_array_equal(by_alias.coef_, cls(max_rounds=5).fit(X, y).coef_)
    with pytest.raises(UnknownOracleError, match="choose 'coordinates' .*'features' .*'stumps'"):
        cls(oracle="trees").fit(X, y)


# -- the leveraging boosters record a History ----------------------------------------------------


@pytest.mark.parametrize("cls, extras", [
    (LLMClassifier, ["loss", "epsilon", "q_increase_bound", "selected"]),
    (LLDClassifier, ["loss", "decrease_bound", "selected"]),
    (LogLossBoostClassifier, ["loss", "q_increase_bound", "selected"]),
])
@pytest.mark.parametrize("mode, oracle", [("parallel", "features"), ("sequential", "stumps")])
def test_leveraging_history_is_a_history_from_round_0(cls, extras, mode, oracle, tmp_path):
    X, y = data(60)
    clf = cls(mode=mode, oracle=oracle, max_rounds=12).fit(X, y)
    h = clf.history_
    assert isinstance(h, History) and len(h) == clf.n_rounds_ + 1 == 13
    assert h["round"] == list(range(13)) and h.columns()[-len(extras):] == extras
    assert h["primal"] == h["loss"] and h["n_columns"][0] == 0 and all(r.exact for r in h)
    assert [r.status for r in h] == ["added"] * 12 + ["max_rounds"] and h.meta["status"] == "max_rounds"
    assert h.meta["mode"] == mode and h.meta["oracle"] == oracle and h.meta["max_rounds"] == 12
    h.save(tmp_path / "h.json")
    assert History.load(tmp_path / "h.json") == h
    early = cls(mode=mode, oracle=oracle, max_rounds=500, tol=1e-2).fit(X, y)
    assert early.n_rounds_ < 500 and early.history_[-1].status == early.history_.meta["status"] == "converged"


def test_bounded_loss_history_is_a_history_of_em_iterations():
    X, y = data(60)
    clf = BoundedLossClassifier(C=2.0).fit(X, y)
    h = clf.history_
    assert isinstance(h, History) and h["round"] == list(range(len(h)))
    assert h["primal"] == h["objective"] and h["iterations"] == h["newton_steps"]
    assert h["objective"][-1] == clf.objective_ and h.meta["status"] == "converged"
    ends = [i for i, r in enumerate(h) if r.status != "added"]
    starts = [i for i, it in enumerate(h["iteration"]) if it == 0]
    assert [i + 1 for i in ends[:-1]] == starts[1:] and ends[-1] == len(h) - 1
    assert len(starts) == len(clf.lambda_path_)


def test_an_oracle_added_to_the_registry_is_for_the_column_generation_classifiers(monkeypatch):
    """docs/architecture.md's oracle recipe: a new name in ORACLES is taken by the
    column-generation classifiers; the leveraging boosters refuse it, naming the ones they take."""
    from sklearn.datasets import load_breast_cancer

    from lpboosting import LLMClassifier, LPBoostClassifier
    from lpboosting.errors import UnknownOracleError
    from lpboosting.oracles import ORACLES, Stumps

    class MyStumps(Stumps):
        """The exact stumps under another name."""

    monkeypatch.setitem(ORACLES, "my-stumps", MyStumps)
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:120, :4]
    y = y[:120]
    mine = LPBoostClassifier(oracle="my-stumps").fit(X, y)
    plain = LPBoostClassifier(oracle="stumps").fit(X, y)
    assert mine.status_ == "converged" and mine.objective_ == pytest.approx(plain.objective_, abs=1e-9)
    with pytest.raises(UnknownOracleError, match="'features'.*'stumps'|'stumps'.*'features'"):
        LLMClassifier(oracle="my-stumps").fit(X, y)
