"""Stand-alone solves: one master, or one projection, over a given margin matrix.

The front doors of :meth:`Master.solve <lpboosting.masters.Master.solve>`
and :meth:`EntropyMaster.project <lpboosting.masters.entropy.EntropyMaster.project>`:
they sit with the loop, above both the formulations and the solvers, so
that no formulation imports a solver.  ``backend=None`` is the master's own
default, as in the loop and the classifiers.
"""

from __future__ import annotations

from typing import Any

from lpboosting.backends import Backend, get_backend
from lpboosting.errors import BackendCapabilityError, SolverError
from lpboosting.masters.base import Master, MasterSolution, check_margin_matrix
from lpboosting.masters.entropy import EntropyMaster, ProjectionResult
from lpboosting.status import SolveStatus

__all__ = ["project_master", "solve_master"]


def solve_master(master: Master, U: Any, backend: "str | Backend | None" = None,
                 **options: Any) -> MasterSolution:
    """Solve ``master`` on a given margin matrix U (N x T), U[n, m] = y_n h_m(x_n).

    Raises :class:`~lpboosting.errors.SolverError` when the solver fails.
    """
    U = check_margin_matrix(U)
    chosen = get_backend(master.default_backend if backend is None else backend, **options)
    session = chosen.open(master, U.shape[0])
    for m in range(U.shape[1]):
        session.add_column(U[:, m])
    solution = session.solve()
    if not solution.ok and solution.status is not SolveStatus.INFEASIBLE:
        raise SolverError(
            f"{solution.backend} could not solve the {master.name} master: status "
            f"{solution.status.value} ({solution.control.message or 'no message'}); "
            "try another backend, e.g. backend='cvxpy:CLARABEL'",
            solution.status,
        )
    return solution


def project_master(master: EntropyMaster, U: Any, backend: "str | Backend | None" = None,
                   **state: Any) -> ProjectionResult:
    """One projection of an entropy master on a given margin matrix U (N x T).

    SoftBoost/TotalBoost take ``bound`` (the right-hand side gamma_hat - delta);
    ERLPBoost takes ``eta`` (default: its eta for N examples).
    """
    U = check_margin_matrix(U)
    chosen = get_backend(master.default_backend if backend is None else backend)
    session = chosen.open(master, U.shape[0])  # its LP over the chosen columns is not built
    if not hasattr(session, "projector"):
        raise BackendCapabilityError(f"backend {chosen.name!r} has no projection of the {master.name} master")
    return session.projector(master, U, master.projection_state(U.shape[0], state), None)
