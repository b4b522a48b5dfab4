"""Entropy masters: the dedicated projection solver vs CLARABEL vs ECOS.

For each instance and master, one process runs the same column generation
three times, with the projection solved by

* ``dedicated`` -- the warm-started dual active-set Newton solver
  (:mod:`lpboosting.backends.dedicated.newton_projection`), verified every round;
* ``cvxpy:CLARABEL`` and ``cvxpy:ECOS`` -- the exponential-cone statement
  rebuilt and solved by a conic solver every round.

The LP over the chosen columns (for gamma*_t and the final weights) is the
same incremental HiGHS model in all three runs, so the difference is the
projection.  Printed per run: rounds, stop status, seconds to termination,
median ms per projection, the final soft margin, the largest per-round
difference of the recorded relative entropy from the dedicated run and the
largest difference of the final distribution; per instance the ratios
conic / dedicated (total time and median projection time).  The conic
solvers are run at tightened tolerances so that d agrees to 1e-6.

Run::

    python -m lpboosting.benchmark.entropy
    python -m lpboosting.benchmark.entropy --quick      # synthetic nu=0.3 and cancer only
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Sequence

import numpy as np

from lpboosting import column_generation
from lpboosting.backends import CvxpyBackend, RecordingBackend
from lpboosting.backends.cvxpy_backend import TIGHT_OPTIONS
from lpboosting.benchmark.common import machine_info, write_json
from lpboosting.datasets import breast_cancer, softboost_synthetic
from lpboosting.masters import ERLPBoost, SoftBoost
from lpboosting.oracles import Features, Stumps

#: conic tolerances at which d agrees with the dedicated solver to 1e-6
TIGHT = TIGHT_OPTIONS
PATHS = ("dedicated", "cvxpy:CLARABEL", "cvxpy:ECOS")


def instances(quick: bool):
    Xtr, ytr, _, _ = softboost_synthetic(random_state=0)
    synthetic = Features(Xtr, ytr)
    X, y = breast_cancer()
    cancer = Stumps(X, y)
    runs = [
        ("synthetic (500x100, features)", synthetic, SoftBoost(0.3, 0.01)),
        ("breast cancer (569x30, stumps)", cancer, SoftBoost(0.1, 0.01)),
    ]
    if not quick:
        runs[1:1] = [("synthetic (500x100, features)", synthetic, SoftBoost(0.1, 0.01))]
        runs += [("synthetic (500x100, features)", synthetic, ERLPBoost(0.1, 0.01))]
    return runs


def backend_for(path: str) -> RecordingBackend:
    if path == "dedicated":
        return RecordingBackend("dedicated")
    solver = path.split(":", 1)[1]
    return RecordingBackend(CvxpyBackend(solver, **TIGHT[solver]))


def run(master, oracle, path: str, max_rounds: int) -> dict[str, Any]:
    backend = backend_for(path)
    start = time.perf_counter()
    res = column_generation(master, oracle, backend=backend, max_rounds=max_rounds)
    seconds = time.perf_counter() - start
    projections = [s.info["projection"] for s in backend.solutions
                   if s.ok and s.info.get("projection") is not None]
    return {
        "path": path, "rounds": res.n_rounds, "status": res.status, "seconds": seconds,
        "median_projection_ms": 1e3 * float(np.median([p.seconds for p in projections])),
        "soft_margin": res.objective,
        "distributions": [p.distribution for p in projections],
        "fallbacks": sum(p.fallback for p in projections),
    }


def compare(runs: list[dict[str, Any]]) -> None:
    """Per-round max |d - d_dedicated| over the rounds both runs projected, and time ratios."""
    ref = runs[0]
    for r in runs:
        pairs = list(zip(r["distributions"], ref["distributions"]))
        r["d_diff"] = max(float(np.max(np.abs(a - b))) for a, b in pairs) if pairs else float("nan")
        r["ratio_total"] = r["seconds"] / ref["seconds"]
        r["ratio_projection"] = r["median_projection_ms"] / ref["median_projection_ms"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two instances only")
    parser.add_argument("--max-rounds", type=int, default=2000)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine_info("cvxpy", "clarabel", "ecos").items()))
    # warm up imports and first-call costs
    Xw, yw, _, _ = softboost_synthetic(n_rows=200, n_features=5, n_informative=2, n_train=50, random_state=1)
    for path in PATHS:
        column_generation(SoftBoost(0.3, 0.1), Features(Xw, yw), backend=backend_for(path).inner, max_rounds=3)

    out = []
    header = (f"{'path':<16} {'rounds':>6} {'status':>10} {'seconds':>8} {'proj ms':>8} "
              f"{'soft margin':>12} {'max |dd|':>9} {'x total':>8} {'x proj':>7} {'fallback':>8}")
    for name, oracle, master in instances(args.quick):
        print(f"\n{name}: {master!r}")
        print(header)
        runs = [run(master, oracle, path, args.max_rounds) for path in PATHS]
        compare(runs)
        for r in runs:
            print(f"{r['path']:<16} {r['rounds']:>6} {r['status']:>10} {r['seconds']:>8.3f} "
                  f"{r['median_projection_ms']:>8.2f} {r['soft_margin']:>12.7f} {r['d_diff']:>9.1e} "
                  f"{r['ratio_total']:>8.1f} {r['ratio_projection']:>7.1f} {r['fallbacks']:>8}")
        out.append({"instance": name, "master": repr(master),
                    "runs": [{k: v for k, v in r.items() if k != "distributions"} for r in runs]})
    print("\n'x total' and 'x proj' are the conic path's time over the dedicated path's, from this run;"
          "\n'max |dd|' is the largest difference, over all rounds, between the path's projected d and the"
          " dedicated solver's d of the same round.")
    if args.json:
        write_json(args.json, out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
