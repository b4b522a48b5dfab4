"""HiGHS's warm-started dual simplex cycling on a degenerate LP: a reproducer for HiGHS's maintainers.

The LP is LPBoost's dual over N = 500 examples, grown by one row at a time and
re-solved from the previous basis after each, as a column-generation code does::

    min gamma  s.t.  sum_n d_n u_nm - gamma <= 0 (m = 1..t),  sum_n d_n = 1,  0 <= d_n <= 1/(nu N)

``columns.npz`` holds the margins u (N x T, entries in [-1, 1]) in the order the rows
were added, and nu.  Every solve but the last takes at most a few hundred dual simplex
iterations; the last one runs into the iteration limit set here (50 000; without a
limit HiGHS 1.16 ran hundreds of thousands of iterations, 20 s and more, on this size).

Only numpy and highspy are needed:  python cycle.py [columns.npz] [--mps FILE]
``--mps FILE`` also writes the model the last solve cycles on.  Solved from scratch,
or from the basis of the solve before, that model takes a few hundred iterations: the
cycling needs the hot start (the factorisation and dual edge weights HiGHS keeps between
runs of one model), which is why this script replays the whole sequence.
"""

import argparse
import time

import highspy
import numpy as np

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("columns", nargs="?", default="columns.npz")
parser.add_argument("--mps", help="also write the model of the last solve to this file")
args = parser.parse_args()

data = np.load(args.columns)
U, nu = data["U"], float(data["nu"])
n, T = U.shape
h = highspy.Highs()
for key, value in {"output_flag": False, "presolve": "off", "solver": "simplex", "simplex_strategy": 1,
                   "random_seed": 0, "simplex_iteration_limit": 50_000}.items():
    h.setOptionValue(key, value)
inf = highspy.kHighsInf
h.addVars(n, np.zeros(n), np.full(n, 1.0 / (nu * n)))  # d_n in [0, 1/(nu N)]
h.addVar(-inf, inf)  # gamma, free, cost 1
h.changeColCost(n, 1.0)
h.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))  # sum d = 1
index = np.arange(n + 1, dtype=np.int32)
print(f"N = {n}, nu = {nu}, rows added one at a time: {T}")
most = 0
for m in range(T):
    h.addRow(-inf, 0.0, n + 1, index, np.append(U[:, m], -1.0))  # d . u_m - gamma <= 0
    if args.mps and m == T - 1:
        h.writeModel(args.mps)
    start = time.perf_counter()
    h.run()
    iterations = h.getInfo().simplex_iteration_count
    status = h.modelStatusToString(h.getModelStatus())
    if m < T - 1:
        most = max(most, iterations)
    else:
        print(f"solves 1..{T - 1}: at most {most} simplex iterations each")
        print(f"solve {T}: {status}, {iterations} simplex iterations, {time.perf_counter() - start:.2f} s")
