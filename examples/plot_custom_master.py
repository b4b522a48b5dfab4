r"""
A master of your own
====================

A master is a formulation: its cvxpy statement, how to read the solution
back, the gap and the stop. Stated once, it runs on every cvxpy backend
with every oracle, and the loop records its primal, dual and gap as it does
the library's. Here, the hard-margin LP

.. math::

   \max_{w,\, \rho}\ \rho \quad \text{s.t.} \quad U w \ge \rho \mathbf{1}, \quad w \in \Delta,

whose dual is the edge game over the whole simplex (no cap on d). It must
agree with LPBoost at nu = 1/N, whose cap 1/(nu N) = 1 does not bind.
"""

import cvxpy as cp
import matplotlib.pyplot as plt
import numpy as np

from lpboosting import column_generation
from lpboosting.datasets import breast_cancer
from lpboosting.masters import CvxpyStatement, LPBoost, Master, MasterSolution
from lpboosting.oracles import Stumps
from lpboosting.plots import plot_duality


class HardMargin(Master):
    """max rho s.t. U w >= rho (dual d >= 0), w in the simplex;
    dual: min gamma s.t. d.u^m <= gamma (dual w_m), d in the simplex.  d is the distribution."""

    kind, name, default_backend = "lp", "HardMargin", "cvxpy:HIGHS"

    def cvxpy_statement(self, U):
        d, gamma = cp.Variable(U.shape[0]), cp.Variable()
        edges = U.T @ d <= gamma
        problem = cp.Problem(cp.Minimize(gamma), [edges, cp.sum(d) == 1, d >= 0])
        return CvxpyStatement(problem, {"d": d, "gamma": gamma}, {"edges": edges})

    def cvxpy_solution(self, statement, U, status):
        gamma = float(statement.variables["gamma"].value)
        w = np.maximum(statement.constraints["edges"].dual_value, 0.0)
        return MasterSolution(status, gamma, gamma, gamma, w, statement.variables["d"].value, gamma=gamma)

    def gap(self, solution, edge):
        return edge - solution.dual_objective

    def converged(self, solution, edge, tol):
        return edge <= solution.dual_objective + tol


X, labels = breast_cancer()
X, y = X[::4, :8], np.where(labels[::4] == 1, 1.0, -1.0)  # 143 examples, 8 features
ours = column_generation(HardMargin(), Stumps(X, y))
lp = column_generation(LPBoost(nu=1 / len(y)), Stumps(X, y))
print(f"hard margin: {ours.status} after {ours.n_rounds} rounds, margin {ours.objective:.6f}")
print(f"LPBoost at nu = 1/N: {lp.status}, soft margin {lp.objective:.6f}")
print("agree to 1e-7:", abs(ours.objective - lp.objective) < 1e-7)
for name in ("cvxpy:HIGHS", "cvxpy:CLARABEL"):
    run = column_generation(HardMargin(), Stumps(X, y), backend=name)
    print(f"{name:15s} {run.status}, margin {run.objective:.6f}")

# %%
# The run's ledger, drawn as for any master: primal and dual meet, and the
# gap to the best stump's edge closes.
fig, ax = plt.subplots(figsize=(6, 4))
plot_duality(ours.history, ax=ax)
fig.tight_layout()
plt.show()
