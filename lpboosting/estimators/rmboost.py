"""scikit-learn classifier for RMBoost (robust minimax boosting, NeurIPS 2025)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from lpboosting.columns import weighted_sum
from lpboosting.estimators.base import ColumnGenerationClassifier, shared_doc
from lpboosting.stacklevel import caller_level
from lpboosting.masters.pool import ColumnPool
from lpboosting.masters.rmboost import RMBoost
from lpboosting.params import Explain, Integral, Interval, Real


@shared_doc
class RMBoostClassifier(ColumnGenerationClassifier):
    """RMBoost: the rule of minimum worst-case error probability, fitted by column generation.

    Solves the minimax-risk LP (eq. 6/16 of *Robust minimax boosting*,
    NeurIPS 2025) over the base rules chosen by the oracle::

        R = min_mu 1/2 - tau^T mu + lam ||mu||_1   s.t.  -1/2 <= h(x_i)^T mu <= 1/2,

    tau = (1/n) sum_i y_i h(x_i), by Algorithm 1 of the paper: each round the
    dual (17) of the restricted LP gives the signed weighting
    d_i = 1/n - (alpha'_i - beta'_i) (w_i = |d_i|, ytilde_i = y_i sign(d_i),
    eq. 19) and the oracle returns the base rule maximising
    sum_i w_i ytilde_i h(x_i); the fit stops when that is <= lam + tol.  See
    :class:`lpboosting.masters.RMBoost` for the primal, the dual and the sign
    conventions.  The optimum R (``minimax_risk_``) bounds the error
    probability of the randomised rule under every distribution of the
    uncertainty set (Theorem 1) and the training error of both rules.

    Parameters
    ----------
    lam : float > 0 or None, default None
        Regularisation / uncertainty-set size; None = 1/sqrt(n) (the paper's
        default; not chosen by cross-validation, measured: docs/defaults.md).
        At large n it is small and the LP takes many rules; a larger lam
        converges in fewer rounds (measured: docs/user-guide.md, "Large N").
    oracle : {"trees", "hist-trees", "stumps", "features"} or callable, default "trees"
        Base learner.  "trees" are CART trees with at most ``max_leaf_nodes``
        leaves ("hist-trees": trees of that size grown on binned features);
        a callable ``fn(X, y, d)`` returns a hypothesis with ``predict(X)``
        in [-1, 1] (y is -1/+1, d is the *signed* weighting).
    oracle_params : dict, optional
        Keyword arguments of the oracle (for "trees" and "hist-trees" they
        override ``max_leaf_nodes`` and ``max_depth=None``).
    max_leaf_nodes : int >= 2 or None, default 3
        Leaves of the trees (only used with ``oracle="trees"`` or
        ``"hist-trees"``).  With 3 leaves the fits converge where the
        paper's 10 do not: the greedy tree finds, at every optimal dual, a
        rule that violates (17) without lowering R (measured:
        docs/defaults.md).  Larger trees give a lower R
        (a tighter bound) and on some sets a lower test error; pass e.g.
        ``max_leaf_nodes=10`` and expect a ConvergenceWarning at ``max_rounds``.
    backend : str, Backend or None, default None
        None is the master's default, "highspy:ipm" (HiGHS's interior point
        without crossover): its duals are *central*, a point inside the
        optimal dual face.  The master is degenerate (most margins sit at
        +-1/2), and the vertex duals of a simplex ("dedicated", "highspy",
        "cvxpy:HIGHS") keep pricing rules that violate (17) at that vertex
        but not at other optimal duals, so R never moves and the fit does
        not stop (with stumps on breast cancer: no convergence in 2000
        rounds, against 53 with central duals, to the same R).  Above 500
        training rows the HiGHS model keeps only the examples' margin rows at
        or near +-1/2 (sifting, checked on every row).  The others:
        "dedicated" (lpboosting's dense dual simplex on the dual (17), warm
        started, every answer checked), "highspy" (one live HiGHS model of
        (16), simplex, warm started) or "cvxpy:SOLVER" (the statement rebuilt
        each round).
    prune : bool or ColumnPool, default False
        True removes base rules whose dual constraints are strictly satisfied
        (Algorithm 1, Steps 14-16; a rule removed once stays when it comes
        back).  A :class:`~lpboosting.masters.pool.ColumnPool` removes them by
        another policy (after K inactive solves, at most m times).  The
        default keeps every rule: at the central duals removal deletes the
        rules that must act together to move R from the best single rule,
        and the fits need more rounds (measured: docs/defaults.md).
    {loop_parameters}
    {shared_parameters}

    Attributes
    ----------
    classes_, minimax_risk_ (= objective_, R of the last master), weights_
    (mu, signed, one entry per base rule added; 0 for removed ones),
    hypotheses_, distribution_ (signed weighting d), lam_ (the lam used),
    history_ (each record's ``extra`` holds ``risk``, ``removed``, ``active``),
    n_rounds_, status_, result_, estimators_, estimator_weights_,
    n_estimators_ (the rules of nonzero weight), feature_importances_
    (|mu| mass per feature), one_vs_rest_ (more than two classes).
    ``fit`` takes ``sample_weight`` (tau = U^T p, d = p - (alpha - beta), a
    row of weight 0 dropped; with ``lam=None``, lam = 1/sqrt(sum of the
    weights)).

    Notes
    -----
    The minimax LP is sparse, often down to one base rule: if some training
    example is classified correctly by every rule of positive weight, its
    constraint gives ||mu||_1 <= 1/2, so R >= 1/2 - (max_j tau_j - lam)/2,
    which the best single rule (mu_j = 1/2) attains.  With lam = 1/sqrt(n)
    the converged fits measured on breast cancer and Pima use one rule (or
    several equally good ones); more rules need rules that err on disjoint
    examples or a smaller lam.

    Prediction: ``decision_function(X) = h(x)^T mu``; ``predict`` is its sign
    (positive -> ``classes_[1]``, 0 or negative -> ``classes_[0]``);
    ``predict_proba`` is the randomised rule h(y|x) = clip(y h(x)^T mu + 1/2, 0, 1)
    with columns ordered as ``classes_``.
    """

    _parameter_constraints: dict[str, Any] = {
        **ColumnGenerationClassifier._parameter_constraints,
        "lam": [Interval(Real, 0, None, closed="neither"), None],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "prune": ["boolean", ColumnPool],
    }
    _parameter_messages = {
        "lam": Explain(
            what="a finite number > 0 (or None for 1/sqrt(n))",
            advice="it bounds the deviation of the expectations of the base rules in the uncertainty "
                   "set (eq. 5); the paper's default is lam = 1/sqrt(n) (pass lam=None)",
        ),
        "max_leaf_nodes": Explain(advice="the default 3 converges on the sets measured; the paper "
                                         "uses trees with 10 leaves"),
    }

    _stop_rule = "The fit stops when the best new edge is at most lam + tol."

    #: the margins of the training rows at the bound are +-1/2 to the interior point's tolerance
    #: (1e-10; 2e-11 apart measured on scikit-learn's blobs): rounded to 9 decimals they are
    #: +-1/2 exactly, so one-vs-rest models at the bound tie exactly and argmax of the decisions,
    #: of the probabilities and ``predict`` choose the same class
    decision_decimals: int = 9

    def __init__(
        self,
        lam: float | None = None,
        oracle: str | Callable[..., Any] = "trees",
        oracle_params: dict[str, Any] | None = None,
        max_leaf_nodes: int | None = 3,
        backend: "str | None" = None,
        tol: float = 1e-6,
        max_rounds: int = 1000,
        prune: bool = False,
        callback: Callable[..., Any] | None = None,
        columns_per_round: int = 1,
        stabilization: Any = None,
        time_limit: float | None = None,
        stall_rounds: int | None = None,
        warm_start: bool = False,
        verbose: int = 0,
        random_state: Any = None,
        n_jobs: int | None = None,
    ) -> None:
        self.lam = lam
        self.oracle = oracle
        self.oracle_params = oracle_params
        self.max_leaf_nodes = max_leaf_nodes
        self.backend = backend
        self.tol = tol
        self.max_rounds = max_rounds
        self.prune = prune
        self.callback = callback
        self.columns_per_round = columns_per_round
        self.stabilization = stabilization
        self.time_limit = time_limit
        self.stall_rounds = stall_rounds
        self.warm_start = warm_start
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_master(self, n_samples: int, sample_weight=None) -> RMBoost:
        return RMBoost(self.lam, prune=self.prune, sample_weight=sample_weight)

    def _oracle_params(self, oracle: Any = None, oracle_params: dict | None = None) -> dict[str, Any]:
        params = super()._oracle_params(oracle, oracle_params)
        spec = self._oracle_spec() if oracle is None else oracle
        if isinstance(spec, str) and spec.strip().lower() in ("trees", "hist-trees"):
            params = {"max_depth": None, "max_leaf_nodes": self.max_leaf_nodes, **params}
        return params

    def _store_extra(self, result) -> None:
        self.minimax_risk_ = self.objective_
        self.lam_ = float(result.solution.gamma)
        self._warn_if_constant(result)

    def _warn_if_constant(self, result) -> None:
        """One warning when the optimum's vote h(x)^T mu is the same on every training row.

        No second stage is needed (unlike LPBoost's degenerate face): with lam > 0 such an optimum
        is the only one but for ties.  mu = 0 (R = 1/2) is optimal exactly when |tau_j| <= lam for
        every rule, and then any other optimum puts its weight on rules with |tau_j| = lam exactly;
        a constant vote with mu != 0 is the constant rule (the majority class), chosen because no
        rule's expected margin beats it by lam.
        """
        if result.columns.shape[1] == 0 or self.status_ in ("solver_error", "interrupted"):
            return
        y = getattr(self._oracle, "y", None)
        if y is None:
            return
        used = np.flatnonzero(self.weights_)
        vote = np.asarray(y, dtype=float) * weighted_sum(result.columns, used, self.weights_[used])
        if np.ptp(vote) > 1e-9:
            return
        lam = self.lam_
        zero = bool(np.all(np.abs(self.weights_) <= RMBoost.zero_tol))
        if zero:  # mu = 0 up to the solver's tolerance: exactly, so that the vote is 0 and not noise
            self.weights_ = np.zeros_like(self.weights_)
        what = ("mu = 0 and R = 1/2: no base rule's expected margin tau_j exceeds lam"
                if zero else "its weight is on rules that vote the same on every row")
        warnings.warn(f"{type(self).__name__}: the minimax LP's optimum gives every training row the same "
                      f"vote ({what}, lam={lam:.3g}); the classifier predicts one class. A smaller lam "
                      "(the uncertainty set's size; None is 1/sqrt(n)), stronger base rules "
                      "(max_leaf_nodes) or more training rows let a rule count",
                      ConvergenceWarning, stacklevel=caller_level())

    def predict_proba(self, X: Any) -> np.ndarray:
        """The randomised minimax rule (eq. 7-8): P(y|x) = clip(y h(x)^T mu + 1/2, 0, 1).

        Column k is the probability of ``classes_[k]`` (y = -1 for
        ``classes_[0]``, +1 for ``classes_[1]``); the rows sum to one.  With
        more than two classes each one-vs-rest model's probability of its
        class, normalised over the classes (uniform where all are 0); ``predict``
        is then the class of largest probability.
        """
        return self._proba(self.decision_function(X))

    def _proba(self, decision: np.ndarray) -> np.ndarray:
        positive = np.clip(decision + 0.5, 0.0, 1.0)
        if decision.ndim == 1:
            return np.column_stack([1.0 - positive, positive])
        total = positive.sum(axis=1, keepdims=True)
        uniform = np.full_like(positive, 1.0 / positive.shape[1])
        return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)

    def _class_scores(self, decision: np.ndarray) -> np.ndarray:
        """More than two classes: ``predict`` is the class of largest probability (the randomised
        rule's, which saturates at 1), by the tie rule of every classifier."""
        return self._proba(decision)
