"""LPBoost: the soft-margin LP and its dual, the capped edge game.

Warmuth, Glocer, Rätsch, *Boosting algorithms for maximizing the soft
margin*, NIPS 2007, eq. (1)-(2) and Algorithm 1 (after Demiriz, Bennett,
Shawe-Taylor 2002).
"""

from __future__ import annotations

import numpy as np

from lpboosting.masters.base import (
    CvxpyStatement,
    Master,
    MasterSession,
    MasterSolution,
    check_unit_interval,
)


def check_nu(nu: float) -> float:
    return check_unit_interval(
        nu, "nu", "a fraction in (0, 1] (the distribution is capped at 1/(nu*N))",
        "use a small nu such as 1/N for the hard margin and nu=1 for the uniform distribution",
    )


def soft_margin(margins: np.ndarray, nu: float) -> float:
    """The soft margin max_rho rho - cap * sum_n (rho - margin_n)^+ with cap = 1/(nu N).

    This is the LPBoost primal objective (1) for fixed weights w, evaluated in
    closed form: the function is concave and piecewise linear in rho with
    kinks at the margins, so its maximum is attained at one of them.
    """
    m = np.sort(np.asarray(margins, dtype=float))
    n = m.size
    cap = 1.0 / (check_nu(nu) * n)
    k = np.arange(n)  # number of margins strictly before position k
    below = np.concatenate(([0.0], np.cumsum(m)[:-1]))
    values = m - cap * (k * m - below)
    return float(values.max())


class LPBoost(Master):
    r"""The LPBoost master over the columns found so far.

    With margin matrix U (N x t, U[n, m] = y_n h_m(x_n)) and cap
    c = 1/(nu N):

    Primal (soft margin, eq. 1)::

        max_{w, rho, psi}  rho - c * sum_n psi_n
        s.t.  sum_m U[n, m] w_m >= rho - psi_n     (n = 1..N)    dual: d_n
              w in the simplex, psi >= 0

    Dual (capped edge game, eq. 2), the problem the backends solve::

        min_{d, gamma}  gamma
        s.t.  d . u^m <= gamma                     (m = 1..t)    dual: w_m >= 0
              sum_n d_n = 1                                       dual: rho
              0 <= d_n <= c                                       dual: psi_n >= 0

    **The distribution handed to the oracle is d**, the dual of the margin
    constraints.  Both optima are equal (rho* - c sum psi* = gamma*); the
    column-generation gap is (best edge of an exact oracle) - gamma*.
    Column generation stops when the best new edge is <= gamma* + tol.

    Parameters
    ----------
    nu:
        Fraction in (0, 1]; the paper's capping parameter is nu * N.  At most
        about nu*N examples can have margin below rho.
    """

    kind = "lp"
    name = "LPBoost"

    def __init__(self, nu: float = 0.1) -> None:
        self.nu = check_nu(nu)

    def cap(self, n_samples: int) -> float:
        return 1.0 / (self.nu * n_samples)

    def params(self):
        return {"nu": self.nu}

    def __repr__(self) -> str:
        return f"LPBoost(nu={self.nu!r})"

    # -- column generation ---------------------------------------------------------
    def gap(self, solution: MasterSolution, edge: float) -> float:
        return float(edge - solution.dual_objective)

    def converged(self, solution: MasterSolution, edge: float, tol: float) -> bool:
        return bool(edge <= solution.dual_objective + tol)

    # -- cvxpy statement -------------------------------------------------------------
    def cvxpy_statement(self, U: np.ndarray) -> CvxpyStatement:
        import cvxpy as cp

        n = U.shape[0]
        d = cp.Variable(n, name="d")
        gamma = cp.Variable(name="gamma")
        edges = U.T @ d <= gamma
        simplex = cp.sum(d) == 1
        cap = d <= self.cap(n)
        problem = cp.Problem(cp.Minimize(gamma), [edges, simplex, d >= 0, cap])
        return CvxpyStatement(
            problem,
            variables={"d": d, "gamma": gamma},
            constraints={"edges": edges, "simplex": simplex, "cap": cap},
        )

    def cvxpy_solution(self, statement, U, status):
        c = self.cap(U.shape[0])
        d = np.asarray(statement.variables["d"].value, dtype=float)
        gamma = float(statement.variables["gamma"].value)
        w = np.maximum(np.atleast_1d(statement.constraints["edges"].dual_value), 0.0)
        # cvxpy's Lagrangian adds  nu_eq * (sum d - 1):  rho = -nu_eq.
        rho = -float(statement.constraints["simplex"].dual_value)
        psi = np.maximum(np.asarray(statement.constraints["cap"].dual_value, dtype=float), 0.0)
        return self._solution(status, d, gamma, w, rho, psi, c)

    def _solution(self, status, d, gamma, w, rho, psi, cap) -> MasterSolution:
        primal = rho - cap * float(psi.sum())
        return MasterSolution(
            status=status,
            objective=primal,
            primal_objective=primal,
            dual_objective=gamma,
            weights=w,
            distribution=d,
            rho=rho,
            slacks=psi,
            gamma=gamma,
        )

    # -- incremental HiGHS ---------------------------------------------------------
    def open_highspy(self, n_samples, backend):
        return HighsEdgeLP(self, n_samples, backend)


class HighsEdgeLP(MasterSession):
    """The LPBoost dual in one live HiGHS model; a new hypothesis is a new row.

    Columns of the HiGHS model: d_1..d_N in [0, c], gamma free (cost 1).
    Rows: sum d = 1, then one row d.u^m - gamma <= 0 per hypothesis.
    HiGHS reports row duals y with reduced costs z = cost - A^T y, so
    w_m = -y_m, rho = y_0 and psi_n = max(0, -z_n).
    """

    def __init__(self, master: LPBoost, n_samples: int, backend) -> None:
        super().__init__(n_samples)
        from lpboosting.backends.highspy_backend import import_highspy

        self._highspy = import_highspy()
        self.master = master
        self.backend_name = backend.name
        self.cap = master.cap(n_samples)
        n = n_samples
        inf = self._highspy.kHighsInf
        h = backend.new_model()
        h.addVars(n, np.zeros(n), np.full(n, self.cap))
        h.addVar(-inf, inf)
        h.changeColCost(n, 1.0)
        self._index = np.arange(n + 1, dtype=np.int32)
        h.addRow(1.0, 1.0, n, self._index[:n], np.ones(n))
        self._h = h
        self._inf = inf

    def add_column(self, column, edge=None):
        u = np.asarray(column, dtype=float)
        if u.shape != (self.n_samples,):
            raise ValueError(f"a column must have shape ({self.n_samples},), got {u.shape}")
        self._h.addRow(-self._inf, 0.0, self.n_samples + 1, self._index, np.append(u, -1.0))
        self.n_columns += 1

    def solve(self):
        from lpboosting.backends.highspy_backend import run_model

        n = self.n_samples

        def read(status, sol, info):
            x = np.asarray(sol.col_value)
            y = np.asarray(sol.row_dual)
            z = np.asarray(sol.col_dual)
            return self.master._solution(
                status, x[:n].copy(), float(x[n]), np.maximum(-y[1:], 0.0), float(y[0]),
                np.maximum(-z[:n], 0.0), self.cap,
            )

        return run_model(self._h, n, self.backend_name, read)

    @property
    def model(self):
        """The live ``highspy.Highs`` model (for inspection or export)."""
        return self._h
