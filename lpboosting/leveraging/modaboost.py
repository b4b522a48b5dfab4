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

Sample weights s_i (``fit(X, y, sample_weight)``) count example i s_i
times: every sum over S above becomes a weighted sum (Phi a weighted mean,
|S_t| the weight of S_t), and for "nn" the K nearest neighbours are the
nearest rows of total weight K.  Integer weights are repeated rows.

Predictions: ``decision_function`` = H(x); ``predict`` = sign(H) (the paper's
classifier; ``H = 0`` goes to ``classes_[0]``); ``predict_proba`` = the
posterior ``eta~(H(x))`` of ``classes_[1]``.  For a symmetric loss sign(H) > 0
iff the posterior exceeds 1/2; for the asymmetric loss the threshold is
``p* = eta~(0) ~ 0.573`` (see :meth:`lpboosting.losses.ProperLoss.posterior_threshold`).
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from scipy.optimize import brentq
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from lpboosting.colgen.history import History, RoundRecord
from lpboosting.estimators.base import caller_level, labels_to_signs
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
#: what ``n_columns`` of a round counts, by model class (the verbose line's last value)
_SIZE = {"linear": "features", "tree": "leaves", "nn": "examples"}
#: candidates (normalised edges, or J and the nn score relative to the best) within this of the
#: best are tied: rounding (the same sum taken in another order) must not pick among them
_TIE = 1e-11


def _first_near(values: np.ndarray, tol: float) -> int:
    """The first index whose value is within ``tol`` of the largest (values without NaN)."""
    return int(np.flatnonzero(values >= np.max(values) - tol)[0])


# ---------------------------------------------------------------------------
# Step 2.3: the leveraging coefficient
# ---------------------------------------------------------------------------


def solve_alpha(
    loss: ProperLoss,
    y01: np.ndarray,
    H: np.ndarray,
    h: np.ndarray,
    xtol: float = 1e-12,
    sample_weight: np.ndarray | None = None,
) -> tuple[float, int, bool]:
    """Solve eq. (15) on S_t for alpha.

    ``y01`` (labels in {0, 1}), ``H`` (current predictions ``H_{t-1}``), ``h``
    (``h_t``) and ``sample_weight`` (s_i > 0, ones by default) are restricted
    to S_t; eq. (15) is then sum_i s_i w_i y*_i h_i = 0.  Returns ``(alpha,
    n_evaluations, perfect)`` where ``perfect`` says that h_t (or -h_t) makes
    no mistake on S_t and alpha is the saturating value of the module doc
    instead of a root.  The bracket depends on the weights only through
    D / sum_i s_i (D the weighted mistakes), so integer weights and repeated
    rows give the same bracket and the same root.
    """
    ystar = 2.0 * y01 - 1.0
    s = np.ones(h.shape) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    n_evals = 0

    def g(a: float) -> float:
        nonlocal n_evals
        n_evals += 1
        return float(np.sum(s * loss.weight(y01, H + a * h) * ystar * h))

    g0 = g(0.0)
    if g0 == 0.0 or not np.any(h):
        return 0.0, n_evals, False
    sign = 1.0 if g0 > 0 else -1.0
    hs = sign * h  # oriented: g(0) > 0, root at alpha >= 0
    nz = hs != 0
    total = float(np.sum(s))
    D = float(np.sum(s * np.maximum(0.0, -ystar * hs)))
    if D > 0:
        # every term s_i w_i y*_i h_i within s_i D / (2 total) of its limit: g <= -D/2
        delta = np.clip(D / (2.0 * total * np.abs(hs[nz])), 1e-12, 0.5)
    else:
        delta = np.full(int(nz.sum()), FITTED_WEIGHT)
    with np.errstate(divide="ignore", invalid="ignore"):
        target = np.where(hs[nz] > 0, loss.link(1.0 - delta), loss.link(delta))
    alpha_hi = float(max(0.0, np.max((target - H[nz]) / hs[nz])))
    if D == 0:
        return sign * alpha_hi, n_evals, True

    def gs(a: float) -> float:
        return sign * g(sign * a)

    # mathematically gs(alpha_hi) <= -D/2; guard against rounding
    hi = max(alpha_hi, 1e-12)
    for _ in range(200):
        if gs(hi) < 0:
            break
        hi *= 2.0
    else:  # pragma: no cover - numerically perfect
        return sign * hi, n_evals, True
    root = brentq(gs, 0.0, hi, xtol=xtol, rtol=4 * np.finfo(float).eps)
    return sign * float(root), n_evals, False


def _edge(ws: np.ndarray, ystar: np.ndarray, h: np.ndarray) -> float:
    """Normalised edge (19) of h on the examples given, ``ws`` their weights s_i w_i."""
    W = ws.sum()
    M = np.max(np.abs(h)) if h.size else 0.0
    if W <= 0 or M <= 0:
        return 0.0
    return float(np.sum(ws * ystar * h) / (W * M))


def _J(ws: np.ndarray, s: np.ndarray) -> float:
    """J = m (mean w)^2 of the examples given, weighted: (sum s_i w_i)^2 / sum s_i."""
    return float(ws.sum() ** 2 / s.sum())


# ---------------------------------------------------------------------------
# Model classes: each proposes (Step 2.1 + 2.2) and applies (2.3) steps
# ---------------------------------------------------------------------------


class _Step:
    """One leveraging step: support S_t (indices), hypothesis values on it, and bookkeeping."""

    __slots__ = ("edge", "h", "idx", "info")

    def __init__(self, idx: np.ndarray, h: np.ndarray, edge: float, info: dict[str, Any]) -> None:
        self.idx, self.h, self.edge, self.info = idx, h, edge, info


class _LinearModel:
    def __init__(self, X: np.ndarray, fit_intercept: bool, s: np.ndarray) -> None:
        self.Z = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
        self.scale = np.max(np.abs(self.Z), axis=0) if self.Z.shape[0] else np.zeros(self.Z.shape[1])
        self.theta = np.zeros(self.Z.shape[1])
        self.all = np.arange(X.shape[0])
        self.s = s

    def propose(self, w, ws, ystar, gamma_wl):
        if np.all(w <= _SATURATED):
            return [], 0.0
        W = ws.sum()
        num = self.Z.T @ (ws * ystar)
        with np.errstate(divide="ignore", invalid="ignore"):
            edge = np.where(self.scale > 0, num / (W * np.where(self.scale > 0, self.scale, 1.0)), 0.0)
        j = _first_near(np.abs(edge), _TIE)  # ties: the lowest feature
        best = float(abs(edge[j]))
        if best < gamma_wl or best == 0.0:
            return [], best
        info = {"feature": j, "J": _J(ws, self.s)}
        return [_Step(self.all, self.Z[:, j], float(edge[j]), info)], best

    def apply(self, step, alpha):
        self.theta[step.info["feature"]] += alpha
        return (step.info["feature"], alpha)

    def n_columns(self):
        return int(np.count_nonzero(self.theta))


class _TreeModel:
    """A MODABOOST decision tree; node arrays, each node holding H along its path.

    Ties (to rounding) are broken by fixed rules that do not depend on the
    order of the rows or on how many rows hold a value: among leaves of equal
    J the one created first; among the hypotheses of one leaf the constant,
    then the split of lowest feature, then of lowest threshold, the half
    ``x >= a`` before ``x < a``.
    """

    def __init__(self, X: np.ndarray, max_depth: int | None, s: np.ndarray) -> None:
        self.X = X
        self.max_depth = max_depth
        self.s = s
        self.feature = [-1]
        self.threshold = [np.nan]
        self.left = [-1]
        self.right = [-1]
        self.value = [0.0]
        self.depth = [0]
        self.samples = {0: np.arange(X.shape[0])}  # leaves only
        self._cache: dict[int, tuple] = {}

    @classmethod
    def restore(cls, tree: dict[str, np.ndarray], X: np.ndarray, max_depth: int | None,
                s: np.ndarray) -> "_TreeModel":
        """The tree of :meth:`export` grown on X, ready to grow further."""
        model = cls(X, max_depth, s)
        model.feature = [int(v) for v in tree["feature"]]
        model.threshold = [float(v) for v in tree["threshold"]]
        model.left = [int(v) for v in tree["left"]]
        model.right = [int(v) for v in tree["right"]]
        model.value = [float(v) for v in tree["value"]]
        model.depth = [int(v) for v in tree["depth"]]
        leaf_of = _tree_apply(tree, X)
        model.samples = {node: np.flatnonzero(leaf_of == node)
                         for node in range(len(model.feature)) if model.feature[node] < 0}
        return model

    def _best_for_leaf(self, leaf, w, ws, ystar):
        """Best WL answer on a leaf: (|edge|, kind, feature, threshold, side, signed edge)."""
        idx = self.samples[leaf]
        wl, vl = w[idx], ws[idx] * ystar[idx]
        W = ws[idx].sum()
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
                er = np.where(valid, right / W, 0.0)  # 1: x >= a
                el = np.where(valid, (total - right) / W, 0.0)  # -1: x < a
                top = max(float(np.max(np.abs(er))), float(np.max(np.abs(el))))
                if top > best[0] + _TIE:  # a split must beat the constant by more than rounding
                    near_r = valid & (np.abs(er) >= top - _TIE)
                    near_l = valid & (np.abs(el) >= top - _TIE)
                    near = near_r | near_l
                    f = int(np.flatnonzero(near.any(axis=0))[0])  # the lowest feature,
                    k = int(np.flatnonzero(near[:, f])[0])  # its lowest threshold,
                    side = 1 if near_r[k, f] else -1  # x >= a first
                    e = float(er[k, f] if side == 1 else el[k, f])
                    lo, hi = Xs[k, f], Xs[k + 1, f]
                    a = (lo + hi) / 2.0
                    if not (lo < a <= hi):
                        a = hi
                    best = (abs(e), "split", f, float(a), side, e)
        return best

    def propose(self, w, ws, ystar, gamma_wl):
        leaves = np.fromiter(self.samples, dtype=np.intp)
        J = np.array([_J(ws[self.samples[lf]], self.s[self.samples[lf]]) for lf in leaves])
        remaining = np.ones(leaves.size, dtype=bool)
        best_seen = 0.0
        # Step 2.1: the leaves by decreasing J (ties to rounding: the leaf created first)
        while remaining.any():
            top = float(np.max(J[remaining]))
            near = remaining & (J >= top * (1.0 - _TIE))
            pos = int(np.flatnonzero(near)[np.argmin(leaves[near])])
            remaining[pos] = False
            leaf = int(leaves[pos])
            if leaf not in self._cache:
                self._cache[leaf] = self._best_for_leaf(leaf, w, ws, ystar)
            cand = self._cache[leaf]
            best_seen = max(best_seen, cand[0])
            if cand[1] is None or cand[0] < gamma_wl or cand[0] == 0.0:
                continue
            idx = self.samples[leaf]
            info = {"leaf": leaf, "J": float(J[pos]), "kind": cand[1]}
            if cand[1] == "constant":
                return [_Step(idx, np.ones(idx.size), cand[5], info)], cand[0]
            _, _, f, a, side, e = cand
            right = self.X[idx, f] >= a
            primary = right if side == 1 else ~right
            info.update(feature=f, threshold=a, side="right" if side == 1 else "left")
            # X_t = the leaf; h = 1[primary] (abstains elsewhere) and the companion 1[other] * (-1)
            h1 = primary.astype(float)
            h2 = -(~primary).astype(float)
            comp_edge = _edge(ws[idx], ystar[idx], h2)
            info2 = dict(info, companion=True)
            return [_Step(idx, h1, e, info), _Step(idx, h2, comp_edge, info2)], cand[0]
        return [], best_seen

    def apply_round(self, steps, alphas):
        """Grow the tree by the round's steps; returns the change, for the staged predictions."""
        info = steps[0].info
        leaf = info["leaf"]
        idx = self.samples[leaf]
        self._cache.pop(leaf, None)
        if info["kind"] == "constant":
            self.value[leaf] += alphas[0]
            return ("constant", leaf, alphas[0])
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
        return ("split", leaf, f, a, self.left[leaf], self.right[leaf],
                self.value[self.left[leaf]], self.value[self.right[leaf]])

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


def _neighbour_matrix(Xq: np.ndarray, Xref: np.ndarray, k: int, weight: np.ndarray | None = None):
    """Sparse (n_q, n_ref) 0/1 matrix: row i marks NN_k(Xq[i]) in Xref, ties at the k-th distance included.

    With ``weight`` (of the rows of Xref) the k-th distance is the smallest
    distance within which the reference rows weigh at least k in total: a
    row of integer weight s counts as s neighbours, as s copies of it would.
    """
    from scipy.sparse import csr_matrix

    n_q, n_ref = Xq.shape[0], Xref.shape[0]
    counted = weight is not None and not np.all(weight == 1.0)
    rows, cols = [], []
    chunk = max(1, int(2_000_000 // max(1, n_ref * max(1, Xref.shape[1]))))
    for start in range(0, n_q, chunk):
        q = Xq[start:start + chunk]
        d2 = np.sum((q[:, None, :] - Xref[None, :, :]) ** 2, axis=2)
        if counted:
            order = np.argsort(d2, axis=1, kind="stable")
            reach = np.cumsum(weight[order], axis=1) >= k * (1.0 - 1e-12)
            pos = np.argmax(reach, axis=1)
            kth = np.take_along_axis(d2, order[np.arange(q.shape[0]), pos][:, None], axis=1)[:, 0]
        else:
            kth = np.partition(d2, k - 1, axis=1)[:, k - 1]
        mask = d2 <= kth[:, None] * (1.0 + 1e-10) + 1e-300
        r, c = np.nonzero(mask)
        rows.append(r + start)
        cols.append(c)
    rows_a = np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)
    cols_a = np.concatenate(cols) if cols else np.zeros(0, dtype=np.intp)
    return csr_matrix((np.ones(rows_a.size), (rows_a, cols_a)), shape=(n_q, n_ref))


class _NNModel:
    def __init__(self, X: np.ndarray, k: int, s: np.ndarray, shared: dict | None = None) -> None:
        if shared is not None and "nn" in shared:  # one-vs-rest: the same rows, neighbours and weights
            self.M, self.Mc, self.card, self.rank = shared["nn"]
        else:
            self.M = _neighbour_matrix(X, X, k, s)  # M[i, j] = 1 iff x_j in NN_k(x_i)
            self.Mc = self.M.tocsc()
            self.card = np.asarray(self.M.T @ s).ravel()  # the weight of each reciprocal neighbourhood
            # ties go to the example first in the lexicographic order of x, whatever the order of the rows
            self.rank = np.empty(X.shape[0], dtype=np.intp)
            self.rank[np.lexsort(X.T[::-1])] = np.arange(X.shape[0])
            if shared is not None:
                shared["nn"] = (self.M, self.Mc, self.card, self.rank)
        self.s = s
        self.A = np.zeros(X.shape[0])

    def propose(self, w, ws, ystar, gamma_wl):
        MT = self.M.T
        num = MT @ (ws * ystar)
        W = MT @ ws
        live = (MT @ (w > _SATURATED).astype(float)) > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            edge = np.where(W > 0, num / np.where(W > 0, W, 1.0), 0.0)
        ok = live & (np.abs(edge) >= gamma_wl) & (np.abs(edge) > 0)
        best_seen = float(np.max(np.abs(np.where(live, edge, 0.0)))) if edge.size else 0.0
        if not ok.any():
            return [], best_seen
        score = np.where(ok, num ** 2 / np.maximum(self.card, 1e-300), -np.inf)
        top = float(np.max(score))
        near = np.flatnonzero(score >= top * (1.0 - _TIE))
        j = int(near[np.argmin(self.rank[near])])
        col = self.Mc[:, j]
        idx = col.indices[np.argsort(col.indices)]
        info = {"example": j, "J": _J(ws[idx], self.s[idx])}
        return [_Step(idx, np.ones(idx.size), float(edge[j]), info)], float(abs(edge[j]))

    def apply(self, step, alpha):
        self.A[step.info["example"]] += alpha
        return (step.info["example"], alpha)

    def n_columns(self):
        return int(np.count_nonzero(self.A))


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------


class ModaBoostClassifier(Booster):
    """MODABOOST (Mansour, Nock, Williamson; Algorithm 1) for any strictly proper loss.

    Boosts the surrogate risk ``Phi(H, S) = E_i[Phi_l(-H(x_i)) - y_i H(x_i)]``
    (eq. 9) of a proper loss ``l`` with weights ``w = y - y* (-L_')^{-1}(H(x))``
    (eq. 14) and leveraging coefficients solving eq. (15); the model class is
    a linear separator, a decision tree or leveraged nearest neighbours.  See
    :mod:`lpboosting.leveraging.modaboost` for the algorithm, the bracket of
    the root-finding and the weak learners.

    **Sample weights** (``fit(X, y, sample_weight)``, s_i >= 0) count each
    example s_i times: Phi(H, S) becomes the weighted mean
    sum_i s_i [Phi_l(-H(x_i)) - y_i H(x_i)] / sum_i s_i, s_i multiplies w_i
    in the edges (19), in eq. (15) and in J, and rows of weight 0 are left
    out.  For ``model="nn"`` a row of weight s counts as s neighbours (the
    K-th distance is where the nearest rows reach a total weight K), so
    integer weights are repeated rows for all three model classes; for
    "linear" and "tree" every step is also unchanged when all weights are
    scaled, for "nn" scaling the weights changes the neighbourhoods.

    **Ties** between equally good hypotheses (to rounding) go by fixed
    rules -- the lowest feature, then threshold; the leaf created first; the
    example first in the lexicographic order of x -- that do not depend on
    the order of the rows or on how many rows hold a value.  Nothing is drawn at random, so there is no
    ``random_state``: two fits on the same data are identical.

    **More than two classes**: K binary models, model k the fit on the
    labels ``y == classes_[k]`` (same parameters, same ``sample_weight``,
    up to ``max_rounds`` calls each; the ``callback`` sees every class's
    rounds and stops the class it is called for), in ``one_vs_rest_``.
    For ``model="nn"`` the K fits share the neighbours of the training rows
    (and predictions the neighbours of X); trees and linear separators are
    fitted separately for each class.  ``decision_function`` has one column
    per class, ``predict`` gives the class of the largest H (columns equal
    but for rounding, within 1e-9 max(1, max_k |H_k(x)|), are tied and the
    tie goes to the first of them in ``classes_``), ``predict_proba`` normalises the K
    posteriors eta~(H_k(x)) over the classes (uniform where they are all 0),
    and the staged predictions step through the calls with a model that
    stopped earlier held at its last call.  ``warm_start`` continues every
    class's model; ``verbose`` lines and the warnings of a class's fit start
    with ``[label vs rest]``.  ``apply`` and ``surrogate_risk`` are defined
    for two classes only (use those of ``one_vs_rest_[k]``).

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
    warm_start : bool, default False
        When True and the estimator is fitted, ``fit`` continues Algorithm 1
        from the fitted H up to ``max_rounds`` weak-learner calls in all
        (same training data, ``loss``, ``model``, ``n_neighbors``,
        ``max_depth`` and ``fit_intercept``; ``gamma_wl``, ``alpha_tol``
        and ``callback`` may change).  The rounds are deterministic, so T1
        rounds continued to T2 give the model of a T2-round fit.
    verbose : int >= 0, default 0
        With verbose > 0, print one line per round to standard output: the
        round, Phi(H_t, S), the |edge| and alpha of h_t, |S_t|, the training
        accuracy and the model's size (features used, leaves, or examples
        leveraged).
    n_jobs : int or None, default None
        More than two classes: the one-vs-rest models fitted in parallel, in
        threads (numpy's large array operations run without the GIL); the
        models are those of the sequential fit.  None is 1, -1 all cores.
    n_rounds : int, deprecated
        The old name of ``max_rounds`` (used, with a FutureWarning, when set).

    Attributes
    ----------
    classes_ : labels; ``classes_[1]`` is the positive class (y = 1).
    one_vs_rest_ : list of ModaBoostClassifier, more than two classes only
        Model k is the binary fit on ``y == classes_[k]`` (its ``classes_``
        are ``[False, True]``).  The K-class model itself has ``classes_``,
        ``loss_``, ``history_`` (the list of the K histories), ``n_rounds_``
        and ``n_estimators_`` (summed) and ``status_`` (the models' common
        status, else the first that is neither "converged" nor "fitted");
        the other attributes below are those of each model.
    loss_ : the :class:`~lpboosting.losses.ProperLoss` used.
    history_ : :class:`~lpboosting.colgen.History`, one record per round:
        ``primal`` and ``extra["loss"]`` are Phi(H_t, S) after the round,
        ``edge`` the |normalised edge| of h_t, ``iterations`` the evaluations
        of g in the root-finding, ``master_seconds`` / ``pricing_seconds`` the
        time of Step 2.3 / Step 2.2; extras ``alpha``, ``support`` (|S_t|,
        rows), ``support_weight`` (their total weight), ``mean_weight``
        (weighted mean of w_t over S_t), ``J``, ``train_accuracy`` and
        model-specific ones (``feature``, ``leaf``, ``threshold``,
        ``alpha_companion``, ``example``).  ``meta`` holds the final status,
        ``stop_reason`` and the best edge left when the weak learner stopped.
    loss_curve_ : ndarray (n_rounds_ + 1,)
        Phi(H_t, S) for t = 0..n_rounds_ (``loss_curve_[0] = Phi(0, S)``).
    n_rounds_, n_estimators_ : int
        Weak-learner calls made (the same number, under scikit-learn's name
        too); :meth:`staged_decision_function` and :meth:`staged_predict`
        give the model after each of them.
    status_ : "converged" (weak learning assumption broke), "fitted" (every
        example fitted), "max_rounds", "stopped" (callback) or "interrupted"
        (Ctrl-C: the rounds completed are kept, with a RuntimeWarning).
    coef_, intercept_ : for ``model="linear"``; H(x) = coef_ . x + intercept_.
    tree_ : dict of node arrays for ``model="tree"`` (feature, threshold,
        left, right, value = H at the node, depth, n_samples at leaves).
    X_fit_, sample_weight_fit_, leverage_, n_neighbors_ : for ``model="nn"``:
        H(x) = sum of leverage_[j] over the neighbours j of x in X_fit_ (the
        rows of positive weight; their weights count for the K-th distance).
    feature_importances_ : ndarray (n_features,)
        The leveraging coefficients' mass per feature, normalised to 1:
        "linear", |coef_j| max_i |x_ij| (the weight of the weak learner's
        hypothesis x_j / max_i |x_ij| in [-1, 1]); "tree", the |alpha| of the
        half splits on each feature (a constant step on a leaf uses none).
        Not defined for "nn" (AttributeError): a neighbourhood uses every
        feature through the distance.

    ``staged_predict_proba`` gives ``predict_proba`` after every call, and
    :func:`lpboosting.save_model` writes the model as JSON (for "nn" with its
    training rows; a loss given as a ProperLoss of one's own cannot be
    written: use pickle).
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
        warm_start: bool = False,
        verbose: int = 0,
        n_jobs: int | None = None,
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
        self.warm_start = warm_start
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.n_rounds = n_rounds

    _binary_attributes = ("loss_curve_", "coef_", "intercept_", "tree_", "X_fit_", "sample_weight_fit_",
                          "leverage_", "n_neighbors_", "_train_decision", "_steps", "_feature_range")
    _summed = ("n_rounds_", "n_estimators_")
    #: "fitted": every training example is fitted (a one-vs-rest fit's status is the first other)
    _done_statuses = ("converged", "fitted")

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        self.loss_ = models[0].loss_

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
        "warm_start": ["boolean"],
        "verbose": VERBOSE,
        "n_jobs": N_JOBS,
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
    def _new_model(self, X: np.ndarray, s: np.ndarray):
        if self.model == "linear":
            return _LinearModel(X, bool(self.fit_intercept), s)
        if self.model == "tree":
            return _TreeModel(X, self.max_depth, s)
        return _NNModel(X, int(self.n_neighbors), s, getattr(self, "_shared", None))

    def _restored_model(self, X: np.ndarray, s: np.ndarray):
        """The fitted model as a model object over the same training rows, to grow further."""
        if self.model == "tree":
            return _TreeModel.restore(self.tree_, X, self.max_depth, s)
        mdl = self._new_model(X, s)
        if self.model == "linear":
            mdl.theta = np.append(self.coef_, self.intercept_) if self.fit_intercept else self.coef_.copy()
        else:
            mdl.A = self.leverage_.copy()
        return mdl

    @with_eval_set
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> ModaBoostClassifier:
        """Run MODABOOST for at most ``max_rounds`` weak-learner calls on (X, y).

        ``sample_weight`` (optional, >= 0): example weights, each example
        counted s_i times (see the class doc); weight 0 leaves the row out.
        More than two classes: one binary fit per class (class k against the
        rest), each with these weights and up to ``max_rounds`` calls.
        """
        check_params(self)
        max_rounds = int(renamed_parameter(self, "n_rounds", "max_rounds"))
        data = training_data(self, X, y, sample_weight)
        X, s, ystar = data.X, data.weight, data.y_pm
        loss = get_proper_loss(self.loss)
        if self.model == "nn" and self.n_neighbors > data.total_weight * (1.0 + 1e-12):
            if sample_weight is None:
                raise ValueError(f"{type(self).__name__}: n_neighbors={self.n_neighbors} exceeds the "
                                 f"{X.shape[0]} training samples; lower n_neighbors")
            raise ValueError(f"{type(self).__name__}: n_neighbors={self.n_neighbors} exceeds the total "
                             f"sample_weight {data.total_weight:g} of the training samples (a row of "
                             "weight s counts as s neighbours); lower n_neighbors")
        frozen = {"loss": loss.name if isinstance(self.loss, str) else repr(self.loss),
                  "model": self.model, "n_neighbors": int(self.n_neighbors), "max_depth": self.max_depth,
                  "fit_intercept": bool(self.fit_intercept)}
        if data.classes.size > 2:
            return self._fit_each_class(data, sample_weight is not None, frozen, max_rounds)
        resume = self._check_warm_start(data.fingerprint, frozen, max_rounds)
        if resume and max_rounds == self.n_rounds_:
            return self
        y01 = (ystar > 0).astype(float)
        s_total = data.total_weight

        def risk(H: np.ndarray) -> float:
            """Phi(H, S), weighted (eq. 9)."""
            return float(np.sum(s * (loss.surrogate(-H) - y01 * H)) / s_total)

        if resume:
            mdl = self._restored_model(X, s)
            H = self._train_decision.copy()
            curve = list(self.loss_curve_)
            history = copy.deepcopy(self.history_)
            history.meta.update(max_rounds=max_rounds, gamma_wl=float(self.gamma_wl))
            steps_log = list(self._steps)
        else:
            mdl = self._new_model(X, s)
            H = np.zeros(X.shape[0])
            phi = risk(H)
            curve = [phi]
            history = History(meta={"algorithm": "MODABOOST", "loss": loss.name, "model": self.model,
                                    "gamma_wl": float(self.gamma_wl), "max_rounds": max_rounds,
                                    "initial_loss": phi})
            if sample_weight is not None:
                history.meta["total_weight"] = s_total
            steps_log = []
        status, final_edge = "max_rounds", None
        with self._ctrl_c() as ctrl_c:
            try:
                for t in range(len(history) + 1, max_rounds + 1):
                    w = loss.weight(y01, H)
                    if np.all(w <= _SATURATED):
                        status = "fitted"
                        break
                    ws = s * w
                    tic = time.perf_counter()
                    steps, best = mdl.propose(w, ws, ystar, float(self.gamma_wl))
                    pricing = time.perf_counter() - tic
                    if not steps:
                        status, final_edge = "converged", float(best)
                        break
                    tic = time.perf_counter()
                    alphas, evals, perfect = [], 0, False
                    for st in steps:
                        a, n_ev, perf = solve_alpha(loss, y01[st.idx], H[st.idx], st.h,
                                                    xtol=float(self.alpha_tol), sample_weight=s[st.idx])
                        alphas.append(a)
                        evals += n_ev
                        perfect = perfect or perf
                    master = time.perf_counter() - tic
                    support = steps[0].idx
                    H_next = H.copy()
                    for st, a in zip(steps, alphas):
                        H_next[st.idx] += a * st.h
                    phi = risk(H_next)
                    extra = {"loss": phi, "alpha": float(alphas[0]), "support": int(support.size),
                             "support_weight": float(s[support].sum()),
                             "mean_weight": float(ws[support].sum() / s[support].sum()),
                             "perfect": bool(perfect),
                             "train_accuracy": float(np.sum(s * ((H_next > 0) == (y01 == 1))) / s_total)}
                    for k, v in steps[0].info.items():
                        extra.setdefault(k, v)
                    if len(steps) > 1:
                        extra["alpha_companion"] = float(alphas[1])
                        extra["edge_companion"] = float(abs(steps[1].edge))
                    ctrl_c.hold()  # the round's effects, all or none
                    try:
                        if self.model == "tree":
                            change = mdl.apply_round(steps, alphas)
                        else:
                            change = mdl.apply(steps[0], alphas[0])
                        record = RoundRecord(
                            round=t, n_columns=mdl.n_columns(), primal=phi, dual=None, gap=None,
                            edge=float(abs(steps[0].edge)), exact=True, master_seconds=master,
                            pricing_seconds=pricing, iterations=evals, status="added", extra=extra,
                        )
                        H = H_next
                        curve.append(phi)
                        steps_log.append(change)
                        history.append(record)
                    finally:
                        ctrl_c.release()
                    print_round(self, t, {"loss": phi, "edge": record.edge, "alpha": extra["alpha"],
                                          "support": extra["support"],
                                          "train_accuracy": extra["train_accuracy"],
                                          _SIZE[self.model]: record.n_columns})
                    if self.callback is not None and self.callback(record):
                        status = "stopped"
                        break
            except KeyboardInterrupt:
                if not history.records:
                    raise
                status = "interrupted"
        reasons = {
            "converged": f"no hypothesis has a normalised edge >= gamma_wl={float(self.gamma_wl):g} "
                         "(the weak learning assumption broke: the loss cannot be decreased further)",
            "fitted": "every training example is fitted (its weight vanished)",
            "stopped": "the callback asked to stop",
            "max_rounds": f"max_rounds={max_rounds} weak-learner calls made while the weak learner "
                          "still had an edge",
            "interrupted": "interrupted by the user (Ctrl-C)",
        }
        history.meta.update(status=status, final_edge=final_edge, n_rounds=len(history),
                            stop_reason=reasons[status])
        if status == "max_rounds":
            warnings.warn(f"{type(self).__name__}: {reasons[status]}; raise max_rounds (or gamma_wl)",
                          ConvergenceWarning, stacklevel=caller_level())
        elif status == "interrupted":
            warn_interrupted(self, len(history), what="weak-learner calls",
                             advice="; fit again with warm_start=True to continue")
        self._forget_one_vs_rest()
        self.classes_ = data.classes
        self.loss_ = loss
        self.history_ = history
        self.loss_curve_ = np.asarray(curve)
        self.n_rounds_ = len(history)
        self.n_estimators_ = self.n_rounds_
        self.status_ = status
        self._train_decision = H
        self._steps = steps_log
        self._remember_fit(data.fingerprint, frozen)
        self.__dict__.pop("_feature_range", None)
        if self.model == "linear":
            d = X.shape[1]
            self.coef_ = mdl.theta[:d].copy()
            self.intercept_ = float(mdl.theta[d]) if self.fit_intercept else 0.0
            # h_j = x_j / max_i |x_ij|, the weak learner's hypothesis in [-1, 1] (feature_importances_)
            self._feature_range = np.vstack([-mdl.scale[:d], mdl.scale[:d]])
        elif self.model == "tree":
            self.tree_ = mdl.export()
        else:
            self.X_fit_ = X.copy()
            self.sample_weight_fit_ = s.copy()
            self.leverage_ = mdl.A.copy()
            self.n_neighbors_ = int(self.n_neighbors)
        return self

    # -- prediction -------------------------------------------------------------
    def _untie(self, H: np.ndarray) -> np.ndarray:
        """H with the values whose posterior equals eta~(0) in floating point set to 0."""
        tie = (H != 0) & (self.loss_.inverse_link(H) == self.loss_.inverse_link(0.0))
        return np.where(tie, 0.0, H)

    def _neighbours(self, X: np.ndarray):
        return _neighbour_matrix(X, self.X_fit_, self.n_neighbors_, self.sample_weight_fit_)

    def _raw_decision(self, X: np.ndarray, neighbours=None) -> np.ndarray:
        if self.model == "linear":
            return X @ self.coef_ + self.intercept_
        if self.model == "tree":
            return self.tree_["value"][_tree_apply(self.tree_, X)]
        if neighbours is None:
            neighbours = self._neighbours(X)
        return np.asarray(neighbours @ self.leverage_).ravel()

    def _ovr_columns(self, X: np.ndarray) -> list[np.ndarray]:
        models = self.one_vs_rest_
        # "nn": every class's model has the same rows, weights and K, so the same neighbours of X
        neighbours = models[0]._neighbours(X) if self.model == "nn" else None
        return [m._untie(m._raw_decision(X, neighbours)) for m in models]

    def _decision(self, X: np.ndarray) -> np.ndarray:
        """H(x): positive means ``classes_[1]``; the posterior of that class is ``eta~(H(x))``.

        A value whose posterior equals ``eta~(0)`` in floating point (|H| of
        the order of 1e-16, e.g. a leaf with p^+ = 1/2 reached by root-finding)
        is returned as exactly 0, so that predict, decision_function and
        predict_proba agree on ties.
        """
        return self._untie(self._raw_decision(X))

    def _staged(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """H_t(x) after every weak-learner call t = 1..``n_estimators_``.

        The model after round t is rebuilt from the changes logged during the
        fit (a coefficient, a leaf's value or split, an example's leverage),
        with the operations of the fit; the last value is
        ``decision_function(X)``, exactly.
        """
        T = len(self._steps)
        if self.model == "linear":
            d = X.shape[1]
            theta = np.zeros(d + int(self.fit_intercept))
            for t, (j, alpha) in enumerate(self._steps, start=1):
                theta[j] += alpha
                if t == T:
                    break
                yield self._untie(X @ theta[:d] + (float(theta[d]) if self.fit_intercept else 0.0))
        elif self.model == "tree":
            value = [0.0]
            node = np.zeros(X.shape[0], dtype=np.intp)
            for t, change in enumerate(self._steps, start=1):
                if change[0] == "constant":
                    _, leaf, alpha = change
                    value[leaf] += alpha
                else:
                    _, leaf, f, a, left, right, v_left, v_right = change
                    value.extend([0.0] * (max(left, right) + 1 - len(value)))
                    value[left], value[right] = v_left, v_right
                    here = node == leaf
                    node[here] = np.where(X[here, f] >= a, right, left)
                if t == T:
                    break
                yield self._untie(np.asarray(value)[node])
        else:
            Mq = self._neighbours(X)
            A = np.zeros(self.X_fit_.shape[0])
            for t, (j, alpha) in enumerate(self._steps, start=1):
                A[j] += alpha
                if t == T:
                    break
                yield self._untie(np.asarray(Mq @ A).ravel())
        if T:
            yield self._untie(self._raw_decision(X))

    def apply(self, X: Any) -> np.ndarray:
        """Index (into the arrays of ``tree_``) of the leaf every row of X reaches; ``model="tree"`` only,
        two classes only (one tree per class otherwise: ``one_vs_rest_[k].apply(X)``)."""
        check_is_fitted(self)
        self._binary_only("apply")
        if self.model != "tree" or not hasattr(self, "tree_"):
            raise ValueError(f"apply() needs model='tree'; this {type(self).__name__} was fitted "
                             f"with model={self.model!r}")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return _tree_apply(self.tree_, X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Columns ``[1 - eta~(H(x)), eta~(H(x))]``: the posterior from the inverse link (eq. 5).

        More than two classes: each class's model gives eta~(H_k(x)), its
        posterior of class k against the rest; these are normalised over the
        classes (uniform where they are all 0), columns as ``classes_``.
        """
        return self._proba(self.decision_function(X))

    def _importances(self) -> np.ndarray:
        """The leveraging coefficients' mass per feature (see the class docstring)."""
        n = self.n_features_in_
        if self.model == "linear":
            return linear_importances(self.coef_, *self._feature_range)
        if self.model == "nn":
            raise AttributeError(
                f"feature_importances_ is defined for model='linear' and model='tree'; this "
                f"{type(self).__name__} has model='nn', whose hypotheses (the neighbourhoods of training "
                "examples) use every feature through the distance")
        # a tree: the half splits leveraged on each feature, |alpha| each (a constant step uses none)
        from lpboosting.estimators.base import weighted_importances
        from lpboosting.oracles import Stump

        value, weights, hypotheses = [0.0], [], []
        for change in self._steps:
            if change[0] == "constant":
                _, leaf, alpha = change
                value[leaf] += alpha
                continue
            _, leaf, f, a, left, right, v_left, v_right = change
            value.extend([0.0] * (max(left, right) + 1 - len(value)))
            for v in (v_left, v_right):  # each half: H of the parent plus its alpha
                weights.append(v - value[leaf])
                hypotheses.append(Stump(int(f), float(a), 1.0))
            value[left], value[right] = v_left, v_right
        return weighted_importances(weights, hypotheses, n)

    def _proba(self, H: np.ndarray) -> np.ndarray:
        """:meth:`predict_proba` from the decision function."""
        if H.ndim == 2:
            return self._ovr_normalise(self.loss_.inverse_link(H))
        p1 = self.loss_.inverse_link(H)
        p0 = self.loss_.weight(np.ones_like(H), H)  # 1 - eta~(H), without cancellation for the log loss
        return np.column_stack([p0, p1])

    def surrogate_risk(self, X: Any, y: Any) -> float:
        """Phi(H, S) (eq. 9) on labelled data (labels from ``classes_``); two classes only."""
        check_is_fitted(self)
        self._binary_only("surrogate_risk", "X, y == classes_[k]")
        H = self.decision_function(X)
        signs = labels_to_signs(self.classes_, y, H.size)
        return self.loss_.surrogate_risk((signs > 0).astype(float), H)
