"""HiGHS's interior point (IPX, no presolve, no crossover) ending with status "Unknown" on an LP of
duplicate rows: a reproducer for HiGHS's maintainers.

The LP is RMBoost's first minimax master as a column-generation code writes it, with one base rule
and the margin rows of 5 000 examples (3 472 of them with the rule right, s_i = +1)::

    min 1/2 + (lam - tau) mu+ + (lam + tau) mu-
    s.t.  mu+ + mu- <= 1/lam,   mu+ - mu- - z = 0,   -1/2 <= s_i z <= 1/2 (i = 1..5000),   mu+, mu- >= 0

Its optimum is mu+ = 1/2, z = 1/2: 1/2 + (lam - tau)/2 = 0.3282.  With presolve off (the
column-generation code keeps one live model and re-solves it each round) HiGHS 1.16's interior
point stops after a few dozen iterations with model status "Unknown" for some orders of the
rows (this one); with presolve on, which removes the duplicate rows, it answers in a few
iterations.  Only numpy and highspy are needed:  python unknown.py [--seed 22] [--mps FILE]
"""

import argparse

import highspy
import numpy as np

LAM, TAU = 0.0316, 0.3752
#: the optimum: mu+ = 1/2 (z = 1/2), mu- = 0
OPTIMUM = 0.5 + (LAM - TAU) / 2


def build(h: "highspy.Highs", seed: int = 22) -> "highspy.Highs":
    """Write the LP into the empty model ``h`` (its options are the caller's), rows in the order of ``seed``."""
    signs = np.random.default_rng(seed).permutation(np.r_[np.ones(3472), -np.ones(1528)])
    inf = highspy.kHighsInf
    h.addVars(3, np.array([0.0, 0.0, -inf]), np.array([inf, inf, inf]))
    h.changeColsCost(3, np.array([0, 1, 2], dtype=np.int32), np.array([LAM - TAU, LAM + TAU, 0.0]))
    h.changeObjectiveOffset(0.5)
    h.addRow(-inf, 1.0 / LAM, 2, np.array([0, 1], dtype=np.int32), np.array([1.0, 1.0]))
    h.addRow(0.0, 0.0, 3, np.array([0, 1, 2], dtype=np.int32), np.array([1.0, -1.0, -1.0]))
    m = signs.size
    h.addRows(m, np.full(m, -0.5), np.full(m, 0.5), m, np.arange(m, dtype=np.int32),
              np.full(m, 2, dtype=np.int32), signs)
    return h


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=22, help="the order of the rows")
    parser.add_argument("--mps", help="also write the model to this file")
    args = parser.parse_args()
    for presolve in ("off", "on"):
        h = highspy.Highs()
        for key, value in {"output_flag": False, "presolve": presolve, "solver": "ipm", "run_crossover": "off",
                           "ipm_optimality_tolerance": 1e-10}.items():
            h.setOptionValue(key, value)
        build(h, args.seed)
        if args.mps and presolve == "off":
            h.writeModel(args.mps)
        h.run()
        info = h.getInfo()
        print(f"presolve {presolve}: status {h.modelStatusToString(h.getModelStatus())}, "
              f"{info.ipm_iteration_count} IPM iterations, objective {info.objective_function_value:.10f} "
              f"(optimum {OPTIMUM:.10f})")
