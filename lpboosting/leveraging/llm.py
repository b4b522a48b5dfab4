"""LLM: the Leveraging Logistic Mixture of Krause & Singer (ICML 2004), Figure 1.

Krause, N. and Singer, Y., *Leveraging the margin more carefully*, ICML 2004
(``papers/000_63e15bd29f175ac2.txt``), Sec. 2.

Model (Sec. 2.1).  The noise-free label t is logistic in the margin,
P(t|x) = 1 / (1 + exp(-t lambda.x)), and the observed label is t flipped with
probability epsilon.  With M_ij = y_i h_j(x_i) (h_j the weak hypotheses) and
z_i = [M lambda]_i the margin of example i, the negative log-likelihood of the
observed labels -- the *logistic mixture loss* -- is::

    L_LM(lambda, eps) = - sum_i ln( (1 - eps) / (1 + e^{-z_i}) + eps / (1 + e^{z_i}) ).

LLM minimises it by generalised EM: the E-step gives the posterior noise
probability of every example, alpha_i = eps / (eps + (1 - eps) e^{z_i}); the
approximate M-step is ONE boosting step (Collins, Schapire & Singer 2002) on
the weighted logistic loss of 2m examples -- (x_i, y_i) with weight 1 - alpha_i
and (x_i, -y_i) with weight alpha_i (eq. 2) -- written with the W+/W- split of
Figure 1.  Lemma 2.1: each step increases Q, so L_LM never increases.

This module also holds the machinery shared with LLD (:mod:`.lld`) and the
plain log-loss boosting baseline :class:`LogLossBoostClassifier`.
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from lpboosting.colgen.history import History, RoundRecord
from lpboosting.errors import UnknownOracleError
from lpboosting.estimators.base import DecisionClassifierMixin, caller_level, weighted_importances
from lpboosting.estimators.evaluation import with_eval_set
from lpboosting.estimators.classifier import N_JOBS
from lpboosting.estimators.interrupt import CtrlC
from lpboosting.leveraging._common import VERBOSE, Booster, print_round, training_data, warn_interrupted
from lpboosting.losses import LogisticMixtureLoss
from lpboosting.oracles import ORACLES, Features, ScaledFeature, Stump, Stumps, make_oracle
from lpboosting.params import (
    Explain,
    Integral,
    Interval,
    Names,
    Real,
    check_params,
    deprecated_alias,
    renamed_parameter,
)

__all__ = [
    "LEVERAGING_ORACLES", "LLMClassifier", "LogLossBoostClassifier", "MODES",
    "llm_negative_log_likelihood", "log_loss", "llm_split_weights",
]

#: template sets A of the paper: "parallel" A = {(1, ..., 1)}, "sequential" A = {e_j}
MODES = ("parallel", "sequential")
#: the oracle classes of the registry (:data:`lpboosting.oracles.ORACLES`) the leveraging
#: rounds can use, and what each offers.  A round needs W+/W- of *every* candidate
#: hypothesis: Features is a finite matrix M (any template set); Stumps prices every stump
#: exactly from cumulative sums (one hypothesis per round).  A heuristic oracle that returns
#: one hypothesis (Trees) cannot give these sums.
LEVERAGING_ORACLES: dict[type, str] = {
    Features: "the scaled coordinates, any mode",
    Stumps: "exact decision stumps, mode='sequential'",
}

# relative smoothing of W+/W- in d_j = 1/2 ln(W+/W-): keeps the step finite when
# W- = 0 (a hypothesis right on every example).  The smoothed d lies between 0
# and the exact d, where the progress bound of Lemma 2.1 is still >= 0.
_SMOOTH = 1e-10
# stumps whose |edge| is within _TIE times the total weight of the best one count as tied
# (rounding: the same column summed along two features' orders); ties go to the lowest
# feature, then the lowest threshold, whatever the number or order of the rows
_TIE = 1e-11


def _softplus(x: np.ndarray) -> np.ndarray:
    """ln(1 + e^x), stable for any x."""
    return np.logaddexp(0.0, x)


def _weighted_sum(values: np.ndarray, sample_weight: np.ndarray | None) -> float:
    if sample_weight is None:
        return float(np.sum(values))
    return float(np.sum(np.asarray(sample_weight, dtype=float) * values))


def log_loss(margins: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
    """The log-loss sum_i s_i ln(1 + e^{-z_i}) of Collins, Schapire & Singer (2002) (s_i = 1 by default)."""
    return _weighted_sum(_softplus(-np.asarray(margins, dtype=float)), sample_weight)


def llm_negative_log_likelihood(margins: np.ndarray, epsilon: float,
                                sample_weight: np.ndarray | None = None) -> float:
    """L_LM = -sum_i s_i ln((1 - eps) sigma(z_i) + eps sigma(-z_i)), z_i = y_i f(x_i) (Sec. 2.1).

    The (weighted) sum of :class:`lpboosting.losses.LogisticMixtureLoss`;
    ``epsilon = 0`` gives the log-loss.  s_i = 1 by default; an integer
    weight s_i is the loss of s_i copies of example i.
    """
    return _weighted_sum(LogisticMixtureLoss(epsilon)(np.asarray(margins, dtype=float)), sample_weight)


def llm_split_weights(Wt_plus, Wt_minus, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """W+ = W~+ + eps/(1-eps) W~-,  W- = W~- + eps/(1-eps) W~+  (Figure 1).

    W~+_j = sum_{i: M_ij > 0} (1 - alpha_i) q_i |M_ij| and W~-_j the same over
    M_ij < 0.  The split holds because (1 - alpha_i) q_i = (1-eps)/eps *
    alpha_i (1 - q_i) when alpha and q come from the same (lambda, eps).
    """
    r = epsilon / (1.0 - epsilon)
    Wt_plus = np.asarray(Wt_plus, dtype=float)
    Wt_minus = np.asarray(Wt_minus, dtype=float)
    return Wt_plus + r * Wt_minus, Wt_minus + r * Wt_plus


def _half_log_ratio(Wp: np.ndarray, Wm: np.ndarray) -> np.ndarray:
    """d = 1/2 ln(W+/W-), smoothed so that it stays finite (0 when W+ = W- = 0)."""
    kappa = _SMOOTH * (Wp + Wm) + np.finfo(float).tiny
    return 0.5 * (np.log(Wp + kappa) - np.log(Wm + kappa))


# --------------------------------------------------------------------------------------
# weak-hypothesis problems: the matrix M, kept implicit for stumps
# --------------------------------------------------------------------------------------


class _FeatureBasis:
    """The Features oracle's hypotheses h_j(x) = 2 (x_j - low_j) / (high_j - low_j) - 1.

    Unlike :class:`~lpboosting.oracles.ScaledFeature` the map is not clipped
    outside the training range, so the model stays the linear classifier
    sign(lambda . h(x)) of the paper.  Constant features give h_j = 0.  With
    ``intercept`` a constant hypothesis h = 1 is appended.
    """

    def __init__(self, low: np.ndarray, high: np.ndarray, intercept: bool) -> None:
        self.low = np.asarray(low, dtype=float)
        span = np.asarray(high, dtype=float) - self.low
        self.constant = span <= 0
        self.span = np.where(self.constant, 1.0, span)
        self.intercept = bool(intercept)

    @property
    def n_columns(self) -> int:
        return self.low.size + int(self.intercept)

    def transform(self, X: np.ndarray) -> np.ndarray:
        H = 2.0 * (np.asarray(X, dtype=float) - self.low) / self.span - 1.0
        H[:, self.constant] = 0.0
        if self.intercept:
            H = np.hstack([H, np.ones((H.shape[0], 1))])
        return H

    @property
    def hypotheses(self) -> list[ScaledFeature]:
        """The features' hypotheses as the Features oracle's (which say the feature they use);
        the intercept uses none and is not among them."""
        return [ScaledFeature(j, float(lo), float(lo if c else lo + s), 1.0)
                for j, (lo, s, c) in enumerate(zip(self.low, self.span, self.constant))]

    def state(self) -> dict[str, Any]:
        """What :meth:`restore` needs (the arrays as fitted, so that a restored basis maps X alike)."""
        return {"low": self.low, "span": self.span, "constant": self.constant, "intercept": self.intercept}

    @classmethod
    def restore(cls, state: dict[str, Any]) -> "_FeatureBasis":
        basis = cls.__new__(cls)
        basis.low = np.asarray(state["low"], dtype=float)
        basis.span = np.asarray(state["span"], dtype=float)
        basis.constant = np.asarray(state["constant"], dtype=bool)
        basis.intercept = bool(state["intercept"])
        return basis


class _StumpPool:
    """The stumps chosen so far (sign +1; their coefficients carry the sign)."""

    def __init__(self) -> None:
        self.hypotheses: list[Stump] = []
        self._index: dict[tuple[int, float], int] = {}

    def add(self, stump: Stump) -> int:
        key = (stump.feature, stump.threshold)
        if key not in self._index:
            self._index[key] = len(self.hypotheses)
            self.hypotheses.append(stump)
        return self._index[key]

    @property
    def n_columns(self) -> int:
        return len(self.hypotheses)

    def transform(self, X: np.ndarray) -> np.ndarray:
        if not self.hypotheses:
            return np.zeros((np.asarray(X).shape[0], 0))
        return np.column_stack([h.predict(X) for h in self.hypotheses])


class _FeatureProblem:
    """M = y h(x) over the (scaled) features: every candidate is a column of M.

    ``path`` logs the steps (a vector of deltas a round in parallel mode,
    ``(j, delta)`` in sequential mode) so that the model after every round can
    be rebuilt exactly (``staged_decision_function``).
    """

    def __init__(self, oracle: Features, X: np.ndarray, y: np.ndarray, intercept: bool) -> None:
        self.basis = _FeatureBasis(oracle.low, oracle.high, intercept)
        self.y = y
        H = oracle.H if not intercept else np.hstack([oracle.H, np.ones((X.shape[0], 1))])
        self.M = y[:, None] * H
        # [max(M, 0), max(-M, 0)]: both split sums in one product
        self._Msplit = np.hstack([np.maximum(self.M, 0.0), np.maximum(-self.M, 0.0)])
        self.coef = np.zeros(self.M.shape[1])
        self.margins = np.zeros(X.shape[0])
        self.path: list[Any] = []

    # sums over examples, one value per candidate
    def split_sums(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(sum_{M_ij>0} b_i |M_ij|, sum_{M_ij<0} b_i |M_ij|) for every column j."""
        both = b @ self._Msplit
        n = self.M.shape[1]
        return both[:n], both[n:]

    def signed_sums(self, v: np.ndarray) -> np.ndarray:
        """sum_i M_ij v_i for every column j."""
        return v @ self.M

    def abs_max(self) -> np.ndarray:
        """max_i |M_ij| per column."""
        return np.abs(self.M).max(axis=0)

    def sq_norms(self, weight: np.ndarray) -> np.ndarray:
        """sum_i s_i M_ij^2 per column."""
        return weight @ (self.M * self.M)

    def row_l1_max(self) -> float:
        """max_i sum_j |M_ij| (the parallel template needs sum_j a_j |M_ij| <= 1)."""
        return float(np.abs(self.M).sum(axis=1).max())

    def pick(self, gain: np.ndarray) -> int:
        """The candidate of largest gain (the first one on ties)."""
        return _nan_argmax(gain)

    def step_all(self, delta: np.ndarray) -> None:
        self.coef += delta
        self.margins += self.M @ delta
        self.path.append(delta)

    def step_one(self, j: int, delta: float) -> int:
        self.coef[j] += delta
        self.margins += delta * self.M[:, j]
        self.path.append((j, delta))
        return j

    def restore(self, coef: np.ndarray, margins: np.ndarray, path: list[Any], hypotheses: Any) -> None:
        """Continue from a fitted model (same data): its coefficients, training margins and steps."""
        self.coef = np.array(coef, dtype=float)
        self.margins = np.array(margins, dtype=float)
        self.path = list(path)

    def n_used(self) -> int:
        """Hypotheses with a nonzero coefficient."""
        return int(np.count_nonzero(self.coef))

    def model(self):
        return self.basis, self.coef.copy()


class _StumpProblem:
    """M = y h(x) over every decision stump, kept implicit.

    A candidate is a split k = 0..N of the presorted feature j (the stump
    h(x) = +1 if x_j > theta_k else -1; its negation is the same candidate
    with a negative coefficient).  For weights b >= 0 on the examples,
    W~+ (examples the stump gets right) and W~- (wrong) follow from the stump
    oracle's cumulative-sum edges e = sum_i b_i y_i h(x_i) = W~+ - W~- and the
    total T = sum_i b_i = W~+ + W~-:  W~+ = (T + e)/2, W~- = (T - e)/2.  One
    call prices all (N+1) x F stumps exactly, in O(N F) after the presort.

    Every criterion of the rounds (LLM's (sqrt W+ - sqrt W-)^2, LLD's W_j^2)
    grows with |e| at fixed T, so :meth:`pick` chooses by |e|: the stumps
    within ``_TIE * sum_i |b_i|`` of the largest |e| are tied, and the tie
    goes to the lowest feature, then the lowest threshold.  That choice does
    not depend on how many rows hold a value (duplicated rows or integer
    sample weights give the same stump) or on rounding in the sums.
    """

    def __init__(self, oracle: Stumps, X: np.ndarray, y: np.ndarray) -> None:
        self.oracle = oracle
        self.X = X
        self.y = y
        self._sorted = np.sort(X, axis=0)
        self.pool = _StumpPool()
        self.coef: list[float] = []
        self.margins = np.zeros(X.shape[0])
        self.shape = (X.shape[0] + 1, X.shape[1])
        self.path: list[Any] = []
        self._edges: np.ndarray | None = None
        self._scale = 0.0

    def split_sums(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = self.oracle.edges(b).ravel()  # NaN for splits inside ties
        total = float(b.sum())
        self._edges, self._scale = e, total
        return 0.5 * (total + e), 0.5 * (total - e)

    def signed_sums(self, v: np.ndarray) -> np.ndarray:
        e = self.oracle.edges(v).ravel()
        self._edges, self._scale = e, float(np.abs(v).sum())
        return e

    def abs_max(self) -> np.ndarray:
        return np.ones(self.shape[0] * self.shape[1])

    def sq_norms(self, weight: np.ndarray) -> np.ndarray:
        return np.full(self.shape[0] * self.shape[1], float(weight.sum()))

    def pick(self, gain: np.ndarray) -> int:
        """The stump of largest |edge| under the weights of the last sums (ties: see the class doc)."""
        a = np.abs(self._edges)  # NaN for splits inside ties
        top = float(np.fmax.reduce(a))  # NaN skipped
        if np.isnan(top):
            return _nan_argmax(gain)
        flat = np.flatnonzero(a >= top - _TIE * self._scale)
        k, j = np.divmod(flat, self.shape[1])
        best = np.lexsort((k, j))[0]  # the lowest feature, then the lowest threshold
        return int(flat[best])

    def threshold(self, k: int, j: int) -> float:
        n = self.X.shape[0]
        if k == 0:
            return -np.inf
        if k == n:
            return np.inf
        lo, hi = self._sorted[k - 1, j], self._sorted[k, j]
        mid = lo + (hi - lo) / 2.0
        return float(mid if lo <= mid < hi else lo)

    def stump(self, flat: int) -> Stump:
        k, j = np.unravel_index(int(flat), self.shape)
        return Stump(int(j), self.threshold(int(k), int(j)), 1.0)

    def step_one(self, flat: int, delta: float) -> int:
        stump = self.stump(flat)
        idx = self.pool.add(stump)
        if idx == len(self.coef):
            self.coef.append(0.0)
        self.coef[idx] += delta
        self.margins += delta * self.y * stump.predict(self.X)
        self.path.append((idx, delta))
        return idx

    def restore(self, coef: np.ndarray, margins: np.ndarray, path: list[Any], hypotheses: Any) -> None:
        for h in hypotheses:
            self.pool.add(h)
        self.coef = [float(c) for c in coef]
        self.margins = np.array(margins, dtype=float)
        self.path = list(path)

    def n_used(self) -> int:
        """Hypotheses with a nonzero coefficient."""
        return int(np.count_nonzero(self.coef))

    def model(self):
        return self.pool, np.asarray(self.coef, dtype=float)


def _nan_argmax(score: np.ndarray) -> int:
    s = np.where(np.isnan(score), -np.inf, score)
    return int(np.argmax(s))


# --------------------------------------------------------------------------------------
# shared estimator machinery
# --------------------------------------------------------------------------------------

_ROUNDS = [Interval(Integral, 1, None, closed="left")]


def _resolve_oracle(estimator: "LeveragingClassifier") -> str:
    """The registry name of ``estimator.oracle``, if its oracle class is one the rounds can use."""
    name = estimator.oracle
    key = name.strip().lower()
    if ORACLES.get(key) not in LEVERAGING_ORACLES:
        usable = sorted(n for n, cls in ORACLES.items() if cls in LEVERAGING_ORACLES)
        choices = " or ".join(f"{n!r} ({LEVERAGING_ORACLES[ORACLES[n]]})" for n in usable)
        raise UnknownOracleError(
            f"unknown oracle {name!r} for {type(estimator).__name__}; choose {choices}: a "
            "leveraging round needs W+/W- of every candidate hypothesis, which only these oracles "
            "of lpboosting.oracles.ORACLES give"
        )
    return key


class _Run:
    """What a run of rounds needs besides the problem and the history: the Ctrl-C guard, the
    per-round report, and the state that outlives an interrupted round (LLM's eps)."""

    def __init__(self, ctrl_c: CtrlC | None, report, eps: float | None = None) -> None:
        self.ctrl_c = ctrl_c
        self.report = report
        self.eps = eps


def _staged_linear(H: np.ndarray, path: list[Any], final: np.ndarray,
                   chunk: int = 64) -> Iterator[np.ndarray]:
    """H lambda_t for t = 1..T, lambda_t rebuilt from the logged steps (a vector of deltas, or
    ``(j, delta)``) with the very operations of the fit; the last value is ``H @ final`` (what
    ``decision_function`` computes).  The others come ``chunk`` rounds at a time from one matrix
    product, which may round differently from H @ lambda_t in the last bits."""
    n, p = H.shape
    T = len(path)
    coef = np.zeros(p)
    block: list[np.ndarray] = []

    def flush():
        if block:
            F = np.asarray(block) @ H.T if p else np.zeros((len(block), n))
            yield from F
            block.clear()

    for t, step in enumerate(path):
        if isinstance(step, tuple):
            j, delta = step
            coef[j] += delta
        else:
            coef += step
        if t == T - 1:
            yield from flush()
            yield H @ final if p else np.zeros(n)
        else:
            block.append(coef.copy())
            if len(block) == chunk:
                yield from flush()


class LeveragingClassifier(DecisionClassifierMixin, Booster):
    """Base of the leveraging classifiers (LLM, LLD, log-loss boosting).

    The model is linear in the weak hypotheses: f(x) = sum_j lambda_j h_j(x),
    the margin of a labelled example is y f(x), prediction is sign f(x).
    Subclasses implement ``_leverage``, which appends one
    :class:`~lpboosting.colgen.RoundRecord` per round (round 0 = lambda = 0)
    to the :class:`~lpboosting.colgen.History` kept in ``history_``.

    Shared by the subclasses: ``fit(X, y, sample_weight)`` (integer weights
    are the same as repeated rows: every sum over the examples is weighted,
    and the rows of weight 0 are left out, also from the feature scaling and
    the stump thresholds), ``warm_start`` (a later fit with a larger
    ``max_rounds`` continues the rounds; the rounds are deterministic, so
    T1 rounds and then T2 - T1 more make the model of T2 rounds),
    ``verbose``, ``staged_decision_function`` / ``staged_predict`` /
    ``staged_predict_proba`` (the model after every round, rebuilt from the
    steps logged during the fit: one (hypothesis, delta) pair a round in
    sequential mode, one vector of deltas -- rounds x hypotheses numbers in
    all -- in parallel mode), ``feature_importances_`` (|lambda_j| of each
    scaled feature, or summed over the stumps on a feature, normalised to 1;
    the intercept and the constant stumps use no feature),
    :func:`lpboosting.save_model` (JSON; ``load_model`` gives the same
    predictions, without the training margins a ``warm_start`` needs) and
    Ctrl-C: a fit interrupted by KeyboardInterrupt keeps the rounds it
    completed, warns (RuntimeWarning) and records the status "interrupted"
    (with no round completed the KeyboardInterrupt propagates).

    More than two classes (:class:`~lpboosting.leveraging._common.Booster`):
    K binary models, model k the fit on the labels ``y == classes_[k]``
    (same parameters, same ``sample_weight``, up to ``max_rounds`` rounds
    each), in ``one_vs_rest_``; the K fits share the oracle's work on X (the
    feature scaling, the presorted features of the stumps).
    ``decision_function`` has one column per class and ``predict`` gives the
    class of the largest (columns within 1e-9 max(1, max_k |f_k(x)|) of the
    largest -- equal but for rounding -- are tied, and the tie goes to the
    first of them in ``classes_``).  ``n_rounds_`` and ``n_estimators_`` are summed over
    the classes, ``history_`` is the list of the K histories, and the staged
    predictions step through the rounds with a model that stopped earlier
    held at its last round.  ``warm_start`` continues every class's model
    (same data and parameters); ``verbose`` lines and the warnings of a
    class's fit start with ``[label vs rest]``.  ``coef_``, ``basis_``,
    ``train_margins_``, ``hypotheses_`` and ``epsilon_`` are those of each
    class's model; ``margins`` is defined for two classes only.
    """

    _parameter_constraints: dict[str, Any] = {
        "mode": [Names(set(MODES))],
        "max_rounds": _ROUNDS,
        "n_rounds": deprecated_alias(_ROUNDS),
        "oracle": [str],
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "verbose": VERBOSE,
        "n_jobs": N_JOBS,
    }
    _parameter_messages: dict[str, Explain] = {
        "mode": Explain(unknown=True, advice=(
            "choose 'parallel' (template set A = {(1,...,1)}: every coordinate updated each round) "
            "or 'sequential' (A = {e_j}: one weak hypothesis per round)")),
    }
    #: the algorithm's name in ``history_.meta``
    _algorithm = ""
    #: the extras of a round printed with ``verbose`` (after the loss and the hypotheses used)
    _verbose_extras: tuple[str, ...] = ()

    _binary_attributes = ("basis_", "coef_", "train_margins_", "hypotheses_", "epsilon_", "_steps")
    _summed = ("n_rounds_", "n_estimators_")

    def _build_problem(self, X: np.ndarray, y_pm: np.ndarray, oracle: str, weight: np.ndarray):
        shared = getattr(self, "_shared", None)  # one-vs-rest: the label-free work of the first class
        if shared is not None and "oracle" in shared:
            hypotheses = shared["oracle"].relabel(y_pm)
        else:
            hypotheses = make_oracle(oracle, X, y_pm)
            if shared is not None:
                shared["oracle"] = hypotheses
        if isinstance(hypotheses, Stumps):
            problem = _StumpProblem(hypotheses, X, y_pm)
        else:
            problem = _FeatureProblem(hypotheses, X, y_pm, bool(self.fit_intercept))
        problem.weight = weight  # s_i > 0 of every row
        return problem

    def _report(self, record: RoundRecord) -> None:
        values = {"loss": record.primal, "hypotheses": record.n_columns}
        values.update({k: record.extra.get(k) for k in self._verbose_extras})
        print_round(self, record.round, values)

    @with_eval_set
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "LeveragingClassifier":
        """Run at most ``max_rounds`` leveraging rounds on (X, y); the record is kept in ``history_``.

        ``sample_weight`` (optional, >= 0): example weights; the loss becomes
        sum_i s_i loss_i, so an integer weight is the same as that many copies
        of the row, and weight 0 the same as leaving it out.  More than two
        classes: one binary fit per class (class k against the rest), each
        with these weights and up to ``max_rounds`` rounds.
        """
        check_params(self)
        max_rounds = int(renamed_parameter(self, "n_rounds", "max_rounds"))
        mode = self.mode.strip().lower()
        oracle = _resolve_oracle(self)
        if oracle == "stumps" and mode == "parallel":
            raise ValueError(
                "mode='parallel' updates every weak hypothesis at once and needs a finite set of "
                "them: use oracle='features', or mode='sequential' with oracle='stumps'"
            )
        tol = float(self.tol)
        params = self._algorithm_params()
        data = training_data(self, X, y, sample_weight)
        frozen = {"mode": mode, "oracle": oracle, "fit_intercept": bool(self.fit_intercept), **params}
        if data.classes.size > 2:
            return self._fit_each_class(data, sample_weight is not None, frozen, max_rounds)
        resume = self._check_warm_start(data.fingerprint, frozen, max_rounds)
        if resume and max_rounds == self.n_rounds_:
            return self
        problem = self._build_problem(data.X, data.y_pm, oracle, data.weight)
        if resume:
            problem.restore(self.coef_, self.train_margins_, self._steps, getattr(self, "hypotheses_", ()))
            history = copy.deepcopy(self.history_)
            history.records[-1].status = "added"  # the run goes on from this round
            history.meta.update(max_rounds=max_rounds, tol=tol)
            run = _Run(None, self._report, getattr(self, "epsilon_", None))
        else:
            history = History(meta={"algorithm": self._algorithm, "mode": mode, "oracle": oracle,
                                    "exact": True, "max_rounds": max_rounds, "tol": tol, **params})
            if sample_weight is not None:
                history.meta["total_weight"] = data.total_weight
            run = _Run(None, self._report)
        with self._ctrl_c() as ctrl_c:
            run.ctrl_c = ctrl_c
            try:
                status = self._leverage(problem, history, mode, max_rounds, tol, run, **params)
            except KeyboardInterrupt:
                if len(history) <= 1:
                    raise
                status = "interrupted"
        history.records[-1].status = status
        history.meta.update(status=status, n_rounds=len(history) - 1)
        if status == "max_rounds":
            previous, loss = history.records[-2].primal, history.records[-1].primal
            change = abs(previous - loss) / max(abs(loss), 1.0)
            reason = (f"the loss still changed by {change:.1e} (relative) in the last round, above "
                      f"tol={tol:g}")
            history.meta["stop_reason"] = reason
            warnings.warn(f"{type(self).__name__} stopped after max_rounds={max_rounds} rounds: {reason}; "
                          "raise max_rounds (or tol)", ConvergenceWarning, stacklevel=caller_level())
        elif status == "interrupted":
            history.meta["stop_reason"] = "interrupted by the user (Ctrl-C)"
            warn_interrupted(self, len(history) - 1, advice=(
                "; fit again with warm_start=True to continue"))
        else:
            history.meta["stop_reason"] = (f"the loss changed by at most tol={tol:g} (relative) in the "
                                           "last round, or no template could improve it")
        basis, coef = problem.model()
        self._forget_one_vs_rest()
        self.classes_ = data.classes
        self.basis_ = basis
        self.coef_ = coef
        self.history_ = history
        self.n_rounds_ = len(history) - 1
        self.n_estimators_ = self.n_rounds_
        self.train_margins_ = problem.margins.copy()
        self._steps = list(problem.path)
        if "epsilon" in params:
            self.epsilon_ = run.eps
        if isinstance(problem, _StumpProblem):
            self.hypotheses_ = list(problem.pool.hypotheses)
        self._remember_fit(data.fingerprint, frozen)
        return self

    def _algorithm_params(self) -> dict[str, Any]:
        """The algorithm's own parameters, as passed to ``_leverage``."""
        return {}

    def _leverage(self, problem, history: History, mode: str, max_rounds: int, tol: float, run: _Run,
                  **params) -> str:  # pragma: no cover - abstract
        """Append rounds ``len(history)``.. to ``history``; return the final status ("converged" or
        "max_rounds").  Each round's effects are applied between ``run.ctrl_c.hold()`` and
        ``release()``, then reported with ``run.report(record)``."""
        raise NotImplementedError

    def _logistic_proba(self, X: Any) -> np.ndarray:
        """expit(f) as P(classes_[1] | x), or per class normalised over the classes (K > 2)."""
        return self._proba(self.decision_function(X))

    def _proba(self, decision: np.ndarray) -> np.ndarray:
        """:meth:`_logistic_proba` from the decision function."""
        p = expit(decision)
        if decision.ndim == 2:
            return self._ovr_normalise(p)
        return np.column_stack([1.0 - p, p])

    def _importances(self) -> np.ndarray:
        """|lambda_j| over the hypotheses (scaled features or stumps), by the feature each uses."""
        n = self.n_features_in_
        hypotheses = self.basis_.hypotheses
        return weighted_importances(self.coef_[:len(hypotheses)], hypotheses, n)

    def _decision(self, X: np.ndarray) -> np.ndarray:
        """f(x) = sum_j lambda_j h_j(x); positive means ``classes_[1]``."""
        H = self.basis_.transform(X)
        if H.shape[1] == 0:
            return np.zeros(X.shape[0])
        return H @ self.coef_

    def _staged(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """f_t(x) after every round t = 1..``n_estimators_``; the last is ``decision_function(X)``,
        exactly."""
        yield from _staged_linear(self.basis_.transform(X), self._steps, self.coef_)


def loss_settled(history: History, tol: float) -> bool:
    """Did the last round change the loss by at most ``tol`` relative to its value (absolutely, below 1)?

    The loss is a sum over the examples; on separable data it falls to 0
    geometrically, so a purely relative test would never be met there.
    """
    previous, loss = history.records[-2].primal, history.records[-1].primal
    return abs(previous - loss) <= tol * max(abs(loss), 1.0)


def _record_round(history: History, problem, t: int, loss: float, master: float, pricing: float,
                 **extra: Any) -> None:
    """Append round t of a leveraging booster: ``primal`` is the loss after the round."""
    history.append(RoundRecord(
        round=t, n_columns=problem.n_used(), primal=loss, dual=None, gap=None, edge=None,
        exact=True, master_seconds=master, pricing_seconds=pricing, iterations=None,
        status="added", extra={"loss": loss, **extra},
    ))


def _llm_rounds(problem, history: History, mode: str, max_rounds: int, tol: float, run: _Run,
                epsilon: float, update_epsilon: bool, update_every: int,
                record_epsilon: bool = True) -> str:
    """Figure 1 of Krause & Singer; epsilon = 0 is the log-loss parallel/sequential update of
    Collins, Schapire & Singer (2002) (then alpha = 0 and W+ = W~+, W- = W~-).

    Appends rounds len(history).. (from round 0 = lambda = 0 on a new
    history) up to ``max_rounds``; returns the final status.  Example
    weights s_i multiply every sum over the examples: W~+-, the loss and
    the eps update (a weighted mean).  eps is kept in ``run.eps``."""
    s = problem.weight
    s_total = float(np.sum(s))
    eps = float(epsilon) if run.eps is None else float(run.eps)
    run.eps = eps

    def record(t: int, bound: float, selected: int | None, master: float, pricing: float) -> None:
        loss = llm_negative_log_likelihood(problem.margins, eps, s)
        extra: dict[str, Any] = {"epsilon": eps} if record_epsilon else {}
        _record_round(history, problem, t, loss, master, pricing, **extra, q_increase_bound=bound,
                     selected=selected)

    if not history.records:
        record(0, np.nan, None, 0.0, 0.0)
    elif len(history) > 1 and loss_settled(history, tol):
        return "converged"  # the longer run would have stopped here too
    if mode == "parallel":
        scale = problem.row_l1_max()
        a_par = 1.0 / scale if scale > 0 else 0.0
    else:
        amax = problem.abs_max()
        a_seq = np.where(amax > 0, 1.0 / np.where(amax > 0, amax, 1.0), 0.0)
    status = "max_rounds"
    for t in range(len(history), max_rounds + 1):
        tic = time.perf_counter()
        z = problem.margins
        # E-step: alpha_i = eps / (eps + (1 - eps) e^{z_i}),  q_i = 1 / (1 + e^{z_i})
        q = expit(-z)
        if eps > 0:
            mu = np.log1p(-eps) - np.log(eps)
            alpha = expit(-(z + mu))
            b = expit(z + mu) * q  # (1 - alpha_i) q_i
        else:
            alpha = np.zeros_like(z)
            b = q
        Wt_plus, Wt_minus = problem.split_sums(s * b)
        Wp, Wm = llm_split_weights(Wt_plus, Wt_minus, eps)
        score = (np.sqrt(np.maximum(Wp, 0.0)) - np.sqrt(np.maximum(Wm, 0.0))) ** 2
        d = _half_log_ratio(np.maximum(Wp, 0.0), np.maximum(Wm, 0.0))
        if mode == "parallel":
            a = a_par
            bound = float(a * np.sum(score))
            if bound <= 0.0:  # a stationary point: no template can improve Q
                status = "converged"
                break
        else:
            weighted = a_seq * score
            j = problem.pick(weighted)
            bound = float(weighted[j])
            if not np.isfinite(bound) or bound <= 0.0:
                status = "converged"
                break
        new_eps = eps
        if update_epsilon and eps > 0 and t % update_every == 0:
            # maximising Q over eps: eps = (weighted) mean_i alpha_i, kept in (0, 1/2]
            new_eps = float(np.clip(np.sum(s * alpha) / s_total, 1e-12, 0.5))
        pricing = time.perf_counter() - tic
        run.ctrl_c.hold()
        try:
            tic = time.perf_counter()
            if mode == "parallel":
                problem.step_all(a * d)
                selected = None
            else:
                selected = problem.step_one(j, float(a_seq[j] * d[j]))
            master = time.perf_counter() - tic
            eps = run.eps = new_eps
            record(t, bound, selected, master, pricing)
        finally:
            run.ctrl_c.release()
        run.report(history.records[-1])
        if loss_settled(history, tol):
            status = "converged"
            break
    return status


class LLMClassifier(LeveragingClassifier):
    """Leveraging Logistic Mixture (LLM), Figure 1 of Krause & Singer (ICML 2004).

    Minimises the logistic mixture loss (the negative log-likelihood of the
    observed labels when the noise-free label is logistic in the margin and
    flipped with probability eps, Sec. 2.1)::

        L_LM(lambda, eps) = - sum_i ln( (1 - eps) / (1 + e^{-z_i}) + eps / (1 + e^{z_i}) ),
        z_i = [M lambda]_i = y_i sum_j lambda_j h_j(x_i),

    by generalised EM, one approximate M-step per round (Figure 1):

    * E-step: alpha_i = eps / (eps + (1 - eps) e^{z_i}) (probability that
      label i is noise), q_i = 1 / (1 + e^{z_i});
    * W~+_j = sum_{M_ij>0} (1 - alpha_i) q_i |M_ij|, W~-_j = same over M_ij < 0,
      W+_j = W~+_j + eps/(1-eps) W~-_j, W-_j = W~-_j + eps/(1-eps) W~+_j,
      d_j = 1/2 ln(W+_j / W-_j);
    * template a = argmax_{a in A} sum_j a_j (sqrt W+_j - sqrt W-_j)^2,
      lambda <- lambda + a * d;
    * with ``update_epsilon``: eps <- mean_i alpha_i (the maximiser of Q in eps).

    Template sets (Sec. 2.2): ``mode="parallel"`` is A = {(1, ..., 1)} and
    ``"sequential"`` A = {e_j} (the weak hypothesis maximising
    (sqrt W+ - sqrt W-)^2).  The paper requires sum_j a_j |M_ij| <= 1: the
    parallel template is scaled to a = (1/s, ..., 1/s) with
    s = max_i sum_j |M_ij| -- the same as dividing the coordinates by s -- and
    the sequential one to a = e_j / max_i |M_ij| (= e_j for features in
    [-1, 1] and for stumps).  By Lemma 2.1 every round increases Q by at least
    sum_j a_j (sqrt W+_j - sqrt W-_j)^2 (``history_["q_increase_bound"]``), so
    L_LM never increases (``history_["loss"]``).

    Parameters
    ----------
    epsilon : float in (0, 1/2), default 0.1
        Label-noise rate eps (the initial value when ``update_epsilon``).
        Sec. 4: eps corresponds to LLD's mu = ln((1 - eps) / eps).
    update_epsilon : bool, default False
        Re-estimate eps = mean_i alpha_i from the E-step (every
        ``update_every`` rounds; the paper's USPS runs use 100).
    mode : {"parallel", "sequential"}, default "parallel"
    max_rounds : int >= 1, default 20000
        The cap on the E + approximate-M rounds T; the run stops earlier when
        the loss has converged (``tol``).  Reaching the cap raises a
        ConvergenceWarning.  (The rounds are cheap and the updates
        conservative: on the Krause-Singer data the loss settles after about
        7000 rounds, and 100 rounds give a model no better than logistic
        regression.)
    oracle : {"features", "stumps"}, default "features"
        Weak hypotheses, by their name in :data:`lpboosting.oracles.ORACLES`
        (the classes in :data:`LEVERAGING_ORACLES`).  "features": the
        coordinates min-max scaled to [-1, 1] on the training data (the
        :class:`~lpboosting.oracles.Features` scaling, not clipped outside the
        training range, so f is linear in x).  "stumps": every decision stump,
        exact, sequential mode only: the stump maximising
        (sqrt W+ - sqrt W-)^2 is found from cumulative sums over the
        presorted features (stumps tied to rounding go to the lowest feature,
        then the lowest threshold).
    fit_intercept : bool, default True
        With "features", add the constant hypothesis h = 1 (stumps include the
        constants already).
    update_every : int, default 1
    tol : float >= 0, default 1e-5
        Stop when a round changes the loss L_LM by at most ``tol`` times
        max(L_LM, 1) (or when no template can increase Q: a stationary point).
    warm_start : bool, default False
        When True and the estimator is fitted, ``fit`` continues its rounds
        (from its lambda, eps and history) up to ``max_rounds`` rounds in
        all, instead of starting afresh.  It needs the same training data and
        the same ``mode``, ``oracle``, ``fit_intercept``, ``epsilon``,
        ``update_epsilon`` and ``update_every``; ``tol`` may change.  The
        rounds are deterministic, so T1 rounds continued to T2 give the model
        of a T2-round fit (to rounding).
    verbose : int >= 0, default 0
        With verbose > 0, print one line per round to standard output: the
        round, L_LM, the hypotheses used, eps, the Lemma 2.1 bound and the
        hypothesis updated.
    n_jobs : int or None, default None
        More than two classes: the one-vs-rest models fitted in parallel, in
        threads (numpy's large array operations run without the GIL); the
        models are those of the sequential fit.  None is 1, -1 all cores.
    n_rounds : int, deprecated
        The old name of ``max_rounds`` (used, with a FutureWarning, when set).

    Notes
    -----
    ``fit(X, y, sample_weight=None)``: weights s_i >= 0 make the loss
    sum_i s_i l_LM(z_i) -- s_i multiplies example i's terms in W~+- and in
    the eps update (a weighted mean) -- so an integer weight is the same as
    that many copies of the row, and rows of weight 0 are left out (also of
    the feature scaling and the stump thresholds).  ``tol`` is applied to
    the weighted loss.

    More than two classes: one model per class, class k against the rest
    (see :class:`LeveragingClassifier`); ``predict_proba`` then normalises
    the K models' probabilities of their own class over the classes.

    Attributes
    ----------
    classes_, coef_ (lambda), epsilon_ (final eps), train_margins_ (of the
    training rows of positive weight), hypotheses_ (stumps only).  With
    more than two classes only ``classes_``, ``one_vs_rest_``,
    ``n_rounds_``, ``n_estimators_`` and ``history_`` (a list): the others
    are those of each ``one_vs_rest_[k]``.
    one_vs_rest_ : list of LLMClassifier, more than two classes only
        Model k is the binary fit on ``y == classes_[k]`` (its ``classes_``
        are ``[False, True]``).
    n_rounds_, n_estimators_ : int
        The rounds made (the same number, under scikit-learn's name too;
        summed over the classes' models);
        :meth:`staged_decision_function` and :meth:`staged_predict` give the
        model after each of them.
    history_ : :class:`~lpboosting.colgen.History`, one record per round,
        round 0 = lambda = 0: ``primal`` and ``extra["loss"]`` = L_LM after the
        round, ``n_columns`` the hypotheses with lambda_j != 0, extras
        ``epsilon``, ``q_increase_bound``, ``selected`` (sequential mode: the
        hypothesis updated); ``history_["loss"]`` is the column.  The status of
        the last record (and ``meta["status"]``) is "converged" (the loss
        settled to tol, or a stationary point), "max_rounds" or
        "interrupted" (Ctrl-C: the rounds completed are kept, with a
        RuntimeWarning); ``meta["stop_reason"]`` says which.

    ``predict_proba`` gives the model's probability of the *noise-free* label,
    P(t = classes_[1] | x) = 1 / (1 + e^{-f(x)}); the observed label has
    P(y = classes_[1] | x) = (1 - eps) P(t = classes_[1] | x) + eps P(t = classes_[0] | x)
    (:meth:`predict_proba_observed`).  More than two classes: each model's
    probability of its class, normalised over the classes (uniform where
    they are all 0).
    """

    _parameter_constraints: dict[str, Any] = {
        **LeveragingClassifier._parameter_constraints,
        "epsilon": [Interval(Real, 0, 0.5, closed="neither")],
        "update_epsilon": ["boolean"],
        "update_every": [Interval(Integral, 1, None, closed="left")],
    }
    _parameter_messages: dict[str, Explain] = {
        **LeveragingClassifier._parameter_messages,
        "epsilon": Explain(
            what="the label-noise rate, a number in the open interval (0, 1/2)",
            advice="for noise-free log-loss boosting use LogLossBoostClassifier",
        ),
    }
    _algorithm = "LLM"

    def __init__(
        self,
        epsilon: float = 0.1,
        update_epsilon: bool = False,
        mode: str = "parallel",
        max_rounds: int = 20000,
        oracle: str = "features",
        fit_intercept: bool = True,
        update_every: int = 1,
        tol: float = 1e-5,
        warm_start: bool = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        n_rounds: int | str = "deprecated",
    ) -> None:
        self.epsilon = epsilon
        self.update_epsilon = update_epsilon
        self.mode = mode
        self.max_rounds = max_rounds
        self.oracle = oracle
        self.fit_intercept = fit_intercept
        self.update_every = update_every
        self.tol = tol
        self.warm_start = warm_start
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.n_rounds = n_rounds

    def _algorithm_params(self) -> dict[str, Any]:
        return {
            "epsilon": float(self.epsilon),
            "update_epsilon": bool(self.update_epsilon),
            "update_every": int(self.update_every),
        }

    _verbose_extras = ("epsilon", "q_increase_bound", "selected")

    def _leverage(self, problem, history, mode, max_rounds, tol, run, *, epsilon, update_epsilon,
                  update_every):
        return _llm_rounds(problem, history, mode, max_rounds, tol, run, epsilon, update_epsilon,
                           update_every)

    def predict_proba(self, X: Any) -> np.ndarray:
        """P(t | x) of the noise-free label t, columns ordered as ``classes_``.

        More than two classes: each class's model gives P(t = k | x) against
        the rest; these are normalised over the classes (uniform where they
        are all 0).
        """
        return self._logistic_proba(X)

    def predict_proba_observed(self, X: Any) -> np.ndarray:
        """P(y | x) of the observed (noisy) label under the fitted mixture (more than two classes:
        each class's model's, normalised over the classes as :meth:`predict_proba`)."""
        check_is_fitted(self)
        if self._multiclass:
            X = validate_data(self, X, dtype=np.float64, reset=False)
            return self._ovr_normalise(np.column_stack(
                [m.predict_proba_observed(X)[:, 1] for m in self.one_vs_rest_]))
        p = self.predict_proba(X)
        return (1.0 - self.epsilon_) * p + self.epsilon_ * p[:, ::-1]


class LogLossBoostClassifier(LeveragingClassifier):
    """Plain log-loss boosting: the parallel (or sequential) update of Collins,
    Schapire & Singer (2002) -- the baseline "boosting" of Krause & Singer, Sec. 6.

    Minimises sum_i ln(1 + e^{-z_i}), z_i = [M lambda]_i, with
    q_i = 1 / (1 + e^{z_i}), W+_j = sum_{M_ij>0} q_i |M_ij|, W-_j = sum_{M_ij<0} q_i |M_ij|,
    lambda_j <- lambda_j + a_j 1/2 ln(W+_j / W-_j) (eq. 3-4 of Krause & Singer).
    It is exactly Figure 1 (LLM) with eps = 0 (alpha = 0, no split), run by
    the same code with the same templates, scaling and weak hypotheses, so
    the comparison with LLM isolates the loss.  Parameters (``mode``,
    ``max_rounds``, ``oracle``, ``fit_intercept``, ``tol``, ``warm_start``,
    ``verbose``, the deprecated ``n_rounds``), ``sample_weight`` (the loss
    sum_i s_i ln(1 + e^{-z_i})) and attributes (``n_rounds_`` =
    ``n_estimators_``, ``history_``, ...) as :class:`LLMClassifier` without
    the eps ones (``history_`` has no ``epsilon`` column); a warm start
    needs the same ``mode``, ``oracle`` and ``fit_intercept``.
    ``predict_proba`` is the logistic model 1 / (1 + e^{-f(x)}).  More than
    two classes: one model per class, class k against the rest, in
    ``one_vs_rest_`` (see :class:`LeveragingClassifier`); ``predict_proba``
    then normalises the K models' probabilities of their own class.

    Parameters
    ----------
    mode : {"parallel", "sequential"}, default "parallel"
    max_rounds : int >= 1, default 20000
    oracle : {"features", "stumps"}, default "features"
    fit_intercept : bool, default True
    tol : float >= 0, default 1e-5
    warm_start : bool, default False
    verbose : int >= 0, default 0
    n_jobs : int or None, default None
        More than two classes: the one-vs-rest models fitted in parallel, in
        threads (numpy's large array operations run without the GIL); the
        models are those of the sequential fit.  None is 1, -1 all cores.
    n_rounds : int, deprecated
    """

    _algorithm = "log-loss boosting"

    def __init__(
        self,
        mode: str = "parallel",
        max_rounds: int = 20000,
        oracle: str = "features",
        fit_intercept: bool = True,
        tol: float = 1e-5,
        warm_start: bool = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        n_rounds: int | str = "deprecated",
    ) -> None:
        self.mode = mode
        self.max_rounds = max_rounds
        self.oracle = oracle
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.warm_start = warm_start
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.n_rounds = n_rounds

    _verbose_extras = ("q_increase_bound", "selected")

    def _leverage(self, problem, history, mode, max_rounds, tol, run):
        return _llm_rounds(problem, history, mode, max_rounds, tol, run, 0.0, False, 1,
                           record_epsilon=False)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Logistic model P(y = classes_[1] | x) = 1 / (1 + e^{-f(x)}), columns as ``classes_``.

        More than two classes: each class's model gives P(y = k | x) against
        the rest; these are normalised over the classes (uniform where they
        are all 0).
        """
        return self._logistic_proba(X)
