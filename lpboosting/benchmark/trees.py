"""The tree oracles side by side: ``hist-trees`` against ``trees`` (CART), time and edge of one pricing.

For each tree shape (``max_depth`` 1 to 6, and 3 leaves as RMBoost grows
them) both oracles price the same weightings on the same data (the twonorm
generator, ``--n`` rows, 20 features): a distribution and a signed
weighting (RMBoost's), each drawn at random.  Per shape: the median seconds
of one ``price`` call of each (after one call to warm up), their ratio, and
the edges (the sum over the weightings) with their ratio; ``price_many(k)``
seconds for ``hist-trees`` too.  The oracles are built once per shape (the
binning and ranking are not timed).

Run::

    python -m lpboosting.benchmark.trees                    # 50 000 rows
    python -m lpboosting.benchmark.trees --n 200000 --repeats 5 --json out.json
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from lpboosting.benchmark.common import machine_info, write_json

SHAPES: tuple[dict[str, Any], ...] = (
    {"max_depth": 1}, {"max_depth": 2}, {"max_depth": 3}, {"max_depth": 4}, {"max_depth": 5},
    {"max_depth": 6}, {"max_depth": None, "max_leaf_nodes": 3},
)


def _median_seconds(fn, repeats: int) -> float:
    fn()  # warm up (scikit-learn validates the first fit)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(n: int, repeats: int = 3, k: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    from lpboosting.datasets import twonorm
    from lpboosting.oracles import HistTrees, Trees

    X, y = twonorm(n, random_state=seed)
    rng = np.random.default_rng(seed)
    weightings = [rng.dirichlet(np.ones(n)), (rng.random(n) - 0.3) / n]
    rows = []
    for shape in SHAPES:
        cart, hist = Trees(X, y, **shape), HistTrees(X, y, **shape)
        row: dict[str, Any] = {"shape": _label(shape)}
        for name, oracle in (("cart", cart), ("hist", hist)):
            row[f"{name}_seconds"] = _median_seconds(lambda o=oracle: [o.price(d) for d in weightings], repeats)
            row[f"{name}_edge"] = float(sum(oracle.price(d).edge for d in weightings))
        row["hist_many_seconds"] = _median_seconds(lambda: [hist.price_many(d, k) for d in weightings], repeats)
        row["speedup"] = row["cart_seconds"] / row["hist_seconds"]
        row["edge_ratio"] = row["hist_edge"] / row["cart_edge"]
        rows.append(row)
    return rows


def _label(shape: dict[str, Any]) -> str:
    return (f"depth {shape['max_depth']}" if shape.get("max_leaf_nodes") is None
            else f"{shape['max_leaf_nodes']} leaves")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lpboosting.benchmark.trees", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=50_000, help="training rows (default 50 000)")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per oracle and shape")
    parser.add_argument("--k", type=int, default=10, help="trees of hist-trees' price_many")
    parser.add_argument("--json", help="write the rows and the machine here")
    args = parser.parse_args(argv)
    rows = run(args.n, args.repeats, args.k)
    print(f"N = {args.n}, 20 features, two weightings a call (a distribution, a signed one); median of "
          f"{args.repeats} calls")
    print(f"{'shape':<10} {'CART s':>8} {'hist s':>8} {'speedup':>8} {'CART edge':>10} {'hist edge':>10} "
          f"{'ratio':>7} {f'many({args.k}) s':>12}")
    for r in rows:
        print(f"{r['shape']:<10} {r['cart_seconds']:8.3f} {r['hist_seconds']:8.3f} {r['speedup']:7.1f}x "
              f"{r['cart_edge']:10.5f} {r['hist_edge']:10.5f} {r['edge_ratio']:7.4f} {r['hist_many_seconds']:12.3f}")
    if args.json:
        write_json(args.json, {"machine": machine_info("scikit-learn"), "n": args.n, "rows": rows})
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
