"""The per-round record of column generation."""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterator

from lpboosting.jsonfile import to_json_value


@dataclass
class RoundRecord:
    """One round: the master solved over ``n_columns`` columns, then priced.

    ``primal`` and ``dual`` are the restricted master's two objective values
    (equal up to solver accuracy).  ``edge`` is the best edge the oracle
    found under this round's distribution (the candidate column);
    ``gap`` is the master's optimality gap when the oracle is exact, ``None``
    otherwise: ``edge - dual`` for LPBoost (an upper minus a lower bound on
    the full LP's value), ``edge - gamma*_t`` for the entropy masters (whose
    primal/dual are the projection's values and ``extra["gamma_star"]`` the
    LP value over the chosen columns), ``max(edge - lam, 0)`` for RMBoost.  With
    dual stabilisation ``edge`` is the best edge at the point priced (see
    ``extra["priced"]``: ``"true"``, ``"smoothed"`` or ``"true (mis-pricing)"``)
    and, for a master with a Lagrangian bound (LPBoost, the entropy masters'
    LP), ``gap`` is the best bound so far minus ``dual``; for the others it is
    recorded only in rounds priced at the true duals.  ``status`` is what the loop did next:
    ``"added"``, ``"converged"``, ``"max_rounds"``, ``"stalled"``,
    ``"time_limit"``, ``"stopped"`` (by the callback), ``"interrupted"`` or
    ``"solver_error"``.  ``extra`` holds master-specific values (flattened by
    :meth:`History.to_dict`), and ``new_columns`` when k columns a round are asked.
    """

    round: int
    n_columns: int
    primal: float | None
    dual: float | None
    gap: float | None
    edge: float | None
    exact: bool
    master_seconds: float
    pricing_seconds: float
    iterations: int | None
    status: str
    extra: dict[str, Any] = field(default_factory=dict)


_FIELDS = [f.name for f in fields(RoundRecord) if f.name != "extra"]


#: fields of a record that hold numbers: written as null when None, NaN or +-inf (strict JSON), and
#: read back as they were: None as None, NaN and +-inf from the history's "nonfinite" list
_NUMBERS = ("primal", "dual", "gap", "edge")
#: how "nonfinite" names a non-finite number
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _nonfinite_name(value: Any) -> str | None:
    """"nan", "inf" or "-inf" for a non-finite float, else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return None


def _decode_number(value: Any) -> Any:
    """Older files wrote non-finite numbers as the strings "nan", "inf", "-inf"."""
    if isinstance(value, str) and value in ("nan", "inf", "-inf"):
        return float(value)
    return value


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


#: how a history file is made, for the messages about files that are not one
_WRITTEN_BY = "a history is the JSON file written by History.save (`lpboosting fit --history FILE`)"


def _kind(value: Any) -> str:
    """What a JSON value is, for messages: "a list", "a string", "null"."""
    if value is None:
        return "null"
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
             float: "a number"}
    return names.get(type(value), f"a {type(value).__name__}")


def _same(a: Any, b: Any) -> bool:
    """Equality of JSON-like values in which NaN, and NaN and None (JSON's null), are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "tolist") or hasattr(b, "tolist"):  # numpy arrays and scalars (an extra may hold one)
        a, b = (v.tolist() if hasattr(v, "tolist") else v for v in (a, b))
        if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
            return _same(a, b)
    if _missing(a) and _missing(b):
        return True
    if isinstance(a, float) and isinstance(b, float) and math.isinf(a) and math.isinf(b):
        return a == b
    return bool(a == b)


class History:
    """Sequence of :class:`RoundRecord` with a table view and JSON save/load.

    ``meta`` holds run-level facts: master and parameters, oracle and whether
    it is exact, backend, the initial pricing, the final status.
    """

    def __init__(self, records: list[RoundRecord] | None = None, meta: dict[str, Any] | None = None) -> None:
        self.records: list[RoundRecord] = list(records or [])
        self.meta: dict[str, Any] = dict(meta or {})

    def append(self, record: RoundRecord) -> None:
        self.records.append(record)

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, index):
        """A record (``history[-1]``), a History of records (``history[2:]``), or a column.

        ``history["loss"]`` is the column of that name over the records, a
        standard field or an extra (missing extras are None): the same list
        as ``history.to_dict()["loss"]``.
        """
        if isinstance(index, str):
            return self._column(index)
        if isinstance(index, slice):
            return History(self.records[index], self.meta)
        return self.records[index]

    def _column(self, name: str) -> list[Any]:
        if name in _FIELDS:
            return [getattr(r, name) for r in self.records]
        if any(name in r.extra for r in self.records):
            return [r.extra.get(name) for r in self.records]
        raise KeyError(f"History has no column {name!r}; its columns are {self.columns()}")

    def __iter__(self) -> Iterator[RoundRecord]:
        return iter(self.records)

    def __repr__(self) -> str:
        return f"History({len(self)} rounds, status={self.meta.get('status')!r})"

    def columns(self) -> list[str]:
        extra: list[str] = []
        for r in self.records:
            extra.extend(k for k in r.extra if k not in extra)
        return _FIELDS + extra

    def to_dict(self) -> dict[str, list[Any]]:
        """Column name -> list of values, one per round (missing extras are None)."""
        names = self.columns()
        out: dict[str, list[Any]] = {name: [] for name in names}
        for r in self.records:
            row = asdict(r)
            extra = row.pop("extra")
            for name in names:
                out[name].append(row[name] if name in row else extra.get(name))
        return out

    def to_pandas(self):
        """The table as a pandas DataFrame (pandas is optional)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("History.to_pandas needs pandas: `pip install pandas`") from exc
        return pd.DataFrame(self.to_dict())

    def to_json(self) -> dict[str, Any]:
        """The history as strict JSON data (NaN and +-inf written as null).

        A record's ``primal``, ``dual``, ``gap`` or ``edge`` that is NaN or
        +-inf is also listed under ``"nonfinite"`` as ``[index, field, "nan" |
        "inf" | "-inf"]`` (index in ``"records"``), so that it reads back as it
        was, and a None as None.
        """
        out: dict[str, Any] = {"meta": to_json_value(self.meta),
                               "records": [to_json_value(asdict(r)) for r in self.records]}
        nonfinite = [[i, name, _nonfinite_name(getattr(r, name))] for i, r in enumerate(self.records)
                     for name in _NUMBERS if _nonfinite_name(getattr(r, name)) is not None]
        if nonfinite:
            out["nonfinite"] = nonfinite
        return out

    @classmethod
    def from_json(cls, payload: dict[str, Any], *, source: str | None = None) -> "History":
        """The inverse of :meth:`to_json` (a null number reads back as None, or as the NaN or +-inf
        that ``"nonfinite"`` says it was).

        ``payload`` must be an object with ``"records"`` (a list of rounds, each
        an object with the fields of :class:`RoundRecord`) and optionally
        ``"meta"`` (an object); anything else raises a ValueError saying what is
        wrong (``source`` names where the payload came from in that message).
        A record field this version does not know (written by a newer version)
        is read into the record's ``extra`` (an extra of the same name keeps its
        own value), with one UserWarning naming the fields; a missing field is
        an error naming the round and the field.
        """
        return cls._read(payload, source or "the history")

    @classmethod
    def _read(cls, payload: Any, where: str, stacklevel: int = 3) -> "History":
        """:meth:`from_json`'s work; the warning is reported ``stacklevel`` frames up."""
        if not isinstance(payload, dict):
            raise ValueError(f"{where} is not a history: it holds {_kind(payload)}, not an object with "
                             f"\"records\" and \"meta\"; {_WRITTEN_BY}")
        if "records" not in payload:
            if payload.get("format") == "lpboosting-model":
                raise ValueError(f"{where} is not a history but a model file (save_model); read it with "
                                 "lpboosting.model_io.load_model (its history is the model's history_)")
            keys = ", ".join(map(repr, list(payload)[:8])) or "none"
            raise ValueError(f"{where} is not a history: the object has no \"records\" (its keys: "
                             f"{keys}); {_WRITTEN_BY}")
        rows, meta = payload["records"], payload.get("meta", {})
        if not isinstance(rows, list):
            raise ValueError(f"{where} is not a history: \"records\" must be a list of rounds, got "
                             f"{_kind(rows)}; {_WRITTEN_BY}")
        if not isinstance(meta, dict):
            raise ValueError(f"{where} is not a history: \"meta\" must be an object, got {_kind(meta)}; "
                             f"{_WRITTEN_BY}")
        records, unknown = [], []
        for i, row in enumerate(rows, start=1):
            if not isinstance(row, dict):
                raise ValueError(f"{where} is not a history: round {i} of its \"records\" is {_kind(row)}, "
                                 f"not an object with the fields {', '.join(_FIELDS)}; {_WRITTEN_BY}")
            row = dict(row)
            extra = row.pop("extra", None)
            extra = {} if extra is None else extra
            if not isinstance(extra, dict):
                raise ValueError(f"{where}: round {i}'s \"extra\" must be an object, got {_kind(extra)}")
            extra = dict(extra)
            missing = [name for name in _FIELDS if name not in row]
            if missing:
                raise ValueError(f"{where}: round {i} has no {', '.join(map(repr, missing))} (a record "
                                 f"has the fields {', '.join(_FIELDS)}); the file was changed or cut "
                                 f"short after it was written; {_WRITTEN_BY}")
            for name in [name for name in row if name not in _FIELDS]:
                if name not in unknown:
                    unknown.append(name)
                extra.setdefault(name, row.pop(name))
            for name in _NUMBERS:
                row[name] = _decode_number(row[name])
            records.append(RoundRecord(**row, extra=extra))
        for entry in payload.get("nonfinite") or []:
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int)
                    and 0 <= entry[0] < len(records) and entry[1] in _NUMBERS and entry[2] in _NONFINITE):
                raise ValueError(f"{where}: \"nonfinite\" must list [round index, field, value] with a field "
                                 f"of {', '.join(_NUMBERS)} and a value of {', '.join(map(repr, _NONFINITE))}; "
                                 f"got {entry!r}; {_WRITTEN_BY}")
            setattr(records[entry[0]], entry[1], _NONFINITE[entry[2]])
        if unknown:
            warnings.warn(f"{where}: the records have fields this version of lpboosting does not know "
                          f"({', '.join(unknown)}; written by a newer version?): read into each record's "
                          "extra (history[name] gives them as columns)", UserWarning, stacklevel=stacklevel)
        return cls(records, dict(meta))

    def save(self, path: str | Path) -> None:
        """Write the history (records and meta) as JSON; NaN and +-inf are written as null."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1, allow_nan=False))

    @classmethod
    def load(cls, path: str | Path) -> "History":
        """A history written by :meth:`save` (``lpboosting fit --history``).

        A file that is empty, cut short, not JSON, or JSON that is not a
        history raises a ValueError naming the file and what is wrong (an
        OSError if it cannot be read).  Fields of a newer version are kept
        in ``extra`` (see :meth:`from_json`).
        """
        where = str(path)
        data = Path(path).read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError(f"{where} is not a history: it is not text (a history is a JSON file; is it "
                             f"a pickled model?); {_WRITTEN_BY}") from None
        if not text.strip():
            raise ValueError(f"{where} is empty: it holds no history; {_WRITTEN_BY}")
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
                raise ValueError(f"{where} is truncated: its JSON stops at line {exc.lineno} column "
                                 f"{exc.colno} before the history ends; its writing was "
                                 "cut short: write it again (History.save, `lpboosting fit --history "
                                 "FILE`)") from None
            raise ValueError(f"{where} is not a history: it is not valid JSON ({exc.msg} at line "
                             f"{exc.lineno} column {exc.colno}); {_WRITTEN_BY}") from None
        return cls._read(payload, where)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, History):
            return NotImplemented
        # NaN (e.g. SoftBoost's last round has no projection value) counts as equal to NaN
        return _same(self.to_dict(), other.to_dict()) and _same(self.meta, other.meta)

    # -- a column-generation ledger -------------------------------------------
    LEDGER_HEADER = (
        f"{'round':>5} {'cols':>5} {'primal':>12} {'dual':>12} {'gap':>10} {'edge':>10} "
        f"{'master ms':>9} {'price ms':>8} {'iters':>5}  status"
    )

    @staticmethod
    def format_record(r: RoundRecord) -> str:
        def num(v: float | None, width: int, spec: str) -> str:
            # a missing value, None or NaN (JSON reads NaN back as null), is a dash
            if _missing(v):
                return f"{'-':>{width}}"
            text = format(v, spec)
            if text.startswith("-") and float(text) == 0:  # -1e-9 as -0.0000000: print 0
                text = text[1:]
            return f"{text:>{width}}"

        return (
            f"{r.round:>5} {r.n_columns:>5} {num(r.primal, 12, '.7f')} {num(r.dual, 12, '.7f')} "
            f"{num(r.gap, 10, '.2e')} {num(r.edge, 10, '.6f')} {r.master_seconds * 1e3:>9.2f} "
            f"{r.pricing_seconds * 1e3:>8.2f} {num(r.iterations, 5, 'd')}  {r.status}"
        )

    def ledger(self) -> str:
        """The whole history as a fixed-width table."""
        return "\n".join([self.LEDGER_HEADER] + [self.format_record(r) for r in self.records])
