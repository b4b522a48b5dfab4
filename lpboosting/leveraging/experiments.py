"""Sec. 6 of Mansour, Nock, Williamson (*What killed the convex booster?*): MODABOOST on Long–Servedio data.

Train on S_noisy (eq. 11) and report, as a function of gamma (eq. 10), for
each proper loss and model class: (i) the number of weak-learner calls until
the weak learning assumption breaks (gamma_wl = 0.001), (ii) the accuracy of
sign(H) on S_clean and (iii) the expected posterior ``eta~(H(x))`` over
S_clean, to be compared with Bayes' ``1 - eta``.  The paper's finding:
linear separators fall to the fair coin (<= 50 %) below a threshold gamma,
trees reach Bayes in one call and 1-NN in as many calls as distinct
observations (3), for every loss.

Run ``python -m lpboosting.leveraging.experiments [--figure out.png]``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO

import numpy as np

from lpboosting.datasets.long_servedio import long_servedio
from lpboosting.leveraging.modaboost import ModaBoostClassifier

__all__ = ["DEFAULT_GAMMAS", "format_table", "reproduce_long_servedio"]

DEFAULT_GAMMAS = (0.005, 0.01, 0.02, 0.05, 0.07, 0.1, 0.2, 0.5)


def reproduce_long_servedio(
    gammas: Iterable[float] = DEFAULT_GAMMAS,
    models: Iterable[str] = ("linear", "tree", "nn"),
    losses: Iterable[str] = ("log", "square", "matusita", "asymmetric"),
    N: int = 3,
    K: float = 5.0,
    gamma_wl: float = 1e-3,
    n_rounds: int = 10_000,
    n_neighbors: int = 1,
    print_table: bool = True,
    figure: str | None = None,
    file: TextIO | None = None,
) -> list[dict[str, Any]]:
    """Run the Sec. 6 experiment; print the table and optionally save a figure.

    Returns one dict per (loss, model, gamma) with keys ``loss``, ``model``,
    ``gamma``, ``accuracy_clean`` (fraction of S_clean that sign(H) gets
    right), ``rounds`` (weak-learner calls), ``status``,
    ``expected_posterior`` (mean of eta~(H(x)) over S_clean),
    ``bayes_posterior`` (1 - eta) and ``noise`` (eta = 1/(N+1)).

    ``figure``: a file name; the three panes of the paper's Table 1
    (accuracy, expected posterior, rounds against gamma) are drawn with
    matplotlib's Agg backend (imported only then).
    """
    gammas = [float(g) for g in gammas]
    models, losses = list(models), list(losses)
    rows: list[dict[str, Any]] = []
    for loss in losses:
        for model in models:
            for gamma in gammas:
                data = long_servedio(gamma, K=K, N=N)
                clf = ModaBoostClassifier(loss=loss, model=model, max_rounds=n_rounds, gamma_wl=gamma_wl,
                                          n_neighbors=n_neighbors)
                clf.fit(data.X_noisy, data.y_noisy)
                rows.append({
                    "loss": loss, "model": model, "gamma": gamma,
                    "accuracy_clean": float(np.mean(clf.predict(data.X_clean) == data.y_clean)),
                    "rounds": int(clf.n_rounds_), "status": clf.status_,
                    "expected_posterior": float(clf.predict_proba(data.X_clean)[:, 1].mean()),
                    "bayes_posterior": float(data.bayes_posterior_clean.mean()),
                    "noise": float(data.noise),
                })
    if print_table:
        print(format_table(rows, N=N, K=K, gamma_wl=gamma_wl), file=file or sys.stdout)
    if figure is not None:
        _plot(rows, figure)
    return rows


def format_table(rows: list[dict[str, Any]], N: int | None = None, K: float | None = None,
                 gamma_wl: float | None = None) -> str:
    """Pivot ``rows`` into (loss, model) x gamma cells ``accuracy% rounds posterior``."""
    gammas = sorted({r["gamma"] for r in rows})
    keys: list[tuple[str, str]] = []
    for r in rows:
        if (r["loss"], r["model"]) not in keys:
            keys.append((r["loss"], r["model"]))
    cell = {(r["loss"], r["model"], r["gamma"]): r for r in rows}
    head = "MODABOOST on Long–Servedio data (train S_noisy, score S_clean)"
    if rows:
        head += f": eta = {rows[0]['noise']:.4g}, Bayes posterior = {rows[0]['bayes_posterior']:.4g}"
    if N is not None:
        head += f", N = {N}, K = {K:g}, gamma_wl = {gamma_wl:g}"
    lines = [head, "cell = accuracy on S_clean (%) / weak-learner calls / expected posterior", ""]
    w = 15
    lines.append(f"{'loss':<11}{'model':<7}" + "".join(f"{'g=' + format(g, 'g'):>{w}}" for g in gammas))
    for loss, model in keys:
        out = f"{loss:<11}{model:<7}"
        for g in gammas:
            r = cell.get((loss, model, g))
            txt = "-" if r is None else f"{100 * r['accuracy_clean']:.0f}/{r['rounds']}/{r['expected_posterior']:.3f}"
            out += f"{txt:>{w}}"
        lines.append(out)
    return "\n".join(lines)


def _plot(rows: list[dict[str, Any]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = _figure(rows)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def _figure(rows: list[dict[str, Any]]) -> Any:
    """The three panes (accuracy, expected posterior, rounds against gamma) and one legend below
    them, outside every pane: colour = model class, line style = loss, and the Bayes posterior."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, NullFormatter

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6), layout="constrained")
    styles = {"log": "-", "square": "--", "matusita": ":", "asymmetric": "-."}
    colors = {"linear": "tab:red", "tree": "tab:green", "nn": "tab:blue"}
    keys: list[tuple[str, str]] = []
    for r in rows:
        if (r["loss"], r["model"]) not in keys:
            keys.append((r["loss"], r["model"]))
    for loss, model in keys:
        rs = sorted((r for r in rows if r["loss"] == loss and r["model"] == model), key=lambda r: r["gamma"])
        g = [r["gamma"] for r in rs]
        kw = {"ls": styles.get(loss, "-"), "color": colors.get(model), "marker": "o", "ms": 3,
              "label": f"{model} / {loss}"}
        axes[0].plot(g, [100 * r["accuracy_clean"] for r in rs], **kw)
        axes[1].plot(g, [r["expected_posterior"] for r in rs], **kw)
        axes[2].plot(g, [r["rounds"] for r in rs], **kw)
    if rows:
        axes[1].axhline(rows[0]["bayes_posterior"], color="k", lw=0.8, label="Bayes")
    for ax, title in zip(axes, ["accuracy on S_clean (%)", "expected posterior", "weak-learner calls"]):
        ax.set_xscale("log")
        ax.set_xlabel("gamma")
        ax.set_title(title)
    axes[2].set_yscale("log")
    # counts on a log axis: plain numbers at the ticks (not 4x10^0); the minor ticks (2, 3, ...)
    # labelled too where the axis spans less than a decade and a half, or it would have no label
    plain = FuncFormatter(lambda x, _: f"{x:g}")
    axes[2].yaxis.set_major_formatter(plain)
    low, high = axes[2].get_ylim()
    axes[2].yaxis.set_minor_formatter(plain if high < 30 * low else NullFormatter())
    # one legend for the three panes, below them: a model's colour, a loss's line style
    models = list(dict.fromkeys(model for _, model in keys))
    losses = list(dict.fromkeys(loss for loss, _ in keys))
    handles = [Line2D([], [], color=colors.get(m), marker="o", ms=3, label=f"model: {m}") for m in models]
    handles += [Line2D([], [], color="0.3", ls=styles.get(loss, "-"), label=f"loss: {loss}") for loss in losses]
    if rows:
        handles.append(Line2D([], [], color="k", lw=0.8, label="Bayes posterior (1 - eta)"))
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize="small",
                   handlelength=3.5)
    return fig


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gammas", type=float, nargs="+", default=list(DEFAULT_GAMMAS))
    p.add_argument("--N", type=int, default=3)
    p.add_argument("--K", type=float, default=5.0)
    p.add_argument("--gamma-wl", type=float, default=1e-3)
    p.add_argument("--figure", default=None)
    a = p.parse_args(argv)
    reproduce_long_servedio(gammas=a.gammas, N=a.N, K=a.K, gamma_wl=a.gamma_wl, figure=a.figure)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
