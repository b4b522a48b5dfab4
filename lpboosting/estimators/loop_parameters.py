"""The loop's options as parameters of every column-generation classifier: one definition.

scikit-learn reads a classifier's parameters from the signature of its
``__init__``, so each classifier names them there; what they mean, how they
are checked and how they reach the loop is written once, here:
:data:`LOOP_CONSTRAINTS` (the ``_parameter_constraints`` entries),
:func:`loop_parameters_doc` (their numpydoc entries, with the classifier's
defaults), and :meth:`lpboosting.colgen.LoopOptions.from_params`, which
builds the loop's options from the classifier's parameters.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

from lpboosting.colgen.stabilization import Smoothing
from lpboosting.params import Integral, Interval, Real, StrOptions

__all__ = ["LOOP_CONSTRAINTS", "LOOP_PARAMETERS_DOC", "loop_parameters_doc"]

#: the constraints of the loop's options (:class:`lpboosting.colgen.LoopOptions`), one per field
LOOP_CONSTRAINTS: dict[str, list[Any]] = {
    "max_rounds": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "time_limit": [None, Interval(Real, 0, None, closed="neither")],
    "stall_rounds": [None, Interval(Integral, 1, None, closed="left")],
    "columns_per_round": [Interval(Integral, 1, None, closed="left")],
    "stabilization": [None, StrOptions({"smoothing", "none"}), Smoothing],
    "verbose": ["verbose"],
    "callback": [None, callable],
}

#: the numpydoc entries of the loop's options (``verbose`` is with the classifiers' shared ones);
#: ``{name}`` is the classifier's default, ``{stop_rule}`` what tol means to its master's stop
LOOP_PARAMETERS_DOC = """    tol : float, default {tol}
{stop_rule}
    max_rounds : int, default {max_rounds}
        Rounds in all (a warm start counts those of the fit it continues).
    callback : callable, optional
        Called after every round with its :class:`~lpboosting.colgen.RoundRecord`
        (``callback(record)``, or ``callback(record, state)`` to get the
        :class:`~lpboosting.colgen.RunState` too); a truthy return stops the
        fit (the model so far is kept).
    columns_per_round : int, default {columns_per_round}
        Up to k improving columns a round (the oracle's k best; trees give
        one); the optimum is the same.
    stabilization : "smoothing", Smoothing or None, default {stabilization}
        Dual smoothing (Wentges) with the mis-pricing rule
        (:mod:`lpboosting.colgen.stabilization`); None prices at the master's
        own dual.
    time_limit : float or None, default {time_limit}
        Seconds for the whole fit (None: no limit).
    stall_rounds : int or None, default {stall_rounds}
        Stop as "stalled" when neither the objective nor the best bound
        moved by more than ``tol`` in that many rounds (None: never).  A fit
        that ends early (max_rounds, time_limit, stall_rounds) keeps its
        model and warns.
"""


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value).replace("e-0", "e-")  # 1e-6, not 1e-06


def loop_parameters_doc(cls: type) -> str:
    """:data:`LOOP_PARAMETERS_DOC` with the defaults of ``cls.__init__`` and ``cls._stop_rule`` (a
    sentence: what ``tol`` means to the master's stopping rule)."""
    parameters = inspect.signature(cls.__init__).parameters
    defaults = {name: _shown(parameters[name].default) for name in
                ("tol", "max_rounds", "columns_per_round", "stabilization", "time_limit", "stall_rounds")}
    rule = textwrap.fill(cls._stop_rule, width=80,
                         initial_indent=" " * 8, subsequent_indent=" " * 8)
    return LOOP_PARAMETERS_DOC.format(stop_rule=rule, **defaults)
