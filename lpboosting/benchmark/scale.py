"""LPBoost at scale: rounds, seconds and peak memory on Breiman's twonorm generator, N = 5 000 to 10^6.

What is measured
----------------
LPBoost (nu = ``--nu``, 0.1) with exact stumps on ``lpboosting.datasets.twonorm``
(20 features) at each ``--sizes`` N, run to a certified gap <= ``--tol``
(1e-4) or to ``--time-limit`` seconds:

``default``
    the library's defaults for a user: ``LPBoostClassifier``'s loop
    (smoothing, 20 columns a round) on the default ``highspy`` session
    (sifting: a model over a working set of examples, each hypothesis
    written as its difference from the closest earlier one, certified on
    all N; a round answers early, with the feasible pair of its first run,
    while examples remain to enter the working set);
``optimal``
    the same with every round solved to the restricted master's optimum
    (``HighspyBackend(early_answers=False)``, the rounds before early
    answers); run up to ``--optimal-max`` rows;
``binned``
    the same with the histogram oracle ``BinnedStumps`` (``--max-bins``
    bins a feature, 255 unless given; the gap is certified over that
    class); run from ``--binned-min`` rows;
``delta``
    the same loop on the difference model over all N examples, without
    sifting (``backend="highspy:delta"``); run up to ``--delta-max`` rows;
``rows``
    the loop and model the library had before: one column a round at the
    master's vertex dual, every hypothesis a dense row of the HiGHS model
    (``backend="highspy:rows"``); run only up to ``--rows-max`` rows, where it
    finishes.

``dask`` (with ``--dask``)
    ``DaskLPBoostClassifier`` on a ``distributed.LocalCluster`` of
    ``--workers`` worker processes (one thread each): the same loop and
    session with binned stumps, the rows generated on the workers (one
    twonorm draw per partition of ``--chunk`` rows, so not the rows of the
    other configs) and kept there.  Its row adds the peak memory of each
    worker and the split of the time between pricing (per-partition
    histograms and the new columns), the sifting check (margins on the
    workers), the rows fetched for the working set, the edges, and the master
    on the client (HiGHS and the session's own work).

``--columns-per-round`` (20, the classifiers' default) changes the columns
a round of every config but ``rows``; ``--working-size`` the working set of
the sifting session (by default 2000, or N / 125 from 250 000 rows) in
``default``, ``optimal`` and ``binned``; ``--highs-options key=value ...``
HiGHS's options of their sessions (``simplex_dual_edge_weight_strategy=1``: Devex
pricing).

Every run is a separate process (so its peak resident memory is its own,
read from ``getrusage`` of the child), started one after the other. Per run:
status, rounds, columns, the final gap (certified: the best bound of an
exact oracle minus the master's value), seconds in all, in the master and in
pricing, and the peak memory; per size, the time ratios of ``optimal``,
``rows`` and ``delta`` to ``default`` where both ran.  Progress lines go to stderr while a run works.

Run::

    python -m lpboosting.benchmark.scale                       # 5e3, 5e4, 5e5, 1e6 rows (long)
    python -m lpboosting.benchmark.scale --sizes 5000 20000 --json out.json
    python -m lpboosting.benchmark.scale --dask --sizes 1000000 10000000   # the Dask fit only
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import time
from collections.abc import Sequence
from typing import Any

from lpboosting.benchmark.common import checked_backend, key_values, machine_info, write_json

SIZES = (5_000, 50_000, 500_000, 1_000_000)
CONFIGS = ("default", "optimal", "binned", "delta", "rows", "dask")


def _peak_gb() -> float:
    """Peak resident memory of this process in GB (ru_maxrss is in KB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024.0 ** 3 if sys.platform == "darwin" else 1024.0 ** 2)


def _reporter(config: str, n: int, progress: int, start: float) -> Any:
    """The loop's callback that prints a progress line every ``progress`` rounds to stderr."""
    def report(record):
        if progress and record.round % progress == 0:
            gap = "-" if record.gap is None else f"{record.gap:.1e}"
            print(f"    [{config} N={n}] round {record.round}, {record.n_columns} columns, gap {gap}, "
                  f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return report


def _run(config: str, n: int, nu: float, tol: float, time_limit: float, seed: int, progress: int,
         columns_per_round: int = 20, working_size: int | None = None, max_bins: int = 255,
         highs_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """One run, in a child process: the figures of the table row."""
    from lpboosting import column_generation
    from lpboosting.backends import get_backend
    from lpboosting.datasets import twonorm
    from lpboosting.masters import LPBoost
    from lpboosting.oracles import BinnedStumps, Stumps

    X, y = twonorm(n, random_state=seed)
    options = {"columns_per_round": columns_per_round, "stabilization": "smoothing"}
    if config == "delta":
        options["backend"] = "highspy:delta"
    elif config in ("default", "optimal", "binned"):
        session = ({} if working_size is None else {"working_size": working_size}) | (
            {"early_answers": False} if config == "optimal" else {})
        if session or highs_options:  # else the loop's default backend, as a user's fit has it
            options["backend"] = get_backend("highspy", **session, **(highs_options or {}))
    elif config == "rows":
        options = {"backend": "highspy:rows"}
    start = time.perf_counter()
    report = _reporter(config, n, progress, start)
    setup = time.perf_counter()
    oracle = BinnedStumps(X, y, max_bins=max_bins) if config == "binned" else Stumps(X, y)
    setup = time.perf_counter() - setup
    res = column_generation(LPBoost(nu), oracle, tol=tol, max_rounds=1_000_000, time_limit=time_limit,
                            callback=report, **options)
    seconds = time.perf_counter() - start
    history = res.history
    return {
        "config": config, "n": n, "status": res.status, "rounds": len(history),
        **({"max_bins": max_bins} if config == "binned" else {}),
        "columns": int(res.columns.shape[1]), "objective": float(res.objective),
        "early_rounds": sum(1 for r in history if r.extra.get("optimal") is False),
        **_last_gap(history), "seconds": seconds,
        "setup_seconds": setup,
        "master_seconds": float(sum(r.master_seconds for r in history)),
        "pricing_seconds": float(sum(r.pricing_seconds for r in history))
        + float(history.meta.get("initial_pricing_seconds", 0.0)),
        "peak_gb": _peak_gb(),
    }


def _last_gap(history: Any) -> dict[str, Any]:
    """The gap of the last round that has one (a round cut short by the time limit records none)
    and that round."""
    for record in reversed(list(history)):
        if record.gap is not None:
            return {"gap": float(record.gap), "gap_round": int(record.round)}
    return {"gap": None, "gap_round": None}


def _partition(size: int, seed: int) -> Any:
    from lpboosting.datasets import twonorm

    return twonorm(size, random_state=seed)


def _worker_peak_gb() -> float:
    return _peak_gb()


def _run_dask(n: int, nu: float, tol: float, time_limit: float, seed: int, progress: int,
              columns_per_round: int = 20, workers: int = 2, chunk: int = 250_000) -> dict[str, Any]:
    """The Dask fit on a LocalCluster, the rows made on the workers."""
    import warnings

    import dask
    import dask.array as da
    import distributed
    import numpy as np

    from lpboosting.dask import DaskLPBoostClassifier

    sizes = [min(chunk, n - a) for a in range(0, n, chunk)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None, memory_limit=0)
    with distributed.Client(cluster) as client:
        parts = [dask.delayed(_partition)(m, seed + 1000 * p) for p, m in enumerate(sizes)]
        X = da.concatenate([da.from_delayed(part[0], (m, 20), dtype=float) for part, m in zip(parts, sizes)])
        y = da.concatenate([da.from_delayed(part[1], (m,), dtype=float) for part, m in zip(parts, sizes)])
        start = time.perf_counter()
        report = _reporter("dask", n, progress, start)
        model = DaskLPBoostClassifier(nu=nu, tol=tol, max_rounds=1_000_000, time_limit=time_limit,
                                      callback=report, columns_per_round=columns_per_round,
                                      client=client)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        seconds = time.perf_counter() - start
        frame = model._oracle.frame
        worker_peaks = sorted(client.run(_worker_peak_gb).values())
        history = model.history_
        split = dict(frame.seconds)
    cluster.close()
    pricing = float(sum(r.pricing_seconds for r in history)) + float(history.meta.get("initial_pricing_seconds", 0.0))
    master = float(sum(r.master_seconds for r in history))
    on_workers = {"check": split.get("block_margins", 0.0), "rows": split.get("block_take", 0.0),
                  "edges": split.get("block_dots", 0.0), "histograms": split.get("partition_bin_sums", 0.0)}
    return {
        "config": "dask", "n": n, "status": model.status_, "rounds": len(history),
        "columns": len(model.hypotheses_), "objective": float(model.objective_),
        **_last_gap(history), "seconds": seconds, "setup_seconds": None,
        "master_seconds": master, "pricing_seconds": pricing, "peak_gb": _peak_gb(),
        "worker_peak_gb": worker_peaks, "partitions": len(sizes), "workers": workers,
        "split_seconds": {**on_workers, "master_on_client": max(0.0, master - on_workers["check"]
                                                              - on_workers["rows"] - on_workers["edges"])},
        "test_accuracy": None if n > 2_000_000 else float(np.mean(model.predict(_partition(20_000, seed + 7)[0])
                                                                  == _partition(20_000, seed + 7)[1])),
    }


def _child(queue: Any, args: tuple) -> None:
    try:
        queue.put(_run_dask(*args[1:]) if args[0] == "dask" else _run(*args))
    except BaseException as exc:  # reported in the table, not lost in the child
        queue.put({"config": args[0], "n": args[1], "status": f"error: {type(exc).__name__}: {exc}"})


def run_in_child(*args: Any) -> dict[str, Any]:
    """:func:`_run` in a fresh process (spawned), so that its peak memory is its own."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue, args))
    proc.start()
    while True:
        try:
            result = queue.get(timeout=1.0)
            break
        except Exception:  # queue.Empty: still working, or the child died (e.g. out of memory)
            if not proc.is_alive():
                result = {"config": args[0], "n": args[1],
                          "status": f"error: the run's process ended with exit code {proc.exitcode}"}
                break
    proc.join()
    return result


def format_row(r: dict[str, Any]) -> str:
    if "rounds" not in r:
        return f"  {r['config']:8s} {r['n']:>9d}  {r['status']}"
    gap = "-" if r["gap"] is None else f"{r['gap']:.1e}"
    if r["gap"] is not None and r.get("gap_round") not in (None, r["rounds"]):
        gap += f" @{r['gap_round']}"  # the last round with a gap
    row = (f"  {r['config']:8s} {r['n']:>9d} {r['status']:10s} {r['rounds']:>6d} {r['columns']:>6d} "
           f"{gap:>8s} {r['seconds']:>9.1f} {r['master_seconds']:>9.1f} {r['pricing_seconds']:>8.1f} "
           f"{r['peak_gb']:>7.2f}")
    if "worker_peak_gb" in r:
        split = ", ".join(f"{k} {v:.1f} s" for k, v in r["split_seconds"].items())
        row += (f"\n      {r['workers']} workers, {r['partitions']} partitions; peak GB a worker "
                f"{', '.join(f'{g:.2f}' for g in r['worker_peak_gb'])} (client {r['peak_gb']:.2f}); {split}")
    return row


HEADER = (f"  {'config':8s} {'N':>9s} {'status':10s} {'rounds':>6s} {'cols':>6s} {'gap':>8s} "
          f"{'total s':>9s} {'master s':>9s} {'price s':>8s} {'peak GB':>7s}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m lpboosting.benchmark.scale",
                                description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=int, default=list(SIZES), help="N (default: %(default)s)")
    p.add_argument("--configs", nargs="+", choices=CONFIGS, default=None,
                   help="default: all but dask; with --dask: dask")
    p.add_argument("--rows-max", type=int, default=20_000,
                   help="largest N the dense-row baseline runs at (default 20000)")
    p.add_argument("--delta-max", type=int, default=50_000,
                   help="largest N the difference model over all N runs at (default 50000)")
    p.add_argument("--optimal-max", type=int, default=200_000,
                   help="largest N the rounds solved to their optimum run at (default 200000)")
    p.add_argument("--binned-min", type=int, default=1_000_000,
                   help="smallest N the binned oracle runs at (default 1000000)")
    p.add_argument("--max-bins", type=int, default=255, help="bins a feature of the binned oracle (default 255)")
    p.add_argument("--dask", action="store_true",
                   help="run the Dask fit on a LocalCluster (only it, unless --configs names others)")
    p.add_argument("--workers", type=int, default=2, help="Dask workers (default 2)")
    p.add_argument("--chunk", type=int, default=250_000, help="rows a Dask partition (default 250000)")
    p.add_argument("--nu", type=float, default=0.1)
    p.add_argument("--tol", type=float, default=1e-4)
    p.add_argument("--time-limit", type=float, default=900.0, help="seconds per run (default 900)")
    p.add_argument("--columns-per-round", type=int, default=20,
                   help="columns added a round by every config but rows (default 20, the classifiers' default)")
    p.add_argument("--working-size", type=int, default=None,
                   help="the sifting session's working set, default, optimal and binned configs "
                        "(default: the session's, 2000 or N / 125 from 250000 rows)")
    p.add_argument("--highs-options", nargs="+", metavar="KEY=VALUE", default=[],
                   help="HiGHS options of the default and binned configs' sessions "
                        "(e.g. simplex_dual_edge_weight_strategy=1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--progress", type=int, default=10, help="a progress line every this many rounds (0: off)")
    p.add_argument("--json", metavar="PATH", help="also write every figure to this JSON file")
    args = p.parse_args(argv)
    try:
        args.highs_options = key_values(args.highs_options)
        if args.highs_options:
            checked_backend("highspy", args.highs_options)
    except ValueError as exc:
        p.error(f"--highs-options: {exc}")
    if args.configs is None:
        args.configs = ["dask"] if args.dask else [c for c in CONFIGS if c != "dask"]
    elif args.dask and "dask" not in args.configs:
        args.configs.append("dask")
    return args


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    args = parse_args(argv)
    info = machine_info("highspy")
    print("LPBoost at scale (each run in its own process)", flush=True)
    print("machine: " + ", ".join(f"{k} {v}" for k, v in info.items()), flush=True)
    print(f"twonorm generator, 20 features; LPBoost(nu={args.nu}), exact stumps, gap <= {args.tol:g}, "
          f"{args.columns_per_round} columns a round, working set {args.working_size or 'default'}, "
          + (f"HiGHS options {args.highs_options}, " if args.highs_options else "") +
          f"time limit {args.time_limit:g} s", flush=True)
    print(HEADER, flush=True)
    rows = []
    for n in args.sizes:
        by_config = {}
        for config in args.configs:
            if ((config == "rows" and n > args.rows_max) or (config == "delta" and n > args.delta_max)
                    or (config == "optimal" and n > args.optimal_max)
                    or (config == "binned" and n < args.binned_min)):
                continue
            extra = ((args.workers, args.chunk) if config == "dask"
                     else (args.working_size, args.max_bins, args.highs_options))
            r = run_in_child(config, n, args.nu, args.tol, args.time_limit, args.seed, args.progress,
                             args.columns_per_round, *extra)
            print(format_row(r), flush=True)
            rows.append(r)
            by_config[config] = r
        a = by_config.get("default")
        for name in ("optimal", "rows", "delta"):
            b = by_config.get(name)
            if a and b and "seconds" in a and "seconds" in b:
                bound = ">= " if b["status"] == "time_limit" else ""
                print(f"  N={n}: {name} / default time {bound}{b['seconds'] / a['seconds']:.1f}x "
                      f"(default takes {a['seconds'] / b['seconds']:.2f} of the time of {name})", flush=True)
    if args.json:
        write_json(args.json, {"machine": info, "args": vars(args), "runs": rows})
        print(f"wrote {args.json}")
    return rows


if __name__ == "__main__":
    main()
