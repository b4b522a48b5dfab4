"""Shared scikit-learn machinery for the column-generation classifiers."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from lpboosting.backends import Backend, get_backend
from lpboosting.colgen import History, LoopOptions, column_generation
from lpboosting.colgen.loop import callback_arity
from lpboosting.errors import SolverError
from lpboosting.estimators.classifier import N_JOBS, BoostingClassifier, fingerprint, plain
from lpboosting.estimators.evaluation import with_eval_set
from lpboosting.estimators.loop_parameters import LOOP_CONSTRAINTS, loop_parameters_doc
from lpboosting.masters.base import Master
from lpboosting.masters.entropy import DELTA_ADVICE, DELTA_MEANING
from lpboosting.masters.lpboost import NU_ADVICE, NU_MEANING
from lpboosting.oracles import make_oracle
from lpboosting.params import Explain, Interval, Real, StrOptions, check_params
from lpboosting.stacklevel import caller_level

__all__ = ["ColumnGenerationClassifier", "DecisionClassifierMixin", "RowMap", "adaboost_proba", "caller_level",
           "check_no_infinity", "encode_binary", "encode_classes", "fingerprint", "labels_to_signs", "merge_rows",
           "shared_doc", "weighted_importances"]

#: ``nu`` of the capped masters (LPBoost, SoftBoost, ERLPBoost): constraint and wording
NU = [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})]
NU_MESSAGE = Explain(what=NU_MEANING, advice=NU_ADVICE)
#: ``delta`` of the entropy masters (SoftBoost, TotalBoost, ERLPBoost)
DELTA = [Interval(Real, 0, 1, closed="right")]
DELTA_MESSAGE = Explain(what=DELTA_MEANING, advice=DELTA_ADVICE)


#: the parameters every column-generation classifier shares beyond its master's (for docstrings)
SHARED_PARAMETERS_DOC = """    warm_start : bool, default False
        A second ``fit`` on the same data continues the fitted run (its live
        solver model, oracle and stabilisation centre) up to ``max_rounds``
        rounds in all: 50 rounds and then 50 more are the 100 of one fit.
        Only ``max_rounds``, ``tol``, ``time_limit``, ``stall_rounds``,
        ``callback`` and ``verbose`` may change in between.
    verbose : int, default 0
        1 prints the ledger, one line per round (round, columns, primal,
        dual, gap, edge, times, iterations, status).
    random_state : int, RandomState or None, default None
        Seed of the trees oracle (None keeps its own fixed seed 0, so that
        fits repeat); unused by the other oracles.
    n_jobs : int or None, default None
        More than two classes: the one-vs-rest models fitted in parallel, in
        threads (HiGHS solves without holding the GIL; the models share the
        oracle's label-free work on X and keep their live solvers for
        ``warm_start``); the models are those of the sequential fit (a
        ``random_state`` given as a RandomState object is drawn from by the
        trees of all classes at once, so its draws then depend on timing).  With
        ``nu="auto"`` the cross-validation folds too.  None is 1, -1 all cores.
"""
#: the fitted attributes and methods every column-generation classifier shares (for docstrings)
SHARED_ATTRIBUTES_DOC = """    estimators_, estimator_weights_, n_estimators_ (the hypotheses of
    nonzero weight), feature_importances_, one_vs_rest_ (more than two
    classes), row_map_ (None unless weights or repeated rows merged rows).
    Methods beyond scikit-learn's: ``staged_decision_function``,
    ``staged_predict``, ``staged_predict_proba``, ``describe``, ``margins``;
    ``fit`` takes ``sample_weight``.
"""


def shared_doc(cls: type) -> type:
    """Fill a classifier docstring's ``{loop_parameters}`` (:func:`~lpboosting.estimators.
    loop_parameters.loop_parameters_doc`, with the classifier's defaults), ``{shared_parameters}``
    and ``{shared_attributes}``."""
    doc = cls.__doc__ or ""
    if "    {loop_parameters}\n" in doc:
        doc = doc.replace("    {loop_parameters}\n", loop_parameters_doc(cls))
    cls.__doc__ = doc.replace("    {shared_parameters}\n", SHARED_PARAMETERS_DOC).replace(
        "    {shared_attributes}\n", SHARED_ATTRIBUTES_DOC)
    return cls


def encode_classes(estimator: BaseEstimator, y: np.ndarray) -> np.ndarray:
    """The sorted classes of y (at least two)."""
    y = np.asarray(y)
    if y.dtype == object:
        kinds = {"text" if isinstance(v, (str, bytes)) else "number" for v in y.ravel()}
        if len(kinds) > 1:
            names = sorted({type(v).__name__ for v in y.ravel()})
            raise TypeError(
                f"{type(estimator).__name__}: the labels in y mix text and numbers ({', '.join(names)}), "
                "which cannot be sorted into classes; give every label one type (e.g. y.astype(str))")
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs two classes in y but only one class is present "
            f"({plain(classes[0])!r}); check the labels or the train/test split"
        )
    return classes


def encode_binary(estimator: BaseEstimator, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classes (sorted) and labels as -1 (classes[0]) / +1 (classes[1]); exactly two classes."""
    classes = encode_classes(estimator, y)
    if classes.size > 2:
        raise ValueError(
            f"Only binary classification is supported. The type of the target is multiclass: "
            f"{type(estimator).__name__} got {classes.size} classes"
        )
    return classes, np.where(y == classes[1], 1.0, -1.0)


class RowMap:
    """How the rows a master sees map to the rows given to ``fit``.

    Rows of weight 0 are dropped, rows equal in x and y are merged into one
    of summed weight, and the merged rows are put in lexicographic order of
    (x, y).  The masters' optimum is the same (an example of weight s is s
    equal examples), and the master and the oracle then see the same rows in
    the same order however the data was given: a fit on repeated rows is
    exactly the fit on the distinct rows weighted by their counts, and a fit
    does not depend on the order of the rows (not even through round-off or
    the choice among equally good hypotheses).  ``row[i]`` is row i's merged
    row (-1 if dropped), ``share[i]`` its part of that row's weight.
    """

    def __init__(self, row: np.ndarray, share: np.ndarray) -> None:
        self.row, self.share = row, share

    def given_order(self) -> np.ndarray:
        """The merged rows in the order of their first row given to ``fit``."""
        kept = np.flatnonzero(self.row >= 0)
        first = np.full(int(self.row.max()) + 1, self.row.size, dtype=np.intp)
        np.minimum.at(first, self.row[kept], kept)
        return np.argsort(first, kind="stable")

    def spread(self, d: np.ndarray) -> np.ndarray:
        """A vector over the merged rows (e.g. the distribution) as one over the given rows."""
        out = np.zeros(self.row.size)
        kept = self.row >= 0
        out[kept] = np.asarray(d, dtype=float)[self.row[kept]] * self.share[kept]
        return out


def check_no_infinity(estimator: BaseEstimator, X: np.ndarray) -> np.ndarray:
    """X unchanged, or a ValueError if it holds +-inf (NaN, a missing value, is allowed).

    Missing values are handled by the stumps, binned-stumps and trees
    oracles (each split learns a side for them); an infinite value is
    refused rather than read as the largest value.
    """
    infinite = np.isinf(X)
    if infinite.any():
        row, col = np.argwhere(infinite)[0]
        raise ValueError(
            f"{type(estimator).__name__}: X contains {int(infinite.sum())} infinite value(s) (the first in "
            f"row {row}, feature {col}); replace them by finite values, or by NaN to mark them missing "
            "(missing values are handled by the stumps, binned-stumps and trees oracles)")
    return X


def row_keys(X: np.ndarray) -> np.ndarray:
    """X with the values that compare equal as rows made equal: -0.0 becomes 0.0 (+ 0.0) and NaN
    (missing) becomes inf, which X has not, so equal missing values match."""
    return np.where(np.isnan(X), np.inf, X + 0.0)


def merge_rows(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, RowMap | None]:
    """Drop rows of weight 0, merge equal rows and sort them (see :class:`RowMap`).

    Only when there are sample weights or repeated rows: otherwise the data
    comes back as given, with no map.
    """
    n = X.shape[0]
    keep = np.ones(n, dtype=bool) if sample_weight is None else sample_weight > 0
    kept = np.flatnonzero(keep)
    _, codes = np.unique(y[kept], return_inverse=True)
    rows = np.column_stack([row_keys(X[kept]), codes.astype(float)])
    _, first, merged_of_kept = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    merged_of_kept = merged_of_kept.ravel()
    w_kept = np.ones(kept.size) if sample_weight is None else sample_weight[kept]
    weight = np.bincount(merged_of_kept, weights=w_kept, minlength=first.size)
    row = np.full(n, -1, dtype=np.intp)
    row[kept] = merged_of_kept
    share = np.zeros(n)
    share[kept] = w_kept / weight[merged_of_kept]
    take = kept[first]
    if sample_weight is None and first.size == n:
        return X, y, None, None  # no weights and no repeated row: the rows as given
    return X[take], y[take], weight, RowMap(row, share)


def _smaller_share(y: Any, prior: np.ndarray) -> float:
    """The smaller class's share of the rows (of their weights) for labels y (+-1)."""
    positive = np.asarray(y, dtype=float) > 0
    return float(min(prior[positive].sum(), prior[~positive].sum()))


def adaboost_proba(decision: np.ndarray, n_classes: int) -> np.ndarray:
    """scikit-learn AdaBoostClassifier's probabilities from a decision function.

    Two classes: (1 - expit(f), expit(f)); K > 2 (one column per class):
    softmax(f / (K - 1)).  Monotone in f, not calibrated.
    """
    if n_classes == 2:
        p = expit(decision)
        return np.column_stack([1.0 - p, p])
    return softmax(decision / (n_classes - 1), axis=1)


def labels_to_signs(classes: np.ndarray, y: Any, n_rows: int) -> np.ndarray:
    """Labels from ``classes`` as -1 (classes[0]) / +1 (classes[1]), checked against the data."""
    y = np.asarray(y)
    if y.shape != (n_rows,):
        raise ValueError(f"y has {y.size} labels but X has {n_rows} rows; pass one label per row")
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise ValueError(
            f"y holds labels {np.unique(y[unknown]).tolist()} that were not seen in fit "
            f"(classes_ = {classes.tolist()})"
        )
    return np.where(y == classes[1], 1.0, -1.0)


def multiclass_margins(classes: np.ndarray, votes: np.ndarray, y: Any) -> np.ndarray:
    """F_(y_n)(x_n) - max_(k != y_n) F_k(x_n) from the (n, K) votes, labels from ``classes``."""
    y = np.asarray(y).ravel()
    if y.size != votes.shape[0]:
        raise ValueError(f"y has {y.size} labels but X has {votes.shape[0]} rows; pass one label per row")
    codes = np.searchsorted(classes, y)
    unknown = (codes >= classes.size) | (classes[np.minimum(codes, classes.size - 1)] != y)
    if unknown.any():
        raise ValueError(f"y holds labels {np.unique(y[unknown]).tolist()} that were not seen in fit "
                         f"(classes_ = {classes.tolist()})")
    rows = np.arange(y.size)
    own = votes[rows, codes]
    others = votes.copy()
    others[rows, codes] = -np.inf
    return own - others.max(axis=1)


def pair_table(d: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """A distribution over (example, wrong class) pairs as an (N, K) table: d_ik, 0 at k = y_i."""
    from lpboosting.pairs import class_scores

    table = -class_scores(d, y, n_classes)
    table[np.arange(table.shape[0]), y] = 0.0
    return table + 0.0


def weighted_importances(weights: Any, hypotheses: Any, n_features: int) -> np.ndarray:
    """sum_m |w_m| times hypothesis m's importances (``h.importances(n_features)``), normalised to 1
    (all zero when no weight falls on a feature).  AttributeError when a hypothesis does not say
    which features it uses."""
    total = np.zeros(n_features)
    for w, h in zip(weights, hypotheses):
        if not hasattr(h, "importances"):
            raise AttributeError(
                f"feature_importances_ needs hypotheses that say which features they use "
                f"(an importances(n_features) method); {type(h).__name__} does not"
            )
        total += abs(w) * np.asarray(h.importances(n_features), dtype=float)
    mass = total.sum()
    return total / mass if mass > 0 else total


class DecisionClassifierMixin:
    """``margins`` of a binary classifier from its ``decision_function``."""

    def margins(self, X: Any, y: Any) -> np.ndarray:
        """y_n f(x_n) for labelled data (labels from ``classes_``).  A multiclass LP's: the
        multiclass margin F_(y_n)(x_n) - max_(k != y_n) F_k(x_n), the true class's vote against the
        best other class's."""
        check_is_fitted(self)
        if getattr(self, "_native_fit", False):
            return multiclass_margins(self.classes_, self.decision_function(X), y)
        if len(self.classes_) > 2:
            raise ValueError(f"margins y f(x) are defined for two classes; this model has {len(self.classes_)} "
                             "(use one_vs_rest_[k].margins(X, y == classes_[k]) for class k against the rest)")
        f = self.decision_function(X)
        return labels_to_signs(self.classes_, y, f.size) * f


class ColumnGenerationClassifier(DecisionClassifierMixin, BoostingClassifier):
    """Base of the classifiers that fit a master by column generation.

    Subclasses define ``_make_master(n_samples, sample_weight)`` and their
    ``__init__`` parameters (which must include ``oracle``,
    ``oracle_params``, ``backend``, ``tol``, ``max_rounds``, ``callback``,
    ``warm_start``, ``verbose`` and ``random_state``), and add the
    constraints of their own parameters to ``_parameter_constraints``.  An
    oracle name is checked by the oracle registry, a backend name by the
    backend registry.

    Shared behaviour
    ----------------
    ``fit(X, y, sample_weight)``: weights are those of the master's
    empirical distribution (integer weights fit the data with each row
    repeated; a zero weight drops the row).  With weights or repeated rows,
    rows equal in x and y are merged into one of summed weight and the rows
    sorted before the fit (:func:`merge_rows`; the optimum is the same), so
    a fit on repeated rows is exactly the fit with integer weights, whatever
    the order of the rows; ``result_`` then refers to those rows
    (``row_map_`` maps them) and ``distribution_`` is given back over the
    rows passed to ``fit`` (a merged row's mass split in proportion to weight).  More than two classes are fitted
    one-vs-rest (one binary model per class, ``one_vs_rest_``, the oracle's
    label-free work on X shared).  ``warm_start=True`` continues the fitted
    run up to ``max_rounds`` rounds in all (the same run: 50 rounds and then
    50 more are the 100 rounds of one fit), on the same data and parameters.
    ``verbose=1`` prints the ledger (one line per round).  One-vs-rest, warm
    start, the tie rule, verbose output, Ctrl-C and save/load are every
    classifier's (:class:`~lpboosting.estimators.classifier.BoostingClassifier`).
    """

    _parameter_constraints: dict[str, Any] = {
        "oracle": [str, callable],
        "oracle_params": [None, dict],
        "backend": [None, str, Backend],
        **LOOP_CONSTRAINTS,  # the loop's options: tol, max_rounds, callback, columns_per_round, ...
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS,
    }
    #: what ``tol`` means to the master's stopping rule (the docstring's ``{loop_parameters}``)
    _stop_rule = "The fit stops when no column improves the master by more than tol."
    _parameter_messages: dict[str, Explain] = {}
    #: True for LPBoost: its own solver settings run the nu path when nu is chosen by CV
    _warm_path = False
    #: nu chosen by CV on LPBoost's warm path (LPBoost, and SoftBoost and ERLPBoost, whose soft
    #: margins are within delta of LPBoost's at the same nu; see estimators.cv); False (a new
    #: master's classifier, until it says otherwise) fits each nu of each fold with the classifier
    _choose_on_path = False
    #: parameters a warm start may change (the others define the model being continued)
    _warm_changeable = frozenset({"max_rounds", "tol", "callback", "time_limit", "verbose", "warm_start",
                                  "stall_rounds", "n_jobs"})
    _binary_attributes = ("result_", "hypotheses_", "weights_", "distribution_")
    _summed = ("n_rounds_",)
    _private_fitted = ("_run", "_oracle", "_sample_weight", "_weight_path", "_rows", "_warm_start_key")

    def _make_master(self, n_samples: int, sample_weight: np.ndarray | None = None) -> Master:
        raise NotImplementedError  # pragma: no cover - abstract

    def _oracle_auto(self) -> bool:
        return isinstance(self.oracle, str) and self.oracle.strip().lower() == "auto"

    def _oracle_spec(self) -> Any:
        """The oracle of the fit: the parameter, or the one cross-validation chose (``oracle="auto"``)."""
        return self.oracle_ if self._oracle_auto() else self.oracle

    def _oracle_params(self, oracle: Any = None, oracle_params: dict | None = None) -> dict[str, Any]:
        """Keyword arguments of the oracle ``oracle`` with ``oracle_params`` (default: the fit's;
        subclasses add their own defaults); a tree oracle gets ``random_state`` unless it is None
        (the oracle's own default, seed 0, stays)."""
        if oracle is None:
            spec = self._oracle_spec()
            params = dict((self.oracle_params_ if self._oracle_auto() else self.oracle_params) or {})
        else:
            spec, params = oracle, dict(oracle_params or {})
        if self.random_state is not None and isinstance(spec, str) and spec.strip().lower() == "trees":
            params.setdefault("random_state", self.random_state)
        return params

    def _select(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None) -> None:
        """nu and/or the oracle chosen by cross-validation (``nu="auto"``, ``oracle="auto"``)."""
        from lpboosting.estimators.cv import auto_oracles, oracle_name, select

        nu = getattr(self, "nu", None)
        family = auto_oracles(y, self._native)
        if self._oracle_auto():
            names = " and ".join(oracle_name(*o) for o in family)
            if nu is None:
                raise ValueError(f"oracle='auto' chooses between {names} by cross-validation together with "
                                 f"nu; {type(self).__name__} has no nu: choose oracle='stumps' or oracle='trees'")
            if self.oracle_params:
                raise ValueError("oracle_params are the parameters of one named oracle; with oracle='auto' the "
                                 f"oracle is chosen between {names}: name the oracle to set its parameters")
        oracles = list(family) if self._oracle_auto() else [(self.oracle, self.oracle_params)]
        how = self._selection()
        chosen = select(self, X, y, sample_weight, how["nus"] if nu == "auto" else [nu], oracles, how["cv"],
                        how["scoring"], self.n_jobs, how["early_stopping"])
        if nu == "auto":
            self.nu_, self.nus_, self.cv_scores_ = chosen.nu, chosen.nus, chosen.chosen_scores
            self.cv_budget_stops_ = chosen.exhausted  # {oracle: the nu whose run ran out of its budget}
            self.cv_degenerate_stops_ = chosen.degenerate  # {oracle: the nu its one multiclass LP was 0 at}
        if self._oracle_auto():
            self.oracle_, self.oracle_params_ = chosen.oracle, chosen.oracle_params
            self.cv_scores_by_oracle_ = chosen.scores
        for name, message in chosen.failed.items():
            warnings.warn(f"{type(self).__name__}: choosing by cross-validation, the {name} oracle's path "
                          f"ended at a solver failure ({message}); the choice is among the other oracles",
                          RuntimeWarning, stacklevel=caller_level())

    def _folds_fit(self, y: np.ndarray) -> bool:
        """Whether the selection's folds can split the merged rows y: a splitter can; an int ``cv``
        (stratified folds) when some class has a row for each fold (scikit-learn's StratifiedKFold
        refuses only when none has); given splits are of the rows passed to ``fit``, not of these."""
        cv = self._selection()["cv"]
        if hasattr(cv, "split"):
            return True
        if not isinstance(cv, (int, np.integer)):
            return False
        return bool(np.unique(y, return_counts=True)[1].max() >= cv)

    def _selection(self) -> dict[str, Any]:
        """How ``nu="auto"`` chooses nu: the settings of :func:`lpboosting.estimators.cv.select`,
        a CV classifier's parameters (``nus``, ``cv``, ``scoring``, ``early_stopping``), else their
        defaults: the grid DEFAULT_NUS, 3 folds, accuracy, early stopping."""
        return {"nus": getattr(self, "nus", None), "cv": getattr(self, "cv", 3),
                "scoring": getattr(self, "scoring", None), "early_stopping": getattr(self, "early_stopping", True)}

    def _store_extra(self, result) -> None:
        """Subclasses set their own fitted attributes from the loop's result."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # missing values: the oracles of MISSING_VALUE_ORACLES (not the features oracle or a callable,
        # which refuse them)
        from lpboosting.oracles.base import MISSING_VALUE_ORACLES

        tags.input_tags.allow_nan = isinstance(self.oracle, str) and self.oracle.strip().lower() in (
            *MISSING_VALUE_ORACLES, "auto")
        return tags

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop("_run", None)  # a live solver session does not pickle; warm_start then re-adds columns
        return state

    # -- fit ----------------------------------------------------------------------------
    @with_eval_set
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "ColumnGenerationClassifier":
        """Fit by column generation; the history of every round is kept in ``history_``.

        ``sample_weight`` (one weight >= 0 per row) weights the empirical
        distribution of the master (see the master's docstring); rows of
        weight 0 are dropped.  With more than two classes one binary model
        is fitted per class (one-vs-rest)."""
        check_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False)
        check_no_infinity(self, X)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            if not sample_weight.sum() > 0:
                raise ValueError(f"{type(self).__name__}: sample_weight sums to 0; at least one row "
                                 "needs a positive weight")
        encode_classes(self, y)  # the labels' checks first (mixed types, a single class)
        data = fingerprint(X, y, sample_weight)
        given = (X, y, sample_weight)
        X, y, sample_weight, rows = merge_rows(X, y, sample_weight)
        if rows is not None and self._folds_fit(y):
            # nu is chosen by cross-validation (nu="auto") over the merged rows when they can be split
            # into folds: a repeated row is then one row of one fold (not split between training and
            # validation; unless its features come with another label too, and the copies are
            # spread: :func:`lpboosting.estimators.cv.cv_folds`), and a row of weight s gives the same
            # choice as s copies.  The folds take them in the order the rows were given (merge_rows
            # sorts them: folds of sorted rows would each hold one range of x)
            order = rows.given_order()
            given = (X[order], y[order], sample_weight[order])
        classes = encode_classes(self, y)
        if self._check_warm_start(data, self._model_params(), self.max_rounds):
            return self._continue(classes)
        self._forget_fit()  # a new fit: nothing of the previous one may answer for it
        if getattr(self, "nu", None) == "auto" or self._oracle_auto():
            self._select(*given)
        self.classes_ = classes
        self._rows = self.row_map_ = rows
        self._remember_fit(data, self._model_params())
        if classes.size > 2 and self._native:
            return self._fit_native(X, y, sample_weight)
        if classes.size > 2:
            return self._fit_classes(X, y, sample_weight)
        y_pm = np.where(y == classes[1], 1.0, -1.0)
        oracle = make_oracle(self._oracle_spec(), X, y_pm, sample_weight=sample_weight, **self._oracle_params())
        return self._fit_binary(oracle, sample_weight)

    def _nu(self) -> float:
        """nu of the master: the parameter, or the one cross-validation chose (``nu="auto"``)."""
        return self.nu_ if self.nu == "auto" else self.nu

    def _model_params(self) -> dict[str, Any]:
        """The parameters that define the fitted model (a warm start may change the others)."""
        return {k: v for k, v in self.get_params(deep=False).items() if k not in self._warm_changeable}

    def _continue(self, classes: np.ndarray) -> "ColumnGenerationClassifier":
        if classes.size > 2 and not self._native:
            return self._fit_one_vs_rest(classes, lambda model, k, label: model._continue_binary(), resume=True)
        return self._continue_binary()

    def _continue_binary(self) -> "ColumnGenerationClassifier":
        run = getattr(self, "_run", None)
        if self.status_ == "converged" or self.max_rounds == self.n_rounds_:
            return self
        if run is not None and run.resumable:
            return self._fit_binary(run.oracle, self._sample_weight, resume=run)
        # the live session is gone (e.g. after pickling): go on from the fitted columns
        return self._fit_binary(self._oracle, self._sample_weight, initial=self.result_)

    def _fit_binary(self, oracle, sample_weight, resume=None, initial=None) -> "ColumnGenerationClassifier":
        if resume is not None:
            master = resume.master
            backend = resume.backend
        else:
            master = self._make_master(oracle.n_samples, sample_weight)
            backend = get_backend(master.default_backend if self.backend is None else self.backend)
            backend.require()
        self._oracle, self._sample_weight = oracle, sample_weight
        options = LoopOptions.from_params(self, callback=self._round_callback())  # the loop's parameters
        try:
            result = column_generation(master, oracle, options, backend=backend, initial_columns=initial,
                                       resume=resume)
        except Exception as exc:
            # keep the rounds done as the fitted model (with a warning), or stay unfitted
            partial = getattr(exc, "result", None)
            if partial is not None and partial.solution is not None:
                self._store(partial)
                warnings.warn(f"{type(self).__name__}: {partial.message}; the model of round "
                              f"{partial.n_rounds} is kept", RuntimeWarning, stacklevel=caller_level())
            else:
                self._forget_fit()
            raise
        if result.solution is None:
            if result.status == "interrupted":
                raise KeyboardInterrupt(result.message)
            raise SolverError(f"{type(self).__name__}: {result.message}; no model was fitted")
        if result.status in ("solver_error", "interrupted"):
            warnings.warn(f"{type(self).__name__}: {result.message}", RuntimeWarning,
                          stacklevel=caller_level())
        elif result.status in ("max_rounds", "stalled", "time_limit"):
            # the loop's message says what happened, what was tried and what to change
            warnings.warn(f"{type(self).__name__}: {result.message}", ConvergenceWarning,
                          stacklevel=caller_level())
        return self._store(result)

    def _store(self, result) -> "ColumnGenerationClassifier":
        """The fitted attributes of a (possibly partial) run's result."""
        self._run = result.state
        self._weight_path = result.weight_path
        self.result_ = result
        self.history_ = result.history
        self.hypotheses_ = result.hypotheses
        self.weights_ = np.asarray(result.weights, dtype=float)
        rows = getattr(self, "_rows", None)
        d = np.asarray(result.distribution, dtype=float)
        if self._native_fit:  # over (example, wrong class) pairs: an N x K table, 0 at the true class
            table = pair_table(d, self._oracle.y, len(self.classes_))
            self.distribution_ = table if rows is None else np.column_stack(
                [rows.spread(column) for column in table.T])
        else:
            self.distribution_ = d if rows is None else rows.spread(d)
        self.objective_ = float(result.objective)
        self.n_rounds_ = int(result.n_rounds)
        self.status_ = result.status
        seed = self.random_state
        if seed is None:  # the seed the oracle used: the trees oracle's own default
            seed = getattr(self._oracle, "tree_params", {}).get("random_state")
        if seed is not None:
            self.history_.meta["random_state"] = seed if isinstance(seed, int) else repr(seed)
        self._store_extra(result)
        if self._second_stage and self._native_fit:
            self._warn_degenerate_pairs(result)
        elif self._second_stage:
            self._choose_on_the_optimal_face(result)
        return self

    #: the soft margin at or below which the optimum counts as degenerate (at or near 0): its
    #: optimal face is large, and the vertex the solver returns may be a useless combination
    degenerate_margin = 1e-3
    #: how far below its optimum the second stage may hold the soft margin
    second_stage_delta = 1e-9
    #: the second stage's time limit: this share of the fit's seconds, at least the floor (an LP of
    #: N rows solved from scratch; the first stage's weights are kept when it does not finish)
    second_stage_share, second_stage_floor = 0.25, 2.0
    #: whether the fit's weights come from LPBoost's LP (LPBoost; the entropy masters' final LP),
    #: which a second stage may re-choose on a degenerate optimum
    _second_stage = False

    def _warn_degenerate_pairs(self, result) -> None:
        """One multiclass LP whose soft margin is at or below :attr:`degenerate_margin`: a warning
        says what the optimum is and what to change.  There is no second stage as for two classes:
        the largest mean of the examples' least margins among the optimal combinations is about 0
        too, so it would choose nothing (on KEEL led7digit at 20 % label noise, nu 0.8: -1.5e-8
        against -5e-14 at the solver's vertex, an equal vote for every class, which predicts the
        first class everywhere)."""
        value = float(result.objective)
        if result.solution is None or value > self.degenerate_margin:
            return
        nu = self._nu()
        warnings.warn(f"{type(self).__name__}: the multiclass soft margin's optimum is {value:.3g}, at or near 0 "
                      f"(nu={nu:.3g}: for every combination of the hypotheses the mean of the lowest nu share of the "
                      "examples' margins, the true class's vote minus the best other class's, is at most 0, as when "
                      "nu is below the labels' noise or overlap rate), and many "
                      "combinations are optimal, the solver's perhaps an equal vote for several classes (a tie "
                      "goes to the first class). A larger nu (up to 1, where the LP maximises the mean of the "
                      "examples' least margins), or LPBoostCV, which goes on above its grid when this happens",
                      ConvergenceWarning, stacklevel=caller_level())

    def _choose_on_the_optimal_face(self, result) -> None:
        """A degenerate optimum (soft margin at or below :attr:`degenerate_margin`, or a vote that is
        constant on the training rows): the weights become the second stage's, the optimal
        combination of largest mean margin (:mod:`lpboosting.backends.highs.second_stage`), and one
        warning says what it means and what to change; ``second_stage_`` says what was done."""
        from lpboosting.backends.highs.second_stage import largest_mean_margin
        from lpboosting.masters import EntropyMaster

        self.second_stage_ = None
        if result.solution is None or result.columns.shape[1] == 0:
            return
        if not result.solution.control.optimal:
            # a run stopped (time limit, max_rounds) on an early answer: its value is a lower
            # bound, not the restricted optimum, so there is no optimal face to choose on
            return
        U = np.asarray(result.columns, dtype=float)
        n = U.shape[0]
        master = result.state.master if result.state is not None else self._make_master(n, self._sample_weight)
        if isinstance(master, EntropyMaster):
            master = master.lp_master(n)
        margins = U @ self.weights_
        y = getattr(self._oracle, "y", None)
        constant = y is not None and np.ptp(np.asarray(y, dtype=float) * margins) <= 1e-9
        value = float(result.objective)
        if not (constant or value <= self.degenerate_margin):
            return
        fit_seconds = float(self.history_.meta.get("seconds", 0.0))
        budget = max(self.second_stage_floor, self.second_stage_share * fit_seconds)
        stage = largest_mean_margin(U, master, value, self.second_stage_delta, time_limit=budget)
        how = "the one of largest mean margin"
        if not stage.status.ok:
            # the LP of N rows did not finish in time: the central optimal combination instead (an
            # interior point without crossover, a point of the optimal face's relative interior, so
            # its vote is constant only when every optimal combination's is)
            central = self._central_combination(U, master, value, budget)
            if central is None:
                self.second_stage_ = {"soft_margin": value, "status": stage.status.value,
                                      "seconds": stage.seconds}
                where = ("at or near 0" if value <= self.degenerate_margin
                         else "with a vote that is the same on every training row")
                warnings.warn(f"{type(self).__name__}: the soft margin's optimum is {value:.3g}, {where}, "
                              f"and the second stage that would choose among its optimal combinations ended "
                              f"{stage.status.value} after {stage.seconds:.3g} s; the solver's vertex is kept. "
                              "A larger nu (above the noise rate), trees (oracle='trees') or LPBoostCV fit more",
                              ConvergenceWarning, stacklevel=caller_level())
                return
            stage, how = central, "the central one (an interior point; the largest mean margin took too long)"
        mean_before = float(master.prior(n) @ margins)
        self.second_stage_ = {"soft_margin": value, "mean_margin_before": mean_before,
                              "mean_margin": stage.mean_margin, "soft_margin_after": stage.soft_margin,
                              "delta": self.second_stage_delta, "seconds": stage.seconds}
        self.history_.meta["second_stage"] = self.second_stage_
        if stage.mean_margin > mean_before:
            self.weights_ = stage.weights
        still = y is not None and np.ptp(np.asarray(y, dtype=float) * (U @ self.weights_)) <= 1e-9
        name = type(self).__name__
        nu = float(getattr(master, "nu", np.nan))
        share = _smaller_share(y, master.prior(n)) if y is not None else np.nan
        small_class = bool(share < nu)  # False when either is unknown (nan)
        change = "a larger nu (above the noise rate), trees (oracle='trees'), or LPBoostCV to choose nu"
        if value <= self.degenerate_margin:
            what = (f"the soft margin's optimum is {value:.3g}, at or near 0 (nu={nu:.3g}: about a nu "
                    "fraction of the examples sit at the cap, as when nu is below the labels' noise "
                    "rate), and many combinations are optimal")
        else:
            # not near 0: the solver's optimal combination votes one class on every training row, as a
            # constant vote for the larger class comes near the optimum (1 - 2 p / nu) when the
            # smaller class's share p is below nu
            what = (f"the soft margin's optimum is {value:.3g} and the solver's optimal combination votes "
                    f"one class on every training row (nu={nu:.3g}"
                    + (f", above the smaller class's share {share:.3g} of the rows" if small_class else "")
                    + "), and many combinations are optimal")
            if small_class:
                change = (f"a nu below the smaller class's share ({share:.3g}), or LPBoostCV to choose nu")
        if still:
            advice = ("every optimal combination gives the same vote on the training rows: the model is "
                      "constant")
        else:
            advice = (f"among them {how} was chosen (mean margin {stage.mean_margin:.3g}, against "
                      f"{mean_before:.3g} for the solver's vertex), with the soft margin held at its "
                      "optimum (second_stage_)")
        warnings.warn(f"{name}: {what}; {advice}. To fit more than this optimal face allows: {change}",
                      ConvergenceWarning, stacklevel=caller_level())

    @staticmethod
    def _central_combination(U: np.ndarray, master: Any, value: float, budget: float) -> Any:
        """The optimal combination HiGHS's interior point (no crossover) reaches over the columns U, as
        a :class:`~lpboosting.backends.highs.second_stage.SecondStage`; None when it does not finish in
        ``budget`` seconds or its soft margin falls below ``value`` by more than its tolerance."""
        import time

        from lpboosting.backends.highs.second_stage import SecondStage
        from lpboosting.colgen.solve import solve_master
        from lpboosting.errors import SolverError
        from lpboosting.masters import soft_margin

        start = time.perf_counter()
        try:
            solution = solve_master(master, U, backend="highspy:ipm", time_limit=float(budget))
        except SolverError:
            return None
        w = np.maximum(np.asarray(solution.weights, dtype=float), 0.0)
        if not solution.ok or w.sum() <= 0:
            return None
        w /= w.sum()
        margins = U @ w
        soft = float(soft_margin(margins, master.nu, master.sample_weight))
        if soft < value - 1e-7:  # the interior point's optimality tolerance is 1e-10; HiGHS's feasibility 1e-7
            return None
        return SecondStage(solution.status, w, float(master.prior(U.shape[0]) @ margins), soft,
                           time.perf_counter() - start)

    def _round_callback(self):
        """The user's callback, preceded by the ledger printer when ``verbose``, and a stop when
        the parallel one-vs-rest fit this model belongs to was interrupted (``_stop``)."""
        user = self.callback
        if not self.verbose and getattr(self, "_stop", None) is None:
            return user
        printed = [False]
        with_state = user is not None and callback_arity(user) == 2

        def callback(record, state):
            if self.verbose:
                if not printed[0]:
                    self._say(History.LEDGER_HEADER)
                    printed[0] = True
                self._say(History.format_record(record))
            if self._stop_requested():
                return True
            if user is None:
                return False
            return user(record, state) if with_state else user(record)

        return callback

    # -- more than two classes: one LP over all of them, or one-vs-rest ----------------------
    @property
    def _native(self) -> bool:
        """Whether more than two classes are fitted by one multiclass LP (the classifier's
        ``multiclass="native"``) rather than one-vs-rest."""
        return getattr(self, "multiclass", "one-vs-rest") == "native"

    @property
    def _native_fit(self) -> bool:
        """Whether the fitted model is one multiclass LP over more than two classes."""
        return len(getattr(self, "classes_", ())) > 2 and not hasattr(self, "one_vs_rest_")

    def _fit_native(self, X: np.ndarray, y: np.ndarray, sample_weight) -> "ColumnGenerationClassifier":
        """One LP over all K classes (:class:`~lpboosting.masters.MulticlassLPBoost`): its oracle
        prices hypotheses that vote for one class (:mod:`lpboosting.oracles.multiclass`)."""
        from lpboosting.oracles.multiclass import make_multiclass_oracle

        codes = np.searchsorted(self.classes_, y)
        oracle = make_multiclass_oracle(self._oracle_spec(), X, codes, len(self.classes_), sample_weight=sample_weight,
                                        **self._oracle_params())
        return self._fit_binary(oracle, sample_weight)

    def _fit_classes(self, X: np.ndarray, y: np.ndarray, sample_weight) -> "ColumnGenerationClassifier":
        """One binary model per class (class k against the rest), the oracles sharing their work
        on X (:meth:`~lpboosting.oracles.Oracle.relabel`)."""
        oracles, base = [], None
        for label in self.classes_:
            y_pm = np.where(y == label, 1.0, -1.0)
            if base is None:
                base = make_oracle(self._oracle_spec(), X, y_pm, sample_weight=sample_weight, **self._oracle_params())
                oracles.append(base)
            else:
                oracles.append(base.relabel(y_pm))
        return self._fit_one_vs_rest(self.classes_,
                                     lambda model, k, label: model._fit_binary(oracles[k], sample_weight))

    def _class_model(self, label: Any) -> "ColumnGenerationClassifier":
        """The unfitted binary model of class ``label`` against the rest (the nu and oracle
        cross-validation chose, the fit's rows)."""
        model = super()._class_model(label)
        if getattr(self, "nu", None) == "auto":
            model.nu_ = self.nu_  # chosen once, for every class
        if self._oracle_auto():
            model.oracle_, model.oracle_params_ = self.oracle_, self.oracle_params_
        model.classes_ = np.array([False, True])  # True: this class (its +1 side)
        model.n_features_in_ = self.n_features_in_
        if hasattr(self, "feature_names_in_"):
            model.feature_names_in_ = self.feature_names_in_
        model._rows = self._rows
        return model

    def _continued_model(self, model: "ColumnGenerationClassifier") -> "ColumnGenerationClassifier":
        """The model itself: its live solver session cannot be copied, the run goes on in it."""
        return model

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        self.objective_ = np.array([m.objective_ for m in models])

    # -- prediction ----------------------------------------------------------------------
    def _check_X(self, X: Any) -> np.ndarray:
        return check_no_infinity(self, validate_data(self, X, dtype=np.float64, reset=False,
                                                     ensure_all_finite=False))

    #: decisions are rounded to this many decimals: the master's weights are accurate to about
    #: 1e-9, and decisions that are equal up to round-off (-1/3 summed in two orders) then compare
    #: equal, so that the sign of a binary decision does not depend on the order of a sum
    decision_decimals: int = 12

    def _weighted_sum(self, X: np.ndarray, weights: np.ndarray, outputs: dict[int, np.ndarray]) -> np.ndarray:
        """sum_m w_m h_m(X) over the nonzero weights, in the order of the hypotheses, rounded to
        :attr:`decision_decimals`; ``outputs`` caches h_m(X) by m.  A multiclass LP's hypotheses
        vote for a class: the sum is then the (n, K) weighted votes."""
        native = self._native_fit
        f = np.zeros((X.shape[0], len(self.classes_)) if native else X.shape[0])
        rows = np.arange(X.shape[0])
        for m in np.flatnonzero(weights):
            if m not in outputs:
                outputs[m] = np.asarray(self.hypotheses_[m].predict(X), dtype=np.intp if native else float)
            if native:
                f[rows, outputs[m]] += weights[m]
            else:
                f += weights[m] * outputs[m]
        return np.round(f, self.decision_decimals) + 0.0  # + 0.0: no -0.0

    def _decision(self, X: np.ndarray) -> np.ndarray:
        """f(x) = sum_m w_m h_m(x) in [-1, 1]; positive means ``classes_[1]``.  A multiclass LP's:
        the weighted votes F_k(x) = sum_m w_m [h_m(x) = k], (n, K), each row summing to 1."""
        return self._weighted_sum(X, self.weights_, {})

    def _staged(self, X: np.ndarray) -> Iterator[np.ndarray]:
        outputs: dict[int, np.ndarray] = {}
        path = self._weight_path
        for r, (index, values) in enumerate(path, start=1):
            if r == len(path):
                w = self.weights_  # the last step is the fitted model itself
            else:
                w = np.zeros(len(self.hypotheses_))
                w[index] = values
            yield self._weighted_sum(X, w, outputs)

    def _proba(self, decision: np.ndarray) -> np.ndarray:
        """:meth:`predict_proba` from decisions (AdaBoost's form); a multiclass LP's votes as they are."""
        if self._native_fit:
            votes = np.clip(decision, 0.0, None)
            total = votes.sum(axis=1, keepdims=True)
            return np.where(total > 0, votes / np.where(total > 0, total, 1.0), 1.0 / votes.shape[1])
        return adaboost_proba(decision, len(self.classes_))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities in scikit-learn AdaBoostClassifier's form (columns as ``classes_``).

        Two classes: P(classes_[1] | x) = expit(f(x)); K classes fitted
        one-vs-rest: softmax(f(x) / (K - 1)) over the one-vs-rest decisions;
        K classes fitted by one LP: the weighted votes F_k(x) (the weight of
        the hypotheses that vote for class k; they sum to 1).  They rank
        the examples as the decision function does but are not calibrated
        (f is a convex combination of hypotheses in [-1, 1], so the
        probabilities stay within expit(+-1)); wrap the classifier in
        ``sklearn.calibration.CalibratedClassifierCV`` for calibrated ones.
        """
        return self._proba(self.decision_function(X))

    # -- the fitted ensemble --------------------------------------------------------------
    @property
    def estimators_(self) -> list[Any]:
        """The hypotheses of nonzero weight, in the order they were found (the compacted ensemble)."""
        check_is_fitted(self)
        if self._multiclass:
            return [h for m in self.one_vs_rest_ for h in m.estimators_]
        return [self.hypotheses_[m] for m in np.flatnonzero(self.weights_)]

    @property
    def estimator_weights_(self) -> np.ndarray:
        """The nonzero weights, one per entry of ``estimators_``."""
        check_is_fitted(self)
        if self._multiclass:
            return np.concatenate([m.estimator_weights_ for m in self.one_vs_rest_])
        return self.weights_[self.weights_ != 0]

    @property
    def n_estimators_(self) -> int:
        """The number of hypotheses of nonzero weight (those the model uses)."""
        return len(self.estimator_weights_)

    def _importances(self) -> np.ndarray:
        """Weight mass per feature: a stump gives its feature importance 1, a tree its
        impurity-based importances (an AttributeError for hypotheses that do not say which
        features they use, e.g. a callable oracle's)."""
        return weighted_importances(self.estimator_weights_, self.estimators_, self.n_features_in_)

    def describe(self) -> str:
        """The ensemble as text: one line per hypothesis of nonzero weight, with feature names."""
        check_is_fitted(self)
        if self._multiclass:
            return "\n".join(f"class {plain(label)!r} vs rest:\n{m.describe()}"
                             for label, m in zip(self.classes_, self.one_vs_rest_))
        names = getattr(self, "feature_names_in_", None)
        lines = []
        for w, h in zip(self.estimator_weights_, self.estimators_):
            if not hasattr(h, "describe"):
                text = repr(h)
            else:  # a multiclass LP's hypotheses name the classes they vote for
                text = h.describe(names, list(map(plain, self.classes_))) if self._native_fit else h.describe(names)
            lines.append(f"{w:10.6f}  {text}")
        return "\n".join(lines)

    # -- save/load ------------------------------------------------------------------------
    def _binary_state(self) -> dict[str, Any]:
        from lpboosting.model_io import binary_to_dict

        return binary_to_dict(self)

    def _set_binary_state(self, data: dict[str, Any]) -> None:
        from lpboosting.model_io import binary_from_dict

        binary_from_dict(self, data)
