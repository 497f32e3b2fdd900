"""The parts of a supervised run that watch a worker: its result, its limit, its process group, the files.

:mod:`dpverify.claims.supervisor` forks the workers and hands them tasks; this module holds what
the parent does with a worker that answered, died or overran (:func:`check_worker`), how a worker
and the processes its checks started are ended (:func:`kill_group`), how the stack of a worker
stopped at its limit is read (:func:`stack_of`, through ``faulthandler`` on ``SIGUSR1``), which
processes a check left behind (:func:`leftover_children`), and the guard of the files that define
the claims (:class:`FileGuard`).

A worker, as :func:`check_worker` sees it, is any object with ``proc`` (a started
:class:`multiprocessing.Process`), ``results`` (the connection its reports arrive on),
``stack_file`` (the faulthandler file, or None), ``current`` (the task index and the
``time.perf_counter()`` at which it was handed over) and ``got`` (its report once read, else None).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import tempfile
import time
from typing import Any, Callable, Iterable

from dpverify.claims.execute import as_error, with_route
from dpverify.claims.model import Claim, Outcome, Result, Verdict, label_error
from dpverify.claims.protocol import ProtocolError, read_result
from dpverify.claims.treeguard import TreeSnapshot, source_folders

#: No Python API: the parent-side machinery of :mod:`dpverify.claims.supervisor`, which alone calls it.
__all__: list[str] = []

Run = Callable[..., Result]  # run(claim, thorough=...): one claim's check, in this process


def check_worker(w: Any, claims: list[Claim], timeout: float | None, run: Run) -> Result | None:
    """The result of the worker's current task once it is known (None while it runs).

    ``claims[i]`` is the claim of task ``i``.  The worker must send exactly one report for the
    task it was handed, a JSON message checked by :func:`dpverify.claims.protocol.read_result`,
    while it lives.  A malformed message, a report for another task or a second message is an
    ``error`` ("the worker sent a malformed message"); so is a worker that ended (before or
    right after reporting: a worker only ends when told to), and one that ran past the limit
    (``timeout``, else the claim's declared ``timeout``).  Whenever the worker must not be
    trusted with another task (it ended, was killed, left processes or threads running, or
    changed the claims engine), ``w.retire`` is set.
    """
    i, t0 = w.current
    c = claims[i]
    now = time.perf_counter()
    alive = w.proc.is_alive()  # before reading: whatever a dead worker sent is in the pipe now
    try:
        while w.results.poll():
            msg = read_result(w.results, i)
            if w.got is not None:
                raise ProtocolError("a second message")
            w.got = msg
    except EOFError:  # closed: the worker ended (its exit is looked at below)
        pass
    except ProtocolError as exc:
        kill_group(w.proc)
        w.retire = True
        return failed_result(c, now - t0, f"the worker sent a malformed message ({exc})")
    if not alive:
        w.proc.join(timeout=5)
        w.retire = True
        why = exit_reason(w.proc)
        return failed_result(c, now - t0, why if w.got is None else why.replace("before", "right after"))
    if w.got is not None:
        w.retire = w.retire or bool(w.got["left"] or w.got["threads"] or w.got["tampered"])
        return _reported(c, w.got, now - t0)
    limit = timeout if timeout is not None else c.timeout
    if now - t0 > limit:
        where = stack_of(w.proc, w.stack_file, run)
        kill_group(w.proc)
        w.retire = True
        why = f"the check timed out: it ran past its {limit:g} s limit" + (
            ", while drawing its figure (after the check)" if " in drawn_figure" in where else "")
        return Result(c, with_route(c, Outcome(Verdict.ERROR, {"error": f"timed out after {limit:g} s"}, summary=why)),
                      now - t0, f"TimeoutError: claim {c.id} ran past its {limit:g} s limit (exceeded {limit:g} s)"
                      + (f"; it was stopped here:\n{where}" if where else ""))
    return None


def _reported(c: Claim, msg: dict, seconds: float) -> Result:
    """The result a well-formed report gives."""
    if msg["kind"] != "ok":
        last = (msg["traceback"].strip().splitlines() or ["no message"])[-1]
        r = failed_result(c, seconds, last, msg["traceback"])
    else:
        ev = msg["evidence"]
        try:
            r = Result(c, Outcome(Verdict(msg["verdict"]), ev, msg["figure"], msg["summary"], ev.get("route")),
                       msg["seconds"], msg["error"])
            r = _labelled(r, ev.get("sampling_ran"))
        except (ValueError, TypeError) as exc:  # a route or field no check can return
            return failed_result(c, seconds, f"the worker sent a malformed message ({type(exc).__name__}: {exc})")
    if msg["tampered"]:
        return contained(r, None, 0, engine=msg["tampered"])
    if msg["left"]:
        return contained(r, None, msg["left"])
    return r


def _labelled(r: Result, sampled: object) -> Result:
    """``r`` with the engine's rules applied again in this process, as :func:`~dpverify.claims.runner.run_claim`
    applies them in the worker (:func:`~dpverify.claims.model.label_error`: an audit cannot hold, ...;
    the ``route`` key): the process that sent the report ran a user's code, which may have forged it."""
    out = r.outcome
    if sampled is not None and not isinstance(sampled, str):
        raise TypeError(f"the evidence key 'sampling_ran' must be text, got {type(sampled).__name__}")
    why = label_error(r.claim, out, [sampled] if sampled else []) if out.verdict is not Verdict.ERROR else None
    if why is not None:
        return Result(r.claim, with_route(r.claim, as_error(out, why)), r.seconds, f"LabelError: {why}")
    return Result(r.claim, with_route(r.claim, out), r.seconds, r.error)


def contained(r: Result, changed: str | None, left: int, engine: str | None = None) -> Result:
    """``r``, or an ``error`` when a file of the claims' source tree ``changed`` (its name) while
    the check ran, the check left ``left`` processes running, or it changed the claims ``engine``
    in its worker (the name of what it changed: :mod:`dpverify.claims.integrity`)."""
    c, out = r.claim, r.outcome
    why = (f"the check of {c.id} modified the claims engine in its worker ({engine})" if engine else
           f"the check of {c.id} modified {changed} (a file of the claims' source tree)" if changed else
           f"the check of {c.id} left {left} process(es) running (ended with its worker)" if left else None)
    if why is None or (out.verdict is Verdict.ERROR and not engine):
        return r
    ev = {**dict(out.evidence), "error": why, "returned_verdict": out.verdict.value}
    return Result(c, with_route(c, Outcome(Verdict.ERROR, ev, out.figure_data, summary=why)), r.seconds,
                  f"ContainmentError: {why}")


def exit_reason(proc: Any) -> str:
    """Why a worker ended without reporting: "the worker exited with code 0 before reporting", ..."""
    code = proc.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in {s.value for s in signal.Signals} else str(-code)
        return f"the worker was killed by signal {name} (exited with code {code}) before reporting"
    return f"the worker exited with code {code} before reporting"


def failed_result(c: Claim, seconds: float, message: str, tb: str | None = None) -> Result:
    """The ``error`` result of a claim whose worker failed (``message`` says how)."""
    out = Outcome(Verdict.ERROR, {"error": f"worker failed: {message}"}, summary=f"the check's worker failed: {message}")
    return Result(c, with_route(c, out), seconds, tb or message)


def leftover_children() -> int:
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


def claim_files(claims: Iterable[Claim]) -> list[str]:
    """The files that define the claims' checks (the claims' source tree)."""
    files = {os.path.realpath(f) for c in claims for f in [getattr(c.check, "file", None)]  # stand-ins
             if isinstance(f, str) and os.path.isfile(f)}
    for name in {getattr(c.check, "__module__", None) or "" for c in claims if not hasattr(c.check, "record")}:
        mod = sys.modules.get(name)
        f = getattr(mod, "__file__", None)
        if f and os.path.isfile(f):
            files.add(os.path.realpath(f))
    return sorted(files)


class FileGuard:
    """Hashes of files taken before the run, and (``tree``) a snapshot of the folders they are in;
    :meth:`changed` names the first file that differs now (:mod:`dpverify.claims.treeguard`)."""

    def __init__(self, files: list[str], tree: bool = False) -> None:
        files = [files] if isinstance(files, (str, os.PathLike)) else list(files)  # one path is one file
        self.hashes = {os.fspath(f): _digest(os.fspath(f)) for f in files}
        self.tree = TreeSnapshot(source_folders(self.hashes)) if tree else None
        for note in self.tree.notes if self.tree is not None else ():
            print(f"note: {note}", file=sys.stderr)

    def changed(self) -> str | None:
        found = self.tree.changed() if self.tree is not None else None
        for f, h in self.hashes.items():
            now = _digest(f)
            if now != h:
                self.hashes[f] = now  # blame one claim per change
                found = found or f
        return found


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def kill_group(proc: Any) -> None:
    """Kill a worker and the processes it started (its process group)."""
    try:  # the worker made itself a group leader; the group outlives it while its children run
        if proc.pid is not None and proc.pid != os.getpgrp():
            os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError, TypeError):
        pass
    if proc.is_alive():
        proc.kill()


def stack_file() -> str | None:
    """A new empty temporary file for a worker's faulthandler stack dump."""
    fd, path = tempfile.mkstemp(prefix="dpverify-stack-", suffix=".txt")
    os.close(fd)
    return path


def stack_of(proc: Any, stack_file: str | None, run: Run) -> str:
    """Ask a running worker for its Python stack (SIGUSR1 -> faulthandler); "" if it does not answer."""
    if stack_file is None or not proc.is_alive():
        return ""
    try:
        os.killpg(proc.pid, signal.SIGUSR1)  # the group: a check may run in a process of its own
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


def remove_file(path: str | None) -> None:
    """Remove a file if it exists (a worker's stack file)."""
    if path and os.path.exists(path):
        os.unlink(path)
