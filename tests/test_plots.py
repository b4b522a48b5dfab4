"""lpboosting.plots: the figures' data (not pixels) against the fitted models and histories."""

from __future__ import annotations

import os
import subprocess
import sys
import copy
import warnings
from pathlib import Path

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
from lpboosting.plots import (
    plot_distribution,
    plot_duality,
    plot_margins,
    plot_summary,
    plot_timing,
)

ROOT = Path(__file__).resolve().parents[1]


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
def test_duality_lpboost_lines_and_gap(lpboost):
    lpboost = copy.deepcopy(lpboost)
    history = lpboost.history_
    # a converged LPBoost ends with gap <= tol, often <= 0 by round-off: make the last one 0
    history.records[-1].gap = min(history.records[-1].gap, 0.0)
    ax = plot_duality(lpboost)
    fig = ax.figure
    rounds = [r.round for r in history]
    primal, dual = _line(ax, "primal"), _line(ax, "dual")
    np.testing.assert_array_equal(primal.get_xdata(), rounds)
    np.testing.assert_array_equal(primal.get_ydata(), [r.primal for r in history])
    np.testing.assert_array_equal(dual.get_ydata(), [r.dual for r in history])
    edge = _line(ax, "best edge")
    np.testing.assert_array_equal(edge.get_ydata(), [r.edge for r in history])
    # an upper bound: never below the restricted master's value
    assert np.all(edge.get_ydata() >= dual.get_ydata() - 1e-9)
    # the gap on a twin log axis, only its positive values
    assert len(fig.axes) == 2
    twin = fig.axes[1]
    assert twin.get_yscale() == "log"
    gap = _line(twin, "gap (log)")
    positive = _positive_gaps(history)
    assert positive
    np.testing.assert_array_equal(gap.get_xdata(), [k for k, _ in positive])
    np.testing.assert_array_equal(gap.get_ydata(), [g for _, g in positive])
    dropped = sum(r.gap is not None and r.gap <= 0 for r in history)
    assert dropped >= 1
    assert f"{dropped} round(s) with gap <= 0" in gap.get_label()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "primal" in legend and "dual" in legend and gap.get_label() in legend


def test_duality_entropy_master_uses_gamma_star(softboost):
    history = softboost.history_
    ax = plot_duality(softboost)
    # SoftBoost's stopping round records NaN primal/dual: kept as holes
    assert np.isnan(history[-1].primal)
    np.testing.assert_array_equal(_line(ax, "primal").get_ydata(), _floats(r.primal for r in history))
    np.testing.assert_array_equal(_line(ax, "dual").get_ydata(), _floats(r.dual for r in history))
    gamma_star = _line(ax, "gamma*_t").get_ydata()
    edge = _line(ax, "best edge").get_ydata()
    np.testing.assert_array_equal(gamma_star, [r.extra["gamma_star"] for r in history])
    np.testing.assert_allclose(edge - gamma_star, [r.gap for r in history], atol=1e-12)
    gap = _line(ax.figure, "gap (log)")
    np.testing.assert_array_equal(gap.get_ydata(), [g for _, g in _positive_gaps(history)])


def test_duality_inexact_oracle_has_no_gap(trees):
    assert all(r.gap is None for r in trees.history_)
    ax = plot_duality(trees)
    assert len(ax.figure.axes) == 1  # no twin gap axis
    assert "inexact oracle: no gap" in ax.get_title()
    assert not _has_line(ax, "gap") and not _has_line(ax, "best edge")
    np.testing.assert_array_equal(_line(ax, "primal").get_ydata(), [r.primal for r in trees.history_])


def test_duality_rmboost_has_no_edge_bound(rmboost):
    history = rmboost.history_
    ax = plot_duality(rmboost)
    assert not _has_line(ax.figure, "best edge")  # edge is compared with lam, not an objective
    gap = _line(ax.figure, "gap (log)")
    np.testing.assert_array_equal(gap.get_ydata(), [g for _, g in _positive_gaps(history)])


def test_draws_into_the_given_axes(lpboost):
    _, axes = plt.subplots(1, 2)
    assert plot_duality(lpboost, ax=axes[1]) is axes[1]
    assert _has_line(axes[1], "primal") and not axes[0].get_lines()
    assert plot_timing(lpboost, ax=axes[0]) is axes[0]
    assert len(plt.get_fignums()) == 1


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
        np.testing.assert_array_equal(_line(ax.figure, "gap (log)").get_ydata(),
                                      [g for _, g in _positive_gaps(clf.history_)])
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


def test_summary_of_a_history_and_without_data(lpboost, trees):
    fig = plot_summary(lpboost.history_)
    assert isinstance(fig, Figure) and len(fig.axes) == 5
    assert "pass the fitted classifier" in _texts(fig.axes[1]) and not fig.axes[1].get_lines()
    assert "margins" in _texts(fig.axes[2]) and not fig.axes[2].get_lines()
    fig = plot_summary(trees)  # inexact oracle: no twin; no X, y: no margins
    assert len(fig.axes) == 4
    assert _has_line(fig.axes[1], "d (sorted)")
    assert "margins" in _texts(fig.axes[2])
