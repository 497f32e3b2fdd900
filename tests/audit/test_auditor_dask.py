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


def test_searched_audit_on_a_dask_cluster_matches_local():
    """``audit()`` runs its screening jobs and final chunks on the cluster: the same report."""
    from dpverify.audit import audit
    from dpverify.audit.dask_backend import dask_executor
    from dpverify.audit.suite import ReportNoisyMax1

    m = ReportNoisyMax1(0.5)
    kw = dict(epsilon=0.5, samples=40_000, rng=2, confidence=0.9, stop_early=False)
    local = audit(m, **kw).as_dict()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        remote = audit(m, executor=dask_executor(client), **kw).as_dict()
    local.pop("seconds"), remote.pop("seconds")
    assert len(local["screened"]) > 2 and remote == local


def test_dask_executor_rejects_non_client():
    from dpverify.audit.dask_backend import DaskExecutor

    with pytest.raises(TypeError, match="client"):
        DaskExecutor(object())
