"""Where a result came from: the versions of the library and of what it computes with."""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version

__all__ = ["versions"]

#: the distributions whose versions a run records
PACKAGES = ("lpboosting", "numpy", "scipy", "scikit-learn", "highspy", "cvxpy")


@lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    out = [("python", sys.version.split()[0])]
    for name in PACKAGES:
        try:
            out.append((name, version(name)))
        except PackageNotFoundError:
            out.append((name, "not installed"))
    return tuple(out)


def versions() -> dict[str, str]:
    """Python's and each package's version (``"not installed"`` for a missing one)."""
    return dict(_versions())
