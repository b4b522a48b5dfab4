"""HiGHS through highspy: one live model per run, a row or a column pair added per round.

- :mod:`~lpboosting.backends.highs.model`: the backend, its options, the
  status map and the solve-and-read step every HiGHS session shares;
- :mod:`~lpboosting.backends.highs.lpboost`: LPBoost's dual as a row model;
- :mod:`~lpboosting.backends.highs.rmboost`: RMBoost's primal (16) as a
  column-pair model (also the dedicated simplex's fallback).
"""

from lpboosting.backends.highs.model import HighspyBackend

__all__ = ["HighspyBackend"]
