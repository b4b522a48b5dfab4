"""Small pieces shared by the benchmark harnesses."""

from __future__ import annotations

import math
from importlib import metadata
from typing import Any


def package_version(package: str) -> str:
    """Installed version of ``package``, or "not installed"."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def jsonable(value: Any) -> Any:
    """``value`` with non-finite floats as None, ready for ``json.dump``."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value
