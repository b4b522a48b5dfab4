"""Package layout (metadata is in pyproject.toml).

The repository keeps its catalog of reference instances in ``models/`` at the
top level; the wheel carries it as ``lpboosting/models`` (package data), so an
installed package finds it too (``lpboosting.catalog.default_directory``).
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["lpboosting", "lpboosting.*"]), "lpboosting.models"],
    package_dir={"lpboosting.models": "models"},
    package_data={"lpboosting.models": ["index.json", "*.npz", "*.mps", "README.md"]},
)
