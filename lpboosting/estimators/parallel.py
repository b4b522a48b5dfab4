"""The one-vs-rest fits ``n_jobs`` at a time, in threads, and Ctrl-C while they run.

Threads, not processes: the K binary models share the oracle's label-free
work on X and keep their live solvers (``warm_start``); HiGHS solves, and
numpy's large array operations, run without holding the GIL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

from joblib import effective_n_jobs

from lpboosting.estimators.interrupt import CtrlC

__all__ = ["n_threads", "map_in_threads"]


def n_threads(n_jobs: int | None, n_tasks: int) -> int:
    """How many threads ``n_jobs`` means for ``n_tasks`` tasks (joblib's reading: None is 1, -1 all
    cores, -2 all but one)."""
    return max(1, min(effective_n_jobs(n_jobs), n_tasks))


def map_in_threads(fn: Callable[[Any], Any], items: Sequence[Any], n_jobs: int,
                   stop: threading.Event) -> list[Any]:
    """``[fn(item) for item in items]``, ``n_jobs`` at a time, in threads.

    Ctrl-C arrives in the main thread, which waits here: ``stop`` is set (a
    task stops at its next round when it watches the event), tasks not yet
    started are cancelled, the running ones are waited for, and the
    KeyboardInterrupt goes on, so that nothing runs on after the fit has
    ended (a Ctrl-C while the tasks are handed to the threads is held back
    until they all are: a thread being started when it came would run on
    unseen).  An exception in a task is raised once every task has ended.
    """
    with ThreadPoolExecutor(max_workers=n_jobs) as pool, CtrlC() as ctrl_c:
        ctrl_c.hold()  # a Ctrl-C while the threads start would leave one running unseen: held back
        futures = [pool.submit(fn, item) for item in items]
        try:
            ctrl_c.release()  # ... and raised here
            # in short waits: the main thread then handles a Ctrl-C at once on every platform
            while wait(futures, timeout=0.1, return_when=FIRST_EXCEPTION).not_done:
                if any(f.done() and f.exception() is not None for f in futures):
                    break
        except KeyboardInterrupt:
            stop.set()
            for future in futures:
                future.cancel()
            wait(futures)
            raise
        failed = next((f for f in futures if f.done() and f.exception() is not None), None)
        if failed is not None:
            stop.set()  # the other fits stop too: their models would not be kept
            for future in futures:
                future.cancel()
            wait(futures)
            raise failed.exception()
        return [future.result() for future in futures]
