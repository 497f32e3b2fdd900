"""Supervised runs: each claim's check runs in a fresh worker process watched by the parent.

The parent knows every claim it must hear from, and never runs a check itself.  For each claim
it forks a worker (a fork inherits the imported rooms and the claim objects, so nothing is
imported again) that runs exactly that one check, reports, and exits; up to ``jobs`` run at
once.  Nothing a check does to its process (a patched module, a global) reaches another check.
A worker that dies, exits (even by ``os._exit``), is killed, or runs past the claim's limit
(the ``timeout`` given, else the claim's declared ``timeout``) is ended together with its
process group (the processes its check started), and its claim becomes an ``error`` result
naming the reason.  Every claim therefore gets a result, and a check cannot end the run early.

What a worker sends is never trusted (:mod:`dpverify.claims.protocol`): one JSON message, no
pickle, checked field by field, for the task it was given; anything else (a message for another
claim, a second message, a malformed one) makes the claim an ``error`` ("the worker sent a
malformed message").  A worker's stdout is its stderr: the parent alone writes stdout.

Containment: each worker runs in its own process group and in a temporary working directory
(removed after the run); a ``KeyboardInterrupt`` (or ``GeneratorExit``) raised inside a check
is that claim's ``error``.  The files that define the claims are hashed, and the files under
their folders are listed (:mod:`dpverify.claims.treeguard`), before the run and after every
reported claim; the claim that reported when a change was first seen is an ``error`` naming the
file.  On Linux the parent is a child subreaper (``PR_SET_CHILD_SUBREAPER``), so a process a
check leaves behind, even after a double fork and ``setsid``, becomes the parent's child; it is
killed after the claim and the claim is an ``error`` ("left ... process(es) running").
Elsewhere only the worker's process group is ended.  With ``jobs > 1`` a change or a leftover
process may come from a claim running alongside the one that reported: the claims running when
it was seen are ``error`` results too.

:func:`supervise` returns the results in order; :func:`stream` yields them as they arrive, for
tasks that each name their own ``thorough``; :class:`TaskRunner` runs them on demand (the pytest
plugin).  What the parent does with a worker that answered, died or overran lives in
:mod:`dpverify.claims.workers`; loading the claims files in a child, in
:mod:`dpverify.claims.loadguard`.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import deque
from typing import Any, Callable, Iterator, Sequence

from dpverify.claims.checks import check_items
from dpverify.claims.evidence import to_jsonable
from dpverify.claims.execute import with_route
from dpverify.claims.model import Claim, Outcome, Result, Verdict, check_timeout
from dpverify.claims.loadguard import guarded_load
from dpverify.claims.protocol import (
    become_subreaper,
    children,
    encode_result,
    end_group,
    end_strays,
    quiet_stdout,
    send,
)
from dpverify.claims.workers import (
    FileGuard,
    check_worker,
    claim_files,
    contained,
    kill_group,
    leftover_children,
    remove_file,
    stack_file,
)
from dpverify.validation import check_bool, check_nonneg_int, check_positive_int

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


def _serve(run: Run, task: Task, i: int, results: Any, stack_file: str | None, workdir: str) -> None:
    """Body of a worker: run exactly one check (task ``i``), report it in JSON, and exit.

    A worker is forked from the parent, which never runs a check, so nothing one check does to
    its process (a patched module, a global) reaches another check.
    """
    os.setpgid(0, 0)  # own process group: ending the worker also ends what its check started
    quiet_stdout()  # the parent alone writes stdout
    os.chdir(workdir)
    if stack_file is not None:
        import faulthandler

        faulthandler.register(signal.SIGUSR1, file=open(stack_file, "w"), all_threads=True)  # noqa: SIM115
    try:
        msg = encode_result(i, "ok", _payload(run, *task), 0)
        msg["left"] = leftover_children()
        send(results, msg)
    except BaseException:  # even a failure of the conversion is reported, not lost
        send(results, encode_result(i, "failed", traceback.format_exc()[-100_000:], leftover_children()))


class _Worker:
    """One worker process, forked for one task, the pipe its report arrives on, and the task."""

    def __init__(self, ctx: Any, run: Run, todo: Sequence[Task], workdir: str, i: int) -> None:
        self.results, results_writer = ctx.Pipe(duplex=False)
        self.stack_file = stack_file()
        self.got: dict | None = None  # the report, once read
        self.tainted: tuple[str | None, int] = (None, 0)  # a change or leftover seen while it ran
        for stream_ in (sys.stdout, sys.stderr):  # nothing buffered in the parent is written twice
            try:
                stream_.flush()
            except (AttributeError, OSError, ValueError):
                pass
        # not a daemon: a check may start processes of its own (daemons may not)
        self.proc = ctx.Process(target=_serve, daemon=False,
                                args=(run, todo[i], i, results_writer, self.stack_file, workdir))
        self.current: tuple[int, float] | None = (i, time.perf_counter())
        self.proc.start()
        results_writer.close()

    def end(self, polite: bool = False) -> None:
        """Stop the worker and its process group; close the pipe."""
        if polite and self.proc.is_alive():
            self.proc.join(timeout=1)
        kill_group(self.proc)
        self.proc.join(timeout=5)
        end_group(self.proc.pid, {self.proc.pid})
        self.results.close()
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
    guard = FileGuard(claim_files(claims), tree=True)
    become_subreaper()
    before = children()
    workdir = tempfile.mkdtemp(prefix="dpverify-work-")
    try:
        while done < len(todo):
            for k, w in enumerate(slots):
                if pending and w is None:
                    slots[k] = _Worker(ctx, run, todo, workdir, pending.popleft())
            busy = [w for w in slots if w is not None]
            mp.connection.wait([w.results for w in busy] + [w.proc.sentinel for w in busy], timeout=0.25)
            for k, w in enumerate(slots):
                if w is None:
                    continue
                r = check_worker(w, claims, timeout, run)
                if r is None:
                    continue
                w.end()
                slots[k] = None
                keep = {x.proc.pid for x in slots if x is not None}
                changed, left = guard.changed(), end_strays(before, keep)
                for x in slots if changed or left else ():  # those running alongside may have done it
                    if x is not None:
                        x.tainted = (x.tainted[0] or changed, x.tainted[1] + left)
                done += 1
                yield w.current[0], contained(r, changed or w.tainted[0], left + w.tainted[1])  # type: ignore[index]
    finally:
        for w in slots:
            if w is not None:
                w.end(polite=True)
        end_strays(before, set())
        shutil.rmtree(workdir, ignore_errors=True)


class TaskRunner:
    """Supervised runs of tasks on demand, one at a time, in any order, each in a fresh worker.

    :meth:`result` forks a worker for the task (it inherits the imported claims, so nothing is
    imported again) that runs that one check and exits; a worker that dies, overruns, sends a
    malformed message or leaves processes running makes that task's result an ``error`` (as in
    :func:`supervise`).  :meth:`close` (or leaving a ``with`` block) ends what is left.

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
        self._before: set[int] = set()

    def result(self, i: int) -> Result:
        """Run task ``i`` on a fresh worker and return its result."""
        i = check_nonneg_int(i, "i", maximum=len(self._todo) - 1)  # the index of a task (numpy integers too)
        if self._workdir is None:
            self._guard = FileGuard(claim_files(self._claims), tree=True)
            become_subreaper()
            self._workdir = tempfile.mkdtemp(prefix="dpverify-work-")
        self._before = children()  # what the caller started between tasks is not a check's leftover
        w = self._worker = _Worker(mp.get_context("fork"), self._run, self._todo, self._workdir, i)
        try:
            r = None
            while r is None:
                mp.connection.wait([w.results, w.proc.sentinel], timeout=0.25)
                r = check_worker(w, self._claims, self._timeout, self._run)
        finally:
            w.end()
            self._worker = None
        return contained(r, self._guard.changed(), end_strays(self._before, set()))  # type: ignore[union-attr]

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
