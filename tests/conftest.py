"""Fixtures the tests share (the helpers they share are in tests/helpers.py)."""

from __future__ import annotations

import pytest

from tests.helpers import REFERENCE_LP_BACKENDS


@pytest.fixture(params=REFERENCE_LP_BACKENDS)
def lp_backend(request) -> str:
    """Each LP backend the LPBoost master is held to its independent statement on."""
    return request.param
