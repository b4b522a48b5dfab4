"""Reproduce the synthetic experiment of Krause & Singer (ICML 2004), Sec. 6 / Figure 4.

Example::

    from lpboosting.leveraging.reproduce import reproduce_krause_singer
    result = reproduce_krause_singer(n_repeats=10, figure="krause_singer.png")
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Sequence

import numpy as np

from lpboosting.datasets.krause_singer import krause_singer_synthetic
from lpboosting.leveraging.lld import LLDClassifier
from lpboosting.leveraging.llm import LLMClassifier, LogLossBoostClassifier

__all__ = ["METHODS", "reproduce_krause_singer", "make_method"]

#: the three methods of Figure 4
METHODS = ("boosting", "LLM", "LLD")


def make_method(name: str, p: float, n_rounds: int, mode: str = "parallel"):
    """The estimator of Sec. 6 for noise level p.

    "boosting": log-loss parallel boosting of Collins, Schapire & Singer
    (:class:`LogLossBoostClassifier`, i.e. Figure 1 with eps = 0);
    "LLM": :class:`LLMClassifier` with eps = p; "LLD": :class:`LLDClassifier`
    with mu = ln((1 - p) / p).  All use the scaled coordinates
    (``oracle="features"``) and the same number of rounds.
    """
    if name == "boosting":
        return LogLossBoostClassifier(mode=mode, max_rounds=n_rounds)
    if name == "LLM":
        return LLMClassifier(epsilon=p, mode=mode, max_rounds=n_rounds)
    if name == "LLD":
        return LLDClassifier(mu=float(np.log((1.0 - p) / p)), mode=mode, max_rounds=n_rounds)
    raise ValueError(f"unknown method {name!r}; choose from {list(METHODS)}")


def _format_table(mean: np.ndarray, std: np.ndarray, methods, p_values, experiments, n_repeats: int) -> str:
    lines = [
        "Krause & Singer (ICML 2004), Sec. 6: clean test error (%), mean (std) over "
        f"{n_repeats} draws",
        "experiment i contaminates the i-1 largest-margin quarters with Bernoulli(p) label noise",
    ]
    head = f"{'p':>5} {'method':<10}" + "".join(f"{'exp ' + str(i):>14}" for i in experiments)
    for pi, p in enumerate(p_values):
        lines.append("")
        lines.append(head)
        for mi, m in enumerate(methods):
            cells = "".join(f"{100 * mean[mi, pi, e]:>7.2f} ({100 * std[mi, pi, e]:4.2f})"
                            for e in range(mean.shape[2]))
            lines.append(f"{p:>5.2f} {m:<10}" + cells)
    return "\n".join(lines)


def _save_figure(path: str, mean: np.ndarray, std: np.ndarray, methods, p_values, experiments) -> None:
    # lazy, and without pyplot: no global backend is touched
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(p_values)
    fig = Figure(figsize=(3.2 * n, 3.0))
    FigureCanvasAgg(fig)
    experiments = np.asarray(experiments)
    for pi, p in enumerate(p_values):
        ax = fig.add_subplot(1, n, pi + 1)
        for mi, m in enumerate(methods):
            ax.errorbar(experiments, 100 * mean[mi, pi], yerr=100 * std[mi, pi], marker="o",
                        capsize=2, label=m)
        ax.set_title(f"p = {p:g}")
        ax.set_xlabel("experiment i (i-1 quarters noisy)")
        ax.set_xticks(experiments)
        if pi == 0:
            ax.set_ylabel("clean test error (%)")
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def reproduce_krause_singer(
    p_values: Sequence[float] = (0.1, 0.2, 0.3, 0.4),
    n_repeats: int = 10,
    n_rounds: int = 5000,
    methods: Sequence[str] = METHODS,
    experiments: Sequence[int] = (1, 2, 3, 4, 5),
    mode: str = "parallel",
    n_train: int = 1000,
    n_test: int = 1000,
    n_features: int = 40,
    random_state: int = 0,
    figure: str | None = None,
    verbose: bool = True,
    print_fn: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """Run the Sec. 6 experiment and print the table method x noise -> clean test error.

    For every p in ``p_values`` and every experiment i (the i-1 quarters of
    largest margin contaminated with Bernoulli(p) label noise, see
    :func:`lpboosting.datasets.krause_singer.krause_singer_synthetic`), draw
    ``n_repeats`` training/test sets (1000 + 1000 points in R^40, as the
    paper) and fit log-loss boosting, LLM (eps = p) and LLD
    (mu = ln((1-p)/p)) for ``n_rounds`` rounds each; report the error on the
    noise-free test set.  The paper states neither its values of p (four of
    them, Figure 4) nor its number of rounds: the defaults here are
    p in {0.1, 0.2, 0.3, 0.4} and 5000 parallel rounds (enough for the
    log-loss baseline to settle on these data).  All methods see the same
    draws.  The full default run is 600 fits of 5000 rounds (a long run on
    one core); lower ``n_repeats`` / ``n_rounds`` for a quick look.

    Returns a dict with ``p_values``, ``experiments``, ``methods``,
    ``errors`` (array method x p x experiment x repeat), ``mean``, ``std``
    and ``table`` (the printed text).  With ``figure`` a path, a Figure-4
    style plot (one panel per p) is saved there with matplotlib's Agg canvas.
    """
    p_values = [float(p) for p in p_values]
    for p in p_values:
        if not (0.0 < p < 0.5):
            raise ValueError(f"every p must lie in (0, 1/2) (LLM uses eps = p), got {p!r}")
    for name in methods:
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; choose from {list(METHODS)}")
    for e in experiments:
        if isinstance(e, (bool, np.bool_)) or not isinstance(e, numbers.Integral) or not 1 <= e <= 5:
            raise ValueError(f"experiments are numbered 1..5 (i-1 quarters contaminated), got {e!r}")
    if isinstance(n_repeats, (bool, np.bool_)) or not isinstance(n_repeats, numbers.Integral) or n_repeats < 1:
        raise ValueError(f"n_repeats must be an integer >= 1, got {n_repeats!r}")
    methods = list(methods)
    experiments = [int(e) for e in experiments]
    errors = np.empty((len(methods), len(p_values), len(experiments), n_repeats))
    for pi, p in enumerate(p_values):
        for ei, e in enumerate(experiments):
            for r in range(n_repeats):
                seed = np.random.SeedSequence([int(random_state), pi, e, r])
                Xtr, ytr, Xte, yte = krause_singer_synthetic(
                    p, e - 1, n_train=n_train, n_test=n_test, n_features=n_features,
                    random_state=np.random.default_rng(seed),
                )
                for mi, m in enumerate(methods):
                    est = make_method(m, p, n_rounds, mode).fit(Xtr, ytr)
                    errors[mi, pi, ei, r] = float(np.mean(est.predict(Xte) != yte))
    mean = errors.mean(axis=3)
    std = errors.std(axis=3)
    table = _format_table(mean, std, methods, p_values, experiments, n_repeats)
    if verbose:
        print_fn(table)
    if figure is not None:
        _save_figure(figure, mean, std, methods, p_values, experiments)
    return {
        "p_values": p_values, "experiments": experiments, "methods": methods,
        "errors": errors, "mean": mean, "std": std, "table": table,
    }
