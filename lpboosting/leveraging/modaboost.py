"""MODABOOST: model-adaptive boosting of any strictly proper loss.

Mansour, Nock, Williamson, *What killed the convex booster?* (papers/002),
Algorithm 1, with the model classes of Sec. 5: linear separators (#1),
decision trees (#2) and leveraged nearest neighbours (#4).

Notation (the paper's): labels ``y`` in {0, 1}, ``y* = 2y - 1``; a loss
``l`` from :mod:`lpboosting.losses` with inverse link ``eta~ = (-L_')^{-1}``;
``H_0 = 0`` and, for t = 1..T (eq. 12)::

    Step 2.1  pick X_t (a subset of the domain; S_t = examples in X_t)
    Step 2.2  h_t <- WL(w_t restricted to S_t, S_t)
    Step 2.3  alpha_t solves  sum_{i in S_t} w((x_i, y_i), H_t) y*_i h_t(x_i) = 0      (15)
              with H_t = H_{t-1} + alpha_t h_t on X_t
    Step 2.4  w_{t+1, i} = w((x_i, y_i), H_t) = y_i - y*_i eta~(H_t(x_i))              (14)

Eq. (15) is the first-order condition of the line search on the surrogate
risk ``Phi(H, S) = E_i[Phi_l(-H(x_i)) - y_i H(x_i)]`` (eq. 9): its left side
``g(alpha)`` is non-increasing in alpha (``eta~`` is non-decreasing), equals
the unnormalised edge at alpha = 0 and tends to ``-D`` as alpha -> +inf,
where ``D = sum_i max(0, -y*_i h_t(x_i))`` is the mass of h_t's mistakes on
S_t (proof of Lemma 4).  :func:`solve_alpha` orients h_t so that g(0) > 0 and
brackets the root by an explicit ``alpha_hi`` at which every term of g is
within ``D / (2 |S_t|)`` of its limit, so ``g(alpha_hi) <= -D/2 < 0``; then
``scipy.optimize.brentq`` on ``[0, alpha_hi]``.  When h_t makes no mistake
on S_t (D = 0) eq. (15) has no finite root (Lemma 4 excludes this case); we
then take the smallest alpha that brings every weight of S_t with h_t != 0
down to ``FITTED_WEIGHT`` (an exact 0 is reached for the square and
asymmetric losses, whose links saturate).  Examples whose weight is at most
``FITTED_WEIGHT`` are *fitted*; a candidate X_t containing only fitted
examples is not proposed again (its normalised edge is scale-free and would
stay large while nothing is left to gain).

The weak learner (WL) stops the run when no hypothesis meets the weak
learning assumption (19) ``|edge| >= gamma_wl``, with the normalised edge::

    edge = sum_{i in S_t} w_i / (sum_{j in S_t} w_j) * y*_i * h_t(x_i) / max_{j in S_t} |h_t(x_j)|

(the paper's Sec. 6 uses gamma_wl = 0.001).  The model classes:

``"linear"`` (Application #1)
    X_t = X; h_t(x) = x_j, the single feature of largest |edge| ("WL returns
    a scaled vector from the canonical basis", Sec. 4 / Lemma I).  H is the
    homogeneous linear separator ``coef_ . x`` (plus ``intercept_`` when
    ``fit_intercept=True``, which adds the constant feature; off in the paper).
``"tree"`` (Application #2)
    Step 2.1 picks the leaf of largest ``J(lambda) = m_lambda (mean_{i in lambda} w_i)^2``
    (Definition 5.1 / Lemma 6) among leaves whose WL call meets (19); the WL
    returns either the constant hypothesis on the leaf or a *half split*
    ``1[x_f >= a] h`` (or ``1[x_f < a] h``) of largest |edge|, and the
    companion half ``1[x_f < a] (-h)`` (Lemma 5) is leveraged too, each half
    with its own alpha from (15).  One round = one WL call.  Lemma 7: every
    leaf then predicts ``H_lambda = -L_'(p_lambda^+)`` and
    ``Phi(H, S) = E_lambda[L_(p_lambda^+)]``.
``"nn"`` (Application #4)
    ``H(x) = sum_j A_j [x_j in NN_K(x)]`` over training examples j (ties at
    the K-th distance included, so x can have more than K neighbours).  The
    WL returns an example j to leverage with the constant hypothesis; X_t is
    its reciprocal neighbourhood ``{x : x_j in NN_K(x)}``.  Among the
    examples whose edge meets (19) it returns the one maximising
    ``J(X_t) edge^2 = (sum_{i in S_t} w_i y*_i)^2 / |S_t|``, the guaranteed
    decrease of Theorem B (eq. 74).

Predictions: ``decision_function`` = H(x); ``predict`` = sign(H) (the paper's
classifier; ``H = 0`` goes to ``classes_[0]``); ``predict_proba`` = the
posterior ``eta~(H(x))`` of ``classes_[1]``.  For a symmetric loss sign(H) > 0
iff the posterior exceeds 1/2; for the asymmetric loss the threshold is
``p* = eta~(0) ~ 0.573`` (see :meth:`lpboosting.losses.ProperLoss.posterior_threshold`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import brentq
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from lpboosting.colgen.history import History, RoundRecord
from lpboosting.estimators.base import encode_binary, labels_to_signs
from lpboosting.losses import ProperLoss, get_proper_loss
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

__all__ = ["FITTED_WEIGHT", "MODELS", "ModaBoostClassifier", "solve_alpha"]

#: weight at or below which an example counts as fitted (see module doc)
FITTED_WEIGHT = 1e-8
#: a candidate is skipped when all the weights of its support are at most this
_SATURATED = 1e-6
MODELS = ("linear", "tree", "nn")


# ---------------------------------------------------------------------------
# Step 2.3: the leveraging coefficient
# ---------------------------------------------------------------------------


def solve_alpha(
    loss: ProperLoss,
    y01: np.ndarray,
    H: np.ndarray,
    h: np.ndarray,
    xtol: float = 1e-12,
) -> tuple[float, int, bool]:
    """Solve eq. (15) on S_t for alpha.

    ``y01`` (labels in {0, 1}), ``H`` (current predictions ``H_{t-1}``) and
    ``h`` (``h_t``) are restricted to S_t.  Returns ``(alpha, n_evaluations,
    perfect)`` where ``perfect`` says that h_t (or -h_t) makes no mistake on
    S_t and alpha is the saturating value of the module doc instead of a root.
    """
    ystar = 2.0 * y01 - 1.0
    n_evals = 0

    def g(a: float) -> float:
        nonlocal n_evals
        n_evals += 1
        return float(np.sum(loss.weight(y01, H + a * h) * ystar * h))

    g0 = g(0.0)
    if g0 == 0.0 or not np.any(h):
        return 0.0, n_evals, False
    s = 1.0 if g0 > 0 else -1.0
    hs = s * h  # oriented: g(0) > 0, root at alpha >= 0
    nz = hs != 0
    m_t = hs.size
    D = float(np.sum(np.maximum(0.0, -ystar * hs)))
    if D > 0:
        delta = np.clip(D / (2.0 * m_t * np.abs(hs[nz])), 1e-12, 0.5)
    else:
        delta = np.full(int(nz.sum()), FITTED_WEIGHT)
    with np.errstate(divide="ignore", invalid="ignore"):
        target = np.where(hs[nz] > 0, loss.link(1.0 - delta), loss.link(delta))
    alpha_hi = float(max(0.0, np.max((target - H[nz]) / hs[nz])))
    if D == 0:
        return s * alpha_hi, n_evals, True

    def gs(a: float) -> float:
        return s * g(s * a)

    # mathematically gs(alpha_hi) <= -D/2; guard against rounding
    hi = max(alpha_hi, 1e-12)
    for _ in range(200):
        if gs(hi) < 0:
            break
        hi *= 2.0
    else:  # pragma: no cover - numerically perfect
        return s * hi, n_evals, True
    root = brentq(gs, 0.0, hi, xtol=xtol, rtol=4 * np.finfo(float).eps)
    return s * float(root), n_evals, False


def _edge(w: np.ndarray, ystar: np.ndarray, h: np.ndarray) -> float:
    """Normalised edge (19) of h on the examples given."""
    W = w.sum()
    M = np.max(np.abs(h)) if h.size else 0.0
    if W <= 0 or M <= 0:
        return 0.0
    return float(np.sum(w * ystar * h) / (W * M))


# ---------------------------------------------------------------------------
# Model classes: each proposes (Step 2.1 + 2.2) and applies (2.3) steps
# ---------------------------------------------------------------------------


class _Step:
    """One leveraging step: support S_t (indices), hypothesis values on it, and bookkeeping."""

    __slots__ = ("edge", "h", "idx", "info")

    def __init__(self, idx: np.ndarray, h: np.ndarray, edge: float, info: dict[str, Any]) -> None:
        self.idx, self.h, self.edge, self.info = idx, h, edge, info


class _LinearModel:
    def __init__(self, X: np.ndarray, fit_intercept: bool) -> None:
        self.Z = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
        self.scale = np.max(np.abs(self.Z), axis=0) if self.Z.shape[0] else np.zeros(self.Z.shape[1])
        self.theta = np.zeros(self.Z.shape[1])
        self.all = np.arange(X.shape[0])

    def propose(self, w, ystar, gamma_wl):
        if np.all(w <= _SATURATED):
            return [], 0.0
        W = w.sum()
        num = self.Z.T @ (w * ystar)
        with np.errstate(divide="ignore", invalid="ignore"):
            edge = np.where(self.scale > 0, num / (W * np.where(self.scale > 0, self.scale, 1.0)), 0.0)
        j = int(np.argmax(np.abs(edge)))
        best = float(abs(edge[j]))
        if best < gamma_wl or best == 0.0:
            return [], best
        info = {"feature": j, "J": float(w.size * w.mean() ** 2)}
        return [_Step(self.all, self.Z[:, j], float(edge[j]), info)], best

    def apply(self, step, alpha):
        self.theta[step.info["feature"]] += alpha

    def n_columns(self):
        return int(np.count_nonzero(self.theta))


class _TreeModel:
    """A MODABOOST decision tree; node arrays, each node holding H along its path."""

    def __init__(self, X: np.ndarray, max_depth: int | None) -> None:
        self.X = X
        self.max_depth = max_depth
        self.feature = [-1]
        self.threshold = [np.nan]
        self.left = [-1]
        self.right = [-1]
        self.value = [0.0]
        self.depth = [0]
        self.samples = {0: np.arange(X.shape[0])}  # leaves only
        self._cache: dict[int, tuple] = {}

    def _best_for_leaf(self, leaf, w, ystar):
        """Best WL answer on a leaf: (|edge|, kind, feature, threshold, side, signed edge)."""
        idx = self.samples[leaf]
        wl, vl = w[idx], w[idx] * ystar[idx]
        W = wl.sum()
        if W <= 0 or np.all(wl <= _SATURATED):
            return (0.0, None)
        total = vl.sum()
        best = (abs(total) / W, "constant", -1, np.nan, 0, total / W)
        if (self.max_depth is None or self.depth[leaf] < self.max_depth) and idx.size > 1:
            Xl = self.X[idx]
            order = np.argsort(Xl, axis=0, kind="stable")
            Xs = np.take_along_axis(Xl, order, axis=0)
            vs = vl[order]
            # right sums for a split between sorted positions k-1 and k (k = 1..n-1)
            right = total - np.cumsum(vs, axis=0)[:-1]
            valid = Xs[1:] > Xs[:-1]
            if valid.any():
                er = np.where(valid, right / W, 0.0)
                el = np.where(valid, (total - right) / W, 0.0)
                for side, e in ((1, er), (-1, el)):  # 1: x >= a, -1: x < a
                    k, f = np.unravel_index(int(np.argmax(np.abs(e))), e.shape)
                    if abs(e[k, f]) > best[0]:
                        lo, hi = Xs[k, f], Xs[k + 1, f]
                        a = (lo + hi) / 2.0
                        if not (lo < a <= hi):
                            a = hi
                        best = (float(abs(e[k, f])), "split", int(f), float(a), side, float(e[k, f]))
        return best

    def propose(self, w, ystar, gamma_wl):
        leaves = list(self.samples)
        J = {lf: self.samples[lf].size * w[self.samples[lf]].mean() ** 2 for lf in leaves}
        best_seen = 0.0
        for leaf in sorted(leaves, key=lambda lf: (-J[lf], lf)):
            if leaf not in self._cache:
                self._cache[leaf] = self._best_for_leaf(leaf, w, ystar)
            cand = self._cache[leaf]
            best_seen = max(best_seen, cand[0])
            if cand[1] is None or cand[0] < gamma_wl or cand[0] == 0.0:
                continue
            idx = self.samples[leaf]
            info = {"leaf": int(leaf), "J": float(J[leaf]), "kind": cand[1]}
            if cand[1] == "constant":
                return [_Step(idx, np.ones(idx.size), cand[5], info)], cand[0]
            _, _, f, a, side, e = cand
            right = self.X[idx, f] >= a
            primary = right if side == 1 else ~right
            info.update(feature=f, threshold=a, side="right" if side == 1 else "left")
            # X_t = the leaf; h = 1[primary] (abstains elsewhere) and the companion 1[other] * (-1)
            h1 = primary.astype(float)
            h2 = -(~primary).astype(float)
            comp_edge = _edge(w[idx], ystar[idx], h2)
            info2 = dict(info, companion=True)
            return [_Step(idx, h1, e, info), _Step(idx, h2, comp_edge, info2)], cand[0]
        return [], best_seen

    def apply_round(self, steps, alphas):
        info = steps[0].info
        leaf = info["leaf"]
        idx = self.samples[leaf]
        self._cache.pop(leaf, None)
        if info["kind"] == "constant":
            self.value[leaf] += alphas[0]
            return
        f, a = info["feature"], info["threshold"]
        right_mask = self.X[idx, f] >= a
        base = self.value[leaf]
        h1, h2 = steps[0].h, steps[1].h
        # value of each half: H_parent + alpha h (h constant on the half)
        v_right = base + (alphas[0] * h1[right_mask][0] + alphas[1] * h2[right_mask][0])
        v_left = base + (alphas[0] * h1[~right_mask][0] + alphas[1] * h2[~right_mask][0])
        for side_mask, v, attr in ((~right_mask, v_left, "left"), (right_mask, v_right, "right")):
            node = len(self.feature)
            self.feature.append(-1)
            self.threshold.append(np.nan)
            self.left.append(-1)
            self.right.append(-1)
            self.value.append(float(v))
            self.depth.append(self.depth[leaf] + 1)
            self.samples[node] = idx[side_mask]
            getattr(self, attr)[leaf] = node
        self.feature[leaf] = f
        self.threshold[leaf] = a
        del self.samples[leaf]

    def n_columns(self):
        return len(self.samples)

    def export(self) -> dict[str, np.ndarray]:
        return {
            "feature": np.asarray(self.feature, dtype=np.intp),
            "threshold": np.asarray(self.threshold, dtype=float),
            "left": np.asarray(self.left, dtype=np.intp),
            "right": np.asarray(self.right, dtype=np.intp),
            "value": np.asarray(self.value, dtype=float),
            "depth": np.asarray(self.depth, dtype=np.intp),
            "n_samples": np.asarray([self.samples[i].size if i in self.samples else -1
                                     for i in range(len(self.feature))], dtype=np.intp),
        }


def _tree_apply(tree: dict[str, np.ndarray], X: np.ndarray) -> np.ndarray:
    """Leaf index reached by every row of X (right branch: x_f >= threshold)."""
    node = np.zeros(X.shape[0], dtype=np.intp)
    feat = tree["feature"]
    while True:
        inner = feat[node] >= 0
        if not inner.any():
            return node
        n = node[inner]
        go_right = X[np.flatnonzero(inner), feat[n]] >= tree["threshold"][n]
        node[inner] = np.where(go_right, tree["right"][n], tree["left"][n])


def _neighbour_matrix(Xq: np.ndarray, Xref: np.ndarray, k: int):
    """Sparse (n_q, n_ref) 0/1 matrix: row i marks NN_k(Xq[i]) in Xref, ties at the k-th distance included."""
    from scipy.sparse import csr_matrix

    n_q, n_ref = Xq.shape[0], Xref.shape[0]
    rows, cols = [], []
    chunk = max(1, int(2_000_000 // max(1, n_ref * max(1, Xref.shape[1]))))
    for start in range(0, n_q, chunk):
        q = Xq[start:start + chunk]
        d2 = np.sum((q[:, None, :] - Xref[None, :, :]) ** 2, axis=2)
        kth = np.partition(d2, k - 1, axis=1)[:, k - 1]
        mask = d2 <= kth[:, None] * (1.0 + 1e-10) + 1e-300
        r, c = np.nonzero(mask)
        rows.append(r + start)
        cols.append(c)
    rows_a = np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)
    cols_a = np.concatenate(cols) if cols else np.zeros(0, dtype=np.intp)
    return csr_matrix((np.ones(rows_a.size), (rows_a, cols_a)), shape=(n_q, n_ref))


class _NNModel:
    def __init__(self, X: np.ndarray, k: int) -> None:
        self.M = _neighbour_matrix(X, X, k)  # M[i, j] = 1 iff x_j in NN_k(x_i)
        self.Mc = self.M.tocsc()
        self.card = np.asarray(self.M.sum(axis=0)).ravel()
        self.A = np.zeros(X.shape[0])

    def propose(self, w, ystar, gamma_wl):
        MT = self.M.T
        num = MT @ (w * ystar)
        W = MT @ w
        live = (MT @ (w > _SATURATED).astype(float)) > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            edge = np.where(W > 0, num / np.where(W > 0, W, 1.0), 0.0)
        ok = live & (np.abs(edge) >= gamma_wl) & (np.abs(edge) > 0)
        best_seen = float(np.max(np.abs(np.where(live, edge, 0.0)))) if edge.size else 0.0
        if not ok.any():
            return [], best_seen
        score = np.where(ok, num ** 2 / np.maximum(self.card, 1), -np.inf)
        j = int(np.argmax(score))
        col = self.Mc[:, j]
        idx = col.indices[np.argsort(col.indices)]
        info = {"example": j, "J": float(idx.size * w[idx].mean() ** 2)}
        return [_Step(idx, np.ones(idx.size), float(edge[j]), info)], float(abs(edge[j]))

    def apply(self, step, alpha):
        self.A[step.info["example"]] += alpha

    def n_columns(self):
        return int(np.count_nonzero(self.A))


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------


class ModaBoostClassifier(ClassifierMixin, BaseEstimator):
    """MODABOOST (Mansour, Nock, Williamson; Algorithm 1) for any strictly proper loss.

    Boosts the surrogate risk ``Phi(H, S) = E_i[Phi_l(-H(x_i)) - y_i H(x_i)]``
    (eq. 9) of a proper loss ``l`` with weights ``w = y - y* (-L_')^{-1}(H(x))``
    (eq. 14) and leveraging coefficients solving eq. (15); the model class is
    a linear separator, a decision tree or leveraged nearest neighbours.  See
    :mod:`lpboosting.leveraging.modaboost` for the algorithm, the bracket of
    the root-finding and the weak learners.

    Parameters
    ----------
    loss : {"log", "square", "matusita", "asymmetric"} or ProperLoss, default "log"
        Proper loss of Table A5 (:mod:`lpboosting.losses`).
    model : {"linear", "tree", "nn"}, default "tree"
        Model class (Applications #1, #2, #4 of Sec. 5).
    max_rounds : int >= 1, default 1000
        T: the maximum number of weak-learner calls; reaching it while the
        weak learner still has an edge raises a ConvergenceWarning (the run
        converges when no hypothesis has a normalised edge >= gamma_wl).
    gamma_wl : float in (0, 1), default 1e-3
        The run stops when no hypothesis has normalised edge (19) of at least
        this (the weak learning assumption "breaks"; Sec. 6 uses 0.001).
    n_neighbors : int >= 1, default 1
        K for ``model="nn"`` (ties at the K-th distance are neighbours too).
    max_depth : int >= 1 or None, default None
        Depth limit for ``model="tree"``.
    fit_intercept : bool, default False
        For ``model="linear"``: add the constant feature (the paper's linear
        separators are homogeneous, as in Long & Servedio).
    alpha_tol : float > 0, default 1e-12
        ``xtol`` of brentq for eq. (15).
    callback : callable, optional
        Called with each round's :class:`~lpboosting.colgen.RoundRecord`; a
        truthy return stops the fit (the model so far is kept).
    n_rounds : int, deprecated
        The old name of ``max_rounds`` (used, with a FutureWarning, when set).

    Attributes
    ----------
    classes_ : labels; ``classes_[1]`` is the positive class (y = 1).
    loss_ : the :class:`~lpboosting.losses.ProperLoss` used.
    history_ : :class:`~lpboosting.colgen.History`, one record per round:
        ``primal`` and ``extra["loss"]`` are Phi(H_t, S) after the round,
        ``edge`` the |normalised edge| of h_t, ``iterations`` the evaluations
        of g in the root-finding, ``master_seconds`` / ``pricing_seconds`` the
        time of Step 2.3 / Step 2.2; extras ``alpha``, ``support`` (|S_t|),
        ``mean_weight`` (mean of w_t over S_t), ``J``, ``train_accuracy`` and
        model-specific ones (``feature``, ``leaf``, ``threshold``,
        ``alpha_companion``, ``example``).  ``meta`` holds the final status,
        ``stop_reason`` and the best edge left when the weak learner stopped.
    loss_curve_ : ndarray (n_rounds_ + 1,)
        Phi(H_t, S) for t = 0..n_rounds_ (``loss_curve_[0] = Phi(0, S)``).
    n_rounds_ : int, weak-learner calls made.
    status_ : "converged" (weak learning assumption broke), "fitted" (every
        example fitted), "max_rounds" or "stopped" (callback).
    coef_, intercept_ : for ``model="linear"``; H(x) = coef_ . x + intercept_.
    tree_ : dict of node arrays for ``model="tree"`` (feature, threshold,
        left, right, value = H at the node, depth, n_samples at leaves).
    X_fit_, leverage_, n_neighbors_ : for ``model="nn"``:
        H(x) = sum of leverage_[j] over the neighbours j of x in X_fit_.
    """

    def __init__(
        self,
        loss: str | ProperLoss = "log",
        model: str = "tree",
        max_rounds: int = 1000,
        gamma_wl: float = 1e-3,
        n_neighbors: int = 1,
        max_depth: int | None = None,
        fit_intercept: bool = False,
        alpha_tol: float = 1e-12,
        callback: Callable[..., Any] | None = None,
        n_rounds: int | str = "deprecated",
    ) -> None:
        self.loss = loss
        self.model = model
        self.max_rounds = max_rounds
        self.gamma_wl = gamma_wl
        self.n_neighbors = n_neighbors
        self.max_depth = max_depth
        self.fit_intercept = fit_intercept
        self.alpha_tol = alpha_tol
        self.callback = callback
        self.n_rounds = n_rounds

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- parameters -----------------------------------------------------------
    _parameter_constraints: dict[str, Any] = {
        "loss": [str, ProperLoss],
        "model": [StrOptions(set(MODELS))],
        "max_rounds": [Interval(Integral, 1, None, closed="left")],
        "gamma_wl": [Interval(Real, 0, 1, closed="neither")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [None, Interval(Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "alpha_tol": [Interval(Real, 0, None, closed="neither")],
        "callback": [None, callable],
        "n_rounds": deprecated_alias([Interval(Integral, 1, None, closed="left")]),
    }
    _parameter_messages: dict[str, Explain] = {
        "model": Explain(what=f"one of {MODELS}"),
        "max_rounds": Explain(what="an integer >= 1 (T of Algorithm 1)"),
        "n_rounds": Explain(what="an integer >= 1 (T of Algorithm 1)"),
        "gamma_wl": Explain(what="in (0, 1) (the weak learning assumption's normalised edge; "
                                 "the paper uses 0.001)"),
    }

    # -- fit ------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> ModaBoostClassifier:
        """Run MODABOOST for at most ``max_rounds`` weak-learner calls on (X, y)."""
        check_params(self)
        max_rounds = int(renamed_parameter(self, "n_rounds", "max_rounds"))
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, y_pm = encode_binary(self, y)
        loss = get_proper_loss(self.loss)
        self.loss_ = loss
        m = X.shape[0]
        y01 = (y_pm > 0).astype(float)
        ystar = y_pm
        if self.model == "nn" and self.n_neighbors > m:
            raise ValueError(f"{type(self).__name__}: n_neighbors={self.n_neighbors} exceeds the "
                             f"{m} training samples; lower n_neighbors")

        if self.model == "linear":
            mdl: Any = _LinearModel(X, bool(self.fit_intercept))
        elif self.model == "tree":
            mdl = _TreeModel(X, self.max_depth)
        else:
            mdl = _NNModel(X, int(self.n_neighbors))

        H = np.zeros(m)
        phi = loss.surrogate_risk(y01, H)
        curve = [phi]
        history = History(meta={"algorithm": "MODABOOST", "loss": loss.name, "model": self.model,
                                "gamma_wl": float(self.gamma_wl), "max_rounds": max_rounds,
                                "initial_loss": phi})
        status, final_edge = "max_rounds", None
        for t in range(1, max_rounds + 1):
            w = loss.weight(y01, H)
            if np.all(w <= _SATURATED):
                status = "fitted"
                break
            tic = time.perf_counter()
            steps, best = mdl.propose(w, ystar, float(self.gamma_wl))
            pricing = time.perf_counter() - tic
            if not steps:
                status, final_edge = "converged", float(best)
                break
            tic = time.perf_counter()
            alphas, evals, perfect = [], 0, False
            for st in steps:
                a, n_ev, perf = solve_alpha(loss, y01[st.idx], H[st.idx], st.h, xtol=float(self.alpha_tol))
                alphas.append(a)
                evals += n_ev
                perfect = perfect or perf
            master = time.perf_counter() - tic
            w_support = w[steps[0].idx]
            for st, a in zip(steps, alphas):
                H[st.idx] += a * st.h
            if self.model == "tree":
                mdl.apply_round(steps, alphas)
            else:
                mdl.apply(steps[0], alphas[0])
            phi = loss.surrogate_risk(y01, H)
            curve.append(phi)
            extra = {"loss": phi, "alpha": float(alphas[0]), "support": int(steps[0].idx.size),
                     "mean_weight": float(w_support.mean()), "perfect": bool(perfect),
                     "train_accuracy": float(np.mean((H > 0) == (y01 == 1)))}
            for k, v in steps[0].info.items():
                extra.setdefault(k, v)
            if len(steps) > 1:
                extra["alpha_companion"] = float(alphas[1])
                extra["edge_companion"] = float(abs(steps[1].edge))
            record = RoundRecord(
                round=t, n_columns=mdl.n_columns(), primal=phi, dual=None, gap=None,
                edge=float(abs(steps[0].edge)), exact=True, master_seconds=master,
                pricing_seconds=pricing, iterations=evals, status="added", extra=extra,
            )
            history.append(record)
            if self.callback is not None and self.callback(record):
                status = "stopped"
                break
        reasons = {
            "converged": f"no hypothesis has a normalised edge >= gamma_wl={float(self.gamma_wl):g} "
                         "(the weak learning assumption broke: the loss cannot be decreased further)",
            "fitted": "every training example is fitted (its weight vanished)",
            "stopped": "the callback asked to stop",
            "max_rounds": f"max_rounds={max_rounds} weak-learner calls made while the weak learner "
                          "still had an edge",
        }
        history.meta.update(status=status, final_edge=final_edge, n_rounds=len(history),
                            stop_reason=reasons[status])
        if status == "max_rounds":
            warnings.warn(f"{type(self).__name__}: {reasons[status]}; raise max_rounds (or gamma_wl)",
                          ConvergenceWarning, stacklevel=2)
        self.history_ = history
        self.loss_curve_ = np.asarray(curve)
        self.n_rounds_ = len(history)
        self.status_ = status

        if self.model == "linear":
            d = X.shape[1]
            self.coef_ = mdl.theta[:d].copy()
            self.intercept_ = float(mdl.theta[d]) if self.fit_intercept else 0.0
        elif self.model == "tree":
            self.tree_ = mdl.export()
        else:
            self.X_fit_ = X.copy()
            self.leverage_ = mdl.A.copy()
            self.n_neighbors_ = int(self.n_neighbors)
        return self

    # -- prediction -------------------------------------------------------------
    def decision_function(self, X: Any) -> np.ndarray:
        """H(x): positive means ``classes_[1]``; the posterior of that class is ``eta~(H(x))``.

        A value whose posterior equals ``eta~(0)`` in floating point (|H| of
        the order of 1e-16, e.g. a leaf with p^+ = 1/2 reached by root-finding)
        is returned as exactly 0, so that predict, decision_function and
        predict_proba agree on ties.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.model == "linear":
            H = X @ self.coef_ + self.intercept_
        elif self.model == "tree":
            H = self.tree_["value"][_tree_apply(self.tree_, X)]
        else:
            Mq = _neighbour_matrix(X, self.X_fit_, self.n_neighbors_)
            H = np.asarray(Mq @ self.leverage_).ravel()
        tie = (H != 0) & (self.loss_.inverse_link(H) == self.loss_.inverse_link(0.0))
        return np.where(tie, 0.0, H)

    def apply(self, X: Any) -> np.ndarray:
        """Index (into the arrays of ``tree_``) of the leaf every row of X reaches; ``model="tree"`` only."""
        check_is_fitted(self)
        if self.model != "tree" or not hasattr(self, "tree_"):
            raise ValueError(f"apply() needs model='tree'; this {type(self).__name__} was fitted "
                             f"with model={self.model!r}")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return _tree_apply(self.tree_, X)

    def predict(self, X: Any) -> np.ndarray:
        """sign(H(x)): ``classes_[1]`` where H > 0, else ``classes_[0]``."""
        H = self.decision_function(X)
        return self.classes_[(H > 0).astype(int)]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Columns ``[1 - eta~(H(x)), eta~(H(x))]``: the posterior from the inverse link (eq. 5)."""
        H = self.decision_function(X)
        p1 = self.loss_.inverse_link(H)
        p0 = self.loss_.weight(np.ones_like(H), H)  # 1 - eta~(H), without cancellation for the log loss
        return np.column_stack([p0, p1])

    def surrogate_risk(self, X: Any, y: Any) -> float:
        """Phi(H, S) (eq. 9) on labelled data (labels from ``classes_``)."""
        H = self.decision_function(X)
        signs = labels_to_signs(self.classes_, y, H.size)
        return self.loss_.surrogate_risk((signs > 0).astype(float), H)
