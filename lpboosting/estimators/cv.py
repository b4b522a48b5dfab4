"""nu (and the oracle) chosen by cross-validation: ``LPBoostCV``, ``SoftBoostCV``, ``ERLPBoostCV``.

In the style of scikit-learn's ``LogisticRegressionCV``: each fold fits the
classifier along a grid of nu values on its training part and scores it on
the rest (``scoring``, accuracy by default); the nu of best mean score (the
larger nu on a tie: more of the examples count) is refitted on all the data.
``nu="auto"`` in the plain classifiers means the same.

The folds run LPBoost's warm-started nu path (:class:`~lpboosting.colgen.
NuPathRun`: one live master per fold, its columns and basis kept from one
nu to the next, from large nu to small), in lockstep: after each nu the
folds' scores are taken and the path stops early once the mean score has
been below its best for two nus in a row, or below it by more than the
best's standard error across folds (``early_stopping``).  The small nus are
the expensive end of the path: below the fraction of wrong labels the
master must fit them, with hundreds of columns in its basis; they are also
the nus that score worst there, so stopping early saves most of the fit at
the same choice.

For SoftBoost and ERLPBoost nu plays the same part (the cap 1/(nu N) of
their distribution) and their soft margin is within delta of LPBoost's at
the same nu (Warmuth, Glocer, Rätsch 2007; Warmuth, Glocer, Vishwanathan
2008), so their nu is chosen on LPBoost's path too and only the refit is
theirs: fitting every nu of every fold with the entropy masters costs many
times the path.

``oracle="auto"`` (the CV classifiers' default) runs the same selection for
decision stumps (``"binned-stumps"``: thresholds at up to 128 count
quantiles of each feature, every threshold of a feature with fewer distinct
values) and for the trees of a gradient-boosted forest
(``"gb-trees"``: a forest fitted once per fold, its trees a finite pool the
LP weights, with ``whole_forest=True`` the forest's own expected label
2p(x) - 1 one more hypothesis of it), the forest taken twice: with its 200
trees, and stopped early on a tenth of the rows held out
(``early_stopping=True``).  All three run side by side along the grid, and
the best is kept: a sum of stumps is additive in the features and cannot
follow an interaction (two features with a curved boundary, as in banana),
the forest's trees can; under label noise the forest's trees follow the
noise too, and the stumps do as well or better.  Where the classes
overlap (KEEL magic, banana) the soft margin over the trees alone is a
worse surrogate of the error than the forest's own log-loss fit; with the
forest as a hypothesis the LP keeps that fit, alone or corrected by its
trees.  Neither forest is always the better: stopped early it follows
noisy labels less (banana at 10 % noise), but on a few thousand rows its
held-out tenth is small and it can stop too soon (make_classification at
10 % noise); the folds' scores decide, and the folds' forests are fitted
with the same setting as the refit's.  One
multiclass LP over more than two classes chooses between the class votes of
a gradient-boosted forest after each of its iterations, the same of K
binary forests stopped early (one per class against the rest, on at least
100 rows a class) and of the forest stopped early, class stumps and trees
of depth 5, in that order
(:data:`MULTICLASS_AUTO_ORACLES`): the LP over the forest's votes is the
forest's own fit where nothing beats it, and the others have to earn
their place (and their time): their runs are budgeted from the first nu
on, a fold's whole path at most the first forest's time there, and a
path that still rises stops once its reach is below the forest's best.
Each oracle's path stops early by its own scores, and the trees' path also
stops once its best mean score so far has been below the stumps' best so
far by more than the standard error of that best, at two nus in a row, and
its own score has stopped rising, or once every fold's score has stayed
the same over three nus (the LP on the forest alone, as on banana).  The trees are chosen only when their
best score is above the stumps' best by more than its standard error (the
one-standard-error rule).  The standard errors are the folds', and at least
an accuracy's binomial error on the validation rows: three folds estimate
their spread poorly, and on large data a dip of 0.001 stopped paths that
went on to rise by 0.03.
The stumps' path (cheap, preferred within a standard error) stops
for the trees only when they have led by more than a standard error at two
nus in a row and lead by more than the stumps could still gain: their last
rise per unit of nu, carried on to the smallest nu of the grid (the stumps'
score can be below the trees' at large nu and above it at small nu, as on
twonorm), and not while the stumps' scores have not moved from the largest
nu's (on wdbc they stay flat over five nus, then climb past the trees').
On KEEL ring that spares the stumps' most expensive nu.

The measurements behind these rules, with the commands that give them, are
in docs/accuracy.md ("What the CV classifiers do, and what it costs").

Why nu matters: at most a fraction nu of the examples can have a margin
below the soft margin rho (Warmuth, Glocer, Rätsch 2007), so a nu below the
fraction of flipped labels makes the booster fit them; a nu above it lets
them go.  The default grid spans 0.01 to 0.8.  The LP's value only falls
as nu does, so when the soft margin at 0.8 is at or near 0 on a fold (more
wrong or overlapping labels than that grid allows for, as with many classes
and noisy labels), every nu of the grid is degenerate there, and the path
goes on above it first, from 1 down (:data:`UPPER_NUS`).
"""

from __future__ import annotations

import itertools
import math
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import get_scorer
from sklearn.model_selection import check_cv
from threadpoolctl import threadpool_limits

from lpboosting.colgen.options import LoopOptions
from lpboosting.colgen.path import PATH_OPTIONS, NuPathRun
from lpboosting.estimators.base import row_keys, shared_doc
from lpboosting.estimators.entropy import ERLPBoostClassifier, SoftBoostClassifier
from lpboosting.estimators.lpboost import LPBoostClassifier
from lpboosting.errors import SolverError
from lpboosting.masters.pool import ColumnPool
from lpboosting.oracles import make_oracle

__all__ = ["AUTO_ORACLES", "DEFAULT_NUS", "MULTICLASS_AUTO_ORACLES", "ONE_VS_REST_ROWS_PER_CLASS", "ERLPBoostCV",
           "LPBoostCV", "Selection", "SoftBoostCV", "auto_oracles", "select"]

#: the nu grid of ``nu="auto"`` and the CV classifiers, from large to small (the path's order)
DEFAULT_NUS = (0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01)
#: the bins of ``oracle="auto"``'s stumps: their thresholds cut each feature into at most this many
#: bins of equal counts (every threshold of a feature with fewer distinct values).  With fewer
#: candidate thresholds the LP's optimum at small nu holds fewer stumps and its master is cheaper,
#: at the same test errors (docs/accuracy.md measures both)
STUMP_BINS = 128
#: the oracles ``oracle="auto"`` chooses from (name, parameters), in order of preference (a later one is
#: chosen only when it scores better by more than a standard error)
AUTO_ORACLES = (("binned-stumps", {"max_bins": STUMP_BINS}), ("gb-trees", {"whole_forest": True}),
                ("gb-trees", {"whole_forest": True, "early_stopping": True}))
#: the same for one multiclass LP over more than two classes, whose hypotheses vote for a class: the
#: forest's staged votes first (the LP over them alone is the forest, HistGradientBoosting's fit), then
#: those of K binary forests stopped early (one per class against the rest, each its own length, a tenth
#: of the rows held out: under label noise a forest's later iterations fit the flipped labels) and of
#: the one forest stopped early (the whole of KEEL letter at 20 % noise, 10 splits: test error 0.080
#: with the K forests second, chosen on every split; 0.091 with the one forest stopped early second
#: and no K forests, HistGradientBoosting 0.092, one-vs-rest 0.081; docs/multiclass.md), class stumps
#: and trees of depth 5, each chosen only when it scores better by more than a standard error than the
#: one chosen before it.  On
#: clean KEEL segment the stumps' path rose to within a standard error of the forest at small nus and,
#: preferred there, was chosen on two splits of three: test error 0.026, where the forest first gives
#: 0.016 (10 splits; one-vs-rest 0.016, HistGradientBoosting 0.016: docs/multiclass.md)
MULTICLASS_AUTO_ORACLES = (("gb-trees", {}), ("gb-trees", {"one_vs_rest": True, "early_stopping": True}),
                           ("gb-trees", {"early_stopping": True}), ("stumps", {}), ("trees", {"max_depth": 5}))
#: the K one-vs-rest forests of :data:`MULTICLASS_AUTO_ORACLES` are raced only on at least
#: ONE_VS_REST_ROWS_PER_CLASS training rows a class (N >= 100 K): each forest stops on a held-out
#: tenth of a fold's rows, about 8 of its own class's at that, and on fewer rows its stopping point is
#: a guess and its fits a cost the small sets do not repay (KEEL iris and wine, 10 splits at 0 and
#: 20 % noise: the same test errors within a standard deviation, at 1.00 to 1.18 times one-vs-rest's
#: fit time with them, 0.71 to 0.98 without; docs/multiclass.md).  On KEEL segment, 231 rows a class,
#: at 20 % noise they were chosen on 8 splits of 10: test error 0.051, 0.060 without them
ONE_VS_REST_ROWS_PER_CLASS = 100
#: the path stops once the mean score has been below its best for this many nus in a row
PATIENCE = 2
#: a multiclass LP's path is not stopped early before this many nus are scored: its first scores go
#: up and down (KEEL wine, split 0: 0.864, 0.912, 0.815, 0.904 at nu 0.8 to 0.5, then up to 0.96 at
#: 0.2; stopped at the fourth nu it chose 0.7, test error 0.13; scored on, 0.2, error 0)
MULTICLASS_FIRST_NUS = 5
#: the nus above the default grid's largest that the path goes on to when the soft margin at that
#: largest nu is at or below the estimator's ``degenerate_margin`` on a fold: the LP's value
#: only falls with nu (at a smaller nu fewer examples share the slack), so the rest of the grid is
#: degenerate too, each of its optima a vote the solver picked among many (on KEEL led7digit at 20 %
#: label noise, 10 classes, a constant vote: test error 0.91).  At nu = 1 the LP maximises the mean
#: of the examples' least margins
UPPER_NUS = (1.0, 0.95, 0.9, 0.85)
#: with early stopping, a nu's run on a fold may take at most BUDGET_FACTOR times the time that
#: fold's path has taken so far, and at least BUDGET_FLOOR seconds (each nu at most triples the
#: path's cost).  A nu that runs out of it ends its oracle's path and is not chosen (its refit on
#: all the data would not converge in time either): below the labels' noise rate the soft margin's
#: LP turns degenerate and each round slow (docs/defaults.md has the measurements).  The runs that
#: converge take far less: on the benchmark's sets (docs/accuracy.md, split 0 at 0, 10 and 20 %
#: noise) at most 1.45 times the path so far where that was 1 s or more (KEEL ring, 10 %, nu 0.4),
#: while the degenerate ones need more than twelve times it (ring, 10 %, nu 0.3: 31 s to converge on a fold
#: whose path had taken 2.5 s)
BUDGET_FACTOR = 2.0
BUDGET_FLOOR = 5.0
#: in one multiclass LP's race a later oracle's whole path on a fold, its oracle's set-up included,
#: may take at most RIVAL_FACTOR times what the first oracle's has taken on that fold (at least
#: BUDGET_FLOOR seconds): the first's model is there at every nu, and a later one has to earn its
#: time.  On a 2 000-row draw of KEEL letter at 20 % noise the trees' path took up to 30 s a fold
#: beside the forest's 5 s, at no better a score (docs/multiclass.md, "The forest first")
RIVAL_FACTOR = 1.0
#: a budgeted run is given up before its budget ends (:class:`_Forecast`) when its certified gap,
#: falling at its rate so far, would reach GIVE_UP_GAP (or the run's tol if that is larger) only
#: after GIVE_UP_FACTOR times its budget; judged from the GIVE_UP_ROUNDS-th round with a gap on,
#: once the run has taken GIVE_UP_AFTER of its budget (a cheap run is left to finish: on small
#: sets a gap may stay flat over a few rounds of milliseconds).
#: The rate is the gap's fall since the run's first round, taken as geometric in time: a pessimistic
#: guess for runs that converge (the last rounds, priced at the master's own duals, close the gap
#: from about 1e-4 to the tol at once), whose guesses stayed below 1.13 times their budget on the
#: benchmark's sets, while every run that went on to exhaust its budget there was guessed above
#: twice it within 1.9 to 5.7 seconds of budgets of 5 to 11 seconds (docs/accuracy.md)
GIVE_UP_GAP = 1e-4
GIVE_UP_FACTOR = 2.0
GIVE_UP_ROUNDS = 3
GIVE_UP_AFTER = 0.25


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


class _Forecast:
    """The loop's callback on a fold's runs: gives up a run that would not converge within its budget.

    :meth:`arm` starts a run's watch with its time ``limit`` (None: no watch).  After each round
    with a certified gap g_t (at t seconds into the run), from the GIVE_UP_ROUNDS-th on, the
    gap's fall since the first round (g_1 at t_1) is taken as geometric in time and carried on:

        finish = t + (t - t_1) log(g_t / target) / log(g_1 / g_t),   target = max(tol, GIVE_UP_GAP)

    (infinite when the gap has not fallen).  From GIVE_UP_AFTER times the limit into the run on,
    the run stops (``gave_up``) when finish is above GIVE_UP_FACTOR times the limit: a degenerate
    master (soft margin near 0, rounds of seconds each) is seen within a few rounds, not after its
    whole budget.
    """

    def __init__(self, tol: float) -> None:
        self.target = max(float(tol), GIVE_UP_GAP)
        self.limit: float | None = None
        self.start = 0.0
        self.first: tuple[float, float] | None = None  # (t_1, g_1)
        self.rounds = 0  # rounds with a gap so far
        self.gave_up = False

    def arm(self, limit: float | None) -> None:
        """Watch the run that starts now with ``limit`` seconds (None: do not watch it)."""
        self.limit, self.start, self.first, self.rounds, self.gave_up = limit, time.perf_counter(), None, 0, False

    def finish(self, t: float, g: float) -> float:
        """When the run would reach the target at its rate from its first round to gap ``g`` at ``t``
        seconds into it (seconds into the run)."""
        t1, g1 = self.first
        if not (g < g1 and t > t1):
            return math.inf
        return t + (t - t1) * math.log(g / self.target) / math.log(g1 / g)

    def __call__(self, record: Any) -> bool:
        gap = record.gap
        if self.limit is None or gap is None or not math.isfinite(gap) or gap < 0:
            return False
        now, gap = time.perf_counter() - self.start, float(gap)
        self.rounds += 1
        if self.first is None:
            self.first = (now, gap)
        if self.rounds < GIVE_UP_ROUNDS or now < GIVE_UP_AFTER * self.limit or gap <= self.target:
            return False  # too soon to tell, or about done
        self.gave_up = self.finish(now, gap) > GIVE_UP_FACTOR * self.limit
        return self.gave_up


class _FoldPath:
    """One fold at one oracle: the decisions on the fold's validation rows at each nu asked for.

    On LPBoost's path (``estimator._choose_on_path``) one live
    :class:`~lpboosting.colgen.NuPathRun` per class (one-vs-rest; one for
    two classes) goes on from nu to nu; otherwise each nu is a separate fit
    of the classifier itself.
    """

    def __init__(self, estimator: Any, oracle: tuple[Any, dict | None], X: np.ndarray, y: np.ndarray,
                 w: np.ndarray | None, X_val: np.ndarray, classes: np.ndarray) -> None:
        from lpboosting.estimators.base import merge_rows

        started = time.perf_counter()
        self.estimator, (self.oracle, self.oracle_params), self.classes = estimator, oracle, classes
        self.X_val, self.given = np.asarray(X_val, dtype=float), (X, y, w)
        self.runs: list[Any] = []  # per class: [NuPathRun, {id of a hypothesis: (it, its predictions on X_val)}]
        self.seconds = 0.0  # the path's time so far on this fold (its runs)
        self.setup = 0.0  # the time its oracle took to set up (the forest's fit of "gb-trees")
        self.value: float | None = None  # the LP's optimum at the last nu (one LP: binary or native)
        # the last nu's run stopped at its budget (not the user's time limit), or was given up as
        # one that would not converge within it (:class:`_Forecast`)
        self.exhausted = False
        # a later oracle of one multiclass LP's race (:func:`select`): the first oracle's path on the
        # same fold, whose time bounds this one's (its first nu is budgeted too)
        self.rival: _FoldPath | None = None
        if not estimator._choose_on_path:
            return
        X, y, w, _ = merge_rows(X, y, w)
        if estimator._warm_path:  # LPBoost itself: its own solver settings (not its callback or ledger)
            options, backend = LoopOptions.from_params(estimator, callback=None, verbose=0), estimator.backend
        else:  # an entropy master's nu, chosen on LPBoost's path with the path's defaults
            options, backend = PATH_OPTIONS.replace(time_limit=estimator.time_limit), None
        self.forecast = _Forecast(options.tol)  # watches the budgeted runs
        options = options.replace(callback=self.forecast)
        self.native = classes.size > 2 and estimator._native
        if self.native:  # one multiclass LP over all classes, on its own warm nu path
            from lpboosting.oracles.multiclass import make_multiclass_oracle

            codes = np.searchsorted(classes, y)
            if np.all(codes == codes[0]):  # this fold has one class only: a constant vote
                self.runs.append(np.eye(classes.size)[codes[0]])
                return
            fold_oracle = make_multiclass_oracle(self.oracle, X, codes, classes.size,
                                                 **estimator._oracle_params(*oracle))
            self.runs.append([NuPathRun(fold_oracle, options, sample_weight=w, backend=backend), {}])
            self.setup = time.perf_counter() - started
            return
        base = None
        for label in ([classes[1]] if classes.size == 2 else list(classes)):
            y_pm = np.where(y == label, 1.0, -1.0)
            if np.all(y_pm == y_pm[0]):  # this fold has one class only: a constant decision
                self.runs.append(float(y_pm[0]))
                continue
            if base is None:
                base = make_oracle(self.oracle, X, y_pm, sample_weight=w, **estimator._oracle_params(*oracle))
                fold_oracle = base
            else:
                fold_oracle = base.relabel(y_pm)
            self.runs.append([NuPathRun(fold_oracle, options, sample_weight=w, backend=backend), {}])
        self.setup = time.perf_counter() - started

    def decisions(self, nu: float, budgeted: bool = False) -> np.ndarray:
        """Decisions on the validation rows at ``nu``: (n_val,), or (n_val, K) for K > 2 classes.

        ``budgeted``: on LPBoost's path, the run at ``nu`` may take at most
        BUDGET_FACTOR times the path's time so far (at least BUDGET_FLOOR
        seconds), and is given up sooner when :class:`_Forecast` sees that it
        would not converge within that; ``exhausted`` says whether it stopped so
        (then the decisions are NaN, and the classes after it in one-vs-rest
        are not run).  With a ``rival`` (a later oracle of one multiclass LP's
        race) the first nu is budgeted too (BUDGET_FLOOR), and the whole path,
        its oracle's set-up included, may take at most RIVAL_FACTOR times what
        the rival's has taken so far on the fold (at least BUDGET_FLOOR
        seconds): what is left of that bounds each run too, and a nu with
        nothing left is not run."""
        if not self.estimator._choose_on_path:
            model = at_nu(self.estimator, nu, self.oracle, self.oracle_params).set_params(
                warm_start=False, verbose=0, callback=None)
            model.fit(*self.given[:2], sample_weight=self.given[2])
            if getattr(model, "status_", None) == "interrupted":  # Ctrl-C: the fit kept its rounds
                raise KeyboardInterrupt
            return model.decision_function(self.X_val)
        out = []
        budget = (max(BUDGET_FLOOR, BUDGET_FACTOR * self.seconds)
                  if budgeted and (self.seconds > 0 or self.rival is not None) else None)
        if budgeted and self.rival is not None:
            share = (max(BUDGET_FLOOR, RIVAL_FACTOR * (self.rival.setup + self.rival.seconds))
                     - self.setup - self.seconds)
            budget = share if budget is None else min(budget, share)
        started = time.perf_counter()
        self.exhausted = budget is not None and budget <= 0
        for run in self.runs:
            if self.exhausted:  # one class's run is out of the budget: this nu is not scored
                break
            if isinstance(run, float):
                out.append(np.full(self.X_val.shape[0], run))
                continue
            if isinstance(run, np.ndarray):  # a native fold of one class: its constant vote
                return np.tile(run, (self.X_val.shape[0], 1))
            path, predictions = run
            left = None if budget is None else max(budget - (time.perf_counter() - started), 1e-3)
            self.forecast.arm(left)
            result = path.solve(nu, time_limit=left)
            if result.status == "interrupted":  # the loop caught a Ctrl-C and kept its rounds: stop here
                raise KeyboardInterrupt
            if result.solution is None:  # the solver failed before any master of this fold was solved
                raise SolverError(f"{type(self.estimator).__name__}: choosing nu by cross-validation, at "
                                  f"nu={nu:g}: {result.message}; no model was fitted")
            limit = path.options.time_limit
            self.exhausted |= bool((result.status == "time_limit" and left is not None
                                    and (limit is None or left < limit))
                                   or (result.status == "stopped" and self.forecast.gave_up))
            if len(self.runs) == 1:
                self.value = float(result.objective)
            weights = result.weights
            hypotheses = path.hypotheses
            n_val = self.X_val.shape[0]
            # a native multiclass LP's hypotheses vote for a class: (n_val, K) weighted votes
            f = np.zeros((n_val, self.classes.size) if self.native else n_val)
            for m in np.flatnonzero(weights):
                key = id(hypotheses[m])  # by object: a path that starts a new run may renumber them
                if key not in predictions:
                    predictions[key] = (hypotheses[m], np.asarray(hypotheses[m].predict(self.X_val),
                                                                  dtype=np.intp if self.native else float))
                if self.native:
                    f[np.arange(n_val), predictions[key][1]] += weights[m]
                else:
                    f += weights[m] * predictions[key][1]
            out.append(f)
        self.seconds += time.perf_counter() - started
        if self.exhausted:  # not scored (the path ends here): no decisions
            return np.full((self.X_val.shape[0],) if self.classes.size == 2
                           else (self.X_val.shape[0], self.classes.size), np.nan)
        return out[0] if self.classes.size == 2 or self.native else np.stack(out, axis=1)


def auto_oracles(y: np.ndarray, native: bool) -> tuple:
    """The oracles ``oracle="auto"`` races on labels ``y``: :data:`MULTICLASS_AUTO_ORACLES` for one
    multiclass LP (``native`` and more than two classes; the K one-vs-rest forests only on at least
    :data:`ONE_VS_REST_ROWS_PER_CLASS` rows a class), else :data:`AUTO_ORACLES`."""
    k = np.unique(y).size
    if k <= 2 or not native:
        return AUTO_ORACLES
    if len(y) >= ONE_VS_REST_ROWS_PER_CLASS * k:
        return MULTICLASS_AUTO_ORACLES
    return tuple(o for o in MULTICLASS_AUTO_ORACLES if not o[1].get("one_vs_rest"))


def _one_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with one OpenMP thread in the calling thread (OpenMP's thread count is a
    setting of each thread, so a limit set around the pool does not reach its threads)."""
    with threadpool_limits(1, user_api="openmp"):
        return fn(*args)


def at_nu(estimator: Any, nu: float, oracle: Any = None, oracle_params: dict | None = None) -> Any:
    """The plain classifier of ``estimator`` (a CV classifier or one with nu="auto") at this nu
    (and this oracle with these parameters, when given)."""
    import inspect

    for cls in type(estimator).__mro__:
        parameters = inspect.signature(cls.__init__).parameters
        if "nu" in parameters:
            break
    params = {k: v for k, v in estimator.get_params(deep=False).items() if k in parameters}
    params["nu"] = nu
    if oracle is not None:
        params["oracle"], params["oracle_params"] = oracle, oracle_params
    return cls(**params)


def _score(scorer: Any, classes: np.ndarray, decision: np.ndarray, X_val: np.ndarray, y_val: np.ndarray,
           w_val: np.ndarray | None) -> float:
    frozen = _Frozen(classes, decision)
    if w_val is None:
        return float(scorer(frozen, X_val, y_val))
    return float(scorer(frozen, X_val, y_val, sample_weight=w_val))


def cv_folds(cv: Any, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None
             ) -> list[tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray | None]]:
    """The folds of the selection: (training rows, their weights, validation rows, their weights).

    ``cv`` is scikit-learn's (an int: stratified k-fold) and splits the rows
    (merged: :func:`~lpboosting.estimators.base.merge_rows`), a repeated row
    whole, as one draw.  One exception, with an int ``cv`` and whole-number
    weights: a row of weight s > 1 whose features also come with another
    label counts as s copies, its first in the validation rows of the fold
    scikit-learn's split puts it in and copy j in those of the j-th fold
    after it (mod k); each fold holds the row with the copies that fell in
    it, and trains on the others.  Held out whole, such a row's most frequent
    label leaves only its other labels to train on: on KEEL led7digit (7
    binary features, 146 distinct (row, label) pairs of 500) every nu scored
    below a constant vote.  Spread, a row of weight s is split between
    training and validation as s copies spread over the folds are.  Rows
    whose features come with one label stay whole (repeated rows of KEEL
    segment, spread too, made the stumps at nu 0.02 score 0.969 against
    0.961 and win over the forest on split 0: test error 0.033 against
    0.016).  Other weights, and a splitter or given splits, split every row
    whole.
    """
    split = list(check_cv(cv, y, classifier=True).split(X, y))
    weights = (lambda rows: None) if sample_weight is None else (lambda rows: sample_weight[rows])
    if (isinstance(cv, (int, np.integer)) and sample_weight is not None
            and np.all(sample_weight == np.round(sample_weight)) and sample_weight.max() > 1):
        # the rows whose features come with more than one label (merged rows differ in X or y)
        _, same_x, many = np.unique(row_keys(X), axis=0, return_inverse=True, return_counts=True)
        spread = many[same_x.ravel()] > 1
        if spread.any():
            k, counts = len(split), np.round(sample_weight).astype(np.int64)
            fold = np.empty(y.size, dtype=np.int64)  # the fold of each row (of its first copy)
            for f, (_, test) in enumerate(split):
                fold[test] = f
            # copy j of a spread row goes to fold (fold + j) mod k: the number of j < s that land in f
            test = np.stack([np.where(spread, np.maximum(0, (counts - (f - fold) % k + k - 1) // k),
                                      np.where(fold == f, counts, 0)) for f in range(k)])
            train = counts[None, :] - test
            return [(np.flatnonzero(train[f]), train[f][train[f] > 0].astype(float),
                     np.flatnonzero(test[f]), test[f][test[f] > 0].astype(float)) for f in range(k)]
    return [(train, weights(train), test, weights(test)) for train, test in split]


def _degenerate(folds: Any, margin: float) -> bool:
    """Whether some fold's LP (one per fold: binary or native multiclass) had a soft margin at or
    below ``margin`` at the last nu."""
    return any(p.value is not None and p.value <= margin for p in folds)


def _stop_early(scores: np.ndarray, first_nus: int = 1, rows: float = 0.0) -> bool:
    """Whether the path should stop after the last nu evaluated (``scores``: folds x nus so far).

    It stops once the mean score has been below its best for PATIENCE nus
    in a row, or has fallen below the best by more than the best's standard
    error (:func:`_se`, with ``rows``): smaller nus only fit more of the
    training labels (at most a fraction nu of the examples may have a
    margin below rho), and they are the expensive end of the path.  It does
    not stop before ``first_nus`` nus are scored: a multiclass LP's path
    starts with dips (at the largest nus it holds a few hypotheses; measured
    on wine, :data:`MULTICLASS_FIRST_NUS`).
    """
    mean = scores.mean(axis=0)
    if mean.size < first_nus:
        return False
    best = float(mean.max())
    last_best = int(np.flatnonzero(mean >= best - 1e-12)[-1])
    if mean.size - 1 - last_best >= PATIENCE:
        return True
    first_best = int(np.flatnonzero(mean >= best - 1e-12)[0])
    return bool(mean[-1] < best - _se(scores[:, first_best], rows))


def _outscored(first: np.ndarray, other: np.ndarray, rows: float = 0.0) -> bool:
    """Whether ``other``'s best mean score so far is below ``first``'s best so far by more than the
    standard error (:func:`_se`, with ``rows``) of ``first``'s best (folds x nus, NaN where not
    scored)."""
    mean = first.mean(axis=0)
    if np.isnan(mean).all():
        return False
    k = int(np.nanargmax(mean))
    return bool(np.nanmax(other.mean(axis=0)) < mean[k] - _se(first[:, k], rows))


def _rising(scores: np.ndarray) -> bool:
    """Whether the last mean score scored (folds x nus, NaN where not scored) is the best so far.

    A path whose score still rises is not stopped by another's: on KEEL ring the stumps score
    above the forest's trees down to nu 0.5 and below them from nu 0.3 on, where the trees
    reach 0.969 and the stumps 0.962 (docs/accuracy.md)."""
    mean = scores.mean(axis=0)
    mean = mean[~np.isnan(mean)]
    return bool(mean.size and mean[-1] >= mean.max() - 1e-12)


def _flat(scores: np.ndarray) -> bool:
    """Whether every fold's score (folds x nus so far) is the same over the last PATIENCE + 1 nus.

    A later oracle's path that stays flat holds the same model: the forest's LP puts all its weight
    on the forest itself at the largest nus (KEEL banana, ring), and the runs at the smaller nus
    cost the most.  It may still rise further down (on clean KEEL magic the forest's path rose
    at nu 0.1 on most splits); that is given up for the time, and measured to cost no accuracy on
    the benchmark's sets (docs/accuracy.md).  The first oracle's path is not stopped so (on wdbc
    the stumps stay flat, then climb past the trees)."""
    if scores.shape[1] <= PATIENCE:
        return False
    last = scores[:, -(PATIENCE + 1):]
    return bool(np.all(np.abs(last - last[:, -1:]) <= 1e-12))


def _reach(scores: np.ndarray, nus: np.ndarray) -> float:
    """The most the first oracle's mean score may still reach further down the nu grid (``scores``:
    folds x the nus scored so far, ``nus``: the whole grid, large to small): its best so far, or its
    last score plus its last rise per unit of nu carried on to the grid's smallest nu if that is
    more; infinite before two nus are scored.

    An optimistic bound when the score's rise slows as nu falls, as it does on the benchmark's sets:
    KEEL ring's stumps rose by 0.0070 from nu 0.3 to 0.2 and by 0.0025 to 0.1, then fell; twonorm's
    rose by 0.006 to 0.008 per step of 0.1 from nu 0.7 to 0.3, where they overtook the forest's
    trees.  At small nus little of the grid is left below, and the bound is close to the score."""
    mean = scores.mean(axis=0)
    if mean.size < 2 or np.isnan(mean[-2:]).any() or (scores == scores[:, :1]).all():
        return float("inf")  # not moved yet: at the largest nus the LP may hold one hypothesis for long
    k = mean.size - 1
    slope = max(float(mean[k] - mean[k - 1]), 0.0) / float(nus[k - 1] - nus[k])
    return max(float(mean.max()), float(mean[k]) + slope * float(nus[k] - nus[-1]))


def _overtaken(first: np.ndarray, others: list[np.ndarray], nus: np.ndarray, rows: float = 0.0) -> bool:
    """Whether a later oracle's best mean score so far is above :func:`_reach` of the first oracle
    (folds x nus, NaN where not scored) by more than that best's standard error (:func:`_se`, with
    ``rows``): the first would not catch it up further down the grid."""
    reach = _reach(first[:, ~np.isnan(first).any(axis=0)], nus)
    for other in others:
        mean = other.mean(axis=0)
        if not np.isnan(mean).all():
            k = int(np.nanargmax(mean))
            if mean[k] - _se(other[:, k], rows) > reach:
                return True
    return False


def _se(scores: np.ndarray, rows: float = 0.0) -> float:
    """The standard error of the mean of one nu's fold scores (0 for a single fold), at least the
    binomial error sqrt(p (1 - p) / rows) of an accuracy p on ``rows`` validation rows when
    ``rows`` is given (:func:`_accuracy_rows`)."""
    se = float(scores.std(ddof=1) / np.sqrt(scores.size)) if scores.size > 1 else 0.0
    if rows > 0:
        p = float(np.clip(scores.mean(), 0.0, 1.0))
        se = max(se, float(np.sqrt(p * (1.0 - p) / rows)))
    return se


def _accuracy_rows(scoring: Any, w_val: list[np.ndarray | None], sizes: list[int]) -> float:
    """The number of validation rows behind an accuracy (their effective number when weighted),
    for the floor of :func:`_se`; 0 for any other scoring.

    Three folds' scores estimate their own spread poorly: on KEEL magic (13 314 training rows)
    the forest's trees scored 0.8376 and 0.8366 at nu 0.7 and 0.6, a fall of 0.001 where the
    folds' spread gave a standard error of 0.0006, and the path stopped there; it rises to
    0.8635 at nu 0.3.  The binomial error of an accuracy near 0.84 on 13 314 rows is 0.0032."""
    if scoring not in (None, "accuracy"):
        return 0.0
    return float(sum(n if w is None else float(np.sum(w)) ** 2 / max(float(np.sum(np.square(w))), 1e-300)
                     for n, w in zip(sizes, w_val)))


@dataclass
class Selection:
    """What cross-validation chose: ``nu``, ``oracle`` and its ``oracle_params``, the grid, and the
    scores of every oracle tried (folds x nus, NaN where its path stopped early) by its name."""

    nu: float
    oracle: Any
    oracle_params: dict | None
    nus: np.ndarray
    scores: dict[str, np.ndarray]
    #: per oracle name: the nu whose run ran out of its time budget on a fold (its path ended there)
    exhausted: dict[str, float] = field(default_factory=dict)
    #: per oracle name: the nu at which one multiclass LP's soft margin was at or near 0 on a fold
    #: (not scored; its path ended there)
    degenerate: dict[str, float] = field(default_factory=dict)
    #: per oracle name: what its solver's failure on a fold said (its path ended there; the others
    #: of the race were chosen from)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def chosen_scores(self) -> np.ndarray:
        return self.scores[oracle_name(self.oracle, self.oracle_params)]


def _best(tables: list[np.ndarray], rows: float = 0.0) -> tuple[int, int] | None:
    """(oracle index, nu index) of the chosen (oracle, nu), None when no nu is scored on every fold.

    Within an oracle: the nu of largest mean score over the folds (the larger nu on a tie).
    Between oracles, in their order of preference: a later oracle is chosen over the one chosen
    so far only when its best mean score is above that one's by more than that one's standard
    error (:func:`_se`, with ``rows``), the one-standard-error rule: the scores are estimates,
    and the maximum over more of them is biased upwards.  On clean pima (split 1 of the accuracy
    benchmark) the forest's trees scored 0.7616 against the stumps' 0.7598 (error 0.018 on 537
    rows) and, chosen, gave 0.290 test error where the stumps give 0.260.
    """
    chosen: tuple[float, float, int, int] | None = None  # mean, its standard error, oracle, nu
    for o, table in enumerate(tables):
        mean = table.mean(axis=0)  # NaN where a fold is missing
        if np.isnan(mean).all():
            continue
        k = int(np.nanargmax(mean))  # the first of equal maxima: the larger nu
        if chosen is None or mean[k] > chosen[0] + chosen[1] + 1e-12:
            chosen = (float(mean[k]), _se(table[:, k], rows), o, k)
    return None if chosen is None else chosen[2:]


def oracle_name(oracle: Any, params: dict | None = None) -> str:
    """A name for an oracle and its parameters: "stumps", "trees(max_depth=5)", a function's name."""
    name = oracle.strip().lower() if isinstance(oracle, str) else getattr(oracle, "__name__", repr(oracle))
    return name + (f"({', '.join(f'{k}={v!r}' for k, v in params.items())})" if params else "")


def select(estimator: Any, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None, nus: Any,
           oracles: Any, cv: Any, scoring: Any, n_jobs: int | None, early_stopping: bool = True) -> Selection:
    """nu (and the oracle) of best mean cross-validation score of ``estimator``.

    Every (oracle, its parameters) of ``oracles`` and every fold run in
    lockstep along the nu grid (large to small): each fold's path is moved
    to the next nu and the folds' validation scores are taken.  With
    ``early_stopping`` an oracle's path stops as :func:`_stop_early` says,
    and a later oracle's also once :func:`_outscored` by the first at
    PATIENCE nus in a row with its own score no longer rising (one
    multiclass LP: or rising, but with its :func:`_reach` below the
    first's best by more than a standard error), or once its
    scores have stayed the same over PATIENCE + 1 nus (:func:`_flat`); the first's
    once another has outscored it at PATIENCE nus in a row and is
    :func:`_overtaken` (beyond the first's reach further down the grid).
    The chosen (oracle, nu) is :func:`_best`'s: per oracle the nu of largest
    mean score (the larger nu on a tie: more of the examples count), and a
    later oracle only when its best is above the earlier's by more than a
    standard error.  One multiclass LP's later oracles have their time
    budget (``early_stopping``) from the first nu on, and a fold's whole
    path at most RIVAL_FACTOR times the first oracle's there (at least
    BUDGET_FLOOR seconds): the first's model is there at every nu, and a
    later one that takes longer is not waited for (the class stumps and
    trees of KEEL letter, 26 classes: docs/multiclass.md, "The forest
    first").
    A solver failure on a fold ends that oracle's path (``failed``; the
    classifier warns) when another oracle is left to choose from, and is
    raised otherwise.  ``n_jobs`` moves the folds in threads.  With the default
    grid (``nus`` None), when some fold's LP at its largest nu has a soft
    margin at or below the estimator's ``degenerate_margin``, the scoring
    starts again from the larger :data:`UPPER_NUS` (the live paths go up to
    them and down again): the whole grid is degenerate on that fold.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from lpboosting.masters.lpboost import check_nu

    grid = np.asarray(sorted({check_nu(nu) for nu in (DEFAULT_NUS if nus is None else nus)}, reverse=True))
    if grid.size == 0:
        raise ValueError("nus is empty; give the nu values to choose from, in (0, 1]")
    classes = np.unique(y)
    native = bool(classes.size > 2 and estimator._native)  # one multiclass LP
    first_nus = MULTICLASS_FIRST_NUS if native else 1
    margin = float(getattr(estimator, "degenerate_margin", 1e-3))
    folds = cv_folds(cv, X, y, sample_weight)
    scorer = get_scorer(scoring if scoring is not None else "accuracy")
    tables = [np.full((len(folds), grid.size), np.nan) for _ in oracles]
    rows = _accuracy_rows(scoring, [w_test for *_, w_test in folds], [test.size for _, _, test, _ in folds])
    behind = [0] * len(oracles)  # nus in a row a later oracle's best was below the first's (the first: above)
    exhausted: dict[str, float] = {}
    degenerate: dict[str, float] = {}  # per oracle: the nu a native LP was degenerate at on a fold
    failed: dict[str, str] = {}  # per oracle: its solver's failure on a fold
    extendable = nus is None and grid[0] < max(UPPER_NUS)  # the default grid: UPPER_NUS may come first
    try:
        # the fold threads share the cores with BLAS's and OpenMP's own threads (the forest's), which
        # gain little on a fold's small products and spin: one BLAS thread (a process-wide setting)
        # and one OpenMP thread in each fold thread (a setting of the thread, :func:`_one_thread`)
        threads = effective_n_jobs(n_jobs) > 1
        limits = threadpool_limits(1, user_api="blas") if threads else nullcontext()
        run = _one_thread if threads else (lambda fn, *args: fn(*args))
        with warnings.catch_warnings(), limits, Parallel(n_jobs=n_jobs, backend="threading") as parallel:
            warnings.simplefilter("ignore", ConvergenceWarning)  # the refit says what it has to
            warnings.filterwarnings("ignore", message=".*float32", category=RuntimeWarning)  # the refit, too
            paths = {o: parallel(delayed(run)(_FoldPath, estimator, oracle, X[train], y[train], w_train,
                                              X[test], classes) for train, w_train, test, _ in folds)
                     for o, oracle in enumerate(oracles)}
            if native:  # the first oracle's model is there at every nu: a later one has to earn its time
                for o in range(1, len(oracles)):
                    for path, rival in zip(paths[o], paths[0]):
                        path.rival = rival

            def score_grid() -> bool:
                """Every oracle's folds along the grid, nu by nu, into the tables; True when the grid's
                largest nu is degenerate on a fold and the scoring must start again from UPPER_NUS."""
                for k, nu in enumerate(grid):
                    order = sorted(paths)
                    if not threads:
                        decided = {}
                        for o in order:
                            # one fold after the other: a fold that runs out of its budget ends this nu
                            # for all (it is not chosen), so the others are not run to theirs too
                            decided[o] = []
                            for path in paths[o]:
                                decided[o].append(_decide(path, float(nu), early_stopping))
                                if path.exhausted or isinstance(decided[o][-1], SolverError):
                                    break
                    else:  # every oracle's folds at once: more runs than threads keep the threads busy
                        tasks = [(o, path) for o in order for path in paths[o]]
                        done = parallel(delayed(run)(_decide, path, float(nu), early_stopping) for _, path in tasks)
                        decided = {o: [f for (t, _), f in zip(tasks, done) if t == o] for o in order}
                    for o in order:
                        error = next((f for f in decided[o] if isinstance(f, SolverError)), None)
                        if error is not None:  # this oracle's path ends; the race goes on without it
                            others = [t for i, t in enumerate(tables) if i != o]
                            if len(paths) == 1 and not any(np.isfinite(t).all(axis=0).any() for t in others):
                                raise error  # no other oracle to choose from
                            failed[oracle_name(*oracles[o])] = str(error)
                            del paths[o]
                            continue
                        if any(path.exhausted for path in paths[o]):  # not chosen, and the path ends here
                            exhausted[oracle_name(*oracles[o])] = float(nu)
                            del paths[o]
                            continue
                        if (native and not (k == 0 and extendable) and _degenerate(paths[o], margin)
                                and np.isfinite(tables[o][:, :k]).all(axis=0).any()):
                            # one multiclass LP at or near 0 on a fold (no second stage chooses among
                            # its optima): not chosen, and every smaller nu is degenerate there too
                            degenerate[oracle_name(*oracles[o])] = float(nu)
                            del paths[o]
                            continue
                        for f, ((_, _, test, w_test), decision) in enumerate(zip(folds, decided[o])):
                            tables[o][f, k] = _score(scorer, classes, decision, X[test], y[test], w_test)
                    if early_stopping and k + 1 < grid.size:
                        for o in list(paths):
                            if o > 0:
                                behind[o] = behind[o] + 1 if _outscored(tables[0], tables[o], rows) else 0
                                # one multiclass LP: a later path that still rises stops as well once
                                # its reach is below the first's best
                                given_up = (not _rising(tables[o][:, :k + 1])
                                            or (native and _overtaken(tables[o][:, :k + 1], [tables[0]], grid, rows)))
                                outscored = (behind[o] >= PATIENCE and given_up) or _flat(tables[o][:, :k + 1])
                            else:  # the first: led by another at PATIENCE nus in a row, and out of reach
                                later = tables[1:]
                                behind[0] = behind[0] + 1 if any(_outscored(t, tables[0], rows) for t in later) else 0
                                outscored = (behind[0] >= PATIENCE and k + 1 >= first_nus
                                             and _overtaken(tables[0][:, :k + 1], later, grid, rows))
                            if _stop_early(tables[o][:, :k + 1], first_nus, rows) or outscored:
                                del paths[o]  # this oracle's fold sessions
                    if k == 0 and extendable and _degenerate(itertools.chain(*paths.values()), margin):
                        return True  # on that fold the whole grid is degenerate: go on above its largest nu
                    if not paths:
                        break
                return False

            while score_grid():
                extendable = False
                # the scores start again, from the largest of UPPER_NUS (the live masters go up to it)
                grid = np.concatenate([sorted((nu for nu in UPPER_NUS if nu > grid[0]), reverse=True), grid])
                tables = [np.full((len(folds), grid.size), np.nan) for _ in oracles]
                behind = [0] * len(oracles)
    except KeyboardInterrupt:
        best = _best(tables, rows)
        if best is None:
            so_far = "no nu was scored on every fold yet"
        else:
            (oracle, params), nu = oracles[best[0]], grid[best[1]]
            given = f"nu={nu:g}, oracle={oracle!r}" + (f", oracle_params={params!r}" if params else "")
            so_far = (f"the best so far is nu={nu:g} with {oracle_name(oracle, params)} (mean score "
                      f"{np.mean(tables[best[0]][:, best[1]]):.4g}); fit with {given} to use it without the search")
        raise KeyboardInterrupt(f"{type(estimator).__name__}: interrupted while choosing nu by "
                                f"{len(folds)}-fold cross-validation; no model was fitted; {so_far}") from None
    scores = {oracle_name(*oracle): table for oracle, table in zip(oracles, tables)}
    o, k = _best(tables, rows)
    return Selection(nu=float(grid[k]), oracle=oracles[o][0], oracle_params=oracles[o][1], nus=grid,
                     scores=scores, exhausted=exhausted, degenerate=degenerate, failed=failed)


def _decide(path: _FoldPath, nu: float, budgeted: bool) -> np.ndarray | SolverError:
    """``path.decisions(nu, budgeted)``, or the SolverError it raised (:func:`select` ends that
    oracle's path, or raises it when no other oracle is left)."""
    try:
        return path.decisions(nu, budgeted)
    except SolverError as exc:
        return exc


# -- the classifiers -----------------------------------------------------------------------------
class _CrossValidatedNu:
    """What a CV classifier adds to its plain classifier: nu (and by default the oracle) chosen by
    cross-validation (:func:`select`), by the settings among its parameters (``nus``, ``cv``,
    ``scoring``, ``early_stopping``)."""

    @property
    def nu(self) -> str:
        """Always "auto": nu is chosen by cross-validation (``nu_`` holds the choice)."""
        return "auto"


def _cv_constraints(plain: type) -> dict[str, Any]:
    """The plain classifier's parameter constraints without nu, with the selection's."""
    constraints = {k: v for k, v in plain._parameter_constraints.items() if k != "nu"}
    constraints.update(nus=[None, "array-like"], cv=["cv_object"], scoring=[None, str, callable],
                       early_stopping=["boolean"])
    return constraints


#: the numpydoc entries of the selection's parameters (every CV classifier's)
_SELECTION_DOC = """    nus : array-like of floats in (0, 1], default None
        The nu values to choose from (None: :data:`DEFAULT_NUS`, 0.8 down to 0.01, and
        :data:`UPPER_NUS`, 1 down to 0.85, before them when the soft margin at 0.8 is at or
        near 0 on a fold).
    cv : int, cross-validation generator or iterable, default 3
        scikit-learn's ``cv`` (an int is stratified k-fold).
    scoring : str or callable, default None
        A scikit-learn scorer name or callable; None is accuracy.
    early_stopping : bool, default True
        Stop the path (large nu to small) once the mean score has been below
        its best for two nus in a row, or below the best by more than the
        best's standard error across folds; the smaller nus fit more of the
        training labels and cost the most.  With ``oracle="auto"`` a later
        oracle's path also stops once the first's has scored better by more
        than a standard error at two nus in a row (the trees' behind the
        stumps'; one multiclass LP: the stumps' and the trees' behind the
        forest's).  A nu's run on a fold
        may also take at most twice what that fold's path has taken
        so far (and at least 5 seconds: ``BUDGET_FACTOR``, ``BUDGET_FLOOR``;
        one multiclass LP's later oracles from the first nu on, and their
        whole path on a fold at most the first oracle's time there,
        ``RIVAL_FACTOR``):
        one that runs out (a degenerate LP below the labels' noise rate) is
        not chosen and ends its oracle's path.  A run whose certified gap,
        falling at its rate so far, would reach 1e-4 only after twice that
        budget is given up as soon as that is seen, a few rounds in
        (``GIVE_UP_GAP``, ``GIVE_UP_FACTOR``).  False scores every nu, each
        to convergence.
"""
#: the numpydoc entries of the oracle's parameters of a CV classifier
_ORACLE_DOC = """    oracle : "auto", "stumps", "binned-stumps", "features", "trees", "hist-trees", "gb-trees" or a callable, default "auto"
        "auto" chooses between decision stumps (on 128 count-quantile bins
        of each feature) and the trees of a
        gradient-boosted forest with the forest itself (:data:`AUTO_ORACLES`; one multiclass LP:
        a forest's staged class votes, those of K one-vs-rest forests (on
        at least 100 rows a class) and
        of the forest stopped early, class stumps and trees of depth 5,
        :data:`MULTICLASS_AUTO_ORACLES`)
        by the same cross-validation, the first unless a later one scores
        better by more than a standard error; a name or a
        callable is the plain classifier's ``oracle``.
    oracle_params : dict, optional
        Keyword arguments of a named oracle (None with ``oracle="auto"``).
"""
#: what every CV classifier does on Ctrl-C, and its fitted attributes
_CV_NOTES = """
    Ctrl-C while nu is being chosen stops the search with no model
    (KeyboardInterrupt); its message names the best nu and oracle scored so
    far.  Ctrl-C in the refit keeps the refit's rounds, as in the plain fit.

    Attributes
    ----------
    nu_ : the nu chosen; nus_ : the grid (large to small); oracle_,
    oracle_params_ : the oracle chosen (``oracle="auto"``); cv_scores_ : scores of the chosen
    oracle, shape (n_folds, n_nus), NaN where the path stopped early;
    cv_scores_by_oracle_ : the same for every oracle tried; cv_budget_stops_ : per oracle
    name, the nu whose run on a fold ran out of its time budget (``early_stopping``);
    cv_degenerate_stops_ : per oracle name, the nu at which one multiclass LP's soft margin was at
    or near 0 on a fold (not chosen: its optimum is one of many, and so are those of the smaller
    nus, where its path ended); and the fitted
    attributes of the plain classifier at ``nu_``, refitted on all the data:
    {shared_attributes}
"""
_ON_LPBOOSTS_PATH = """
    nu is chosen on LPBoost's warm nu path in each fold (the soft margins are
    within delta of each other at the same nu; see the module docstring), and
    the refit at ``nu_`` is this master's.
"""


@shared_doc
class LPBoostCV(_CrossValidatedNu, LPBoostClassifier):
    __doc__ = """:class:`~lpboosting.LPBoostClassifier` with nu (and the oracle) chosen by cross-validation.

    In the style of scikit-learn's ``LogisticRegressionCV``.  Each fold runs
    the warm nu path (:func:`lpboosting.colgen.nu_path`): one live master
    from the largest nu to the smallest.

    Parameters
    ----------
""" + _SELECTION_DOC + _ORACLE_DOC + """    backend : str, Backend or None, default None
        Master backend; None is the master's default, "highspy" (incremental
        HiGHS); or "cvxpy:SOLVER".
    {loop_parameters}
    pool : ColumnPool, dict or None, default None
        Column management (:mod:`lpboosting.masters.pool`), as in
        :class:`~lpboosting.LPBoostClassifier`; None keeps every hypothesis.
    multiclass : {"native", "one-vs-rest"}, default "native"
        More than two classes: one LP over all of them, nu chosen on its own
        warm path (:class:`lpboosting.masters.MulticlassLPBoost`), or K
        binary LPs; as in :class:`~lpboosting.LPBoostClassifier`.
    {shared_parameters}
""" + _CV_NOTES

    _parameter_constraints = _cv_constraints(LPBoostClassifier)

    def __init__(
        self,
        *,
        nus: Any = None,
        cv: Any = 3,
        scoring: Any = None,
        n_jobs: int | None = None,
        early_stopping: bool = True,
        oracle: str | Callable[..., Any] = "auto",
        oracle_params: dict[str, Any] | None = None,
        backend: "str | None" = None,
        tol: float = 1e-6,
        max_rounds: int = 1000,
        callback: Callable[..., Any] | None = None,
        columns_per_round: int = 20,
        stabilization: Any = "smoothing",
        time_limit: float | None = None,
        stall_rounds: int | None = None,
        pool: "ColumnPool | dict | None" = None,
        warm_start: bool = False,
        verbose: int = 0,
        random_state: Any = None,
        multiclass: str = "native",
    ) -> None:
        self.multiclass = multiclass
        self.nus = nus
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.early_stopping = early_stopping
        self.oracle = oracle
        self.oracle_params = oracle_params
        self.backend = backend
        self.tol = tol
        self.max_rounds = max_rounds
        self.callback = callback
        self.columns_per_round = columns_per_round
        self.stabilization = stabilization
        self.time_limit = time_limit
        self.stall_rounds = stall_rounds
        self.pool = pool
        self.warm_start = warm_start
        self.verbose = verbose
        self.random_state = random_state


_ENTROPY_CV_PARAMETERS_DOC = _SELECTION_DOC + """    delta : float in (0, 1], default 0.01
        Accuracy: the final soft margin is within delta of the optimum (not
        cross-validated).
""" + _ORACLE_DOC + """    backend : str, Backend or None, default None
        Projection solver; None is the master's default, "dedicated" (dual
        Newton, verified, conic fallback); or "cvxpy:CLARABEL" / "cvxpy:ECOS"
        / "cvxpy:SCS".
    {loop_parameters}
    {shared_parameters}
"""


class _EntropyCV(_CrossValidatedNu):
    """The parameters of SoftBoostCV and ERLPBoostCV (their plain classifiers share theirs)."""

    def __init__(
        self,
        *,
        nus: Any = None,
        cv: Any = 3,
        scoring: Any = None,
        n_jobs: int | None = None,
        early_stopping: bool = True,
        delta: float = 0.01,
        oracle: str | Callable[..., Any] = "auto",
        oracle_params: dict[str, Any] | None = None,
        backend: "str | None" = None,
        tol: float = 1e-6,
        max_rounds: int = 1000,
        callback: Callable[..., Any] | None = None,
        columns_per_round: int = 10,
        stabilization: Any = None,
        time_limit: float | None = None,
        stall_rounds: int | None = None,
        warm_start: bool = False,
        verbose: int = 0,
        random_state: Any = None,
    ) -> None:
        self.nus = nus
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.early_stopping = early_stopping
        self.delta = delta
        self.oracle = oracle
        self.oracle_params = oracle_params
        self.backend = backend
        self.tol = tol
        self.max_rounds = max_rounds
        self.callback = callback
        self.columns_per_round = columns_per_round
        self.stabilization = stabilization
        self.time_limit = time_limit
        self.stall_rounds = stall_rounds
        self.warm_start = warm_start
        self.verbose = verbose
        self.random_state = random_state


@shared_doc
class SoftBoostCV(_EntropyCV, SoftBoostClassifier):
    __doc__ = """:class:`~lpboosting.SoftBoostClassifier` with nu (and the oracle) chosen by cross-validation.

    In the style of scikit-learn's ``LogisticRegressionCV``.
""" + _ON_LPBOOSTS_PATH + """
    Parameters
    ----------
""" + _ENTROPY_CV_PARAMETERS_DOC + _CV_NOTES

    _parameter_constraints = _cv_constraints(SoftBoostClassifier)


@shared_doc
class ERLPBoostCV(_EntropyCV, ERLPBoostClassifier):
    __doc__ = """:class:`~lpboosting.ERLPBoostClassifier` with nu (and the oracle) chosen by cross-validation.

    In the style of scikit-learn's ``LogisticRegressionCV``.
""" + _ON_LPBOOSTS_PATH + """
    Parameters
    ----------
""" + _ENTROPY_CV_PARAMETERS_DOC + """    multiclass : {"one-vs-rest", "native"}, default "one-vs-rest"
        More than two classes: K binary masters, or one
        :class:`lpboosting.masters.MulticlassERLPBoost` over all of them, nu
        chosen on the multiclass LP's warm path.
""" + _CV_NOTES

    _parameter_constraints = _cv_constraints(ERLPBoostClassifier)

    def __init__(
        self,
        *,
        nus: Any = None,
        cv: Any = 3,
        scoring: Any = None,
        n_jobs: int | None = None,
        early_stopping: bool = True,
        delta: float = 0.01,
        oracle: str | Callable[..., Any] = "auto",
        oracle_params: dict[str, Any] | None = None,
        backend: "str | None" = None,
        tol: float = 1e-6,
        max_rounds: int = 1000,
        callback: Callable[..., Any] | None = None,
        columns_per_round: int = 10,
        stabilization: Any = None,
        time_limit: float | None = None,
        stall_rounds: int | None = None,
        warm_start: bool = False,
        verbose: int = 0,
        random_state: Any = None,
        multiclass: str = "one-vs-rest",
    ) -> None:
        self.nus = nus
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.early_stopping = early_stopping
        self.delta = delta
        self.oracle = oracle
        self.oracle_params = oracle_params
        self.backend = backend
        self.tol = tol
        self.max_rounds = max_rounds
        self.callback = callback
        self.columns_per_round = columns_per_round
        self.stabilization = stabilization
        self.time_limit = time_limit
        self.stall_rounds = stall_rounds
        self.warm_start = warm_start
        self.verbose = verbose
        self.random_state = random_state
        self.multiclass = multiclass
