"""Histogram tree oracle: trees grown from per-node histograms of binned features, for large N.

The edge of a tree h under a (possibly signed) weighting d is

    sum_i d_i y_i h(x_i) = sum_leaves v_l G_l,    G_l = sum_{i in leaf l} d_i y_i,

largest with each leaf voting v_l = sign(G_l), where it is sum_l |G_l|.  As
the :class:`~lpboosting.oracles.trees.Trees` oracle does with scikit-learn's
CART, a tree is grown greedily on the weights w_i = |d_i| of the labels
y_i sign(d_i).  A split of a node into L and R gains, in weighted Gini
impurity (the criterion of scikit-learn's trees, up to a factor 1/2),

    G_L^2 / W_L + G_R^2 / W_R - G^2 / W,    W = sum |d_i|,

which is also the gain of a second-order (gradient boosting) step on the
edge with hessian weights |d_i|.  A split whose children are certainly
leaves (at depth ``max_depth - 1``, or the last split ``max_leaf_nodes``
allows) is chosen instead by the edge it adds, |G_L| + |G_R| - |G|: that
step is exact, so a tree of depth 1 is the best binned stump
(:class:`~lpboosting.oracles.binned.BinnedStumps`, the same bins).  The
tree as a whole is greedy: the oracle is **inexact**.

Features are binned once (:func:`~lpboosting.oracles.binned.bin_features`,
at most ``max_bins`` count-quantile bins a feature, one byte a value) and a
node's histograms of G and W are one ``bincount`` a feature over the node's
rows; of two children only the smaller is counted, the other is its parent
minus it.  No N x F float temporary and no sort: O(N F) a level of the tree.

Missing values (NaN) are one more bin a feature; every split tries them on
either side and keeps the better.  A split on a feature that had no missing
value in training sends missing values left (as the Trees oracle does).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
import numpy as np

from lpboosting.oracles.base import Candidate, Oracle, check_features, check_labels_pm
from lpboosting.oracles.binned import bin_features
from lpboosting.oracles.trees import TreeRule

#: gains at most this (relative to the node's weight) do not split
_GAIN_TOL = 1e-12


@dataclass
class _Split:
    gain: float  # by the criterion it was chosen by
    gini: float  # its Gini gain (for the importances)
    feature: int
    k: int  # the present codes < k go left
    missing_left: bool
    by_edge: bool = False


@dataclass
class _Node:
    rows: np.ndarray | None  # None: every row (the root)
    depth: int
    g: float  # sum of d y
    w: float  # sum of |d|
    hist: tuple[np.ndarray, np.ndarray] | None = None  # (G, W), (F, width)
    split: _Split | None = None
    index: int = 0  # position in the tree's arrays
    children: list[int] | None = None  # positions of the left and right child; None for a leaf


class HistTrees(Oracle):
    """Trees of bounded size grown from histograms of binned features, weighted by the distribution.

    Parameters: ``max_depth`` (None: unbounded), ``max_leaf_nodes`` (None:
    unbounded; with it the leaves are split best first, by Gini gain, as
    scikit-learn's trees with ``max_leaf_nodes``), ``min_samples_leaf``
    (rows of a leaf), ``max_bins`` (bins a feature, at most 65536) and
    ``last_split``: "edge" (the splits whose children must be leaves are
    chosen by the edge they add) or "gini" (every split by the Gini gain,
    as CART's).
    :meth:`price_many` returns the trees grown from the best root split of
    each of the k features whose best root split gains most, best edge first.
    The hypotheses are :class:`~lpboosting.oracles.trees.TreeRule` over raw
    values, thresholds at the bin edges (written to a JSON model as the
    Trees oracle's are).
    """

    exact = False
    name = "hist-trees"

    def __init__(self, X, y, *, max_depth: int | None = 3, max_leaf_nodes: int | None = None,
                 min_samples_leaf: int = 1, max_bins: int = 255, last_split: str = "edge") -> None:
        X = check_features(X, allow_nan=True)
        for name, value, low in (("max_depth", max_depth, 1), ("max_leaf_nodes", max_leaf_nodes, 2),
                                 ("min_samples_leaf", min_samples_leaf, 1)):
            if value is not None and (isinstance(value, bool) or int(value) != value or value < low):
                raise ValueError(f"{name} must be an integer >= {low}"
                                 f"{'' if name == 'min_samples_leaf' else ' or None'}, got {value!r}")
        if min_samples_leaf is None:
            raise ValueError("min_samples_leaf must be an integer >= 1, got None")
        if int(max_bins) != max_bins or not 2 <= max_bins <= 65536:
            raise ValueError(f"max_bins must be an integer in [2, 65536], got {max_bins!r}")
        if last_split not in ("edge", "gini"):
            raise ValueError(f"last_split must be 'edge' or 'gini', got {last_split!r}")
        if max_depth is None and max_leaf_nodes is None:
            raise ValueError("give max_depth or max_leaf_nodes (or both): a tree grown without either "
                             "fits every row and its column is y itself")
        super().__init__(X.shape[0])
        self.y = check_labels_pm(y, X.shape[0])
        self.X = X
        self.max_depth = None if max_depth is None else int(max_depth)
        self.max_leaf_nodes = None if max_leaf_nodes is None else int(max_leaf_nodes)
        self.min_samples_leaf = int(min_samples_leaf)
        self.max_bins = int(max_bins)
        self.last_split = last_split
        self.thresholds, self.n_bins, self.codes, self.has_missing = bin_features(X, self.max_bins)
        self.width = int(self.n_bins.max()) + 1
        k = np.arange(self.width)[None, :]
        nb, miss = self.n_bins[:, None], self.has_missing[:, None]
        # split k sends the present codes < k left; missing values right (A) or left (B)
        self._valid_right = ((k >= 1) & (k <= nb - 1)) | ((k == nb) & miss)
        self._valid_left = miss & (k <= nb - 1)
        self._missing_bin = np.where(self.has_missing, self.n_bins, 0)

    # ---- histograms and splits ------------------------------------------------------------

    def _histograms(self, rows: np.ndarray | None, a: np.ndarray, w: np.ndarray,
                    ) -> tuple[np.ndarray, np.ndarray]:
        f, width = self.codes.shape[1], self.width
        G, W = np.empty((f, width)), np.empty((f, width))
        if rows is not None:
            a, w = a[rows], w[rows]
        for j in range(f):
            codes = self.codes[:, j] if rows is None else self.codes[rows, j]
            G[j] = np.bincount(codes, weights=a, minlength=width)
            W[j] = np.bincount(codes, weights=w, minlength=width)
        return G, W

    def _counts(self, rows: np.ndarray | None) -> np.ndarray:
        f, width = self.codes.shape[1], self.width
        C = np.empty((f, width))
        for j in range(f):
            C[j] = np.bincount(self.codes[:, j] if rows is None else self.codes[rows, j], minlength=width)
        return C

    def _split_gains(self, node: _Node, by_edge: bool) -> tuple[np.ndarray, np.ndarray]:
        """The gain of every split of ``node``: (missing right, missing left), each (F, width),
        -inf where the split is not allowed."""
        G, W = node.hist  # type: ignore[misc]
        cG, mG = self._below(G)
        cW, mW = self._below(W)
        allowed = [self._valid_right, self._valid_left]
        if self.min_samples_leaf > 1:
            C = self._counts(node.rows)
            cC, mC = self._below(C)
            n = C[0].sum()
            m = self.min_samples_leaf
            allowed = [allowed[0] & (cC >= m) & (n - cC >= m),
                       allowed[1] & (cC + mC[:, None] >= m) & (n - cC - mC[:, None] >= m)]
        out = []
        for side, (GL, WL) in enumerate(((cG, cW), (cG + mG[:, None], cW + mW[:, None]))):
            GR, WR = node.g - GL, node.w - WL
            tiny = _GAIN_TOL * max(node.w, 1e-300)
            ok = allowed[side] & (WL > tiny) & (WR > tiny)
            with np.errstate(divide="ignore", invalid="ignore"):
                if by_edge:
                    gain = np.abs(GL) + np.abs(GR) - abs(node.g)
                else:
                    gain = GL * GL / WL + GR * GR / WR - node.g * node.g / node.w
            out.append(np.where(ok, gain, -np.inf))
        return out[0], out[1]

    def _below(self, H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Of a histogram H (F, width): the sums over the present codes < k (F, width), and the
        missing bin's sum per feature (0 for a feature without missing values)."""
        j = np.arange(H.shape[0])
        missing = H[j, self._missing_bin] * self.has_missing
        present = H.copy()
        present[j, self._missing_bin] -= missing
        return np.cumsum(present, axis=1) - present, missing

    def _best(self, node: _Node, by_edge: bool, feature: int | None = None) -> _Split | None:
        """The best split of ``node`` (on ``feature`` only, if given); None if none gains."""
        by_edge = by_edge and self.last_split == "edge"
        right, left = self._split_gains(node, by_edge)
        if feature is not None:
            right, left = right[feature:feature + 1], left[feature:feature + 1]
        both = np.stack([right, left])
        s, j, k = np.unravel_index(int(np.argmax(both)), both.shape)
        gain = float(both[s, j, k])
        if not gain > _GAIN_TOL * max(node.w, 1e-300):
            return None
        j = int(j) if feature is None else feature
        split = self._make_split(node, gain, j, int(k), bool(s))
        split.by_edge = by_edge
        return split

    def _make_split(self, node: _Node, gain: float, j: int, k: int, missing_left: bool) -> _Split:
        G, W = node.hist  # type: ignore[misc]
        mb = self._missing_bin[j]
        miss = self.has_missing[j]
        # the codes below k are present values (the missing bin, n_bins[j], is never below k)
        gl, wl = float(G[j, :k].sum()), float(W[j, :k].sum())
        if missing_left and miss:
            gl, wl = gl + float(G[j, mb]), wl + float(W[j, mb])
        gr, wr = node.g - gl, node.w - wl
        gini = gl * gl / wl + gr * gr / wr - node.g * node.g / node.w if wl > 0 and wr > 0 else 0.0
        return _Split(gain, gini, j, k, missing_left or not miss)

    def _children(self, node: _Node, split: _Split, a: np.ndarray, w: np.ndarray,
                  need_hist: bool) -> tuple[_Node, _Node]:
        rows = np.arange(self.n_samples) if node.rows is None else node.rows
        codes = self.codes[rows, split.feature]
        go_left = codes < split.k
        if self.has_missing[split.feature]:
            missing = codes == self.n_bins[split.feature]
            go_left = (go_left & ~missing) | (missing & split.missing_left)
        left, right = rows[go_left], rows[~go_left]
        gl, wl = float(a[left].sum()), float(w[left].sum())
        kids = _Node(left, node.depth + 1, gl, wl), _Node(right, node.depth + 1, node.g - gl, node.w - wl)
        if need_hist:
            small, large = (kids[0], kids[1]) if left.size <= right.size else (kids[1], kids[0])
            small.hist = self._histograms(small.rows, a, w)
            large.hist = (node.hist[0] - small.hist[0], node.hist[1] - small.hist[1])  # type: ignore[index]
        return kids

    # ---- growing a tree -------------------------------------------------------------------

    def _can_split(self, node: _Node) -> bool:
        n = self.n_samples if node.rows is None else node.rows.size
        return (self.max_depth is None or node.depth < self.max_depth) and n >= 2 * self.min_samples_leaf

    def _last_level(self, node: _Node) -> bool:
        """The node's children are certainly leaves (by depth)."""
        return self.max_depth is not None and node.depth == self.max_depth - 1

    def _grow(self, d: np.ndarray, root: _Node, a: np.ndarray, w: np.ndarray,
              root_split: _Split | None) -> Candidate:
        """The tree grown from ``root`` (its first split ``root_split``, if given), as a Candidate."""
        max_leaves = self.max_leaf_nodes or np.iinfo(np.int64).max
        nodes: list[_Node] = [root]
        frontier: list[tuple[float, int, _Node]] = []  # the leaves that may split, best first
        if root_split is not None:
            root.split = root_split
        elif self._can_split(root) and max_leaves > 1:
            root.split = self._best(root, self._last_level(root) or max_leaves == 2)
        if root.split is not None:
            frontier.append((-root.split.gain, 0, root))
        n_leaves = 1
        while frontier and n_leaves < max_leaves:
            _, _, node = heapq.heappop(frontier)
            split = node.split
            assert split is not None
            n_leaves += 1
            last_split = n_leaves >= max_leaves
            deeper = self.max_depth is None or node.depth + 1 < self.max_depth
            kids = self._children(node, split, a, w, need_hist=deeper and not last_split)
            node.hist = None  # the parent's histograms are no longer needed
            node.children = []
            for kid in kids:
                kid.index = len(nodes)
                nodes.append(kid)
                node.children.append(kid.index)
                if not last_split and self._can_split(kid):
                    kid.split = self._best(kid, self._last_level(kid) or n_leaves + 1 >= max_leaves)
                if kid.split is not None:
                    heapq.heappush(frontier, (-kid.split.gain, kid.index, kid))
            if self.last_split == "edge" and n_leaves + 1 == max_leaves and len(frontier) > 1:
                # the last split the leaf count allows: the one of largest edge gain over the frontier
                frontier = self._by_edge(frontier)
        return self._candidate(d, nodes)

    def _by_edge(self, frontier: list[tuple[float, int, _Node]]) -> list[tuple[float, int, _Node]]:
        best: list[tuple[float, int, _Node]] = []
        for _, index, node in frontier:
            if node.split is not None and not node.split.by_edge:
                node.split = self._best(node, by_edge=True)
            if node.split is not None:
                best.append((-node.split.gain, index, node))
        heapq.heapify(best)
        top = heapq.heappop(best) if best else None
        for _, _, node in frontier:  # every other leaf stays a leaf
            if top is None or node is not top[2]:
                node.split = None
        return [top] if top else []

    def _candidate(self, d: np.ndarray, nodes: list[_Node]) -> Candidate:
        t = len(nodes)
        left, right = np.full(t, -1, dtype=np.intp), np.full(t, -1, dtype=np.intp)
        feature = np.full(t, -1, dtype=np.intp)  # -1: a leaf
        threshold = np.full(t, -2.0)
        missing_left = np.ones(t, dtype=bool)
        value = np.where(np.array([n.g for n in nodes]) > 0, 1.0, -1.0)
        importances = np.zeros(self.codes.shape[1])
        column = np.empty(self.n_samples)
        for node in nodes:
            if node.children is None:  # a leaf
                rows = slice(None) if node.rows is None else node.rows
                column[rows] = value[node.index]
                continue
            s = node.split
            left[node.index], right[node.index] = node.children
            feature[node.index] = s.feature
            threshold[node.index] = self._threshold(s.feature, s.k)
            missing_left[node.index] = s.missing_left
            if s.k == 0:  # missing left, every present value right: written as scikit-learn writes it
                right[node.index], left[node.index] = node.children
                threshold[node.index], missing_left[node.index] = np.inf, False
            importances[s.feature] += max(s.gini, 0.0)
        if importances.sum() > 0:
            importances /= importances.sum()
        depth = max(n.depth for n in nodes)
        rule = TreeRule(left, right, feature, threshold, value, depth, importances, missing_left, float32=False)
        column *= self.y
        return Candidate(rule, column, float(d @ column))

    def _threshold(self, j: int, k: int) -> float:
        thr = self.thresholds[j]
        return -np.inf if k == 0 else (np.inf if k > thr.size else float(thr[k - 1]))

    # ---- pricing --------------------------------------------------------------------------

    def _root(self, d: np.ndarray) -> tuple[_Node, np.ndarray, np.ndarray]:
        a = d * self.y
        w = np.abs(d)
        root = _Node(None, 0, float(a.sum()), float(w.sum()))
        root.hist = self._histograms(None, a, w)
        return root, a, w

    def price(self, distribution):
        d = self._check_distribution(distribution)
        root, a, w = self._root(d)
        return self._grow(d, root, a, w, None)

    def price_many(self, distribution, k):
        """Up to ``k`` trees, best edge first, with distinct columns: for each of the k features whose
        best root split gains most (:meth:`price`'s tree splits the best of them), the tree grown
        from that split."""
        d = self._check_distribution(distribution)
        k = int(k)
        root, a, w = self._root(d)
        if k <= 1 or not self._can_split(root) or self.max_leaf_nodes == 1:
            return [self._grow(d, root, a, w, None)]
        by_edge = (self._last_level(root) or self.max_leaf_nodes == 2) and self.last_split == "edge"
        right, left = self._split_gains(root, by_edge)
        per_feature = np.maximum(right.max(axis=1), left.max(axis=1))
        order = np.argsort(-per_feature, kind="stable")
        order = order[np.isfinite(per_feature[order]) & (per_feature[order] > _GAIN_TOL * max(root.w, 1e-300))]
        if not order.size:
            return [self._grow(d, root, a, w, None)]
        found: list[Candidate] = []
        seen: set[bytes] = set()
        for j in order[:k]:
            tree_root = _Node(None, 0, root.g, root.w, root.hist)
            candidate = self._grow(d, tree_root, a, w, self._best(tree_root, by_edge, feature=int(j)))
            key = np.signbit(candidate.column * self.y).tobytes()
            if key not in seen:
                seen.add(key)
                found.append(candidate)
        found.sort(key=lambda c: -c.edge)
        return found
