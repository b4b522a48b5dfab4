"""Tests of the backends (backends/): every solver on the same instances, the solver records and the fallback policy."""
