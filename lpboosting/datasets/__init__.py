"""Data: paper generators and bundled loaders."""

from lpboosting.datasets.loaders import breast_cancer, load_keel
from lpboosting.datasets.noise import flip_labels
from lpboosting.datasets.synthetic import softboost_synthetic

__all__ = ["breast_cancer", "flip_labels", "load_keel", "softboost_synthetic"]
