"""Small pieces shared by the benchmark harnesses."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from typing import Any, Callable

from lpboosting.jsonfile import write_json  # noqa: F401 (the benchmarks' writer)


def key_values(items: Any) -> dict[str, Any]:
    """``["max_depth=5", "criterion=gini"]`` -> ``{"max_depth": 5, "criterion": "gini"}``: each value a
    Python literal where it reads as one, else the string; ValueError on an item without ``=``."""
    import ast

    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"write each as key=value, got {item!r}")
        try:
            out[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            out[key.strip()] = value.strip()
    return out


def checked_backend(name: str, options: dict[str, Any]) -> Any:
    """``get_backend(name, **options)``, with a HiGHS model made at once so that an option HiGHS
    rejects is said (ValueError) before any run, not in the first solve."""
    from lpboosting.backends import get_backend

    backend = get_backend(name, **options)
    if hasattr(backend, "new_model"):
        backend.new_model()
    return backend


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


def fit_and_score(makers: dict[str, Callable[[], Any]], chosen: list[str], X_train: Any, y_train: Any,
                  X_test: Any, y_test: Any) -> dict[str, dict[str, Any]]:
    """Each chosen method made anew, fitted on the training rows (its warnings silenced) and
    scored on the test rows: test error, fit seconds, and the nu, oracle and oracle parameters it
    chose (NaN and None for a method that chooses none)."""
    import time
    import warnings

    import numpy as np

    out: dict[str, dict[str, Any]] = {}
    for method in chosen:
        model = makers[method]()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X_train, y_train)
        out[method] = {"error": float(np.mean(model.predict(X_test) != y_test)),
                       "seconds": time.perf_counter() - start,
                       "nu": float(getattr(model, "nu_", np.nan)),
                       "oracle": getattr(model, "oracle_", None),
                       "oracle_params": (dict(model.oracle_params_)
                                         if getattr(model, "oracle_params_", None) is not None else None)}
    return out
