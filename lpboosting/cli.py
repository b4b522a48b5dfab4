"""The ``lpboosting`` command line (click for the commands, rich for tables and progress).

Subcommands: ``demo`` (LPBoost on the bundled breast-cancer data, with the
per-round ledger), ``fit`` (any algorithm of the library on a named data set
or a CSV, live ledger, saves the model and its history), ``compare``
(backends side by side on a data set or a ``models/`` instance), ``export``
(regenerate the ``models/`` catalog, or ``--model`` write a fitted model's last
master as an MPS/LP file), ``solve-file`` (an MPS/LP file solved by several
solvers), ``plot`` (figures from a saved model or
history), ``backends`` (what is installed and what it solves), ``bench`` and
``reproduce`` (benchmarks and paper experiments).  ``fit --save FILE`` writes a pickle, or for
FILE.json the JSON model format (:mod:`lpboosting.model_io`, with a ``data_split`` entry); either
records the data set and the test rows (``data_split_``), so that ``plot`` draws the training
and the test margins apart.  ``fit`` fits data of more than two classes by one LP (LPBoost) or
one-vs-rest (the other algorithms, ``-p multiclass=one-vs-rest``; ``plot
--class`` draws one class's model); ``--positive`` names one class (its label, or its name where
the set names its classes) to fit against the rest.

:func:`main` returns the exit code: 0 on success, 2 for a usage error or bad
input (the message says what was wrong and what to do), 130 when interrupted.
"""

from __future__ import annotations

import json
import math
import pickle
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import click

from lpboosting.console import terminal_console
from lpboosting.errors import LPBoostingError
from lpboosting.masters.registry import MASTERS

#: ``lpboosting fit ALGORITHM``: the leveraging boosters' classes by name (imported when used);
#: the other algorithms are the masters of the registry as it is when the command runs
#: (:func:`algorithms`), so that a master registered at run time can be fitted too
LEVERAGING_ALGORITHMS: dict[str, tuple[str, str]] = {
    "llm": ("lpboosting.leveraging", "LLMClassifier"),
    "lld": ("lpboosting.leveraging", "LLDClassifier"),
    "logloss": ("lpboosting.leveraging", "LogLossBoostClassifier"),
    "bounded-loss": ("lpboosting.leveraging", "BoundedLossClassifier"),
    "modaboost": ("lpboosting.leveraging", "ModaBoostClassifier"),
}

#: ``lpboosting compare``'s backends when none is named: those of these that solve the master,
#: the master's default first
COMPARED_BACKENDS = ("highspy", "dedicated", "cvxpy:HIGHS", "cvxpy:CLARABEL", "cvxpy:ECOS")


_console = terminal_console


def _parse_value(text: str) -> Any:
    """A ``NAME=VALUE`` value: none/null, true/false, an integer, a number, JSON for a dict or a
    list (``{"max_depth": 2}``, ``[1, 2]``), else the text; a ValueError for invalid JSON."""
    stripped = text.strip()
    lowered = stripped.lower()
    if lowered in ("none", "null"):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{stripped!r} is not valid JSON ({exc.msg} at column {exc.colno}); write a dict as JSON "
                """with double-quoted keys, e.g. '{"max_depth": 2}', and a list as e.g. [1, 2]"""
            ) from None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _parse_params(items: Sequence[str], flag: str = "-p", example: str = "nu=0.2") -> dict[str, Any]:
    """``NAME=VALUE`` items (of the option ``flag``) as a dict of parsed values (:func:`_parse_value`)."""
    hint = "'-p' / '--param'" if flag == "-p" else f"'{flag}'"
    params = {}
    for item in items:
        if "=" not in item:
            raise click.BadParameter(f"{item!r} is not NAME=VALUE (e.g. {flag} {example})", param_hint=hint)
        key, value = item.split("=", 1)
        try:
            params[key.strip()] = _parse_value(value)
        except ValueError as exc:
            raise click.BadParameter(f"{flag} {key.strip()}: {exc}", param_hint=hint) from None
    return params


def _cli_text(value: Any) -> str:
    """A value as written after ``-p NAME=`` (JSON in single quotes for a dict or a list)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (dict, list)):
        return f"'{json.dumps(value)}'"
    return str(value)


def _how_to_write(est: Any, name: str, value: Any) -> str:
    """How to write parameter ``name`` on the command line, from its constraints: a valid example."""
    from sklearn.utils._param_validation import _InstancesOf, make_constraint

    allowed = type(est)._parameter_constraints[name]
    if allowed == "no_validation":
        return ""
    shown = [c for c in map(make_constraint, allowed) if not c.hidden]
    types = {c.type for c in shown if isinstance(c, _InstancesOf)}
    if dict in types:
        example: dict[str, Any] = {"NAME": "VALUE"}
        if isinstance(value, str) and "=" in value:  # max_depth=2,min_samples_leaf=5 as meant
            pairs = [part.split("=", 1) for part in value.split(",") if part.strip()]
            if all(len(pair) == 2 for pair in pairs):
                try:
                    example = {k.strip(): _parse_value(v) for k, v in pairs}
                except ValueError:
                    pass
        return f"a dict is written as JSON: -p {name}={_cli_text(example)}"
    if list in types:
        return f"a list is written as JSON: -p {name}='[1, 2]'"
    default = type(est)().get_params(deep=False).get(name)
    options = [o for c in shown for o in sorted(getattr(c, "options", ()), key=str)]
    for candidate in [default, *options, 1, 0.5, 0.1, 10, 100, 0, True]:
        if candidate is None or not isinstance(candidate, (bool, int, float, str)):
            continue
        if any(c.is_satisfied_by(candidate) for c in shown):
            return f"write it like -p {name}={_cli_text(candidate)}"
    none = f" (here only -p {name}=none)" if any(c.is_satisfied_by(None) for c in shown) else ""
    return f"{name} takes a Python object: set it in Python{none}"


def _check_given_params(est: Any, params: dict[str, Any]) -> None:
    """The ``-p`` values against the estimator's ``_parameter_constraints`` before any work: a usage
    error naming the parameter, what it must be and how to write it."""
    from lpboosting.params import InvalidParameterError, check_params

    constraints = getattr(type(est), "_parameter_constraints", None)
    if not constraints or not params:
        return
    try:
        check_params(est)
    except InvalidParameterError as exc:
        from sklearn.utils._param_validation import validate_parameter_constraints

        message = str(exc)
        for name in (n for n in constraints if n in params):  # check_params's order: its first failure
            try:
                validate_parameter_constraints({name: constraints[name]}, {name: params[name]},
                                               caller_name=type(est).__name__)
            except InvalidParameterError:
                how = _how_to_write(est, name, params[name])
                raise click.BadParameter(f"{message}; {how}" if how else message,
                                         param_hint="'-p' / '--param'") from None
        raise click.UsageError(message) from None


def _test_fraction(ctx: Any, param: Any, value: float) -> float:
    """``--test-size``: a fraction in [0, 1), else a usage error saying what to give."""
    if not 0 <= value < 1:
        raise click.BadParameter(f"{value} is not in the range 0<=x<1: give the held-out fraction "
                                 "(e.g. 0.25), or 0 to fit on every row")
    return value


def _solver_backend(algorithm: str, est: Any, options: dict[str, Any], log: str | None) -> Any:
    """The estimator's backend (its own or its master's default) built with solver options."""
    from sklearn.base import clone

    from lpboosting.backends import get_backend

    if "backend" not in est.get_params():
        raise click.UsageError(f"{algorithm} has no master solver: --solver-option and --solver-log "
                               f"apply to {', '.join(MASTERS)}")
    name = est.get_params()["backend"]
    if name is None:  # the master's default (nu="auto" has a nu of each kind: any one says it)
        probe = est if getattr(est, "nu", None) != "auto" else clone(est).set_params(nu=0.5)
        name = probe._make_master(2).default_backend
    if not isinstance(name, str):
        raise click.UsageError("-p backend=... names the backend when solver options are given")
    if log:
        if not name.startswith("highspy"):
            raise click.UsageError(f"--solver-log writes HiGHS's log; the backend is {name} "
                                   "(for cvxpy's solvers use -o verbose=true)")
        options = {"output_flag": True, "log_to_console": False, "log_file": log, **options}
    try:
        return get_backend(name, **options)
    except (TypeError, ValueError) as exc:
        raise click.UsageError(f"solver options {options}: {exc}") from None


def _compared_backends(master: Any) -> list[str]:
    """The master's default backend (RMBoost's ``highspy:ipm``), then those of
    :data:`COMPARED_BACKENDS` that solve ``master`` (by the session table)."""
    from lpboosting.backends import get_backend

    names = [master.default_backend] + [b for b in COMPARED_BACKENDS if b != master.default_backend]
    return [b for b in names if get_backend(b).solves(master)]


def algorithms() -> list[str]:
    """What ``lpboosting fit`` fits: every master of the registry (now) and the leveraging boosters."""
    return sorted([*MASTERS, *LEVERAGING_ALGORITHMS])


def classifier_class(algorithm: str) -> type:
    """The classifier class of ``algorithm`` (a name of :func:`algorithms`), its module imported now:
    a master's ``MasterSpec.estimator`` (a name in :mod:`lpboosting.estimators`, a
    ``"module:attribute"`` name or the class), or a leveraging booster."""
    import importlib

    spec = MASTERS.get(algorithm)
    if spec is None:
        module, name = LEVERAGING_ALGORITHMS[algorithm]
    elif isinstance(spec.estimator, str):
        module, _, name = spec.estimator.rpartition(":")
        module = module or "lpboosting.estimators"
    else:
        return spec.estimator
    return getattr(importlib.import_module(module), name)


class RegistryChoice(click.Choice):
    """A choice among the names a registry holds when the command runs, not when this module was
    imported: a master registered at run time (``MASTERS``) is offered too."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self.names = names
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return tuple(self.names())

    @choices.setter
    def choices(self, value: Any) -> None:  # click.Choice's __init__ assigns them; the registry answers
        pass


def _classifier_default(master_name: str, param: str) -> Any:
    """The default of ``param`` (max_rounds, tol) of the master's classifier: a comparison runs the
    master as a fit of its classifier would (RMBoost's 200 rounds, the others' 1000)."""
    import inspect

    return inspect.signature(classifier_class(master_name)).parameters[param].default


def _estimator(algorithm: str, params: dict[str, Any]) -> Any:
    cls = classifier_class(algorithm)
    name = cls.__name__
    est = cls()
    accepted = est.get_params()
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise click.UsageError(
            f"{name} has no parameter {', '.join(unknown)}; its parameters are "
            f"{', '.join(sorted(accepted))}")
    return est.set_params(**params)


def _split(dataset: Any, test_size: float, seed: int) -> tuple[Any, Any, Any, Any, Any]:
    """X_train, X_test, y_train, y_test and the test rows' indices (None: the set's own split, or none)."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    if dataset.has_test:
        return dataset.X, dataset.X_test, dataset.y, dataset.y_test, None
    if test_size <= 0:
        return dataset.X, None, dataset.y, None, None
    rows = np.arange(dataset.X.shape[0])
    X_train, X_test, y_train, y_test, _, test_rows = train_test_split(
        dataset.X, dataset.y, rows, test_size=test_size, random_state=seed, stratify=dataset.y)
    return X_train, X_test, y_train, y_test, test_rows


def _data_key(data: str) -> str:
    """A data set's name, or a CSV's resolved path (the same file however it is written)."""
    path = Path(data)
    return str(path.resolve()) if path.is_file() else data


def _recorded_split(split: Any, data: str, target: str | None, positive: str | None,
                    dataset: Any) -> Any:
    """What ``fit --save`` recorded of a model's data (its ``data_split_``), if it is this data set."""
    if not isinstance(split, dict):
        return None
    same = (split.get("data") == _data_key(data) and split.get("target") == target
            and split.get("positive") == positive and split.get("n_samples") == dataset.X.shape[0])
    return split if same else None


# -- commands ---------------------------------------------------------------------------------

class StudyCommand(click.Command):
    """A command of the studies (``lpboosting/experiments``, ``lpboosting/benchmark``) under the
    product's command line: listed with its one-line help, its module imported by name only when
    the command runs or shows its own help, so that the product imports no study.

    ``module`` names a module whose attribute ``command`` is the click command.
    """

    def __init__(self, name: str, module: str, short_help: str) -> None:
        super().__init__(name, short_help=short_help, add_help_option=False)
        self.module = module

    def load(self) -> click.Command:
        """The study's click command (importing its module)."""
        import importlib

        return importlib.import_module(self.module).command

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        # the study's command parses the arguments and runs (the group invokes ctx.command)
        return self.load().make_context(info_name, args, parent=parent, **extra)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="lpboosting", prog_name="lpboosting")
def cli() -> None:
    """LP/QP boosting by column generation: verified masters, exact pricing, solver comparisons."""


@cli.command()
@click.option("--nu", type=float, default=0.1, show_default=True, help="soft-margin fraction in (0, 1]")
@click.option("--oracle", default="stumps", show_default=True, help="stumps, features or trees")
@click.option("--backend", default="highspy", show_default=True, help="highspy or cvxpy:SOLVER")
@click.option("--tol", type=float, default=1e-6, show_default=True)
@click.option("--max-rounds", type=int, default=1000, show_default=True)
@click.option("--test-size", type=float, default=0.3, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
def demo(nu: float, oracle: str, backend: str, tol: float, max_rounds: int, test_size: float,
         seed: int) -> int:
    """LPBoost with exact stumps on scikit-learn's bundled breast-cancer data, round by round."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    from lpboosting.colgen import History
    from lpboosting.datasets import breast_cancer
    from lpboosting.estimators import LPBoostClassifier

    console = _console()
    X, y = breast_cancer()
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, random_state=seed, stratify=y)
    console.print(
        f"LPBoost on breast cancer (scikit-learn's bundled copy): {X_train.shape[0]} train / "
        f"{X_test.shape[0]} test rows, {X.shape[1]} features; nu={nu}, oracle={oracle}, "
        f"backend={backend}", markup=False)
    console.print(History.LEDGER_HEADER, markup=False)
    clf = LPBoostClassifier(
        nu=nu, oracle=oracle, backend=backend, tol=tol, max_rounds=max_rounds,
        callback=lambda record: console.print(History.format_record(record), markup=False),
    ).fit(X_train, y_train)
    n_used = int(np.count_nonzero(clf.weights_ > 1e-12))
    console.print()
    console.print(f"status            {clf.status_} after {clf.n_rounds_} rounds "
                  f"({clf.history_.meta['seconds']:.3f} s)", markup=False)
    console.print(f"soft margin       {clf.objective_:.9f}  (rho - 1/(nu N) sum psi)", markup=False)
    console.print(f"final gap         {_gap_text(clf.history_)}", markup=False)
    console.print(f"hypotheses used   {n_used} of {len(clf.hypotheses_)}")
    console.print(f"train accuracy    {clf.score(X_train, y_train):.4f}")
    console.print(f"test accuracy     {clf.score(X_test, y_test):.4f}")
    return 0


@cli.command()
@click.argument("algorithm", type=RegistryChoice(algorithms))
@click.option("--data", "data", default="breast-cancer", show_default=True,
              help="softboost-synthetic, breast-cancer, sklearn:NAME, a KEEL name, or a CSV path")
@click.option("--target", help="CSV: the label column (default: the last)")
@click.option("--positive", help="the positive class for a one-vs-rest task on multi-class data")
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="estimator parameter, repeatable (e.g. -p nu=0.2 -p oracle=trees); a dict or a list "
                   """as JSON (e.g. -p oracle_params='{"max_depth": 2}')""")
@click.option("--test-size", type=float, default=0.25, show_default=True, callback=_test_fraction,
              help="held-out fraction in [0, 1) (sets with a fixed split use theirs); 0 = none")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the split")
@click.option("--save", "save", type=click.Path(dir_okay=False),
              help="save the fitted model here: FILE.json in the JSON model format (lpboosting.load_model "
                   "reads it), any other name as a pickle")
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="write the per-round history here (JSON)")
@click.option("--quiet", is_flag=True, help="no per-round ledger")
@click.option("-o", "--solver-option", "solver_options", multiple=True, metavar="NAME=VALUE",
              help="option of the master's solver, repeatable: a HiGHS option for highspy (e.g. "
                   "-o simplex_strategy=4), a keyword of cvxpy's solve for cvxpy:SOLVER (e.g. -o verbose=true)")
@click.option("--solver-log", "solver_log", type=click.Path(dir_okay=False),
              help="HiGHS: write the solver's log to this file (log_file, output_flag on)")
def fit(algorithm: str, data: str, target: str | None, positive: str | None, params: tuple[str, ...],
        test_size: float, seed: int, save: str | None, history_path: str | None, quiet: bool,
        solver_options: tuple[str, ...], solver_log: str | None) -> int:
    """Fit ALGORITHM on a data set, with a live per-round ledger; save the model and history."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from lpboosting.colgen import History
    from lpboosting.datasets import load_dataset

    console = _console()
    given = _parse_params(params)
    est = _estimator(algorithm, given)
    _check_given_params(est, given)
    if save and _is_json(save):
        _check_json_savable(algorithm, est, save)
    if solver_options or solver_log:
        est.set_params(backend=_solver_backend(algorithm, est, _parse_params(
            solver_options, flag="-o", example="simplex_strategy=4"), solver_log))
    dataset = load_dataset(data, target=target, positive=positive, multiclass=True)
    X_train, X_test, y_train, y_test, test_rows = _split(dataset, test_size, seed)
    console.print(f"{type(est).__name__} on {dataset.description or dataset.name}: "
                  f"{X_train.shape[0]} train" + (f" / {X_test.shape[0]} test rows" if X_test is not None
                                                 else " rows (no test split)"), markup=False)
    import numpy as np

    classes = np.unique(y_train)
    # LPBoost fits more than two classes by one LP (multiclass="native"), the others one-vs-rest
    one_vs_rest = classes.size > 2 and est.get_params().get("multiclass", "one-vs-rest") != "native"
    if one_vs_rest:
        console.print(f"{classes.size} classes, fitted one-vs-rest (one binary model a class, in the "
                      f"order {', '.join(map(str, classes))}; --positive LABEL fits one class against "
                      "the rest)", markup=False)
    elif classes.size > 2:
        console.print(f"{classes.size} classes ({', '.join(map(str, classes))}), fitted by one LP over all "
                      "of them (the multiclass margin; -p multiclass=one-vs-rest fits one model a class)",
                      markup=False)
    has_callback = "callback" in est.get_params()
    # the number of rounds is not known in advance (max_rounds is a cap): a pulsing bar with the
    # round and the gap so far, filled at the round count reached when the run ends
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                        TextColumn("{task.fields[rounds]}"), TextColumn("{task.fields[gap]}"),
                        TimeElapsedColumn(), console=console, transient=True,
                        disable=not console.is_terminal)
    interrupted = False
    with progress:
        task = progress.add_task(algorithm, total=None, rounds="", gap="")
        if has_callback and est.get_params().get("callback") is None:
            if not quiet:
                progress.console.print(History.LEDGER_HEADER, markup=False)

            last_round = [math.inf]
            model = [-1]  # the one-vs-rest model the records are of: a new one starts its rounds again

            def show(record: Any, *rest: Any) -> None:
                if not hasattr(record, "round"):
                    progress.advance(task)
                    return
                if record.round <= last_round[0]:
                    model[0] += 1
                    if one_vs_rest and model[0] < classes.size and not quiet:
                        progress.console.print(f"-- class {classes[model[0]]} against the rest",
                                               markup=False)
                last_round[0] = record.round
                gap = getattr(record, "gap", None)
                progress.update(task, completed=record.round, rounds=f"round {record.round}",
                                gap="gap n/a" if gap is None else f"gap {gap:.2e}",
                                refresh=not quiet)  # drawn again under the ledger line
                if not quiet:
                    progress.console.print(History.format_record(record), markup=False)

            est.set_params(callback=show)
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                est.fit(X_train, y_train)
            except KeyboardInterrupt:  # estimators without their own interrupt handling
                interrupted = True
        seconds = time.perf_counter() - start
        progress.update(task, total=progress.tasks[0].completed)  # the last frame: a full bar
    for warning in caught:  # e.g. max_rounds reached: the model is kept, say so once, plainly
        console.print(f"warning: {warning.message}", markup=False)
    if interrupted:
        console.print("interrupted before a model was fitted; nothing saved")
        return 130
    if has_callback:  # a lambda does not pickle; the model does not need it (nor its classes' models)
        for model in [est, *(getattr(est, "one_vs_rest_", None) or [])]:
            model.set_params(callback=None)
    _summary(console, est, seconds, X_train, y_train, X_test, y_test)
    if save:
        # the data and the split, so that `plot` tells the training margins from the test ones
        est.data_split_ = {"data": _data_key(data), "target": target, "positive": positive,
                           "n_samples": dataset.X.shape[0], "fixed_split": dataset.has_test,
                           "test_rows": test_rows}
        if _is_json(save):
            try:
                _save_json_model(est, save)
            except click.UsageError:  # the format cannot hold this model: keep it as a pickle
                kept = Path(save).with_suffix(".pkl")
                with open(kept, "wb") as fh:
                    pickle.dump(est, fh)
                raise
            how = "lpboosting.load_model reads it"
        else:
            with open(save, "wb") as fh:
                pickle.dump(est, fh)
            how = "load it with pickle"
        console.print(f"saved the model to {save} ({how}; `lpboosting plot {save}`)", markup=False)
    if history_path:
        history = getattr(est, "history_", None)
        if isinstance(history, History):
            history.save(history_path)
        else:
            from lpboosting.jsonfile import write_json

            write_json(history_path, history)
        console.print(f"wrote the history to {history_path}", markup=False)
    return 0


def _is_json(path: str | Path) -> bool:
    """A model file named FILE.json is the JSON model format; any other name a pickle."""
    return Path(path).suffix.lower() == ".json"


def _check_json_savable(algorithm: str, est: Any, path: str) -> None:
    """Before fitting: a usage error when the JSON model format cannot hold ``est``."""
    from lpboosting.estimators.base import ColumnGenerationClassifier
    from lpboosting.leveraging.persist import is_booster

    if not isinstance(est, ColumnGenerationClassifier) and not is_booster(est):
        raise click.UsageError(
            f"--save {path}: the JSON model format (lpboosting.save_model) holds the column-generation "
            f"classifiers and the leveraging boosters, not {algorithm}; save it as a pickle, e.g. "
            f"--save {Path(path).with_suffix('.pkl')}")


def _save_json_model(est: Any, path: str) -> None:
    """``est`` in the JSON model format (:func:`lpboosting.model_io.model_to_dict`), with what
    ``fit --save`` records of its data (``data_split``, read back by :func:`_load_json_model`);
    a usage error naming the pickle ``fit`` keeps instead when the format cannot hold this fitted
    model."""
    from lpboosting.jsonfile import to_json_value
    from lpboosting.model_io import model_to_dict

    try:
        data = model_to_dict(est)
    except TypeError as exc:  # e.g. MODABOOST's k-NN with its training rows, a forest's trees
        raise click.UsageError(f"--save {path}: {exc}; the fitted model was saved as a pickle instead, "
                               f"{Path(path).with_suffix('.pkl')} (`lpboosting plot` reads it)") from None
    data["data_split"] = to_json_value(est.data_split_)
    Path(path).write_text(json.dumps(data, indent=1, allow_nan=False))


def _load_json_model(path: str | Path) -> Any:
    """A model in the JSON model format (:func:`lpboosting.model_io.load_model`), with the
    ``data_split_`` that ``fit --save`` recorded in it."""
    from lpboosting.model_io import model_from_dict

    try:
        data = json.loads(Path(path).read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.BadParameter(f"{path} is not a JSON model file ({exc}); {_PLOT_READS}",
                                 param_hint="SOURCE") from None
    model = model_from_dict(data)
    if isinstance(data, dict) and isinstance(data.get("data_split"), dict):
        model.data_split_ = data["data_split"]
    return model


def _gap_text(history: Any) -> str | None:
    """The last round's column-generation gap as the summary prints it: "n/a (inexact oracle)"
    when the oracle cannot certify one; None for a run of no LP master (LLM, LLD, bounded loss,
    MODABOOST have no gap at all)."""
    from lpboosting.colgen import History

    if not isinstance(history, History) or not len(history) or not history.meta.get("master"):
        return None
    gap = history[-1].gap
    if gap is not None and math.isfinite(gap):
        return f"{gap:.3e}"
    return "n/a (inexact oracle)" if history.meta.get("exact") is False else "n/a"


def _summary(console: Any, est: Any, seconds: float, X_train: Any, y_train: Any, X_test: Any,
             y_test: Any) -> None:
    from rich.table import Table

    table = Table(show_header=False, box=None)
    table.add_column(style="bold")
    table.add_column()
    status = getattr(est, "status_", None)
    rounds = getattr(est, "n_rounds_", None)
    if status is not None:
        table.add_row("status", f"{status}" + (f" after {rounds} rounds" if rounds is not None else ""))
    elif rounds is not None:
        table.add_row("rounds", str(rounds))
    table.add_row("seconds", f"{seconds:.3f}")
    models = getattr(est, "one_vs_rest_", None)
    if models is not None and len(est.classes_) > 2:  # one row per class of each value below
        models = list(zip(est.classes_, models))
    else:
        models = None
    for attr, label in (("objective_", "objective"), ("minimax_risk_", "minimax risk")):
        value = getattr(est, attr, None)
        if isinstance(value, float) and math.isfinite(value):
            table.add_row(label, f"{value:.9f}")
        elif models is not None and isinstance(getattr(models[0][1], attr, None), float):
            table.add_row(f"{label} by class", ", ".join(
                f"{c}: {getattr(m, attr):.9f}" for c, m in models))
    gap = _gap_text(getattr(est, "history_", None))
    if gap is not None:
        table.add_row("final gap", gap)
    elif models is not None and _gap_text(getattr(models[0][1], "history_", None)) is not None:
        table.add_row("final gap by class", ", ".join(
            f"{c}: {_gap_text(m.history_)}" for c, m in models))
    table.add_row("train accuracy", f"{est.score(X_train, y_train):.4f}")
    if X_test is not None:
        table.add_row("test accuracy", f"{est.score(X_test, y_test):.4f}")
    console.print(table)


@cli.command()
@click.option("--data", "data", help="data set: softboost-synthetic, breast-cancer, sklearn:NAME, "
              "a KEEL name, or a CSV path")
@click.option("--instance", help="a models/ instance name instead of a data set")
@click.option("--catalog", "whole_catalog", is_flag=True,
              help="every models/ instance (full solves and replays), instead of a data set")
@click.option("--models-dir", type=click.Path(file_okay=False),
              help="catalog directory (default: models/ in a source checkout, else the installed copy)")
@click.option("--target", help="CSV: the label column")
@click.option("--positive", help="positive class for multi-class data (without it, LPBoost's master "
              "is the one multiclass LP over all classes, as multiclass-lpboost is)")
@click.option("--master", "master_name", default="lpboost", show_default=True,
              type=RegistryChoice(lambda: list(MASTERS)))
@click.option("--nu", type=float, help="LPBoost/SoftBoost/ERLPBoost: soft-margin fraction (default 0.1)")
@click.option("--delta", type=float, help="SoftBoost/TotalBoost/ERLPBoost: precision (default 0.01)")
@click.option("--lam", type=float, help="RMBoost: lam (default 1/sqrt(n))")
@click.option("--oracle", help="stumps, features or trees (default: features on the synthetic set, "
              "stumps otherwise; the multiclass LP: stumps or trees)")
@click.option("-b", "--backend", "backends", multiple=True,
              help="a backend (repeatable; `lpboosting backends` lists them); default: the master's "
                   f"own default (highspy:ipm for rmboost), then those of {' '.join(COMPARED_BACKENDS)} "
                   "that solve the master")
@click.option("--max-rounds", type=int, help="round limit (default: the master's classifier's, "
              "200 for rmboost and 1000 for the others)")
@click.option("--tol", type=float, help="stopping tolerance (default: the classifier's, 1e-6)")
@click.option("--no-replay", is_flag=True, help="skip the replay of the first backend's columns")
@click.option("--repeat", type=int, default=1, show_default=True,
              help="time every run this many times: median [min-max] of the wall time")
@click.option("--time-limit", "time_limit", type=float,
              help="seconds for each run of each backend (the solver's own limit where it has one); "
                   "a backend that reaches it is reported as time_limit and the others go on")
@click.option("--profile", "profile_path", type=click.Path(dir_okay=False),
              help="with --catalog: draw the performance profile of the full solves to this image")
@click.option("--loose", is_flag=True, help="conic solvers at their default tolerances")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="write the table as CSV")
@click.option("--json", "json_path", type=click.Path(dir_okay=False),
              help="write the table and per-round objectives as JSON")
def compare(data: str | None, instance: str | None, whole_catalog: bool, models_dir: str | None,
            target: str | None, positive: str | None, master_name: str, nu: float | None,
            delta: float | None, lam: float | None, oracle: str | None, backends: tuple[str, ...],
            max_rounds: int | None, tol: float | None, no_replay: bool, repeat: int,
            time_limit: float | None,
            profile_path: str | None, loose: bool, csv_path: str | None,
            json_path: str | None) -> int:
    """Run one master with several backends and print rounds, times, iterations and objectives.

    On a data set (--data), each backend runs column generation with its own columns, then
    every backend replays the first one's columns; on a models/ instance (--instance), or every
    one (--catalog), each backend solves the full instance and replays its columns.  --catalog
    --profile FIG.png draws the performance profile of the full solves (Dolan and More)."""
    import numpy as np

    from lpboosting import compare as harness

    console = _console()
    status = console.status("comparing", spinner="dots") if console.is_terminal else None

    def progress(text: str) -> None:
        if status is not None:
            status.update(text)
        else:
            console.print(f"... {text}", markup=False)

    if (data is not None) + (instance is not None) + whole_catalog != 1:
        raise click.UsageError("give exactly one of --data NAME, --instance NAME and --catalog")
    if repeat < 1:
        raise click.BadParameter(f"{repeat} is not a number of runs; give --repeat 1 or more",
                                 param_hint="--repeat")
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise click.BadParameter(f"{time_limit} is not a number of seconds; give a time limit > 0",
                                 param_hint="--time-limit")
    if profile_path is not None and not whole_catalog:
        raise click.UsageError("--profile draws a performance profile over several instances: use "
                               "it with --catalog (every models/ instance)")
    if profile_path is not None:
        _require_matplotlib("`lpboosting compare --profile`")
    if status is not None:
        status.start()
    try:
        if whole_catalog:
            from lpboosting import catalog

            directory = Path(models_dir) if models_dir else catalog.default_directory()
            for name in backends:
                from lpboosting.backends import get_backend

                get_backend(name).require()  # an unknown or missing backend is a usage error
            results = harness.compare_catalog(directory, list(backends) or None, tight=not loose,
                                              replay=not no_replay, repeat=repeat,
                                              time_limit=time_limit, progress=progress)
        elif instance is not None:
            from lpboosting import catalog

            directory = Path(models_dir) if models_dir else catalog.default_directory()
            entries = {e["name"]: e for e in catalog.load_index(directory)}
            if instance not in entries:
                raise click.UsageError(f"no instance {instance!r} in {directory}; instances: "
                                       f"{', '.join(entries)}")
            entry = entries[instance]
            chosen = list(backends) or list(catalog.capable_backends(entry))
            result = harness.compare_instance(entry, directory, chosen, tight=not loose,
                                              replay=not no_replay, repeat=repeat,
                                              time_limit=time_limit, progress=progress)
        else:
            from lpboosting.datasets import load_dataset
            from lpboosting.oracles import make_oracle

            # LPBoost on more than two classes (no --positive): the one multiclass LP over pairs;
            # multiclass-lpboost is that LP on any number of classes (on two it is LPBoost's), and
            # multiclass-erlpboost ERLPBoost over the same pairs
            multiclass = master_name in ("multiclass-lpboost", "multiclass-erlpboost")
            dataset = load_dataset(data, target=target, positive=positive,
                                   multiclass=(multiclass or master_name == "lpboost") and positive is None)
            given = {"nu": nu, "delta": delta, "lam": lam}
            defaults = MASTERS[master_name].params
            master = harness.make_master(master_name, **{
                k: (defaults.get(k) if v is None else v) for k, v in given.items()})
            labels = np.unique(dataset.y)
            name = oracle or ("features" if dataset.name == "softboost-synthetic" else "stumps")
            if labels.size > 2 or multiclass:
                master, pricing = _multiclass_compared(master, name, dataset.X, dataset.y, labels)
            else:
                pricing = make_oracle(name, dataset.X, np.where(dataset.y == labels[-1], 1.0, -1.0))
            chosen = list(backends) or _compared_backends(master)
            if max_rounds is None:
                max_rounds = _classifier_default(master_name, "max_rounds")
            if tol is None:
                tol = _classifier_default(master_name, "tol")
            result = harness.compare(
                master, pricing, chosen, tol=tol, max_rounds=max_rounds, replay=not no_replay,
                tight=not loose, repeat=repeat, time_limit=time_limit, progress=progress,
                title=f"{master!r} on {dataset.name} ({dataset.X.shape[0]} x {dataset.X.shape[1]}), "
                      f"oracle {name}")
    finally:
        if status is not None:
            status.stop()
    if whole_catalog:
        return _catalog_outputs(console, results, csv_path, json_path, profile_path)
    _print_comparison(console, result)
    if csv_path:
        result.write_csv(csv_path)
        console.print(f"wrote {csv_path}", markup=False)
    if json_path:
        result.write_json(json_path)
        console.print(f"wrote {json_path}", markup=False)
    return 0


def _multiclass_compared(master: Any, oracle: str, X: Any, y: Any, labels: Any) -> tuple[Any, Any]:
    """The multiclass LP over (example, wrong class) pairs at ``master``'s nu (LPBoost's or
    multiclass-lpboost's; ERLPBoost over those pairs for multiclass-erlpboost), and the multiclass
    oracle of that name (one of :data:`~lpboosting.oracles.multiclass.MULTICLASS_ORACLES`)."""
    import numpy as np

    from lpboosting.masters import MulticlassERLPBoost, MulticlassLPBoost
    from lpboosting.oracles.multiclass import MULTICLASS_ORACLES, make_multiclass_oracle

    if oracle not in MULTICLASS_ORACLES:
        raise click.UsageError(f"the multiclass LP over {labels.size} classes is priced by "
                               f"{' or '.join(MULTICLASS_ORACLES)}, not {oracle!r}; give --oracle "
                               "stumps, or --positive CLASS for one class against the rest")
    pairs = (MulticlassERLPBoost(master.nu, master.delta, labels.size) if isinstance(master, MulticlassERLPBoost)
             else MulticlassLPBoost(master.nu, labels.size))
    return pairs, make_multiclass_oracle(oracle, X, np.searchsorted(labels, y), labels.size)


def _require_matplotlib(what: str) -> None:
    try:
        import matplotlib
    except ImportError:
        raise click.UsageError(f'{what} draws with matplotlib, which is not installed; '
                               'run `pip install "lpboosting[plot]"` (or `pip install matplotlib`)') from None
    matplotlib.use("Agg")


def _catalog_outputs(console: Any, results: list[Any], csv_path: str | None, json_path: str | None,
                     profile_path: str | None) -> int:
    """The catalog comparison: one line per instance and backend, the profile, the files."""
    from rich.markup import escape
    from rich.table import Table

    from lpboosting import compare as harness

    if not results:
        raise click.UsageError("none of the named backends solves any instance of the catalog; "
                               "`lpboosting backends` lists what each solves")
    table = Table(title=f"full solves of {len(results)} catalog instances", title_justify="left")
    for name, justify in (("instance", "left"), ("backend", "left"), ("total s", "right"),
                          ("solve s", "right"), ("compile s", "right"), ("iterations", "right"),
                          ("|objective - certified|", "right"), ("replay max dev", "right"),
                          ("status", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for result in results:
        replays = {r.backend: r for r in result.runs if r.mode == "replay"}
        for row in (r for r in result.rows() if r["mode"] == "full"):
            replay = replays.get(row["backend"])
            table.add_row(
                result.meta["instance"], row["backend"], escape(harness.format_seconds(row)),
                _seconds(row["solve_s"]), _seconds(row["compile_s"]), harness.format_iterations(row),
                "-" if row["max_dev"] is None else f"{row['max_dev']:.1e}",
                "-" if replay is None or replay.max_dev is None else f"{replay.max_dev:.1e}",
                escape(row["status"] + (f": {row['message']}" if row["status"] not in harness.FINISHED else "")))
    console.print(table)
    # one profile per kind of problem: a backend that cannot state a kind of master at all
    # would otherwise count as failing on every instance of it
    groups: dict[str, list[Any]] = {}
    for result in results:
        groups.setdefault(result.meta.get("kind") or "other", []).append(result)
    profiles = {kind: harness.performance_profile(group) for kind, group in groups.items()}
    for kind, profile in profiles.items():
        # a backend is counted on the instances it ran on (those whose master it solves), not
        # as failing on the others
        n = len(profile.instances)
        ran = {b: round(profile.ran[b] * n) for b in profile.backends}
        order = sorted(profile.backends, key=lambda b: (-profile.solved[b] * n / max(ran[b], 1),
                                                        -profile.wins[b]))
        summary = ", ".join(f"{b} {round(profile.solved[b] * n)}/{ran[b]} solved, fastest on "
                            f"{round(profile.wins[b] * n)}" for b in order)
        console.print(f"performance profile, {_PROFILE_KINDS.get(kind, kind)} ({n} instances; each "
                      f"backend counted on those it ran on): {summary}", markup=False)
    if profile_path:
        import matplotlib.pyplot as plt

        from lpboosting import plots

        figure, axes = plt.subplots(len(profiles), 1, figsize=(9, 4.6 * len(profiles)),
                                    layout="constrained", squeeze=False)
        for ax, (kind, profile) in zip(axes[:, 0], profiles.items()):
            plots.plot_performance_profile(
                profile, ax=ax, title=f"{_PROFILE_KINDS.get(kind, kind)}: {len(profile.instances)} "
                                      "instances, full solves")
        figure.savefig(profile_path, dpi=120, bbox_inches="tight")
        console.print(f"wrote {profile_path}", markup=False)
    if csv_path:
        harness.write_catalog_csv(results, csv_path)
        console.print(f"wrote {csv_path}", markup=False)
    if json_path:
        from lpboosting.jsonfile import write_json

        write_json(json_path, {"instances": [r.to_dict() for r in results]})
        console.print(f"wrote {json_path}", markup=False)
    return 0


#: the panels of `compare --catalog --profile`, one per kind of problem
_PROFILE_KINDS = {"lp": "LP masters (LPBoost, RMBoost)",
                  "exp_cone": "entropy projections (SoftBoost, TotalBoost, ERLPBoost)"}


def _seconds(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print_comparison(console: Any, result: Any) -> None:
    from rich.table import Table

    from rich.markup import escape

    from lpboosting import compare as harness

    repeated = any(r.repeats > 1 for r in result.runs)
    table = Table(title=result.title, title_justify="left")
    for name, justify in (("backend", "left"), ("mode", "left"), ("rounds", "right"),
                          ("total s: median \\[min-max]" if repeated else "total s", "right"),
                          ("x first", "right"), ("median master ms", "right"), ("solve s", "right"),
                          ("compile s", "right"), ("iterations", "right"), ("objective", "right"),
                          ("max dev", "right"), ("status", "left")):
        table.add_column(name, justify=justify, no_wrap=name != "status")  # type: ignore[arg-type]
    for row in result.rows():
        table.add_row(
            row["backend"], row["mode"], str(row["rounds"]), escape(harness.format_seconds(row)),
            "-" if row["x_first"] is None else f"{row['x_first']:.2f}",
            f"{row['median_master_ms']:.3f}", _seconds(row["solve_s"]), _seconds(row["compile_s"]),
            harness.format_iterations(row),
            f"{row['objective']:.10f}", "-" if row["max_dev"] is None else f"{row['max_dev']:.1e}",
            escape(row["status"] + (f": {row['message']}" if row["status"] in ("error", "time_limit") else "")),
        )
    console.print(table)
    console.print(f"largest objective deviation: {result.max_deviation():.2e}", markup=False)


@cli.command()
@click.option("--out", "out", type=click.Path(),
              help="without --model: the catalog directory (default: models/ in a source checkout, "
              "else ./models); with --model: the model file to write, FILE.mps or FILE.lp")
@click.option("--model", "model_path", type=click.Path(dir_okay=False),
              help="export the last restricted master of a fitted classifier: a pickle (`fit --save`) "
              "or a JSON model (lpboosting.save_model; needs --data)")
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="a history (`fit --history`): it cannot be exported (it holds no margin matrix); "
              "the message says what to pass instead")
@click.option("--form", type=click.Choice(["dual", "primal"]),
              help="with --model: the LP's form (default: LPBoost's dual, the capped edge game; "
              "RMBoost's primal (16))")
@click.option("--data", "data", help="with --model: the rows the model was fitted on (a data set name or "
              "a CSV, as in `fit`), to rebuild U = y h(x) from its hypotheses; needed for JSON models")
@click.option("--target", help="CSV: the label column")
@click.option("--positive", help="positive class for multi-class data")
@click.option("--class", "label", help="with --model, a one-vs-rest model: the class whose master to export")
@click.option("--final-lp", is_flag=True, help="with --model, softboost/totalboost/erlpboost: export the "
              "LPBoost LP over the chosen columns (the LP their weights come from)")
def export(out: str | None, model_path: str | None, history_path: str | None, form: str | None,
           data: str | None, target: str | None, positive: str | None, label: str | None,
           final_lp: bool) -> int:
    """Regenerate the models/ catalog, or write a fitted model's master as an MPS/LP file.

    Without --model: regenerate the models/ catalog (index.json, .npz columns, HiGHS-written .mps)
    deterministically.  With --model FILE --out FILE.mps|FILE.lp: write the last restricted master
    of a fitted classifier (its rows, columns and names are described in lpboosting.export)."""
    if history_path is not None:
        raise click.UsageError(_history_cannot_be_exported(history_path))
    if model_path is not None:
        return _export_model_file(model_path, out, form, data, target, positive, label, final_lp)
    given = [name for name, value in (("--form", form), ("--data", data), ("--target", target),
                                      ("--positive", positive), ("--class", label),
                                      ("--final-lp", final_lp)) if value]
    if given:
        raise click.UsageError(f"{', '.join(given)}: only with --model FILE, a fitted model to export "
                               "(without --model, `export` regenerates the models/ catalog)")
    from lpboosting.export import EXTENSIONS

    if out is not None and Path(out).suffix.lower() in EXTENSIONS:
        raise click.UsageError(
            f"--out {out} names a model file, but there is no --model: give the fitted model to "
            f"export (--model FILE.pkl), or a directory to regenerate the catalog into")
    from rich.table import Table

    from lpboosting import catalog

    console = _console()
    directory = Path(out) if out else catalog.export_directory()
    if directory.exists() and not directory.is_dir():
        raise click.UsageError(f"--out {out} is a file; the catalog is written into a directory")
    directory.mkdir(parents=True, exist_ok=True)
    entries = catalog.build_catalog(directory)
    table = Table(title=f"{len(entries)} instances written to {directory}", title_justify="left")
    for name in ("name", "master", "n x t", "objective", "certified by"):
        table.add_column(name)
    for e in entries:
        table.add_row(e["name"], e["master"], f"{e['n']} x {e['t']}", f"{e['objective']:.12g}",
                      e["certified_by"])
    console.print(table)
    return 0


def _history_cannot_be_exported(path: str) -> str:
    """Why ``export --history`` cannot write a model file, and what to pass instead."""
    import json

    what = f"{path} "
    try:
        meta = json.loads(Path(path).read_text()).get("meta", {})
        if meta.get("master"):
            what = f"{path} (a history of a run of {meta['master']}) "
    except (OSError, ValueError, AttributeError):
        pass
    return (f"{what}cannot be exported: a history records each round's values (primal, dual, gap, "
            "edge, timings) but not the margin matrix U of the master's columns, which the model "
            "file needs. Pass the fitted model instead: --model FILE.pkl (saved by `lpboosting fit "
            "--save`), or --model FILE.json --data NAME|FILE.csv (a model saved by "
            "lpboosting.save_model, with the rows it was fitted on)")


def _export_model_file(model_path: str, out: str | None, form: str | None, data: str | None,
                       target: str | None, positive: str | None, label: str | None,
                       final_lp: bool) -> int:
    """``export --model``: the last restricted master of a fitted classifier as an MPS/LP file."""
    from lpboosting.export import EXTENSIONS, export_classifier

    path = Path(model_path)
    if not path.is_file():
        raise click.UsageError(f"no model file {model_path}: save a fitted model with `lpboosting fit "
                               "ALGORITHM --save FILE.pkl` (or lpboosting.save_model in Python)")
    if out is None or Path(out).suffix.lower() not in EXTENSIONS:
        raise click.UsageError(
            f"{'--out ' + out + ': the' if out else 'give the'} model file to write must end in .mps "
            "(free MPS) or .lp (CPLEX LP format), e.g. --out master.mps; the extension chooses the format")
    if path.suffix.lower() == ".json":
        import json

        from lpboosting.model_io import load_model

        try:
            payload = json.loads(path.read_text())
        except ValueError:
            payload = None
        if isinstance(payload, dict) and "records" in payload and "meta" in payload:
            raise click.UsageError(_history_cannot_be_exported(model_path))
        model = load_model(path)
        if data is None:
            raise click.UsageError(
                f"{model_path} is a JSON model (lpboosting.save_model): it holds the hypotheses but not "
                "the margin matrix U of its master. Pass --data NAME|FILE.csv with the rows it was "
                "fitted on (U is rebuilt as y h(x) from the hypotheses; sample weights are not stored "
                "in JSON), or export a pickled model (`lpboosting fit --save FILE.pkl`), which holds U")
    else:
        with open(path, "rb") as fh:  # only open models you saved yourself: pickle runs code
            model = pickle.load(fh)
    X = y = None
    if data is not None:
        from lpboosting.datasets import load_dataset

        dataset = load_dataset(data, target=target, positive=positive, multiclass=True)
        X, y = dataset.X, dataset.y  # a set with a fixed split: its training part
    exported = export_classifier(model, out, X=X, y=y, label=label, form=form, final_lp=final_lp)
    console = _console()
    console.print(f"wrote {exported.describe()}", markup=False)
    if data is not None:
        console.print(f"U rebuilt as y h(x) from the model's hypotheses on the {len(y)} rows of {data}",
                      markup=False)
    if exported.objective is not None:
        console.print(f"its optimum is the fit's objective {exported.objective:.12g}; solve it with "
                      f"`lpboosting solve-file {out}`", markup=False)
    return 0


@cli.command(name="solve-file")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("-b", "--backend", "backends", multiple=True,
              help="highspy (dual simplex), highspy:ipm (interior point) or cvxpy:SOLVER; repeat for "
              "several (default: highspy, highspy:ipm and cvxpy:CLARABEL)")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="also write the rows as JSON")
def solve_file(path: str, backends: tuple[str, ...], json_path: str | None) -> int:
    """Read an MPS or LP model file (e.g. from `export`) and solve it with several solvers.

    Prints each backend's status, objective, deviation from the first optimal one, iterations and
    seconds."""
    from rich.table import Table

    from lpboosting.export import compare_model_file

    names = list(backends) or ["highspy", "highspy:ipm", "cvxpy:CLARABEL"]
    rows = compare_model_file(path, names)
    reference = next((r["objective"] for r in rows if r["status"] == "optimal"), None)
    table = Table(title=f"{path}", title_justify="left")
    for name in ("backend", "status", "objective", "deviation", "iterations", "seconds"):
        table.add_column(name, justify="left" if name in ("backend", "status") else "right")
    for r in rows:
        solved = not math.isnan(r["objective"])
        deviation = abs(r["objective"] - reference) if solved and reference is not None else None
        table.add_row(r["backend"], r["status"] + (f": {r['message']}" if r["message"] else ""),
                      f"{r['objective']:.12g}" if solved else "-",
                      "-" if deviation is None else f"{deviation:.1e}",
                      "-" if r["iterations"] is None else str(r["iterations"]), f"{r['seconds']:.3f}")
    _console().print(table)
    if json_path:
        from lpboosting.jsonfile import write_json

        write_json(json_path, {"path": str(path), "rows": rows})
        _console().print(f"wrote {json_path}", markup=False)
    return 0


#: what `plot` reads, for the messages about files it cannot
_PLOT_READS = ("`lpboosting plot` draws a model saved by `lpboosting fit --save` (a pickle, or FILE.json "
               "in the JSON model format) or a history written by `lpboosting fit --history` (JSON)")


def _one_class(obj: Any, source: str, label: str | None) -> tuple[Any, Any]:
    """``obj``, or with ``--class`` the binary model of that class of a one-vs-rest model (and
    the class); a usage error when a one-vs-rest model is given without --class, or the class
    is not one of its classes."""
    models = getattr(obj, "one_vs_rest_", None)
    if models is None or len(getattr(obj, "classes_", ())) <= 2:
        if label is not None:
            raise click.UsageError(f"--class applies to a model fitted one-vs-rest on more than two "
                                   f"classes; {source} is not one")
        return obj, None
    classes = list(obj.classes_)
    if label is None:
        raise click.UsageError(
            f"{source} is {type(obj).__name__} fitted one-vs-rest on {len(classes)} classes: one binary "
            f"model a class; name the class whose model to draw with --class LABEL (one of "
            f"{', '.join(map(str, classes))})")
    match = [k for k, c in enumerate(classes) if str(c) == str(label).strip()]
    if not match:
        raise click.UsageError(f"--class {label}: not a class of {source}; its classes are "
                               f"{', '.join(map(str, classes))}")
    return models[match[0]], classes[match[0]]


def _kind_refused(obj: Any, kind: str) -> str | None:
    """Why ``--kind kind`` does not apply to ``obj`` (and the kinds that do), or None."""
    from lpboosting import plots

    kinds = ["summary", "duality", "distribution", "margins", "timing"]
    why = {}
    if hasattr(obj, "get_params"):  # a classifier: a model of no LP master, or read from JSON
        history = obj.history_
        if getattr(obj, "result_", None) is None and getattr(obj, "distribution_", None) is None:
            why["distribution"] = plots._no_distribution(history, obj)
        if not hasattr(obj, "margins"):
            why["margins"] = f"{type(obj).__name__} has no margins y f(x)"
    if kind not in why:
        return None
    return (f"--kind {kind}: {why[kind]}; the kinds that apply to it: "
            f"{', '.join(k for k in kinds if k not in why)}")


def _plot_source(source: str) -> Any:
    """The model or history in ``source``: a history (or a model) as JSON, else a pickle; a usage
    error naming the file and what is wrong when it is neither."""
    from lpboosting.colgen import ColumnGenerationResult, History

    with open(source, "rb") as fh:
        head = fh.read(64).lstrip()
    if not head:
        raise click.BadParameter(f"{source} is empty; {_PLOT_READS}", param_hint="SOURCE")
    pickled = head[:1] == b"\x80"  # a pickle's first byte (protocol 2 and later), e.g. an m.json
    if not pickled and (source.lower().endswith(".json") or head[:1] in (b"{", b"[")):
        try:
            return History.load(source)
        except ValueError as exc:
            if "model file" not in str(exc):
                raise click.BadParameter(f"{exc}; `lpboosting plot` also draws a model saved by "
                                         "`lpboosting fit --save`", param_hint="SOURCE") from None
        return _load_json_model(source)
    try:
        with open(source, "rb") as fh:  # only open models you saved yourself: pickle runs code
            obj = pickle.load(fh)
    except (ImportError, AttributeError) as exc:
        raise click.BadParameter(
            f"{source} is a pickle of classes this installation does not have ({exc}): written by "
            f"another version of lpboosting or another program?; {_PLOT_READS}", param_hint="SOURCE") from None
    except Exception as exc:  # a file that is not a pickle, or one cut short, fails in many ways
        raise click.BadParameter(
            f"{source} does not read as a pickle ({type(exc).__name__}: {exc}): it is cut short or "
            f"not a model file; {_PLOT_READS}", param_hint="SOURCE") from None
    if isinstance(obj, (History, ColumnGenerationResult)):
        return obj
    if isinstance(getattr(obj, "history_", None), (History, list)):  # a list: one-vs-rest
        return obj
    kind = type(obj).__name__
    kind = f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
    if hasattr(obj, "fit") and hasattr(obj, "get_params"):
        raise click.BadParameter(f"{source} holds {kind} without a per-round history (not fitted?); "
                                 f"{_PLOT_READS}", param_hint="SOURCE")
    raise click.BadParameter(f"{source} holds {kind}, not a fitted model or a history; {_PLOT_READS}",
                             param_hint="SOURCE")


@cli.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="image file to write (PNG, PDF, SVG, ...)")
@click.option("--kind", type=click.Choice(["summary", "duality", "distribution", "margins", "timing"]),
              default="summary", show_default=True)
@click.option("--data", "data", help="data set for the margin plot (as in `fit`; default: the one a "
              "model saved by `fit --save` was fitted on)")
@click.option("--target", help="CSV: the label column")
@click.option("--positive", help="positive class for multi-class data")
@click.option("--class", "label", help="a model fitted one-vs-rest on more than two classes: the class "
              "whose model to draw (against the rest)")
def plot(source: str, out: str, kind: str, data: str | None, target: str | None,
         positive: str | None, label: str | None) -> int:
    """Figures from a saved model (`fit --save`: a pickle, or FILE.json) or a history (`fit --history`).

    The margin plot of a model saved by `fit --save`, on the data set it was fitted on, shows the
    training and the test margins apart; on other data, the margins of all its rows.  A model
    of no LP master (llm, lld, bounded-loss, modaboost) has no distribution d: its summary draws
    what applies to it."""
    try:
        import matplotlib
    except ImportError:
        raise click.UsageError('`lpboosting plot` draws with matplotlib, which is not installed; '
                               'run `pip install "lpboosting[plot]"` (or `pip install matplotlib`)') from None
    matplotlib.use("Agg")
    from lpboosting import plots

    obj = _plot_source(source)
    recorded = getattr(obj, "data_split_", None)
    obj, chosen = _one_class(obj, source, label)
    refused = _kind_refused(obj, kind)
    if refused:
        raise click.UsageError(refused)
    if data is None and isinstance(recorded, dict) and kind in ("summary", "margins"):
        data, target, positive = recorded["data"], recorded["target"], recorded["positive"]
    margins: dict[str, Any] = {}
    if data is not None and kind in ("summary", "margins") and hasattr(obj, "margins"):
        import numpy as np

        from lpboosting.datasets import load_dataset

        dataset = load_dataset(data, target=target, positive=positive, multiclass=True)
        if chosen is not None:  # the class's binary model: its labels are "this class or not"
            dataset.y = dataset.y == chosen
            if dataset.has_test:
                dataset.y_test = dataset.y_test == chosen
        split = _recorded_split(recorded, data, target, positive, dataset)
        if split is not None and split["fixed_split"]:
            margins = {"X": dataset.X, "y": dataset.y, "X_test": dataset.X_test,
                       "y_test": dataset.y_test}
        elif split is not None and split["test_rows"] is not None:
            train = np.ones(dataset.X.shape[0], dtype=bool)
            train[split["test_rows"]] = False
            margins = {"X": dataset.X[train], "y": dataset.y[train],
                       "X_test": dataset.X[~train], "y_test": dataset.y[~train]}
        else:  # no split recorded, another data set, or fitted on every row
            what = "training data" if split is not None else Path(data).name + (
                ", its training part" if dataset.has_test else ", every row")
            margins = {"X": dataset.X, "y": dataset.y, "label": what}
    if kind == "summary":
        figure = plots.plot_summary(obj, **margins)
    elif kind == "margins":
        if not margins:
            raise click.UsageError("the margin plot needs --data (the examples to compute margins on)")
        figure = plots.plot_margins(obj, **margins).figure
    else:
        figure = getattr(plots, f"plot_{kind}")(obj).figure
    figure.savefig(out, dpi=120, bbox_inches="tight")
    _console().print(f"wrote {out}", markup=False)
    return 0


@cli.command(name="backends")
@click.option("--all", "show_all", is_flag=True,
              help="also list known backends that are not installed, and those never picked "
                   "automatically (named with -b only)")
def backends_cmd(show_all: bool) -> int:
    """The installed backends and what each can solve."""
    from rich.table import Table

    from lpboosting.backends import available

    table = Table(title="backends", title_justify="left")
    for name in ("name", "installed", "LP", "exp cone", "warm start", "install", "solvers"):
        table.add_column(name)
    for info in available(include_missing=show_all, include_unlisted=show_all):
        lp = "yes" if info.lp else (", ".join(info.masters) + " only" if info.masters else "-")
        table.add_row(info.name, "yes" if info.installed else "no", lp,
                      "yes" if info.exp_cone else "-", "yes" if info.incremental else "rebuild",
                      info.install, " ".join(info.variants))
    _console().print(table)
    return 0


#: ``lpboosting bench NAME``: the benchmark modules by name (run by name: the product imports no
#: study); each has a ``main(argv)`` that parses the options after the name
BENCHMARKS: dict[str, str] = {name: f"lpboosting.benchmark.{name}"
                              for name in ("lpboost", "entropy", "rmboost", "colgen", "scale", "hard")}


# options stop at the benchmark's name: what follows (--help included) is the benchmark's
@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("which", type=click.Choice(list(BENCHMARKS)))
@click.argument("rest", nargs=-1, type=click.UNPROCESSED)
def bench(which: str, rest: tuple[str, ...]) -> int:
    """Benchmarks: lpboost (highspy vs cvxpy rebuild vs bare HiGHS), entropy (dedicated vs conic),
    rmboost (Pima, 10-leaf trees), colgen (plain vs stabilised vs k columns a round), scale (LPBoost
    on the twonorm generator up to 10^6 rows, peak memory), hard (degenerate masters: plain vs the
    HiGHS watchdog and the second stage, beside AdaBoost and HistGradientBoosting); options after
    the name go to the benchmark (`lpboosting bench lpboost --help` lists them)."""
    import importlib

    try:
        importlib.import_module(BENCHMARKS[which]).main(list(rest))
    except SystemExit as exc:  # argparse: --help (0) or a bad option (2, after its message)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return 0


#: ``lpboosting reproduce``: the papers' experiments, a command of the studies (launched by its
#: module's name, see :class:`StudyCommand`)
cli.add_command(StudyCommand("reproduce", "lpboosting.experiments.command",
                             "Paper experiments: long-servedio (MODABOOST, Sec."))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    try:
        code = cli.main(args=list(argv) if argv is not None else None, prog_name="lpboosting",
                        standalone_mode=False)
    except click.exceptions.Abort:
        print("lpboosting: interrupted", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("lpboosting: interrupted", file=sys.stderr)
        return 130
    except click.ClickException as exc:
        exc.show()
        return 2
    except (LPBoostingError, ValueError, ImportError, OSError, pickle.UnpicklingError) as exc:
        print(f"lpboosting: error: {exc}", file=sys.stderr)
        return 2
    return code if isinstance(code, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
