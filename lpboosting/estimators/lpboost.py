"""scikit-learn classifier for LPBoost."""

from __future__ import annotations

from typing import Any, Callable

from lpboosting.estimators.base import NU, NU_MESSAGE, ColumnGenerationClassifier, shared_doc
from lpboosting.masters.base import Master
from lpboosting.masters.lpboost import LPBoost
from lpboosting.masters.multiclass import MulticlassLPBoost
from lpboosting.masters.pool import ColumnPool
from lpboosting.params import StrOptions

#: the constraint of ``multiclass`` (LPBoostClassifier, LPBoostCV)
MULTICLASS = [StrOptions({"native", "one-vs-rest"})]


@shared_doc
class LPBoostClassifier(ColumnGenerationClassifier):
    """LPBoost (soft-margin LP boosting) fitted by column generation.

    Solves max rho - 1/(nu N) sum psi over convex combinations w of the
    oracle's hypotheses (see :class:`lpboosting.masters.LPBoost` for the
    primal and dual) by adding the hypotheses of largest edge each round.
    The defaults ``columns_per_round=20`` with ``stabilization="smoothing"``
    are the fastest setting measured (docs/defaults.md); with an exact
    oracle the stop is certified.

    Parameters
    ----------
    nu : float in (0, 1] or "auto", default "auto"
        Soft-margin parameter: the distribution is capped at 1/(nu N); at
        most a fraction nu of the examples can have margin below rho, so nu
        should exceed the fraction of wrong labels.  "auto" (the default)
        chooses it by 3-fold cross-validation over
        :data:`~lpboosting.estimators.cv.DEFAULT_NUS` along the warm nu path
        (as :class:`LPBoostCV` with this oracle; ``nu_`` holds the choice):
        no fixed nu is good on every set and noise level, and below the
        data's noise rate the LP is degenerate, slow and its optimum near the
        constant vote (measured: docs/defaults.md).  A number fits that one
        stated LP (the papers' examples use 0.1).
    oracle : {"stumps", "binned-stumps", "features", "trees", "hist-trees", "gb-trees"} or callable, default "stumps"
        Pricing oracle ("binned-stumps": thresholds at up to 255 count-quantile
        bin edges a feature, exact over that class; for N in the millions;
        "gb-trees": the trees of a gradient-boosted forest fitted once, a
        finite pool the LP weights); a callable ``fn(X, y, d)`` returns a hypothesis with
        ``predict(X)`` in [-1, 1] (labels y are -1/+1).
    oracle_params : dict, optional
        Keyword arguments for the oracle (e.g. ``{"max_depth": 2}`` for trees).
    backend : str, Backend or None, default None
        Master backend; None is the master's default, "highspy" (incremental
        HiGHS); or "cvxpy:SOLVER".
    {loop_parameters}
    pool : ColumnPool, dict or None, default None
        Column management (:mod:`lpboosting.masters.pool`): e.g.
        ``ColumnPool(inactive_rounds=10, max_removals=2)`` deletes a
        hypothesis from the master once it has had zero weight and a slack
        edge constraint for 10 solves; it re-enters when priced again.  The
        optimum is the same; ``weights_`` keeps one entry per hypothesis
        added (0 for deleted ones).  None (the default) keeps every
        hypothesis (a pool changed the time little, measured: docs/defaults.md);
        a pool bounds the master's size on long runs.
    multiclass : {"native", "one-vs-rest"}, default "native"
        More than two classes: "native" fits one LP over all of them
        (:class:`lpboosting.masters.MulticlassLPBoost`: the multiclass
        margin, the true class's vote against the best other class's, one
        distribution over (example, wrong class) pairs), with hypotheses that
        vote for a class (oracles "stumps", "trees", "gb-trees" or a callable
        ``fn(X, y, scores)``: :mod:`lpboosting.oracles.multiclass`);
        "one-vs-rest" fits K binary LPs (``one_vs_rest_``).
    {shared_parameters}

    Attributes
    ----------
    classes_, history_, objective_ (soft margin rho - sum_n c_n psi_n),
    weights_, distribution_, hypotheses_, n_rounds_, status_, result_,
    {shared_attributes}

    With more than two classes fitted natively, ``decision_function`` gives
    the weighted votes (n, K), ``predict_proba`` the same votes (they sum to
    1), ``margins(X, y)`` the multiclass margins, and ``distribution_`` the
    (n, K) table of d over the pairs (0 at each row's true class).
    """

    _parameter_constraints: dict[str, Any] = {**ColumnGenerationClassifier._parameter_constraints, "nu": NU,
                                              "pool": [None, dict, ColumnPool], "multiclass": MULTICLASS}
    _parameter_messages = {"nu": NU_MESSAGE}
    _warm_path = True
    _choose_on_path = True
    _second_stage = True
    _stop_rule = "The fit stops when the best new edge is at most gamma* + tol."

    def __init__(
        self,
        nu: "float | str" = "auto",
        oracle: str | Callable[..., Any] = "stumps",
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
        n_jobs: int | None = None,
        multiclass: str = "native",
    ) -> None:
        self.nu = nu
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
        self.n_jobs = n_jobs
        self.multiclass = multiclass

    def _make_master(self, n_samples: int, sample_weight=None) -> Master:
        if self._native_fit:
            return MulticlassLPBoost(self._nu(), len(self.classes_), pool=self.pool, sample_weight=sample_weight)
        return LPBoost(self._nu(), pool=self.pool, sample_weight=sample_weight)
