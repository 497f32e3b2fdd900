"""Supervised runs: the claims' checks run in worker processes watched by the parent.

The parent knows every claim it must hear from, and never runs a check itself.  It forks
long-lived workers (:mod:`dpverify.claims.server`), up to ``jobs`` at once, each for one *group*
of claims (:func:`~dpverify.claims.server.group_of`: one user's file, module or installed room, or
the shipped rooms), and hands each its group's tasks one at a time; claims of different groups
never share a process.  A worker of the shipped rooms (dpverify's own code) runs their checks one
after another, so caches stay warm as in an in-process run; a worker of a user's source imports it
once and forks a fresh process for each check, so nothing one check does reaches another.  A worker that dies, exits (even by ``os._exit``), is killed, or runs past the claim's
limit (the ``timeout`` given, else the claim's declared ``timeout``) is ended together with its
process group (the processes its checks started), and its claim becomes an ``error`` result
naming the reason; a fresh worker carries on with the rest.  Every claim therefore gets a
result, and a check cannot end the run early.

What a worker sends is never trusted (:mod:`dpverify.claims.protocol`): one JSON message per
task, no pickle, checked field by field, for the task it was handed; anything else (a message
for another claim, a second message, a malformed one) makes the claim an ``error`` ("the worker
sent a malformed message") and ends the worker.  A worker's stdout is its stderr: the parent
alone writes stdout.

Containment: each worker runs in its own process group and in a temporary working directory
(removed after the run); a ``KeyboardInterrupt`` (or ``GeneratorExit``) raised inside a check is
that claim's ``error``.  A worker is ended, and the next task of its group goes to a fresh one,
after a check that left processes or Python threads running, or changed the claims engine in
its process (:mod:`dpverify.claims.integrity`; that claim is an ``error``), so no later claim runs
where an earlier check left something behind.  The files that define the claims are hashed,
and the files under their folders are listed (:mod:`dpverify.claims.treeguard`), before the run
and after every reported claim; the claim that reported when a change was first seen is an
``error`` naming the file.  On Linux the parent is a child subreaper
(``PR_SET_CHILD_SUBREAPER``), so a process a check leaves behind, even after a double fork and
``setsid``, becomes the parent's child; it is killed after the claim and the claim is an
``error`` ("left ... process(es) running").  Elsewhere only the worker's process group is
ended.  With ``jobs > 1`` a change or a leftover process may come from a claim running alongside
the one that reported: the claims running when it was seen are ``error`` results too.

:func:`supervise` returns the results in order; :func:`stream` yields them as they arrive, for
tasks that each name their own ``thorough``; :class:`TaskRunner` runs them on demand (the pytest
plugin).  What the parent does with a worker that answered, died or overran lives in
:mod:`dpverify.claims.workers`; loading the claims files in a child, in
:mod:`dpverify.claims.loadguard`; the stand-ins for claims whose files the parent never imports,
in :mod:`dpverify.claims.remote`.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection
import os
import shutil
import sys
import tempfile
import time
import weakref
from typing import Any, Callable, Iterator, Sequence

from dpverify.claims.checks import check_items
from dpverify.claims.model import Claim, Outcome, Result, Verdict, check_timeout  # Outcome, Verdict: the examples
from dpverify.claims.loadguard import guarded_load
from dpverify.claims.protocol import become_subreaper, children, end_group, end_strays
from dpverify.claims.server import group_of, serve, task_message
from dpverify.claims.workers import FileGuard, check_worker, claim_files, contained, kill_group, remove_file, stack_file
from dpverify.validation import check_bool, check_nonneg_int, check_positive_int

__all__ = ["TaskRunner", "guarded_load", "stream", "supervise"]

Progress = Callable[[Result], None]
Run = Callable[..., Result]  # run(claim, thorough=...): one claim's check, in this process
Task = tuple  # (claim, thorough): one run of one claim's check


#: The supervisor's ends of the pipes of the live workers: a new worker closes them at once.
_PARENT_ENDS: weakref.WeakSet = weakref.WeakSet()


class _Worker:
    """One long-lived worker process of one group, the pipes to it, and the task it is running."""

    def __init__(self, ctx: Any, run: Run, todo: Sequence[Task], workdir: str, group: str) -> None:
        self.group = group
        self.results, results_writer = ctx.Pipe(duplex=False)
        tasks_reader, self.tasks = ctx.Pipe(duplex=False)
        _PARENT_ENDS.update((self.results, self.tasks))
        self.stack_file = stack_file()
        self.got: dict | None = None  # the current task's report, once read
        self.tainted: tuple[str | None, int] = (None, 0)  # a change or leftover seen while it ran
        self.current: tuple[int, float] | None = None  # (task, when it was handed over); None: idle
        self.retire = False  # True: end it instead of handing it another task
        for stream_ in (sys.stdout, sys.stderr):  # nothing buffered in the parent is written twice
            try:
                stream_.flush()
            except (AttributeError, OSError, ValueError):
                pass
        # not a daemon: a check may start processes of its own (daemons may not)
        isolate = group.startswith("source:")  # a user's source: a fresh process per check
        self.proc = ctx.Process(target=serve, daemon=False,
                                args=(run, todo, tasks_reader, results_writer, self.stack_file, workdir, isolate,
                                      [c for c in _PARENT_ENDS if not c.closed], os.getpid()))
        self.proc.start()
        results_writer.close()
        tasks_reader.close()

    def hand(self, i: int) -> bool:
        """Hand task ``i`` to the worker; False when it cannot take it (it ended, or something is
        waiting in its pipe that no task asked for: then it must not be trusted with another)."""
        if not self.proc.is_alive() or self.results.poll():
            return False
        try:
            self.tasks.send_bytes(task_message(i))
        except OSError:
            return False
        self.got, self.tainted = None, (None, 0)
        self.current = (i, time.perf_counter())
        return True

    def end(self, polite: bool = False) -> None:
        """Stop the worker and its process group; close the pipes."""
        self.tasks.close()  # a worker waiting for a task exits at the end of its input
        if polite and self.proc.is_alive():
            self.proc.join(timeout=1)
        kill_group(self.proc)
        self.proc.join(timeout=5)
        end_group(self.proc.pid, {self.proc.pid})
        self.results.close()
        _PARENT_ENDS.discard(self.results)
        _PARENT_ENDS.discard(self.tasks)
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
    claims, thorough = check_items(claims, Claim, "claims"), check_bool(thorough, "thorough")
    if len({c.id for c in claims}) < len(claims):
        raise ValueError(f"claims must be distinct (no id twice), got {len(claims)} claims with fewer ids")
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
    tasks one after another, each timed from the moment it is handed over.  The tasks of one
    group run in one worker, in the order given; groups in the order they first appear.  Closing the
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
    groups = [group_of(c) for c in claims]
    first = {g: k for k, g in reversed(list(enumerate(groups)))}
    pending = sorted(range(len(todo)), key=lambda k: (first[groups[k]], k))  # a group's tasks together
    slots: list[_Worker | None] = [None] * min(jobs, len(todo))
    done = 0
    guard = FileGuard(claim_files(claims), tree=True)
    become_subreaper()
    before = children()
    workdir = tempfile.mkdtemp(prefix="dpverify-work-")
    try:
        while done < len(todo):
            for k in range(len(slots)):
                slots[k] = _next(slots[k], pending, groups, lambda g: _Worker(ctx, run, todo, workdir, g),
                                 lambda: end_strays(before, {x.proc.pid for x in slots if x is not None}))
            busy = [w for w in slots if w is not None and w.current is not None]
            mp.connection.wait([w.results for w in busy] + [w.proc.sentinel for w in busy], timeout=0.25)
            for w in busy:
                r = check_worker(w, claims, timeout, run)
                if r is None:
                    continue
                i, w.current = w.current[0], None  # type: ignore[index]
                keep = {x.proc.pid for x in slots if x is not None}  # ended below, not as strays
                changed, left = guard.changed(), end_strays(before, keep)
                for x in slots if changed or left else ():  # those running alongside may have done it
                    if x is not None and x.current is not None:
                        x.tainted = (x.tainted[0] or changed, x.tainted[1] + left)
                w.retire = w.retire or bool(changed or left or w.tainted[0] or w.tainted[1])
                done += 1
                yield i, contained(r, changed or w.tainted[0], left + w.tainted[1])
    finally:
        for w in slots:
            if w is not None:
                w.end(polite=True)
        end_strays(before, set())
        shutil.rmtree(workdir, ignore_errors=True)


def _next(w: _Worker | None, pending: list[int], groups: list[str], start: Callable[[str], _Worker],
          ended: Callable[[], int]) -> _Worker | None:
    """The slot's worker after handing it the next task of its group, if it is idle: a worker that
    must retire, or whose group has no task left, is ended (and ``ended()`` then kills what its
    checks left that only now came loose: already blamed on the claim that retired it, never on
    the next); a new one is started for the next pending task's group.  A worker that cannot take a
    task is replaced by a fresh one."""
    if w is not None and w.current is not None:
        return w  # running a task
    j = next((j for j in pending if w is not None and not w.retire and groups[j] == w.group), None)
    if j is None and w is not None:
        w.end(polite=not w.retire)
        w = None
        ended()
    if j is None and pending:
        j, w = pending[0], start(groups[pending[0]])
    if j is None:
        return w
    pending.remove(j)
    if not w.hand(j):  # type: ignore[union-attr]
        w.end()  # type: ignore[union-attr]
        w = start(groups[j])
        if not w.hand(j):  # a fresh worker that cannot take a task: its check reports why
            w.current = (j, time.perf_counter())
    return w


class TaskRunner:
    """Supervised runs of tasks on demand, one at a time, in any order.

    :meth:`result` hands the task to the live worker if it serves the task's group (and may be
    trusted with another task), else ends it and forks a worker for that group; a worker that
    dies, overruns, sends a malformed message, leaves processes or threads running or changes
    the claims engine makes that task's result an ``error`` (as in :func:`supervise`) and is not
    used again.  :meth:`close` (or leaving a ``with`` block) ends what is left.

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
        self._groups = [group_of(c) for c in self._claims]
        self._worker: _Worker | None = None
        self._guard: FileGuard | None = None
        self._workdir: str | None = None
        self._before: set[int] = set()

    def result(self, i: int) -> Result:
        """Run task ``i`` on a worker of its group and return its result."""
        i = check_nonneg_int(i, "i", maximum=len(self._todo) - 1)  # the index of a task (numpy integers too)
        if self._workdir is None:
            self._guard = FileGuard(claim_files(self._claims), tree=True)
            become_subreaper()
            self._workdir = tempfile.mkdtemp(prefix="dpverify-work-")
        keep = {self._worker.proc.pid} if self._worker is not None else set()
        self._before = children() - keep  # what the caller started between tasks is not a check's leftover
        workdir, todo, run = self._workdir, self._todo, self._run
        before = self._before
        w = self._worker = _next(self._worker, [i], self._groups, lambda g: _Worker(
            mp.get_context("fork"), run, todo, workdir, g), lambda: end_strays(before, set()))
        r = None
        try:
            while r is None:
                mp.connection.wait([w.results, w.proc.sentinel], timeout=0.25)  # type: ignore[union-attr]
                r = check_worker(w, self._claims, self._timeout, self._run)
        finally:
            if r is None:  # interrupted: the worker is in an unknown state
                self.close()
        w.current = None  # type: ignore[union-attr]
        changed = self._guard.changed()  # type: ignore[union-attr]
        left = end_strays(self._before, {w.proc.pid})  # type: ignore[union-attr]
        if changed or left or w.retire:  # type: ignore[union-attr]
            w.end()  # type: ignore[union-attr]
            self._worker = None
        return contained(r, changed, left)

    def close(self) -> None:
        """End the worker (and its process group) and remove the temporary working directory."""
        if self._worker is not None:
            self._worker.end(polite=True)
            self._worker = None
        if self._workdir is not None:
            end_strays(self._before, set())
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> "TaskRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
