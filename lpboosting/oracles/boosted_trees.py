"""The trees of a gradient-boosted forest as a finite pool: the LP chooses their weights.

Gradient boosting (scikit-learn's ``HistGradientBoostingClassifier``) grows
one regression tree t_m per iteration, each on the gradients the earlier ones
left, and adds them with equal weight (its learning rate)::

    F(x) = b + lr * sum_m t_m(x)

Here the forest is fitted once on the training rows, and its trees become
the hypotheses of LPBoost's soft-margin LP: tree m, scaled to [-1, 1] on
the training rows, is h_m(x) = t_m(x) / max_n |t_m(x_n)|, and -h_m is a
hypothesis too (w >= 0 in the LP).  The LP then weights the trees by the
soft margin of the examples instead of equally; with nu chosen by
cross-validation it keeps the forest's fit to interactions of features and
the soft margin's robustness to label noise.

With ``whole_forest=True`` the forest itself is one more hypothesis: its
expected label h_F(x) = 2 p(x) - 1 = tanh(F(x) / 2), p(x) the forest's
probability of +1 (and -h_F).  The LP may then put its weight on the
forest's own decision, correct it with its trees, or leave it.  The forest
is confident (|h_F| near 1) on most rows it fits, so its soft margin
competes with its trees'; scaled as a tree is (F / max_n |F(x_n)|), most of
its margins would be small and the LP would leave it out.

The pool is finite and priced exactly (the column of largest edge d . u).
Each tree's output is read from the forest's public staged decision
function (the difference of consecutive stages), not from its private
predictors; the first tree's output is the first stage less the forest's
constant start b, the log-odds of the training labels' share of +1 (their
weighted share when the fit has sample weights: the forest is fitted with them;
a forest stopped early starts from the share among the rows it kept, and its
first tree then carries the small difference as a constant).
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

import numpy as np

from lpboosting.masters.base import check_sample_weight
from lpboosting.oracles.base import Candidate, check_features, check_labels_pm
from lpboosting.oracles.columns import Columns

#: a tree whose largest output on the training rows is below this is constant 0: no hypothesis
ZERO_TREE = 1e-12
#: the index of the whole forest's decision function among a pool's trees (``whole_forest=True``)
WHOLE_FOREST = -2


def forest_setup(n_rows: int, labels: np.ndarray, sample_weight: Any, *, max_iter: int, learning_rate: float,
                 max_leaf_nodes: int | None, max_depth: int | None, min_samples_leaf: int | None,
                 l2_regularization: float, max_bins: int, random_state: int | None) -> tuple[dict, np.ndarray | None]:
    """The forest's parameters for ``HistGradientBoostingClassifier`` (``min_samples_leaf=None``: 20
    rows a leaf, a tenth of the rows on fewer than 200, at least 1) and the rows' checked weights
    (None, or finite, >= 0, a positive sum, one per label); ValueError on a bad ``max_iter``."""
    if isinstance(max_iter, bool) or int(max_iter) != max_iter or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1 (the forest's iterations), got {max_iter!r}")
    sample_weight = check_sample_weight(sample_weight)
    if sample_weight is not None and sample_weight.shape != labels.shape:
        raise ValueError(f"sample_weight must have one weight per row ({labels.size}), got {sample_weight.size}")
    if min_samples_leaf is None:
        min_samples_leaf = min(20, max(1, n_rows // 10))
    params = {"max_iter": int(max_iter), "learning_rate": learning_rate, "max_leaf_nodes": max_leaf_nodes,
              "max_depth": max_depth, "min_samples_leaf": min_samples_leaf, "l2_regularization": l2_regularization,
              "max_bins": max_bins, "random_state": random_state}
    return params, sample_weight


def expected_label(decision: np.ndarray) -> np.ndarray:
    """2 p - 1 = tanh(F / 2) for a forest's decision function F (log-odds of +1): the whole forest's
    hypothesis, in [-1, 1]."""
    return np.tanh(np.asarray(decision, dtype=float) / 2.0)


def can_hold_out(labels: np.ndarray, fraction: float = 0.1) -> bool:
    """Whether a forest can stop early on these labels: scikit-learn holds out a stratified
    ``fraction`` of the rows (rounded up), which needs two rows of each class and a row of each
    class on both sides."""
    _, counts = np.unique(labels, return_counts=True)
    held_out = int(np.ceil(fraction * labels.size))
    return bool(counts.min() >= 2 and counts.size <= held_out <= labels.size - counts.size)


class RowsMemo:
    """The answer for the last X asked for, remembered by its shape and bytes: a forest's
    hypotheses each read one column of the same pass over X's stages."""

    def __init__(self) -> None:
        self._cache: tuple[tuple, np.ndarray] | None = None

    def remembered(self, X: Any, compute: Any) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=float)
        key = (X.shape, hashlib.blake2b(X.tobytes(), digest_size=16).digest())
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, compute(X))
        return self._cache[1]

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_cache": None}


class BoostedForest(RowsMemo):
    """A fitted ``HistGradientBoostingClassifier`` on labels -1/+1 and its trees' outputs.

    ``outputs(X)`` is the (n, M) matrix of the M trees' outputs t_m(x) (the
    learning rate included); the last X asked for is remembered (by its
    shape and bytes), so that the M hypotheses of one prediction read one
    pass of the staged decision function.
    """

    def __init__(self, model: Any, start: float) -> None:
        super().__init__()
        self.model = model
        self.start = float(start)

    @property
    def n_trees(self) -> int:
        return int(self.model.n_iter_)

    def outputs(self, X: Any) -> np.ndarray:
        return self.remembered(X, self._outputs)

    def _outputs(self, X: np.ndarray) -> np.ndarray:
        stages = np.column_stack([np.asarray(s, dtype=float).ravel()
                                  for s in self.model.staged_decision_function(X)])
        return np.diff(stages, axis=1, prepend=self.start)

    def decision(self, X: Any) -> np.ndarray:
        """The forest's decision function F(x) = b + sum_m t_m(x), from the remembered stages."""
        return self.start + self.outputs(X).sum(axis=1)


class BoostedTree:
    """Tree ``index`` of a :class:`BoostedForest`, scaled: ``sign * t_m(x) / scale``, in [-1, 1].
    Index -1 is the constant ``sign`` (the pool of a forest none of whose trees splits), index
    :data:`WHOLE_FOREST` the forest's expected label ``sign * tanh(F(x) / 2)`` (its scale unused)."""

    def __init__(self, forest: BoostedForest, index: int, sign: float, scale: float) -> None:
        self.forest, self.index, self.sign, self.scale = forest, int(index), float(sign), float(scale)

    def predict(self, X: np.ndarray) -> np.ndarray:
        if self.index == WHOLE_FOREST:
            return self.sign * expected_label(self.forest.decision(X))
        if self.index < 0:
            return np.full(np.shape(X)[0], self.sign)
        out = self.forest.outputs(X)[:, self.index] / self.scale
        return self.sign * np.clip(out, -1.0, 1.0)

    def __repr__(self) -> str:
        sign = "-" if self.sign < 0 else "+"
        if self.index == WHOLE_FOREST:
            return f"BoostedTree({sign}the forest of {self.forest.n_trees})"
        if self.index < 0:
            return f"BoostedTree(constant {self.sign:+g})"
        return f"BoostedTree({sign}tree {self.index + 1} of {self.forest.n_trees})"

    def describe(self, feature_names: Sequence[str] | None = None) -> str:
        minus = "minus " if self.sign < 0 else ""
        if self.index == WHOLE_FOREST:
            return (f"{minus}the expected label 2p(x) - 1 of a gradient-boosted forest of {self.forest.n_trees} trees "
                    f"(p its probability of +1)")
        if self.index < 0:
            return f"the constant {self.sign:+g} (no tree of the forest splits)"
        return (f"{minus}tree {self.index + 1} of a gradient-boosted forest of "
                f"{self.forest.n_trees}, scaled by 1/{self.scale:.4g}")


class BoostedTrees(Columns):
    """Exact oracle over the trees of a gradient-boosted forest fitted once on (X, y): a
    :class:`~lpboosting.oracles.Columns` pool whose columns are the trees.

    The forest is scikit-learn's ``HistGradientBoostingClassifier`` with the
    given parameters, without early stopping (``max_iter`` trees) unless
    ``early_stopping`` says otherwise (``"auto"``: as the forest's own
    default, on more than 10 000 rows; a tenth of the rows held out, and not on
    rows too few to hold a tenth out with both classes); the pool
    is each tree and its negation, scaled to [-1, 1] on the training rows
    (see the module docstring).  ``min_samples_leaf=None`` is the forest's
    20 rows a leaf, fewer on fewer than 200 rows (a tenth of them, at least
    1).  When no tree splits (constant features, too few rows), the pool is
    the two constants +1 and -1.  Missing values (NaN) go where the forest
    sends them.  ``sample_weight`` (the fit's weights of the rows) is the
    forest's: it fits the weighted rows, as the LP does.  ``whole_forest=True``
    adds the forest's expected label tanh(F(x) / 2) to the pool (and its
    negation).
    """

    exact = True
    name = "gb-trees"
    takes_sample_weight = True

    def __init__(self, X, y, *, max_iter: int = 200, learning_rate: float = 0.1, max_leaf_nodes: int | None = 31,
                 max_depth: int | None = None, min_samples_leaf: int | None = None, l2_regularization: float = 0.0,
                 max_bins: int = 255, random_state: int | None = 0, whole_forest: bool = False,
                 early_stopping: bool | str = False, sample_weight: Any = None) -> None:
        from sklearn.ensemble import HistGradientBoostingClassifier

        X = check_features(X, allow_nan=True, oracle=self.name)
        self.y = check_labels_pm(y, X.shape[0])
        self.params, sample_weight = forest_setup(
            X.shape[0], self.y, sample_weight, max_iter=max_iter, learning_rate=learning_rate,
            max_leaf_nodes=max_leaf_nodes, max_depth=max_depth, min_samples_leaf=min_samples_leaf,
            l2_regularization=l2_regularization, max_bins=max_bins, random_state=random_state)
        if early_stopping not in (True, False, "auto"):
            raise ValueError(f"early_stopping must be True, False or 'auto', got {early_stopping!r}")
        if not isinstance(whole_forest, (bool, np.bool_)):
            raise ValueError(f"whole_forest must be True or False, got {whole_forest!r}")
        self.whole_forest = bool(whole_forest)
        self.sample_weight = sample_weight
        weight = np.ones_like(self.y) if sample_weight is None else sample_weight
        if not (np.any(weight[self.y > 0] > 0) and np.any(weight[self.y < 0] > 0)):
            raise ValueError("the gradient-boosted forest needs both classes among the labels (of weight > 0)")
        self.early_stopping = early_stopping
        # too few rows to hold a tenth out (a fold of a small set): the forest's max_iter trees
        stops = early_stopping if early_stopping is not True or can_hold_out(self.y) else False
        model = HistGradientBoostingClassifier(early_stopping=stops, **self.params).fit(
            X, self.y, sample_weight=sample_weight)
        share = float(weight[self.y > 0].sum() / weight.sum())
        self.forest = BoostedForest(model, np.log(share / (1.0 - share)))
        trees = self.forest.outputs(X)
        scale = np.abs(trees).max(axis=0)
        kept = np.flatnonzero(scale > ZERO_TREE)
        self._X = X
        if kept.size:
            self.trees = kept  # forest index of each kept tree (-1: the constant, WHOLE_FOREST: the forest)
            self.scales = scale[kept]
            H = trees[:, kept] / self.scales
            if self.whole_forest:
                self.trees = np.append(self.trees, WHOLE_FOREST)
                self.scales = np.append(self.scales, 1.0)
                H = np.column_stack([H, expected_label(self.forest.decision(X))])
        else:
            self.trees, self.scales, H = np.array([-1]), np.ones(1), np.ones((X.shape[0], 1))
        super().__init__(self.y[:, None] * np.hstack([H, -H]))

    @property
    def n_columns(self) -> int:
        return self.U.shape[1]

    def relabel(self, y: Any) -> "BoostedTrees":
        """A forest fitted anew on the same X (and weights) with other labels (its trees depend on them)."""
        return BoostedTrees(self._X, y, sample_weight=self.sample_weight, whole_forest=self.whole_forest,
                            early_stopping=self.early_stopping, **self.params)

    def _candidate(self, edges: np.ndarray, m: int) -> Candidate:
        half = self.trees.size
        j, sign = (m, 1.0) if m < half else (m - half, -1.0)
        h = BoostedTree(self.forest, int(self.trees[j]), sign, float(self.scales[j]))
        return Candidate(h, self.U[:, m].copy(), float(edges[m]))
