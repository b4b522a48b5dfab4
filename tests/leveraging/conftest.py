"""Fixtures of the leveraging boosters' tests."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """One BLAS thread: the boosters' small dense products only contend on a shared machine."""
    with threadpool_limits(limits=1):
        yield
