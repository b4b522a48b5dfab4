"""The column-generation loop, its record, and the stand-alone solves."""

from lpboosting.colgen.history import History, RoundRecord
from lpboosting.colgen.loop import ColumnGenerationResult, RunState, column_generation, continue_run
from lpboosting.colgen.options import Deadline, LoopOptions
from lpboosting.colgen.path import NuPath, NuPathRun, nu_path
from lpboosting.colgen.solve import project_master, solve_master
from lpboosting.colgen.stabilization import Smoothing
from lpboosting.masters.pool import ColumnPool

__all__ = [
    "ColumnGenerationResult", "ColumnPool", "Deadline", "History", "LoopOptions", "NuPath", "NuPathRun", "RoundRecord",
    "RunState", "Smoothing", "column_generation", "continue_run", "nu_path", "project_master", "solve_master",
]
