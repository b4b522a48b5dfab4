"""``lpboosting reproduce``: the command that runs the papers' experiments.

The command line of the product launches this command by its module's name (it imports no
study): the experiments of the leveraging papers run by their own functions
(:mod:`lpboosting.leveraging.experiments`, :mod:`lpboosting.leveraging.reproduce`), those of
:mod:`lpboosting.experiments` cache every run and print their tables beside the paper's numbers.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import click

from lpboosting.console import terminal_console
from lpboosting.experiments import get_experiment
from lpboosting.experiments.page import write_markdown

__all__ = ["LEVERAGING_EXPERIMENTS", "PAPER_EXPERIMENTS", "command", "reproduce"]

#: ``lpboosting reproduce``: the experiments of the leveraging papers (run by their own functions)
#: and those of lpboosting.experiments (cached runs, tables beside the paper's numbers)
LEVERAGING_EXPERIMENTS = ("long-servedio", "krause-singer")
PAPER_EXPERIMENTS = ("softboost-synthetic", "softboost-benchmarks", "rmboost-noise")


def _split_list(text: str | None) -> list[str] | None:
    return None if text is None else [item.strip() for item in text.split(",") if item.strip()]


def _reproduce_progress(console: Any, name: str) -> tuple[Any, Any]:
    """A progress callback (a bar on a terminal, a flushed line every few seconds otherwise)."""
    start = time.perf_counter()
    if console.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(TextColumn(f"[bold]{name}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), TextColumn("{task.fields[label]}"), console=console,
                       transient=True)
        task = bar.add_task(name, total=None, label="")

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, label=label)

        return bar, update
    last = [-math.inf]

    def report(done: int, total: int, label: str) -> None:
        now = time.perf_counter()
        if done == total or now - last[0] >= 5.0:
            last[0] = now
            console.print(f"[{done}/{total}] {now - start:7.0f} s  {label}", markup=False)

    return None, report


@click.command()
@click.argument("experiment", type=click.Choice([*LEVERAGING_EXPERIMENTS, *PAPER_EXPERIMENTS]))
@click.option("--figure", help="also save the figure to this path (PNG, PDF, ...); the paper "
              "experiments also draw it into the cache directory")
@click.option("--repeats", type=int, default=10, show_default=True, help="krause-singer: draws per cell")
@click.option("--rounds", type=int, help="krause-singer: boosting rounds (5000); rmboost-noise: "
              "RMBoost's and LPBoost's rounds (200)")
@click.option("--splits", type=int, help="softboost-*, rmboost-noise: splits or data draws (default: "
              "the experiment's, see docs/reproductions.md)")
@click.option("--jobs", type=int, default=1, show_default=True, help="parallel worker processes (joblib)")
@click.option("--cache", "cache_dir", default="reproductions-cache", show_default=True,
              type=click.Path(file_okay=False), help="directory of the cached runs and summaries")
@click.option("--from-cache", is_flag=True, help="fit nothing: the tables and figure of the last run "
              "cached in --cache")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False),
              help="write the table beside the paper's numbers as markdown: a new file, or the block "
                   "between '<!-- begin NAME -->' and '<!-- end NAME -->' of an existing page")
@click.option("--sets", help="softboost-benchmarks, rmboost-noise: comma-separated KEEL sets")
@click.option("--base", type=click.Choice(["trees", "stumps"]),
              help="softboost-benchmarks: base learner (default trees, at most 10 leaves)")
@click.option("--nus", help="softboost-*: comma-separated grid of nu/N")
@click.option("--conditions", help="rmboost-noise: comma-separated noise conditions (clean, "
              "uniform-10, uniform-20, adversarial-10, adversarial-20)")
@click.option("--n-train", "n_train", type=int,
              help="softboost-synthetic: training rows (500; the set has four times as many rows)")
def reproduce(experiment: str, figure: str | None, repeats: int, rounds: int | None,
              splits: int | None, jobs: int, cache_dir: str, from_cache: bool,
              markdown_path: str | None, sets: str | None, base: str | None, nus: str | None,
              conditions: str | None, n_train: int | None) -> int:
    """Paper experiments: long-servedio (MODABOOST, Sec. 6 of "What killed the convex booster?"),
    krause-singer (LLM/LLD), softboost-synthetic (Figures 2 and 3 of "Boosting algorithms for
    maximizing the soft margin"), softboost-benchmarks (its Table 1), rmboost-noise (Tables 1 and 3
    of "Robust minimax boosting").  The last three cache every run in --cache: an interrupted run
    goes on where it stopped, and --from-cache redraws the tables without fitting."""
    given = {"--splits": splits, "--from-cache": from_cache or None, "--markdown": markdown_path,
             "--sets": sets, "--base": base, "--nus": nus, "--conditions": conditions,
             "--n-train": n_train}
    if experiment in LEVERAGING_EXPERIMENTS:
        extra = [name for name, value in given.items() if value is not None]
        if extra:
            raise click.UsageError(f"{', '.join(extra)} apply to {', '.join(PAPER_EXPERIMENTS)}, "
                                   f"not to {experiment}")
        if experiment == "long-servedio":
            from lpboosting.leveraging.experiments import reproduce_long_servedio

            reproduce_long_servedio(figure=figure)
        else:
            from lpboosting.leveraging.reproduce import reproduce_krause_singer

            reproduce_krause_singer(n_repeats=repeats, n_rounds=5000 if rounds is None else rounds,
                                    figure=figure)
        return 0
    applies = {"--sets": ("softboost-benchmarks", "rmboost-noise"), "--base": ("softboost-benchmarks",),
               "--nus": ("softboost-synthetic", "softboost-benchmarks"),
               "--conditions": ("rmboost-noise",), "--n-train": ("softboost-synthetic",),
               "--rounds": ("rmboost-noise",)}
    given["--rounds"] = rounds
    wrong = [name for name, where in applies.items() if given[name] is not None and experiment not in where]
    if wrong:
        raise click.UsageError("; ".join(f"{name} applies to {', '.join(applies[name])}" for name in wrong))
    if from_cache and any(given[name] is not None for name in (*applies, "--splits")):
        raise click.UsageError("--from-cache shows the last cached run as it was: give no run options")
    if jobs < 1:
        raise click.UsageError(f"--jobs must be >= 1, got {jobs}")
    options: dict[str, Any] = {}
    if sets is not None:
        options["sets"] = _split_list(sets)
    if base is not None:
        options["base"] = base
    if conditions is not None:
        options["conditions"] = _split_list(conditions)
    if n_train is not None:
        options["n_train"] = n_train
    if rounds is not None:
        options["rounds"] = rounds
    if nus is not None:
        try:
            options["nus"] = [float(v) for v in _split_list(nus) or []]
        except ValueError:
            raise click.BadParameter(f"{nus!r} is not a comma-separated list of numbers (e.g. 0.1,0.3)",
                                     param_hint="--nus") from None
    exp = get_experiment(experiment)
    console = terminal_console()
    try:
        import matplotlib  # noqa: F401

        drawable = True
    except ImportError:
        drawable = False
    if figure is not None and not drawable:
        raise click.UsageError('--figure draws with matplotlib, which is not installed; run '
                               '`pip install "lpboosting[plot]"` (or `pip install matplotlib`)')
    bar, progress = (None, None) if from_cache else _reproduce_progress(console, experiment)
    start = time.perf_counter()
    if bar is not None:
        bar.start()
    try:
        summary = exp.run(splits=splits, jobs=jobs, cache=cache_dir, progress=progress,
                          from_cache=from_cache, **options)
    finally:
        if bar is not None:
            bar.stop()
    seconds = time.perf_counter() - start
    console.print(exp.format_table(summary), markup=False)
    console.print()
    if from_cache:
        console.print(f"from the cache {cache_dir} (run of {summary['created']}, {summary['units']} units, "
                      f"{summary['unit_seconds']:.0f} s of fitting)", markup=False)
    else:
        console.print(f"{summary['units']} units, {summary['units_computed']} computed, "
                      f"{summary['units'] - summary['units_computed']} from the cache {cache_dir}; "
                      f"{seconds:.0f} s with --jobs {jobs}", markup=False)
    paths = [figure] if figure is not None else []
    if drawable:
        paths.append(str(Path(cache_dir) / experiment / "figure.png"))
    for path in paths:
        exp.draw(summary, path)
        console.print(f"wrote {path}", markup=False)
    if markdown_path:
        what = write_markdown(markdown_path, experiment, exp.markdown(summary))
        console.print(f"wrote {'the table block of ' if what == 'block' else ''}{markdown_path}", markup=False)
    return 0


#: what ``lpboosting reproduce`` runs (the product's command line looks this name up)
command = reproduce
