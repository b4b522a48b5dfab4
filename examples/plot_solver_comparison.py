"""
Comparing solvers, and their performance profile
================================================

The same master, solved by several backends: :func:`lpboosting.compare.compare`
runs column generation once per backend (each choosing its own columns), then
replays the first backend's columns through all of them, so that every
backend solves the same sequence of restricted masters. The objectives must
agree within the solvers' tolerances; the times say who is faster.

Over many instances, a performance profile (Dolan and Moré, 2002) summarises
the times: for each backend, the share of instances it solved within a
factor tau of the fastest.
"""

import matplotlib.pyplot as plt

from lpboosting.compare import compare, compare_catalog
from lpboosting.datasets import softboost_synthetic
from lpboosting.masters import LPBoost
from lpboosting.oracles import Features
from lpboosting.plots import plot_performance_profile

# the SoftBoost paper's synthetic set: 500 training rows, 100 features, 10% label noise
X, y, _, _ = softboost_synthetic()
comparison = compare(LPBoost(nu=0.3), Features(X, y), ["highspy", "cvxpy:HIGHS", "cvxpy:CLARABEL"])
print(comparison.format())
print("every run finished:", comparison.ok())
print("largest deviation between backends:", f"{comparison.max_deviation():.1e}")

# %%
# The certified catalog
# ---------------------
# ``models/`` holds reference instances with certified optima (LPBoost and
# RMBoost LPs, entropy projections). Each backend solves every instance it
# can; an answer off the certified objective by more than the instance's
# tolerance counts as not solved. The times below are this build's.
comparisons = compare_catalog(backends=["highspy", "dedicated", "cvxpy:HIGHS", "cvxpy:CLARABEL"], replay=False)
for c in comparisons:
    best = min((r for r in c.runs if r.solved), key=lambda r: r.seconds)
    print(f"{c.meta['instance']:32s} fastest: {best.backend}")

fig, ax = plt.subplots(figsize=(9, 4))
plot_performance_profile(comparisons, ax=ax)
fig.tight_layout()
plt.show()
