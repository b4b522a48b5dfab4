"""Command line: ``lpboosting demo`` and ``lpboosting bench``."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def _demo(args: argparse.Namespace) -> int:
    import numpy as np
    from sklearn.model_selection import train_test_split

    from lpboosting.colgen import History
    from lpboosting.datasets import breast_cancer
    from lpboosting.estimators import LPBoostClassifier

    X, y = breast_cancer()
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=args.test_size, random_state=args.seed, stratify=y
    )
    print(
        f"LPBoost on breast cancer (scikit-learn's bundled copy): {X_train.shape[0]} train / "
        f"{X_test.shape[0]} test rows, {X.shape[1]} features; nu={args.nu}, oracle={args.oracle}, "
        f"backend={args.backend}"
    )
    print(History.LEDGER_HEADER)

    def show(record):
        print(History.format_record(record), flush=True)

    clf = LPBoostClassifier(
        nu=args.nu, oracle=args.oracle, backend=args.backend, tol=args.tol,
        max_rounds=args.max_rounds, callback=show,
    ).fit(X_train, y_train)
    last = clf.history_[-1]
    n_used = int(np.count_nonzero(clf.weights_ > 1e-12))
    print()
    print(f"status            {clf.status_} after {clf.n_rounds_} rounds "
          f"({clf.history_.meta['seconds']:.3f} s)")
    print(f"soft margin       {clf.objective_:.9f}  (rho - 1/(nu N) sum psi)")
    print(f"final gap         {last.gap if last.gap is not None else float('nan'):.3e}")
    print(f"hypotheses used   {n_used} of {len(clf.hypotheses_)}")
    print(f"train accuracy    {clf.score(X_train, y_train):.4f}")
    print(f"test accuracy     {clf.score(X_test, y_test):.4f}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    import importlib

    importlib.import_module(f"lpboosting.benchmark.{args.which}").main(args.rest)
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    if args.experiment == "long-servedio":
        from lpboosting.leveraging.experiments import reproduce_long_servedio

        reproduce_long_servedio(figure=args.figure)
    else:
        from lpboosting.leveraging.reproduce import reproduce_krause_singer

        reproduce_krause_singer(n_repeats=args.repeats, n_rounds=args.rounds, figure=args.figure)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lpboosting", description="LP boosting by column generation")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="LPBoost with exact stumps on the bundled breast-cancer data")
    demo.add_argument("--nu", type=float, default=0.1, help="soft-margin fraction in (0, 1]")
    demo.add_argument("--oracle", default="stumps", help="stumps, features or trees")
    demo.add_argument("--backend", default="highspy", help="highspy or cvxpy:SOLVER")
    demo.add_argument("--tol", type=float, default=1e-6)
    demo.add_argument("--max-rounds", type=int, default=1000)
    demo.add_argument("--test-size", type=float, default=0.3)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)

    bench = sub.add_parser("bench", help="benchmarks: lpboost (highspy vs cvxpy rebuild vs bare HiGHS), "
                                         "entropy (dedicated projection vs CLARABEL vs ECOS)")
    bench.add_argument("which", choices=["lpboost", "entropy"])
    bench.add_argument("rest", nargs=argparse.REMAINDER, help="options of that benchmark (see its --help)")
    bench.set_defaults(func=_bench)

    rep = sub.add_parser("reproduce", help="paper experiments: long-servedio (MODABOOST, paper 002 Sec. 6) "
                                           "or krause-singer (LLM/LLD vs log-loss boosting, paper 000 Sec. 6)")
    rep.add_argument("experiment", choices=["long-servedio", "krause-singer"])
    rep.add_argument("--figure", help="also save the figure to this path (PNG, PDF, ...)")
    rep.add_argument("--repeats", type=int, default=10, help="krause-singer: draws per cell")
    rep.add_argument("--rounds", type=int, default=5000, help="krause-singer: boosting rounds")
    rep.set_defaults(func=_reproduce)

    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, ImportError) as exc:
        print(f"lpboosting: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
