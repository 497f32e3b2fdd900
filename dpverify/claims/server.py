"""The body of a supervised worker: run the checks it is handed, one at a time, and report each in JSON.

A worker is forked by the supervisor (:mod:`dpverify.claims.supervisor`) for one *group* of
claims (:func:`group_of`: the claims of one file, module or installed room of a user, or the
shipped rooms) and serves the tasks of that group it is handed; claims of different groups never
share a worker.  The shipped rooms' worker runs its checks itself, one after another, so the
caches they build stay warm as in an in-process run.  A user's source is not trusted: its worker
(``isolate``) imports it once and forks a fresh process per task, which runs that one check and
reports to the worker, which forwards the report only if the process sent exactly one and ended
normally (:func:`_run_forked`).

A worker closes the supervisor's ends of every pipe, makes itself a process-group leader (so that
ending it ends what its checks started), dies with the supervisor
(:func:`~dpverify.claims.protocol.die_with_parent`), points its stdout at stderr
(:func:`~dpverify.claims.protocol.quiet_stdout`), works in the run's temporary folder and waits
for a task: the bytes of ``{"i": index}``; end of input means "stop".

After each check it reports, in one JSON message (:mod:`dpverify.claims.protocol`), the result,
how many processes the check left running, the figure the check's process drew when the parent
asked for it (a stand-in's :attr:`~dpverify.claims.remote.RemoteCheck.draw`: ``verify --save`` and
``report``; :func:`drawn_figure`), and (for a worker that runs checks itself) how many
Python threads and the first part of the claims engine the check changed
(:class:`~dpverify.claims.integrity.EngineSnapshot`).  The supervisor ends a worker after any of
these, so a later claim never runs where an earlier check left something behind.  A claim whose check is a :class:`~dpverify.claims.remote.RemoteCheck`
(a user's claims file the parent never imported) is resolved here, by loading its file in this
worker first (:func:`dpverify.claims.remote.resolve`).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import traceback
from typing import Any, Callable, Sequence

from dpverify.claims.evidence import to_jsonable
from dpverify.claims.execute import with_route
from dpverify.claims.integrity import EngineSnapshot
from dpverify.claims.model import Claim, Outcome, Result, Verdict
from dpverify.claims.protocol import (MAX_FIGURE_ERROR, MAX_MESSAGE, become_subreaper, children, die_with_parent,
                                      encode_result, image_size_problem, quiet_stdout, send, utf8_safe)
from dpverify.claims.remote import drawing_imports, resolve, wants_figure
from dpverify.claims.workers import leftover_children

#: No Python API: the worker side of :mod:`dpverify.claims.supervisor`, which alone starts it.
__all__: list[str] = []

Run = Callable[..., Result]  # run(claim, thorough=...): one claim's check, in this process


def group_of(c: Claim) -> str:
    """The group a claim's worker serves: the source (file, folder, module or installed room) a
    stand-in comes from (:class:`~dpverify.claims.remote.RemoteCheck`); ``"dpverify"`` for the
    claims of the shipped rooms (one author, whose caches are shared as in an in-process run);
    else the top package of the check's module."""
    key = getattr(c.check, "group", None)  # a RemoteCheck names its source
    if isinstance(key, str):
        return key
    module = getattr(c.check, "__module__", None) or ""
    return module.split(".")[0] or c.id


def payload(run: Run, c: Claim, thorough: bool) -> tuple:
    """Run a claim in this worker and return its result as plain (JSON) values (nothing drawn)."""
    return (*_plain(_result(run, c, thorough)), None)


def _result(run: Run, c: Claim, thorough: bool) -> Result:
    try:
        return run(resolve(c), thorough=thorough)
    except (KeyboardInterrupt, GeneratorExit) as exc:  # raised by the check itself: the claim's error
        first = (str(exc).strip().splitlines() or [""])[0]
        why = f"the check raised {type(exc).__name__}" + (f": {first}" if first else "")
        out = with_route(c, Outcome(Verdict.ERROR, {"error": f"{type(exc).__name__}: {first}"}, summary=why))
        return Result(c, out, 0.0, traceback.format_exc())


def _plain(r: Result) -> tuple:
    """A result's verdict, evidence, figure data, seconds, error and summary as JSON values whose every
    string can be written as UTF-8 (:func:`~dpverify.claims.protocol.utf8_safe`)."""
    fig = to_jsonable(r.outcome.figure_data) if r.outcome.figure_data is not None else None
    return utf8_safe((r.outcome.verdict.value, to_jsonable(dict(r.outcome.evidence)), fig, r.seconds, r.error,
                      r.outcome.summary))


def report_text(run: Run, c: Claim, i: int, thorough: bool, draw: bool, mark: int | None = None) -> str:
    """The report of task ``i`` (claim ``c``) as JSON text; with ``draw``, carrying the claim's figure.

    The report of the check is written out (as text, which nothing can change) before the figure
    function runs, and the figure function is given a copy read back from that text
    (:func:`drawn_figure`): drawing cannot change the verdict, evidence, route or summary sent.
    Only the count of processes left running and the figure are added after drawing.  ``mark``: a
    file descriptor written to just before drawing (so the worker can tell a process that ended
    while drawing its figure)."""
    msg = encode_result(i, "ok", payload(run, c, thorough), 0)
    del msg["left"], msg["drawn"]
    fixed = json.dumps(msg, allow_nan=False)
    drawn = None
    if draw and msg["error"] is None:
        if mark is not None:
            os.write(mark, b"d")
        drawn = drawn_figure(resolve(c), json.loads(fixed))
    tail = json.dumps({"left": leftover_children(), "drawn": drawn}, allow_nan=False)
    return fixed[:-1] + ", " + tail[1:]


def drawn_figure(c: Claim, report: dict) -> dict | None:
    """Claim ``c``'s figure drawn in this process from its ``report`` (a copy: the fields of
    :func:`~dpverify.claims.protocol.encode_result`), as a report carries it: ``{"image": JSON of the
    image, "error": None}``, ``{"image": None, "error": the figure function's traceback or why its
    image may not be sent}``, or None when the claim has no figure function.

    The figure function is given the outcome with its figure data in JSON form, as when the parent
    draws the figure of a shipped claim (:func:`dpverify.report.figures.render_claim_figure`).  An
    image longer than :data:`~dpverify.claims.protocol.MAX_IMAGE` base64 characters or with a
    caption longer than :data:`~dpverify.claims.protocol.MAX_CAPTION` is a figure error, never sent."""
    if c.figure is None:
        return None
    from dpverify.report.figures import image_to_json, render_claim_figure

    ev = report["evidence"]
    try:
        shown = Outcome(Verdict(report["verdict"]), ev, report["figure"], report["summary"] or "", ev.get("route"))
        img, err = render_claim_figure(Result(c, shown, report["seconds"], None))
        img = None if img is None else image_to_json(img)
    except BaseException:  # SystemExit, KeyboardInterrupt from the figure function: the figure's error
        img, err = None, traceback.format_exc()
    problem = image_size_problem(img) if isinstance(img, dict) else None
    if problem is not None:
        img, err = None, f"the figure function drew a figure with {problem}"
    if img is not None:
        return utf8_safe({"image": img, "error": None})
    return None if err is None else utf8_safe({"image": None, "error": err[-MAX_FIGURE_ERROR:]})


def serve(run: Run, todo: Sequence[tuple], tasks: Any, results: Any, stack_file: str | None, workdir: str,
          isolate: bool, close: Sequence[Any], parent: int) -> None:
    """Body of a worker: run each task it is handed (``todo[i]``, a claim and its ``thorough``)
    and report it, until the supervisor closes ``tasks``.

    ``isolate``: the worker never runs a check itself; it loads its group's source once and forks
    a fresh process per task, which runs that one check (:func:`_run_forked`).  ``close``: the
    supervisor's ends of every pipe, which this process must not hold (else it could talk to other
    workers, and the supervisor could not see this one's end of input)."""
    for conn in close:
        conn.close()
    os.setpgid(0, 0)  # own process group: ending the worker also ends what its checks started
    die_with_parent(parent)
    quiet_stdout()  # the parent alone writes stdout
    os.chdir(workdir)
    if isolate:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # the stack asked for is the check's, in its own process
        become_subreaper()  # what a check's process leaves behind comes back here, and is ended here
    elif stack_file is not None:
        import faulthandler

        faulthandler.register(signal.SIGUSR1, file=open(stack_file, "w"), all_threads=True)  # noqa: SIM115
    engine = EngineSnapshot()
    threads = set(threading.enumerate())
    while True:
        try:
            i = _task(tasks.recv_bytes(maxlength=1024), len(todo))
        except (EOFError, OSError, ValueError):  # closed (or garbled): the supervisor is done with this worker
            os._exit(0)
        if isolate:
            _run_forked(run, todo, i, results, stack_file)
            continue
        try:
            body = payload(run, *todo[i])
            left = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
            send(results, encode_result(i, "ok", body, leftover_children(), engine.changed(), len(left)))
        except BaseException:  # even a failure of the conversion is reported, not lost
            send(results, encode_result(i, "failed", traceback.format_exc()[-100_000:], leftover_children(),
                                        engine.changed(), 0))


def _run_forked(run: Run, todo: Sequence[tuple], i: int, results: Any, stack_file: str | None) -> None:
    """Run task ``i`` in a fresh process forked from this one (which loaded the claims' source), and
    forward its one report; a process that ends without exactly one report, or not normally, gives
    a ``failed`` report saying how."""
    import multiprocessing

    c, thorough = todo[i]
    try:
        real = resolve(c)  # the source is loaded here, once, and inherited by every fork
    except BaseException:
        send(results, encode_result(i, "failed", traceback.format_exc()[-100_000:], 0))
        return
    draw = wants_figure(c)
    if draw:
        drawing_imports()  # done already by the parent before this worker was forked (no claim's time)
    reader, writer = multiprocessing.Pipe(duplex=False)
    mark_r, mark_w = os.pipe()  # the check's process writes to it just before it draws the figure
    me = os.getpid()
    pid = os.fork()
    if pid == 0:  # the check's own process: it reports to this worker, which checks and forwards
        try:
            reader.close()
            results.close()
            os.close(mark_r)
            die_with_parent(me)
            if stack_file is not None:
                import faulthandler

                faulthandler.register(signal.SIGUSR1, file=open(stack_file, "w"), all_threads=True)  # noqa: SIM115
            try:
                text = report_text(run, real, i, thorough, draw, mark_w)
            except BaseException:
                text = json.dumps(encode_result(i, "failed", traceback.format_exc()[-100_000:], leftover_children()))
            writer.send_bytes(text.encode("utf-8"))
        finally:
            os._exit(0)
    writer.close()
    os.close(mark_w)
    got: list[bytes] = []
    try:
        got.append(reader.recv_bytes(maxlength=MAX_MESSAGE))
    except (EOFError, OSError):
        pass
    status = os.waitpid(pid, 0)[1]
    left = _end_children()  # the check's process has ended: any process still here is one it left
    extra = False
    try:  # poll() is also true at the end of input
        extra = bool(got) and reader.poll() and bool(reader.recv_bytes(maxlength=MAX_MESSAGE)) or extra
    except (EOFError, OSError):
        pass
    reader.close()
    drawing = _marked(mark_r)
    code = os.waitstatus_to_exitcode(status)
    if got and code == 0 and not extra and not left:
        results.send_bytes(got[0])  # checked by the supervisor, field by field
        return
    if got and code == 0 and not extra:  # a report, but processes left behind: the claim is an error
        send(results, encode_result(i, "failed", f"ContainmentError: the check left {left} process(es) running "
                                    "(ended with its worker)", left))
        return
    how = (f"killed by signal {signal.Signals(-code).name}" if code < 0 and -code in {x.value for x in signal.Signals}
           else f"exited with code {code}")
    why = ("the check's process sent a second message" if extra else
           f"the check's process {how} " + ("while drawing its figure, after the check, before reporting"
                                            if drawing and not got else "before reporting" if not got
                                            else "after reporting"))
    send(results, encode_result(i, "failed", f"WorkerError: {why}", 0))


def _marked(fd: int) -> bool:
    """Whether the check's process wrote to the pipe ``fd`` (it was drawing its figure); closes ``fd``."""
    try:
        os.set_blocking(fd, False)
        return bool(os.read(fd, 1))
    except OSError:  # nothing written, and a process it started still holds the other end
        return False
    finally:
        os.close(fd)


def _end_children() -> int:
    """Kill (with their process groups, when not this one's) and reap every child of this process;
    how many there were."""
    mine = children()
    for pid in mine:
        try:
            group = os.getpgid(pid)
            if group != os.getpgrp():
                os.killpg(group, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in mine:
        try:
            os.waitpid(pid, 0)
        except (ChildProcessError, OSError):
            pass
    return len(mine)


def task_message(i: int) -> bytes:
    """The bytes that hand task ``i`` to a worker."""
    return json.dumps({"i": int(i)}).encode("ascii")


def _task(raw: bytes, n: int) -> int:
    msg = json.loads(raw.decode("ascii"))
    i = msg["i"] if isinstance(msg, dict) else None
    if type(i) is not int or not 0 <= i < n:
        raise ValueError(f"not a task: {raw!r:.100}")
    return i
