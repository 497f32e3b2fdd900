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
"""

from __future__ import annotations

import hashlib
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
from typing import Any, Callable, Iterable

from dpverify.claims.evidence import to_jsonable
from dpverify.claims.model import Claim, Outcome, Result, Verdict
from dpverify.claims.execute import with_route

__all__ = ["guarded_load", "supervise"]

Progress = Callable[[Result], None]
Run = Callable[..., Result]  # run(claim, thorough=...): one claim's check, in this process


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


def _serve(run: Run, claims: list[Claim], thorough: bool, tasks: Any, results: Any, stack_file: str | None,
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
            msg: Any = (i, "ok", _payload(run, claims[i], thorough))
        except BaseException:  # even a failure of the conversion is reported, not lost
            msg = (i, "failed", traceback.format_exc())
        results.send((*msg, _leftover_children()))


def _leftover_children() -> int:
    """How many processes this worker's check started are still running (zombies are reaped first)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        return 0
    except OSError:
        pass
    me, n = str(os.getpid()), 0
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:  # no /proc: the children are still ended with the worker at the end of the run
        return 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:  # gone meanwhile
            continue
        if len(fields) > 1 and fields[1] == me and fields[0] != "Z":
            n += 1
    return n


class _Worker:
    """One worker process, the pipes to it, and the claim it is running."""

    def __init__(self, ctx: Any, run: Run, claims: list[Claim], thorough: bool, workdir: str) -> None:
        self.tasks_reader, self.tasks = ctx.Pipe(duplex=False)
        self.results, results_writer = ctx.Pipe(duplex=False)
        self.stack_file = _stack_file()
        # not a daemon: a check may start processes of its own (daemons may not)
        self.proc = ctx.Process(target=_serve, daemon=False,
                                args=(run, claims, thorough, self.tasks_reader, results_writer, self.stack_file,
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
        _kill(self.proc)
        self.proc.join(timeout=5)
        for conn in (self.tasks, self.tasks_reader, self.results):
            conn.close()
        _remove(self.stack_file)


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
    ctx = mp.get_context("fork")
    pending = deque(range(len(claims)))
    slots: list[_Worker | None] = [None] * min(jobs, len(claims))
    out: dict[int, Result] = {}
    guard = _FileGuard(_claim_files(claims))
    workdir = tempfile.mkdtemp(prefix="dpverify-work-")
    try:
        while len(out) < len(claims):
            for k, w in enumerate(slots):
                if pending and (w is None or w.current is None):
                    if w is None or not w.proc.is_alive():
                        if w is not None:
                            w.end()
                        w = slots[k] = _Worker(ctx, run, claims, thorough, workdir)
                    w.give(pending.popleft())
            busy = [w for w in slots if w is not None and w.current is not None]
            mp.connection.wait([w.results for w in busy] + [w.proc.sentinel for w in busy], timeout=0.25)
            for k, w in enumerate(slots):
                if w is None or w.current is None:
                    continue
                r, ended = _check_worker(w, claims, timeout, guard, run)
                if r is None:
                    continue
                out[w.current[0]] = r
                w.current = None
                if ended:
                    w.end()
                    slots[k] = None
                if progress:
                    progress(r)
    finally:
        for w in slots:
            if w is not None:
                w.end(polite=True)
        shutil.rmtree(workdir, ignore_errors=True)
    return [out[i] for i in range(len(claims))]


def _check_worker(w: _Worker, claims: list[Claim], timeout: float | None, guard: "_FileGuard",
                  run: Run) -> tuple[Result | None, bool]:
    """The result of the worker's claim if there is one yet, and whether the worker was ended."""
    i, t0 = w.current  # type: ignore[misc]
    c = claims[i]
    now = time.perf_counter()
    if w.results.poll():
        try:
            j, kind, payload, left = w.results.recv()
        except (EOFError, OSError):  # the worker died without reporting
            w.proc.join(timeout=5)
            return _failed(c, now - t0, _exit_reason(w.proc)), True
        if kind != "ok" or j != i:
            last = (str(payload).strip().splitlines() or ["no message"])[-1]
            return _failed(c, now - t0, last, str(payload)), True
        verdict, ev, fig, secs, err, summary = payload
        r = Result(c, Outcome(Verdict(verdict), ev, fig, summary, ev.get("route")), secs, err)
        changed = guard.changed()
        why = (f"the check of {c.id} modified {changed} (a file of the claims' source tree)" if changed else
               f"the check of {c.id} left {left} process(es) running (ended with its worker)" if left else None)
        if why is not None:
            r = Result(c, with_route(c, Outcome(Verdict.ERROR, {**ev, "error": why, "returned_verdict": verdict},
                                                fig, summary=why)), secs, f"ContainmentError: {why}")
        return r, bool(left)
    if not w.proc.is_alive():
        w.proc.join(timeout=5)
        return _failed(c, now - t0, _exit_reason(w.proc)), True
    limit = timeout if timeout is not None else c.timeout
    if now - t0 > limit:
        where = _stack_of(w.proc, w.stack_file, run)
        _kill(w.proc)
        why = f"the check timed out: it ran past its {limit:g} s limit"
        r = Result(c, with_route(c, Outcome(Verdict.ERROR, {"error": f"timed out after {limit:g} s"}, summary=why)),
                   now - t0, f"TimeoutError: claim {c.id} ran past its {limit:g} s limit (exceeded {limit:g} s)"
                   + (f"; it was stopped here:\n{where}" if where else ""))
        return r, True
    return None, False


def _exit_reason(proc: Any) -> str:
    code = proc.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in {s.value for s in signal.Signals} else str(-code)
        return f"the worker was killed by signal {name} (exited with code {code}) before reporting"
    return f"the worker exited with code {code} before reporting"


def _failed(c: Claim, seconds: float, message: str, tb: str | None = None) -> Result:
    out = Outcome(Verdict.ERROR, {"error": f"worker failed: {message}"}, summary=f"the check's worker failed: {message}")
    return Result(c, with_route(c, out), seconds, tb or message)


def _claim_files(claims: Iterable[Claim]) -> list[str]:
    """The files that define the claims' checks (the claims' source tree)."""
    files = set()
    for c in claims:
        mod = sys.modules.get(getattr(c.check, "__module__", None) or "")
        f = getattr(mod, "__file__", None)
        if f and os.path.isfile(f):
            files.add(os.path.realpath(f))
    return sorted(files)


class _FileGuard:
    """Hashes of files taken before the run; :meth:`changed` names the first that differs now."""

    def __init__(self, files: list[str]) -> None:
        self.hashes = {f: _digest(f) for f in files}

    def changed(self) -> str | None:
        for f, h in self.hashes.items():
            now = _digest(f)
            if now != h:
                self.hashes[f] = now  # blame one claim per change
                return f
        return None


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def guarded_load(load: Callable[[], list[Claim]], limit: float) -> str | None:
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
            writer.send(("raised", f"{type(exc).__name__}: {exc}"))

    proc = ctx.Process(target=body, daemon=False)
    proc.start()
    writer.close()
    try:
        mp.connection.wait([reader, proc.sentinel], timeout=limit)
        if reader.poll():
            try:
                reader.recv()
                return None
            except (EOFError, OSError):
                pass
        proc.join(timeout=1)  # it may still be on its way out
        if proc.is_alive():
            return f"loading the claims ran past its {limit:g} s limit"
        return _exit_reason(proc).replace("the worker", "loading the claims").replace(" before reporting",
                                                                                     " before it finished")
    finally:
        _kill(proc)
        proc.join(timeout=5)
        reader.close()


def _kill(proc: Any) -> None:
    """Kill a worker and the processes it started (its process group)."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
            return
    except (OSError, AttributeError, TypeError):
        pass
    if proc.is_alive():
        proc.kill()


def _stack_file() -> str | None:
    fd, path = tempfile.mkstemp(prefix="dpverify-stack-", suffix=".txt")
    os.close(fd)
    return path


def _stack_of(proc: Any, stack_file: str | None, run: Run) -> str:
    """Ask a running worker for its Python stack (SIGUSR1 -> faulthandler); "" if it does not answer."""
    if stack_file is None or not proc.is_alive():
        return ""
    try:
        os.kill(proc.pid, signal.SIGUSR1)
        deadline = time.perf_counter() + 1.0
        text = ""
        while time.perf_counter() < deadline:
            time.sleep(0.05)
            with open(stack_file, encoding="utf-8", errors="replace") as f:
                new = f.read()
            if new and new == text:  # written and no longer growing
                break
            text = new
        return _claim_frames(text, run).strip()
    except OSError:
        return ""


def _claim_frames(stack: str, run: Run) -> str:
    """Keep the frames of the check itself: a worker's stack continues, below ``run_claim``,
    with the supervisor's and the parent's frames, which tell nothing."""
    out, skipping = [], False
    for line in stack.splitlines():
        if not line.startswith(" "):  # "Current thread 0x... (most recent call first):"
            skipping = False
            out.append(line)
        elif not skipping:
            if run.__code__.co_filename in line and line.rstrip().endswith(f" in {run.__name__}"):
                skipping = True
            else:
                out.append(line)
    return "\n".join(out)


def _remove(path: str | None) -> None:
    if path and os.path.exists(path):
        os.unlink(path)
