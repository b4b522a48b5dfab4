"""
Primal, dual and gap, round by round
====================================

LPBoost's restricted master is solved to optimality every round, so its
primal value (the soft margin over the columns found so far) equals its dual
value gamma. The best edge the exact stump oracle finds under the master's
distribution is an upper bound on the value over *all* stumps; the gap
between the two closes when column generation has found the optimum.
"""

import matplotlib.pyplot as plt

from lpboosting import LPBoostClassifier
from lpboosting.datasets import breast_cancer
from lpboosting.plots import plot_distribution, plot_duality

X, y = breast_cancer()
clf = LPBoostClassifier(nu=0.1, oracle="stumps", columns_per_round=1, stabilization=None, tol=1e-9)
clf.fit(X, y)
last = clf.history_[-1]
print(f"{clf.status_} after {clf.n_rounds_} rounds; soft margin {clf.objective_:.6f}")
print(f"last round: primal {last.primal:.6f}, dual {last.dual:.6f}, best edge {last.edge:.6f}")

# %%
# Left, the two bounds meet; right, the final distribution d, sorted: a group
# of examples sits at the cap 1/(nu N), the ones with a positive slack.
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
plot_duality(clf, ax=axes[0])
plot_distribution(clf, ax=axes[1])
fig.tight_layout()
plt.show()
