"""LLD: the Leveraging Logistic Difference of Krause & Singer (ICML 2004), Figure 2.

Krause, N. and Singer, Y., *Leveraging the margin more carefully*, ICML 2004
(``papers/000_63e15bd29f175ac2.txt``), Sec. 3.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from scipy.special import expit

from lpboosting.leveraging.llm import LeveragingClassifier, _record_round, loss_settled
from lpboosting.losses import LogisticDifferenceLoss
from lpboosting.params import Explain, Interval, Real

__all__ = ["LLDClassifier", "lld_loss"]


def lld_loss(margins: np.ndarray, mu: float, sample_weight: np.ndarray | None = None) -> float:
    """L_LD = sum_i s_i [ln(1 + e^{-z_i}) - ln(1 + e^{-z_i - mu})]  (eq. 11): the (weighted) sum of
    :class:`lpboosting.losses.LogisticDifferenceLoss` (s_i = 1 by default)."""
    values = LogisticDifferenceLoss(mu)(np.asarray(margins, dtype=float))
    if sample_weight is None:
        return float(np.sum(values))
    return float(np.sum(np.asarray(sample_weight, dtype=float) * values))


class LLDClassifier(LeveragingClassifier):
    """Leveraging Logistic Difference (LLD), Figure 2 of Krause & Singer (ICML 2004).

    Minimises the bounded, non-convex logistic-difference loss (eq. 11)::

        L_LD(lambda) = sum_i [ ln(1 + e^{-z_i}) - ln(1 + e^{-z_i - mu}) ],
        z_i = [M lambda]_i = y_i sum_j lambda_j h_j(x_i),

    a difference of two convex functions, by DC steps: each round the concave
    part -ln(1 + e^{-z - mu}) is replaced by its tangent at lambda_t (an upper
    bound), and one additive boosting step (Collins, Schapire & Singer,
    *Boosting algorithms... (2002)*, the paper's [3]) is taken on the convex
    bound (Figure 2)::

        q_i = 1 / (1 + e^{z_i}),  g_i = 1 / (1 + e^{z_i + mu}),
        W_j = sum_i M_ij (q_i - g_i)          (= -dL_LD / dlambda_j),
        a = argmax_{a in A} sum_j a_j W_j^2,  lambda <- lambda + a * W.

    The template set must satisfy sum_{i,j} a_j M_ij^2 <= 2: ``"parallel"``
    uses a = c (1, ..., 1) with c = 2 / sum_{i,j} M_ij^2, ``"sequential"``
    the templates c_j e_j with c_j = 2 / sum_i M_ij^2 (the weak hypothesis
    maximising c_j W_j^2).  Corollary 3.2: every round decreases L_LD by at
    least 1/2 sum_j a_j W_j^2 (``history_["decrease_bound"]``), so the loss in
    ``history_["loss"]`` never increases.  Sec. 4: with mu = ln((1 - eps) / eps)
    L_LD equals LLM's negative log-likelihood minus m ln(1 + e^{-mu}); only the
    optimiser differs.

    Parameters
    ----------
    mu : float > 0, default 4.0
        Shift of the second logistic; each example's loss lies in (0, mu)
        (it tends to mu as its margin z -> -inf and to 0 as z -> +inf).
    mode : {"parallel", "sequential"}, default "parallel"
    max_rounds : int >= 1, default 50000
        The cap on the DC steps; the run stops earlier when the loss has
        converged (``tol``), and reaching the cap raises a ConvergenceWarning.
        (The DC steps are conservative: tens of thousands of them on small
        data sets; measured in docs/defaults.md.)
    oracle : {"features", "stumps"}, default "features"
        As :class:`~lpboosting.leveraging.llm.LLMClassifier` ("stumps":
        sequential only; the stump of largest |W_j| is found exactly from
        the stump oracle's cumulative-sum edges under the signed weights q - g).
    fit_intercept : bool, default True
        With "features", add the constant hypothesis h = 1.
    tol : float >= 0, default 1e-5
        Stop when a step changes the loss L_LD by at most ``tol`` times
        max(L_LD, 1) (or at a stationary point).
    warm_start : bool, default False
        When True and the estimator is fitted, ``fit`` continues its DC
        steps up to ``max_rounds`` in all (same training data, ``mu``,
        ``mode``, ``oracle`` and ``fit_intercept``; ``tol`` may change).  The
        steps are deterministic, so T1 steps continued to T2 give the model
        of a T2-step fit (to rounding).
    verbose : int >= 0, default 0
        With verbose > 0, print one line per round to standard output: the
        round, L_LD, the hypotheses used, the Corollary 3.2 bound and the
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
    sum_i s_i l_LD(z_i), so W_j = sum_i s_i M_ij (q_i - g_i) and the
    template scale is 2 / sum_i s_i M_ij^2: an integer weight is the same as
    that many copies of the row; rows of weight 0 are left out.

    More than two classes: one model per class, class k against the rest,
    each the binary fit on ``y == classes_[k]`` (see
    :class:`~lpboosting.leveraging.llm.LeveragingClassifier`).

    Attributes
    ----------
    classes_, coef_ (lambda), train_margins_ (of the rows of positive
    weight), hypotheses_ (stumps only).  With more than two classes only
    ``classes_``, ``one_vs_rest_``, ``n_rounds_``, ``n_estimators_`` and
    ``history_`` (a list): the others are those of each
    ``one_vs_rest_[k]``.
    one_vs_rest_ : list of LLDClassifier, more than two classes only
        Model k is the binary fit on ``y == classes_[k]`` (its ``classes_``
        are ``[False, True]``).
    n_rounds_, n_estimators_ : int
        The rounds made (summed over the classes' models);
        :meth:`staged_decision_function` and :meth:`staged_predict` give the
        model after each of them.
    history_ : :class:`~lpboosting.colgen.History`, one record per round,
        round 0 = lambda = 0: ``primal`` and ``extra["loss"]`` = L_LD after the
        round, extras ``decrease_bound`` and ``selected``; status ("converged",
        "max_rounds" or "interrupted") and meta as
        :class:`~lpboosting.leveraging.llm.LLMClassifier`.

    ``predict_proba`` is the logistic model of the noise-free label,
    P(t = classes_[1] | x) = 1 / (1 + e^{-f(x)}): by Sec. 4 L_LD is LLM's
    loss with eps = 1 / (1 + e^mu), whose ``predict_proba`` this is.  It
    ranks the examples as ``decision_function`` does.
    """

    _parameter_constraints: dict[str, Any] = {
        **LeveragingClassifier._parameter_constraints,
        "mu": [Interval(Real, 0, None, closed="neither")],
    }
    _parameter_messages: dict[str, Explain] = {
        **LeveragingClassifier._parameter_messages,
        "mu": Explain(
            what="a finite number > 0 (the shift of the second logistic)",
            advice="mu = ln((1 - eps) / eps) matches LLM with noise rate eps (e.g. eps = 0.1 -> mu = 2.197)",
        ),
    }
    _algorithm = "LLD"

    def __init__(
        self,
        mu: float = 4.0,
        mode: str = "parallel",
        max_rounds: int = 50000,
        oracle: str = "features",
        fit_intercept: bool = True,
        tol: float = 1e-5,
        warm_start: bool = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        n_rounds: int | str = "deprecated",
    ) -> None:
        self.mu = mu
        self.mode = mode
        self.max_rounds = max_rounds
        self.oracle = oracle
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.warm_start = warm_start
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.n_rounds = n_rounds

    def _algorithm_params(self) -> dict[str, Any]:
        return {"mu": float(self.mu)}

    _verbose_extras = ("decrease_bound", "selected")

    def predict_proba(self, X: Any) -> np.ndarray:
        """P(t | x) of the noise-free label t, 1 / (1 + e^{-f(x)}), columns ordered as ``classes_``
        (LLM's probability model: L_LD is LLM's loss with eps = 1 / (1 + e^mu), Sec. 4).

        More than two classes: each class's model gives P(t = k | x) against
        the rest; these are normalised over the classes (uniform where they
        are all 0).
        """
        return self._logistic_proba(X)

    def _leverage(self, problem, history, mode, max_rounds, tol, run, *, mu):
        s = problem.weight
        if not history.records:
            _record_round(history, problem, 0, lld_loss(problem.margins, mu, s), 0.0, 0.0,
                          decrease_bound=np.nan, selected=None)
        elif len(history) > 1 and loss_settled(history, tol):
            return "converged"  # the longer run would have stopped here too
        sq = problem.sq_norms(s)
        if mode == "parallel":
            total = float(np.sum(sq))
            c_par = 2.0 / total if total > 0 else 0.0
        else:
            c_seq = np.where(sq > 0, 2.0 / np.where(sq > 0, sq, 1.0), 0.0)
        for t in range(len(history), max_rounds + 1):
            tic = time.perf_counter()
            z = problem.margins
            v = s * (expit(-z) - expit(-z - mu))  # s_i (q_i - g_i) > 0
            W = problem.signed_sums(v)
            if mode == "parallel":
                bound = 0.5 * c_par * float(np.sum(W**2))
                if bound <= 0.0:  # a stationary point
                    return "converged"
            else:
                gain = c_seq * W**2
                j = problem.pick(gain)
                bound = 0.5 * float(gain[j])
                if not np.isfinite(bound) or bound <= 0.0:
                    return "converged"
            pricing = time.perf_counter() - tic
            run.ctrl_c.hold()
            try:
                tic = time.perf_counter()
                if mode == "parallel":
                    problem.step_all(c_par * W)
                    selected = None
                else:
                    selected = problem.step_one(j, float(c_seq[j] * W[j]))
                master = time.perf_counter() - tic
                _record_round(history, problem, t, lld_loss(problem.margins, mu, s), master, pricing,
                              decrease_bound=bound, selected=selected)
            finally:
                run.ctrl_c.release()
            run.report(history.records[-1])
            if loss_settled(history, tol):
                return "converged"
        return "max_rounds"
