"""The options of one column-generation run, built once and passed as one thing.

:class:`LoopOptions` holds what the loop needs to know besides the master
and the oracle (how many rounds, when to stop, how to price, what to show);
:class:`Deadline` is the one clock a ``time_limit`` is kept by: the loop
reads it between rounds and hands what is left of it to the solver, so one
long solve stops in time too.  The classifiers build their options from
their parameters (:meth:`LoopOptions.from_params`), the nu path and the
comparison pass theirs on unchanged.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["Deadline", "LoopOptions"]


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class LoopOptions:
    """What one run of :func:`~lpboosting.colgen.column_generation` does besides its master and oracle.

    max_rounds:
        Rounds in all (a resumed run counts those before too).
    tol:
        A column is added only when it improves the master by more than ``tol``.
    time_limit:
        Seconds for the whole run (None: no limit); kept by one :class:`Deadline`.
    stall_rounds:
        Stop with status ``"stalled"`` when neither the objective nor the best
        bound moved by more than ``tol`` in that many rounds (None: never).
    columns_per_round:
        Up to that many of the oracle's best columns are added a round.
    stabilization:
        None, ``"smoothing"`` or a :class:`~lpboosting.colgen.Smoothing`.
    verbose:
        1 prints the ledger, one line per round (the classifiers do; the loop
        itself prints nothing).
    callback:
        ``callback(record)`` or ``callback(record, state)`` after every round;
        a truthy return stops the run.

    The values are checked when the object is built: a wrong one raises the
    TypeError or ValueError that names it.  (The column pool is the master's:
    it says which of the master's columns may be deleted.)
    """

    max_rounds: int = 1000
    tol: float = 1e-6
    time_limit: float | None = None
    stall_rounds: int | None = None
    columns_per_round: int = 1
    stabilization: Any = None
    verbose: int = 0
    callback: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        for name, integer, optional in (("tol", False, False), ("max_rounds", True, False),
                                        ("columns_per_round", True, False), ("time_limit", False, True),
                                        ("stall_rounds", True, True)):
            value = getattr(self, name)
            if value is None and optional:
                continue
            if not (_is_int(value) if integer else _is_real(value)):
                kind = "an integer" if integer else "a number"
                raise TypeError(f"{name} must be {kind}{' or None' if optional else ''}, got {value!r} "
                                f"of type {type(value).__name__}")
        if self.callback is not None and not callable(self.callback):
            raise TypeError(f"callback must be a function callback(record) or callback(record, state), got "
                            f"{type(self.callback).__name__}")
        if not (np.isfinite(self.tol) and self.tol >= 0):
            raise ValueError(f"tol must be a finite number >= 0, got {self.tol!r}")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer, got {self.max_rounds!r}")
        if self.columns_per_round < 1:
            raise ValueError(f"columns_per_round must be a positive integer, got {self.columns_per_round!r}")
        if self.time_limit is not None and not (self.time_limit > 0):
            raise ValueError(f"time_limit must be a number of seconds > 0 or None, got {self.time_limit!r}")
        if self.stall_rounds is not None and self.stall_rounds < 1:
            raise ValueError(f"stall_rounds must be a positive integer or None, got {self.stall_rounds!r}")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option names, in order (also the classifiers' parameter names for them)."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_params(cls, params: Any, **override: Any) -> "LoopOptions":
        """The options among ``params`` (a dict, or an object such as a classifier whose attributes
        carry them); the names it does not have keep their defaults; ``override`` wins."""
        get = params.get if isinstance(params, dict) else (lambda name, default: getattr(params, name, default))
        missing = object()
        values = {}
        for name in cls.names():
            value = get(name, missing)
            if value is not missing:
                values[name] = value
        values.update(override)
        return cls(**values)

    def replace(self, **changes: Any) -> "LoopOptions":
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    def deadline(self) -> "Deadline":
        """The run's clock, started now."""
        return Deadline(self.time_limit)


class Deadline:
    """A time limit that started when the object was made (None seconds: none).

    The one clock of a run: the loop stops when :meth:`expired`, and a
    solver is given :meth:`remaining` (at least ``floor`` seconds) so that
    one long solve stops in time too.  ``clock`` is the time source
    (default ``time.perf_counter``).
    """

    def __init__(self, seconds: float | None, clock: Callable[[], float] | None = None) -> None:
        self.seconds = None if seconds is None else float(seconds)
        # looked up at every reading, so that a test's patched time.perf_counter is the clock too
        self.clock = clock or (lambda: time.perf_counter())
        self.start = self.clock()

    @property
    def limited(self) -> bool:
        return self.seconds is not None

    def elapsed(self) -> float:
        return self.clock() - self.start

    def remaining(self, floor: float = 0.0) -> float | None:
        """Seconds left (None when there is no limit), at least ``floor``."""
        if self.seconds is None:
            return None
        return max(self.seconds - self.elapsed(), floor)

    def expired(self) -> bool:
        return self.seconds is not None and self.elapsed() >= self.seconds
