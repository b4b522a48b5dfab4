"""Small pieces shared by the benchmark harnesses."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from typing import Any

from lpboosting.jsonfile import write_json  # noqa: F401 (the benchmarks' writer)


def package_version(package: str) -> str:
    """Installed version of ``package``, or "not installed"."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


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
