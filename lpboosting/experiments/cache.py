"""An on-disk cache of experiment runs: one JSON file per unit of work, one summary per experiment.

Layout under the cache directory (chosen by the user; nothing is ever
written inside the installed package)::

    <experiment>/runs/<key>.json     one unit of work: its parameters, result, seconds
    <experiment>/summary.json        the aggregated table of the last run

``key`` is a hash of the unit's parameters (which include the experiment's
code version), so a run with other options or after a change of protocol
never reads a stale result, and a run that was interrupted goes on where it
stopped.  Non-finite floats are written as ``null`` (strict JSON).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DEFAULT_CACHE", "ResultCache", "to_json"]

#: the cache directory when none is given: relative to the working directory
DEFAULT_CACHE = "reproductions-cache"


def to_json(value: Any) -> Any:
    """``value`` with numpy scalars and arrays as Python numbers and lists, NaN/inf as None."""
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_json(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def _write_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(to_json(data), fh, indent=1, allow_nan=False)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ResultCache:
    """Runs and summaries of the experiments under ``directory``."""

    def __init__(self, directory: str | os.PathLike = DEFAULT_CACHE) -> None:
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"ResultCache({str(self.directory)!r})"

    @staticmethod
    def key(params: dict[str, Any]) -> str:
        """A stable hash of a unit's parameters."""
        text = json.dumps(to_json(params), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    def run_path(self, experiment: str, params: dict[str, Any]) -> Path:
        return self.directory / experiment / "runs" / f"{self.key(params)}.json"

    def get(self, experiment: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """The cached result of the unit ``params``, or None (also for an unreadable file)."""
        path = self.run_path(experiment, params)
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if entry.get("params") != to_json(params):  # a hash collision or a hand-edited file
            return None
        return entry

    def put(self, experiment: str, params: dict[str, Any], result: dict[str, Any],
            seconds: float) -> dict[str, Any]:
        entry = {"params": to_json(params), "result": to_json(result), "seconds": float(seconds)}
        _write_atomic(self.run_path(experiment, params), entry)
        return entry

    def summary_path(self, experiment: str) -> Path:
        return self.directory / experiment / "summary.json"

    def save_summary(self, experiment: str, summary: dict[str, Any]) -> Path:
        path = self.summary_path(experiment)
        _write_atomic(path, summary)
        return path

    def load_summary(self, experiment: str) -> dict[str, Any]:
        """The summary of the last run of ``experiment``; a clear error when there is none."""
        path = self.summary_path(experiment)
        if not path.is_file():
            raise FileNotFoundError(
                f"no cached results of {experiment} in {self.directory} (looked for {path}); run "
                f"`lpboosting reproduce {experiment} --cache {self.directory}` first"
            )
        return json.loads(path.read_text())
