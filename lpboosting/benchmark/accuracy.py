"""Accuracy out of the box under label noise: the CV classifiers against boosted trees.

    python -m lpboosting.benchmark.accuracy                      # every set, noise 0/10/20 %, 10 splits
    python -m lpboosting.benchmark.accuracy --sets pima wdbc --splits 3 --json accuracy.json
    python -m lpboosting.benchmark.accuracy --nu-sweep --splits 3    # LPBoost's error at each fixed nu

For every set, noise rate and split: a stratified 70/30 split (seeded by the
split's number), uniform noise on the *training* labels only (the test
labels stay clean), and every method fitted with its defaults on the same
rows.  Ours: ``LPBoostCV``, ``SoftBoostCV``, ``ERLPBoostCV`` (nu and the
oracle, stumps or a gradient-boosted forest's trees, chosen by 3-fold cross-validation); theirs: scikit-learn's ``AdaBoostClassifier`` (200
stumps), ``GradientBoostingClassifier`` and ``HistGradientBoostingClassifier``.
The table gives the test error (mean and standard deviation over the
splits) and the mean fit time; the check line says, per set and noise,
whether each of ours is within one standard deviation of the best of the
three (its error at most the best's plus the larger of the two methods'
standard deviations over the splits) and at most 10 times AdaBoost's fit
time, and how often trees were chosen.  Sets: pima, twonorm (2000
rows drawn once), german, banana, ring, magic (KEEL, ``pip install
"lpboosting[data]"``; banana, ring and magic at their full 5300, 7400 and
19 020 rows), wdbc (scikit-learn's breast cancer) and make_classification
(scikit-learn's generator: 4000 rows whose class depends on interactions of
10 features).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

import numpy as np

from lpboosting.benchmark.common import fit_and_score, machine_info, write_json

SETS = ("pima", "twonorm", "wdbc", "german", "banana", "make_classification", "ring", "magic")
NOISE = (0.0, 0.1, 0.2)
OURS = ("LPBoostCV", "SoftBoostCV", "ERLPBoostCV")
THEIRS = ("AdaBoost", "GradientBoosting", "HistGradientBoosting")
#: the sets used at fewer rows than they have: twonorm's 7400 rows are a draw of its generator,
#: 2000 of them drawn once (seeded) give the same task; every other set is used whole
ROWS = {"twonorm": 2000}


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A binary data set by name, whole or at the rows of :data:`ROWS` (a seeded draw);
    ``make_classification`` is generated at its own size: 4000 rows, 20 features of which 10
    informative (their interactions decide the class), 5 % of the labels drawn at random."""
    if name == "make_classification":
        from sklearn.datasets import make_classification

        X, y = make_classification(4000, 20, n_informative=10, flip_y=0.05, random_state=0)
        return np.asarray(X, dtype=float), np.asarray(y)
    if name == "wdbc":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
    else:
        from lpboosting.experiments.data import load_set  # KEEL, nominal columns one-hot

        X, y = load_set(name)
    if X.shape[0] > ROWS.get(name, X.shape[0]):
        rows = np.random.default_rng(0).choice(X.shape[0], ROWS[name], replace=False)
        X, y = X[rows], y[rows]
    return np.asarray(X, dtype=float), np.asarray(y)


def methods() -> dict[str, Callable[[], Any]]:
    from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier, HistGradientBoostingClassifier

    from lpboosting import ERLPBoostCV, LPBoostCV, SoftBoostCV

    return {
        "LPBoostCV": lambda: LPBoostCV(),
        "SoftBoostCV": lambda: SoftBoostCV(),
        "ERLPBoostCV": lambda: ERLPBoostCV(),
        "AdaBoost": lambda: AdaBoostClassifier(n_estimators=200, random_state=0),
        "GradientBoosting": lambda: GradientBoostingClassifier(random_state=0),
        "HistGradientBoosting": lambda: HistGradientBoostingClassifier(random_state=0),
    }


def split_rows(X: np.ndarray, y: np.ndarray, noise: float, split: int) -> tuple[np.ndarray, ...]:
    """X_train, X_test, the training labels flipped at ``noise`` and the clean test labels of one
    stratified 70/30 split (seeded by ``split``)."""
    from sklearn.model_selection import train_test_split

    from lpboosting.datasets.noise import flip_labels

    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=split)
    return X_tr, X_te, (flip_labels(y_tr, noise, random_state=split) if noise > 0 else y_tr), y_te


def one_split(name: str, X: np.ndarray, y: np.ndarray, noise: float, split: int,
              chosen: list[str]) -> dict[str, Any]:
    """Test error and fit time of each method on one split (training labels flipped at ``noise``)."""
    X_tr, X_te, y_noisy, y_te = split_rows(X, y, noise, split)
    return {"set": name, "noise": noise, "split": split,
            **fit_and_score(methods(), chosen, X_tr, y_noisy, X_te, y_te)}


def nu_sweep(name: str, X: np.ndarray, y: np.ndarray, noise: float, split: int,
             nus: tuple[float, ...]) -> dict[str, Any]:
    """Test error of LPBoost (stumps) at each fixed nu on one split: the data for a default nu.

    One warm path over the training rows (:func:`lpboosting.colgen.nu_path`)
    gives every nu's model; the split and the noise are those of
    :func:`one_split`.
    """
    from lpboosting.colgen import nu_path
    from lpboosting.oracles import Stumps

    X_tr, X_te, y_noisy, y_te = split_rows(X, y, noise, split)
    positive = np.unique(y)[1]
    path = nu_path(nus, Stumps(X_tr, np.where(y_noisy == positive, 1.0, -1.0)))
    F = path.decision_function(X_te)
    errors = np.mean((F > 0) != (y_te == positive)[:, None], axis=0)
    return {"set": name, "noise": noise, "split": split, "errors": errors.tolist()}


def format_sweep(rows: list[dict[str, Any]], nus: tuple[float, ...]) -> str:
    """Mean test error per fixed nu, per set and noise, and the mean over all of them."""
    keys = sorted({(r["set"], r["noise"]) for r in rows}, key=lambda k: (SETS.index(k[0]) if k[0] in SETS else 99, k[1]))
    head = f"{'set':9s} {'noise':>5s} " + " ".join(f"{nu:>6g}" for nu in nus) + "   best"
    lines = ["LPBoost (stumps) test error at fixed nu:", head, "-" * len(head)]
    means = []
    for name, noise in keys:
        mean = np.mean([r["errors"] for r in rows if r["set"] == name and r["noise"] == noise], axis=0)
        means.append(mean)
        lines.append(f"{name:9s} {noise:5.2f} " + " ".join(f"{e:6.3f}" for e in mean) + f"   {nus[int(np.argmin(mean))]:g}")
    overall = np.mean(means, axis=0)
    lines.append(f"{'mean':9s} {'':5s} " + " ".join(f"{e:6.3f}" for e in overall) + f"   {nus[int(np.argmin(overall))]:g}")
    return "\n".join(lines)


def _median(values: list[float]) -> float:
    finite = [v for v in values if np.isfinite(v)]
    return float(np.median(finite)) if finite else float("nan")


def summarise(rows: list[dict[str, Any]], chosen: list[str]) -> list[dict[str, Any]]:
    """Per set and noise: mean and std of the error, mean fit time, and the checks of ours."""
    table = []
    keys = sorted({(r["set"], r["noise"]) for r in rows}, key=lambda k: (SETS.index(k[0]) if k[0] in SETS else 99, k[1]))
    for name, noise in keys:
        part = [r for r in rows if r["set"] == name and r["noise"] == noise]
        entry: dict[str, Any] = {"set": name, "noise": noise, "splits": len(part)}
        for method in chosen:
            errors = np.array([r[method]["error"] for r in part])
            entry[method] = {"error": float(errors.mean()), "std": float(errors.std(ddof=1)) if errors.size > 1 else 0.0,
                             "seconds": float(np.mean([r[method]["seconds"] for r in part])),
                             "nu": _median([r[method]["nu"] for r in part]),
                             "trees": sum(r[method].get("oracle") not in (None, "stumps", "binned-stumps") for r in part)}
        theirs = [m for m in THEIRS if m in chosen]
        if theirs:
            best = min(theirs, key=lambda m: entry[m]["error"])
            entry["best_of_theirs"] = best
            for method in (m for m in OURS if m in chosen):
                # within one standard deviation: ours (over the splits) or the best one's
                within = entry[method]["error"] <= entry[best]["error"] + max(entry[method]["std"],
                                                                              entry[best]["std"])
                ratio = (entry[method]["seconds"] / entry["AdaBoost"]["seconds"]
                         if "AdaBoost" in chosen else float("nan"))
                entry[method]["within_one_std"] = bool(within)
                entry[method]["x_adaboost"] = ratio
        table.append(entry)
    return table


def format_table(table: list[dict[str, Any]], chosen: list[str]) -> str:
    head = f"{'set':9s} {'noise':>5s} " + " ".join(f"{m[:16]:>20s}" for m in chosen)
    lines = [head, "-" * len(head)]
    for e in table:
        cells = " ".join(f"{e[m]['error']:.3f}+-{e[m]['std']:.3f} {e[m]['seconds']:5.1f}s"[:20].rjust(20)
                         for m in chosen)
        lines.append(f"{e['set']:9s} {e['noise']:5.2f} {cells}")
    lines.append("")
    lines.append("ours within one std of the best of AdaBoost/GradientBoosting/HistGradientBoosting, "
                 "and fit time x AdaBoost's:")
    for e in table:
        checks = [f"{m}: {'yes' if e[m].get('within_one_std') else 'NO'} "
                  f"({e[m].get('x_adaboost', float('nan')):.1f}x, nu {e[m]['nu']:.2g}, trees {e[m]['trees']}/{e['splits']})"
                  for m in OURS if m in chosen and "within_one_std" in e[m]]
        lines.append(f"  {e['set']:9s} {e['noise']:4.2f}  best {e.get('best_of_theirs', '-')}: " + "; ".join(checks))
    return "\n".join(lines)


def format_markdown(table: list[dict[str, Any]], chosen: list[str]) -> str:
    """The table as markdown: test error (mean ± std) per method, and ours' fit time x AdaBoost's."""
    ours = [m for m in OURS if m in chosen]
    head = ["set", "noise"] + list(chosen) + [f"{m} time x AdaBoost" for m in ours]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join([":---", "---:"] + ["---:"] * (len(head) - 2)) + "|"]
    for e in table:
        best = e.get("best_of_theirs")
        cells = []
        for m in chosen:
            text = f"{e[m]['error']:.3f} ± {e[m]['std']:.3f}"
            cells.append(f"**{text}**" if m == best else text)
        cells += [f"{e[m].get('x_adaboost', float('nan')):.1f}" + ("" if e[m].get("within_one_std", True) else " (error not within)")
                  for m in ours]
        lines.append(f"| {e['set']} | {int(round(100 * e['noise']))} % | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def print_tables(table: list[dict[str, Any]], chosen: list[str], markdown: bool) -> None:
    """The text table, and the markdown one after it when asked."""
    print(format_table(table, chosen), flush=True)
    if markdown:
        print()
        print(format_markdown(table, chosen), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lpboosting.benchmark.accuracy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=list(SETS), help=f"data sets (default: {' '.join(SETS)})")
    parser.add_argument("--noise", nargs="+", type=float, default=list(NOISE), help="training label noise rates")
    parser.add_argument("--splits", type=int, default=10, help="random 70/30 splits per set and noise (default 10)")
    parser.add_argument("--methods", nargs="+", default=list(OURS + THEIRS), choices=list(OURS + THEIRS))
    parser.add_argument("--jobs", type=int, default=1, help="splits run in parallel (joblib; default 1)")
    parser.add_argument("--json", help="also write the rows, the table and the machine here")
    parser.add_argument("--from-json", metavar="FILE",
                        help="print the table of an earlier run's --json file (and --markdown) without fitting")
    parser.add_argument("--markdown", action="store_true", help="also print the table as markdown")
    parser.add_argument("--nu-sweep", action="store_true",
                        help="instead: LPBoost's test error at each fixed nu of the CV grid (the data for "
                             "a default nu)")
    args = parser.parse_args(argv)
    if args.splits < 1 or any(not 0 <= r < 0.5 for r in args.noise):
        parser.error("--splits must be >= 1 and every --noise rate in [0, 0.5)")
    from joblib import Parallel, delayed

    if args.from_json:
        import json
        from pathlib import Path

        data = json.loads(Path(args.from_json).read_text())
        print_tables(data["table"], [m for m in OURS + THEIRS if m in data["rows"][0]], args.markdown)
        return 0
    if args.nu_sweep:
        from lpboosting.estimators.cv import DEFAULT_NUS

        sweep: list[dict[str, Any]] = []
        for name in args.sets:
            X, y = load(name)
            for noise in args.noise:
                sweep.extend(Parallel(n_jobs=args.jobs)(delayed(nu_sweep)(name, X, y, noise, split, DEFAULT_NUS)
                                                        for split in range(args.splits)))
                print(f"{name} noise {noise:.2f} done", flush=True)
        print(format_sweep(sweep, DEFAULT_NUS), flush=True)
        if args.json:
            write_json(args.json, {"nus": list(DEFAULT_NUS), "rows": sweep, "machine": machine_info("highspy")})
        return 0

    rows: list[dict[str, Any]] = []
    for name in args.sets:
        X, y = load(name)
        for noise in args.noise:
            done = Parallel(n_jobs=args.jobs)(delayed(one_split)(name, X, y, noise, split, args.methods)
                                              for split in range(args.splits))
            rows.extend(done)
            print(f"{name} noise {noise:.2f}: " + ", ".join(
                f"{m} {np.mean([r[m]['error'] for r in done]):.3f}" for m in args.methods), flush=True)
    table = summarise(rows, args.methods)
    print()
    print_tables(table, args.methods, args.markdown)
    if args.json:
        write_json(args.json, {"rows": rows, "table": table, "machine": machine_info("scikit-learn", "highspy")})
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
