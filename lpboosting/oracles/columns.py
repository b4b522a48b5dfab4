"""Oracles over a finite pool of columns, and over user callables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from lpboosting.masters.base import check_margin_matrix
from lpboosting.oracles.base import Candidate, Oracle, check_features, check_labels_pm


@dataclass(frozen=True)
class ColumnRef:
    """The hypothesis behind column ``index`` of a :class:`Columns` pool."""

    index: int
    name: str | None = None


class Columns(Oracle):
    """Exact oracle over a finite pool given as a margin matrix U (N x M).

    Pricing returns the column of largest edge d . U[:, m].  ``names``
    optionally labels the columns.
    """

    exact = True
    name = "columns"

    def __init__(self, U, names: list[str] | None = None) -> None:
        U = check_margin_matrix(U)
        super().__init__(U.shape[0])
        self.U = U
        if names is not None and len(names) != U.shape[1]:
            raise ValueError(f"{len(names)} names for {U.shape[1]} columns")
        self.names = None if names is None else list(names)

    def price(self, distribution):
        d = self._check_distribution(distribution)
        edges = d @ self.U
        return self._candidate(edges, int(np.argmax(edges)))

    def price_many(self, distribution, k):
        """The ``k`` columns of largest edge (the most violated dual constraints), best first."""
        if int(k) <= 1:
            return [self.price(distribution)]
        d = self._check_distribution(distribution)
        edges = d @ self.U
        order = np.lexsort((np.arange(edges.size), -edges))[: int(k)]
        return [self._candidate(edges, int(m)) for m in order]

    def _candidate(self, edges: np.ndarray, m: int) -> Candidate:
        ref = ColumnRef(m, None if self.names is None else self.names[m])
        return Candidate(ref, self.U[:, m].copy(), float(edges[m]))


def call_user_oracle(fn: Callable[..., Any], args: tuple, expected: str) -> Any:
    """fn(*args), with a clear error when fn does not take these arguments."""
    import inspect

    try:
        inspect.signature(fn).bind(*args)
    except TypeError:
        raise TypeError(f"the oracle function must take {expected}; {getattr(fn, '__name__', fn)!s} "
                        f"takes {inspect.signature(fn)}") from None
    except ValueError:  # no signature to read (a builtin): call it and see
        pass
    return fn(*args)


def as_numbers(values: Any, what: str, n: int) -> np.ndarray:
    """``values`` as a float vector of length n, or a TypeError/ValueError that says what came back."""
    try:
        out = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be {n} numbers, got {type(values).__name__} holding "
                        f"{np.asarray(values, dtype=object).ravel()[:3].tolist()}...") from None
    return out


class CallableOracle(Oracle):
    """Wrap a user function ``fn(d) -> column`` or ``fn(d) -> (column, hypothesis)``.

    Inexact unless the caller guarantees otherwise with ``exact=True``.
    """

    name = "callable"

    def __init__(self, fn: Callable[[np.ndarray], Any], n_samples: int, *, exact: bool = False) -> None:
        super().__init__(n_samples)
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {type(fn).__name__}")
        self.fn = fn
        self.exact = bool(exact)

    def price(self, distribution):
        d = self._check_distribution(distribution)
        out = call_user_oracle(self.fn, (d,), "one argument, the distribution d")
        column, hyp = (out if isinstance(out, tuple) else (out, None))
        column = as_numbers(column, "the column returned by the oracle function", self.n_samples)
        if column.shape != (self.n_samples,) or not np.all(np.isfinite(column)):
            raise ValueError(
                f"the oracle callable must return a finite column of length {self.n_samples}, "
                f"got shape {column.shape}"
            )
        return Candidate(hyp, column, float(d @ column))


class HypothesisOracle(Oracle):
    """Wrap ``fn(X, y, d) -> hypothesis`` where the hypothesis has ``predict(X)`` in [-1, 1].

    This is how a user-supplied weak learner is plugged into the classifiers.
    """

    name = "callable"

    def __init__(self, fn: Callable[..., Any], X, y, *, exact: bool = False) -> None:
        X = check_features(X, oracle="callable")
        super().__init__(X.shape[0])
        if not callable(fn):
            raise TypeError(f"the oracle must be callable, got {type(fn).__name__}")
        self.fn = fn
        self.X = X
        self.y = check_labels_pm(y, X.shape[0])
        self.exact = bool(exact)

    def price(self, distribution):
        d = self._check_distribution(distribution)
        hyp = call_user_oracle(self.fn, (self.X, self.y, d), "three arguments (X, y, d)")
        if not hasattr(hyp, "predict"):
            raise TypeError(
                "a callable oracle must return a hypothesis with a predict(X) method giving values "
                f"in [-1, 1]; got {type(hyp).__name__}"
            )
        h = as_numbers(hyp.predict(self.X), "the predictions of the oracle's hypothesis", self.n_samples)
        if h.shape != (self.n_samples,) or not np.all(np.isfinite(h)) or np.any(np.abs(h) > 1 + 1e-12):
            raise ValueError(
                "the hypothesis returned by the callable oracle must predict one finite value in "
                "[-1, 1] per training row"
            )
        column = self.y * h
        return Candidate(hyp, column, float(d @ column))
