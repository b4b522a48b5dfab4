"""
Multiclass: one LP over (example, wrong class) pairs
====================================================

With more than two classes, :class:`~lpboosting.LPBoostClassifier` fits one
LP over all of them by default (``multiclass="native"``): a hypothesis votes
for a class, example i's margin against a wrong class k is the weight of the
votes for its true class minus the weight of the votes for k, and the
distribution lives on the (example, wrong class) pairs. ``"one-vs-rest"``
fits K binary LPs instead.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from lpboosting import LPBoostClassifier

X, y = load_wine(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
native = LPBoostClassifier(nu=0.1, oracle="stumps").fit(X_train, y_train)
ovr = LPBoostClassifier(nu=0.1, oracle="stumps", multiclass="one-vs-rest").fit(X_train, y_train)
print(f"native LP:   {native.status_} after {native.n_rounds_} rounds, soft margin {native.objective_:.4f}, "
      f"test accuracy {native.score(X_test, y_test):.3f}")
print(f"one-vs-rest: test accuracy {ovr.score(X_test, y_test):.3f}")
d = native.distribution_
print(f"d over the pairs: shape {d.shape}, sums to {d.sum():.6f}, "
      f"zero at every true class: {bool(np.all(d[np.arange(len(y_train)), y_train] == 0))}")

# %%
# The final distribution over the pairs: each row an example (sorted by
# class), each column a class; the mass sits on the pairs whose margin is
# smallest, the hardest example against its most confusable class.
order = np.argsort(y_train, kind="stable")
fig, axes = plt.subplots(1, 2, figsize=(10, 4), gridspec_kw={"width_ratios": [1, 1.4]})
image = axes[0].imshow(d[order], aspect="auto", cmap="viridis", interpolation="nearest")
axes[0].set_xlabel("wrong class k")
axes[0].set_ylabel("example (sorted by class)")
fig.colorbar(image, ax=axes[0], label="d")
margins = native.margins(X_train, y_train)
axes[1].hist(margins, bins=30)
axes[1].set_xlabel("multiclass margin on the training set")
axes[1].set_ylabel("examples")
fig.tight_layout()
plt.show()
