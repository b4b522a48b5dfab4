"""
The nu path: one warm-started master for every nu
=================================================

``nu`` caps the distribution at 1/(nu N): at most a fraction nu of the
examples may have a margin below rho. Changing nu changes only bounds of the
master's variables, so :func:`lpboosting.nu_path` keeps one live HiGHS model,
its columns and its basis, and goes on from one nu to the next. Each nu's
optimum is the one a separate fit at that nu would reach.
"""

import matplotlib.pyplot as plt
import numpy as np

from lpboosting import LPBoostClassifier, nu_path
from lpboosting.datasets import breast_cancer, flip_labels
from lpboosting.oracles import Stumps

X, y = breast_cancer()
y = np.where(flip_labels(y, 0.1, random_state=0) == 1, 1.0, -1.0)  # 10% of the labels flipped
nus = [0.8, 0.5, 0.3, 0.2, 0.15, 0.1, 0.05, 0.02]
path = nu_path(nus, Stumps(X, y))
margins = [r.objective for r in path.results]
rounds = [r.n_rounds for r in path.results]
for nu, result in zip(path.nus, path.results):
    print(f"nu {nu:4.2f}: {result.status:9s} after {result.n_rounds:3d} rounds, soft margin {result.objective:8.5f}, "
          f"hypotheses with weight {np.count_nonzero(result.weights > 1e-9):3d}")
print("hypotheses found along the path:", len(path.hypotheses))

# %%
# The soft margin falls as nu falls (fewer examples may be given up on), and
# each nu costs few rounds once the earlier ones have found most of the
# columns. Below the labels' noise rate (0.1 here) the optimum hardly moves:
# the LP can no longer give up on the flipped labels, which is why the
# classifiers choose nu by cross-validation unless told. A separate fit at one
# nu reaches the same optimum as the path:
single = LPBoostClassifier(nu=0.1, oracle="stumps").fit(X, y)
print(f"separate fit at nu 0.1: soft margin {single.objective_:.5f}")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
axes[0].plot(path.nus, margins, "o-")
axes[0].set_xscale("log")
axes[0].set_xlabel("nu")
axes[0].set_ylabel("soft margin")
axes[1].bar([f"{nu:g}" for nu in path.nus], rounds)
axes[1].set_xlabel("nu (in the order solved)")
axes[1].set_ylabel("rounds")
fig.tight_layout()
plt.show()
