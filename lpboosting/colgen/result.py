"""What a column-generation run returns: the last verified master, its columns and the history."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from lpboosting.colgen.history import History
from lpboosting.masters.base import MasterSolution

if TYPE_CHECKING:
    from lpboosting.colgen.state import RunState

__all__ = ["ColumnGenerationResult"]


@dataclass
class ColumnGenerationResult:
    """What a run produced, also when it stopped early.

    ``weights``, ``distribution`` and ``objective`` come from the last master
    that was solved successfully; ``columns`` (N x T) and ``hypotheses`` are
    the T columns that master was solved over (``columns`` is int8 when every
    column is -1/0/1, as for stumps and trees; see :mod:`lpboosting.columns`).
    """

    objective: float
    weights: np.ndarray
    distribution: np.ndarray
    columns: np.ndarray
    hypotheses: list[Any]
    n_rounds: int
    history: History
    status: str
    solution: MasterSolution | None
    gap: float | None
    message: str = ""
    edges: list[float] = field(default_factory=list)
    #: per recorded round, the master's weights as (indices, values) of the nonzero ones
    weight_path: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    #: what ``column_generation(resume=...)`` needs to go on (None once saved or pickled)
    state: "RunState | None" = field(default=None, repr=False, compare=False)

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    def weights_at(self, round: int) -> np.ndarray:
        """The master's weights after ``round`` (1-based), one entry per column of that master."""
        if not 1 <= round <= len(self.weight_path):
            raise ValueError(f"round must be in 1..{len(self.weight_path)}, got {round!r}")
        index, values = self.weight_path[round - 1]
        n_columns = self.history[round - 1].n_columns
        out = np.zeros(n_columns)
        out[index] = values
        return out

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["state"] = None  # a live solver session does not pickle
        return state

    # -- serialisation -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The result as strict JSON data (NaN and +-inf as null).

        Holds the objective, status, message, gap, weights, distribution,
        the columns (N x T), their edges, the weights after each round, the
        history, and the hypotheses when they can be written (stumps, scaled
        features, trees; others are written as their repr and read back as
        None).  The live run (:attr:`state`) is not written.
        """
        from lpboosting.jsonfile import to_json_value
        from lpboosting.model_io import hypothesis_to_dict

        hypotheses = []
        for h in self.hypotheses:
            try:
                hypotheses.append(hypothesis_to_dict(h))
            except TypeError:
                hypotheses.append({"kind": "unsaved", "repr": repr(h)})
        columns = np.asarray(self.columns)
        return to_json_value({
            "format": "lpboosting-result", "format_version": 1,
            "objective": self.objective, "status": self.status, "message": self.message,
            "gap": self.gap, "n_rounds": self.n_rounds, "weights": self.weights,
            "distribution": self.distribution, "columns": columns, "columns_dtype": columns.dtype.str,
            "edges": self.edges, "hypotheses": hypotheses,
            "weight_path": [{"index": i, "value": v} for i, v in self.weight_path],
            "history": self.history.to_json(),
        })

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ColumnGenerationResult":
        """The inverse of :meth:`to_dict` (``solution`` and ``state`` are None)."""
        from lpboosting.model_io import hypothesis_from_dict

        if not isinstance(data, dict) or data.get("format") != "lpboosting-result":
            raise ValueError("not a saved column-generation result (its 'format' is not 'lpboosting-result')")
        history = History.from_json(data["history"])
        n = int(history.meta.get("n_samples", len(data["distribution"])))
        columns = np.asarray(data["columns"], dtype=np.dtype(data["columns_dtype"])).reshape(n, -1)
        hypotheses = [None if h.get("kind") == "unsaved" else hypothesis_from_dict(h) for h in data["hypotheses"]]

        def floats(values):
            return np.asarray([np.nan if v is None else v for v in values], dtype=float)

        return cls(
            objective=np.nan if data["objective"] is None else float(data["objective"]),
            weights=floats(data["weights"]), distribution=floats(data["distribution"]), columns=columns,
            hypotheses=hypotheses, n_rounds=int(data["n_rounds"]), history=history, status=data["status"],
            solution=None, gap=data["gap"], message=data["message"], edges=list(data["edges"]),
            weight_path=[(np.asarray(p["index"], dtype=np.int32), floats(p["value"]))
                         for p in data["weight_path"]],
        )

    def save(self, path: Any) -> None:
        """Write :meth:`to_dict` as a JSON file."""
        import json
        from pathlib import Path

        Path(path).write_text(json.dumps(self.to_dict(), allow_nan=False))

    @classmethod
    def load(cls, path: Any) -> "ColumnGenerationResult":
        """Read a result written by :meth:`save`."""
        import json
        from pathlib import Path

        try:
            data = json.loads(Path(path).read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not a JSON result file ({exc.msg} at line {exc.lineno})") from None
        return cls.from_dict(data)
