"""Benchmark harnesses for lpboosting (run them as ``python -m lpboosting.benchmark.<name>``)."""
