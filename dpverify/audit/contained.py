"""Worker deaths reported as the mechanism's error: :class:`ContainedExecutor`, :class:`ContainedFuture`.

An executor (a process pool, :class:`dpverify.audit.dask_backend.DaskExecutor`) runs chunks of the
audit in worker processes.  A mechanism that ends its worker — ``os._exit``, a signal, a crash —
surfaces as ``BrokenProcessPool`` (concurrent.futures) or ``KilledWorker`` (dask); wrapped here, it
is a :class:`MechanismError` naming the mechanism, so the audit command exits with status 2 (an
error) instead of a traceback read as "refuted".  What the mechanism *raises* (``SystemExit``
included) is already a :class:`MechanismError` in the worker
(:func:`dpverify.mechanisms.checked_sample`).  The command's own process is supervised by
:mod:`dpverify.audit.supervised`.

Example
-------
>>> from concurrent.futures import ThreadPoolExecutor
>>> with ThreadPoolExecutor(1) as pool:
...     ContainedExecutor(pool, "m").submit(lambda: 42).result()
42
"""

from __future__ import annotations

import json

from dpverify.audit.errors import MechanismError

__all__ = ["ContainedExecutor", "ContainedFuture", "USAGE_ERRORS", "channel_frames", "task_mechanism_name",
           "worker_death"]

#: the exception classes a supervised child reports by name: bad input (one line, exit status 2)
USAGE_ERRORS = {c.__name__: c for c in (FileNotFoundError, OSError, MemoryError, OverflowError, ValueError, TypeError)}
MAX_FRAME = 1 << 28  # 256 MiB: a longer length prefix is a malformed stream


_SCHEMA = {"call": {"thread": (int,), "call": (str, type(None))},
           "result": {"status": (int,), "stdout": (str,), "stderr": (str,)},
           "raised": {"class": (str,), "message": (str,), "stdout": (str,), "stderr": (str,)},
           "ended": {"why": (str,), "stdout": (str,), "stderr": (str,)}}
_OPTIONAL = {"raised": {"type": (str,), "traceback": (str,), "strerror": (str, type(None)),
                        "filename": (str, type(None))}}


def _valid(frame, token: str) -> bool:
    """Whether ``frame`` is one the supervisor sends: a dict with the token, a known kind and exactly
    that kind's fields, of their types."""
    import hmac

    if not isinstance(frame, dict) or frame.get("kind") not in _SCHEMA:
        return False
    given = frame.get("token")
    if not isinstance(given, str) or not hmac.compare_digest(given.encode("utf-8", "surrogatepass"),
                                                             token.encode("utf-8", "surrogatepass")):
        return False
    need, may = _SCHEMA[frame["kind"]], _OPTIONAL.get(frame["kind"], {})
    keys = set(frame) - {"kind", "token"}
    if not set(need) <= keys <= set(need) | set(may):
        return False
    types = {**need, **may}
    if not all(type(frame[k]) in types[k] for k in keys):  # exact types: no bool for an int
        return False
    if frame["kind"] == "raised":
        cls = frame["class"]
        return cls in USAGE_ERRORS or cls == "MechanismError" or (cls == "internal" and frame.get("type", "").isidentifier())
    return frame["kind"] != "result" or 0 <= frame["status"] <= 255


def channel_frames(data: bytes, token: str) -> list | None:
    """The frames of a supervised child's channel (:mod:`dpverify.audit.supervised`), None when the
    stream is malformed: a bad length, a frame that is not valid JSON, lacks ``token`` or breaks the
    schema, a frame after the final one, bytes left over.  Nothing is unpickled or evaluated.

    Example
    -------
    >>> import json
    >>> body = json.dumps({"kind": "call", "thread": 1, "call": None, "token": "t"}).encode()
    >>> frame = len(body).to_bytes(8, "little") + body
    >>> channel_frames(frame, "t")[0]["kind"], channel_frames(frame, "u"), channel_frames(frame[:-1], "t")
    ('call', None, None)
    """
    if not isinstance(data, bytes) or not isinstance(token, str):
        raise TypeError(f"data must be bytes and token a str, got {type(data).__name__} and {type(token).__name__}")
    out, at = [], 0
    while at < len(data):
        size = int.from_bytes(data[at:at + 8], "little")
        if len(data) < at + 8 or size > MAX_FRAME or len(data) < at + 8 + size:
            return None
        try:
            frame = json.loads(data[at + 8:at + 8 + size].decode("utf-8"))
        except (ValueError, RecursionError):
            return None
        if not _valid(frame, token) or (out and out[-1]["kind"] != "call"):
            return None
        out.append(frame)
        at += 8 + size
    return out


def worker_death(exc: BaseException) -> bool:
    """Whether ``exc`` says that a worker process died under a task (a broken process pool, a dask
    worker killed or lost), as opposed to an exception the task raised.

    Example
    -------
    >>> from concurrent.futures.process import BrokenProcessPool
    >>> worker_death(BrokenProcessPool("gone")), worker_death(ValueError("x"))
    (True, False)
    """
    from concurrent.futures import BrokenExecutor

    if not isinstance(exc, BaseException):
        raise TypeError(f"exc must be an exception, got a {type(exc).__name__}")
    return isinstance(exc, BrokenExecutor) or type(exc).__name__ in ("KilledWorker", "WorkerLostError")


def _death_error(exc: BaseException, name: str | None) -> MechanismError:
    who = f"mechanism {name!r}" if name else "the mechanism"
    text = " ".join(str(exc).split()).split(". ")[0][:160]  # one line: dask's message runs on for sentences
    return MechanismError(f"{who} ended a worker process while drawing samples ({type(exc).__name__}: {text}); "
                          "the audit has no verdict (run with one job to see the call)")


def task_mechanism_name(task) -> str | None:
    """The name of the mechanism a chunk or screening task runs (its ``mechanism``, or its ``job``'s),
    None when it has none.

    Example
    -------
    >>> from dpverify.audit.chunks import ChunkJob
    >>> def coin(d, rng, n): ...
    >>> task_mechanism_name(ChunkJob(coin, 0, 1, 0, (), None)), task_mechanism_name(print)
    ('coin', None)
    """
    from dpverify.mechanisms.sampling import name_of

    if not (callable(task) or hasattr(task, "mechanism") or hasattr(task, "job")):  # what an executor runs, or a job
        raise TypeError(f"task must be a chunk or screening task (callable) or job, got a {type(task).__name__}")
    task = getattr(task, "__self__", task)  # a bound method of a job: the job
    mech = getattr(task, "mechanism", None)
    if mech is None:
        mech = getattr(getattr(task, "job", None), "mechanism", None)
    return None if mech is None else name_of(mech)


class ContainedFuture:
    """A future whose ``result()`` reports a worker's death as a :class:`MechanismError` naming
    ``name``; everything else (``cancel``, ``done``, ...) is the wrapped future's.

    Example
    -------
    >>> from concurrent.futures import Future
    >>> from concurrent.futures.process import BrokenProcessPool
    >>> f = Future(); f.set_exception(BrokenProcessPool("a worker died"))
    >>> try:
    ...     ContainedFuture(f, "m").result()
    ... except MechanismError as e:
    ...     print(str(e)[:44])
    mechanism 'm' ended a worker process while d
    """

    def __init__(self, future, name: str | None = None):
        if not callable(getattr(future, "result", None)):
            raise TypeError(f"future must have result() (a concurrent or dask future), got {type(future).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str or None, got {type(name).__name__}")
        self._future, self._name = future, name

    def result(self, *args, **kwargs):
        try:
            return self._future.result(*args, **kwargs)
        except BaseException as exc:
            if worker_death(exc):
                raise _death_error(exc, self._name) from exc
            raise

    def __getattr__(self, attr):  # cancel, done, ... as the wrapped future's
        if attr in ("_future", "_name"):
            raise AttributeError(attr)
        return getattr(self._future, attr)


class ContainedExecutor:
    """``executor`` with worker deaths reported as :class:`MechanismError` (naming ``name``, else
    the task's mechanism).

    Parameters
    ----------
    executor : object with ``submit(task)`` returning a future
        A ``concurrent.futures`` executor or :class:`dpverify.audit.dask_backend.DaskExecutor`.
    name : str, optional
        The mechanism's name, for the message (default: the submitted task's mechanism's).

    Example
    -------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     ex = ContainedExecutor(pool, "m")
    ...     ex._max_workers, ex.submit(lambda: 1).result()
    (2, 1)
    """

    def __init__(self, executor, name: str | None = None):
        if not callable(getattr(executor, "submit", None)):
            raise TypeError(f"executor must have submit(task), got {type(executor).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str or None, got {type(name).__name__}")
        self.executor, self.name = executor, name

    def submit(self, task, *args, **kwargs):
        return ContainedFuture(self.executor.submit(task, *args, **kwargs), self.name or task_mechanism_name(task))

    def __getattr__(self, attr):  # _max_workers, client, shutdown, ... as the wrapped executor's
        if attr in ("executor", "name"):
            raise AttributeError(attr)
        return getattr(self.executor, attr)
