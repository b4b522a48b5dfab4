"""nu chosen by cross-validation: ``LPBoostCV``, ``SoftBoostCV``, ``ERLPBoostCV`` and ``nu="auto"``.

In the style of scikit-learn's ``LogisticRegressionCV``: each fold fits the
classifier at every nu of ``nus`` on its training part and scores it on the
rest (``scoring``, accuracy by default); the nu of best mean score (the
larger nu on a tie: more of the examples count) is refitted on all the data.
The folds run LPBoost's warm-started nu path
(:func:`lpboosting.colgen.nu_path`: one live master per fold, its columns
and basis kept from one nu to the next, from large nu to small).  For
SoftBoost and ERLPBoost nu plays the same part (the cap 1/(nu N) of their
distribution) and their soft margin is within delta of LPBoost's at the
same nu (Warmuth, Glocer, Rätsch 2007; Warmuth, Glocer, Vishwanathan
2008), so their nu is chosen on LPBoost's path too and only the refit is
theirs: fitting every nu of every fold with the entropy masters took 25 to
90 times AdaBoost's fit time on pima and wdbc, the path 3 to 7 times
(``python -m lpboosting.benchmark.accuracy``).

Why nu matters: at most a fraction nu of the examples can have a margin
below the soft margin rho (Warmuth, Glocer, Rätsch 2007), so a nu below the
fraction of flipped labels makes the booster fit them; a nu above it lets
them go.  The default grid spans 0.01 to 0.6.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import get_scorer
from sklearn.model_selection import check_cv

from lpboosting.colgen.path import nu_path
from lpboosting.oracles import make_oracle

__all__ = ["DEFAULT_NUS", "ERLPBoostCV", "LPBoostCV", "SoftBoostCV", "select_nu"]

#: the nu grid of ``nu="auto"`` and the CV classifiers, from large to small (the path's order)
DEFAULT_NUS = (0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01)


class _Frozen(ClassifierMixin, BaseEstimator):
    """A classifier whose decisions on one validation set are known (for scikit-learn's scorers)."""

    def __init__(self, classes: np.ndarray, decision: np.ndarray) -> None:
        self.classes = classes
        self.decision = decision

    def fit(self, X: Any, y: Any) -> "_Frozen":  # pragma: no cover - never refitted
        return self

    @property
    def classes_(self) -> np.ndarray:
        return self.classes

    def _known(self, X: Any) -> np.ndarray:
        if len(X) != self.decision.shape[0]:
            raise ValueError("a frozen fold model answers for its own validation rows only")
        return self.decision

    def decision_function(self, X: Any) -> np.ndarray:
        return self._known(X)

    def predict(self, X: Any) -> np.ndarray:
        f = self._known(X)
        return self.classes[np.argmax(f, axis=1)] if f.ndim == 2 else self.classes[(f > 0).astype(int)]

    def predict_proba(self, X: Any) -> np.ndarray:
        from lpboosting.estimators.base import adaboost_proba

        return adaboost_proba(self._known(X), len(self.classes))


def _path_decisions(estimator: Any, X: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                    X_val: np.ndarray, nus: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Decisions on X_val at every nu: (n_val, n_nus), or (n_val, n_nus, K) for K > 2 classes."""
    from lpboosting.estimators.base import merge_rows

    X, y, w, _ = merge_rows(X, y, w)
    labels = [classes[1]] if classes.size == 2 else list(classes)
    out, oracle = [], None
    for label in labels:
        y_pm = np.where(y == label, 1.0, -1.0)
        if np.all(y_pm == y_pm[0]):  # this fold has one class only: a constant decision
            out.append(np.full((X_val.shape[0], nus.size), y_pm[0]))
            continue
        oracle = (make_oracle(estimator.oracle, X, y_pm, **estimator._oracle_params()) if oracle is None
                  else oracle.relabel(y_pm))
        if estimator._warm_path:  # LPBoost itself: its own solver settings
            options = dict(backend=estimator.backend, tol=estimator.tol, max_rounds=estimator.max_rounds,
                           columns_per_round=estimator.columns_per_round, stabilization=estimator.stabilization,
                           stall_rounds=estimator.stall_rounds, time_limit=estimator.time_limit)
        else:  # an entropy master's nu, chosen on LPBoost's path with LPBoost's defaults
            options = dict(time_limit=estimator.time_limit)
        path = nu_path(nus, oracle, sample_weight=w, **options)
        out.append(path.decision_function(X_val))
    return out[0] if classes.size == 2 else np.stack(out, axis=2)


def _separate_decisions(estimator: Any, X: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                        X_val: np.ndarray, nus: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Decisions on X_val of a fit at each nu (masters without a warm path)."""
    columns = []
    for nu in nus:
        model = at_nu(estimator, float(nu)).set_params(warm_start=False, verbose=0, callback=None)
        columns.append(model.fit(X, y, sample_weight=w).decision_function(X_val))
    return np.stack(columns, axis=1)


def at_nu(estimator: Any, nu: float) -> Any:
    """The plain classifier of ``estimator`` (a CV classifier or one with nu="auto") at this nu."""
    import inspect

    for cls in type(estimator).__mro__:
        parameters = inspect.signature(cls.__init__).parameters
        if "nu" in parameters:
            break
    params = {k: v for k, v in estimator.get_params(deep=False).items() if k in parameters}
    return cls(**{**params, "nu": nu})


def _fold_scores(estimator: Any, X: np.ndarray, y: np.ndarray, w: np.ndarray | None, train: np.ndarray,
                 test: np.ndarray, nus: np.ndarray, classes: np.ndarray, scoring: Any) -> np.ndarray:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    decide = _path_decisions if estimator._choose_on_path else _separate_decisions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the refit says what it has to
        F = decide(estimator, X[train], y[train], None if w is None else w[train], X[test], nus, classes)
    scorer = get_scorer(scoring if scoring is not None else "accuracy")
    scores = []
    for i in range(nus.size):
        decision = F[:, i] if F.ndim == 2 else F[:, i, :]
        if w is None:
            scores.append(scorer(_Frozen(classes, decision), X[test], y[test]))
        else:
            scores.append(scorer(_Frozen(classes, decision), X[test], y[test], sample_weight=w[test]))
    return np.asarray(scores, dtype=float)


def select_nu(estimator: Any, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None,
              nus: Any, cv: Any, scoring: Any, n_jobs: int | None) -> tuple[float, np.ndarray, np.ndarray]:
    """(best nu, the grid, scores of shape (n_folds, n_nus)) by cross-validation of ``estimator``."""
    from lpboosting.masters.lpboost import check_nu

    grid = np.asarray(sorted({check_nu(nu) for nu in (DEFAULT_NUS if nus is None else nus)}, reverse=True))
    if grid.size == 0:
        raise ValueError("nus is empty; give the nu values to choose from, in (0, 1]")
    classes = np.unique(y)
    splitter = check_cv(cv, y, classifier=True)
    folds = list(splitter.split(X, y))
    scores = Parallel(n_jobs=n_jobs)(
        delayed(_fold_scores)(estimator, X, y, sample_weight, train, test, grid, classes, scoring)
        for train, test in folds)
    scores = np.vstack(scores)
    mean = scores.mean(axis=0)
    best = int(np.flatnonzero(mean >= mean.max() - 1e-12)[0])  # the largest nu among the best
    return float(grid[best]), grid, scores


# -- the classifiers -----------------------------------------------------------------------------
def _cv_class(base: type, name: str, doc: str) -> type:
    """``base`` with ``nu`` chosen by cross-validation: its parameters without nu, plus nus, cv,
    scoring and n_jobs."""
    import inspect

    from lpboosting.params import Integral, Interval

    params = [p for p in inspect.signature(base.__init__).parameters.values() if p.name not in ("self", "nu")]
    names = ["nus", "cv", "scoring", "n_jobs"] + [p.name for p in params]
    defaults = {"nus": None, "cv": 3, "scoring": None, "n_jobs": None, **{p.name: p.default for p in params}}
    signature = ", ".join(f"{n}={defaults[n]!r}" for n in names)
    body = "\n".join(f"    self.{n} = {n}" for n in names)
    namespace: dict[str, Any] = {}
    exec(f"def __init__(self, *, {signature}):\n{body}\n", {}, namespace)  # sklearn reads the signature
    constraints = {**base._parameter_constraints, "nus": [None, "array-like"], "cv": ["cv_object"],
                   "scoring": [None, str, callable], "n_jobs": [None, Interval(Integral, None, None, closed="neither")]}
    constraints.pop("nu", None)
    return type(name, (base,), {"__init__": namespace["__init__"], "nu": "auto", "__doc__": doc,
                                "_parameter_constraints": constraints, "__module__": __name__})


_CV_DOC = """{base} with nu chosen by cross-validation ({style} style).

    Parameters
    ----------
    nus : array-like of floats in (0, 1], default None
        The nu values to choose from (None: :data:`DEFAULT_NUS`, 0.01 to 0.6).
    cv : int, cross-validation generator or iterable, default 3
        scikit-learn's ``cv`` (an int is stratified k-fold).
    scoring : str or callable, default None
        A scikit-learn scorer name or callable; None is accuracy.
    n_jobs : int, default None
        Folds fitted in parallel (joblib).

    The other parameters are :class:`~lpboosting.{base}`'s.  {how}

    Attributes
    ----------
    nu_ : the nu chosen; nus_ : the grid (large to small); cv_scores_ :
    scores of shape (n_folds, n_nus); and the fitted attributes of
    :class:`~lpboosting.{base}` at ``nu_``, refitted on all the data.
"""


def _make_classes() -> tuple[type, type, type]:
    from lpboosting.estimators.entropy import ERLPBoostClassifier, SoftBoostClassifier
    from lpboosting.estimators.lpboost import LPBoostClassifier

    warm = ("Each fold runs the warm nu path (:func:`lpboosting.colgen.nu_path`): one live master "
            "from the largest nu to the smallest.")
    separate = ("nu is chosen on LPBoost's warm nu path in each fold (the soft margins are within delta "
                "of each other at the same nu; see the module docstring), and the refit at ``nu_`` is "
                "this master's.")
    return (
        _cv_class(LPBoostClassifier, "LPBoostCV", _CV_DOC.format(base="LPBoostClassifier",
                                                                  style="LogisticRegressionCV", how=warm)),
        _cv_class(SoftBoostClassifier, "SoftBoostCV", _CV_DOC.format(base="SoftBoostClassifier",
                                                                      style="LogisticRegressionCV", how=separate)),
        _cv_class(ERLPBoostClassifier, "ERLPBoostCV", _CV_DOC.format(base="ERLPBoostClassifier",
                                                                      style="LogisticRegressionCV", how=separate)),
    )


LPBoostCV, SoftBoostCV, ERLPBoostCV = _make_classes()
