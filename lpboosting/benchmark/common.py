"""Small pieces shared by the benchmark harnesses."""

from __future__ import annotations

import json
import math
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
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


def write_json(path: str | Path, data: Any) -> None:
    """Write ``data`` (non-finite floats as null) to ``path`` as indented JSON."""
    Path(path).write_text(json.dumps(jsonable(data), indent=1))


def machine_info(*packages: str) -> dict[str, Any]:
    """Where a benchmark ran: platform, CPUs, 1-minute load, Python, numpy and ``packages``' versions."""
    import numpy as np

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    info: dict[str, Any] = {
        "platform": platform.platform(), "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(), "load1": round(load, 2), "python": sys.version.split()[0],
        "numpy": np.__version__,
    }
    info.update({name: package_version(name) for name in packages})
    return info
