"""LPBoost's HiGHS model with hypotheses written as differences (the default) against dense rows.

Both are checked against the LP over all stumps solved independently; the
difference encoding must give the same optimum with fewer nonzeros.
"""

from __future__ import annotations

import numpy as np
import pytest

from lpboosting import column_generation
from lpboosting.backends import HighspyBackend, RecordingBackend, get_backend
from lpboosting.backends.highs.lpboost import HighsDeltaEdgeLP, HighsEdgeLP
from lpboosting.masters import LPBoost
from lpboosting.oracles import Features, Stumps
from tests.helpers import all_stump_columns, check_optimality, DATASETS, soft_margin_lp


def test_the_difference_model_and_rows_are_variants():
    delta = get_backend("highspy:delta")
    assert isinstance(delta.open(LPBoost(0.2), 5), HighsDeltaEdgeLP) and delta.incremental
    rows = get_backend("highspy:rows")
    assert isinstance(rows.open(LPBoost(0.2), 5), HighsEdgeLP) and rows.incremental
    assert rows.name == "highspy:rows"


@pytest.mark.parametrize("data", sorted(DATASETS))
@pytest.mark.parametrize("nu", [0.05, 0.3])
def test_both_models_reach_the_full_lp_with_the_same_optimum(data, nu):
    X, y = DATASETS[data]()
    full = soft_margin_lp(all_stump_columns(X, y), nu)["value"]
    for name in ("highspy:delta", "highspy:rows"):
        rec = RecordingBackend(name)
        res = column_generation(LPBoost(nu), Stumps(X, y), backend=rec, tol=1e-10, columns_per_round=3)
        assert res.converged and res.objective == pytest.approx(full, abs=1e-8), name
        for record, sol in zip(res.history, rec.solutions):
            check_optimality(sol, res.columns[:, :record.n_columns], nu, 1e-8)
            # the edge variables of the difference model are the edges d . u_j
            np.testing.assert_allclose(sol.dual_edges,
                                       sol.distribution @ res.columns[:, :record.n_columns], atol=1e-9)


def test_differences_are_sparser_than_rows_and_solve_the_same_master():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=300) > 0, 1.0, -1.0)
    oracle = Stumps(X, y)
    e = np.nan_to_num(oracle.edges(np.full(300, 1 / 300)), nan=-np.inf)
    # 40 stumps on one feature at neighbouring thresholds, and their negations
    cols = [y * oracle._candidate(np.full(300, 1 / 300), e, k, 0).hypothesis.predict(X)
            for k in range(100, 140)]
    U = np.column_stack(cols + [-c for c in cols[:5]])
    delta = HighspyBackend("delta").open(LPBoost(0.2), 300)
    rows = HighspyBackend("rows").open(LPBoost(0.2), 300)
    for u in U.T:
        delta.add_column(u)
        rows.add_column(u)
    a, b = delta.solve(), rows.solve()
    assert a.objective == pytest.approx(b.objective, abs=1e-10)
    dense = 300 + 300 * U.shape[1]
    assert delta.nonzeros < dense / 10
    # a column that is not +-1 is written from d itself
    f = Features(X, y).price(np.full(300, 1 / 300)).column
    delta.add_column(f)
    rows.add_column(f)
    assert delta.solve().objective == pytest.approx(rows.solve().objective, abs=1e-10)
