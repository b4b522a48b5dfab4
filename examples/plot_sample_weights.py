"""
Sample weights are repeated rows
================================

An integer ``sample_weight`` gives exactly the fit on the data with each row
repeated that many times: the master's cap becomes c_n = p_n / nu with p the
weights' share, and a row of weight 0 is left out. The soft margin, the
weights of the hypotheses and the predictions are the same.
"""

import matplotlib.pyplot as plt
import numpy as np

from lpboosting import LPBoostClassifier
from lpboosting.datasets import breast_cancer

X, y = breast_cancer()
counts = np.random.default_rng(0).integers(0, 4, size=len(y))  # 0 to 3 copies of each row
weighted = LPBoostClassifier(nu=0.1, oracle="stumps").fit(X, y, sample_weight=counts)
repeated = LPBoostClassifier(nu=0.1, oracle="stumps").fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
print(f"rows {len(y)}, of weight 0: {np.sum(counts == 0)}; repeated rows {counts.sum()}")
print(f"soft margin, weighted: {weighted.objective_:.8f}")
print(f"soft margin, repeated: {repeated.objective_:.8f}")
print("same predictions on every row:", bool(np.all(weighted.predict(X) == repeated.predict(X))))

# %%
# The margins of the rows under each model's weights: the same distribution
# (here the cumulative share of the weighted rows at or below each margin)
fig, ax = plt.subplots(figsize=(6, 3.8))
for name, model in [("sample_weight", weighted), ("repeated rows", repeated)]:
    margins = model.margins(X, y)
    order = np.argsort(margins)
    ax.step(margins[order], np.cumsum(counts[order]) / counts.sum(), where="post", label=name,
            linestyle="-" if name == "sample_weight" else "--")
ax.set_xlabel("margin")
ax.set_ylabel("share of the weighted rows")
ax.legend()
fig.tight_layout()
plt.show()
