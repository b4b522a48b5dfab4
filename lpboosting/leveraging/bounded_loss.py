"""Bounded loss classification (Rennie, 2003): EM on log sum_i sigma_i with lambda annealing.

Rennie, J. D. M., *Bounded loss classification* (2003, joint work with
T. Jaakkola; ``papers/001_374916b7d9637f97.txt``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from typing import Any, Callable

import numpy as np
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels

from lpboosting.estimators.base import caller_level
from lpboosting.colgen.history import History, RoundRecord
from lpboosting.estimators.evaluation import with_eval_set
from lpboosting.estimators.classifier import N_JOBS
from lpboosting.leveraging._common import (
    VERBOSE,
    Booster,
    linear_importances,
    print_round,
    training_data,
    warn_interrupted,
)
from lpboosting.params import (
    Explain,
    Integral,
    Interval,
    Real,
    StrOptions,
    check_params,
    deprecated_alias,
    renamed_parameter,
)

__all__ = ["BoundedLossClassifier", "KERNELS", "bounded_loss_objective"]

#: kernel names accepted (scikit-learn's pairwise kernels)
KERNELS = tuple(sorted(k for k in PAIRWISE_KERNEL_FUNCTIONS if k != "precomputed"))


def _log_sigma(m: np.ndarray) -> np.ndarray:
    """log sigma(m) = -ln(1 + e^{-m}), stable."""
    return -np.logaddexp(0.0, -m)


def _logsumexp(a: np.ndarray) -> float:
    """log sum_i e^{a_i}, stable (scipy's version carries array-API overhead per call)."""
    m = float(np.max(a))
    return m + float(np.log(np.sum(np.exp(a - m))))


def bounded_loss_objective(margins: np.ndarray, sq_norm: float, lam: float,
                           sample_weight: np.ndarray | None = None) -> float:
    """Rennie's eq. (17): A_lam = log sum_i s_i sigma(m_i) - lam ||w||^2, m_i = y_i (w . x_i + b)
    (s_i = 1 by default; s_i > 0)."""
    ls = _log_sigma(np.asarray(margins, dtype=float))
    if sample_weight is not None:
        ls = ls + np.log(np.asarray(sample_weight, dtype=float))
    return float(_logsumexp(ls) - lam * sq_norm)


_POSITIVE = [Interval(Real, 0, None, closed="neither")]
_NON_NEGATIVE = [Interval(Real, 0, None, closed="left")]
_ITERATIONS = [Interval(Integral, 1, None, closed="left")]


class BoundedLossClassifier(Booster):
    """Bounded loss classification of Rennie (2003): EM on log sum_i sigma_i with lambda annealing.

    Objective (Rennie eq. 17), maximised over theta = (w, b)::

        A_lam(w, b) = log sum_i sigma(y_i z_i) - lam ||w||^2,   z_i = w . x_i + b,
        sigma(u) = 1 / (1 + e^{-u}),

    i.e. the log of the expected number of correct labels under the logistic
    model p(y|x) = sigma(y z(x)) (eq. 1-3): a smoothed, bounded zero-one
    objective.  The bias b is not penalised.

    **C and lambda.**  ``lam = 1 / (2 C n)`` with n the number of training
    examples: A_lam is, up to the factor C n, Rennie's kernel-form objective
    (eq. 27) min ||w||^2 / 2 - C_27 log sum_i sigma_i with C_27 = C n.  The
    data term is the log of a sum, so its gradient is a q-weighted *average*
    over the examples; dividing by n puts C on scikit-learn's scale: the
    first M-step (uniform q) is exactly ``LogisticRegression(C=C)``
    (intercept unpenalised), and larger C means weaker regularisation.
    (The C of the paper's eq. (18) is yet another constant, 2 lam.)

    Algorithm (Sec. 2, 3.1, 3.2):

    * E-step (eq. 7, 11): q_i = sigma_i / sum_j sigma_j (the maximiser of the
      Jensen bound B(q, theta) = sum_i q_i log(sigma_i / q_i) <= log sum sigma);
    * M-step (eq. 15, 18): maximise the weighted regularised logistic
      regression sum_i q_i log sigma(y_i z_i) - lam ||w||^2 by Newton's method
      (eq. 19) with a backtracking line search.  The Hessian used is
      -sum_i q_i sigma_i (1 - sigma_i) x_i x_i^T - 2 lam I (eq. 23-26 print
      q_i^2, a typo: the weight enters linearly);
    * at fixed lam each E + M pair never decreases A_lam (E makes the bound
      tight, M increases it), recorded in ``history_["objective"]``;
    * annealing (Sec. 3.2, ``anneal=True``): start at ``lambda_start``
      (Rennie's lam-bar = 100), run EM to convergence, then lam <- lam / 2
      from the previous theta, until theta stops moving
      (||theta_k - theta_{k-1}|| <= anneal_tol ||theta_k||) or lam reaches
      1 / (2 C n), which keeps the problem well posed (as lam -> 0 the
      objective tends to the zero-one count and w may diverge).  A last EM
      stage is run at the final lam.  Without annealing: one EM stage at
      lam = 1 / (2 C n) from theta = 0 (the first M-step is then regularised
      logistic regression, as the paper's conclusion suggests).

    **Deviation, the bias during annealing.**  With b unpenalised and lam
    large, w is pinned near 0 and A_lam is maximised by b -> +-inf (predict
    the majority class); EM then drives the q_i of the minority class to 0
    and never recovers.  So the *intermediate* stages (lam above the final
    value) also penalise b: they maximise log sum sigma - lam (||w||^2 + b^2),
    whose large-lam solution is the centroid direction
    sum_i y_i (x_i, 1) / (4 n lam); the final stage is the paper's objective
    with b free.  ``history_["lambda_b"]`` records the bias penalty used.

    Kernel form (Sec. 3.3, eq. 27-35): by the representer theorem
    w = sum_j beta_j phi(x_j), so z(x) = sum_j beta_j K(x, x_j) + b and
    ||w||^2 = beta^T K beta.  The same Newton M-step is run on the empirical
    kernel map Phi = U S^{1/2} (K = U S U^T, eigenvalues <= 0 up to rounding
    dropped), which gives exactly that model with beta = U S^{-1/2} w.

    **Sample weights** (``fit(X, y, sample_weight)``, s_i >= 0) count
    example i s_i times: the objective is log sum_i s_i sigma_i - lam ||w||^2
    with lam_final = 1 / (2 C sum_i s_i), the E-step gives
    q_i = s_i sigma_i / sum_j s_j sigma_j, and rows of weight 0 are left out
    (also of the kernel expansion).  Integer weights are repeated rows, to
    rounding.  For a kernel model the kernel matrix of the repeated rows has
    another eigen-basis, but Newton's steps (with their line search and
    stopping tests) do not depend on the orthonormal basis of the span, so
    the iterates agree to rounding as long as both eigen-decompositions keep
    the same rank.  As with ``LogisticRegression``'s C, scaling all weights
    by c is scaling C by c, not the same fit.

    **More than two classes**: K binary models, model k the fit on the
    labels ``y == classes_[k]`` (same parameters, same ``sample_weight``), in
    ``one_vs_rest_``.  A kernel model's kernel matrix and its
    eigen-decomposition are computed once for the K fits (and the kernel
    between X and the training rows once per prediction); a linear model
    is fitted separately for each class.  ``decision_function`` has one
    column per class, ``predict`` gives the class of the largest (columns
    equal but for rounding, within 1e-9 max(1, max_k |z_k(x)|), are tied and
    the tie goes to the first of them in ``classes_``), ``predict_proba`` normalises the
    K models' sigma(z_k(x)) over the classes (uniform where they are all 0),
    and the staged predictions step through the E + M iterations with a
    model that stopped earlier held at its last one.  ``verbose`` lines and
    the warnings of a class's fit start with ``[label vs rest]``.  Each
    model is fitted on class k against the rest, so the bounded loss may
    give up a class that is a minority against the rest (on the raw iris
    features the annealed linear model calls every example "not
    versicolor" and "not virginica").

    **No warm_start**: ``max_rounds`` caps every annealing stage, and a stage
    cut at the cap hands its theta to the next lam, so a run with a larger
    ``max_rounds`` is not a continuation of a shorter one; a fit cannot be
    continued exactly and none is offered.  Nothing is drawn at random (no
    ``random_state``).

    Parameters
    ----------
    C : float > 0, default 1.0
        Inverse regularisation: lam_final = 1 / (2 C n_samples) (see above).
    anneal : bool, default True
        Anneal lam from ``lambda_start`` down to 1 / (2 C n).
    kernel : None, str or callable, default None
        None: the linear model z = w . x + b.  A name from :data:`KERNELS`
        ("rbf", "poly", "laplacian", "sigmoid", "linear", ... computed by
        :func:`sklearn.metrics.pairwise.pairwise_kernels`) or a callable
        ``kernel(X, Y)`` returning the (len(X), len(Y)) kernel matrix.
    gamma : float > 0 or None, default None
        Kernel coefficient ("rbf", "poly", "sigmoid", "laplacian", "chi2");
        None = scikit-learn's default (1 / n_features).
    degree : int, default 3
        Degree of the "poly" kernel.
    coef0 : float, default 1.0
        Independent term of the "poly" and "sigmoid" kernels.
    lambda_start : float > 0, default 100.0
        First lam of the annealing (Rennie's lam-bar), on the scale of A_lam.
    max_rounds : int, default 100
        Maximum number of E + M iterations per value of lam.
    tol : float, default 1e-6
        EM at fixed lam stops when A_lam rises by less than tol (1 + |A_lam|).
    anneal_tol : float, default 1e-3
        Relative change of theta below which the annealing stops.
    max_newton_iter : int, default 50
        Newton iterations per M-step.
    verbose : int >= 0, default 0
        With verbose > 0, print one line per E + M iteration to standard
        output: its number, the stage's objective after it, the stage, lam,
        the bias penalty lam_b and the Newton steps of the M-step.
    n_jobs : int or None, default None
        More than two classes: the one-vs-rest models fitted in parallel, in
        threads (numpy's large array operations run without the GIL); the
        models are those of the sequential fit.  None is 1, -1 all cores.
    max_iter : int, deprecated
        The old name of ``max_rounds`` (used, with a FutureWarning, when set).

    Attributes
    ----------
    one_vs_rest_ : list of BoundedLossClassifier, more than two classes only
        Model k is the binary fit on ``y == classes_[k]`` (its ``classes_``
        are ``[False, True]``).  The K-class model itself has ``classes_``,
        ``history_`` (the list of the K histories), ``n_iter_`` and
        ``n_estimators_`` (summed); the other attributes below are those of
        each model.
    classes_, intercept_ (b), coef_ (w; linear model only), dual_coef_
    (beta) and X_fit_ (kernel model only: the rows of positive weight),
    lambda_ (the final lam), lambda_path_ (lam of every stage), objective_
    (A_lam at the end).
    n_iter_, n_estimators_ : int
        E + M iterations in total (the same number, under scikit-learn's
        name too); :meth:`staged_decision_function` and
        :meth:`staged_predict` give the model after each of them (theta is
        kept per iteration: n_iter_ x n_features numbers, or n_iter_ x
        n_samples for a kernel model).
    history_ : :class:`~lpboosting.colgen.History`, one record per EM
        iteration (``round`` counts the records); ``iteration`` 0 is the start
        of each stage.  ``primal`` and ``extra["objective"]`` are the stage's
        objective (A_lam on the final stage), ``iterations`` the Newton steps
        of the M-step, ``master_seconds`` the time of the E + M pair,
        ``n_columns`` the coordinates of w; extras ``stage``, ``lambda``,
        ``lambda_b``, ``iteration``, ``objective``, ``log_sum_sigma``,
        ``penalty``, ``newton_steps``.  The last record of a stage has status
        "converged" (EM converged at that lam) or "max_rounds"; ``meta`` holds
        the parameters and the final status ("interrupted" after a Ctrl-C:
        the E + M iterations completed are kept, with a RuntimeWarning).
        ``history_["objective"]`` is the column.

    ``predict_proba`` is the logistic model of eq. (1), P(y = classes_[1] | x) = sigma(z(x));
    ``staged_predict_proba`` gives it after every E + M iteration.
    ``feature_importances_`` (linear model): |w_j| (max_j - min_j) / 2 over
    the training rows -- the weight of feature j min-max scaled to [-1, 1],
    as the features oracle's hypotheses, so that it does not depend on the
    feature's unit -- normalised to 1; a kernel model has none (its terms
    K(x, x_j) use every feature).  :func:`lpboosting.save_model` writes the
    model as JSON (a kernel model with its training rows; a callable kernel
    cannot be written: use pickle).
    """

    def __init__(
        self,
        C: float = 1.0,
        anneal: bool = True,
        kernel: str | Callable[..., Any] | None = None,
        gamma: float | None = None,
        degree: int = 3,
        coef0: float = 1.0,
        lambda_start: float = 100.0,
        max_rounds: int = 100,
        tol: float = 1e-6,
        anneal_tol: float = 1e-3,
        max_newton_iter: int = 50,
        verbose: int = 0,
        n_jobs: int | None = None,
        max_iter: int | str = "deprecated",
    ) -> None:
        self.C = C
        self.anneal = anneal
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.lambda_start = lambda_start
        self.max_rounds = max_rounds
        self.tol = tol
        self.anneal_tol = anneal_tol
        self.max_newton_iter = max_newton_iter
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.max_iter = max_iter

    _binary_attributes = ("intercept_", "coef_", "dual_coef_", "X_fit_", "lambda_", "lambda_path_",
                          "objective_", "_path_coef", "_path_intercept", "_feature_range")
    _summed = ("n_iter_", "n_estimators_")

    # ------------------------------------------------------------------ parameters
    _parameter_constraints: dict[str, Any] = {
        "C": _POSITIVE,
        "anneal": ["boolean"],
        "kernel": [None, callable, StrOptions(set(KERNELS))],
        "gamma": [*_POSITIVE, None],
        "degree": _ITERATIONS,
        "coef0": [Interval(Real, None, None, closed="neither")],
        "lambda_start": _POSITIVE,
        "max_rounds": _ITERATIONS,
        "tol": _NON_NEGATIVE,
        "anneal_tol": _NON_NEGATIVE,
        "max_newton_iter": _ITERATIONS,
        "verbose": VERBOSE,
        "n_jobs": N_JOBS,
        "max_iter": deprecated_alias(_ITERATIONS),
    }
    _parameter_messages: dict[str, Explain] = {
        "kernel": Explain(unknown=True, advice=(
            f"use None for the linear model, one of {list(KERNELS)}, or a callable kernel(X, Y) "
            "returning the kernel matrix")),
    }

    def _kernel(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        if callable(self.kernel):
            K = np.asarray(self.kernel(X, Y), dtype=float)
            if K.shape != (X.shape[0], Y.shape[0]) or not np.all(np.isfinite(K)):
                raise ValueError(
                    f"the kernel callable must return a finite matrix of shape "
                    f"({X.shape[0]}, {Y.shape[0]}), got shape {K.shape}"
                )
            return K
        return pairwise_kernels(X, Y, metric=self.kernel, filter_params=True,
                                gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    # ------------------------------------------------------------------ M-step
    @staticmethod
    def _m_objective(Phi, y, q, w, b, lam, lam_b) -> float:
        m = y * (Phi @ w + b)
        return float(q @ _log_sigma(m) - lam * (w @ w) - lam_b * b * b)

    def _newton(self, Phi, y, q, w, b, lam, lam_b, max_newton_iter) -> tuple[np.ndarray, float, int]:
        """Maximise sum_i q_i log sigma(y_i z_i) - lam ||w||^2 - lam_b b^2 from (w, b), damped Newton."""
        f = self._m_objective(Phi, y, q, w, b, lam, lam_b)
        p = w.size
        steps = 0
        for steps in range(1, max_newton_iter + 1):
            m = y * (Phi @ w + b)
            s = expit(m)  # sigma(y_i z_i)
            r = q * y * (1.0 - s)
            g = np.concatenate([Phi.T @ r - 2.0 * lam * w, [r.sum() - 2.0 * lam_b * b]])
            D = q * s * (1.0 - s)
            H = np.empty((p + 1, p + 1))
            H[:p, :p] = (Phi.T * D) @ Phi
            H[np.diag_indices(p)] += 2.0 * lam
            H[:p, p] = H[p, :p] = Phi.T @ D
            H[p, p] = D.sum() + 2.0 * lam_b
            H[np.diag_indices_from(H)] += 1e-12 * (1.0 + np.trace(H) / (p + 1))
            try:
                step = np.linalg.solve(H, g)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(H, g, rcond=None)[0]
            slope = float(g @ step)
            if not np.isfinite(slope) or slope <= 1e-16 * (1.0 + abs(f)):
                break
            t = 1.0
            while True:
                w_new, b_new = w + t * step[:p], b + t * step[p]
                f_new = self._m_objective(Phi, y, q, w_new, b_new, lam, lam_b)
                if f_new >= f + 1e-4 * t * slope:
                    break
                t *= 0.5
                if t < 1e-10:
                    return np.concatenate([w, [b]]), f, steps
            w, b, f = w_new, b_new, f_new
            if t * np.linalg.norm(step) <= 1e-10 * (1.0 + np.linalg.norm(w) + abs(b)):
                break
        return np.concatenate([w, [b]]), f, steps

    # ------------------------------------------------------------------ fit
    @with_eval_set
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "BoundedLossClassifier":
        """Anneal lam and run EM at each value; the record is kept in ``history_``.

        ``sample_weight`` (optional, >= 0): example weights; the objective
        becomes log sum_i s_i sigma_i - lam ||w||^2 with lam = 1 / (2 C sum_i s_i),
        so an integer weight is the same as that many copies of the row, and
        weight 0 the same as leaving it out.  More than two classes: one
        binary fit per class (class k against the rest), each with these
        weights; a kernel model's kernel matrix and its eigen-decomposition
        are computed once for all of them.
        """
        check_params(self)
        max_rounds = renamed_parameter(self, "max_iter", "max_rounds")
        params = {"C": float(self.C), "lambda_start": float(self.lambda_start), "tol": float(self.tol),
                  "anneal_tol": float(self.anneal_tol)}
        data = training_data(self, X, y, sample_weight)
        if data.classes.size > 2:
            return self._fit_each_class(data, sample_weight is not None)
        X, y_pm, s = data.X, data.y_pm, data.weight
        log_s = np.log(s)  # 0 without weights
        if self.kernel is None:
            Phi = X
        else:
            shared = getattr(self, "_shared", None)  # one-vs-rest: the same rows and kernel
            if shared is not None and "kernel" in shared:
                U, S, Phi = shared["kernel"]
            else:
                K = self._kernel(X, X)
                K = 0.5 * (K + K.T)
                S, U = np.linalg.eigh(K)
                keep = S > max(S.max(), 0.0) * K.shape[0] * np.finfo(float).eps * 10
                U, S = U[:, keep], S[keep]
                Phi = U * np.sqrt(S)
                if shared is not None:
                    shared["kernel"] = (U, S, Phi)
        p = Phi.shape[1]
        w, b = np.zeros(p), 0.0
        lam_min = 1.0 / (2.0 * params["C"] * data.total_weight)
        lam = max(params["lambda_start"], lam_min) if self.anneal else lam_min
        kernel = self.kernel if self.kernel is None or isinstance(self.kernel, str) else "callable"
        hist = History(meta={
            "algorithm": "bounded loss", "C": params["C"], "anneal": bool(self.anneal), "kernel": kernel,
            "lambda_start": params["lambda_start"], "max_rounds": int(max_rounds), "tol": params["tol"],
            "anneal_tol": params["anneal_tol"], "max_newton_iter": int(self.max_newton_iter),
        })
        if sample_weight is not None:
            hist.meta["total_weight"] = data.total_weight

        def record(stage, it, steps, lam_b, seconds):
            m = y_pm * (Phi @ w + b)
            lss = float(_logsumexp(_log_sigma(m) + log_s))
            pen = lam * float(w @ w) + lam_b * b * b
            hist.append(RoundRecord(
                round=len(hist), n_columns=p, primal=lss - pen, dual=None, gap=None, edge=None,
                exact=True, master_seconds=seconds, pricing_seconds=0.0, iterations=steps,
                status="added", extra={
                    "stage": stage, "lambda": lam, "lambda_b": lam_b, "iteration": it,
                    "objective": lss - pen, "log_sum_sigma": lss, "penalty": pen, "newton_steps": steps,
                },
            ))
            return lss - pen

        lambda_path: list[float] = []
        path_w: list[np.ndarray] = []  # (w, b) after every E + M iteration, for the staged predictions
        path_b: list[float] = []
        stage = n_iter = 0
        settled = converged = interrupted = False
        theta_prev = None
        lam_done = obj_done = None  # lam and objective of the last E + M iteration
        with self._ctrl_c() as ctrl_c:
            try:
                while True:
                    last = not self.anneal or lam <= lam_min or settled
                    lam_b = 0.0 if last else lam  # intermediate stages also penalise b (see the docstring)
                    lambda_path.append(lam)
                    obj = record(stage, 0, 0, lam_b, 0.0)
                    converged = False
                    for it in range(1, max_rounds + 1):
                        tic = time.perf_counter()
                        # E-step: q_i = s_i sigma_i / sum_j s_j sigma_j
                        ls = _log_sigma(y_pm * (Phi @ w + b)) + log_s
                        q = np.exp(ls - _logsumexp(ls))
                        # M-step: weighted regularised logistic regression by Newton
                        theta, _, steps = self._newton(Phi, y_pm, q, w, b, lam, lam_b, self.max_newton_iter)
                        ctrl_c.hold()  # the iteration's effects, all or none
                        try:
                            w, b = theta[:p], float(theta[p])
                            n_iter += 1
                            path_w.append(w)
                            path_b.append(b)
                            new = record(stage, it, steps, lam_b, time.perf_counter() - tic)
                            lam_done, obj_done = lam, new
                        finally:
                            ctrl_c.release()
                        print_round(self, n_iter, {"objective": new, "stage": stage, "lambda": lam,
                                                   "lambda_b": lam_b, "newton_steps": steps})
                        if new - obj <= params["tol"] * (1.0 + abs(new)):
                            converged = True
                            break
                        obj = new
                    hist.records[-1].status = "converged" if converged else "max_rounds"
                    if last:
                        break
                    theta = np.concatenate([w, [b]])
                    if theta_prev is not None and np.linalg.norm(theta - theta_prev) <= (
                        params["anneal_tol"] * np.linalg.norm(theta)
                    ):
                        settled = True  # theta stopped moving: a last stage at this lam with b free
                    else:
                        lam = max(lam / 2.0, lam_min)
                    theta_prev = theta
                    stage += 1
            except KeyboardInterrupt:
                if n_iter == 0:
                    raise
                interrupted = True
        status = "interrupted" if interrupted else ("converged" if converged else "max_rounds")
        if interrupted:
            hist.records[-1].status = status
        hist.meta.update(status=status, n_iter=n_iter, lambda_path=list(lambda_path))
        if interrupted:
            warn_interrupted(self, n_iter, what="E + M iterations")
        elif not converged:
            warnings.warn(
                f"BoundedLossClassifier: EM did not converge in max_rounds={max_rounds} iterations "
                f"at lambda={lam:g}; raise max_rounds or tol", ConvergenceWarning, stacklevel=caller_level(),
            )
        self._forget_one_vs_rest()
        self.classes_ = data.classes
        self.intercept_ = b
        if self.kernel is None:
            self.coef_ = w.copy()
            self._path_coef = np.asarray(path_w)
            self._feature_range = np.vstack([X.min(axis=0), X.max(axis=0)])  # for feature_importances_
        else:
            self.__dict__.pop("_feature_range", None)
            self.dual_coef_ = U @ (w / np.sqrt(S))
            self.X_fit_ = X
            self._path_coef = np.asarray([U @ (w_t / np.sqrt(S)) for w_t in path_w])
        self._path_intercept = np.asarray(path_b)
        self.lambda_ = lam_done
        self.lambda_path_ = lambda_path
        self.objective_ = obj_done
        self.history_ = hist
        self.n_iter_ = n_iter
        self.n_estimators_ = n_iter
        return self

    # ------------------------------------------------------------------ prediction
    def _ovr_columns(self, X: np.ndarray) -> list[np.ndarray]:
        models = self.one_vs_rest_
        if self.kernel is None:
            return [X @ m.coef_ + m.intercept_ for m in models]
        K = models[0]._kernel(X, models[0].X_fit_)  # every class's model has the same rows
        return [K @ m.dual_coef_ + m.intercept_ for m in models]

    def _decision(self, X: np.ndarray) -> np.ndarray:
        """z(x) = w . x + b (or sum_j beta_j K(x, x_j) + b); positive means ``classes_[1]``."""
        if self.kernel is None:
            return X @ self.coef_ + self.intercept_
        return self._kernel(X, self.X_fit_) @ self.dual_coef_ + self.intercept_

    def _staged(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """z_t(x) after every E + M iteration t = 1..``n_estimators_``, through the annealing
        stages; the last is ``decision_function(X)``, exactly."""
        A = X if self.kernel is None else self._kernel(X, self.X_fit_)
        final = self.coef_ if self.kernel is None else self.dual_coef_
        T = len(self._path_intercept)
        for t in range(T - 1):
            yield A @ self._path_coef[t] + self._path_intercept[t]
        if T:
            yield A @ final + self.intercept_

    def predict_proba(self, X: Any) -> np.ndarray:
        """The logistic model of Rennie eq. (1): columns P(classes_[0] | x), P(classes_[1] | x).

        More than two classes: each class's model gives sigma(z_k(x)), its
        probability of class k against the rest; these are normalised over
        the classes (uniform where they are all 0), columns as ``classes_``.
        """
        return self._proba(self.decision_function(X))

    def _proba(self, z: np.ndarray) -> np.ndarray:
        """:meth:`predict_proba` from the decision function."""
        p = expit(z)
        if z.ndim == 2:
            return self._ovr_normalise(p)
        return np.column_stack([1.0 - p, p])

    def _importances(self) -> np.ndarray:
        """|w_j| times half the training range of feature j, normalised (linear model only)."""
        if self.kernel is not None:
            raise AttributeError(
                f"feature_importances_ is defined for the linear model; this {type(self).__name__} has "
                f"kernel={self.kernel!r}, whose terms K(x, x_j) use every feature at once")
        return linear_importances(self.coef_, *self._feature_range)
