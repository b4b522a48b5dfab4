"""LPBoost along a sequence of nu values, warm-started: one live master, one set of columns.

Changing nu changes only the caps c_n = p_n / nu, bounds on the variables d
of the master's dual (Warmuth, Glocer, Rätsch 2007, eq. 2)::

    min gamma  s.t.  d . u^m <= gamma,  sum d = 1,  0 <= d_n <= c_n(nu)

so the live HiGHS model keeps its columns and its basis when nu moves
(:meth:`~lpboosting.backends.base.MasterSession.refresh_caps`): the dual
simplex restores feasibility from the previous optimum and column
generation goes on from the columns found for the earlier nu values.  A
whole path then costs little more than its hardest fit, as scikit-learn's
``lasso_path`` does for the lasso's regularisation.

Each nu gets its own :class:`~lpboosting.colgen.ColumnGenerationResult`
(history, status, objective, weights over the columns found so far), and
its optimum is the one a separate fit at that nu reaches: with an exact
oracle every stop is certified by the same gap test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpboosting.colgen.loop import ColumnGenerationResult, column_generation, continue_run
from lpboosting.colgen.options import Deadline, LoopOptions
from lpboosting.masters.lpboost import LPBoost, check_nu
from lpboosting.masters.multiclass import MulticlassLPBoost

__all__ = ["PATH_OPTIONS", "NuPath", "NuPathRun", "nu_path"]

#: the loop's options along a path unless given: 20 columns a round and dual smoothing, which
#: make the path's many restarts cheap (docs/defaults.md)
PATH_OPTIONS = LoopOptions(columns_per_round=20, stabilization="smoothing")


@dataclass
class NuPath:
    """The results of :func:`nu_path`, one per nu, over one growing set of hypotheses.

    ``results[i]`` is the run at ``nus[i]``; its ``weights`` have one entry
    per hypothesis found up to then (a prefix of ``hypotheses``).
    """

    nus: np.ndarray
    results: list[ColumnGenerationResult]
    hypotheses: list[Any] = field(default_factory=list)

    def weights(self) -> np.ndarray:
        """The weights at every nu as a matrix (n_nus x n_hypotheses), zeros where not yet found."""
        out = np.zeros((len(self.results), len(self.hypotheses)))
        for i, result in enumerate(self.results):
            out[i, :result.weights.size] = result.weights
        return out

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x) = sum_m w_m h_m(x) at every nu: shape (n_samples, n_nus)."""
        W = self.weights()
        used = np.flatnonzero(np.any(W != 0, axis=0))
        X = np.asarray(X, dtype=float)
        H = np.zeros((X.shape[0], len(self.hypotheses)))
        for m in used:
            H[:, m] = np.asarray(self.hypotheses[m].predict(X), dtype=float)
        return H[:, used] @ W[:, used].T

    @property
    def objectives(self) -> np.ndarray:
        return np.array([r.objective for r in self.results])

    @property
    def iterations(self) -> int:
        """Simplex iterations over the whole path."""
        return int(sum(r.iterations or 0 for res in self.results for r in res.history))


def path_master(oracle: Any, nu: float, sample_weight: Any = None) -> "LPBoost | MulticlassLPBoost":
    """LPBoost at nu, or the multiclass LP for an oracle over K > 2 classes (its ``n_classes``)."""
    n_classes = getattr(oracle, "n_classes", 2)
    if n_classes > 2:
        return MulticlassLPBoost(nu, n_classes, sample_weight=sample_weight)
    return LPBoost(nu, sample_weight=sample_weight)


class NuPathRun:
    """LPBoost's live master moved from one nu to the next on request (what :func:`nu_path` steps).

    ``solve(nu)`` continues column generation at ``nu`` from everything found
    so far (session, basis, columns, oracle) and returns that nu's
    :class:`~lpboosting.colgen.ColumnGenerationResult`; callers that decide
    after each nu whether to go on (early stopping on a validation score,
    :class:`~lpboosting.estimators.LPBoostCV`) step it themselves.
    ``hypotheses`` is the growing list the results' weights refer to.
    """

    def __init__(self, oracle: Any, options: LoopOptions | None = None, *, sample_weight: Any = None,
                 backend: Any = None, **loop_options: Any) -> None:
        self.oracle, self.sample_weight, self.backend = oracle, sample_weight, backend
        # the loop's options at every nu: PATH_OPTIONS (20 columns a round, smoothing) unless given
        base = PATH_OPTIONS if options is None else options
        self.options = base.replace(**loop_options) if loop_options else base
        self.master: LPBoost | MulticlassLPBoost | None = None
        self.state: Any = None
        self.results: list[ColumnGenerationResult] = []

    @property
    def hypotheses(self) -> list[Any]:
        if self.state is not None:
            return list(self.state.hypotheses)
        return list(self.results[-1].hypotheses) if self.results else []

    def solve(self, nu: float, time_limit: float | None = None) -> ColumnGenerationResult:
        """Column generation at ``nu``, warm from the previous nu (the first nu starts afresh).

        ``time_limit`` (seconds) bounds this nu's run, below the options' own
        time limit (which bounds every nu)."""
        nu = check_nu(nu)
        options = self.options
        if time_limit is not None and (options.time_limit is None or time_limit < options.time_limit):
            options = options.replace(time_limit=float(time_limit))
        if self.master is None:
            self.master = path_master(self.oracle, nu, self.sample_weight)
            # this nu's time_limit bounds its run; the session, which the next nus go on in, has
            # the path's own (HiGHS's counts every run of the model)
            result = column_generation(self.master, self.oracle, options, backend=self.backend,
                                       session_deadline=Deadline(self.options.time_limit))
            result.history.meta["nu"] = nu
        else:
            state = self.state
            if state is None or state.best is None:
                last = self.results[-1]
                raise RuntimeError(f"the path stopped at nu={last.history.meta['nu']}: {last.message}")
            self.master.nu = nu
            try:
                state.session.refresh_caps()
            except NotImplementedError:  # a session that cannot move its caps: a new run, same columns
                result = column_generation(self.master, self.oracle, options, backend=self.backend,
                                           initial_columns=self.results[-1])
            else:
                # what depends on nu starts afresh; the session, the columns and the oracle go on
                state.restart(options, nu=nu, params=self.master.params(), path_columns=state.n_columns)
                result = continue_run(state)
            result.history.meta["nu"] = nu
        self.state = result.state
        self.results.append(result)
        return result


def nu_path(nus: Sequence[float], oracle: Any, *, sample_weight: Any = None, backend: Any = None,
            tol: float = 1e-6, max_rounds: int = 1000, columns_per_round: int = 20,
            stabilization: Any = "smoothing", stall_rounds: int | None = None,
            time_limit: float | None = None) -> NuPath:
    """LPBoost solved at each nu of ``nus`` in turn, warm-started (see the module docstring).

    ``oracle`` is a pricing oracle over the training data (e.g.
    ``Stumps(X, y)``); the other options are :func:`column_generation`'s,
    for every nu (``max_rounds`` and ``time_limit`` per nu).  The nus are
    solved in the order given; any order gives the same optima (going from
    large to small nu moves from the smoother, cheaper problems to the
    harder ones, and is what :class:`~lpboosting.estimators.LPBoostCV` does).
    :class:`NuPathRun` steps the same path one nu at a time.

    Ctrl-C ends the path at the nu being solved: the result holds the nus
    solved so far, the last one's run with status ``"interrupted"`` (its last
    master solved, as :func:`column_generation` keeps it).
    """
    nus = np.asarray([check_nu(nu) for nu in nus], dtype=float)
    if nus.size == 0:
        raise ValueError("nus is empty; give at least one nu in (0, 1]")
    options = LoopOptions(tol=tol, max_rounds=max_rounds, columns_per_round=columns_per_round,
                          stabilization=stabilization, stall_rounds=stall_rounds, time_limit=time_limit)
    run = NuPathRun(oracle, options, sample_weight=sample_weight, backend=backend)
    for nu in nus:
        if run.solve(float(nu)).status == "interrupted":
            break
    return NuPath(nus=nus[:len(run.results)], results=run.results, hypotheses=run.hypotheses)
