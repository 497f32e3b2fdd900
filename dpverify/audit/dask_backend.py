"""Scale-out of the auditor's sampling onto a Dask cluster (optional extra ``dask``).

Every chunk of the audit is a small picklable job with its own seed (see
:func:`dpverify.audit.epsilon_lower_bound`), so it can run on any worker and the result is
identical to a local run with the same seed and ``chunk_size``.

Example
-------
>>> from dpverify.audit.dask_backend import dask_executor       # doctest: +SKIP
>>> from distributed import Client, LocalCluster                 # doctest: +SKIP
>>> with Client(LocalCluster(n_workers=4)) as client:            # doctest: +SKIP
...     r = epsilon_lower_bound(mech, d, d2, samples=10**9, rng=0, executor=dask_executor(client))
"""

from __future__ import annotations

__all__ = ["DaskExecutor", "dask_executor"]


class DaskExecutor:
    """Adapter: ``submit(task)`` runs ``task()`` on the cluster as an impure task (never cached).

    A worker that dies under a task (the mechanism called ``os._exit``, got a signal or crashed:
    dask's ``KilledWorker``) is a :class:`dpverify.audit.errors.MechanismError` naming the task's
    mechanism (:class:`dpverify.audit.contained.ContainedFuture`), never an internal traceback.

    Example
    -------
    >>> from concurrent.futures import Future
    >>> class Client:   # stands in for dask.distributed.Client: submit(fn, pure=...) -> future
    ...     def scheduler_info(self): return {}
    ...     def submit(self, fn, pure=True):
    ...         f = Future(); f.set_result((fn(), pure)); return f
    ...
    >>> DaskExecutor(Client()).submit(lambda: 42).result()   # tasks are submitted impure (never cached)
    (42, False)
    """

    def __init__(self, client):
        if not hasattr(client, "submit") or not hasattr(client, "scheduler_info"):
            raise TypeError(f"client must be a dask.distributed.Client, got {type(client).__name__}")
        self.client = client

    def submit(self, task):
        from dpverify.audit.contained import ContainedFuture, task_mechanism_name

        return ContainedFuture(self.client.submit(task, pure=False), task_mechanism_name(task))


def dask_executor(client=None) -> DaskExecutor:
    """An executor for ``epsilon_lower_bound(..., executor=...)`` on ``client`` (default: the current client).

    Example
    -------
    >>> from distributed import Client, LocalCluster                          # doctest: +SKIP
    >>> with LocalCluster(n_workers=2) as c, Client(c) as client:             # doctest: +SKIP
    ...     ex = dask_executor(client)
    ...     r = epsilon_lower_bound(mech, 0.0, 1.0, samples=10**8, rng=0, executor=ex)
    """
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError('the Dask backend needs the optional extra: pip install "dpverify[dask]"') from exc
    return DaskExecutor(client if client is not None else distributed.get_client())
