"""One check of an estimator's parameters: scikit-learn's ``_parameter_constraints``, our wording.

An estimator declares, as class attributes (data, not code):

``_parameter_constraints``
    scikit-learn's format: parameter name -> list of constraints, any one of
    which makes a value valid (:class:`Interval`, :class:`StrOptions`,
    :class:`Names`, ``"boolean"``, ``None``, ``callable``, a type, ...), or
    ``"no_validation"``.
``_parameter_messages`` (optional)
    parameter name -> :class:`Explain`, for the parameters whose error needs
    more than the wording generated from the constraints.

:func:`check_params` (called first thing in ``fit``) checks every parameter
with scikit-learn's own ``validate_parameter_constraints`` and reports the
first invalid one as ``"<Class>: <name> must be <what>, got <value!r>; <advice>"``
(or ``"<Class>: unknown <name> <value!r>; <advice>"`` for a name that is not
one of the choices).  The error is scikit-learn's ``InvalidParameterError``,
a ``ValueError``.  Rules between parameters stay code in the estimator.

:func:`renamed_parameter` handles a parameter that has a new name: the old
one stays in ``__init__`` with the default ``"deprecated"`` (scikit-learn's
convention; its constraint is :func:`deprecated_alias`) and, when set, is
used with a FutureWarning.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import Hidden, InvalidParameterError, Options, StrOptions
from sklearn.utils._param_validation import Interval as _Interval
from sklearn.utils._param_validation import (
    _Booleans,
    _Callables,
    _InstancesOf,
    _NoneConstraint,
    make_constraint,
    validate_parameter_constraints,
)

__all__ = [
    "DEPRECATED", "Explain", "Hidden", "Integral", "Interval", "InvalidParameterError", "Names",
    "Options", "Real", "StrOptions", "check_params", "deprecated_alias", "describe", "renamed_parameter",
]

#: default of a parameter kept only under its old name
DEPRECATED = "deprecated"


class Interval(_Interval):
    """scikit-learn's ``Interval``, except that True and False are not numbers.

    A real interval with an open or missing end excludes +-inf (and NaN is
    never inside), so ``Interval(Real, 0, None, closed="neither")`` is "a
    finite number > 0".
    """

    def is_satisfied_by(self, val: Any) -> bool:
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


class Names(StrOptions):
    """``StrOptions`` matched after stripping blanks and lowering case ("Parallel " is "parallel")."""

    def is_satisfied_by(self, val: Any) -> bool:
        return isinstance(val, str) and val.strip().lower() in self.options


@dataclass(frozen=True)
class Explain:
    """How an invalid value of one parameter is reported.

    ``what`` replaces the description generated from the constraints (the
    text after "must be"); ``advice`` follows after "; ".  ``unknown=True``
    words the error "unknown <name> <value!r>; <advice>" (for names).
    """

    what: str | None = None
    advice: str | None = None
    unknown: bool = False


def deprecated_alias(constraints: list[Any]) -> list[Any]:
    """Constraints of a parameter's old name: those of the new name, or the hidden ``"deprecated"``."""
    return [*constraints, Hidden(StrOptions({DEPRECATED}))]


# -- the description generated from the constraints ------------------------------------------


def _article(word: str) -> str:
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"


def _describe_interval(c: _Interval) -> str:
    integer = c.type is Integral
    low_op = ">=" if c.closed in ("left", "both") else ">"
    high_op = "<=" if c.closed in ("right", "both") else "<"
    if c.left is not None and c.right is not None:
        lo = "[" if c.closed in ("left", "both") else "("
        hi = "]" if c.closed in ("right", "both") else ")"
        return f"{'an integer' if integer else 'a number'} in {lo}{c.left}, {c.right}{hi}"
    kind = "an integer" if integer else "a finite number"
    if c.left is not None:
        return f"{kind} {low_op} {c.left}"
    if c.right is not None:
        return f"{kind} {high_op} {c.right}"
    return kind


def _describe(constraint: Any) -> str:
    if isinstance(constraint, _Interval):
        return _describe_interval(constraint)
    if isinstance(constraint, Options):
        return f"one of {sorted(constraint.options, key=repr)}"
    if isinstance(constraint, _Booleans):
        return "True or False"
    if isinstance(constraint, _NoneConstraint):
        return "None"
    if isinstance(constraint, _Callables):
        return "a callable"
    if isinstance(constraint, _InstancesOf):
        return _article(constraint.type.__name__)
    return str(constraint)


def describe(constraints: list[Any]) -> str:
    """The constraints in words: "an integer >= 2 or None", "True or False", ..."""
    shown = [c for c in map(make_constraint, constraints) if not c.hidden]
    words = [_describe(c) for c in shown]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


# -- the check ---------------------------------------------------------------------------------


def check_params(estimator: Any) -> None:
    """Check ``estimator.get_params(deep=False)`` against its ``_parameter_constraints``.

    Raises ``InvalidParameterError`` (a ValueError) for the first parameter,
    in the order of the constraints, that satisfies none of its constraints.
    """
    constraints = type(estimator)._parameter_constraints
    messages = getattr(type(estimator), "_parameter_messages", {})
    params = estimator.get_params(deep=False)
    caller = type(estimator).__name__
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        try:
            validate_parameter_constraints({name: allowed}, {name: value}, caller_name=caller)
        except InvalidParameterError:
            explain = messages.get(name, Explain())
            if explain.unknown:
                text = f"unknown {name} {value!r}"
            else:
                text = f"{name} must be {explain.what or describe(allowed)}, got {value!r}"
            if explain.advice:
                text += f"; {explain.advice}"
            raise InvalidParameterError(f"{caller}: {text}") from None


def renamed_parameter(estimator: Any, old: str, new: str) -> Any:
    """The value of parameter ``new``, or of its old name ``old`` when that one was set.

    ``old`` set (not ``"deprecated"``): its value is used, with a
    FutureWarning; a ValueError if ``new`` was also set to another value
    (``new`` counts as set when it differs from its default).
    """
    old_value = getattr(estimator, old)
    new_value = getattr(estimator, new)
    if isinstance(old_value, str) and old_value == DEPRECATED:
        return new_value
    name = type(estimator).__name__
    default = inspect.signature(type(estimator).__init__).parameters[new].default
    if new_value != default and new_value != old_value:
        raise ValueError(
            f"{name}: {old} is the old name of {new}; got {old}={old_value!r} and "
            f"{new}={new_value!r}: pass {new} only"
        )
    warnings.warn(
        f"{name}: the parameter {old} was renamed {new}; use {new}={old_value!r} "
        f"({old} will be removed in a future release)", FutureWarning, stacklevel=3,
    )
    return old_value
