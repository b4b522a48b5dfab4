"""The column-generation loop and its record."""

from lpboosting.colgen.history import History, RoundRecord
from lpboosting.colgen.loop import ColumnGenerationResult, column_generation

__all__ = ["ColumnGenerationResult", "History", "RoundRecord", "column_generation"]
