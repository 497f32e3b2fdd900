"""Chunks of the auditor's draws: picklable jobs with their own seeds, run here or on an executor.

Every chunk draws its outputs from ``SeedSequence(entropy, spawn_key=key)``, so its result depends
only on (entropy, key), never on the process, the worker or the order it ran in: a process pool or a
dask Client (:mod:`dpverify.audit.dask_backend`) gives the same audit as a local run.

Example
-------
>>> from dpverify.audit.suite import Laplace
>>> job = ChunkJob(Laplace(1.0), 0.0, 5, 7, (1, 0), None)
>>> bool(np.array_equal(job.outputs(), job.outputs())), job.statistic_values().shape
(True, (5,))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpverify.audit.errors import MechanismError, call_mechanism
from dpverify.audit.events import Binner
from dpverify.budget import draws_in_memory
from dpverify.validation import check_budget, check_nonneg_int, check_positive_int

DEFAULT_CHUNK = 1 << 19  # draws per chunk unless a caller says otherwise: memory stays O(chunk)
#: Bytes a chunk holds per draw of scalar outputs (the output, its statistic value, its bin index and
#: the comparisons of counting, with room to spare): a chunk has at most ``draws_in_memory(CHUNK_BYTES)``
#: draws (2^26 under the default 4 GiB budget, far above every chunk size in use, so no layout changes).
CHUNK_BYTES = 64
#: Bytes a stage that holds its draws needs per draw at each input of scalar float64 outputs (a
#: screening round: outputs, statistic values, halves, binning and sorting).  Measured: peak RSS of a
#: screening round of Laplace outputs, 2·10^6 and 4·10^6 draws per input, 115.5 and 115.2 bytes;
#: of 20-wide rows (160 bytes) 1,063–1,166 bytes, of 4-wide rows (32 bytes) 348 — see :func:`held_bound`.
HELD_BYTES = 116


@dataclass(frozen=True)
class ChunkJob:
    """One chunk of work: draw n outputs with its own seed, map to the statistic, count.

    Picklable, so it can run in another process or on a Dask worker; the result depends
    only on (entropy, key), never on where it ran.
    """

    mechanism: Callable
    data: Any
    n: int
    entropy: int
    key: tuple
    statistic: Callable | None

    def outputs(self) -> np.ndarray:
        rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=self.key))
        return call_mechanism(self.mechanism, self.data, rng, self.n)

    def statistic_values(self) -> np.ndarray:
        out = self.outputs()
        if self.statistic is None:
            if out.ndim != 1:
                raise MechanismError(
                    f"mechanism outputs have shape {out.shape[1:]} per sample; pass statistic= (a callable "
                    "mapping outputs to one number each, e.g. a projection or PatternCode()) or statistic='classifier'"
                )
            return out.astype(np.int64) if out.dtype.kind == "b" else out
        try:
            t = np.asarray(self.statistic(out))
        except KeyboardInterrupt:  # the user's, not the statistic's
            raise
        except BaseException as exc:  # SystemExit, GeneratorExit, ... of user code: the statistic failed
            raise MechanismError(f"statistic raised {type(exc).__name__}: {exc}") from exc
        if t.shape != (self.n,):
            raise MechanismError(f"statistic returned shape {t.shape}, expected ({self.n},)")
        if t.dtype.kind == "f" and not np.isfinite(t).all():
            raise MechanismError("statistic returned NaN or inf")
        if t.dtype.kind not in "biuf":
            raise MechanismError(f"statistic returned non-numeric values of dtype {t.dtype}")
        return t.astype(np.int64) if t.dtype.kind == "b" else t


@dataclass(frozen=True)
class CountBins:
    """A picklable task: run ``job`` and count its statistic values into ``binner``'s bins.

    Calling it returns the counts of the chunk's first and second half separately, shape
    ``(2, binner.nbins)`` (the selection scores an ordering on one half and its cut on the other).

    Parameters
    ----------
    job : ChunkJob
        The draws.
    binner : Binner
        The bins fixed from the pilot sample.

    Example
    -------
    >>> from dpverify.audit.suite import Laplace
    >>> job = ChunkJob(Laplace(1.0), 0.0, 1000, 7, (1, 0), None)
    >>> counts = CountBins(job, Binner(job.statistic_values()))()
    >>> counts.shape[0], int(counts.sum())
    (2, 1000)
    """

    job: ChunkJob
    binner: Binner

    def __post_init__(self):
        _check_job(self.job)
        if not isinstance(self.binner, Binner):
            raise TypeError(f"binner must be a Binner, got {type(self.binner).__name__}")

    def __call__(self) -> np.ndarray:
        return self.binner.count_halves(self.job.statistic_values())


@dataclass(frozen=True)
class CountEvent:
    """A picklable task: run ``job`` and count how many of its statistic values fall in each event.

    Parameters
    ----------
    job : ChunkJob
        The draws.
    events : tuple of Event
        The events (anything with ``contains(t)``), counted in this order.

    Example
    -------
    >>> from dpverify.audit.events import make_event
    >>> from dpverify.audit.suite import Laplace
    >>> job = ChunkJob(Laplace(1.0), 0.0, 1000, 7, (1, 0), None)
    >>> b = Binner(job.statistic_values())
    >>> below = make_event("le", np.arange(b.nbins) < b.nbins // 2, b)
    >>> above = make_event("gt", np.arange(b.nbins) >= b.nbins // 2, b)
    >>> int(CountEvent(job, (below, above))().sum())   # the two events split the draws
    1000
    """

    job: ChunkJob
    events: tuple

    def __post_init__(self):
        _check_job(self.job)
        if not isinstance(self.events, tuple) or not all(callable(getattr(e, "contains", None)) for e in self.events):
            raise TypeError(f"events must be a tuple of events (objects with contains(t)), got {self.events!r}")

    def __call__(self) -> np.ndarray:
        t = self.job.statistic_values()
        return np.array([np.count_nonzero(e.contains(t)) for e in self.events], dtype=np.int64)


def _check_job(job) -> None:
    if not isinstance(job, ChunkJob):
        raise TypeError(f"job must be a ChunkJob, got {type(job).__name__}")


class Progress:
    """Samples drawn so far, reported to an optional callback ``progress(done, total)``.

    >>> seen = []
    >>> p = Progress(lambda done, total: seen.append((done, total)), 10)
    >>> p.add(4); p.add(6); seen
    [(4, 10), (10, 10)]
    """

    def __init__(self, callback, total: int):
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable as callback(done, total) or None, got {type(callback).__name__}")
        check_nonneg_int(total, "total")
        self.callback, self.total, self.done = callback, total, [0]

    def add(self, m: int) -> None:
        self.done[0] += m
        if self.callback is not None:
            self.callback(self.done[0], self.total)


def run_tasks(tasks: list, executor, prog: Progress, sizes: list[int]):
    """Run the chunk tasks locally or on ``executor`` (anything with ``submit`` returning
    futures with ``.result()``: concurrent.futures executors, dask.distributed.Client), in order.

    >>> run_tasks([lambda: 1, lambda: 2], None, Progress(None, 0), [5, 5])
    [1, 2]
    """
    if not isinstance(tasks, (list, tuple)) or not all(callable(t) for t in tasks):
        raise TypeError(f"tasks must be a list of callables, got {type(tasks).__name__}"
                        + ("" if not isinstance(tasks, (list, tuple)) else " holding a non-callable"))
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"executor must have submit(task) (an Executor or a dask Client) or be None, got "
                        f"{type(executor).__name__}")
    if not isinstance(prog, Progress):
        raise TypeError(f"prog must be a Progress, got {type(prog).__name__}")
    seq = isinstance(sizes, (list, tuple)) or isinstance(sizes, np.ndarray) and sizes.ndim == 1
    if not seq or len(sizes) != len(tasks):
        raise ValueError(f"sizes must be a list with one draw count per task of tasks ({len(tasks)}), got "
                         f"{type(sizes).__name__}" + (f" of length {len(sizes)}" if seq else ""))
    for m in sizes:
        check_nonneg_int(m, "sizes")
    results = []
    if executor is None:
        for task, m in zip(tasks, sizes):
            results.append(task())
            prog.add(m)
        return results
    from dpverify.audit.contained import ContainedFuture, task_mechanism_name

    # a worker that dies under a task (os._exit, a signal) is a MechanismError, not BrokenProcessPool
    futures = [ContainedFuture(executor.submit(task), task_mechanism_name(task)) for task in tasks]
    for fut, m in zip(futures, sizes):
        results.append(fut.result())
        prog.add(m)
    return results


def chunk_sizes(n: int, chunk: int) -> list[int]:
    """``n`` draws cut into chunks of at most ``chunk`` — and of at most
    :func:`chunk_bound` draws, so that no chunk outgrows the memory budget.

    A list of chunks beyond the memory budget is refused.  The number of draws itself is the
    caller's budget (``audit`` bounds ``samples`` and names it), not this helper's.

    >>> chunk_sizes(10, 4), chunk_sizes(8, 4)
    ([4, 4, 2], [4, 4])
    """
    n = check_nonneg_int(n, "n")
    chunk = min(check_positive_int(chunk, "chunk"), chunk_bound())
    k, r = divmod(n, chunk)
    check_budget(8 * (k + 1), f"n = {n} in chunks of {chunk}")  # one list entry per chunk
    return [chunk] * k + ([r] if r else [])


def chunk_bound() -> int:
    """The most draws of one mechanism call in a chunk: the memory budget over ``CHUNK_BYTES``.

    >>> chunk_bound() >= DEFAULT_CHUNK   # under the default 4 GiB budget
    True
    """
    return draws_in_memory(CHUNK_BYTES)


def held_bound(row_bytes: int = 8) -> int:
    """The most draws per input a stage that holds its draws (screening, training, a probe) may make
    in one call when each output row has ``row_bytes`` bytes: the memory budget over
    ``HELD_BYTES + 8·(row_bytes − 8)`` (the measured cost of scalar rows, and of wider rows within
    about 15 %).  2^32/116 ≈ 3.7·10^7 scalar draws under the default 4 GiB budget.

    >>> held_bound() > 10**7, held_bound(160) < held_bound(8)
    (True, True)
    """
    row_bytes = check_positive_int(row_bytes, "row_bytes")
    return draws_in_memory(HELD_BYTES + 8 * max(0, row_bytes - 8))


def readonly(x):
    """A read-only copy of an array (a mechanism cannot alter an audit's input); other values as they are.

    >>> readonly(np.zeros(2)).flags.writeable, readonly(3)
    (False, 3)
    """
    if isinstance(x, np.ndarray):
        y = x.copy()
        y.setflags(write=False)
        return y
    return x
