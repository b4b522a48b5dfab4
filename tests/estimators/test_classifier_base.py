"""Every classifier shares one base (estimators/classifier.py): the column-generation classifiers and
the leveraging boosters break ties between classes by the same rule, fit one-vs-rest through the same
code, stop on Ctrl-C and refuse a warm start alike; the loop's options reach the loop as one
LoopOptions; the CV classifiers are written out, every parameter documented."""

from __future__ import annotations

import ast
import inspect
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import lpboosting.estimators.base as cg_base
import lpboosting.estimators.one_vs_rest as one_vs_rest
from lpboosting import (
    ERLPBoostClassifier,
    ERLPBoostCV,
    LLMClassifier,
    LPBoostClassifier,
    LPBoostCV,
    ModaBoostClassifier,
    RMBoostClassifier,
    SoftBoostClassifier,
    SoftBoostCV,
    TotalBoostClassifier,
)
from lpboosting.colgen import LoopOptions
from lpboosting.estimators import cv as cv_module
from lpboosting.estimators.classifier import CLASS_TIE, BoostingClassifier
from lpboosting.estimators.interrupt import CtrlC
from lpboosting.estimators.loop_parameters import LOOP_CONSTRAINTS
from lpboosting.leveraging import _common

X, _y = load_iris(return_X_y=True)
CLASSES = np.array(["setosa", "versicolor", "virginica"])
NAMES = CLASSES[_y]

#: one classifier of each family, small and quick on iris
FAMILIES = {
    "column generation": lambda **kw: LPBoostClassifier(**{"nu": 0.2, "stabilization": None,
                                                           "columns_per_round": 1,
                                                           "multiclass": "one-vs-rest", **kw}),
    "leveraging": lambda **kw: LLMClassifier(**{"mode": "sequential", "oracle": "stumps", "max_rounds": 20,
                                                "tol": 0.0, **kw}),
}
CG_CLASSIFIERS = (LPBoostClassifier, SoftBoostClassifier, TotalBoostClassifier, ERLPBoostClassifier,
                  RMBoostClassifier)
CV_CLASSIFIERS = (LPBoostCV, SoftBoostCV, ERLPBoostCV)


def quiet_fit(est, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, **fit_params)


@pytest.fixture(scope="module")
def fitted():
    return {family: quiet_fit(make(), X, NAMES) for family, make in FAMILIES.items()}


def test_both_families_are_one_base():
    assert issubclass(LPBoostClassifier, BoostingClassifier) and issubclass(LLMClassifier, BoostingClassifier)
    assert issubclass(ModaBoostClassifier, _common.Booster) and not issubclass(LPBoostClassifier, _common.Booster)
    for name in ("_label", "predict", "staged_predict", "_keep_one_vs_rest", "_fit_one_vs_rest",
                 "_check_warm_start", "_forget_fit", "_say", "_ctrl_c"):
        assert getattr(LPBoostClassifier, name) is getattr(BoostingClassifier, name), name
        assert getattr(LLMClassifier, name) is getattr(BoostingClassifier, name), name
    assert _common.CtrlC is CtrlC and _common.CLASS_TIE is CLASS_TIE


# -- the tie rule ---------------------------------------------------------------------------------------
#: decisions of three classes: equal but for the last bits (tied), apart by more than CLASS_TIE (not)
CRAFTED = np.array([[0.5, 0.5 * (1 + 4e-16), -0.2],  # tied: the first class
                    [0.1, 0.4, 0.4 - 1e-13],  # tied: the second
                    [-0.3, 0.2, 0.2 + 3 * CLASS_TIE],  # the third is larger by more than the tie
                    [0.0, 0.0, 0.0]])  # all tied: the first
EXPECTED = ["setosa", "versicolor", "virginica", "setosa"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_crafted_tie_between_classes_goes_to_the_first_class_in_both_families(fitted, family):
    clf = fitted[family]
    clf.decision_function = lambda X: CRAFTED  # predict reads the decisions through the public method
    try:
        assert clf.predict(X[:4]).tolist() == EXPECTED
        # argmax alone would follow the rounding in rows 0 and 1
        assert CLASSES[np.argmax(CRAFTED, axis=1)].tolist() != EXPECTED
    finally:
        del clf.decision_function


def test_rmboost_breaks_ties_between_its_probabilities_by_the_same_rule():
    """RMBoost's randomised rule saturates at 1: two classes of probability 1 tie, the first wins."""
    clf = quiet_fit(RMBoostClassifier(oracle="stumps", max_rounds=30), X, NAMES)
    decision = np.array([[0.9, 0.6, -0.5]])  # both first columns give probability 1 before normalising
    clf.decision_function = lambda X: decision
    assert clf.predict(X[:1]).tolist() == ["setosa"]
    assert np.argmax(clf._class_scores(decision), axis=1).tolist() == [0]


# -- one-vs-rest ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", FAMILIES)
def test_both_families_fit_one_vs_rest_through_the_one_runner(monkeypatch, family):
    calls = []
    original = one_vs_rest.fit_one_vs_rest

    def counted(estimator, classes, fit_class, resume=False):
        calls.append((type(estimator).__name__, list(classes), resume))
        return original(estimator, classes, fit_class, resume)

    monkeypatch.setattr(one_vs_rest, "fit_one_vs_rest", counted)
    clf = quiet_fit(FAMILIES[family](), X, NAMES)
    assert calls == [(type(clf).__name__, CLASSES.tolist(), False)]
    assert len(clf.one_vs_rest_) == 3 and clf.history_ == [m.history_ for m in clf.one_vs_rest_]
    assert all(m.classes_.tolist() == [False, True] for m in clf.one_vs_rest_)


@pytest.mark.parametrize("family", FAMILIES)
def test_warnings_of_a_class_carry_its_prefix_in_both_families(family):
    make = FAMILIES[family]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        make(max_rounds=2).fit(X, NAMES)
    capped = [str(w.message) for w in said if issubclass(w.category, ConvergenceWarning)]
    assert capped and all(re.match(r"\['\w+' vs rest\] ", m) for m in capped)


# -- Ctrl-C ---------------------------------------------------------------------------------------------
def _interrupt_the_second_class(monkeypatch, family):
    """A Ctrl-C at round 2 of the second class's fit: the column-generation loop catches it in the
    callback's round, a leveraging booster in CtrlC.release (each round releases once)."""
    if family == "column generation":
        starts = []

        def callback(record):
            starts.append(record.round == 1)
            if sum(starts) == 2 and record.round == 2:
                raise KeyboardInterrupt
            return False

        return FAMILIES[family](callback=callback)
    first = {"n": 0}
    release = CtrlC.release

    def counted(self):
        first["n"] += 1
        return release(self)

    with monkeypatch.context() as m:
        m.setattr(CtrlC, "release", counted)
        quiet_fit(FAMILIES[family](), X, NAMES == CLASSES[0])  # the first class's rounds
    seen = {"n": 0}

    def interrupting(self):
        seen["n"] += 1
        if seen["n"] == first["n"] + 2:
            raise KeyboardInterrupt
        return release(self)

    monkeypatch.setattr(CtrlC, "release", interrupting)
    return FAMILIES[family]()


@pytest.mark.parametrize("family", FAMILIES)
def test_ctrl_c_in_the_second_class_keeps_no_model_with_one_message(monkeypatch, family):
    clf = _interrupt_the_second_class(monkeypatch, family)
    name = type(clf).__name__
    with pytest.raises(KeyboardInterrupt) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, NAMES)
    assert str(raised.value) == (
        f"{name}: interrupted by the user (Ctrl-C) while fitting class 'versicolor' against the rest (2 of 3); "
        "the classes after it have no model yet, so no model is kept")
    assert not hasattr(clf, "classes_") and not hasattr(clf, "one_vs_rest_")
    with pytest.raises(NotFittedError):
        clf.predict(X)


# -- warm start -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", FAMILIES)
def test_warm_start_refuses_other_data_and_too_few_rounds_alike(family):
    clf = quiet_fit(FAMILIES[family](warm_start=True, max_rounds=5), X, NAMES)
    name = type(clf).__name__
    with pytest.raises(ValueError, match=rf"^{name}: warm_start=True continues the previous fit, which was "
                                         r"made on other data \(X, y or sample_weight differ\)"):
        clf.fit(X[:-1], NAMES[:-1])
    done = max(m.n_rounds_ for m in clf.one_vs_rest_)
    with pytest.raises(ValueError, match=rf"^{name}: max_rounds=1 is below the {done} rounds already fitted by "
                                         "the model of class"):
        clf.set_params(max_rounds=1).fit(X, NAMES)


# -- the loop's options ---------------------------------------------------------------------------------
def test_the_loop_gets_one_options_object_built_from_the_parameters(monkeypatch):
    seen = []
    original = cg_base.column_generation

    def spy(master, oracle, options, **kwargs):
        seen.append((options, sorted(kwargs)))
        return original(master, oracle, options, **kwargs)

    monkeypatch.setattr(cg_base, "column_generation", spy)
    clf = LPBoostClassifier(nu=0.2, tol=1e-7, max_rounds=300, columns_per_round=3, stall_rounds=50,
                            time_limit=100.0).fit(*load_iris(return_X_y=True))
    assert len(seen) == 1  # one LP over the three classes (one-vs-rest: one run per class)
    for options, keywords in seen:
        assert isinstance(options, LoopOptions)
        assert keywords == ["backend", "initial_columns", "resume"]
        for field in LoopOptions.names():
            if field != "callback":
                assert getattr(options, field) == getattr(clf, field), field


def test_the_loop_parameters_are_checked_and_documented_once():
    assert list(LOOP_CONSTRAINTS) == list(LoopOptions.names())
    for cls in CG_CLASSIFIERS + CV_CLASSIFIERS:
        for name, constraint in LOOP_CONSTRAINTS.items():
            assert cls._parameter_constraints[name] is constraint, (cls.__name__, name)
        defaults = inspect.signature(cls.__init__).parameters
        assert f"    max_rounds : int, default {defaults['max_rounds'].default}\n" in cls.__doc__
        assert f"    columns_per_round : int, default {defaults['columns_per_round'].default}\n" in cls.__doc__


# -- the CV classifiers ---------------------------------------------------------------------------------
def _documented(doc: str) -> list[str]:
    """The names of a numpydoc Parameters section."""
    section = doc.split("Parameters\n    ----------\n", 1)[1]
    names = []
    for line in section.splitlines():
        if re.match(r"    \w", line) and " : " not in line:
            break  # the section's end (prose or the next heading)
        entry = re.match(r"    (\w+(?:, \w+)*) : ", line)
        if entry:
            names += entry.group(1).split(", ")
    return names


@pytest.mark.parametrize("cls", CV_CLASSIFIERS + CG_CLASSIFIERS, ids=lambda c: c.__name__)
def test_every_parameter_is_in_the_signature_and_documented_once(cls):
    parameters = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    documented = _documented(cls.__doc__)
    assert sorted(documented) == sorted(parameters), set(documented) ^ set(parameters)
    assert not re.search(r"\{(loop_parameters|shared_parameters|shared_attributes)\}", cls.__doc__)


def test_the_cv_classifiers_are_written_out_without_exec():
    source = Path(cv_module.__file__).read_text()
    tree = ast.parse(source)
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    assert not [c.func.id for c in calls if c.func.id in ("exec", "eval", "compile")]
    assert not [c for c in calls if c.func.id == "type" and len(c.args) == 3]  # no class made by type(...)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for cls in CV_CLASSIFIERS:
        assert cls.__name__ in classes and cls.__module__ == cv_module.__name__
        init = inspect.getsource(cls.__init__)
        for name in inspect.signature(cls.__init__).parameters:
            if name != "self":
                assert f"self.{name} = {name}" in init
    for cls, plain in ((LPBoostCV, LPBoostClassifier), (SoftBoostCV, SoftBoostClassifier),
                       (ERLPBoostCV, ERLPBoostClassifier)):
        own = inspect.signature(cls.__init__).parameters
        theirs = inspect.signature(plain.__init__).parameters
        assert set(own) == (set(theirs) - {"nu"}) | {"nus", "cv", "scoring", "early_stopping"}
        assert all(own[p].default == theirs[p].default for p in own if p in theirs and p != "oracle")
        assert own["oracle"].default == "auto" and cls().nu == "auto" and "nu" not in cls().get_params()
