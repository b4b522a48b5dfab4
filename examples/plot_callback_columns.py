"""
A callback that adds columns of its own
=======================================

A callback of two arguments, ``callback(record, state)``, sees every round of
:func:`lpboosting.column_generation` as it happens (``record`` is the round's
line of the ledger) and may add columns to the next master with
``state.add_column(u)``. Here the oracle prices decision stumps, and the
callback offers, once, the column of a rule found elsewhere: a logistic
regression's sign. The master takes it if it helps, weighs it against the
stumps, and the optimum over both classes is certified by the same gap test.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from lpboosting import column_generation
from lpboosting.datasets import breast_cancer
from lpboosting.masters import LPBoost
from lpboosting.oracles import Stumps

X, labels = breast_cancer()
y = np.where(labels == 1, 1.0, -1.0)
logistic = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
u_logistic = y * np.sign(logistic.decision_function(X))  # its column: y_n h(x_n)
print(f"the logistic rule's training accuracy {np.mean(u_logistic > 0):.3f}")


def offer_logistic(record, state):
    """After round 1, add the logistic rule's column once."""
    if record.round == 1:
        state.add_column(u_logistic, hypothesis="logistic regression")


plain = column_generation(LPBoost(nu=0.1), Stumps(X, y), tol=1e-7)
mixed = column_generation(LPBoost(nu=0.1), Stumps(X, y), tol=1e-7, callback=offer_logistic)
where = [i for i, h in enumerate(mixed.hypotheses) if h == "logistic regression"]
print(f"stumps only:          {plain.status} after {plain.n_rounds} rounds, soft margin {plain.objective:.5f}")
print(f"stumps + the logistic: {mixed.status} after {mixed.n_rounds} rounds, soft margin {mixed.objective:.5f}")
print(f"the logistic column's weight: {mixed.weights[where[0]]:.3f}")

# %%
# The soft margin per round, with and without the offered column
fig, ax = plt.subplots(figsize=(6, 3.8))
ax.plot([r.primal for r in plain.history], label="stumps only")
ax.plot([r.primal for r in mixed.history], label="stumps + the logistic column")
ax.set_xlabel("round")
ax.set_ylabel("restricted master's value")
ax.legend()
fig.tight_layout()
plt.show()
