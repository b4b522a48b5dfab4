"""More than two classes: one multiclass LP against one-vs-rest and boosted trees.

    python -m lpboosting.benchmark.multiclass                          # iris wine segment letter, noise 0/20 %, 10 splits
    python -m lpboosting.benchmark.multiclass --sets iris wine --splits 3 --json multiclass.json
    python -m lpboosting.benchmark.multiclass --sets segment --noise 0.2 --fold-path stumps trees:max_depth=5
    python -m lpboosting.benchmark.multiclass --sets letter --json letter.json --resume   # on from where it stopped

For every set, noise rate and split: a stratified 70/30 split (seeded by the
split's number), uniform noise on the *training* labels only (a label
replaced, with probability the rate, by another class drawn uniformly:
:func:`lpboosting.datasets.flip_classes`; the test labels stay clean), and
every method fitted with its defaults on the same rows.  Ours:
``LPBoostCV()`` (one LP over all classes, nu and the oracle chosen by
3-fold cross-validation on its warm nu path) and ``LPBoostCV(multiclass=
"one-vs-rest")``; theirs: scikit-learn's ``AdaBoostClassifier`` (SAMME, 200
stumps), ``GradientBoostingClassifier`` and ``HistGradientBoostingClassifier``.
The table gives the test error (mean and standard deviation over the splits)
and the mean fit time; the check line says, per set and noise, whether the
native LP is within one standard deviation of the best of the others (its
error at most the best's plus the larger of the two standard deviations) and
its fit time against one-vs-rest's.  Sets: KEEL's iris, wine, segment and
letter (``pip install "lpboosting[data]"``), and on request led7digit and
vehicle; a set larger than ``--max-rows`` rows (letter) is drawn down to it
(seeded).

``--fold-path`` says where a fit's time goes: on split 0, the first of
three stratified folds, as ``LPBoostCV``'s (its repeated rows merged, as
``LPBoostCV`` merges them), the one LP's warm nu path with each oracle
named (``name`` or ``name:key=value,...``, a multiclass oracle's
parameters), nu by nu: seconds, rounds, the master's and the oracle's
seconds, simplex iterations, hypotheses found and of positive weight, and
the accuracy on the fold's validation rows.

With ``--json`` the rows are written after every split, so a run stopped
(Ctrl-C, a machine switched off) loses at most the split it was fitting;
``--resume`` reads the file first and fits only what it does not hold (a
row is the same set, drawn to the same number of rows, noise and split; a
method missing from it is fitted and added), keeping its other rows;
``--refit METHOD ...`` fits those methods again (after a change to them).  The
whole of letter (20000 rows, ten splits, two noise rates) is such a run:
one method at a time and over several sittings, the table of all of it at
the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from lpboosting.benchmark.common import checked_backend, fit_and_score, key_values, machine_info, write_json

SETS = ("iris", "wine", "segment", "letter")
#: more of KEEL's sets with more than two classes, by name (not run unless named): led7digit's seven
#: binary features repeat rows with different labels, vehicle's 18 are continuous
MORE_SETS = ("led7digit", "vehicle")
NOISE = (0.0, 0.2)
OURS = "LPBoostCV"
METHODS = ("LPBoostCV", "LPBoostCV-ovr", "AdaBoost", "GradientBoosting", "HistGradientBoosting")


def load(name: str, max_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """A KEEL set by name, at most ``max_rows`` rows (a seeded draw)."""
    from lpboosting.datasets.loaders import keel_raw

    X, y = keel_raw(name)
    if X.shape[0] > max_rows:
        rows = np.random.default_rng(0).choice(X.shape[0], max_rows, replace=False)
        X, y = X[rows], y[rows]
    return np.asarray(X, dtype=float), np.asarray(y)


def methods() -> dict[str, Callable[[], Any]]:
    from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier, HistGradientBoostingClassifier

    from lpboosting import LPBoostCV

    return {
        "LPBoostCV": lambda: LPBoostCV(),
        "LPBoostCV-ovr": lambda: LPBoostCV(multiclass="one-vs-rest"),
        "AdaBoost": lambda: AdaBoostClassifier(n_estimators=200, random_state=0),
        "GradientBoosting": lambda: GradientBoostingClassifier(random_state=0),
        "HistGradientBoosting": lambda: HistGradientBoostingClassifier(random_state=0),
    }


def one_split(name: str, X: np.ndarray, y: np.ndarray, noise: float, split: int,
              chosen: list[str], earlier: dict[str, Any] | None = None) -> dict[str, Any]:
    """Test error and fit time of each method on one split (training labels noisy at ``noise``);
    a method ``earlier`` (the same row of an earlier run) holds is taken from it, not fitted again."""
    from sklearn.model_selection import train_test_split

    from lpboosting.datasets import flip_classes

    row: dict[str, Any] = dict(earlier or {})
    row.update({"set": name, "rows": int(X.shape[0]), "noise": noise, "split": split})
    missing = [m for m in chosen if m not in row]
    if missing:
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=split)
        if noise > 0:
            y_tr = flip_classes(y_tr, noise, random_state=split)
        row.update(fit_and_score(methods(), missing, X_tr, y_tr, X_te, y_te))
    return row


def row_key(row: dict[str, Any]) -> tuple[str, int, float, int]:
    """What makes two rows the same fit: the set, its rows (drawn down or whole), the noise and the split."""
    return str(row["set"]), int(row["rows"]), float(row["noise"]), int(row["split"])


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """The rows of an earlier run's ``--json`` file (none if there is no file); a NaN written as
    null (the nu of a method without one) read back as NaN."""
    path = Path(path)
    if not path.exists():
        return []
    try:
        rows = json.loads(path.read_text())["rows"]
        for row in rows:
            row_key(row)
            for method in METHODS:
                if method in row and row[method].get("nu") is None:
                    row[method]["nu"] = float("nan")
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not the --json file of this benchmark ({exc!r}); "
                         "name another file, or leave out --resume to write over it") from exc
    return rows


def summarise(rows: list[dict[str, Any]], chosen: list[str]) -> list[dict[str, Any]]:
    """Per set and noise: mean and std of the error, mean fit time, and the checks of the native LP."""
    table = []
    keys = sorted({(r["set"], r["noise"]) for r in rows},
                  key=lambda k: ((SETS + MORE_SETS).index(k[0]) if k[0] in SETS + MORE_SETS else 99, k[1]))
    for name, noise in keys:
        part = [r for r in rows if r["set"] == name and r["noise"] == noise]
        entry: dict[str, Any] = {"set": name, "noise": noise, "splits": len(part)}
        for method in chosen:
            errors = np.array([r[method]["error"] for r in part])
            entry[method] = {"error": float(errors.mean()),
                             "std": float(errors.std(ddof=1)) if errors.size > 1 else 0.0,
                             "seconds": float(np.mean([r[method]["seconds"] for r in part])),
                             "nu": float(np.nanmedian([r[method]["nu"] for r in part]))
                             if any(np.isfinite(r[method]["nu"]) for r in part) else float("nan"),
                             "oracles": _counts(_oracle(r[method]) for r in part)}
        others = [m for m in chosen if m != OURS]
        if OURS in chosen and others:
            best = min(others, key=lambda m: entry[m]["error"])
            ours = entry[OURS]
            ours["best_other"] = best
            ours["within_one_std"] = bool(ours["error"] <= entry[best]["error"] + max(ours["std"], entry[best]["std"]))
            if "LPBoostCV-ovr" in chosen:
                ours["x_one_vs_rest"] = ours["seconds"] / entry["LPBoostCV-ovr"]["seconds"]
        table.append(entry)
    return table


def _oracle(result: dict[str, Any]) -> str | None:
    """The oracle a method chose, with its parameters ("gb-trees(early_stopping=True)"); None: none."""
    from lpboosting.estimators.cv import oracle_name

    oracle = result.get("oracle")
    return None if oracle is None else oracle_name(oracle, result.get("oracle_params"))


def _counts(names: Any) -> dict[str, int]:
    """How often each oracle was chosen (by name, most often first; none: a method without one)."""
    counted: dict[str, int] = {}
    for name in names:
        if name is not None:
            counted[str(name)] = counted.get(str(name), 0) + 1
    return dict(sorted(counted.items(), key=lambda item: -item[1]))


def format_table(table: list[dict[str, Any]], chosen: list[str]) -> str:
    head = f"{'set':8s} {'noise':>5s} " + " ".join(f"{m[:20]:>21s}" for m in chosen)
    lines = [head, "-" * len(head)]
    for e in table:
        cells = " ".join(f"{e[m]['error']:.3f}+-{e[m]['std']:.3f} {e[m]['seconds']:6.1f}s".rjust(21) for m in chosen)
        lines.append(f"{e['set']:8s} {e['noise']:5.2f} {cells}")
    lines += ["", "the native LP (LPBoostCV) within one std of the best other method, and its fit time x one-vs-rest's:"]
    for e in table:
        ours = e.get(OURS, {})
        if "within_one_std" in ours:
            lines.append(f"  {e['set']:8s} {e['noise']:4.2f}  best other {ours['best_other']}: "
                         f"{'yes' if ours['within_one_std'] else 'NO'}, time x one-vs-rest "
                         f"{ours.get('x_one_vs_rest', float('nan')):.2f}, nu {ours['nu']:.2g}, oracles "
                         + ", ".join(f"{name} {count}" for name, count in ours["oracles"].items()))
    return "\n".join(lines)


def format_markdown(table: list[dict[str, Any]], chosen: list[str]) -> str:
    """The table as markdown: test error (mean ± std) per method, the native LP's time x one-vs-rest's."""
    head = ["set", "noise"] + list(chosen) + ["LPBoostCV time x one-vs-rest"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join([":---", "---:"] + ["---:"] * (len(head) - 2)) + "|"]
    for e in table:
        best = min(chosen, key=lambda m: e[m]["error"])
        cells = [(f"**{e[m]['error']:.3f} ± {e[m]['std']:.3f}**" if m == best else f"{e[m]['error']:.3f} ± {e[m]['std']:.3f}")
                 + f" ({e[m]['seconds']:.1f} s)" for m in chosen]
        cells.append(f"{e.get(OURS, {}).get('x_one_vs_rest', float('nan')):.2f}")
        lines.append(f"| {e['set']} | {int(round(100 * e['noise']))} % | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_oracle(spec: str) -> tuple[str, dict[str, Any]]:
    """``"trees:max_depth=5,min_samples_leaf=2"`` -> ``("trees", {"max_depth": 5, "min_samples_leaf": 2})``."""
    name, _, rest = spec.partition(":")
    try:
        return name.strip(), key_values(filter(None, rest.split(",")))
    except ValueError as exc:
        raise ValueError(f"oracle {spec!r}: its parameters as name:key=value,key=value ({exc})") from None


def fold_path(name: str, X: np.ndarray, y: np.ndarray, noise: float, spec: str, nus: Any,
              backend: Any = None, columns_per_round: int | None = None) -> list[dict[str, Any]]:
    """The one LP's warm nu path with oracle ``spec`` on the first of three folds of split 0 (LPBoostCV's cv):
    per nu its seconds, rounds, master and pricing seconds, iterations, hypotheses and the accuracy on
    the fold's validation rows."""
    import time

    from sklearn.model_selection import StratifiedKFold, train_test_split

    from lpboosting import LPBoostCV
    from lpboosting.colgen.options import LoopOptions
    from lpboosting.colgen.path import NuPathRun
    from lpboosting.datasets import flip_classes
    from lpboosting.estimators.base import merge_rows
    from lpboosting.oracles.multiclass import make_multiclass_oracle

    X_tr, _, y_tr, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    if noise > 0:
        y_tr = flip_classes(y_tr, noise, random_state=0)
    classes = np.unique(y_tr)
    # LPBoostCV's cv=3 on these labels: stratified folds of the rows, a repeated row's copies spread over
    # them (as LPBoostCV's folds spread them, not always into the same folds: lpboosting.estimators.cv.cv_folds)
    train, val = next(iter(StratifiedKFold(3).split(X_tr, y_tr)))
    X_fit, y_fit, weights, _ = merge_rows(X_tr[train], y_tr[train], None)  # repeated rows merged, as LPBoostCV's
    codes, val_codes = np.searchsorted(classes, y_fit), np.searchsorted(classes, y_tr[val])
    oracle_name, params = parse_oracle(spec)
    oracle = make_multiclass_oracle(oracle_name, X_fit, codes, classes.size, **params)
    options = LoopOptions.from_params(LPBoostCV(), callback=None, verbose=0)
    if columns_per_round is not None:
        options = options.replace(columns_per_round=columns_per_round)
    run = NuPathRun(oracle, options, sample_weight=weights, backend=backend)
    out = []
    for nu in nus:
        start = time.perf_counter()
        result = run.solve(float(nu))
        seconds = time.perf_counter() - start
        votes = np.zeros((val.size, classes.size))
        for weight, hypothesis in zip(result.weights, run.hypotheses):
            if weight > 0:
                votes[np.arange(val.size), hypothesis.predict(X_tr[val])] += weight
        history = result.history
        out.append({"set": name, "noise": noise, "oracle": spec, "nu": float(nu), "seconds": seconds,
                    "rounds": len(history), "status": result.status,
                    "master_seconds": float(sum(r.master_seconds for r in history)),
                    "pricing_seconds": float(sum(r.pricing_seconds for r in history)),
                    "iterations": int(sum(r.iterations or 0 for r in history)),
                    "hypotheses": len(run.hypotheses), "positive": int(np.count_nonzero(result.weights > 0)),
                    "accuracy": float(np.mean(votes.argmax(axis=1) == val_codes))})
        r = out[-1]
        print(f"  {name} {noise:.2f} {spec:20s} nu {nu:<5g} {seconds:7.1f} s  {r['rounds']:4d} rounds  master "
              f"{r['master_seconds']:7.1f} s  oracle {r['pricing_seconds']:5.1f} s  {r['iterations']:7d} iterations  "
              f"{r['hypotheses']:5d} hypotheses ({r['positive']} > 0)  validation accuracy {r['accuracy']:.4f}"
              f"{'' if r['status'] == 'converged' else '  ' + r['status']}", flush=True)
        if result.status != "converged":
            break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lpboosting.benchmark.multiclass", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS + MORE_SETS))
    parser.add_argument("--noise", nargs="+", type=float, default=list(NOISE), help="training label noise rates")
    parser.add_argument("--splits", type=int, default=10, help="random 70/30 splits per set and noise (default 10)")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--max-rows", type=int, default=20000, help="rows drawn from a larger set (default 20000)")
    parser.add_argument("--json", help="also write the rows, the table and the machine here (after every split)")
    parser.add_argument("--resume", action="store_true",
                        help="take the fits --json already holds from it and fit only the others")
    parser.add_argument("--refit", nargs="+", default=[], choices=list(METHODS), metavar="METHOD",
                        help="with --resume: fit these methods again even where the file holds them")
    parser.add_argument("--markdown", action="store_true", help="also print the table as markdown")
    parser.add_argument("--fold-path", nargs="+", metavar="ORACLE",
                        help="instead of the table: the one LP's nu path on one fold with each oracle "
                             "(name or name:key=value,...), nu by nu")
    parser.add_argument("--nus", nargs="+", type=float, help="the nus of --fold-path (default: LPBoostCV's grid)")
    parser.add_argument("--backend", help="the master's backend of --fold-path (default: the master's)")
    parser.add_argument("--backend-options", nargs="+", metavar="KEY=VALUE", default=[],
                        help="options of --backend (HiGHS options for highspy)")
    parser.add_argument("--columns-per-round", type=int,
                        help="columns added a round on --fold-path (default: LPBoostCV's)")
    args = parser.parse_args(argv)
    if args.splits < 1 or any(not 0 <= r < 0.5 for r in args.noise):
        parser.error("--splits must be >= 1 and every --noise rate in [0, 0.5)")
    if args.resume and not args.json:
        parser.error("--resume needs --json: the file to go on from")
    if args.refit and not args.resume:
        parser.error("--refit goes with --resume (without it every method is fitted)")
    if args.columns_per_round is not None and args.columns_per_round < 1:
        parser.error("--columns-per-round must be >= 1")
    if args.fold_path:
        from lpboosting.estimators.cv import DEFAULT_NUS

        for spec in args.fold_path:  # a malformed one is said before any fit
            try:
                parse_oracle(spec)
            except ValueError as exc:
                parser.error(str(exc))
        backend = args.backend
        if args.backend_options:
            try:
                backend = checked_backend(backend or "highspy", key_values(args.backend_options))
            except ValueError as exc:
                parser.error(f"--backend-options: {exc}")
        paths = []
        for name in args.sets:
            X, y = load(name, args.max_rows)
            for noise in args.noise:
                for spec in args.fold_path:
                    paths.extend(fold_path(name, X, y, noise, spec, args.nus or DEFAULT_NUS, backend,
                                            args.columns_per_round))
        if args.json:
            write_json(args.json, {"fold_paths": paths, "machine": machine_info("scikit-learn", "highspy")})
        return 0
    try:
        earlier = {row_key(r): r for r in read_rows(args.json)} if args.resume else {}
    except ValueError as exc:
        parser.error(str(exc))
    rows: list[dict[str, Any]] = []

    def save() -> None:
        if args.json:  # the rows of this run, and the earlier file's other rows kept
            done = {row_key(r) for r in rows}
            kept = [r for k, r in earlier.items() if k not in done]
            write_json(args.json, {"rows": kept + rows, "table": summarise(rows, args.methods) if rows else [],
                                   "machine": machine_info("scikit-learn", "highspy")})

    try:
        for name in args.sets:
            X, y = load(name, args.max_rows)
            for noise in args.noise:
                done = []
                for split in range(args.splits):
                    found = earlier.get((name, int(X.shape[0]), float(noise), split), {})
                    row = one_split(name, X, y, noise, split, args.methods,
                                    {m: v for m, v in found.items() if m not in args.refit})
                    done.append(row)
                    rows.append(row)
                    save()
                print(f"{name} noise {noise:.2f}: " + ", ".join(
                    f"{m} {np.mean([r[m]['error'] for r in done]):.3f} ({np.mean([r[m]['seconds'] for r in done]):.1f} s)"
                    for m in args.methods), flush=True)
    except KeyboardInterrupt:
        print(f"\nstopped: {len(rows)} splits done" + (f", kept in {args.json}; run again with --resume to go on"
                                                          if args.json else ""), file=sys.stderr)
        return 130
    table = summarise(rows, args.methods)
    print()
    print(format_table(table, args.methods), flush=True)
    if args.markdown:
        print()
        print(format_markdown(table, args.methods), flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
