"""The sampling loop on a Dask cluster gives exactly the local result (skipped without dask)."""

import pytest

from dpverify.audit import epsilon_lower_bound
from dpverify.audit.mechanisms import NoisyMax

distributed = pytest.importorskip("distributed")


def _compare(processes: bool):
    from dpverify.audit.dask_backend import dask_executor

    mech = NoisyMax(1.0, returns="value")
    local = epsilon_lower_bound(mech, [1.0] * 5, [2.0, 0, 0, 0, 0], samples=60_000, rng=5, chunk_size=8_000)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        remote = epsilon_lower_bound(mech, [1.0] * 5, [2.0, 0, 0, 0, 0], samples=60_000, rng=5, chunk_size=8_000,
                                     executor=dask_executor(client))
    assert (remote.epsilon, remote.count_p, remote.count_q) == (local.epsilon, local.count_p, local.count_q)
    assert remote.event.description == local.event.description


def test_dask_threads_cluster_matches_local():
    _compare(processes=False)


@pytest.mark.slow
def test_dask_process_cluster_matches_local():
    _compare(processes=True)


def test_dask_executor_rejects_non_client():
    from dpverify.audit.dask_backend import DaskExecutor

    with pytest.raises(TypeError, match="client"):
        DaskExecutor(object())
