"""Pricing oracles of the multiclass master: hypotheses that vote for one of K classes.

The master (:class:`~lpboosting.masters.MulticlassLPBoost`) hands over a
distribution d over (example, wrong class) pairs (:mod:`lpboosting.pairs`);
the edge of a hypothesis h is sum_i S[i, h(x_i)] with the class scores
S[i, y_i] = D_i = sum_k d_ik and S[i, k] = -d_ik: the oracle solves a
cost-sensitive classification.  Each oracle here is bound to X and the class
codes y (0..K-1); its hypotheses' ``predict`` gives class codes, and its
candidates' columns are pair columns (int8, N (K - 1) entries).

- :class:`ClassStumps`: every threshold of every feature with the best class
  on each side, exact (cumulative sums of S along each presorted feature,
  one pass per feature over all K classes); :class:`BinnedClassStumps` the
  same at the binned stumps' thresholds;
- :class:`ClassPool`: a finite pool, an N x M matrix of predicted classes, exact;
- :class:`ClassTrees`: CART regression trees on the scores, leaves voting the
  class of largest summed score; inexact;
- :class:`ClassForest`: the stages of a gradient-boosted forest fitted once
  (scikit-learn's ``HistGradientBoostingClassifier``), each the class the
  forest of its first m iterations votes for: a finite pool, exact; with
  ``one_vs_rest=True`` K binary forests, one per class against the rest;
- :class:`ClassCallable`: a user's ``fn(X, y, scores)`` returning a hypothesis; inexact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lpboosting.oracles.base import Candidate, Oracle, check_features
from lpboosting.oracles.binned import bin_thresholds, check_max_bins
from lpboosting.oracles.boosted_trees import RowsMemo, can_hold_out, forest_setup
from lpboosting.oracles.columns import call_user_oracle
from lpboosting.oracles.stumps import clean_threshold
from lpboosting.pairs import check_class_codes, check_n_classes, class_scores, pair_column, pair_columns

__all__ = ["BinnedClassStumps", "ClassCallable", "ClassForest", "ClassPool", "ClassStump", "ClassStumps", "ClassTree",
           "ClassTrees", "ForestStage", "MulticlassOracle", "MULTICLASS_ORACLES", "OneVsRestVotes",
           "make_multiclass_oracle"]


class MulticlassOracle(Oracle):
    """Base of the oracles over K classes: ``n_samples`` examples, distributions over
    ``n_rows`` = N (K - 1) pairs, hypotheses that predict class codes."""

    def __init__(self, y: Any, n_classes: int | None = None) -> None:
        codes = np.asarray(y)
        K = check_n_classes(int(codes.max()) + 1 if n_classes is None and codes.size else (n_classes or 2))
        self.y = check_class_codes(codes, K)
        self.n_classes = K
        super().__init__(self.y.size)

    @property
    def n_rows(self) -> int:
        """The pairs: the length of a distribution and of a column."""
        return self.n_samples * (self.n_classes - 1)

    def relabel(self, y: Any) -> "Oracle":
        raise TypeError(f"the {self.name} oracle prices all K classes at once; it has no one-vs-rest labels")

    def _check_distribution(self, d: np.ndarray) -> np.ndarray:
        d = np.asarray(d, dtype=float)
        if d.shape != (self.n_rows,):
            raise ValueError(f"the distribution must have one entry per (example, wrong class) pair, shape "
                             f"({self.n_rows},) = {self.n_samples} examples x {self.n_classes - 1}; got {d.shape}")
        return d

    def scores(self, distribution: np.ndarray) -> np.ndarray:
        """S (N x K): the edge of h is sum_i S[i, h(x_i)] (:func:`lpboosting.pairs.class_scores`)."""
        return class_scores(self._check_distribution(distribution), self.y, self.n_classes)

    def candidate(self, hypothesis: Any, predicted: np.ndarray, d: np.ndarray) -> Candidate:
        """The candidate of a hypothesis with these predicted classes on the training rows."""
        column = pair_column(predicted, self.y, self.n_classes)
        return Candidate(hypothesis, column, float(d @ column))


def distinct(candidates: Sequence[Candidate], k: int) -> list[Candidate]:
    """The first ``k`` candidates with distinct columns."""
    out, seen = [], set()
    for c in candidates:
        key = hashlib.blake2b(np.ascontiguousarray(c.column).tobytes(), digest_size=16).digest()
        if key not in seen:
            seen.add(key)
            out.append(c)
            if len(out) == k:
                break
    return out


@dataclass(frozen=True)
class ClassStump:
    """h(x) = ``right`` if x[feature] > threshold else ``left`` (class codes); a missing
    x[feature] (NaN) goes right when ``missing_right``, else left.  threshold = -inf is the
    constant ``right`` (missing values aside)."""

    feature: int
    threshold: float
    left: int
    right: int
    missing_right: bool = False

    def predict(self, X: np.ndarray) -> np.ndarray:
        x = np.asarray(X, dtype=float)[:, self.feature]
        go_right = x > self.threshold
        if self.missing_right:
            go_right |= np.isnan(x)
        return np.where(go_right, self.right, self.left).astype(np.intp)

    @property
    def constant(self) -> int | None:
        """The class it always votes for, or None."""
        if self.left == self.right:
            return self.left
        if self.threshold == -np.inf and self.missing_right:
            return self.right
        return None

    def describe(self, feature_names: Sequence[str] | None = None, classes: Sequence[Any] | None = None) -> str:
        """The rule in words, e.g. ``'b' if petal width > 1.75 else 'a'``."""
        name = (lambda c: repr(c if classes is None else classes[c]))
        if self.constant is not None:
            return f"{name(self.constant)} (constant)"
        x = f"x[{self.feature}]" if feature_names is None else str(feature_names[self.feature])
        missing = f" or {x} is missing" if self.missing_right else ""
        return f"{name(self.right)} if {x} > {self.threshold!r}{missing} else {name(self.left)}"

    def importances(self, n_features: int) -> np.ndarray:
        out = np.zeros(n_features)
        if self.constant is None:
            out[self.feature] = 1.0
        return out


class ClassStumps(MulticlassOracle):
    """Every stump "class a if x_j <= theta else class b" over all features, thresholds and pairs of
    classes; exact.

    For feature j sorted, L[t] = the column sums of S over the first t rows
    (one cumulative sum of the N x K scores); a split t has edge
    max_a L[t, a] + max_b (T - L[t])_b, T the total.  Missing values (NaN)
    go to the side of larger edge: their scores are added to one side or
    the other.  Cost per pricing: O(N K) per feature.

    ``max_bins`` (None: every threshold) keeps the thresholds of the binned
    stumps (:func:`~lpboosting.oracles.binned.bin_thresholds`: at most
    ``max_bins`` bins of equal counts a feature, every threshold of a feature
    with fewer distinct values); the oracle is exact over that class.
    """

    exact = True
    name = "stumps"

    def __init__(self, X: Any, y: Any, n_classes: int | None = None, max_bins: int | None = None) -> None:
        X = check_features(X, allow_nan=True)
        super().__init__(y, n_classes)
        if X.shape[0] != self.n_samples:
            raise ValueError(f"y has {self.n_samples} labels but X has {X.shape[0]} rows; pass one label per row")
        if max_bins is not None:
            check_max_bins(max_bins)
        self.X = X
        self.max_bins = None if max_bins is None else int(max_bins)
        self._order = np.argsort(X, axis=0, kind="stable")  # NaN last
        self._sorted = np.take_along_axis(X, self._order, axis=0)
        self._present = np.count_nonzero(~np.isnan(X), axis=0)
        #: per feature with bins: the splits t = 0..n_j at a bin edge (None: every split)
        self._splits: list[np.ndarray | None] = [None] * X.shape[1]
        if self.max_bins is not None:
            for j in range(X.shape[1]):
                n_j = int(self._present[j])
                xs = self._sorted[:n_j, j]
                at_edge = np.zeros(n_j + 1, dtype=bool)
                at_edge[[0, n_j]] = True  # the constant, and every present value on the left
                if n_j:
                    # split t puts xs[:t] left: a threshold theta has xs[t - 1] <= theta < xs[t]
                    at_edge[np.searchsorted(xs, bin_thresholds(xs, self.max_bins), side="right")] = True
                self._splits[j] = at_edge

    def _feature_edges(self, S: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per split t = 0..n_j of feature j (n_j its present values) and per side of the missing
        rows (0: left, 1: right): the edge, and the best class left and right.  Splits inside ties
        have edge -inf."""
        n_j = int(self._present[j])
        order = self._order[:, j]
        L = np.zeros((n_j + 1, self.n_classes))
        np.cumsum(S[order[:n_j]], axis=0, out=L[1:])
        missing = S[order[n_j:]].sum(axis=0)
        right_all = L[-1] - L  # the present rows right of the split
        xs = self._sorted[:n_j, j]
        tie = np.zeros(n_j + 1, dtype=bool)
        tie[1:n_j] = xs[1:] <= xs[:-1]
        if self._splits[j] is not None:  # binned: only the splits at a bin edge
            tie |= ~self._splits[j]
        edges, lefts, rights = [], [], []
        for side in ((0, 1) if n_j < self.n_samples else (1,)):
            left = L + (missing if side == 0 else 0.0)
            right = right_all + (missing if side == 1 else 0.0)
            a, b = left.argmax(axis=1), right.argmax(axis=1)
            e = left[np.arange(n_j + 1), a] + right[np.arange(n_j + 1), b]
            e[tie] = -np.inf
            edges.append(e)
            lefts.append(a)
            rights.append(b)
        if len(edges) == 1:  # no missing value: the side is the default (left); one table
            edges.insert(0, np.full(n_j + 1, -np.inf))
            lefts.insert(0, lefts[0])
            rights.insert(0, rights[0])
        return np.array(edges), np.array(lefts), np.array(rights)

    def _stump(self, j: int, t: int, side: int, a: int, b: int) -> ClassStump:
        n_j = int(self._present[j])
        xs = self._sorted[:, j]
        if t == 0:
            threshold = -np.inf
        elif t >= n_j:
            threshold = np.inf
        else:
            threshold = clean_threshold(float(xs[t - 1]), float(xs[t]))
        return ClassStump(j, threshold, int(a), int(b), bool(side == 1 and n_j < self.n_samples))

    def price(self, distribution: np.ndarray) -> Candidate:
        return self.price_many(distribution, 1)[0]

    def price_many(self, distribution: np.ndarray, k: int) -> list[Candidate]:
        """Up to ``k`` stumps of largest edge with distinct columns: each feature's best first (the
        features ranked by it), then the next by edge over all features and splits."""
        d = self._check_distribution(distribution)
        S = class_scores(d, self.y, self.n_classes)
        k = max(1, int(k))
        per_feature, pool = [], []
        for j in range(self.X.shape[1]):
            edges, lefts, rights = self._feature_edges(S, j)
            flat = edges.ravel()
            m = min(flat.size, k + 2)
            top = np.argpartition(-flat, m - 1)[:m] if m < flat.size else np.arange(flat.size)
            top = top[np.lexsort((top, -flat[top]))]
            top = top[np.isfinite(flat[top])]
            entries = [(float(flat[i]), j, int(i % edges.shape[1]), int(i // edges.shape[1]),
                        int(lefts.ravel()[i]), int(rights.ravel()[i])) for i in top]
            if entries:
                per_feature.append(entries[0])
                pool.extend(entries[1:])
        per_feature.sort(key=lambda e: (-e[0], e[1]))
        pool.sort(key=lambda e: (-e[0], e[1], e[2]))
        candidates = []
        for edge, j, t, side, a, b in per_feature + pool:
            stump = self._stump(j, t, side, a, b)
            candidates.append(self.candidate(stump, stump.predict(self.X), d))
            if len(candidates) >= 4 * k:
                break
        return distinct(candidates, k)


class BinnedClassStumps(ClassStumps):
    """:class:`ClassStumps` at the thresholds of the binned stumps (``oracle="binned-stumps"`` over
    more than two classes): at most ``max_bins`` (default 255) bins of equal counts a feature, as
    :class:`~lpboosting.oracles.binned.BinnedStumps` cuts them; exact over that class."""

    name = "binned-stumps"

    def __init__(self, X: Any, y: Any, n_classes: int | None = None, max_bins: int = 255) -> None:
        super().__init__(X, y, n_classes, max_bins=max_bins)


class ClassPool(MulticlassOracle):
    """A finite pool of hypotheses given by their predicted classes (N x M codes); exact.

    ``hypotheses`` (optional, one per column) are what the result holds for
    the columns chosen (default: the column index, a :class:`PoolColumn`).
    """

    exact = True
    name = "pool"

    def __init__(self, predicted: Any, y: Any, n_classes: int | None = None,
                 hypotheses: Sequence[Any] | None = None) -> None:
        super().__init__(y, n_classes)
        P = np.asarray(predicted)
        if P.ndim != 2 or P.shape[0] != self.n_samples or P.shape[1] == 0:
            raise ValueError(f"the pool must be an N x M matrix of predicted classes with N = {self.n_samples} "
                             f"rows and M >= 1 hypotheses, got shape {P.shape}")
        self.predicted = np.column_stack([check_class_codes(P[:, m], self.n_classes, "the pool's predictions")
                                          for m in range(P.shape[1])])
        self.U = pair_columns(self.predicted, self.y, self.n_classes)
        if hypotheses is not None and len(hypotheses) != P.shape[1]:
            raise ValueError(f"hypotheses must have one entry per column of the pool ({P.shape[1]}), "
                             f"got {len(hypotheses)}")
        self.hypotheses = list(hypotheses) if hypotheses is not None else [PoolColumn(m) for m in range(P.shape[1])]

    def edges(self, distribution: np.ndarray) -> np.ndarray:
        """d . u of every column of the pool."""
        from lpboosting.columns import column_dots

        return column_dots(self.U, self._check_distribution(distribution))

    def price(self, distribution: np.ndarray) -> Candidate:
        return self.price_many(distribution, 1)[0]

    def price_many(self, distribution: np.ndarray, k: int) -> list[Candidate]:
        d = self._check_distribution(distribution)
        e = self.edges(d)
        order = np.lexsort((np.arange(e.size), -e))
        k = max(1, int(k))
        return distinct([Candidate(self.hypotheses[m], self.U[:, m].copy(), float(d @ self.U[:, m]))
                         for m in order[:4 * k]], k)


@dataclass(frozen=True)
class PoolColumn:
    """Column ``index`` of a :class:`ClassPool` (it predicts only the pool's rows)."""

    index: int


class ClassTree:
    """A tree whose leaves vote for a class: a fitted scikit-learn regression tree and
    ``leaf_class[node]``, or (read back from a JSON model) its :meth:`rule`, the node arrays."""

    def __init__(self, tree: Any, leaf_class: np.ndarray, rule: Any = None) -> None:
        self.tree = tree
        self.leaf_class = np.asarray(leaf_class, dtype=np.intp)
        self._rule = rule

    @property
    def rule(self) -> Any:
        """The tree as plain arrays (:class:`~lpboosting.oracles.trees.TreeRule`), its leaf values
        the class codes voted for."""
        if self._rule is None:
            from lpboosting.oracles.trees import TreeRule

            t = self.tree.tree_
            self._rule = TreeRule(t.children_left, t.children_right, t.feature, t.threshold,
                                  self.leaf_class.astype(float), self.tree.get_depth(),
                                  self.tree.feature_importances_, t.missing_go_to_left)
        return self._rule

    @classmethod
    def of_rule(cls, rule: Any) -> "ClassTree":
        """The tree of a :class:`~lpboosting.oracles.trees.TreeRule` whose leaf values are class codes."""
        return cls(None, np.asarray(rule.leaf_value, dtype=np.intp), rule)

    def predict(self, X: np.ndarray) -> np.ndarray:
        if self.tree is None:
            return self.rule.predict(X).astype(np.intp)
        return self.leaf_class[self.tree.apply(np.asarray(X, dtype=np.float32))]

    def describe(self, feature_names: Sequence[str] | None = None, classes: Sequence[Any] | None = None) -> str:
        return self.rule.describe(feature_names)

    def importances(self, n_features: int) -> np.ndarray:
        return self.rule.importances(n_features)

    def __repr__(self) -> str:
        return f"ClassTree(depth={self.rule.depth}, leaves={int(np.sum(self.rule.feature < 0))})"


class ClassTrees(MulticlassOracle):
    """CART trees on the class scores: a multi-output regression tree (scikit-learn) fitted to
    N S (the partition), each leaf then voting for the class of largest summed score (the best
    vote on that partition).  Greedy growth does not maximise the edge: **inexact**.  Extra keyword
    arguments go to ``DecisionTreeRegressor``."""

    exact = False
    name = "trees"

    def __init__(self, X: Any, y: Any, n_classes: int | None = None, *, max_depth: int | None = 3,
                 max_leaf_nodes: int | None = None, random_state: int | None = 0, **tree_params: Any) -> None:
        X = check_features(X, allow_nan=True)
        super().__init__(y, n_classes)
        if X.shape[0] != self.n_samples:
            raise ValueError(f"y has {self.n_samples} labels but X has {X.shape[0]} rows; pass one label per row")
        self.X = X
        self._X32 = X.astype(np.float32)
        self.tree_params = dict(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes, random_state=random_state,
                                **tree_params)

    def price(self, distribution: np.ndarray) -> Candidate:
        from sklearn.tree import DecisionTreeRegressor

        d = self._check_distribution(distribution)
        S = class_scores(d, self.y, self.n_classes)
        tree = DecisionTreeRegressor(**self.tree_params).fit(self._X32, S * self.n_samples)
        leaves = tree.apply(self._X32)
        sums = np.zeros((tree.tree_.node_count, self.n_classes))
        np.add.at(sums, leaves, S)
        hypothesis = ClassTree(tree, sums.argmax(axis=1))
        return self.candidate(hypothesis, hypothesis.leaf_class[leaves], d)


class StagedVotes(RowsMemo):
    """A fitted multiclass ``HistGradientBoostingClassifier`` and the class codes its stages vote
    for: ``votes(X)`` is the (n, M) matrix of argmax_k F_k^(m)(x) after m = 1..M iterations (the
    last X's remembered: the stages of one prediction read one pass of the staged decision
    function)."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    @property
    def n_iter(self) -> int:
        return int(self.model.n_iter_)

    def votes(self, X: Any) -> np.ndarray:
        return self.remembered(X, self._votes)

    def describe_stage(self, stage: int) -> str:
        return f"a gradient-boosted forest after {stage} of its {self.n_iter} iterations"

    def _votes(self, X: np.ndarray) -> np.ndarray:
        codes = np.asarray(self.model.classes_, dtype=np.intp)
        return np.column_stack([codes[np.asarray(F).reshape(X.shape[0], -1).argmax(axis=1)]
                                if np.ndim(F) == 2 and np.shape(F)[1] > 1
                                else codes[(np.asarray(F).ravel() > 0).astype(np.intp)]
                                for F in self.model.staged_decision_function(X)])


class OneVsRestVotes(RowsMemo):
    """K fitted binary ``HistGradientBoostingClassifier`` forests, class k's on "k or not" (each its
    own length when it stops early), and the class their stages vote for: ``votes(X)`` is the
    (n, M) matrix of argmax_k F_k^(min(m, M_k))(x), m = 1..M, M the longest forest's iterations
    (a forest that stopped keeps its last decision function); the last X's remembered."""

    def __init__(self, models: Sequence[Any], codes: Sequence[int]) -> None:
        super().__init__()
        self.models, self.codes = list(models), np.asarray(codes, dtype=np.intp)

    @property
    def n_iter(self) -> int:
        return max(int(model.n_iter_) for model in self.models)

    def votes(self, X: Any) -> np.ndarray:
        return self.remembered(X, self._votes)

    def describe_stage(self, stage: int) -> str:
        return f"{len(self.models)} one-vs-rest gradient-boosted forests after {stage} of their {self.n_iter} iterations"

    def _votes(self, X: np.ndarray) -> np.ndarray:
        stages = [model.staged_decision_function(X) for model in self.models]
        F = np.empty((X.shape[0], len(stages)))
        out = np.empty((X.shape[0], self.n_iter), dtype=np.intp)
        for m in range(self.n_iter):
            for k, staged in enumerate(stages):
                value = next(staged, None)
                if value is not None:  # None: forest k stopped, its last F_k stays
                    F[:, k] = np.ravel(value)
            out[:, m] = self.codes[F.argmax(axis=1)]
        return out


class ForestStage:
    """The class a gradient-boosted forest votes for after its first ``stage`` iterations
    (:class:`StagedVotes`); the last stage is the forest itself."""

    def __init__(self, forest: StagedVotes, stage: int) -> None:
        self.forest, self.stage = forest, int(stage)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.forest.votes(X)[:, self.stage - 1]

    def describe(self, feature_names: Sequence[str] | None = None, classes: Sequence[Any] | None = None) -> str:
        return f"the vote of {self.forest.describe_stage(self.stage)}"

    def __repr__(self) -> str:
        return f"ForestStage({self.stage} of {self.forest.n_iter})"


class ClassForest(ClassPool):
    """The stages of a gradient-boosted forest as a finite pool of class votes; exact.

    scikit-learn's ``HistGradientBoostingClassifier`` (these parameters,
    without early stopping unless ``early_stopping`` says otherwise:
    ``"auto"`` as the forest's own default, on more than 10 000 rows; a
    tenth of the rows held out, and not on rows too few to hold a tenth out
    with every class) is fitted once on (X, y) and its rows' weights;
    hypothesis m is the class its first m iterations vote for (argmax of the
    staged decision function), the last one the forest itself.  Stages that
    vote as the one after them on every training row are left out (the same
    column: of such a run of stages the longest is kept).  The LP weighs the
    forest at its different lengths by the multiclass soft margin: alone,
    mixed, or (with class stumps beside it in ``oracle="auto"``) not at all.
    ``one_vs_rest=True`` fits K binary forests instead, class k's on "k or
    not" (each stopping early on its own, as asked), and hypothesis m is the
    class of largest decision function after m iterations (a forest that
    stopped before m at its last): the last stage is scikit-learn's
    ``OneVsRestClassifier`` over the same forests.  ``min_samples_leaf=None`` is the forest's
    20 rows a leaf, fewer on fewer than 200 rows (a tenth of them, at least 1).
    """

    name = "gb-trees"
    takes_sample_weight = True

    def __init__(self, X: Any, y: Any, n_classes: int | None = None, *, max_iter: int = 200,
                 learning_rate: float = 0.1, max_leaf_nodes: int | None = 31, max_depth: int | None = None,
                 min_samples_leaf: int | None = None, l2_regularization: float = 0.0, max_bins: int = 255,
                 random_state: int | None = 0, early_stopping: bool | str = False, one_vs_rest: bool = False,
                 sample_weight: Any = None) -> None:
        from sklearn.ensemble import HistGradientBoostingClassifier

        X = check_features(X, allow_nan=True, oracle=self.name)
        MulticlassOracle.__init__(self, y, n_classes)
        if early_stopping not in (True, False, "auto"):
            raise ValueError(f"early_stopping must be True, False or 'auto', got {early_stopping!r}")
        if X.shape[0] != self.n_samples:
            raise ValueError(f"y has {self.n_samples} labels but X has {X.shape[0]} rows; pass one label per row")
        self.params, sample_weight = forest_setup(
            X.shape[0], self.y, sample_weight, max_iter=max_iter, learning_rate=learning_rate,
            max_leaf_nodes=max_leaf_nodes, max_depth=max_depth, min_samples_leaf=min_samples_leaf,
            l2_regularization=l2_regularization, max_bins=max_bins, random_state=random_state)
        weight = np.ones(self.n_samples) if sample_weight is None else sample_weight
        if np.unique(self.y[weight > 0]).size < 2:
            raise ValueError("the gradient-boosted forest needs two classes or more among the labels (of weight > 0)")
        if one_vs_rest not in (True, False):
            raise ValueError(f"one_vs_rest must be True or False, got {one_vs_rest!r}")
        self.sample_weight, self.early_stopping, self.one_vs_rest = sample_weight, early_stopping, one_vs_rest

        def fitted(labels: np.ndarray) -> Any:
            # too few rows to hold a tenth out with every class (a fold of a small set): max_iter iterations
            stops = early_stopping if early_stopping is not True or can_hold_out(labels) else False
            return HistGradientBoostingClassifier(early_stopping=stops, **self.params).fit(
                X, labels, sample_weight=sample_weight)

        if one_vs_rest:  # a class without rows (of weight > 0) has no forest and no vote
            codes = np.unique(self.y[weight > 0])
            self.forest: StagedVotes | OneVsRestVotes = OneVsRestVotes([fitted(self.y == k) for k in codes], codes)
        else:
            self.forest = StagedVotes(fitted(self.y))
        votes = self.forest.votes(X)
        # of a run of stages that vote alike on every training row (the same column), the last: the
        # forest's longest such stage, and the forest itself always (once the forest fits its
        # training rows, every later stage votes as the first that did, and their votes on new
        # rows go on improving: KEEL letter, a 2000-row draw, test error 0.215 at stage 20, 0.168
        # at stage 200, all of them one column from stage 22 on)
        kept = np.flatnonzero(np.r_[(votes[:, 1:] != votes[:, :-1]).any(axis=0), True])
        #: the forest's stage (iterations, from 1) of each column of the pool
        self.stages = kept + 1
        super().__init__(votes[:, kept], self.y, self.n_classes,
                         hypotheses=[ForestStage(self.forest, m) for m in self.stages])


class ClassCallable(MulticlassOracle):
    """A user's weak learner ``fn(X, y, scores) -> hypothesis``: y the class codes 0..K-1, scores
    the N x K class scores S (the edge of h is sum_i S[i, h(x_i)]); the hypothesis' ``predict(X)``
    gives class codes.  Inexact unless ``exact=True``."""

    name = "callable"

    def __init__(self, fn: Callable[..., Any], X: Any, y: Any, n_classes: int | None = None, *,
                 exact: bool = False) -> None:
        if not callable(fn):
            raise TypeError(f"the oracle must be callable, got {type(fn).__name__}")
        X = check_features(X, oracle="callable")
        super().__init__(y, n_classes)
        self.fn, self.X, self.exact = fn, X, bool(exact)

    def price(self, distribution: np.ndarray) -> Candidate:
        d = self._check_distribution(distribution)
        S = class_scores(d, self.y, self.n_classes)
        hypothesis = call_user_oracle(self.fn, (self.X, self.y, S), "three arguments (X, y, scores)")
        if not hasattr(hypothesis, "predict"):
            raise TypeError("a multiclass oracle function must return a hypothesis with predict(X) giving class "
                            f"codes 0..{self.n_classes - 1}; got {type(hypothesis).__name__}")
        predicted = check_class_codes(np.asarray(hypothesis.predict(self.X)).ravel(), self.n_classes,
                                      "the hypothesis' predictions")
        if predicted.size != self.n_samples:
            raise ValueError(f"the hypothesis must predict one class per training row ({self.n_samples}), "
                             f"got {predicted.size}")
        return self.candidate(hypothesis, predicted, d)


#: the multiclass oracles by name (the classifiers' ``oracle=`` with more than two classes)
MULTICLASS_ORACLES: dict[str, type[MulticlassOracle]] = {"stumps": ClassStumps, "binned-stumps": BinnedClassStumps,
                                                         "trees": ClassTrees, "gb-trees": ClassForest}


def make_multiclass_oracle(spec: Any, X: Any, y: np.ndarray, n_classes: int, sample_weight: Any = None,
                           **params: Any) -> MulticlassOracle:
    """The multiclass oracle ``spec`` (a name of :data:`MULTICLASS_ORACLES` or a function
    ``fn(X, y, scores)``) over X and the class codes y.  ``sample_weight`` (the fit's weights of
    the rows) goes to an oracle fitted on the rows (the forest of ``"gb-trees"``); the others price
    the master's distribution, which holds the weights already."""
    from lpboosting.errors import UnknownOracleError

    if isinstance(spec, str):
        key = spec.strip().lower()
        if key not in MULTICLASS_ORACLES:
            raise UnknownOracleError(
                f"the oracle {spec!r} has no native multiclass form; with more than two classes choose one of "
                f"{sorted(MULTICLASS_ORACLES)}, a function fn(X, y, scores), or multiclass='one-vs-rest'")
        if sample_weight is not None and MULTICLASS_ORACLES[key].takes_sample_weight:
            params = {**params, "sample_weight": sample_weight}
        return MULTICLASS_ORACLES[key](X, y, n_classes, **params)
    if callable(spec):
        return ClassCallable(spec, X, y, n_classes, **params)
    raise UnknownOracleError(f"oracle must be one of {sorted(MULTICLASS_ORACLES)} or a function fn(X, y, scores), "
                             f"got {type(spec).__name__}")
