"""Data: paper generators and bundled loaders."""

from lpboosting.datasets.krause_singer import krause_singer_synthetic
from lpboosting.datasets.loaders import breast_cancer, load_keel
from lpboosting.datasets.long_servedio import long_servedio
from lpboosting.datasets.named import Dataset, load_dataset
from lpboosting.datasets.noise import flip_classes, flip_labels
from lpboosting.datasets.synthetic import softboost_synthetic, twonorm

__all__ = [
    "Dataset", "breast_cancer", "flip_classes", "flip_labels", "krause_singer_synthetic", "load_dataset", "load_keel", "long_servedio",
    "softboost_synthetic", "twonorm",
]
