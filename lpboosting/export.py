r"""Restricted master problems as model files (MPS, LP) for any LP solver, and back.

:func:`export_model` writes the master of an LP formulation over a margin
matrix U (N examples x T columns, ``U[n, m] = y_n h_m(x_n)``) as a free-MPS
(``.mps``) or CPLEX-LP (``.lp``) file, chosen by the file's extension.  The
model is the master's matrix form (``master.matrix_form(U, form)``, a
:class:`~lpboosting.masters.matrix_form.MatrixForm` derived from the master's
cvxpy statement, with named rows and columns), copied into a
``highspy.HighsLp`` (:func:`master_lp`), handed to HiGHS (``Highs.passModel``)
and written by HiGHS (``Highs.writeModel``), so any solver that reads MPS or
LP files can be compared on exactly the problem the library solves.  HiGHS writes every
number with 17 significant digits (HiGHS 1.16), so a file read back holds
the very doubles that were written.

The exported models (c_n = p_n / nu are LPBoost's caps, p the empirical
distribution: 1/N each or the sample weights normalised; lam and
tau = U^T p are RMBoost's; i runs over the examples, j over the columns; in
parentheses, each row's dual value as HiGHS reports it, which recovers the
other form's solution):

**LPBoost, form "dual"** (the capped edge game, eq. 2; what the backends
solve, the default)::

    minimise  gamma
    columns   d_0 .. d_{N-1} in [0, c_n],  gamma free
    rows      sum_d:   sum_n d_n = 1                       (dual: rho)
              edge_j:  sum_n U[n, j] d_n - gamma <= 0      (dual: -w_j)

**LPBoost, form "primal"** (the soft margin, eq. 1)::

    maximise  rho - sum_n c_n psi_n
    columns   w_0 .. w_{T-1} >= 0,  rho free,  psi_0 .. psi_{N-1} >= 0
    rows      margin_n:  sum_j U[n, j] w_j - rho + psi_n >= 0   (dual: -d_n)
              sum_w:     sum_j w_j = 1                          (dual: gamma)

Both have the optimum gamma* = rho* - c . psi*, the soft margin.

**RMBoost, form "primal"** (the minimax-risk LP (16) in margin form; the
default)::

    minimise  1/2 + sum_j (lam - tau_j) mu_plus_j + (lam + tau_j) mu_minus_j
    columns   mu_plus_0 .. mu_plus_{T-1} >= 0,  mu_minus_0 .. mu_minus_{T-1} >= 0
    rows      upper_i:  sum_j U[i, j] (mu_plus_j - mu_minus_j) <=  1/2   (dual: -alpha_i)
              lower_i:  sum_j U[i, j] (mu_plus_j - mu_minus_j) >= -1/2   (dual:  beta_i)

**RMBoost, form "dual"** (17) in margin form (alpha, beta are the
multipliers alpha', beta' of :mod:`lpboosting.masters.rmboost`; map them to
the paper's with :func:`~lpboosting.masters.rmboost.paper_duals`)::

    maximise  1/2 - 1/2 sum_i (alpha_i + beta_i)
    columns   alpha_i >= 0,  beta_i >= 0
    rows      edge_plus_j:   sum_i U[i, j] (beta_i - alpha_i) <= lam - tau_j   (dual: mu_plus_j)
              edge_minus_j:  sum_i U[i, j] (alpha_i - beta_i) <= lam + tau_j   (dual: mu_minus_j)

Both have the optimum R, the minimax risk.  The constant 1/2 is the
model's objective offset: an MPS file carries it as ``RHS_V Obj -0.5`` (the
right-hand side of the objective row is minus the offset, as HiGHS and CPLEX
read it; a reader that ignores it reports R - 1/2), an LP file as a constant
term of the objective.  Examples of sample weight 0 have no row (primal) or
no alpha_i, beta_i (dual) in RMBoost; in LPBoost their cap is 0 (d_n fixed
at 0, psi_n free of cost).  An exact zero of U is not written.

The entropy masters (SoftBoost, TotalBoost, ERLPBoost) are not LPs (their
objective is a relative entropy: an exponential cone); the LP they end with
is the LPBoost master over the chosen columns, ``master.lp_master(N)``
(``LPBoost(nu, sample_weight=...)``), which :func:`export_model` writes.

:func:`compare_model_file` reads a model file (any MPS or LP file, not only
these) into HiGHS and solves it with HiGHS's simplex and interior point and
with cvxpy's LP-capable solvers, reporting objective, iterations and time.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lpboosting.errors import LPBoostingError

__all__ = [
    "EXTENSIONS", "FORMS", "ExportedModel", "ModelFileNotFoundError", "classifier_master",
    "compare_model_file", "default_form", "export_classifier", "export_model", "last_master_columns",
    "lp_text", "master_lp", "read_model_file",
]

#: model-file extensions HiGHS writes and reads, and what they are
EXTENSIONS: dict[str, str] = {".mps": "free MPS", ".lp": "CPLEX LP"}
#: the forms of an LP master: "dual" (LPBoost's capped edge game, RMBoost's (17)) or "primal"
FORMS = ("dual", "primal")
#: what the library can export, for the error messages
_EXPORTABLE = ("LPBoost (dual: capped edge game, or primal: soft margin) and RMBoost (primal: the "
               "minimax LP (16), or dual (17))")


class ModelFileNotFoundError(LPBoostingError, FileNotFoundError):
    """A model file to read that does not exist."""


@dataclass
class ExportedModel:
    """What :func:`export_model` wrote: the file, the master, the form and the model's size."""

    path: Path
    master: str
    form: str
    sense: str
    col_names: list[str] = field(repr=False)
    row_names: list[str] = field(repr=False)
    #: the optimum the fit recorded for this master (:func:`export_classifier`), else None
    objective: float | None = None
    #: what the form is (the master's ``lp_forms[form]``: "capped edge game", ...)
    title: str = ""

    @property
    def n_columns(self) -> int:
        return len(self.col_names)

    @property
    def n_rows(self) -> int:
        return len(self.row_names)

    def describe(self) -> str:
        """One line: the master, the form, the size and the file format."""
        return (f"{self.master} {self.form} ({self.title or self.form}): "
                f"{self.sense} over {self.n_columns} columns and {self.n_rows} rows, "
                f"{EXTENSIONS[self.path.suffix.lower()]} file {self.path}")


# ======================================================================================
# the model as plain data
# ======================================================================================


def _check_lp_master(master: Any) -> None:
    """Nothing when ``master`` is an LP master (it has :attr:`~lpboosting.masters.Master.lp_forms`);
    otherwise a ValueError that says what can be exported instead."""
    from lpboosting.masters.base import Master
    from lpboosting.masters.entropy import EntropyMaster

    if isinstance(master, Master) and master.lp_forms:
        return
    if isinstance(master, EntropyMaster):
        nu = "1/N" if type(master).__name__ == "TotalBoost" else repr(master.nu)
        raise ValueError(
            f"{master!r} is not an LP: its master minimises a relative entropy (an exponential cone), "
            "which MPS and LP files cannot hold. Its final weights come from an LP that can be "
            f"exported: the LPBoost master over its chosen columns, master.lp_master(N) = "
            f"LPBoost(nu={nu}, sample_weight=master.sample_weight); write that with "
            f"export_model(master.lp_master(U.shape[0]), U, path) (the command line: "
            f"`lpboosting export --model FILE --final-lp`). Exportable masters: {_EXPORTABLE}")
    what = repr(master) if isinstance(master, Master) else f"a {type(master).__name__}"
    raise ValueError(f"cannot export {what}: the model files hold the LP masters {_EXPORTABLE}; "
                     "pass one of those (lpboosting.masters.LPBoost(nu) or RMBoost(lam))")


def default_form(master: Any) -> str:
    """The form the library's HiGHS sessions solve: "dual" for LPBoost, "primal" for RMBoost
    (the first of the master's ``lp_forms``)."""
    _check_lp_master(master)
    return master.check_lp_form(None)


def _check_form(form: str | None, master: Any) -> str:
    _check_lp_master(master)
    return master.check_lp_form(form)


def _check_U(U: Any) -> np.ndarray:
    try:
        U = np.asarray(U, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("U must be a numeric N x T margin matrix (U[n, m] = y_n h_m(x_n))") from None
    if U.ndim != 2:
        raise ValueError(f"U must be a 2-D margin matrix (N examples x T columns), got shape {U.shape}")
    if U.shape[0] < 1 or U.shape[1] < 1:
        raise ValueError(f"U has shape {U.shape}: a restricted master needs at least one example and "
                         "one column (without a column LPBoost's dual is unbounded)")
    if not np.all(np.isfinite(U)):
        raise ValueError("U contains NaN or inf; a margin matrix has finite entries (in [-1, 1] for "
                         "hypotheses with outputs in [-1, 1])")
    return U


def master_lp(master: Any, U: Any, form: str | None = None) -> Any:
    """The restricted master of ``master`` over the columns U as a ``highspy.HighsLp``.

    ``form`` is ``"dual"`` or ``"primal"`` (None: :func:`default_form`, the
    form the HiGHS sessions solve).  The model is the master's matrix form
    (``master.matrix_form(U, form)``, derived from its cvxpy statement):
    the rows, columns and their names of the module docstring; sample
    weights (``master.sample_weight``: LPBoost's caps ``master.caps(N)``,
    RMBoost's prior and unconstrained rows) are honoured.  Pass it to
    ``Highs.passModel`` to solve it, or write it with :func:`export_model`.
    """
    from lpboosting.backends.highs.model import import_highspy

    form = _check_form(form, master)
    U = _check_U(U)
    if master.sample_weight is not None:
        master.prior(master.examples(U.shape[0]))  # a clear error when the weights do not match U's rows
    model = master.matrix_form(U, form)
    highspy = import_highspy()
    A = model.A
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.sense_ = highspy.ObjSense.kMaximize if model.sense == "max" else highspy.ObjSense.kMinimize
    lp.offset_ = model.offset
    lp.col_cost_ = np.array(model.c)
    lp.col_lower_ = np.array(model.col_lower)
    lp.col_upper_ = np.array(model.col_upper)
    lp.row_lower_ = np.array(model.row_lower)
    lp.row_upper_ = np.array(model.row_upper)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = A.shape[1], A.shape[0]
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    lp.col_names_ = list(model.col_names)
    lp.row_names_ = list(model.row_names)
    lp.model_name_ = f"{master.name}_{form}"
    return lp


def _check_path(path: Any, *, must_exist: bool) -> Path:
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        raise ValueError(
            f"{path.name}: the model-file format is chosen by the extension, and {path.suffix or 'none'!r} "
            f"is not one HiGHS handles; name the file *.mps (free MPS) or *.lp (CPLEX LP format)")
    if must_exist and not path.is_file():
        raise ModelFileNotFoundError(f"no model file {path}: give the path of an existing .mps or .lp "
                                     "file (written by `lpboosting export` or any LP modeller)")
    if not must_exist and not path.parent.is_dir():
        raise ModelFileNotFoundError(f"cannot write {path}: the directory {path.parent} does not exist; "
                                     "create it first or choose another path")
    return path


def export_model(master: Any, U: Any, path: str | Path, form: str | None = None) -> ExportedModel:
    """Write the restricted master of ``master`` over U to ``path`` (``.mps`` or ``.lp``), through HiGHS.

    ``master`` is a :class:`~lpboosting.masters.LPBoost` or
    :class:`~lpboosting.masters.RMBoost` (with its parameters and sample
    weights); U is the N x T margin matrix of its columns
    (``U[n, m] = y_n h_m(x_n)``; a run's last master:
    :func:`last_master_columns`).  ``form``: ``"dual"`` or ``"primal"``
    (None: LPBoost's dual, the capped edge game, and RMBoost's primal (16):
    the forms the backends solve).  The file holds the model of the module
    docstring with its names: LPBoost dual columns ``d_n``, ``gamma``, rows
    ``sum_d``, ``edge_j``; LPBoost primal columns ``w_j``, ``rho``,
    ``psi_n``, rows ``margin_n``, ``sum_w``; RMBoost primal columns
    ``mu_plus_j``, ``mu_minus_j``, rows ``upper_i``, ``lower_i``; RMBoost
    dual columns ``alpha_i``, ``beta_i``, rows ``edge_plus_j``,
    ``edge_minus_j``.  Its optimum is the master's objective (the soft margin
    gamma*, or the minimax risk R).

    The entropy masters are not LPs: a ValueError says so and names the LP
    that can be exported instead (``master.lp_master(N)``).  An extension
    other than ``.mps``/``.lp`` or a missing directory is an error too.
    """
    from lpboosting.backends.highs.model import import_highspy

    path = _check_path(path, must_exist=False)
    form = _check_form(form, master)
    lp = master_lp(master, U, form)
    highspy = import_highspy()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if h.passModel(lp) != highspy.HighsStatus.kOk:
        raise RuntimeError(f"HiGHS did not accept the {master.name} model (passModel failed)")
    if h.writeModel(str(path)) != highspy.HighsStatus.kOk:
        raise OSError(f"HiGHS could not write {path}; check that the file can be written")
    sense = "maximise" if lp.sense_ == highspy.ObjSense.kMaximize else "minimise"
    return ExportedModel(path=path, master=master.name, form=form, sense=sense,
                         col_names=list(lp.col_names_), row_names=list(lp.row_names_),
                         title=master.lp_forms[form])


def lp_text(master: Any, U: Any, form: str | None = None) -> str:
    """The restricted master over U as LP-format text (CPLEX LP, as HiGHS writes it), to print.

    The same model and names as :func:`export_model` writes to a ``.lp``
    file; for teaching and for reading one round's master on small data.
    """
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "master.lp"
        export_model(master, U, path, form)
        return path.read_text()


# ======================================================================================
# the master of a run or of a fitted classifier
# ======================================================================================


def last_master_columns(result: Any) -> np.ndarray:
    """U of the last master a run solved: ``result.columns`` restricted to the columns that master held.

    ``result`` is a :class:`~lpboosting.colgen.ColumnGenerationResult` (a
    classifier's ``result_``).  With a column pool (LPBoost's ``pool``,
    RMBoost's ``prune``) columns deleted before the last solve are left out
    (the solution's ``control.active_columns``), so the model exported over
    these columns has the run's objective.
    """
    columns = getattr(result, "columns", None)
    if columns is None:
        raise ValueError(f"expected a ColumnGenerationResult (with columns), got {type(result).__name__}")
    U = np.asarray(columns, dtype=float)
    if U.ndim != 2 or U.shape[1] == 0:
        raise ValueError("the run solved no master (it has no columns): there is no model to export")
    solution = getattr(result, "solution", None)
    active = None if solution is None else solution.control.active_columns
    if active is not None:
        U = U[:, np.asarray(active, dtype=int)]
    return U


def classifier_master(model: Any, X: Any = None, y: Any = None, *, label: Any = None,
                      final_lp: bool = False) -> tuple[Any, np.ndarray]:
    """(master, U) of a fitted column-generation classifier's last restricted master.

    Without ``X``: from the fitted run (``model.result_``, kept by pickle):
    the columns of its last master (:func:`last_master_columns`) and the
    master with the fit's parameters and sample weights (rows merged as in
    the fit).  With ``X, y`` (needed for a model read by
    :func:`lpboosting.load_model`, which does not hold ``result_``): U is
    rebuilt as y_n h_m(x_n) from the model's hypotheses on those rows, which
    must be the training rows; a JSON model holds no sample weights, so the
    master is the unweighted one (repeated rows stand for integer weights),
    and with a column pool it has every hypothesis of the fit, also those
    deleted from the last master.  ``label`` picks the binary model of one
    class of a one-vs-rest classifier.  ``final_lp=True`` gives an entropy
    master's final LP (``master.lp_master(N)``, LPBoost) instead of the
    master itself.
    """
    master, U, _, _ = _classifier_master(model, X, y, label, final_lp)
    return master, U


def _classifier_master(model: Any, X: Any, y: Any, label: Any, final_lp: bool
                       ) -> tuple[Any, np.ndarray, Any, bool]:
    """(master, U, the binary model, whether the master is the fit's own over the run's columns)."""
    from lpboosting.estimators.base import ColumnGenerationClassifier

    if not isinstance(model, ColumnGenerationClassifier):
        raise ValueError(
            f"a {type(model).__name__} has no restricted master to export: the model files hold the "
            "masters of the column-generation classifiers (lpboost, rmboost; softboost, totalboost and "
            "erlpboost with their final LP), not the leveraging boosters")
    if not hasattr(model, "classes_"):
        raise ValueError(f"{type(model).__name__} is not fitted; fit it (or load a fitted one) first")
    classes = list(model.classes_)
    if len(classes) > 2 and hasattr(model, "one_vs_rest_"):
        if label is None:
            raise ValueError(
                f"{type(model).__name__} has {len(classes)} classes, fitted as one binary model per "
                f"class (one-vs-rest): choose the class whose master to export (label=...; the command "
                f"line: --class LABEL), one of {', '.join(map(str, classes))}")
        matches = [k for k, c in enumerate(classes) if c == label or str(c) == str(label)]
        if not matches:
            raise ValueError(f"no class {label!r} in this model; its classes are "
                             f"{', '.join(map(str, classes))}")
        k = matches[0]
        if y is not None:  # the labels of the binary model: the class against the rest
            y = np.where(np.asarray(y).astype(str) == str(classes[k]), "1", "0")
            y = np.where(y == "1", model.one_vs_rest_[k].classes_[1], model.one_vs_rest_[k].classes_[0])
        return _classifier_master(model.one_vs_rest_[k], X, y, None, final_lp)
    if len(classes) > 2 and label is not None:
        raise ValueError(f"{type(model).__name__} fitted its {len(classes)} classes by one LP: it has one master, "
                         "over (example, wrong class) pairs; export it without a class (--class is for "
                         "models fitted one-vs-rest)")
    if X is None:
        result = getattr(model, "result_", None)
        if result is None:
            raise ValueError(
                f"this {type(model).__name__} does not hold its run (result_): a model read from JSON "
                "(lpboosting.save_model) keeps its hypotheses but not the margin matrix; pass the "
                "training rows (X, y; the command line: --data) to rebuild U from the hypotheses, or "
                "use a pickled model (`lpboosting fit --save FILE.pkl`)")
        U = last_master_columns(result)
        run = getattr(model, "_run", None)
        if run is not None and getattr(run, "master", None) is not None:
            master = run.master
        else:
            weights = getattr(model, "_sample_weight", None)
            if weights is None and result.history.meta.get("weighted"):
                raise ValueError(
                    "this model was fitted with sample weights, but they are not stored with it "
                    "(a warm-started fit); build the master in Python with its weights and call "
                    "export_model(master, last_master_columns(model.result_), path)")
            master = model._make_master(U.shape[0], weights)
    else:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != model.n_features_in_:
            raise ValueError(f"X has shape {X.shape} but the model was fitted on "
                             f"{model.n_features_in_} features")
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got shape {y.shape}")
        names = y.astype(str)
        unknown = sorted(set(names[~np.isin(names, [str(c) for c in classes])].tolist()))
        if unknown:
            raise ValueError(f"labels {', '.join(unknown[:5])} are not classes of the model "
                             f"({', '.join(map(str, classes))}); pass the rows it was fitted on")
        hypotheses = list(getattr(model, "hypotheses_", []))
        if not hypotheses:
            raise ValueError("the model has no hypotheses: there is no master to export")
        if len(classes) > 2:  # one LP over all classes: the pair columns of the votes
            from lpboosting.pairs import pair_columns

            texts = np.asarray([str(c) for c in classes])
            order = np.argsort(texts, kind="stable")
            codes = order[np.searchsorted(texts[order], names)]  # the class codes 0..K-1 of classes_
            votes = np.column_stack([np.asarray(h.predict(X), dtype=np.intp) for h in hypotheses])
            U = pair_columns(votes, codes, len(classes))
            master = model._make_master(X.shape[0], None)
        else:
            positive = names == str(classes[1])
            H = np.column_stack([np.asarray(h.predict(X), dtype=float) for h in hypotheses])
            U = np.where(positive, 1.0, -1.0)[:, None] * H
            master = model._make_master(U.shape[0], None)
    own = X is None and master.kind == "lp"
    if final_lp and hasattr(master, "lp_master"):
        master = master.lp_master(U.shape[0])
    return master, U, model, own


def export_classifier(model: Any, path: str | Path, *, X: Any = None, y: Any = None, label: Any = None,
                      form: str | None = None, final_lp: bool = False) -> ExportedModel:
    """Write the last restricted master of a fitted classifier (see :func:`classifier_master`).

    The arguments are those of :func:`classifier_master` and
    :func:`export_model`.  The result's ``objective`` is the optimum the fit
    recorded (``objective_`` of the binary model), the value the file solves
    to, when the file holds the fit's own LP master over the run's columns;
    None when U was rebuilt from ``X`` or ``final_lp`` gave another master.
    """
    master, U, binary, own = _classifier_master(model, X, y, label, final_lp)
    exported = export_model(master, U, path, form)
    if own:
        exported.objective = float(binary.objective_)
    return exported


# ======================================================================================
# reading a model file back and solving it
# ======================================================================================


def read_model_file(path: str | Path) -> Any:
    """A ``highspy.Highs`` holding the model of an ``.mps`` or ``.lp`` file (not solved yet)."""
    from lpboosting.backends.highs.model import import_highspy

    path = _check_path(path, must_exist=True)
    highspy = import_highspy()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    status = h.readModel(str(path))
    if status == highspy.HighsStatus.kError:
        raise ValueError(f"HiGHS could not read {path} as a {EXTENSIONS[path.suffix.lower()]} file; "
                         "check that it is one (write models with `lpboosting export`)")
    return h


def _highs_row(path: Path, backend: str) -> dict[str, Any]:
    from lpboosting.backends.highs.model import DEFAULT_OPTIONS, VARIANTS, import_highspy, map_highs_status

    variant = backend.split(":", 1)[1].strip().lower() if ":" in backend else None
    if variant is not None and variant not in ("ipm",):
        raise ValueError(
            f"{backend!r}: a model file is solved by 'highspy' (dual simplex) or 'highspy:ipm' "
            "(interior point without crossover); the other HiGHS variants are encodings of the LPBoost "
            "session, not solvers of a given model")
    highspy = import_highspy()
    h = read_model_file(path)
    for key, value in {**DEFAULT_OPTIONS, **(VARIANTS[variant] if variant else {})}.items():
        h.setOptionValue(key, value)
    start = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - start
    status = map_highs_status(highspy, h.getModelStatus())
    info = h.getInfo()
    iterations = int(info.ipm_iteration_count if variant == "ipm" else info.simplex_iteration_count)
    return {"backend": backend, "status": status.value,
            "objective": float(info.objective_function_value) if status.ok else math.nan,
            "iterations": iterations, "seconds": seconds,
            "message": "" if status.ok else h.modelStatusToString(h.getModelStatus())}


def _arrays(h: Any) -> dict[str, Any]:
    """The model held by ``h`` as arrays: c, offset, sense, bounds and A (scipy CSC)."""
    import scipy.sparse as sp

    from lpboosting.backends.highs.model import import_highspy

    highspy = import_highspy()
    lp = h.getLp()
    m, n = lp.num_row_, lp.num_col_
    a = lp.a_matrix_
    parts = (np.asarray(a.value_, dtype=float), np.asarray(a.index_), np.asarray(a.start_))
    if a.format_ == highspy.MatrixFormat.kRowwise:
        A = sp.csr_matrix(parts, shape=(m, n)).tocsc()
    else:
        A = sp.csc_matrix(parts, shape=(m, n))
    return {"c": np.asarray(lp.col_cost_, dtype=float), "offset": float(lp.offset_),
            "maximize": lp.sense_ == highspy.ObjSense.kMaximize,
            "col_lower": np.asarray(lp.col_lower_, dtype=float),
            "col_upper": np.asarray(lp.col_upper_, dtype=float),
            "row_lower": np.asarray(lp.row_lower_, dtype=float),
            "row_upper": np.asarray(lp.row_upper_, dtype=float), "A": A,
            "integer": bool(len(lp.integrality_)) and any(
                v != highspy.HighsVarType.kContinuous for v in lp.integrality_)}


def _cvxpy_row(path: Path, backend: str) -> dict[str, Any]:
    import cvxpy as cp

    from lpboosting.catalog import SOLVER_OPTIONS

    solver = backend.split(":", 1)[1].strip().upper()
    if solver not in cp.installed_solvers():
        raise ValueError(f"{backend!r}: cvxpy's solver {solver} is not installed; installed: "
                         f"{', '.join(cp.installed_solvers())}")
    m = _arrays(read_model_file(path))
    if m["integer"]:
        raise ValueError(f"{path.name} has integer variables; compare_model_file solves LPs")
    x = cp.Variable(m["c"].size)
    constraints = []
    for bound, lower in ((m["col_lower"], True), (m["col_upper"], False)):
        finite = np.flatnonzero(np.isfinite(bound))
        if finite.size:
            constraints.append(x[finite] >= bound[finite] if lower else x[finite] <= bound[finite])
    for bound, lower in ((m["row_lower"], True), (m["row_upper"], False)):
        finite = np.flatnonzero(np.isfinite(bound))
        if finite.size:
            rows = m["A"][finite]
            constraints.append(rows @ x >= bound[finite] if lower else rows @ x <= bound[finite])
    objective = m["c"] @ x + m["offset"]
    problem = cp.Problem(cp.Maximize(objective) if m["maximize"] else cp.Minimize(objective), constraints)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():  # "solution may be inaccurate": the row's status says so
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(solver=solver, **SOLVER_OPTIONS.get(solver, {}))
    except cp.error.SolverError as exc:
        return {"backend": backend, "status": "error", "objective": math.nan, "iterations": None,
                "seconds": time.perf_counter() - start, "message": str(exc)}
    seconds = time.perf_counter() - start
    stats = problem.solver_stats
    iterations = getattr(stats, "num_iters", None) if stats is not None else None
    if stats is not None and getattr(stats, "solve_time", None) is not None:
        seconds = float(stats.solve_time)  # the solver's own time, without cvxpy's compilation
    ok = problem.status in ("optimal", "optimal_inaccurate")
    return {"backend": backend, "status": problem.status,
            "objective": float(problem.value) if ok else math.nan,
            "iterations": None if iterations is None else int(iterations), "seconds": seconds,
            "message": ""}


def compare_model_file(path: str | Path, backends: Any = ("highspy", "highspy:ipm")) -> list[dict[str, Any]]:
    """Read an ``.mps``/``.lp`` model file and solve it with each backend; one row per backend.

    Backends: ``"highspy"`` (HiGHS's dual simplex, the library's options),
    ``"highspy:ipm"`` (interior point without crossover, optimality
    tolerance 1e-10) and ``"cvxpy:SOLVER"`` (the model's arrays, read back
    by HiGHS, stated in cvxpy and solved by an installed cvxpy solver with
    :data:`lpboosting.catalog.SOLVER_OPTIONS`).  Each row has ``backend``,
    ``status`` (``optimal``, ``infeasible``, ... as :class:`SolveStatus`
    values for HiGHS, cvxpy's status otherwise), ``objective`` (NaN unless
    solved), ``iterations`` (simplex, interior-point or the cvxpy solver's
    iterations), ``seconds`` (the solve alone: HiGHS's run, or the cvxpy
    solver's own time when it reports one) and ``message``.  The model
    file is read once per backend (no state is shared).
    """
    if isinstance(backends, str):
        backends = [backends]
    names = [str(b).strip() for b in backends]
    if not names:
        raise ValueError("name at least one backend (highspy, highspy:ipm, cvxpy:SOLVER)")
    path = _check_path(path, must_exist=True)
    rows = []
    for name in names:
        family = name.split(":", 1)[0].lower()
        if family == "highspy":
            rows.append(_highs_row(path, name))
        elif family == "cvxpy" and ":" in name:
            rows.append(_cvxpy_row(path, name))
        else:
            raise ValueError(f"unknown backend {name!r} for a model file; use highspy, highspy:ipm or "
                             "cvxpy:SOLVER (e.g. cvxpy:CLARABEL, cvxpy:HIGHS)")
    return rows
