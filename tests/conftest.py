"""Shared test helpers: independent LP statements and a recording backend."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from lpboosting.backends import RecordingBackend, available_backends
from lpboosting.masters.base import MasterSolution
from lpboosting.status import SolveStatus


def soft_margin_lp(U: np.ndarray, nu: float) -> dict:
    """The soft-margin LP (1) solved directly by scipy's HiGHS, written independently.

    Variables x = [w (T), rho, psi (N)]; maximise rho - sum(psi)/(nu N).
    Returns value, w, rho, psi and the margin-constraint duals (the distribution d).
    """
    N, T = U.shape
    c = 1.0 / (nu * N)
    cost = np.concatenate([np.zeros(T), [-1.0], np.full(N, c)])  # minimise -(rho - c sum psi)
    # rho - psi_n - (U w)_n <= 0
    A_ub = np.hstack([-U, np.ones((N, 1)), -np.eye(N)])
    b_ub = np.zeros(N)
    A_eq = np.concatenate([np.ones(T), [0.0], np.zeros(N)])[None, :]
    bounds = [(0, None)] * T + [(None, None)] + [(0, None)] * N
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    assert res.status == 0, res.message
    x = res.x
    return {
        "value": -res.fun,
        "w": x[:T],
        "rho": x[T],
        "psi": x[T + 1:],
        "d": -res.ineqlin.marginals,  # d >= 0 for the <= rows of a minimisation
    }


def all_stump_columns(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Every distinct stump column, enumerated by brute force (no presorting)."""
    cols = [y.copy(), -y.copy()]  # the constants
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for lo, hi in zip(values[:-1], values[1:]):
            h = np.where(X[:, j] > (lo + hi) / 2, 1.0, -1.0)
            cols.append(y * h)
            cols.append(-y * h)
    U = np.column_stack(cols)
    return np.unique(U, axis=1)


class FailingBackend(RecordingBackend):
    """Records every solution and fails (status ERROR) from solve number ``fail_at`` on."""

    def __init__(self, inner: str = "highspy", fail_at: int | None = None) -> None:
        super().__init__(inner)
        self.fail_at = fail_at

    def before_solve(self, session):
        if self.fail_at is not None and len(self.solutions) + 1 >= self.fail_at:
            sol = MasterSolution.failed(session.n_samples, SolveStatus.ERROR, "injected failure")
            sol.backend = self.name
            return sol
        return None


LP_BACKENDS = available_backends("lp")
REFERENCE_LP_BACKENDS = [b for b in ["highspy", "cvxpy:HIGHS", "cvxpy:CLARABEL", "cvxpy:ECOS"]
                         if b in LP_BACKENDS]


@pytest.fixture(params=REFERENCE_LP_BACKENDS)
def lp_backend(request) -> str:
    return request.param
