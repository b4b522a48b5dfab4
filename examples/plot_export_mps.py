"""
Export a master to MPS and solve it again with highspy
======================================================

A fitted classifier's last restricted master is an LP like any other:
:func:`lpboosting.export.export_model` writes it as an MPS (or LP) file with
named rows and columns, for any outside solver. Here HiGHS reads the file back
through its own Python API, solves it from scratch, and finds the
classifier's soft margin; the duals of the ``edge_j`` rows are weights of the
hypotheses that reach it.
"""

import tempfile
from pathlib import Path

import highspy
import matplotlib.pyplot as plt
import numpy as np

from lpboosting import LPBoostClassifier, export_model
from lpboosting.datasets import breast_cancer
from lpboosting.export import last_master_columns
from lpboosting.masters import LPBoost, soft_margin

X, y = breast_cancer()
clf = LPBoostClassifier(nu=0.1, oracle="stumps").fit(X, y)
U = last_master_columns(clf.result_)  # U[n, j] = y_n h_j(x_n) over the last master's columns
print(f"soft margin {clf.objective_:.8f} over {U.shape[1]} hypotheses of {U.shape[0]} examples")

folder = Path(tempfile.mkdtemp())
export_model(LPBoost(nu=0.1), U, folder / "master.mps")
print("\n".join((folder / "master.mps").read_text().splitlines()[:6]))  # its first lines

# %%
# Solve the file with highspy alone (the dual: min gamma over the capped
# simplex, one row ``edge_j`` per hypothesis)
h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.readModel(str(folder / "master.mps"))
h.run()
lp = h.getLp()
print("status:", h.modelStatusToString(h.getModelStatus()))
print(f"objective {h.getInfo().objective_function_value:.8f}  (the classifier's {clf.objective_:.8f})")
rows = list(lp.row_names_)
duals = np.array(h.getSolution().row_dual)
w = -duals[[rows.index(f"edge_{j}") for j in range(U.shape[1])]]  # a minimisation's <= rows: w = -dual
print(f"weights from the file's duals: sum {w.sum():.6f}, soft margin {soft_margin(U @ w, 0.1):.8f}")
print(f"largest difference to the classifier's weights: {np.max(np.abs(w - clf.weights_[:U.shape[1]])):.3f}")

# %%
# The two weight vectors reach the same soft margin and may still differ: this
# LP's primal optimum is not unique, and a simplex run from scratch may stop
# at another optimal vertex than the warm-started one the classifier kept.

# %%
# The weights read from the file's duals against the classifier's: mostly the
# same hypotheses, with some weight moved between equivalent ones
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(np.arange(U.shape[1]), clf.weights_[:U.shape[1]], label="classifier weights_")
ax.plot(np.arange(U.shape[1]), w, "k.", label="-dual of edge_j (highspy)")
ax.set_xlabel("hypothesis j")
ax.set_ylabel("weight")
ax.legend()
fig.tight_layout()
plt.show()
