"""The one column-generation loop every master and oracle runs in."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from lpboosting.backends import Backend, get_backend
from lpboosting.colgen.history import History, RoundRecord
from lpboosting.masters.base import Master, MasterSolution
from lpboosting.oracles.base import Oracle


@dataclass
class ColumnGenerationResult:
    """What a run produced, also when it stopped early.

    ``weights``, ``distribution`` and ``objective`` come from the last master
    that was solved successfully; ``columns`` (N x T) and ``hypotheses`` are
    the T columns that master was solved over.
    """

    objective: float
    weights: np.ndarray
    distribution: np.ndarray
    columns: np.ndarray
    hypotheses: list[Any]
    n_rounds: int
    history: History
    status: str
    solution: MasterSolution | None
    gap: float | None
    message: str = ""
    edges: list[float] = field(default_factory=list)

    @property
    def converged(self) -> bool:
        return self.status == "converged"


def _check_options(tol: float, max_rounds: int) -> None:
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    if int(max_rounds) != max_rounds or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}")


def column_generation(
    master: Master,
    oracle: Oracle,
    *,
    backend: "str | Backend | None" = None,
    tol: float = 1e-6,
    max_rounds: int = 1000,
    callback: Callable[[RoundRecord], Any] | None = None,
) -> ColumnGenerationResult:
    """Run column generation of ``master`` with pricing ``oracle``.

    ``backend=None`` uses the master's default (``"highspy"`` for LP masters,
    ``"dedicated"`` for the entropy masters).  Each round solves the
    restricted master over the columns found so far, hands its distribution
    to the oracle, records a :class:`RoundRecord`,
    and adds the oracle's column unless ``master.converged`` says that no
    column improves the master by more than ``tol``.  The first column is
    priced under the master's initial (uniform) distribution.

    ``callback(record)`` is called after every round; returning a truthy
    value stops the loop.  A KeyboardInterrupt, a callback stop, or a solver
    failure ends the run but still returns the last good master's solution
    and the history so far (``status`` says which).
    """
    _check_options(tol, max_rounds)
    backend = get_backend(master.default_backend if backend is None else backend)
    session = backend.open(master, oracle.n_samples)
    history = History(meta={
        "master": master.name, "params": master.params(), "oracle": oracle.name,
        "exact": bool(oracle.exact), "backend": backend.name, "tol": tol,
        "n_samples": oracle.n_samples,
    })
    columns: list[np.ndarray] = []
    hypotheses: list[Any] = []
    edges: list[float] = []
    best: MasterSolution | None = None
    best_columns = 0
    last_gap: float | None = None
    status, message = "max_rounds", ""
    start = time.perf_counter()
    try:
        t0 = time.perf_counter()
        candidate = oracle.price(master.initial_distribution(oracle.n_samples))
        history.meta["initial_edge"] = candidate.edge
        history.meta["initial_pricing_seconds"] = time.perf_counter() - t0
        for rnd in range(1, int(max_rounds) + 1):
            session.add_column(candidate.column, candidate.edge)
            columns.append(candidate.column)
            hypotheses.append(candidate.hypothesis)
            edges.append(candidate.edge)
            solution = session.solve()
            if not solution.ok:
                status = "solver_error"
                message = (
                    f"round {rnd}: {solution.backend} returned {solution.status.value} "
                    f"({solution.info.get('message', '')}); kept the master of round {rnd - 1}"
                )
                history.append(RoundRecord(
                    rnd, len(columns), None, None, None, None, bool(oracle.exact),
                    solution.seconds, 0.0, solution.iterations, status))
                break
            t0 = time.perf_counter()
            candidate = oracle.price(solution.distribution)
            pricing = time.perf_counter() - t0
            gap = master.gap(solution, candidate.edge) if oracle.exact else None
            last_gap = gap
            done = master.converged(solution, candidate.edge, tol)
            record = RoundRecord(
                round=rnd, n_columns=len(columns), primal=solution.primal_objective,
                dual=solution.dual_objective, gap=gap, edge=candidate.edge,
                exact=bool(oracle.exact), master_seconds=solution.seconds,
                pricing_seconds=pricing, iterations=solution.iterations,
                status="converged" if done else ("max_rounds" if rnd == max_rounds else "added"),
                extra=dict(solution.info.get("record", {})),
            )
            history.append(record)
            # a round counts once it is recorded: an interrupt while pricing keeps the previous one
            best, best_columns = solution, len(columns)
            stop = callback(record) if callback is not None else False
            if done:
                status = "converged"
                break
            if stop:
                record.status = status = "stopped"
                break
    except KeyboardInterrupt:
        status = "interrupted"
        message = "interrupted by the user; the result holds the last master solved"
        if history.records:
            history.records[-1].status = "interrupted"
    history.meta["status"] = status
    history.meta["seconds"] = time.perf_counter() - start
    if best is None:
        n = oracle.n_samples
        return ColumnGenerationResult(
            objective=float("nan"), weights=np.empty(0), distribution=np.full(n, 1.0 / n),
            columns=np.empty((n, 0)), hypotheses=[], n_rounds=len(history), history=history,
            status=status, solution=None, gap=None, message=message or "no master was solved",
        )
    return ColumnGenerationResult(
        objective=best.objective,
        weights=best.weights,
        distribution=best.distribution,
        columns=np.column_stack(columns[:best_columns]),
        hypotheses=hypotheses[:best_columns],
        n_rounds=len(history),
        history=history,
        status=status,
        solution=best,
        gap=last_gap if status != "solver_error" else None,
        message=message,
        edges=edges[:best_columns],
    )
