"""scikit-learn classifiers for the relative-entropy masters."""

from __future__ import annotations

from typing import Any, Callable

from lpboosting.estimators.base import (
    DELTA,
    DELTA_MESSAGE,
    NU,
    NU_MESSAGE,
    ColumnGenerationClassifier,
    shared_doc,
)
from lpboosting.estimators.lpboost import MULTICLASS
from lpboosting.masters.erlpboost import ERLPBoost
from lpboosting.masters.multiclass_erlpboost import MulticlassERLPBoost
from lpboosting.masters.softboost import SoftBoost, TotalBoost

_SHARED_DOC = """
    oracle : {"stumps", "features", "trees"} or callable, default "stumps"
    oracle_params : dict, optional
    backend : str, Backend or None, default None
        Projection solver; None is the master's default, "dedicated" (dual
        Newton, verified, conic fallback); or "cvxpy:CLARABEL" / "cvxpy:ECOS"
        / "cvxpy:SCS".
    {loop_parameters}
    {shared_parameters}

    Attributes
    ----------
    classes_, history_ (per round: relative entropy, gamma_hat, gamma_star,
    soft_margin, solver), objective_ (soft margin of the final weights),
    weights_ (LPBoost primal over the chosen columns), distribution_,
    hypotheses_, n_rounds_, status_, result_,
    {shared_attributes}
"""


#: the entropy masters stop by their own rule
_ENTROPY_STOP_RULE = ("Unused by the stopping rule, which is the master's own (the soft margin within "
                      "delta of the optimum); kept for the shared interface.")


class _CappedEntropyClassifier(ColumnGenerationClassifier):
    """Shared parameters of SoftBoostClassifier and ERLPBoostClassifier."""

    _stop_rule = _ENTROPY_STOP_RULE

    _parameter_constraints: dict[str, Any] = {
        **ColumnGenerationClassifier._parameter_constraints, "nu": NU, "delta": DELTA,
    }
    _parameter_messages = {"nu": NU_MESSAGE, "delta": DELTA_MESSAGE}
    #: nu="auto" chooses nu on LPBoost's warm path: at the same nu the soft margins are within delta
    _choose_on_path = True
    _second_stage = True

    def __init__(self, nu: float = 0.1, delta: float = 0.01, oracle: str | Callable[..., Any] = "stumps",
                 oracle_params: dict[str, Any] | None = None, backend: "str | None" = None,
                 tol: float = 1e-6, max_rounds: int = 1000,
                 callback: Callable[..., Any] | None = None, columns_per_round: int = 10,
                 stabilization: Any = None, time_limit: float | None = None,
                 stall_rounds: int | None = None, warm_start: bool = False, verbose: int = 0,
                 random_state: Any = None, n_jobs: int | None = None) -> None:
        self.nu = nu
        self.delta = delta
        self.oracle = oracle
        self.oracle_params = oracle_params
        self.backend = backend
        self.tol = tol
        self.max_rounds = max_rounds
        self.callback = callback
        self.columns_per_round = columns_per_round
        self.stabilization = stabilization
        self.time_limit = time_limit
        self.stall_rounds = stall_rounds
        self.warm_start = warm_start
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs


@shared_doc
class SoftBoostClassifier(_CappedEntropyClassifier):
    __doc__ = """SoftBoost (Warmuth, Glocer, Rätsch 2007): capped relative-entropy projections.

    Parameters
    ----------
    nu : float in (0, 1], default 0.1
        Capping fraction: d <= 1/(nu N).
    delta : float in (0, 1], default 0.01
        Accuracy: the final soft margin is within delta of the optimum.
        nu matters more than delta, which is not cross-validated (measured:
        docs/defaults.md).
    """ + _SHARED_DOC

    def _make_master(self, n_samples: int, sample_weight=None) -> SoftBoost:
        return SoftBoost(self._nu(), self.delta, sample_weight=sample_weight)


@shared_doc
class TotalBoostClassifier(ColumnGenerationClassifier):
    __doc__ = """TotalBoost: SoftBoost without capping (hard margin within delta).

    Parameters
    ----------
    delta : float in (0, 1], default 0.01
    """ + _SHARED_DOC

    _parameter_constraints: dict[str, Any] = {
        **ColumnGenerationClassifier._parameter_constraints, "delta": DELTA,
    }
    _parameter_messages = {"delta": DELTA_MESSAGE}
    _stop_rule = _ENTROPY_STOP_RULE

    def __init__(self, delta: float = 0.01, oracle: str | Callable[..., Any] = "stumps",
                 oracle_params: dict[str, Any] | None = None, backend: "str | None" = None,
                 tol: float = 1e-6, max_rounds: int = 1000,
                 callback: Callable[..., Any] | None = None, columns_per_round: int = 10,
                 stabilization: Any = None, time_limit: float | None = None,
                 stall_rounds: int | None = None, warm_start: bool = False, verbose: int = 0,
                 random_state: Any = None, n_jobs: int | None = None) -> None:
        self.delta = delta
        self.oracle = oracle
        self.oracle_params = oracle_params
        self.backend = backend
        self.tol = tol
        self.max_rounds = max_rounds
        self.callback = callback
        self.columns_per_round = columns_per_round
        self.stabilization = stabilization
        self.time_limit = time_limit
        self.stall_rounds = stall_rounds
        self.warm_start = warm_start
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_master(self, n_samples: int, sample_weight=None) -> TotalBoost:
        return TotalBoost(self.delta, sample_weight=sample_weight)


@shared_doc
class ERLPBoostClassifier(_CappedEntropyClassifier):
    __doc__ = """ERLPBoost (Warmuth, Glocer, Vishwanathan 2008): entropy-regularised LPBoost.

    Parameters
    ----------
    nu : float in (0, 1], default 0.1
    delta : float in (0, 1], default 0.01
    multiclass : {"one-vs-rest", "native"}, default "one-vs-rest"
        More than two classes: "one-vs-rest" fits K binary masters
        (``one_vs_rest_``); "native" fits one master over all of them
        (:class:`lpboosting.masters.MulticlassERLPBoost`: the relative entropy
        to the uniform distribution over (example, wrong class) pairs, each
        example's pairs capped together, the final weights those of the
        multiclass LP), its projection solved by the dedicated Newton solver
        over groups of pairs (verified; a conic solver through cvxpy otherwise).
    """ + _SHARED_DOC

    _parameter_constraints: dict[str, Any] = {
        **_CappedEntropyClassifier._parameter_constraints, "multiclass": MULTICLASS,
    }

    def __init__(self, nu: float = 0.1, delta: float = 0.01, oracle: str | Callable[..., Any] = "stumps",
                 oracle_params: dict[str, Any] | None = None, backend: "str | None" = None,
                 tol: float = 1e-6, max_rounds: int = 1000,
                 callback: Callable[..., Any] | None = None, columns_per_round: int = 10,
                 stabilization: Any = None, time_limit: float | None = None,
                 stall_rounds: int | None = None, warm_start: bool = False, verbose: int = 0,
                 random_state: Any = None, n_jobs: int | None = None, multiclass: str = "one-vs-rest") -> None:
        super().__init__(nu=nu, delta=delta, oracle=oracle, oracle_params=oracle_params, backend=backend,
                         tol=tol, max_rounds=max_rounds, callback=callback, columns_per_round=columns_per_round,
                         stabilization=stabilization, time_limit=time_limit, stall_rounds=stall_rounds,
                         warm_start=warm_start, verbose=verbose, random_state=random_state, n_jobs=n_jobs)
        self.multiclass = multiclass

    def _make_master(self, n_samples: int, sample_weight=None) -> ERLPBoost:
        if self._native_fit:
            return MulticlassERLPBoost(self._nu(), self.delta, len(self.classes_), sample_weight=sample_weight)
        return ERLPBoost(self._nu(), self.delta, sample_weight=sample_weight)
