"""The Dask classifier on a LocalCluster of two worker processes, against the in-memory fit.

The Dask fit runs the same loop, master session and pricing as
``LPBoostClassifier(oracle="binned-stumps")``; only where the rows live
differs.  Objectives are compared to 1e-9 (the masters' verify tolerance is
1e-6 relative; both fits are certified by the same exact oracle, so their
optima agree to HiGHS's optimality tolerance, 1e-7, and here far closer),
the hypotheses as objects, and the weights by their value: each is an
optimum of the same LP (the optimal face may hold more than one point).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from lpboosting import LPBoostClassifier  # noqa: E402
from lpboosting.colgen import LoopOptions, column_generation  # noqa: E402
from lpboosting.dask import DaskBinnedStumps, DaskFrame, DaskLPBoostClassifier  # noqa: E402
from lpboosting.datasets import twonorm  # noqa: E402
from lpboosting.masters import LPBoost  # noqa: E402
from lpboosting.masters.lpboost import soft_margin  # noqa: E402
from lpboosting.oracles import BinnedStumps  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _in_memory(X, y, **params):
    return LPBoostClassifier(oracle="binned-stumps", **params).fit(X, y)


def test_dask_fit_equals_the_in_memory_fit_at_20000_rows_in_4_partitions(client):
    X, y = twonorm(20000, random_state=0)
    params = {"nu": 0.1}
    ours = DaskLPBoostClassifier(client=client, **params).fit(da.from_array(X, chunks=(5000, 20)),
                                                              da.from_array(y, chunks=5000))
    reference = _in_memory(X, y, **params)
    assert ours.status_ == reference.status_ == "converged"
    assert abs(ours.objective_ - reference.objective_) <= 1e-9
    assert ours.hypotheses_ == reference.hypotheses_
    # the optimal face is not a point (histograms summed across partitions differ from the
    # in-memory sums in the last bits, and HiGHS may end at another optimal vertex): each fit's
    # weights and distribution are an optimum of the same LP over these hypotheses, to 1e-9
    y_pm = np.where(y == reference.classes_[1], 1.0, -1.0)
    U = np.column_stack([y_pm * h.predict(X) for h in reference.hypotheses_])
    cap = 1.0 / (params["nu"] * y.size)
    for fit in (ours, reference):
        assert abs(soft_margin(U @ fit.weights_, params["nu"]) - reference.objective_) <= 1e-9
        d = fit.distribution_
        assert abs(d.sum() - 1.0) <= 1e-9 and d.min() >= -1e-12 and d.max() <= cap + 1e-12
        assert (d @ U).max() <= reference.objective_ + 1e-9
    assert ours.history_.meta["n_samples"] == 20000
    # predict, decision_function and predict_proba by map_blocks equal the same model in memory
    Xd = da.from_array(X[:3000], chunks=(700, 20))
    np.testing.assert_array_equal(ours.predict(Xd).compute(), ours.predict(X[:3000]))
    np.testing.assert_allclose(ours.decision_function(Xd).compute(), ours.decision_function(X[:3000]),
                               atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xd).compute(), ours.predict_proba(X[:3000]), atol=1e-12)
    assert np.mean(ours.predict(X[:3000]) == reference.predict(X[:3000])) >= 0.99


def test_uneven_and_empty_partitions_and_the_loop_itself(client):
    """The loop with the Dask oracle equals the loop with the in-memory one (same bins, given),
    whatever the partitions: empty ones, a partition of one row, uneven sizes."""
    X, y = twonorm(3000, random_state=1)
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    memory = BinnedStumps(X, y_pm, max_bins=32)
    options = LoopOptions(tol=1e-9, columns_per_round=3)
    reference = column_generation(LPBoost(0.2), memory, options)
    chunks = ((0, 1, 1800, 0, 1199), (20,))
    frame = DaskFrame(client, da.from_array(X, chunks=chunks), da.from_array(y, chunks=(chunks[0],)),
                      max_bins=32, thresholds=memory.thresholds)
    assert frame.n_partitions == 5
    result = column_generation(LPBoost(0.2), DaskBinnedStumps(frame), options)
    assert result.status == reference.status == "converged"
    assert abs(result.objective - reference.objective) <= 1e-9
    assert result.hypotheses == reference.hypotheses
    U = np.asarray(result.columns)
    np.testing.assert_array_equal(U, np.asarray(reference.columns))


def test_bins_from_every_row_equal_the_in_memory_bins(client):
    X, y = twonorm(1500, random_state=2)
    X[::7, 3] = np.nan
    frame = DaskFrame(client, da.from_array(X, chunks=(400, 20)), da.from_array(y, chunks=400), max_bins=16)
    memory = BinnedStumps(X, np.where(y == np.unique(y)[1], 1.0, -1.0), max_bins=16)
    for ours, theirs in zip(frame.thresholds, memory.thresholds):
        np.testing.assert_array_equal(ours, theirs)
    assert frame.has_missing.tolist() == [j == 3 for j in range(20)]
    d = np.random.default_rng(0).dirichlet(np.ones(1500))
    np.testing.assert_allclose(DaskBinnedStumps(frame).edges(d), memory.edges(d), atol=1e-12, equal_nan=True)


def test_dataframe_input_feature_names_and_pickle(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = twonorm(2000, random_state=3)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(20)])
    labels = pd.Series(np.where(y == np.unique(y)[1], "yes", "no"))
    model = DaskLPBoostClassifier(nu=0.2, client=client).fit(dd.from_pandas(frame, npartitions=3),
                                                             dd.from_pandas(labels, npartitions=3))
    assert model.feature_names_in_.tolist() == list(frame.columns)
    assert model.classes_.tolist() == ["no", "yes"]
    again = pickle.loads(pickle.dumps(model))
    assert again.client is None
    np.testing.assert_array_equal(again.predict(frame), model.predict(dd.from_pandas(frame, npartitions=2)).compute())
    reference = _in_memory(frame, labels, nu=0.2)
    assert abs(model.objective_ - reference.objective_) <= 1e-9


def test_a_worker_lost_mid_fit_is_survived(client):
    """A callback kills a worker after round 2: the lost partitions are recomputed from their
    lineage, the call is made again, and the fit ends as the in-memory one does."""
    X, y = twonorm(4000, random_state=4)
    killed = []

    def kill(record, state):
        if record.round == 2 and not killed:
            worker = sorted(client.scheduler_info()["workers"])[0]
            killed.append(worker)
            try:
                client.run(lambda: __import__("os")._exit(1), workers=[worker])
            except Exception:  # the worker dies before it answers
                pass

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = DaskLPBoostClassifier(nu=0.1, client=client, callback=kill).fit(
            da.from_array(X, chunks=(1000, 20)), da.from_array(y, chunks=1000))
    assert killed
    reference = _in_memory(X, y, nu=0.1)
    assert model.status_ == "converged"
    assert abs(model.objective_ - reference.objective_) <= 1e-9
    client.wait_for_workers(2, timeout=60)


@pytest.mark.parametrize("params, message", [
    ({"nu": "auto"}, "cross-validation"),
    ({"oracle": "stumps"}, "binned-stumps"),
    ({"oracle_params": {"max_depth": 2}}, "max_bins and thresholds"),
    ({"warm_start": True}, "warm_start"),
])
def test_parameters_the_dask_fit_does_not_take(client, params, message):
    X, y = twonorm(200, random_state=5)
    with pytest.raises(ValueError, match=message):
        DaskLPBoostClassifier(client=client, **params).fit(da.from_array(X, chunks=(100, 20)), y)


def test_bad_data_gets_a_clear_error(client):
    X, y = twonorm(300, random_state=6)
    with pytest.raises(ValueError, match="two classes"):
        DaskLPBoostClassifier(client=client).fit(da.from_array(X, chunks=(100, 20)), np.arange(300) % 3)
    X[5, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DaskLPBoostClassifier(client=client).fit(da.from_array(X, chunks=(100, 20)), y)
    with pytest.raises(ValueError, match="one label per row"):
        DaskLPBoostClassifier(client=client).fit(da.from_array(X[:, :], chunks=(100, 20)), y[:10])


def test_the_partitioned_matrix_reads_as_the_numpy_matrix_of_its_columns(client):
    """weighted_sum (all rows, given rows inside and outside the row cache), column_dots, take_rows
    and edges_at through lpboosting.columns equal the same reads of the gathered numpy matrix."""
    from lpboosting.columns import column_dots, edges_at, take_rows, weighted_sum
    from lpboosting.dask import PartitionedColumn, PartitionedColumns

    X, y = twonorm(2500, random_state=7)
    X[::11, 4] = np.nan
    frame = DaskFrame(client, da.from_array(X, chunks=((0, 900, 1, 1599), (20,))), y, max_bins=12)
    rng = np.random.default_rng(0)
    specs = [(int(f), int(k), float(s), int(frame.n_bins[f]), bool(m)) for f, k, s, m in
             zip(rng.integers(0, 20, 9), rng.integers(0, 13, 9), rng.choice([-1.0, 1.0], 9), rng.random(9) < .3)]
    U = PartitionedColumns(frame, [PartitionedColumn(frame, spec, bytes([j])) for j, spec in enumerate(specs)])
    A = np.asarray(U)
    assert A.shape == (2500, 9) and set(np.unique(A)) <= {-1, 1}
    w, d = rng.random(9), rng.dirichlet(np.ones(2500))
    index = np.array([0, 3, 8, 5])
    # sums of four terms below 1 taken in another order: equal to a few units in the last place
    np.testing.assert_allclose(weighted_sum(U, index, w[:4]), weighted_sum(A, index, w[:4]), rtol=0, atol=1e-15)
    rows = rng.choice(2500, 300, replace=False)
    np.testing.assert_array_equal(take_rows(U, rows, index), A[np.ix_(rows, index)])
    for at in (rows, rng.choice(2500, 40, replace=False)):  # cached rows, then mostly new ones
        np.testing.assert_allclose(weighted_sum(U, index, w[:4], rows=at), weighted_sum(A, index, w[:4], rows=at),
                                   rtol=0, atol=1e-15)
    np.testing.assert_allclose(column_dots(U, d, index), column_dots(A, d, index), atol=1e-15)
    np.testing.assert_allclose(edges_at(d, U.columns[:3]), [d @ A[:, j] for j in range(3)], atol=1e-15)
    assert U[:, :4].shape == (2500, 4) and U[:, 2] is U.columns[2]
    with pytest.raises(TypeError, match="Dask workers"):
        U[rows, 0]
