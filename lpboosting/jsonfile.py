"""Strict JSON of the library's records: numpy values as Python ones, NaN and +-inf as null."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

__all__ = ["to_json_value", "write_json"]


def to_json_value(value: Any) -> Any:
    """A value as strict JSON: numpy scalars and arrays as Python ones, NaN and +-inf as null."""
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, str):
        return to_json_value(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_json(path: str | Path, data: Any) -> None:
    """Write ``data`` to ``path`` as indented strict JSON (:func:`to_json_value`): whole or not at
    all (written beside it, then moved over it), so a run stopped while writing keeps the last file."""
    path = Path(path)
    text = json.dumps(to_json_value(data), indent=1, allow_nan=False)
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)
