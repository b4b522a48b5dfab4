"""Matplotlib figures of a column-generation run.

Every function takes ``source``: a :class:`~lpboosting.colgen.History`
(e.g. one read back with ``History.load``), a
:class:`~lpboosting.colgen.ColumnGenerationResult`, or a fitted
column-generation classifier (``LPBoostClassifier``, ``SoftBoostClassifier``,
``TotalBoostClassifier``, ``ERLPBoostClassifier``, ``RMBoostClassifier``).
Pass ``ax`` to draw into an existing Axes; otherwise a new figure is made.

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

__all__ = ["plot_distribution", "plot_duality", "plot_margins", "plot_summary", "plot_timing"]

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


def _trait(history: History, name: str, default: Any) -> Any:
    """What the master registry says of the history's master (``default`` for an unknown one)."""
    spec: MasterSpec | None = spec_of(_master(history)) if _master(history) else None
    return default if spec is None else getattr(spec, name)


# -- 1. duality ------------------------------------------------------------------------
def plot_duality(source: Any, ax: Axes | None = None) -> Axes:
    """Restricted master's primal and dual objective per round, the best edge, and the gap.

    Draws ``RoundRecord.primal`` and ``.dual`` against the round number
    (None/NaN rounds are left as holes).  With an exact oracle it also draws
    the best edge the oracle found (an upper bound on the full problem's
    value) together with the lower bound the gap is measured from: the dual
    itself for LPBoost, gamma*_t (``extra["gamma_star"]``, the LP over the
    chosen columns) for SoftBoost/TotalBoost/ERLPBoost.  For RMBoost the edge
    is compared with lam, not with an objective, so it is not drawn.  The gap
    goes on a twin log y-axis; rounds with gap <= 0 (converged to solver
    accuracy) are dropped from that line and counted in its legend label.
    An inexact oracle reports no gap: the title says so and no twin axis is made.
    Returns the main Axes (the twin, if any, is ``ax.figure.axes`` after it).
    """
    history, _, _ = _resolve(source)
    ax = _axes(ax)
    master = _master(history) or "master"
    exact = _is_exact(history)
    rounds = np.array([r.round for r in history], dtype=float)
    ax.plot(rounds, _values(history, "primal"), "-o", ms=3, label="primal")
    ax.plot(rounds, _values(history, "dual"), "--", label="dual")
    if exact and history.records:
        edge = _values(history, "edge")
        lower_bound = _trait(history, "lower_bound", None)
        if lower_bound == "dual":
            ax.plot(rounds, edge, ":", label="best edge (upper bound)")
        elif lower_bound == "gamma_star" or any("gamma_star" in r.extra for r in history):
            gamma_star = np.array([np.nan if r.extra.get("gamma_star") is None
                                   else float(r.extra["gamma_star"]) for r in history])
            ax.plot(rounds, edge, ":", label="best edge (upper bound)")
            ax.plot(rounds, gamma_star, "-.", label="gamma*_t, LP over chosen columns (lower bound)")
    ax.set_xlabel("round")
    ax.set_ylabel("objective")
    ax.ticklabel_format(axis="y", useOffset=False)  # a flat objective would show as an offset
    title = f"{master}: restricted master per round"
    handles, labels = ax.get_legend_handles_labels()
    gaps = [(r.round, float(r.gap)) for r in history if r.gap is not None]
    if not exact or not gaps:
        title += " (inexact oracle: no gap)" if not exact else " (no gap recorded)"
    else:
        positive = [(k, g) for k, g in gaps if g > 0 and math.isfinite(g)]
        dropped = len(gaps) - len(positive)
        label = "gap (log)" + (f", {dropped} round(s) with gap <= 0 not shown" if dropped else "")
        twin = ax.twinx()
        twin.plot([k for k, _ in positive], [g for _, g in positive], color="tab:red",
                  marker=".", lw=1, label=label)
        twin.set_yscale("log")
        twin.set_ylabel("gap")
        h2, l2 = twin.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    ax.set_title(title)
    if handles:
        ax.legend(handles, labels, fontsize="small")
    return ax


# -- 2. distribution -------------------------------------------------------------------
def _final_distribution(history: History, clf: Any, result: Any) -> np.ndarray:
    if clf is not None and getattr(clf, "distribution_", None) is not None:
        return np.asarray(clf.distribution_, dtype=float)
    if result is not None:
        return np.asarray(result.distribution, dtype=float)
    raise ValueError(
        "a History holds no final distribution d (its records have primal, dual, gap, ... only); "
        "pass the fitted classifier or the ColumnGenerationResult instead"
    )


def plot_distribution(source: Any, ax: Axes | None = None, cap: float | None = None) -> Axes:
    """The final distribution d over the examples, sorted in decreasing order, and its cap.

    d is the master's last dual distribution (``distribution_``).  The cap is
    drawn as a horizontal line: ``cap`` if given, else 1/(nu N) from the
    classifier's ``nu`` (or the history's ``params``).  TotalBoost is uncapped
    (its master's cap is 1, no constraint on a probability vector), so no line
    is drawn unless ``cap`` is passed.  For RMBoost d is a *signed* weighting,
    not a probability vector: |d| is drawn, sorted, without a cap (passing
    ``cap`` is an error).  A History alone holds no d: ValueError.
    """
    history, clf, result = _resolve(source)
    d = _final_distribution(history, clf, result)
    master = _master(history)
    kind = _trait(history, "distribution", "capped")
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
        if nu is None:
            nu = (history.meta.get("params") or {}).get("nu")
        if nu is not None:
            cap = 1.0 / (float(nu) * n)
    ax = _axes(ax)
    ax.plot(ranks, np.sort(d)[::-1], drawstyle="steps-post", label="d (sorted)")
    title = f"{master or 'final'} distribution d, N = {n}"
    if cap is not None:
        at_cap = int(np.sum(d >= cap * (1 - 1e-9)))
        ax.axhline(cap, color="tab:red", ls="--", label=f"cap = {cap:.4g}")
        title += f", {at_cap} at the cap"
    elif kind == "uncapped":
        title += " (uncapped)"
    ax.set_title(title)
    ax.set_xlabel("example (sorted by d)")
    ax.set_ylabel("d")
    ax.legend(fontsize="small")
    return ax


# -- 3. margins ------------------------------------------------------------------------
def plot_margins(source: Any, X: Any, y: Any, ax: Axes | None = None) -> Axes:
    """Empirical CDF of the margins y_n f(x_n): fraction of examples with margin <= x.

    Margins are the classifier's ``margins(X, y)``, not renormalised: for
    the LP-family classifiers w is in the simplex, so they lie in [-1, 1];
    for RMBoost f = h(x)^T mu (|f| <= 1/2 on the training data).  For
    the LP-family it also draws, as vertical lines, rho (the margin level of
    the last LP: on the training data at most a fraction nu of the examples
    lies strictly below it) and the soft margin ``objective_``.  RMBoost's
    ``objective_`` is the minimax risk, not a margin, and is not drawn.
    Needs the fitted classifier (ValueError otherwise).
    """
    history, clf, result = _resolve(source)
    if clf is None or not hasattr(clf, "margins"):
        raise ValueError("plot_margins needs the fitted classifier (it calls margins(X, y))")
    m = np.sort(np.asarray(clf.margins(X, y), dtype=float))
    n = m.size
    ax = _axes(ax)
    ax.plot(m, np.arange(1, n + 1) / n, drawstyle="steps-post", label="margin CDF")
    master = _master(history)
    if _trait(history, "distribution", "capped") == "signed":
        ax.set_title(f"{master} margins y h(x)^T mu, N = {n}")
    else:
        solution = getattr(result, "solution", None)
        rho = getattr(solution, "rho", None)
        if rho is not None:
            ax.axvline(float(rho), color="tab:green", ls="--", label=f"rho = {float(rho):.4g}")
        objective = getattr(clf, "objective_", None)
        if objective is not None and math.isfinite(objective):
            ax.axvline(float(objective), color="tab:red", ls=":",
                       label=f"soft margin = {float(objective):.4g}")
        ax.set_title(f"{master or 'classifier'} margins y f(x), N = {n}")
    ax.set_xlabel("margin")
    ax.set_ylabel("fraction of examples with margin <= x")
    ax.set_ylim(0.0, 1.02)
    ax.legend(fontsize="small")
    return ax


# -- 4. timing -------------------------------------------------------------------------
def plot_timing(source: Any, ax: Axes | None = None) -> Axes:
    """Per-round master and pricing time in milliseconds, as stacked bars.

    The bars labelled "master (ms)" are ``master_seconds * 1000``; those
    labelled "pricing (ms)" are ``pricing_seconds * 1000``, stacked on top.
    The initial pricing (before round 1) is given in the title.
    """
    history, _, _ = _resolve(source)
    ax = _axes(ax)
    rounds = np.array([r.round for r in history], dtype=float)
    master_ms = np.array([r.master_seconds for r in history], dtype=float) * 1e3
    pricing_ms = np.array([r.pricing_seconds for r in history], dtype=float) * 1e3
    ax.bar(rounds, master_ms, width=0.8, label="master (ms)")
    ax.bar(rounds, pricing_ms, width=0.8, bottom=master_ms, label="pricing (ms)")
    title = "time per round"
    initial = history.meta.get("initial_pricing_seconds")
    if initial is not None:
        title += f" (initial pricing {float(initial) * 1e3:.2f} ms)"
    ax.set_title(title)
    ax.set_xlabel("round")
    ax.set_ylabel("milliseconds")
    ax.legend(fontsize="small")
    return ax


# -- 5. summary ------------------------------------------------------------------------
def _note(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def plot_summary(source: Any, X: Any = None, y: Any = None) -> Figure:
    """2x2 figure: duality (top left), distribution (top right), margins, timing.

    The distribution panel needs a classifier or a ColumnGenerationResult
    and the margins panel a classifier with X and y; otherwise the panel
    holds a note saying what to pass.
    """
    history, clf, result = _resolve(source)
    fig, axes = _pyplot().subplots(2, 2, figsize=(12, 8), layout="constrained")
    plot_duality(history, ax=axes[0, 0])
    if clf is None and result is None:
        _note(axes[0, 1], "no final distribution in a History:\npass the fitted classifier")
    else:
        plot_distribution(source, ax=axes[0, 1])
    if clf is not None and X is not None and y is not None:
        plot_margins(source, X, y, ax=axes[1, 0])
    else:
        _note(axes[1, 0], "margins: pass the fitted classifier with X and y")
    plot_timing(history, ax=axes[1, 1])
    return fig
