"""lpboosting.plots: the figures' data (not pixels) against the fitted models and histories."""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from sklearn.datasets import load_breast_cancer

from lpboosting import (
    History,
    LPBoostClassifier,
    RMBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from lpboosting.colgen import RoundRecord
from lpboosting.plots import (
    plot_distribution,
    plot_duality,
    plot_margins,
    plot_summary,
    plot_timing,
)
from tests.helpers import ROOT



@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(y.size, 120, replace=False)
    return X[idx], y[idx]


def _fit(clf, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of the max_rounds fits
        return clf.fit(*data)


@pytest.fixture(scope="module")
def lpboost(data):
    return _fit(LPBoostClassifier(nu=0.2, oracle="stumps"), data)


@pytest.fixture(scope="module")
def rmboost(data):
    return _fit(RMBoostClassifier(oracle="stumps", max_rounds=20), data)


@pytest.fixture(scope="module")
def softboost(data):
    X, y = data
    return _fit(SoftBoostClassifier(nu=0.2, delta=0.1), (X[:80], y[:80]))


@pytest.fixture(scope="module")
def totalboost(data):
    X, y = data
    return _fit(TotalBoostClassifier(delta=0.1), (X[:80], y[:80]))


@pytest.fixture(scope="module")
def trees(data):
    return _fit(LPBoostClassifier(oracle="trees", max_rounds=10), data)


def _lines(ax_or_fig):
    axes = ax_or_fig.axes if isinstance(ax_or_fig, Figure) else [ax_or_fig]
    return [line for ax in axes for line in ax.get_lines()]


def _line(ax_or_fig, prefix):
    found = [line for line in _lines(ax_or_fig) if line.get_label().startswith(prefix)]
    assert len(found) == 1, [line.get_label() for line in _lines(ax_or_fig)]
    return found[0]


def _named(ax_or_fig, label):
    found = [line for line in _lines(ax_or_fig) if line.get_label() == label]
    assert len(found) == 1, [line.get_label() for line in _lines(ax_or_fig)]
    return found[0]


def _has_line(ax_or_fig, prefix):
    return any(line.get_label().startswith(prefix) for line in _lines(ax_or_fig))


def _floats(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _positive_gaps(history):
    return [(r.round, r.gap) for r in history if r.gap is not None and r.gap > 0]


# -- import ------------------------------------------------------------------------------
def test_import_does_not_import_matplotlib():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p))
    code = "import lpboosting.plots, sys; assert 'matplotlib' not in sys.modules, 'eager import'"
    proc = subprocess.run([sys.executable, "-c", code], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_missing_matplotlib_says_how_to_install(lpboost, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "lpboosting\[plot\]"'):
        plot_timing(lpboost.history_)


def test_bad_sources():
    with pytest.raises(ValueError, match="not fitted"):
        plot_duality(LPBoostClassifier())
    with pytest.raises(TypeError, match="History"):
        plot_timing([1, 2, 3])


# -- duality -----------------------------------------------------------------------------
def _panels(ax):
    """plot_duality's stacked panels, top to bottom (they share the objective panel's x axis)."""
    return sorted(ax.get_shared_x_axes().get_siblings(ax), key=lambda a: -a.get_position().y0)


def _history(master, primal, dual=None, gap=None, edge=None, gamma_star=None, tol=1e-6):
    """A hand-made History of len(primal) rounds (None/NaN allowed)."""
    n = len(primal)
    dual, gap, edge = (list(v) if v is not None else [None] * n for v in (dual, gap, edge))
    records = [RoundRecord(round=k + 1, n_columns=k + 1, primal=primal[k], dual=dual[k],
                           gap=gap[k], edge=edge[k], exact=True, master_seconds=1e-3,
                           pricing_seconds=1e-4, iterations=1, status="added",
                           extra={} if gamma_star is None else {"gamma_star": gamma_star[k]})
               for k in range(n)]
    return History(records, {"master": master, "exact": True, "tol": tol})


def _markers(ax, label_prefix):
    line = _line(ax, label_prefix)
    return np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)


def test_duality_lpboost_panels_lines_and_gap(lpboost):
    lpboost = copy.deepcopy(lpboost)
    history = lpboost.history_
    # converged rounds end at round-off: one gap of 1e-16, one of exactly 0
    history.records[-1].gap = 0.0
    history.records[-2].gap = 1e-16
    ax = plot_duality(lpboost)
    top, gap_ax = _panels(ax)
    assert top is ax and len(ax.figure.axes) == 2
    assert top.get_ylabel() == "soft margin / edge" and gap_ax.get_ylabel() == "gap (log)"
    rounds = [r.round for r in history]
    primal, dual = _line(top, "primal"), _line(top, "dual")
    np.testing.assert_array_equal(primal.get_xdata(), rounds)
    np.testing.assert_array_equal(primal.get_ydata(), [r.primal for r in history])
    np.testing.assert_array_equal(dual.get_ydata(), [r.dual for r in history])
    # the dual stays visible on the primal: dashed, thinner, with markers, drawn above it
    assert primal.get_linestyle() == "-" and dual.get_linestyle() == "--"
    assert dual.get_linewidth() < primal.get_linewidth() and dual.get_marker() not in ("", "None")
    assert dual.get_zorder() > primal.get_zorder()
    edge = _line(top, "best edge")
    np.testing.assert_array_equal(edge.get_ydata(), [r.edge for r in history])
    assert np.all(edge.get_ydata() >= dual.get_ydata() - 1e-9)  # an upper bound
    # the gap: log axis, bottom at tol/100 (half the smallest positive gap is far below it)
    tol = history.meta["tol"]
    assert gap_ax.get_yscale() == "log" and not _has_line(top, "gap")
    bottom = gap_ax.get_ylim()[0]
    assert bottom == pytest.approx(tol / 100)
    positive = [(r.round, r.gap) for r in history if r.gap > bottom]
    np.testing.assert_array_equal(_named(gap_ax, "gap").get_xdata(), [k for k, _ in positive])
    np.testing.assert_array_equal(_named(gap_ax, "gap").get_ydata(), [g for _, g in positive])
    x, y = _markers(gap_ax, "gap < 1e-08: 2 rounds")
    np.testing.assert_array_equal(x, rounds[-2:])
    np.testing.assert_array_equal(y, [bottom, bottom])
    np.testing.assert_array_equal(_line(gap_ax, "tol").get_ydata(), [tol, tol])


def test_duality_gap_axis_bottom_is_half_the_smallest_gap_but_not_below_the_floor():
    from lpboosting.plots import GAP_FLOOR

    # an entropy master (no tolerance line): the smallest gap sets the bottom
    gaps = [0.5, 0.2, 0.08, 0.0]
    history = _history("SoftBoost", [0.1, 0.2, 0.3, np.nan], [0.1, 0.2, 0.3, np.nan], gaps,
                       edge=[0.6, 0.45, 0.33, 0.3], gamma_star=[0.1, 0.25, 0.25, 0.3])
    gap_ax = _panels(plot_duality(history))[-1]
    assert gap_ax.get_ylim()[0] == pytest.approx(0.04)
    assert not _has_line(gap_ax, "tol")
    x, y = _markers(gap_ax, "gap <= 0: 1 round")
    np.testing.assert_array_equal(x, [4])
    # a gap of round-off size does not stretch the axis below GAP_FLOOR
    history = _history("SoftBoost", [0.1, 0.2], [0.1, 0.2], [0.5, 1e-17], edge=[0.6, 0.45],
                       gamma_star=[0.1, 0.45])
    gap_ax = _panels(plot_duality(history))[-1]
    assert gap_ax.get_ylim()[0] == GAP_FLOOR


def test_duality_round_ticks_are_integers():
    # three rounds: matplotlib's default locator would put ticks at 1.25, 1.5, ...
    history = _history("LPBoost", [0.1, 0.2, 0.25], [0.1, 0.2, 0.25], [0.3, 0.1, 1e-3],
                       edge=[0.4, 0.3, 0.251])
    ax = plot_duality(history)
    ax.figure.canvas.draw()
    for panel in _panels(ax):
        ticks = [t for t in panel.get_xticks() if panel.get_xlim()[0] <= t <= panel.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
    labels = [t.get_text() for t in _panels(ax)[-1].get_xticklabels() if t.get_text()]
    assert labels and all(re.fullmatch(r"\d+", text.replace("\u2212", "-")) for text in labels), labels


def test_duality_flat_series_has_short_tick_labels():
    # RMBoost's risk: constant up to float noise in the 12th digit
    risk = 0.13090169944075292
    history = _history("RMBoost", [risk, risk + 3.4e-12, risk - 1.7e-12],
                       [risk, risk + 3.4e-12, risk - 1.7e-12], [0.2, 0.1, 0.05], edge=[0.3, 0.2, 0.15])
    ax = plot_duality(history)
    ax.figure.canvas.draw()
    assert ax.get_ylabel() == "minimax risk"
    low, high = ax.get_ylim()
    assert high - low > 1e-3  # not zoomed onto the noise
    assert low < risk < high
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert labels
    for text in labels:
        digits = re.sub(r"[^0-9]", "", text).lstrip("0")
        assert len(digits) <= 4, labels
    assert not ax.yaxis.get_offset_text().get_text()  # no "+1.309e-1" offset either


def _overlaps(a, b):
    return not (a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0)


def test_duality_legends_are_off_the_data(lpboost, softboost):
    for clf in (lpboost, softboost):
        ax = plot_duality(clf)  # a figure of its own: every legend right of its panel
        fig = ax.figure
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for panel in _panels(ax):
            legend = panel.get_legend()
            assert legend is not None
            assert not _overlaps(legend.get_window_extent(renderer), panel.get_window_extent(renderer))
    # drawn into a given Axes: inside, at the place its lines leave free
    _, axes = plt.subplots(1, 2, figsize=(12, 5), layout="constrained")
    ax = plot_duality(lpboost, ax=axes[0])
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    for panel in _panels(ax):
        box = panel.get_legend().get_window_extent(renderer)
        for line in panel.get_lines():
            xy = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
            xy = xy[np.all(np.isfinite(xy), axis=1)]
            inside = ((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0)
                      & (xy[:, 1] < box.y1))
            assert not inside.any(), line.get_label()


def test_duality_entropy_master_objective_and_edges_on_their_own_panels(softboost):
    history = softboost.history_
    ax = plot_duality(softboost)
    top, edges, gap_ax = _panels(ax)
    assert top is ax
    # the objective is a relative entropy: not on the edge axis
    assert top.get_ylabel() == "relative entropy Δ(d)" and edges.get_ylabel() == "edge"
    assert not _has_line(top, "best edge") and not _has_line(top, "gamma*_t")
    assert not _has_line(edges, "primal") and not _has_line(edges, "dual")
    # SoftBoost's stopping round records NaN primal/dual: kept as holes
    assert np.isnan(history[-1].primal)
    np.testing.assert_array_equal(_line(top, "primal").get_ydata(), _floats(r.primal for r in history))
    np.testing.assert_array_equal(_line(top, "dual").get_ydata(), _floats(r.dual for r in history))
    gamma_star = _line(edges, "gamma*_t").get_ydata()
    np.testing.assert_array_equal(gamma_star, [r.extra["gamma_star"] for r in history])
    np.testing.assert_array_equal(_line(edges, "best edge at d_t").get_ydata(), [r.edge for r in history])
    # the gap is taken at the best edge found so far, the lowest of the edges priced
    best = _line(edges, "best edge so far").get_ydata()
    assert np.all(np.diff(best) <= 0) and np.all(best <= _floats(r.edge for r in history))
    np.testing.assert_allclose(best - gamma_star, [r.gap for r in history], atol=1e-12)
    assert gap_ax.get_yscale() == "log"
    np.testing.assert_array_equal(_named(gap_ax, "gap").get_ydata(),
                                  [g for _, g in _positive_gaps(history)])


def test_duality_inexact_oracle_has_no_gap(trees):
    assert all(r.gap is None for r in trees.history_)
    ax = plot_duality(trees)
    assert len(ax.figure.axes) == 1  # the objective panel only
    assert "inexact oracle: no gap" in ax.get_title()
    assert not _has_line(ax, "gap") and not _has_line(ax, "best edge")
    np.testing.assert_array_equal(_line(ax, "primal").get_ydata(), [r.primal for r in trees.history_])


def test_duality_rmboost_has_no_edge_bound(rmboost):
    history = rmboost.history_
    ax = plot_duality(rmboost)
    assert len(_panels(ax)) == 2
    assert not _has_line(ax.figure, "best edge")  # edge is compared with lam, not an objective
    gap_ax = _panels(ax)[-1]
    drawn = [g for _, g in _positive_gaps(history) if g >= gap_ax.get_ylim()[0]]
    np.testing.assert_array_equal(_named(gap_ax, "gap").get_ydata(), drawn)


def test_draws_into_the_given_axes(lpboost):
    fig, axes = plt.subplots(1, 2)
    assert plot_duality(lpboost, ax=axes[1]) is axes[1]
    assert _has_line(axes[1], "primal") and not axes[0].get_lines()
    gap_ax = _panels(axes[1])[-1]
    assert gap_ax is not axes[1] and gap_ax.get_yscale() == "log"
    # the panels share the given Axes' place: right of the other one
    assert gap_ax.get_position().x0 == pytest.approx(axes[1].get_position().x0)
    assert gap_ax.get_position().x0 > axes[0].get_position().x1
    assert plot_timing(lpboost, ax=axes[0]) is axes[0]
    # an Axes placed by hand is cut in two as well
    fig = plt.figure()
    free = fig.add_axes((0.1, 0.1, 0.8, 0.8))
    panels = _panels(plot_duality(lpboost, ax=free))
    assert panels[0] is free and len(panels) == 2
    assert panels[1].get_position().y1 <= free.get_position().y0 + 1e-9


# -- distribution ------------------------------------------------------------------------
def test_distribution_sorted_with_cap(lpboost):
    d = lpboost.distribution_
    ax = plot_distribution(lpboost)
    line = _line(ax, "d (sorted)")
    np.testing.assert_array_equal(line.get_ydata(), sorted(d, reverse=True))
    np.testing.assert_array_equal(line.get_xdata(), np.arange(1, d.size + 1))
    cap = 1.0 / (0.2 * d.size)
    np.testing.assert_allclose(_line(ax, "cap").get_ydata(), [cap, cap])
    assert d.max() <= cap + 1e-12
    at_cap = int(np.sum(d >= cap * (1 - 1e-9)))
    assert f"{at_cap} at the cap" in ax.get_title()


def test_distribution_explicit_cap_and_result_source(lpboost):
    ax = plot_distribution(lpboost, cap=0.05)
    np.testing.assert_allclose(_line(ax, "cap").get_ydata(), [0.05, 0.05])
    # a ColumnGenerationResult: d from the result, nu from the history's params
    ax = plot_distribution(lpboost.result_)
    np.testing.assert_array_equal(_line(ax, "d (sorted)").get_ydata(),
                                  sorted(lpboost.result_.distribution, reverse=True))
    cap = 1.0 / (0.2 * lpboost.distribution_.size)
    np.testing.assert_allclose(_line(ax, "cap").get_ydata(), [cap, cap])


def test_distribution_totalboost_is_uncapped(totalboost):
    ax = plot_distribution(totalboost)
    assert not _has_line(ax, "cap") and "uncapped" in ax.get_title()
    np.testing.assert_array_equal(_line(ax, "d (sorted)").get_ydata(),
                                  sorted(totalboost.distribution_, reverse=True))


def test_distribution_rmboost_is_signed(rmboost):
    d = rmboost.distribution_
    assert d.min() < 0  # the weighting really is signed here
    ax = plot_distribution(rmboost)
    assert len(ax.get_lines()) == 1  # |d| only, no cap line
    np.testing.assert_array_equal(_line(ax, "|d|").get_ydata(), sorted(np.abs(d), reverse=True))
    assert "not a probability vector" in ax.get_title()
    with pytest.raises(ValueError, match="no cap"):
        plot_distribution(rmboost, cap=0.1)


def test_distribution_of_a_history_raises(lpboost):
    with pytest.raises(ValueError, match="pass the fitted classifier"):
        plot_distribution(lpboost.history_)


# -- margins -----------------------------------------------------------------------------
def test_margin_cdf(lpboost, data):
    X, y = data
    margins = lpboost.margins(X, y)
    ax = plot_margins(lpboost, X, y)
    cdf = _line(ax, "margin CDF")
    x, F = np.asarray(cdf.get_xdata()), np.asarray(cdf.get_ydata())
    np.testing.assert_array_equal(x, np.sort(margins))
    assert np.all(np.diff(F) > 0) and F[-1] == 1.0
    np.testing.assert_allclose(F, np.arange(1, y.size + 1) / y.size)
    # F(x) is the fraction of margins <= x at every distinct margin
    for value in np.unique(margins):
        assert F[np.searchsorted(x, value, side="right") - 1] == pytest.approx(np.mean(margins <= value))
    rho = lpboost.result_.solution.rho
    assert _line(ax, "rho").get_xdata() == pytest.approx([rho, rho])
    assert _line(ax, "soft margin").get_xdata() == pytest.approx([lpboost.objective_] * 2)
    # at most a fraction nu of the training examples lies strictly below rho
    assert np.mean(margins < rho - 1e-9) <= 0.2 + 1e-12


def test_margins_train_and_test_apart(lpboost, data):
    X, y = data
    X_test, y_test = X[:40], y[:40]
    ax = plot_margins(lpboost, X, y, X_test=X_test, y_test=y_test)
    train, test = _line(ax, "train"), _line(ax, "test")
    assert train.get_label() == f"train (N = {y.size})" and test.get_label() == "test (N = 40)"
    np.testing.assert_array_equal(train.get_xdata(), np.sort(lpboost.margins(X, y)))
    np.testing.assert_array_equal(test.get_xdata(), np.sort(lpboost.margins(X_test, y_test)))
    np.testing.assert_allclose(test.get_ydata(), np.arange(1, 41) / 40)
    assert test.get_linestyle() != train.get_linestyle()
    assert not _has_line(ax, "margin CDF")
    # rho and the soft margin belong to the training run, and say so
    assert _line(ax, "rho (training)").get_xdata() == pytest.approx([lpboost.result_.solution.rho] * 2)
    assert _line(ax, "soft margin (training)").get_xdata() == pytest.approx([lpboost.objective_] * 2)
    assert "train and test" in ax.get_title()
    # one set only: labelled as the caller says
    ax = plot_margins(lpboost, X_test, y_test, label="held-out rows")
    assert _line(ax, "held-out rows").get_label() == "held-out rows (N = 40)"
    with pytest.raises(ValueError, match="both X_test and y_test"):
        plot_margins(lpboost, X, y, X_test=X_test)


def test_margins_rmboost_and_bad_sources(rmboost, lpboost, data):
    X, y = data
    ax = plot_margins(rmboost, X, y)
    assert len(ax.get_lines()) == 1  # the minimax risk is not a margin: no vertical line
    np.testing.assert_array_equal(_line(ax, "margin CDF").get_xdata(), np.sort(rmboost.margins(X, y)))
    with pytest.raises(ValueError, match="fitted classifier"):
        plot_margins(lpboost.history_, X, y)
    with pytest.raises(ValueError, match="fitted classifier"):
        plot_margins(lpboost.result_, X, y)


# -- timing ------------------------------------------------------------------------------
def _bars(ax, label):
    found = [c for c in ax.containers if c.get_label() == label]
    assert len(found) == 1
    return found[0]


def test_timing_bars_are_milliseconds(lpboost):
    history = lpboost.history_
    ax = plot_timing(lpboost)
    master = _bars(ax, "master (ms)")
    pricing = _bars(ax, "pricing (ms)")
    master_ms = [p.get_height() for p in master.patches]
    np.testing.assert_allclose(master_ms, [r.master_seconds * 1000 for r in history], rtol=1e-12)
    np.testing.assert_allclose([p.get_height() for p in pricing.patches],
                               [r.pricing_seconds * 1000 for r in history], rtol=1e-12)
    np.testing.assert_allclose([p.get_y() for p in pricing.patches], master_ms, rtol=1e-12)  # stacked
    np.testing.assert_allclose([p.get_x() + p.get_width() / 2 for p in master.patches],
                               [r.round for r in history])


# -- saved histories ---------------------------------------------------------------------
def test_loaded_history(lpboost, softboost, tmp_path):
    for clf in (lpboost, softboost):
        path = tmp_path / f"{type(clf).__name__}.json"
        clf.history_.save(path)
        loaded = History.load(path)
        # (History.__eq__ is False here for SoftBoost: its NaN primal/dual compare unequal)
        assert loaded.ledger() == clf.history_.ledger() and loaded.meta == clf.history_.meta
        ax = plot_duality(loaded)
        np.testing.assert_array_equal(_line(ax, "primal").get_ydata(),
                                      _floats(r.primal for r in clf.history_))
        gap_ax = _panels(ax)[-1]
        np.testing.assert_array_equal(
            _named(gap_ax, "gap").get_ydata(),
            [g for _, g in _positive_gaps(clf.history_) if g >= gap_ax.get_ylim()[0]])
        ax = plot_timing(loaded)
        np.testing.assert_allclose([p.get_height() for p in _bars(ax, "master (ms)").patches],
                                   [r.master_seconds * 1000 for r in clf.history_])
        with pytest.raises(ValueError, match="pass the fitted classifier"):
            plot_distribution(loaded)


# -- summary -----------------------------------------------------------------------------
def _texts(ax):
    return " ".join(t.get_text() for t in ax.texts)


def test_summary_of_a_classifier(lpboost, data):
    fig = plot_summary(lpboost, *data)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 5  # 2x2 + the gap's twin axis
    grid = fig.axes[:4]
    assert _has_line(grid[0], "primal")
    np.testing.assert_array_equal(_line(grid[1], "d (sorted)").get_ydata(),
                                  sorted(lpboost.distribution_, reverse=True))
    np.testing.assert_array_equal(_line(grid[2], "margin CDF").get_xdata(),
                                  np.sort(lpboost.margins(*data)))
    assert len(grid[3].containers) == 2
    assert not any(ax.texts for ax in grid)
    X, y = data
    fig = plot_summary(lpboost, X[40:], y[40:], X_test=X[:40], y_test=y[:40])
    assert _line(fig.axes[2], "train").get_label() == f"train (N = {y.size - 40})"
    assert _line(fig.axes[2], "test").get_label() == "test (N = 40)"


def test_summary_of_a_history_and_without_data(lpboost, trees):
    fig = plot_summary(lpboost.history_)
    assert isinstance(fig, Figure) and len(fig.axes) == 5
    assert "pass the fitted classifier" in _texts(fig.axes[1]) and not fig.axes[1].get_lines()
    assert "margins" in _texts(fig.axes[2]) and not fig.axes[2].get_lines()
    fig = plot_summary(trees)  # inexact oracle: no twin; no X, y: no margins
    assert len(fig.axes) == 4
    assert _has_line(fig.axes[1], "d (sorted)")
    assert "margins" in _texts(fig.axes[2])


# -- what a person sees ----------------------------------------------------------------------
def _timing_history(n_rounds, seed=0):
    """A leveraging booster's run of ``n_rounds`` rounds: ~0.005 ms master, ~0.03 ms pricing, and
    one 4 ms round (a pause) — the shape of LLMClassifier's 6439 rounds on breast cancer."""
    rng = np.random.default_rng(seed)
    master = rng.uniform(0.004, 0.006, n_rounds) * 1e-3
    pricing = rng.uniform(0.02, 0.04, n_rounds) * 1e-3
    pricing[n_rounds * 7 // 8] = 4e-3
    records = [RoundRecord(round=k, n_columns=31, primal=100.0 - k * 1e-3, dual=None, gap=None,
                           edge=None, exact=True, master_seconds=master[k], pricing_seconds=pricing[k],
                           iterations=None, status="added", extra={})
               for k in range(n_rounds)]
    return History(records, {"algorithm": "LLM", "exact": True})


def _painted(ax, colors):
    """The share of the Axes' pixels drawn (nearly) in one of ``colors``."""
    from matplotlib.colors import to_rgb

    fig = ax.figure
    fig.canvas.draw()
    image = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float) / 255
    box = ax.get_window_extent()
    height = image.shape[0]
    inside = image[int(height - box.y1) + 2:int(height - box.y0) - 2, int(box.x0) + 2:int(box.x1) - 2]
    near = np.zeros(inside.shape[:2], dtype=bool)
    for color in colors:
        near |= np.all(np.abs(inside - np.array(to_rgb(color))) < 0.08, axis=-1)
    return float(near.mean())


def test_timing_of_thousands_of_rounds_shows_the_data():
    history = _timing_history(6439)
    ax = plot_timing(history)
    # the times fill the panel as a person sees it (one bar a round was thinner than a pixel)
    assert _painted(ax, ["tab:blue", "tab:orange"]) > 0.3
    # each filled step is the mean time of a round over its bin of consecutive rounds
    master = [a for a in ax.patches if a.get_label().startswith("master (ms, mean of")]
    pricing = [a for a in ax.patches if a.get_label().startswith("pricing (ms, mean of")]
    assert len(master) == len(pricing) == 1
    size = int(re.search(r"mean of (\d+) rounds", master[0].get_label()).group(1))
    assert size * 120 >= 6439 > size * 119  # at most 120 bins
    m = np.array([r.master_seconds for r in history]) * 1e3
    p = np.array([r.pricing_seconds for r in history]) * 1e3
    starts = range(0, m.size, size)
    expect_m = [m[i:i + size].mean() for i in starts]
    expect_p = [p[i:i + size].mean() for i in starts]
    values, edges = master[0].get_data().values, master[0].get_data().edges
    np.testing.assert_allclose(values, expect_m, rtol=1e-12)
    np.testing.assert_allclose(pricing[0].get_data().values, np.add(expect_m, expect_p), rtol=1e-12)
    np.testing.assert_allclose(pricing[0].get_data().baseline, expect_m, rtol=1e-12)
    assert edges[0] == -0.5 and edges[-1] == 6438.5
    longest = int(np.argmax(m + p))
    assert longest == 6439 * 7 // 8 and f"longest: round {longest}, {(m + p)[longest]:.2f} ms" in ax.get_title()
    # a legend beside the panel: the filled steps cover the panel's lower part
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    assert not _overlaps(ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer))


def test_modaboost_plot_shows_its_loss_edge_and_coefficient():
    from lpboosting import ModaBoostClassifier

    X, y = load_breast_cancer(return_X_y=True)
    clf = _fit(ModaBoostClassifier(model="linear", max_rounds=15), (X[:150], y[:150]))
    history = clf.history_
    ax = plot_duality(clf)
    panels = _panels(ax)
    labels = [line.get_label() for panel in panels for line in panel.get_lines()]
    texts = " ".join(labels + [p.get_ylabel() for p in panels] + [ax.get_title()])
    # no LP master: nothing of a primal, a dual, a gap or a restricted master
    assert not {"primal", "dual", "gap"} & set(labels)
    assert "restricted master" not in texts and "objective" not in texts
    assert "MODABOOST" in ax.get_title() and "log loss" in ax.get_title()
    loss = _line(ax.figure, "loss Phi(H_t, S)")
    np.testing.assert_array_equal(loss.get_ydata(), clf.loss_curve_[1:])
    np.testing.assert_array_equal(_line(ax.figure, "|normalised edge| of h_t").get_ydata(),
                                  [r.edge for r in history])
    np.testing.assert_array_equal(_line(ax.figure, "alpha_t (leveraging coefficient)").get_ydata(),
                                  [r.extra["alpha"] for r in history])
    assert [p.get_ylabel() for p in panels] == ["loss Phi(H_t, S)", "|normalised edge| of h_t", "alpha_t"]


def _lab(color):
    """CIELAB of a colour (D65): distances in it are what the eye tells apart."""
    from matplotlib.colors import to_rgb

    rgb = np.array(to_rgb(color))
    rgb = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ rgb / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_performance_profile_tells_fourteen_curves_apart():
    from matplotlib.colors import to_hex

    from lpboosting.compare import Profile
    from lpboosting.plots import plot_performance_profile

    names = ["highspy", "highspy:ipm", "highspy:pdlp", "highspy:dual", "highspy:primal", "highspy:delta",
             "highspy:rows", "cvxpy:HIGHS", "cvxpy:CLARABEL", "cvxpy:ECOS", "cvxpy:SCS", "cvxpy:SCIPY",
             "cvxpy:GLOP", "dedicated"]
    rng = np.random.default_rng(0)
    seconds = {b: rng.lognormal(0.25 * i, 0.6, 12) for i, b in enumerate(names)}
    best = np.min(np.vstack(list(seconds.values())), axis=0)
    profile = Profile(names, [f"p{k}" for k in range(12)], {b: s / best for b, s in seconds.items()}, seconds)
    ax = plot_performance_profile(profile)
    curves = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert len(curves) == 14
    colors = [to_hex(line.get_color()) for line in curves]
    markers = [line.get_marker() for line in curves]
    assert len(set(colors)) == 14 and len(set(markers)) == 14
    # no two colours of one hue in two lightnesses (tab20's pairs): every pair far apart in CIELAB
    closest = min(np.linalg.norm(_lab(a) - _lab(b)) for i, a in enumerate(colors) for b in colors[i + 1:])
    assert closest > 20
    # the family in the line style
    style = {line.get_label().split(":")[0]: line.get_linestyle() for line in curves}
    assert len({style["highspy"], style["cvxpy"], style["dedicated"]}) == 3
    # the legend shows each curve's marker and colour, beside the axes
    legend = ax.get_legend()
    handles = legend.legend_handles
    assert [to_hex(h.get_color()) for h in handles] == colors
    assert [h.get_marker() for h in handles] == markers
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    assert not _overlaps(legend.get_window_extent(renderer), ax.get_window_extent(renderer))


def test_long_servedio_legend_covers_no_pane():
    from lpboosting.leveraging.experiments import _figure

    rows = [{"loss": loss, "model": model, "gamma": g, "accuracy_clean": acc, "rounds": rounds,
             "expected_posterior": post, "bayes_posterior": 0.75, "noise": 0.25}
            for loss in ("log", "square", "matusita", "asymmetric")
            for model, acc, rounds, post in (("linear", 0.5, 2, 0.6), ("tree", 1.0, 1, 0.75),
                                             ("nn", 1.0, 3, 0.75))
            for g in (0.005, 0.05, 0.5)]
    fig = _figure(rows)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert len(fig.axes) == 3 and all(ax.get_legend() is None for ax in fig.axes)
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    for ax in fig.axes:
        assert not _overlaps(box, ax.get_tightbbox(renderer))
    assert box.y0 >= 0 and box.x0 >= 0 and box.x1 <= fig.bbox.x1  # in the figure
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[:3] == ["model: linear", "model: tree", "model: nn"]
    assert "loss: asymmetric" in labels and "Bayes posterior (1 - eta)" in labels
    # the counts' log axis reads as plain numbers (it showed 4x10^0)
    low, high = fig.axes[2].get_ylim()
    ticks = [t.get_text() for t in fig.axes[2].get_yticklabels(which="both")
             if t.get_text() and low <= t.get_position()[1] <= high]
    assert ticks and all(t.isdigit() for t in ticks), ticks
    plt.close(fig)


def test_margins_line_at_the_nu_quantile(lpboost, softboost, data):
    X, y = data
    for clf, rows in ((lpboost, slice(None)), (softboost, slice(0, 80))):
        nu = clf.nu
        margins = clf.margins(X[rows], y[rows])
        ax = plot_margins(clf, X[rows], y[rows])
        line = _line(ax, f"nu = {nu:g} quantile")
        x, F = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        q = x[-1]
        # across at the fraction nu, down at q
        np.testing.assert_array_equal(F, [nu, nu, 0.0])
        assert x[1] == q and x[0] == margins.min()
        # the quantile: at most a fraction nu of the margins strictly below it, at least nu at or below
        assert np.mean(margins < q) <= nu < np.mean(margins <= q) + 1e-12
        assert q in margins
        below = int(np.sum(margins < q))
        assert f"= {q:.4g} ({below} of {margins.size} below)" in line.get_label()
        # LPBoost's rho sits there on the training data
        if clf is lpboost:
            assert q == pytest.approx(clf.result_.solution.rho, abs=1e-9)
    # TotalBoost has no nu: no such line
    ax = plot_margins(TotalBoostClassifier(delta=0.1).fit(X[:80], y[:80]), X[:80], y[:80])
    assert not _has_line(ax, "nu =")


def test_entropy_gap_panel_draws_delta(softboost, totalboost):
    for clf in (softboost, totalboost):
        ax = plot_duality(clf)
        gap_ax = _panels(ax)[-1]
        delta = clf.delta
        line = _named(gap_ax, f"delta = {delta:g}")
        assert list(line.get_ydata()) == [delta, delta]
        assert gap_ax.get_ylim()[0] < delta < gap_ax.get_ylim()[1]
        assert not _has_line(gap_ax, "tol")
        # the run stopped within delta
        assert clf.history_[-1].gap <= delta + 1e-9


def test_distribution_of_a_model_whose_nu_cross_validation_chose(data):
    X, y = data
    clf = _fit(LPBoostClassifier(nu="auto", oracle="stumps"), (X, y))
    ax = plot_distribution(clf)  # nu="auto" is no number: the cap is the chosen nu_'s
    cap = 1.0 / (clf.nu_ * y.size)
    assert _line(ax, "cap").get_ydata() == pytest.approx([cap, cap])
