"""The column-generation loop, its record, and the stand-alone solves."""

from lpboosting.colgen.history import History, RoundRecord
from lpboosting.colgen.loop import ColumnGenerationResult, RunState, column_generation
from lpboosting.colgen.path import NuPath, NuPathRun, nu_path
from lpboosting.colgen.solve import project_master, solve_master
from lpboosting.colgen.stabilization import Smoothing
from lpboosting.masters.pool import ColumnPool

__all__ = [
    "ColumnGenerationResult", "ColumnPool", "History", "NuPath", "NuPathRun", "RoundRecord", "RunState", "Smoothing",
    "column_generation", "nu_path", "project_master", "solve_master",
]
