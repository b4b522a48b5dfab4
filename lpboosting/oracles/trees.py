"""Heuristic oracle: a CART tree of bounded size fitted with sample_weight = d.

The oracle is called once per boosting round on the same X, and on a few hundred rows
scikit-learn's Python-side work in ``DecisionTreeClassifier.fit`` (target type checks,
``np.unique``, sample-weight checks, seeding a fresh ``RandomState``) costs several times
the tree growth itself.  From the second call on :class:`Trees` therefore grows the tree
with scikit-learn's own builder classes, as ``BaseDecisionTree._fit`` does, reusing what
does not change between calls.  The fast path relies on private scikit-learn API: when
its imports or constructors fail, or the tree parameters ask for something it does not
reproduce, the public ``fit`` is used.  ``tests/oracles/test_trees_oracle.py`` checks that both
paths grow identical trees.

Scale: scikit-learn's trees compare features in float32 and do not split values closer than
about 1e-7, so a feature scaled by 1e-9 (or 1e-40, or 1e300) would give one-leaf trees.  The
oracle therefore grows its trees on the per-feature ranks of the training values
(:func:`rank_features`; the ordering, hence every split's partition and impurity, is that of
the raw values) and maps each split back to a threshold on the raw values, midway between the
raw values on either side of the split among the node's training rows, as scikit-learn places
it.  The hypothesis (:class:`TreeRule`) compares raw float64 values: the same trees and
predictions at every scale.

Missing values (NaN): scikit-learn's trees learn at each split the side of the node's rows
with a missing value (and may split missing against present); a split whose training rows
had no missing value in its feature sends missing values left (``x <= threshold``'s side).
"""

from __future__ import annotations

import numbers
from math import ceil
from collections.abc import Sequence
from typing import Any

import numpy as np

from lpboosting.oracles.base import Candidate, Oracle, check_features, check_labels_pm
from lpboosting.oracles.stumps import clean_threshold

_CLASSES = np.array([-1.0, 1.0])
# tree parameters the fast path reproduces when they have these values; others use ``fit``
_FAST_ONLY = {"splitter": "best", "max_features": None, "class_weight": None,
              "monotonic_cst": None, "ccp_alpha": 0.0}
_CRITERIA = {"gini": "Gini", "entropy": "Entropy", "log_loss": "Entropy"}


#: the largest count of distinct values a feature's float32 ranks hold exactly (2**24)
_RANKS_EXACT = 1 << 24


def rank_features(X: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """The per-feature ranks of X as the trees see them, float32 (NaN stays NaN).

    Returns (ranks, values, group): column j holds the rank 0, 1, ... of each
    row's value among the sorted distinct values ``values[j]`` of feature j,
    divided (integer division) by ``group[j]`` (1 unless the feature has more
    than 2**24 distinct values, which float32 cannot count: then neighbouring
    values share a rank, with a warning).
    """
    import warnings

    n, f = X.shape
    ranks = np.full((n, f), np.nan, dtype=np.float32)
    values, group = [], np.ones(f, dtype=np.int64)
    for j in range(f):
        x = X[:, j]
        present = ~np.isnan(x)
        u, inverse = np.unique(x[present], return_inverse=True)
        if u.size > _RANKS_EXACT:
            group[j] = -(-u.size // _RANKS_EXACT)
            warnings.warn(f"feature {j} has {u.size} distinct values; scikit-learn's trees (float32) tell "
                          f"apart {_RANKS_EXACT}, so the trees do not split between {group[j]} neighbouring "
                          "values", RuntimeWarning, stacklevel=3)
        ranks[present, j] = inverse.ravel() // group[j]
        values.append(u)
    return np.ascontiguousarray(ranks), values, group


class TreeHypothesis:
    """A fitted scikit-learn tree predicting -1/+1.

    ``tree`` is the scikit-learn tree; from the :class:`Trees` oracle it is
    grown on the ranks of the training values (its thresholds are in rank
    units) and ``rule`` is the same tree over raw values, which ``predict``
    uses.  Without ``rule`` (a tree fitted on raw values) ``predict`` is the
    tree's own.
    """

    def __init__(self, tree: Any, rule: "TreeRule | None" = None) -> None:
        self.tree = tree
        self.rule = rule

    def predict(self, X: np.ndarray) -> np.ndarray:
        if self.rule is not None:
            return self.rule.predict(X)
        return np.asarray(self.tree.predict(np.asarray(X, dtype=float)), dtype=float)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update({"rule": None, **state})  # pickles written before ``rule``

    def __repr__(self) -> str:
        return f"TreeHypothesis(depth={self.tree.get_depth()}, leaves={self.tree.get_n_leaves()})"

    def describe(self, feature_names: Sequence[str] | None = None) -> str:
        """The tree's size and the features it splits on."""
        return describe_tree(self.tree.get_depth(), self.tree.get_n_leaves(),
                             self.tree.tree_.feature, feature_names)

    def importances(self, n_features: int) -> np.ndarray:
        """The tree's impurity-based feature importances (they sum to 1; 0 for a single leaf)."""
        return np.asarray(self.tree.feature_importances_, dtype=float)


def describe_tree(depth: int, leaves: int, features: np.ndarray, feature_names: Sequence[str] | None) -> str:
    used = sorted({int(f) for f in features if f >= 0})
    names = [f"x[{j}]" if feature_names is None else str(feature_names[j]) for j in used]
    return f"tree (depth {depth}, {leaves} leaves) on {', '.join(names) if names else 'no feature'}"


class TreeRule:
    """A fitted tree as plain arrays (the :class:`Trees` oracle's hypothesis over raw values,
    and how a tree is read back from a JSON model).

    Node i splits on ``feature[i]`` at ``threshold[i]`` (x <= threshold goes
    to ``left[i]``, else ``right[i]``; a leaf has feature -1) and a leaf
    predicts ``leaf_value[i]`` (-1 or +1).  A missing value (NaN) goes left
    where ``missing_left[i]``, else right; ``missing_left=None`` (trees
    written before missing values were handled) sends it right.  With
    ``float32`` the features are rounded to float32 before they are
    compared, as scikit-learn's own trees do (so the predictions of a tree
    written from a scikit-learn tree are that tree's); the oracle's trees
    compare raw float64 values (``float32=False``).
    """

    def __init__(self, left, right, feature, threshold, leaf_value, depth: int,
                 importances: Sequence[float], missing_left=None, float32: bool = True) -> None:
        self.left = np.asarray(left, dtype=np.intp)
        self.right = np.asarray(right, dtype=np.intp)
        self.feature = np.asarray(feature, dtype=np.intp)
        self.threshold = np.asarray(threshold, dtype=float)
        self.leaf_value = np.asarray(leaf_value, dtype=float)
        self.depth = int(depth)
        self._importances = np.asarray(importances, dtype=float)
        self.missing_left = None if missing_left is None else np.asarray(missing_left, dtype=bool)
        self.float32 = bool(float32)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update({"missing_left": None, "float32": True, **state})  # older pickles

    @classmethod
    def of(cls, tree: Any) -> "TreeRule":
        """The arrays of a fitted scikit-learn DecisionTreeClassifier (classes -1/+1)."""
        t = tree.tree_
        leaf_value = np.asarray(tree.classes_, dtype=float)[np.argmax(t.value[:, 0, :], axis=1)]
        return cls(t.children_left, t.children_right, t.feature, t.threshold, leaf_value,
                   tree.get_depth(), tree.feature_importances_, t.missing_go_to_left)

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32).astype(float) if self.float32 else np.asarray(X, dtype=float)
        node = np.zeros(X.shape[0], dtype=np.intp)
        while True:
            inner = self.feature[node] >= 0
            if not inner.any():
                return self.leaf_value[node]
            rows = np.flatnonzero(inner)
            at = node[rows]
            x = X[rows, self.feature[at]]
            go_left = x <= self.threshold[at]  # False for NaN: right ...
            if self.missing_left is not None:  # ... unless the node sends missing values left
                go_left |= np.isnan(x) & self.missing_left[at]
            node[rows] = np.where(go_left, self.left[at], self.right[at])

    def describe(self, feature_names: Sequence[str] | None = None) -> str:
        return describe_tree(self.depth, int(np.sum(self.feature < 0)), self.feature, feature_names)

    def importances(self, n_features: int) -> np.ndarray:
        return self._importances.copy()

    def __repr__(self) -> str:
        return f"TreeRule(depth={self.depth}, leaves={int(np.sum(self.feature < 0))})"


class _SeedReplay:
    """Stands in for the fresh ``RandomState(seed)`` that ``fit`` seeds for an int seed.

    The splitter takes one ``randint`` from it per fit (the seed of its feature shuffle);
    seeding a RandomState costs more than a small tree, so that first draw is memoised
    across fits.  Anything else (a second draw, another method) is served by a real
    ``RandomState(seed)`` that has replayed the first draw, so the draws stay those of
    a fresh ``RandomState(seed)``.
    """

    def __init__(self, seed: int, memo: dict) -> None:
        self._seed, self._memo = seed, memo
        self._first: tuple | None = None
        self._real: np.random.RandomState | None = None

    def randint(self, *args: Any, **kwargs: Any) -> Any:
        if self._first is not None or self._real is not None:
            return self._state().randint(*args, **kwargs)
        self._first = (args, tuple(sorted(kwargs.items())))
        if self._first not in self._memo:
            self._memo[self._first] = np.random.RandomState(self._seed).randint(*args, **kwargs)
        return self._memo[self._first]

    def _state(self) -> np.random.RandomState:
        if self._real is None:
            self._real = np.random.RandomState(self._seed)
            if self._first is not None:
                self._real.randint(*self._first[0], **dict(self._first[1]))
        return self._real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state(), name)


class Trees(Oracle):
    """CART (scikit-learn DecisionTreeClassifier) weighted by the distribution.

    A signed weighting d (as RMBoost's) is fitted as weights |d| on labels
    y * sign(d), which maximises the same edge sum_n d_n y_n h(x_n).

    Greedy tree growth does not maximise the edge over all trees of the given
    size, so this oracle is **inexact**: the loop reports no gap for it.
    Extra keyword arguments go to ``DecisionTreeClassifier``.

    The trees are grown on the ranks of the features' values and their
    hypotheses (:class:`TreeHypothesis`, its ``rule``) split the raw values:
    they do not depend on the features' scale.  Missing values (NaN) take the
    side each split learned for them (see the module docstring).
    """

    exact = False
    name = "trees"
    _validated = False
    _fast: dict[str, Any] | None = None  # what the fast path reuses; set by the first fit

    def __init__(self, X, y, *, max_depth: int | None = 3, max_leaf_nodes: int | None = None,
                 random_state: int | None = 0, **tree_params: Any) -> None:
        X = check_features(X, allow_nan=True)
        super().__init__(X.shape[0])
        self.y = check_labels_pm(y, X.shape[0])
        self.X = X
        # the trees work in float32 (scikit-learn converts every fit and predict): they are grown
        # on the features' ranks, exact in float32 and independent of the scale (rank_features)
        self._X32, self._values, self._group = rank_features(X)
        missing = np.isnan(self._X32).any(axis=0)
        self._missing = missing if missing.any() else None  # scikit-learn's mask of features with NaN
        self.tree_params = dict(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes,
                                random_state=random_state, **tree_params)

    def _labels_changed(self) -> None:
        # the fast path's reused state belongs to one label set: the copy starts afresh
        self.__dict__.pop("_fast", None)
        self.__dict__.pop("_validated", None)

    def price(self, distribution):
        d = self._check_distribution(distribution)
        # a signed weighting (RMBoost) is the positive weighting |d| of the labels y * sign(d)
        labels = np.where(d < 0, -self.y, self.y)
        weights = np.abs(d)
        fitted = None
        # the fast path needs weights the public fit accepts (finite, not all zero)
        if self._fast and np.isfinite(weights).all() and weights.any():
            fitted = self._fast_fit(labels, weights)
        if fitted is None:
            fitted = self._public_fit(labels, weights)
        rule = self._raw_rule(fitted, weights)
        column = self.y * rule.predict(self.X)
        return Candidate(TreeHypothesis(fitted, rule), column, float(d @ column))

    def _raw_rule(self, tree: Any, weights: np.ndarray) -> TreeRule:
        """The tree grown on ranks as a :class:`TreeRule` over raw values.

        A split at rank threshold t goes midway between the raw values of the
        largest rank <= t and the smallest rank > t among the node's training
        rows of nonzero weight (those scikit-learn grows the tree from), where
        scikit-learn puts it on raw values; every such row takes the path it
        takes in ``tree`` (a row of weight 0 may go the other way, as in a tree
        grown on raw values).  A split of missing against present values
        (threshold inf) stays one; a node whose rows had no missing value in
        its feature sends missing values left.
        """
        t = tree.tree_
        threshold = np.array(t.threshold, dtype=float)
        missing_left = np.array(t.missing_go_to_left, dtype=bool)
        inner = np.flatnonzero(t.children_left >= 0)
        if inner.size:
            ranks = self._X32[weights > 0]
            paths = t.decision_path(ranks).tocsc()
            for i in inner:
                j = int(t.feature[i])
                v = ranks[paths.indices[paths.indptr[i]:paths.indptr[i + 1]], j]
                if not np.isnan(v).any():
                    missing_left[i] = True
                if np.isinf(threshold[i]):
                    continue
                lo, hi = int(v[v <= threshold[i]].max()), int(v[v > threshold[i]].min())
                values, g = self._values[j], int(self._group[j])
                # the largest raw value of rank lo, the smallest of rank hi
                threshold[i] = clean_threshold(float(values[min((lo + 1) * g, values.size) - 1]),
                                               float(values[hi * g]))
        leaf_value = np.asarray(tree.classes_, dtype=float)[np.argmax(t.value[:, 0, :], axis=1)]
        return TreeRule(t.children_left, t.children_right, t.feature, threshold, leaf_value,
                        tree.get_depth(), t.compute_feature_importances(), missing_left, float32=False)

    def _public_fit(self, labels: np.ndarray, weights: np.ndarray) -> Any:
        """``DecisionTreeClassifier(**tree_params).fit`` on the ranks of X."""
        import sklearn
        from sklearn.tree import DecisionTreeClassifier

        tree = DecisionTreeClassifier(**self.tree_params)
        # X was checked once in __init__ (finite, 2-D, float32 C-contiguous) and the tree
        # parameters when the first tree is fitted; later fits skip scikit-learn's checks
        # (``check_input=False``, ``skip_parameter_validation``), which cost more than the
        # fit itself on a few hundred rows
        with sklearn.config_context(skip_parameter_validation=self._validated):
            # scikit-learn finds the features with missing values only when it checks X
            tree.fit(self._X32, labels, sample_weight=weights, check_input=self._missing is not None)
        if not self._validated:
            self._validated = True
            self._fast = self._fast_setup(tree)
        return tree

    def _fast_setup(self, tree: Any) -> dict[str, Any] | None:
        """What ``_fit`` derives from the (validated) parameters of ``tree``; None if the
        fast path does not reproduce them or scikit-learn's private tree API is missing."""
        try:
            from sklearn.tree import _criterion, _splitter, _tree
        except ImportError:
            return None
        p = tree.get_params()
        known = set(_FAST_ONLY) | {"criterion", "max_depth", "max_leaf_nodes", "min_samples_leaf",
                                   "min_samples_split", "min_weight_fraction_leaf",
                                   "min_impurity_decrease", "random_state"}
        # compare plain values only: a parameter may be an array (monotonic_cst) or an object
        plain = (str, int, float, type(None))
        if (set(p) != known or not isinstance(p["criterion"], str) or p["criterion"] not in _CRITERIA
                or any(type(p[k]) not in plain or p[k] != v for k, v in _FAST_ONLY.items())):
            return None
        n = self.n_samples
        leaf = p["min_samples_leaf"]
        leaf = leaf if isinstance(leaf, numbers.Integral) else ceil(leaf * n)
        split = p["min_samples_split"]
        split = split if isinstance(split, numbers.Integral) else max(2, ceil(split * n))
        seed = p["random_state"]
        best_first = p["max_leaf_nodes"] is not None
        # classes, not modules, so that the oracle still pickles and deep-copies
        return {
            "tree": _tree.Tree, "splitter": _splitter.BestSplitter,
            "criterion": getattr(_criterion, _CRITERIA[p["criterion"]]),
            "builder": _tree.BestFirstTreeBuilder if best_first else _tree.DepthFirstTreeBuilder,
            # the builder's arguments after (splitter, min_samples_split, min_samples_leaf,
            # min_weight_leaf, max_depth)
            "builder_tail": (*([p["max_leaf_nodes"]] if best_first else []),
                             p["min_impurity_decrease"]),
            "max_depth": np.iinfo(np.int32).max if p["max_depth"] is None else p["max_depth"],
            "min_samples_leaf": leaf, "min_samples_split": max(split, 2 * leaf),
            "min_weight_fraction_leaf": p["min_weight_fraction_leaf"],
            # an int seed is a fresh RandomState(seed) per fit: replay it (see _SeedReplay)
            "seed": seed if isinstance(seed, numbers.Integral) else None, "seed_memo": {},
        }

    def _fast_fit(self, labels: np.ndarray, weights: np.ndarray) -> Any:
        """The tree ``_fit`` grows from (the ranks X32, labels, weights), built without its checks.

        Returns None (and turns the fast path off) if the private API does not take the
        arguments it took in the scikit-learn versions this was written against.
        """
        from sklearn.tree import DecisionTreeClassifier
        from sklearn.utils import check_random_state

        f = self._fast
        X = self._X32
        # labels are -1/+1: the classes are their sorted unique values, y the class index
        positive = labels > 0
        classes = _CLASSES.copy() if positive.any() and not positive.all() else labels[:1].copy()
        n_classes = np.array([classes.size], dtype=np.intp)
        y = (positive if classes.size == 2 else np.zeros(labels.size)).astype(np.float64)
        y = y.reshape(-1, 1)
        min_weight_leaf = f["min_weight_fraction_leaf"] * np.sum(weights)
        random_state = (_SeedReplay(f["seed"], f["seed_memo"]) if f["seed"] is not None
                        else check_random_state(self.tree_params["random_state"]))
        try:
            criterion = f["criterion"](1, n_classes)
            splitter = f["splitter"](criterion, X.shape[1], f["min_samples_leaf"],
                                     min_weight_leaf, random_state, None)
            tree_ = f["tree"](X.shape[1], n_classes, 1)
            builder = f["builder"](splitter, f["min_samples_split"], f["min_samples_leaf"],
                                   min_weight_leaf, f["max_depth"], *f["builder_tail"])
        except (TypeError, AttributeError, ValueError):
            self._fast = None
            return None
        builder.build(tree_, X, y, weights, self._missing)
        # a fitted classifier as _fit leaves it, so that predict, repr and pickle work
        tree = DecisionTreeClassifier(**self.tree_params)
        tree.n_features_in_ = X.shape[1]
        tree.n_outputs_ = 1
        tree.classes_ = classes
        tree.n_classes_ = n_classes[0]
        tree.max_features_ = X.shape[1]
        tree.tree_ = tree_
        return tree
