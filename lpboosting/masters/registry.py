"""The one registry of masters: name, class, parameters, classifier and what the plots need.

The command line (``--master``, ``fit``), the solver comparison
(:func:`lpboosting.compare.make_master`), the ``models/`` catalog, the
plots and the backend listing read this table instead of keeping their own.
A new master is one line here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lpboosting.masters.base import Master
from lpboosting.masters.erlpboost import ERLPBoost
from lpboosting.masters.multiclass_erlpboost import MulticlassERLPBoost
from lpboosting.masters.lpboost import LPBoost
from lpboosting.masters.multiclass import MulticlassLPBoost
from lpboosting.masters.rmboost import RMBoost
from lpboosting.masters.softboost import SoftBoost, TotalBoost

__all__ = ["MASTERS", "MasterSpec", "make_master", "spec_of"]


@dataclass(frozen=True)
class MasterSpec:
    """One master.

    ``key``: its command-line name; ``cls``: the class (``cls.name`` is the
    name histories and catalog entries carry); ``params``: the constructor
    parameters with the defaults the command line fills in (``None`` = the
    master's own default); ``estimator``: the scikit-learn classifier, as its
    name in :mod:`lpboosting.estimators`, a ``"module:attribute"`` name or
    the class itself (a master registered at run time); ``distribution``:
    what d is, for the plots (``"capped"`` probability vector with cap
    1/(nu N), ``"uncapped"``, or ``"signed"`` weighting); ``lower_bound``:
    the record field the duality plot draws the gap from (``"dual"`` or
    ``"gamma_star"``, or None when the best edge is compared with a
    parameter, not an objective).
    """

    key: str
    cls: type[Master]
    params: dict[str, Any] = field(default_factory=dict)
    estimator: str | type = ""
    distribution: str = "capped"
    lower_bound: str | None = "dual"

    @property
    def name(self) -> str:
        return self.cls.name


#: every master, by command-line name
MASTERS: dict[str, MasterSpec] = {spec.key: spec for spec in [
    MasterSpec("lpboost", LPBoost, {"nu": 0.1}, "LPBoostClassifier"),
    # one LP over all K classes, its rows (example, wrong class) pairs; LPBoostClassifier fits it on
    # more than two classes (d, an (N, K) table, is drawn per example against its cap)
    MasterSpec("multiclass-lpboost", MulticlassLPBoost, {"nu": 0.1, "n_classes": None}, "LPBoostClassifier"),
    MasterSpec("softboost", SoftBoost, {"nu": 0.1, "delta": 0.01}, "SoftBoostClassifier",
               lower_bound="gamma_star"),
    MasterSpec("totalboost", TotalBoost, {"delta": 0.01}, "TotalBoostClassifier",
               distribution="uncapped", lower_bound="gamma_star"),
    MasterSpec("erlpboost", ERLPBoost, {"nu": 0.1, "delta": 0.01}, "ERLPBoostClassifier",
               lower_bound="gamma_star"),
    # ERLPBoost over the same pairs (ERLPBoostClassifier with multiclass="native")
    MasterSpec("multiclass-erlpboost", MulticlassERLPBoost, {"nu": 0.1, "delta": 0.01, "n_classes": None},
               "ERLPBoostClassifier", lower_bound="gamma_star"),
    MasterSpec("rmboost", RMBoost, {"lam": None, "prune": False}, "RMBoostClassifier",
               distribution="signed", lower_bound=None),
]}


def spec_of(name: str) -> MasterSpec | None:
    """The spec of a master by command-line name (``"lpboost"``) or class name (``"LPBoost"``)."""
    key = str(name).strip().lower()
    return MASTERS.get(key) or next((s for s in MASTERS.values() if s.name.lower() == key), None)


def make_master(name: str, **params: Any) -> Master:
    """A master by name (``lpboost``, ``multiclass-lpboost``, ``softboost``, ``totalboost``,
    ``erlpboost``, ``multiclass-erlpboost``, ``rmboost``).

    Parameters that are None are left at the master's default; parameters the
    master does not take are an error.
    """
    spec = spec_of(name)
    if spec is None:
        raise ValueError(f"unknown master {name!r}; choose one of {', '.join(MASTERS)}")
    accepted = tuple(spec.params)
    given = {k: v for k, v in params.items() if v is not None}
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        raise ValueError(f"the {spec.cls.__name__} master takes {', '.join(accepted)}; "
                         f"not {', '.join(unknown)}")
    try:
        return spec.cls(**given)
    except TypeError as exc:  # a required parameter is missing
        raise ValueError(f"the {spec.cls.__name__} master needs {', '.join(accepted)}: {exc}") from None
