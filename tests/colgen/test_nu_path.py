"""The warm-started nu path against separate fits at each nu."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpboosting import column_generation
from lpboosting.backends import HighspyBackend
from lpboosting.colgen.path import nu_path
from lpboosting.masters import LPBoost
from lpboosting.oracles import Stumps
from tests.helpers import all_stump_columns, DATASETS, soft_margin_lp

NUS = [0.5, 0.3, 0.2, 0.1, 0.05, 0.02]


def separate(X, y, nus, backend, sample_weight=None):
    results = [column_generation(LPBoost(nu, sample_weight=sample_weight), Stumps(X, y), backend=backend,
                                 tol=1e-9, columns_per_round=20, stabilization="smoothing") for nu in nus]
    return np.array([r.objective for r in results]), sum(r2.iterations or 0 for r in results for r2 in r.history)


@pytest.mark.parametrize("backend", ["highspy", "highspy:delta", "highspy:rows", "sifting-5"])
def test_the_path_equals_separate_fits_and_is_warm(backend):
    X, y = DATASETS["cancer-80x5"]()
    chosen = HighspyBackend(working_size=5) if backend == "sifting-5" else backend
    path = nu_path(NUS, Stumps(X, y), backend=chosen, tol=1e-9)
    objectives, iterations = separate(X, y, NUS, chosen)
    np.testing.assert_allclose(path.objectives, objectives, atol=1e-9, rtol=0)
    assert all(r.status == "converged" for r in path.results)
    assert path.iterations < iterations  # warm: fewer simplex iterations than the separate fits
    full = all_stump_columns(X, y)
    for nu, result in zip(NUS, path.results):
        assert result.objective == pytest.approx(soft_margin_lp(full, nu)["value"], abs=1e-9)
        assert result.history.meta["nu"] == nu


def test_the_path_with_sample_weights_and_the_cvxpy_backend():
    X, y = DATASETS["cancer-80x5"]()
    s = np.random.default_rng(0).integers(0, 3, size=len(y)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the conic solver's round-off on weight-0 rows may need a fallback
        for backend in ("highspy", "cvxpy:CLARABEL"):
            path = nu_path(NUS[::-1], Stumps(X, y), backend=backend, tol=1e-9, sample_weight=s)
            objectives, _ = separate(X, y, NUS[::-1], "highspy:rows", sample_weight=s)
            np.testing.assert_allclose(path.objectives, objectives, atol=1e-7, rtol=0)


@settings(max_examples=25, deadline=None)
@given(nus=st.lists(st.sampled_from([1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.005]), min_size=2, max_size=5),
       size=st.integers(1, 30))
def test_any_order_of_nus_with_any_working_set(nus, size):
    X, y = DATASETS["cancer-60x8"]()
    path = nu_path(nus, Stumps(X, y), backend=HighspyBackend(working_size=size), tol=1e-9)
    objectives, _ = separate(X, y, nus, "highspy:rows")
    np.testing.assert_allclose(path.objectives, objectives, atol=1e-9, rtol=0)


def test_path_decisions_are_each_nus_model():
    X, y = DATASETS["cancer-60x8"]()
    path = nu_path([0.3, 0.05], Stumps(X, y), tol=1e-9)
    F = path.decision_function(X)
    assert F.shape == (len(y), 2)
    for i, result in enumerate(path.results):
        expected = sum(w * h.predict(X) for w, h in zip(result.weights, result.hypotheses) if w)
        np.testing.assert_allclose(F[:, i], expected, atol=1e-12)
    with pytest.raises(ValueError, match="nu must be"):
        nu_path([0.2, 1.5], Stumps(X, y))
    with pytest.raises(ValueError, match="empty"):
        nu_path([], Stumps(X, y))


def test_ctrl_c_ends_the_path_at_the_nu_being_solved(monkeypatch):
    X, y = DATASETS["cancer-80x5"]()
    nus = [0.5, 0.1, 0.02]  # 0.1 takes several rounds after 0.5
    calls, limit, price_many = [], [None], Stumps.price_many

    def pressed(self, distribution, k):
        calls.append(1)
        if len(calls) == limit[0]:
            raise KeyboardInterrupt
        return price_many(self, distribution, k)

    monkeypatch.setattr(Stumps, "price_many", pressed)
    first = nu_path(nus[:1], Stumps(X, y))
    limit[0], priced = len(calls) + 3, len(calls)  # the third pricing at nu = 0.1
    calls.clear()
    path = nu_path(nus, Stumps(X, y))
    assert list(path.nus) == nus[:2] and len(path.results) == 2
    assert path.results[0].status == "converged"
    assert path.results[0].objective == pytest.approx(first.results[0].objective, abs=1e-12)
    # the last master solved at nu = 0.1 is kept, and nothing was priced after the Ctrl-C
    assert path.results[1].status == "interrupted" and len(path.results[1].history) == 2
    kept = path.results[1]
    assert kept.objective == pytest.approx(soft_margin_lp(kept.columns, 0.1)["value"], abs=1e-9)
    assert len(calls) == priced + 3
