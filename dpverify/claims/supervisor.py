"""Supervised runs: claims' checks run in long-lived worker processes watched by the parent.

The parent knows every claim it must hear from.  It forks ``jobs`` workers (a fork inherits
the imported rooms and the claim objects, so nothing is imported or pickled again) and hands
each one claim at a time by its index.  A worker that dies, exits (even by ``os._exit``), is
killed, or runs past the claim's limit (the ``timeout`` given, else the claim's declared
``timeout``) is ended together with its process group (the processes its check started); the
claim it was running becomes an ``error`` result naming the reason, and a fresh worker carries
on with the remaining claims.  Every claim therefore gets a result, and a check cannot end the
run early.

Containment: each worker runs in its own process group and in a temporary working directory
(removed after the run); a ``KeyboardInterrupt`` (or ``GeneratorExit``) raised inside a check
is that claim's ``error``; the files that define the claims are hashed before the run and
after every reported claim, and the claim that reported when a change was first seen is an
``error`` naming the file (with ``jobs > 1`` the change may have come from a claim running
alongside it; the run fails either way).

:func:`supervise` returns the results in order; :func:`stream` yields them as they arrive, for
tasks that each name their own ``thorough`` (the pytest plugin runs a session's items through
one stream).  What the parent does with a worker that answered, died or overran lives in
:mod:`dpverify.claims.workers`.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection
import os
import shutil
import signal
import tempfile
import time
import traceback
from collections import deque
from typing import Any, Callable, Iterator, Sequence

from dpverify.claims.checks import check_items
from dpverify.claims.evidence import to_jsonable
from dpverify.claims.execute import with_route
from dpverify.claims.model import Claim, Outcome, Result, Verdict, check_timeout
from dpverify.claims.workers import (
    FileGuard,
    check_worker,
    claim_files,
    exit_reason,
    kill_group,
    leftover_children,
    remove_file,
    stack_file,
)
from dpverify.validation import check_positive_int

__all__ = ["TaskRunner", "guarded_load", "stream", "supervise"]

Progress = Callable[[Result], None]
Run = Callable[..., Result]  # run(claim, thorough=...): one claim's check, in this process
Task = tuple  # (claim, thorough): one run of one claim's check


def _payload(run: Run, c: Claim, thorough: bool) -> tuple:
    """Run a claim in a worker and return its result as plain (picklable) values."""
    try:
        r = run(c, thorough=thorough)
    except (KeyboardInterrupt, GeneratorExit) as exc:  # raised by the check itself: the claim's error
        first = (str(exc).strip().splitlines() or [""])[0]
        why = f"the check raised {type(exc).__name__}" + (f": {first}" if first else "")
        out = with_route(c, Outcome(Verdict.ERROR, {"error": f"{type(exc).__name__}: {first}"}, summary=why))
        r = Result(c, out, 0.0, traceback.format_exc())
    fig = to_jsonable(r.outcome.figure_data) if r.outcome.figure_data is not None else None
    return (r.outcome.verdict.value, to_jsonable(dict(r.outcome.evidence)), fig, r.seconds, r.error, r.outcome.summary)


def _serve(run: Run, todo: Sequence[Task], tasks: Any, results: Any, stack_file: str | None,
           workdir: str, parent: int) -> None:
    """Body of a worker: run the claims whose indices arrive on ``tasks`` until told to stop."""
    os.setpgid(0, 0)  # own process group: ending the worker also ends what its checks started
    os.chdir(workdir)
    if stack_file is not None:
        import faulthandler

        faulthandler.register(signal.SIGUSR1, file=open(stack_file, "w"), all_threads=True)  # noqa: SIM115
    while True:
        while not tasks.poll(1.0):
            if os.getppid() != parent:  # the parent is gone: nobody will read a result
                os._exit(1)
        i = tasks.recv()
        if i is None:
            break
        os.chdir(workdir)  # a check that moved elsewhere does not move the next one
        try:
            msg: Any = (i, "ok", _payload(run, *todo[i]))
        except BaseException:  # even a failure of the conversion is reported, not lost
            msg = (i, "failed", traceback.format_exc())
        results.send((*msg, leftover_children()))


class _Worker:
    """One worker process, the pipes to it, and the claim it is running."""

    def __init__(self, ctx: Any, run: Run, todo: Sequence[Task], workdir: str) -> None:
        self.tasks_reader, self.tasks = ctx.Pipe(duplex=False)
        self.results, results_writer = ctx.Pipe(duplex=False)
        self.stack_file = stack_file()
        # not a daemon: a check may start processes of its own (daemons may not)
        self.proc = ctx.Process(target=_serve, daemon=False,
                                args=(run, todo, self.tasks_reader, results_writer, self.stack_file,
                                      workdir, os.getpid()))
        self.proc.start()
        results_writer.close()
        self.current: tuple[int, float] | None = None

    def give(self, i: int) -> None:
        self.tasks.send(i)
        self.current = (i, time.perf_counter())

    def end(self, polite: bool = False) -> None:
        """Stop the worker and its process group; close the pipes."""
        if polite and self.proc.is_alive():
            try:
                self.tasks.send(None)
                self.proc.join(timeout=1)
            except OSError:
                pass
        kill_group(self.proc)
        self.proc.join(timeout=5)
        for conn in (self.tasks, self.tasks_reader, self.results):
            conn.close()
        remove_file(self.stack_file)


def supervise(claims: list[Claim], run: Run, *, thorough: bool, jobs: int, timeout: float | None,
              progress: Progress | None = None) -> list[Result]:
    """Run every claim in supervised worker processes; return one result per claim, in order.

    Parameters
    ----------
    claims : list of Claim
        Distinct claims (no id twice).
    run : callable
        ``run(claim, thorough=...)`` runs one check in the worker and returns its
        :class:`Result` (:func:`dpverify.claims.runner.run_claim`).
    thorough : bool
        Passed to every check.
    jobs : int
        Number of worker processes.
    timeout : float, optional
        Per-claim limit in seconds; None: each claim's declared ``timeout``.
    progress : callable, optional
        Called with each :class:`Result` as it arrives.

    Returns
    -------
    list of Result
        One per claim, in the order of ``claims``.
    """
    out: dict[int, Result] = {}
    for i, r in stream([(c, thorough) for c in claims], run, jobs=jobs, timeout=timeout):
        out[i] = r
        if progress:
            progress(r)
    return [out[i] for i in range(len(claims))]


def stream(tasks: Sequence[Task], run: Run, *, jobs: int = 1, timeout: float | None = None
           ) -> Iterator[tuple[int, Result]]:
    """Run tasks in supervised worker processes; yield ``(index, result)`` as each result arrives.

    Nothing starts before the first result is asked for, and a worker is handed its next task
    only when the caller asks for more, so a caller that takes one result at a time runs the
    tasks one after another, each timed from the moment it is handed over.  Closing the
    generator (or dropping it) ends the workers.

    Parameters
    ----------
    tasks : sequence of (Claim, bool)
        Each task is a claim and the ``thorough`` flag its check runs with; a claim may
        appear more than once (its quick and its thorough run).
    run : callable
        ``run(claim, thorough=...)`` runs one check in the worker and returns its :class:`Result`.
    jobs : int
        Number of worker processes (at most one per task).
    timeout : float, optional
        Per-task limit in seconds; None: each claim's declared ``timeout``.

    Yields
    ------
    (int, Result)
        The task's index in ``tasks`` and its result; every task yields exactly once.

    Example
    -------
    >>> from dpverify.claims.model import Method, Source
    >>> from dpverify.claims.runner import run_claim
    >>> c = Claim("zzsupdoc.ok", Source("none"), "1 = 1", Method.EXACT, Verdict.HOLDS,
    ...           lambda thorough=False: Outcome(Verdict.HOLDS, {"thorough": thorough}))
    >>> [(i, r.verdict.value, r.outcome.evidence["thorough"]) for i, r in stream([(c, False), (c, True)], run_claim)]
    [(0, 'holds', False), (1, 'holds', True)]
    """
    return _stream(*_checked(tasks, run, jobs, timeout))


def _checked(tasks: Sequence[Task], run: Run, jobs: int, timeout: float | None) -> tuple:
    """The arguments of :func:`stream` and :class:`TaskRunner`, checked."""
    todo = check_items(tasks, tuple, "tasks")
    for k, t in enumerate(todo):
        if len(t) != 2 or not isinstance(t[0], Claim) or not isinstance(t[1], bool):
            raise TypeError(f"tasks[{k}] must be a pair (Claim, bool), got {t!r:.200}")
    if not callable(run):
        raise TypeError(f"run must be a function run(claim, thorough=...), got {type(run).__name__}")
    jobs = check_positive_int(jobs, "jobs")
    if timeout is not None:
        timeout = check_timeout(timeout)
    return todo, run, jobs, timeout


def _stream(todo: list[Task], run: Run, jobs: int, timeout: float | None) -> Iterator[tuple[int, Result]]:
    ctx = mp.get_context("fork")
    claims = [c for c, _ in todo]
    pending = deque(range(len(todo)))
    slots: list[_Worker | None] = [None] * min(jobs, len(todo))
    done = 0
    guard = FileGuard(claim_files(claims))
    workdir = tempfile.mkdtemp(prefix="dpverify-work-")
    try:
        while done < len(todo):
            for k, w in enumerate(slots):
                if pending and (w is None or w.current is None):
                    if w is None or not w.proc.is_alive():
                        if w is not None:
                            w.end()
                        w = slots[k] = _Worker(ctx, run, todo, workdir)
                    w.give(pending.popleft())
            busy = [w for w in slots if w is not None and w.current is not None]
            mp.connection.wait([w.results for w in busy] + [w.proc.sentinel for w in busy], timeout=0.25)
            for k, w in enumerate(slots):
                if w is None or w.current is None:
                    continue
                r, ended = check_worker(w, claims, timeout, guard, run)
                if r is None:
                    continue
                i, w.current = w.current[0], None
                if ended:
                    w.end()
                    slots[k] = None
                done += 1
                yield i, r
    finally:
        for w in slots:
            if w is not None:
                w.end(polite=True)
        shutil.rmtree(workdir, ignore_errors=True)

class TaskRunner:
    """One long-lived supervised worker that runs tasks on demand, one at a time, in any order.

    The worker is forked at the first :meth:`result` (it inherits the imported claims, so
    nothing is imported again) and serves every later task; a worker that dies, overruns or
    leaves processes running makes that task's result an ``error`` (as in :func:`supervise`)
    and the next task gets a fresh worker.  :meth:`close` (or leaving a ``with`` block) ends it.

    Parameters
    ----------
    tasks : sequence of (Claim, bool)
        The tasks that may be asked for: a claim and the ``thorough`` flag of its check.
    run : callable
        ``run(claim, thorough=...)`` runs one check in the worker and returns its :class:`Result`.
    timeout : float, optional
        Per-task limit in seconds; None: each claim's declared ``timeout``.

    Example
    -------
    >>> from dpverify.claims.model import Method, Source
    >>> from dpverify.claims.runner import run_claim
    >>> c = Claim("zzsupdoc.ok", Source("none"), "1 = 1", Method.EXACT, Verdict.HOLDS,
    ...           lambda thorough=False: Outcome(Verdict.HOLDS, {"thorough": thorough}))
    >>> with TaskRunner([(c, False), (c, True)], run_claim) as runner:
    ...     [runner.result(i).outcome.evidence["thorough"] for i in (1, 0)]
    [True, False]
    """

    def __init__(self, tasks: Sequence[Task], run: Run, *, timeout: float | None = None) -> None:
        self._todo, self._run, _, self._timeout = _checked(tasks, run, 1, timeout)
        self._claims = [c for c, _ in self._todo]
        self._worker: _Worker | None = None
        self._guard: FileGuard | None = None
        self._workdir: str | None = None

    def result(self, i: int) -> Result:
        """Run task ``i`` on the worker (a fresh one if there is none) and return its result."""
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self._todo):
            raise ValueError(f"i must be the index of a task, 0 <= i < {len(self._todo)}, got {i!r:.100}")
        if self._workdir is None:
            self._guard = FileGuard(claim_files(self._claims))
            self._workdir = tempfile.mkdtemp(prefix="dpverify-work-")
        w = self._worker
        if w is None or not w.proc.is_alive():
            if w is not None:
                w.end()
            w = self._worker = _Worker(mp.get_context("fork"), self._run, self._todo, self._workdir)
        w.give(i)
        try:
            r, ended = None, False
            while r is None:
                mp.connection.wait([w.results, w.proc.sentinel], timeout=0.25)
                r, ended = check_worker(w, self._claims, self._timeout, self._guard, self._run)  # type: ignore[arg-type]
        except BaseException:  # interrupted while the task runs: the worker goes with it
            ended = True
            raise
        finally:
            w.current = None
            if ended:
                w.end()
                self._worker = None
        return r

    def close(self) -> None:
        """End the worker (and its process group) and remove the temporary working directory."""
        if self._worker is not None:
            self._worker.end(polite=True)
            self._worker = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> "TaskRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def guarded_load(load: Callable[[], list[Claim]], limit: float, *, base_exceptions: bool = False) -> str | None:
    """Try ``load`` in a forked process first; the reason it failed there, or None when it returned.

    A claims file that calls ``os._exit``, kills its process or blocks at import would end
    or stall the caller; tried in a child (ended with its process group after ``limit``
    seconds), it is reported instead.  The caller then loads the sources itself.

    Parameters
    ----------
    load : callable
        Loads the claims (``load()`` returns them); an exception it raises is left to the
        caller's own load to report.
    limit : float
        Seconds the load may take.
    base_exceptions : bool
        Also report a ``BaseException`` that is not an ``Exception`` (``SystemExit``,
        ``KeyboardInterrupt``, ``GeneratorExit``, a subclass of its own) raised by ``load``,
        as "loading the claims raised SystemExit: 0": for a caller (pytest) whose own load
        would not turn it into an error.

    Returns
    -------
    str or None
        Why loading failed in the child ("... ran past its 2 s limit", "... exited with
        code 0 before it finished"), or None.
    """
    ctx = mp.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)

    def body() -> None:
        os.setpgid(0, 0)
        try:
            writer.send(("ok", len(load())))
        except BaseException as exc:  # the caller's own load reports ordinary errors
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            writer.send(("raised", text, not isinstance(exc, Exception)))

    proc = ctx.Process(target=body, daemon=False)
    proc.start()
    writer.close()
    try:
        ready = mp.connection.wait([reader, proc.sentinel], timeout=limit)
        if not ready:  # the limit came first: whatever the child does next is too late
            return f"loading the claims ran past its {limit:g} s limit"
        if proc.sentinel in ready and reader not in ready:
            proc.join(timeout=1)  # it ended: a message sent just before may still be in the pipe
        if reader.poll():
            try:
                msg = reader.recv()
                if base_exceptions and msg[0] == "raised" and msg[2]:
                    return f"loading the claims raised {msg[1]}"
                return None
            except (EOFError, OSError):
                pass
        proc.join(timeout=1)  # it may still be on its way out
        if proc.is_alive():
            return f"loading the claims ran past its {limit:g} s limit"
        return exit_reason(proc).replace("the worker", "loading the claims").replace(" before reporting",
                                                                                     " before it finished")
    finally:
        kill_group(proc)
        proc.join(timeout=5)
        reader.close()
