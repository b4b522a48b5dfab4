"""Matplotlib figures of a column-generation run.

Every function takes ``source``: a :class:`~lpboosting.colgen.History`
(e.g. one read back with ``History.load``), a
:class:`~lpboosting.colgen.ColumnGenerationResult`, or a fitted
column-generation classifier (``LPBoostClassifier``, ``SoftBoostClassifier``,
``TotalBoostClassifier``, ``ERLPBoostClassifier``, ``RMBoostClassifier``).
Pass ``ax`` to draw into an existing Axes (:func:`plot_duality` stacks its
panels in that Axes' place); otherwise a new figure is made.

matplotlib is optional and imported only when a function is called
(``pip install "lpboosting[plot]"``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from lpboosting.colgen import ColumnGenerationResult, History
from lpboosting.masters.registry import MasterSpec, spec_of

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_distribution", "plot_duality", "plot_margins", "plot_performance_profile",
           "plot_summary", "plot_timing"]

# -- helpers ---------------------------------------------------------------------------
def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            'lpboosting.plots needs matplotlib: pip install "lpboosting[plot]"'
        ) from exc
    return plt


def _axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    _, ax = _pyplot().subplots()
    return ax


def _resolve(source: Any) -> tuple[History, Any, Any]:
    """(history, fitted classifier or None, ColumnGenerationResult or None)."""
    if isinstance(source, History):
        return source, None, None
    if isinstance(source, ColumnGenerationResult):
        return source.history, None, source
    if isinstance(getattr(source, "history_", None), History):
        return source.history_, source, getattr(source, "result_", None)
    if hasattr(source, "fit") and hasattr(source, "get_params"):
        raise ValueError(f"{type(source).__name__} is not fitted; call fit(X, y) before plotting it")
    raise TypeError(
        "source must be a History, a ColumnGenerationResult or a fitted column-generation "
        f"classifier, got {type(source).__name__}"
    )


def _values(history: History, name: str) -> np.ndarray:
    """One RoundRecord field per round as floats (None -> NaN)."""
    return np.array([np.nan if v is None else float(v)
                     for v in (getattr(r, name) for r in history)], dtype=float)


def _is_exact(history: History) -> bool:
    if "exact" in history.meta:
        return bool(history.meta["exact"])
    return bool(history.records) and all(r.exact for r in history)


def _master(history: History) -> str:
    return str(history.meta.get("master", ""))


def _is_leveraging(history: History) -> bool:
    """A leveraging booster's history (LLM, LLD, bounded loss, MODABOOST): no master, no dual."""
    return not _master(history) and bool(history.meta.get("algorithm"))


def _trait(history: History, name: str, default: Any) -> Any:
    """What the master registry says of the history's master (``default`` for an unknown one)."""
    spec: MasterSpec | None = spec_of(_master(history)) if _master(history) else None
    return default if spec is None else getattr(spec, name)


# -- 1. duality ------------------------------------------------------------------------
#: what the restricted master's primal/dual values are, by master (the y label of their panel)
OBJECTIVE_LABELS = {
    "LPBoost": "soft margin / edge",
    "MulticlassLPBoost": "soft margin / edge",
    "SoftBoost": "relative entropy Δ(d)",
    "TotalBoost": "relative entropy Δ(d)",
    "ERLPBoost": "max edge + Δ(d)/η",
    "RMBoost": "minimax risk",
}
#: the gap axis never reaches below this (gaps under it are round-off)
GAP_FLOOR = 1e-12
#: what a leveraging booster's ``primal`` is, by ``meta["algorithm"]`` (the y label of its panel)
LEVERAGING_LABELS = {
    "LLM": "LLM loss (mixture -log-likelihood)",
    "LLD": "LLD loss (logistic difference)",
    "log-loss boosting": "log-loss",
    "bounded loss": "objective log sum sigma - lam |w|^2",
    "MODABOOST": "loss Phi(H_t, S)",
}


def _panels(ax: Axes | None, n: int, ratios: list[float]) -> list[Axes]:
    """``n`` stacked Axes sharing x: a new figure, or ``ax``'s place split (``ax`` on top)."""
    if ax is None:
        fig, axes = _pyplot().subplots(n, 1, sharex=True, squeeze=False, layout="constrained",
                                       figsize=(9, 2.2 + 1.9 * n), height_ratios=ratios)
        return list(axes[:, 0])
    if n == 1:
        return [ax]
    fig = ax.figure
    spec = ax.get_subplotspec()
    if spec is not None:
        grid = spec.subgridspec(n, 1, height_ratios=ratios, hspace=0.08)
        ax.set_subplotspec(grid[0])
        return [ax] + [fig.add_subplot(grid[i], sharex=ax) for i in range(1, n)]
    x0, y0, width, height = ax.get_position().bounds  # an Axes placed by hand: cut its box
    tops = y0 + height * (1 - np.cumsum([0.0] + ratios) / sum(ratios))
    ax.set_position([x0, tops[1], width, tops[0] - tops[1]])
    return [ax] + [fig.add_axes((x0, tops[i + 1], width, tops[i] - tops[i + 1]), sharex=ax)
                   for i in range(1, n)]


def _legend(ax: Axes, outside: bool) -> None:
    """The panel's legend: right of its data area, or inside where its own lines leave room."""
    if not ax.get_legend_handles_labels()[0]:
        return
    if outside:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  fontsize="small")
    else:
        ax.legend(loc="best", fontsize="small")


def _flat_limits(ax: Axes, *series: np.ndarray) -> None:
    """A series that varies by less than 1e-6 (relative) is flat: ±5% around it, no float noise."""
    values = np.concatenate([np.asarray(v, dtype=float).ravel() for v in series])
    values = values[np.isfinite(values)]
    if values.size == 0:
        return
    lo, hi = float(values.min()), float(values.max())
    if hi - lo <= 1e-6 * max(abs(lo), abs(hi)) + 1e-15:
        center = 0.5 * (lo + hi)
        pad = 0.05 * abs(center) if center else 0.05
        ax.set_ylim(center - pad, center + pad)


def _stops_at_tol(history: History) -> bool:
    """Masters whose run stops at gap <= tol (LPBoost, RMBoost); the entropy masters stop by delta."""
    return bool(_master(history)) and _trait(history, "lower_bound", "unknown") in ("dual", None)


def plot_duality(source: Any, ax: Axes | None = None) -> Axes:
    """Restricted master per round: objective panel, edge panel (entropy masters), gap panel.

    Stacked panels sharing the round axis (integer ticks):

    * objective: ``RoundRecord.primal`` (thick pale solid line) and ``.dual``
      (dashed with markers, on top: both stay visible when equal); NaN
      rounds are holes.  The y label says what they are
      (:data:`OBJECTIVE_LABELS`).  For LPBoost, whose lower bound is the
      dual itself, the best edge the exact oracle found (an upper bound) is
      drawn here too.  A series flat to 1e-6 (relative) is shown ±5% around
      its value; tick labels are plain numbers, no offset.
    * edge, for SoftBoost, TotalBoost and ERLPBoost (their objective is the
      entropy projection's, not an edge): the best edge (upper bound) and
      gamma*_t (``extra["gamma_star"]``, the LP over the chosen columns;
      lower bound).  RMBoost compares the edge with lam, not with an
      objective: no edge is drawn.
    * gap (exact oracle, gaps recorded), log scale, lower limit half the
      smallest positive gap, but not below :data:`GAP_FLOOR`; for the
      masters that stop at gap <= tol (LPBoost, RMBoost) the tolerance is
      drawn, kept in view, and the limit is tol/100 at the lowest.  Rounds
      with a gap under the limit (<= 0 included: converged to solver
      accuracy) are triangles on the axis, counted in the legend.

    An inexact oracle reports no gap: the title says so and only the
    objective panel is drawn.  In a figure of its own each legend sits right
    of its panel; drawn into ``ax`` (the panels then share its place) the
    legends go inside, where the panel's lines leave room (``loc="best"``).
    Returns the objective panel; the others share its x axis
    (``ax.get_shared_x_axes().get_siblings(ax)``).
    """
    from matplotlib.ticker import (
        FuncFormatter,
        LogLocator,
        MaxNLocator,
        NullFormatter,
        ScalarFormatter,
    )

    history, _, _ = _resolve(source)
    if _is_leveraging(history):
        return _plot_leveraging(history, ax)
    master = _master(history) or "master"
    exact = _is_exact(history)
    lower_bound = _trait(history, "lower_bound", None)
    gamma_star_kind = lower_bound == "gamma_star" or (
        not _master(history) and any("gamma_star" in r.extra for r in history))
    gaps = [(r.round, float(r.gap)) for r in history if r.gap is not None]
    edge_panel = exact and bool(history.records) and gamma_star_kind
    gap_panel = exact and bool(gaps)
    ratios = [3.0] + ([2.0] if edge_panel else []) + ([2.0] if gap_panel else [])
    panels = _panels(ax, len(ratios), ratios)
    top = panels[0]
    rounds = np.array([r.round for r in history], dtype=float)
    every = max(1, len(rounds) // 30)  # markers on at most ~30 rounds
    primal, dual = _values(history, "primal"), _values(history, "dual")
    top.plot(rounds, primal, "-", color="tab:blue", lw=3, alpha=0.55, label="primal", zorder=2)
    top.plot(rounds, dual, "--", color="tab:orange", lw=1.3, marker="x", ms=4, markevery=every,
             label="dual", zorder=3)
    shown = [primal, dual]
    if exact and history.records and lower_bound == "dual":
        edge = _values(history, "edge")
        top.plot(rounds, edge, ":", color="tab:green", marker=".", ms=4, markevery=every,
                 label="best edge (upper bound)")
        shown.append(edge)
    top.set_ylabel(OBJECTIVE_LABELS.get(_master(history), "objective"))
    _flat_limits(top, *shown)
    title = f"{master}: restricted master per round"
    if not exact:
        title += " (inexact oracle: no gap)"
    elif not gaps:
        title += " (no gap recorded)"
    top.set_title(title)
    below = iter(panels[1:])
    if edge_panel:
        panel = next(below)
        edge = _values(history, "edge")
        gamma_star = np.array([np.nan if r.extra.get("gamma_star") is None
                               else float(r.extra["gamma_star"]) for r in history])
        best = np.array([np.nan if r.extra.get("best_edge") is None
                         else float(r.extra["best_edge"]) for r in history])
        panel.plot(rounds, edge, ":", color="tab:green", marker=".", ms=4, markevery=every,
                   label="best edge at d_t" if np.isfinite(best).any() else "best edge (upper bound)")
        if np.isfinite(best).any():  # the gap is taken here: the lowest of them so far
            panel.plot(rounds, best, "-", color="tab:olive", lw=1.6,
                       label="best edge so far (upper bound)")
        panel.plot(rounds, gamma_star, "-.", color="tab:purple",
                   label="gamma*_t, LP value (lower bound)")
        panel.set_ylabel("edge")
        _flat_limits(panel, edge, best, gamma_star)
    if gap_panel:
        panel = next(below)
        positive = [(k, g) for k, g in gaps if g > 0 and math.isfinite(g)]
        tol = history.meta.get("tol")
        tol_line = _stops_at_tol(history) and isinstance(tol, (int, float)) and tol > 0
        if gamma_star_kind:  # the entropy masters stop within delta, not tol
            tol = (history.meta.get("params") or {}).get("delta")
            tol_line = isinstance(tol, (int, float)) and tol > 0
        lowest = [g for _, g in positive] + ([float(tol)] if tol_line else [])
        bottom = max(min(lowest) / 2 if lowest else GAP_FLOOR,
                     float(tol) / 100 if tol_line else GAP_FLOOR)
        drawn = [(k, g) for k, g in positive if g >= bottom]
        under = [(k, g) for k, g in gaps if g < bottom]  # NaN gaps have no value: not drawn
        if drawn:
            panel.plot([k for k, _ in drawn], [g for _, g in drawn], color="tab:red", marker=".",
                       markevery=every, lw=1, label="gap")
        if under:
            what = "gap <= 0" if all(g <= 0 for _, g in under) else f"gap < {bottom:.0e}"
            panel.plot([k for k, _ in under], [bottom] * len(under), "v", color="tab:red", ms=6,
                       ls="none", clip_on=False,
                       label=f"{what}: {len(under)} round{'s' if len(under) > 1 else ''}, on the axis")
        if tol_line:
            panel.axhline(float(tol), color="0.4", ls=":", lw=1,
                          label=f"{'delta' if gamma_star_kind else 'tol'} = {float(tol):g}")
        panel.set_yscale("log")
        highest = max([g for _, g in drawn] + [float(tol) if tol_line else bottom])
        panel.set_ylim(bottom, highest * 2)
        if highest * 2 / bottom < 100:  # under two decades: ticks at 1, 2, 5 x 10^k, plain labels
            panel.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            panel.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            panel.yaxis.set_minor_formatter(NullFormatter())
        panel.set_ylabel("gap (log)")
    for panel in panels:
        panel.xaxis.set_major_locator(MaxNLocator(integer=True))
        if panel.get_yscale() != "log":
            formatter = ScalarFormatter(useOffset=False)
            formatter.set_powerlimits((-4, 5))
            panel.yaxis.set_major_formatter(formatter)
        _legend(panel, outside=ax is None)
    for panel in panels[:-1]:
        panel.tick_params(labelbottom=False)
    panels[-1].set_xlabel("round")
    return top


def _plot_leveraging(history: History, ax: Axes | None) -> Axes:
    """A leveraging booster per round: what its history holds, under its own names.

    Stacked panels sharing the round axis: the loss (``primal``, labelled by
    :data:`LEVERAGING_LABELS`); MODABOOST's |normalised edge| of h_t
    (``edge``) and its leveraging coefficient alpha_t (``extra["alpha"]``),
    each where recorded.  No primal, dual or gap: there is no LP master.
    """
    from matplotlib.ticker import MaxNLocator

    algorithm = str(history.meta.get("algorithm"))
    rounds = np.array([r.round for r in history], dtype=float)
    series = [(_values(history, "primal"), LEVERAGING_LABELS.get(algorithm, "loss"), "tab:blue")]
    edge = _values(history, "edge")
    if np.isfinite(edge).any():
        series.append((edge, "|normalised edge| of h_t", "tab:green"))
    alpha = np.array([np.nan if r.extra.get("alpha") is None else float(r.extra["alpha"])
                      for r in history], dtype=float)
    if np.isfinite(alpha).any():
        series.append((alpha, "alpha_t (leveraging coefficient)", "tab:purple"))
    panels = _panels(ax, len(series), [3.0] + [2.0] * (len(series) - 1))
    every = max(1, len(rounds) // 30)
    for panel, (values, label, color) in zip(panels, series):
        panel.plot(rounds, values, "-", color=color, marker=".", ms=4, markevery=every, label=label)
        panel.set_ylabel(label.split(" (")[0])
        panel.xaxis.set_major_locator(MaxNLocator(integer=True))
        _legend(panel, outside=ax is None)
    for panel in panels[:-1]:
        panel.tick_params(labelbottom=False)
    title = algorithm
    if algorithm == "MODABOOST" and history.meta.get("loss"):
        title += f" ({history.meta['loss']} loss, model {history.meta.get('model')})"
    panels[0].set_title(title + " per round: no LP master, so no dual and no gap")
    panels[-1].set_xlabel("round")
    return panels[0]


# -- 2. distribution -------------------------------------------------------------------
def _no_distribution(history: History, clf: Any) -> str | None:
    """Why ``source`` gives no final distribution d, or None when it gives one."""
    if clf is None:
        return ("a History holds no final distribution d (its records have primal, dual, gap, ... "
                "only); pass the fitted classifier or the ColumnGenerationResult instead")
    if getattr(clf, "distribution_", None) is not None or getattr(clf, "result_", None) is not None:
        return None
    name = type(clf).__name__
    if not _master(history):  # LLM, LLD, bounded loss, MODABOOST: no master, no dual
        return f"{name} has no distribution d: it is not an LP master (no dual to plot)"
    return (f"this {name} holds no final distribution d (a model read from JSON: save_model does "
            "not write it); plot a pickled model, or the fitted classifier in Python")


def _final_distribution(history: History, clf: Any, result: Any) -> np.ndarray:
    if clf is not None and getattr(clf, "distribution_", None) is not None:
        return np.asarray(clf.distribution_, dtype=float)
    if result is not None:
        return np.asarray(result.distribution, dtype=float)
    raise ValueError(_no_distribution(history, clf))


def plot_distribution(source: Any, ax: Axes | None = None, cap: float | None = None) -> Axes:
    """The final distribution d over the examples, sorted in decreasing order, and its cap.

    A multiclass LP's d is over (example, wrong class) pairs (``distribution_``
    an (N, K) table): each example's mass sum_k d_ik is drawn, sorted, with the
    cap that binds it, and the largest of its pairs.

    d is the master's last dual distribution (``distribution_``).  The cap is
    drawn as a horizontal line: ``cap`` if given, else 1/(nu N) from the
    classifier's ``nu`` (or the history's ``params``); none for a fit with
    sample weights, whose caps differ per example.  TotalBoost is uncapped
    (its master's cap is 1, no constraint on a probability vector), so no line
    is drawn unless ``cap`` is passed.  For RMBoost d is a *signed* weighting,
    not a probability vector: |d| is drawn, sorted, without a cap (passing
    ``cap`` is an error).  A History alone holds no d: ValueError.
    """
    history, clf, result = _resolve(source)
    d = _final_distribution(history, clf, result)
    master = _master(history)
    kind = _trait(history, "distribution", "capped")
    pairs = None
    if d.ndim == 2:  # a multiclass LP's d over (example, wrong class) pairs: the cap binds each example's mass
        pairs, d = d, d.sum(axis=1)
    n = d.size
    ranks = np.arange(1, n + 1)
    if kind == "signed":
        if cap is not None:
            raise ValueError(f"{master}'s weighting d is signed and has no cap; leave cap=None")
        ax = _axes(ax)
        ax.plot(ranks, np.sort(np.abs(d))[::-1], drawstyle="steps-post", label="|d| (sorted)")
        ax.set_title(f"{master} |d| (d signed, not a probability vector)")
        ax.set_xlabel(f"example (sorted by |d|), N = {n}")
        ax.set_ylabel("|d|")
        ax.legend(fontsize="small")
        return ax
    if cap is not None:
        cap = float(cap)
        if not (math.isfinite(cap) and cap > 0):
            raise ValueError(f"cap must be a finite number > 0, got {cap!r}")
    elif kind != "uncapped" and n:
        nu = getattr(clf, "nu", None) if clf is not None else None
        if isinstance(nu, str):  # nu="auto": the one cross-validation chose
            nu = getattr(clf, "nu_", None)
        if nu is None:
            nu = (history.meta.get("params") or {}).get("nu")
        if nu is not None and not history.meta.get("weighted"):  # weighted: one cap per example
            cap = 1.0 / (float(nu) * n)
    ax = _axes(ax)
    if pairs is not None:
        order = np.argsort(-d, kind="stable")
        ax.plot(ranks, d[order], drawstyle="steps-post", label="example mass sum_k d_ik (sorted)")
        ax.plot(ranks, pairs.max(axis=1)[order], ".", ms=3, color="tab:green",
                label="its largest pair d_ik")
    else:
        ax.plot(ranks, np.sort(d)[::-1], drawstyle="steps-post", label="d (sorted)")
    title = f"{master or 'final'} distribution d, N = {n}"
    if cap is not None:
        at_cap = int(np.sum(d >= cap * (1 - 1e-9)))
        ax.axhline(cap, color="tab:red", ls="--", label=f"cap = {cap:.4g}")
        title += f", {at_cap} at the cap"
    elif kind == "uncapped":
        title += " (uncapped)"
    if pairs is not None:
        title += f"\nover (example, wrong class) pairs, {pairs.shape[1]} classes"
    ax.set_title(title)
    ax.set_xlabel("example (sorted by d)" if pairs is None else "example (sorted by its mass)")
    ax.set_ylabel("d")
    ax.legend(fontsize="small")
    return ax


# -- 3. margins ------------------------------------------------------------------------
def _cdf(ax: Axes, margins: np.ndarray, label: str, **style: Any) -> None:
    m = np.sort(np.asarray(margins, dtype=float))
    ax.plot(m, np.arange(1, m.size + 1) / m.size, drawstyle="steps-post",
            label=f"{label} (N = {m.size})", **style)


def plot_margins(source: Any, X: Any, y: Any, ax: Axes | None = None, *, X_test: Any = None,
                 y_test: Any = None, label: str = "margin CDF") -> Axes:
    """Empirical CDF of the margins y_n f(x_n): fraction of examples with margin <= x.

    Margins are the classifier's ``margins(X, y)``, not renormalised: for
    the LP-family classifiers w is in the simplex, so they lie in [-1, 1];
    for RMBoost f = h(x)^T mu (|f| <= 1/2 on the training data).  One CDF,
    labelled ``label`` and N, for (X, y); with ``X_test``/``y_test`` (X, y
    are then the training data) two: "train" and "test".  For the
    LP-family it also draws the training run's rho (the margin level of the
    last LP: on the training data at most a fraction nu of the examples lies
    strictly below it) and its soft margin ``objective_``, as vertical
    lines, and the nu-quantile of the margins of (X, y) (see
    :func:`_nu_quantile`).  RMBoost's ``objective_`` is the minimax risk, not
    a margin, and is not drawn.  Needs the fitted classifier (ValueError
    otherwise).
    """
    history, clf, result = _resolve(source)
    if clf is None or not hasattr(clf, "margins"):
        raise ValueError("plot_margins needs the fitted classifier (it calls margins(X, y))")
    if (X_test is None) != (y_test is None):
        raise ValueError("pass both X_test and y_test, or neither")
    ax = _axes(ax)
    margins = np.asarray(clf.margins(X, y), dtype=float)
    if X_test is None:
        _cdf(ax, margins, label)
        what = "margins y f(x)"
    else:
        _cdf(ax, margins, "train", color="tab:blue")
        _cdf(ax, clf.margins(X_test, y_test), "test", color="tab:orange", ls="--")
        what = "margins y f(x), train and test"
    master = _master(history)
    if _trait(history, "distribution", "capped") == "signed":
        ax.set_title(f"{master} {what.replace('f(x)', 'h(x)^T mu')}")
    else:
        _nu_quantile(ax, history, margins, "" if X_test is None else " (train)")
        solution = getattr(result, "solution", None)
        rho = getattr(solution, "rho", None)
        if rho is not None:
            ax.axvline(float(rho), color="tab:green", ls="-.",
                       label=f"rho (training) = {float(rho):.4g}")
        objective = getattr(clf, "objective_", None)
        if objective is not None and math.isfinite(objective):
            ax.axvline(float(objective), color="tab:red", ls=":",
                       label=f"soft margin (training) = {float(objective):.4g}")
        ax.set_title(f"{master or 'classifier'} {what}")
    ax.set_xlabel("margin")
    ax.set_ylabel("fraction of examples with margin <= x")
    ax.set_ylim(0.0, 1.02)
    ax.legend(loc="upper left", fontsize="small")  # the CDFs rise to the right: the corner is free
    return ax


def _nu_quantile(ax: Axes, history: History, margins: np.ndarray, which: str) -> None:
    """The nu-quantile q of ``margins``: the ceil(nu N)-th smallest, so that at most a fraction
    nu of them lies strictly below q (where the soft margin's rho sits on the training data).

    Drawn as an L over the CDF, from the fraction nu across to q and down to 0, labelled with nu,
    q and how many margins lie below it; not for a master without nu (TotalBoost) or a fit with
    sample weights (its quantile is a weighted one).
    """
    nu = (history.meta.get("params") or {}).get("nu")
    if (not isinstance(nu, (int, float)) or not 0 < nu <= 1 or history.meta.get("weighted")
            or margins.size == 0):
        return
    m = np.sort(margins)
    q = float(m[max(1, math.ceil(nu * m.size - 1e-9)) - 1])
    below = int(np.count_nonzero(m < q))
    ax.plot([m[0], q, q], [nu, nu, 0.0], color="tab:purple", lw=2.5, alpha=0.45, zorder=1,
            label=f"nu = {nu:g} quantile{which} = {q:.4g} ({below} of {m.size} below)")


# -- 4. timing -------------------------------------------------------------------------
#: up to this many rounds the timing plot draws one bar a round; above it, bins of consecutive
#: rounds (a bar a round would be thinner than a pixel)
TIMING_BARS = 120


def plot_timing(source: Any, ax: Axes | None = None) -> Axes:
    """Per-round master and pricing time in milliseconds, stacked (integer round ticks).

    Up to :data:`TIMING_BARS` rounds, one bar a round: "master (ms)" is
    ``master_seconds * 1000``, "pricing (ms)" is ``pricing_seconds * 1000``,
    stacked on top.  Above it (a leveraging booster runs thousands of
    rounds), the rounds are cut into at most :data:`TIMING_BARS` bins of k
    consecutive rounds, and each bin is a filled step at the mean time a
    round of that bin took (master below, pricing on top; the legend says
    k, and sits right of the panel); the title gives the longest single
    round.  The initial pricing (before round 1) is given in the title.
    """
    from matplotlib.ticker import MaxNLocator

    history, _, _ = _resolve(source)
    ax = _axes(ax)
    rounds = np.array([r.round for r in history], dtype=float)
    master_ms = np.array([r.master_seconds for r in history], dtype=float) * 1e3
    pricing_ms = np.array([r.pricing_seconds for r in history], dtype=float) * 1e3
    title = "time per round"
    if rounds.size <= TIMING_BARS:
        ax.bar(rounds, master_ms, width=0.8, label="master (ms)")
        ax.bar(rounds, pricing_ms, width=0.8, bottom=master_ms, label="pricing (ms)")
    else:
        size = math.ceil(rounds.size / TIMING_BARS)
        starts = np.arange(0, rounds.size, size)
        edges = np.append(rounds[starts] - 0.5, rounds[-1] + 0.5)
        with np.errstate(invalid="ignore"):
            master_mean = np.array([np.nanmean(master_ms[i:i + size]) for i in starts])
            pricing_mean = np.array([np.nanmean(pricing_ms[i:i + size]) for i in starts])
        ax.stairs(master_mean, edges, fill=True, color="tab:blue",
                  label=f"master (ms, mean of {size} rounds)")
        ax.stairs(master_mean + pricing_mean, edges, baseline=master_mean, fill=True,
                  color="tab:orange", label=f"pricing (ms, mean of {size} rounds)")
        total = master_ms + pricing_ms
        if np.isfinite(total).any():
            longest = int(np.nanargmax(total))
            title += f" (longest: round {rounds[longest]:g}, {total[longest]:.2f} ms)"
        ax.set_xlim(edges[0], edges[-1])
    initial = history.meta.get("initial_pricing_seconds")
    if initial is not None:
        title += f" (initial pricing {float(initial) * 1e3:.2f} ms)"
    ax.set_title(title)
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("milliseconds")
    if rounds.size <= TIMING_BARS:
        ax.legend(fontsize="small")
    else:  # the filled steps cover the panel's lower part wherever a legend would go: beside it
        _legend(ax, outside=True)
    return ax


# -- 5. summary ------------------------------------------------------------------------
def _note(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def plot_summary(source: Any, X: Any = None, y: Any = None, *, X_test: Any = None,
                 y_test: Any = None, label: str = "margin CDF") -> Figure:
    """2x2 figure: duality (top left, its panels stacked), distribution (top right), margins, timing.

    The distribution panel needs a classifier or a ColumnGenerationResult
    and the margins panel a classifier with X and y (``X_test``, ``y_test``
    and ``label`` as in :func:`plot_margins`); otherwise the panel holds a
    note saying what to pass.
    """
    history, clf, result = _resolve(source)
    fig, axes = _pyplot().subplots(2, 2, figsize=(14, 11), layout="constrained",
                                   height_ratios=[1.3, 1.0])
    plot_duality(history, ax=axes[0, 0])
    if clf is None and result is None:
        _note(axes[0, 1], "no final distribution in a History:\npass the fitted classifier")
    elif result is None and _no_distribution(history, clf) is not None:
        _note(axes[0, 1], _no_distribution(history, clf))
    else:
        plot_distribution(source, ax=axes[0, 1])
    if clf is not None and not hasattr(clf, "margins"):
        _note(axes[1, 0], f"{type(clf).__name__} has no margins y f(x)")
    elif clf is not None and X is not None and y is not None:
        plot_margins(source, X, y, ax=axes[1, 0], X_test=X_test, y_test=y_test, label=label)
    else:
        _note(axes[1, 0], "margins: pass the fitted classifier with X and y")
    plot_timing(history, ax=axes[1, 1])
    return fig


# -- 6. solver comparison ------------------------------------------------------------------
#: the profile's colours: tab10, then five of other hues or lightness (no two of one hue, as
#: tab20's pairs are); past 15 curves they repeat, with another marker
_PROFILE_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
                   "tab:pink", "tab:gray", "tab:olive", "tab:cyan",
                   "#000000", "#e6ab02", "#ff00ff", "#008080", "#800000")
#: one marker a curve (on its steps and in the legend)
_PROFILE_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p", "d", "8", "H",
                    "1", "2", "3", "4", "+", "x")
#: line style by solver family (the backend name up to its first ":"), so that a family reads
#: at a glance; other families dotted
_FAMILY_STYLES = {"highspy": "-", "cvxpy": "--", "dedicated": "-."}


def plot_performance_profile(comparisons: Any, ax: Axes | None = None, mode: str = "full",
                             title: str | None = None) -> Axes:
    """The performance profile (Dolan and More, 2002) of a comparison over several instances.

    ``comparisons``: the :class:`~lpboosting.compare.Comparison` of each
    instance (:func:`lpboosting.compare.compare_catalog`) or their
    :class:`~lpboosting.compare.Profile`.  For each backend, the fraction of
    the instances it solved within a factor tau of the best backend's time on
    that instance (``mode`` rows: the full solves), against tau on a log2
    axis: a step function that starts at the share of instances on which the
    backend was fastest (tau = 1) and ends at the share it solved at all;
    a backend that failed on an instance, was off its certified objective
    by more than its tolerance, reached the time limit or was not run on it
    never counts it.  Every curve has a colour and a marker of its own (up
    to 15 colours, then the marker alone tells them apart) and the line
    style of its solver family (highspy solid, cvxpy dashed, dedicated
    dash-dot).  The legend, beside the axes, shows each curve's line and
    marker and gives the instances each backend solved, ran on (when not
    all) and was fastest on.
    """
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator, PercentFormatter

    from lpboosting.compare import Profile, performance_profile

    profile = comparisons if isinstance(comparisons, Profile) else performance_profile(comparisons, mode)
    ax = _axes(ax)
    n = len(profile.instances)
    top = max(2.0, profile.max_ratio * 1.25)
    solved, wins, ran = profile.solved, profile.wins, profile.ran
    # the most successful first: drawn widest, so that later curves on the same steps show on top
    order = sorted(profile.backends, key=lambda b: (-solved[b], -wins[b]))
    for i, backend in enumerate(order):
        taus, fractions = profile.steps(backend)
        x = np.concatenate([[1.0], taus, [top]])
        y = np.concatenate([[profile.fraction(backend, 1.0)], fractions, [solved[backend]]])
        label = f"{backend}: solved {round(solved[backend] * n)}/{n}"
        if ran[backend] < 1.0:
            label += f" (ran on {round(ran[backend] * n)})"
        label += f", fastest on {round(wins[backend] * n)}"
        # markers on the curve's own steps (not on its ends at tau = 1 and at the axis' end)
        ax.step(x, y, where="post", label=label, color=_PROFILE_COLORS[i % len(_PROFILE_COLORS)],
                linewidth=max(3.2 - 0.3 * i, 1.2), alpha=0.9,
                linestyle=_FAMILY_STYLES.get(backend.split(":")[0], ":"),
                marker=_PROFILE_MARKERS[i % len(_PROFILE_MARKERS)], markersize=5,
                markevery=list(range(1, taus.size + 1)))
    ax.set_xscale("log", base=2)
    ax.set_xlim(1.0, top)
    ticks = 2.0 ** np.arange(0, int(np.floor(np.log2(top))) + 1)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.set_ylim(0.0, 1.04)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.grid(True, which="major", alpha=0.3)
    ax.set_xlabel("tau: time / the best backend's time on the instance (log2 scale)")
    ax.set_ylabel("instances solved within tau of the best")
    ax.set_title(title or f"performance profile of {len(profile.backends)} backends on {n} "
                          f"instances ({mode} solves)")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return ax
