"""Data: paper generators and bundled loaders."""

from lpboosting.datasets.krause_singer import krause_singer_synthetic
from lpboosting.datasets.loaders import breast_cancer, load_keel
from lpboosting.datasets.long_servedio import long_servedio
from lpboosting.datasets.noise import flip_labels
from lpboosting.datasets.synthetic import softboost_synthetic

__all__ = [
    "breast_cancer", "flip_labels", "krause_singer_synthetic", "load_keel", "long_servedio",
    "softboost_synthetic",
]
