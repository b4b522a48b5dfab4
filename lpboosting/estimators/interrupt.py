"""Ctrl-C during a fit: rounds applied whole, and the stop of a parallel one-vs-rest fit.

Every classifier stops at a round boundary when interrupted and keeps the
rounds it completed.  The column-generation loop catches the
KeyboardInterrupt itself (:mod:`lpboosting.colgen.loop`); a leveraging
booster applies each round's effects inside :meth:`CtrlC.hold` /
:meth:`CtrlC.release`.  A fit in a thread of a parallel one-vs-rest fit
(``n_jobs``) cannot receive the signal: it is given the fit's ``stop``
event (its ``_stop``), which the main thread sets on Ctrl-C
(:func:`lpboosting.estimators.parallel.map_in_threads`); the loop's callback
and :meth:`CtrlC.release` read it.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["CtrlC"]


class CtrlC:
    """Ctrl-C (SIGINT) during a fit, as a context manager around the rounds.

    Between :meth:`hold` and :meth:`release` -- while a round's effects are
    applied to the model -- a Ctrl-C is held back and raised as
    KeyboardInterrupt by :meth:`release`, after the round is complete.
    Elsewhere it raises KeyboardInterrupt at once, as Python's own handler
    does.  The handler is installed only in the main thread and only when
    SIGINT has Python's default handler (otherwise nothing is held back).
    A fit in another thread (``n_jobs``) is given the ``stop`` event its
    one-vs-rest fit sets on Ctrl-C: :meth:`release` raises then too.
    """

    def __init__(self, stop: threading.Event | None = None) -> None:
        self._held = False
        self._pending = False
        self._previous: Any = None
        self._stop = stop  # set when a one-vs-rest fit in parallel threads is interrupted

    def __enter__(self) -> "CtrlC":
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: Any) -> bool:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False

    def _handler(self, signum: int, frame: Any) -> None:
        if self._held:
            self._pending = True
        else:
            raise KeyboardInterrupt

    def hold(self) -> None:
        """From here on, hold a Ctrl-C back."""
        self._held = True

    def release(self) -> None:
        """Stop holding; raise KeyboardInterrupt if a Ctrl-C came in meanwhile."""
        self._held = False
        if self._pending or (self._stop is not None and self._stop.is_set()):
            self._pending = False
            raise KeyboardInterrupt
