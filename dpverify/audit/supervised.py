"""Supervision of a command's work: a mechanism that ends its process is an error, never a verdict.

:func:`dpverify.mechanisms.checked_sample` turns what a mechanism *raises* into a
:class:`MechanismError`, :mod:`dpverify.audit.contained` a worker process it ends; what ends the
command's own process is handled here.  :func:`run_supervised` runs the work in a forked child in its
own process group.  In the child, fd 1 is a copy of fd 2 and ``sys.stdout`` is ``sys.stderr`` before
any user code runs (the mechanism's import included); the command writes its report to
:func:`report_stream`, a buffer.  The child sends frames on a pipe — an 8-byte length, then a JSON
object carrying the run's random token: the mechanism calls it begins and ends
(:func:`dpverify.mechanisms.sampling.observe_calls`), then one final frame: the report text and the
status, or the exception raised as (class, message), or how the work ended (``SystemExit`` outside
the sampling; ``KeyboardInterrupt``: the child is in its own process group, so a terminal's Ctrl-C
never reaches it).  The parent unpickles and evaluates nothing: it accepts the final frame only if
every frame has the token and the strict schema
(:func:`dpverify.audit.contained.channel_frames`), the final frame is last, and the
child then exits with status 0 by itself; then it alone writes stdout.  Anything else is a
:class:`MechanismError` (exit status 2).  Process-pool workers close the channel first
(:func:`forget_channel`, their initializer).

So exits, signals, crashes, stray writes (a fake report on fd 1, frames without the token on the
pipe) and pool workers cannot end an audit with status 0 or 1.  What remains: code running in the
child itself can read the token and the channel from its own memory and forge the final frame (no
supervisor tells a process's own code from its audit); and a mechanism can signal the command's
process (``os.getppid()``): SIGKILL ends it (status -9/137, never 0 or 1), SIGINT is taken as
Ctrl-C.  Ctrl-C (SIGINT) or SIGTERM to the parent ends the child's process group: status 130 (143).

Example
-------
>>> run_supervised(lambda: 3, "m")
3
"""

from __future__ import annotations

import io
import json
import os
import select
import signal
import sys
import threading
from typing import Callable

from dpverify.audit.contained import USAGE_ERRORS as _USAGE, channel_frames
from dpverify.audit.errors import MechanismError

__all__ = ["forget_channel", "report_stream", "run_supervised", "supervise_command"]

_CHUNK = 1 << 16
_CHANNEL: list = [None]  # (fd, token, lock) in the supervised child; None elsewhere
_REPORT: list = [None]  # the report buffer in the supervised child


def report_stream():
    """Where a supervised command writes its report: the buffer sent to the parent in the supervised
    child, else ``sys.stdout``.

    Example
    -------
    >>> report_stream() is sys.stdout
    True
    """
    return _REPORT[0] if _REPORT[0] is not None else sys.stdout


def forget_channel() -> None:
    """Close the supervisor's channel in this process (a process-pool worker forked by the child: its
    initializer), so that what runs here cannot write to it; nothing when there is none.

    Example
    -------
    >>> forget_channel()
    """
    channel, _CHANNEL[0], _REPORT[0] = _CHANNEL[0], None, None
    from dpverify.mechanisms.sampling import observe_calls

    observe_calls(None)
    if channel is not None:
        try:
            os.close(channel[0])
        except OSError:
            pass


class _Report(io.StringIO):
    """The report buffer: a terminal when the command's stdout is one (so it renders the same)."""

    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def _send(frame: dict) -> None:
    channel = _CHANNEL[0]
    if channel is None:
        return
    fd, token, lock = channel
    data = json.dumps({**frame, "token": token}).encode()
    data = len(data).to_bytes(8, "little") + data
    with lock:
        while data:
            data = data[os.write(fd, data):]


def _outcome(work: Callable[[], int]) -> dict:
    """Run ``work`` (the child's stdout is its stderr); the final frame."""
    try:
        return {"kind": "result", "status": int(work() or 0), "stdout": report_stream().getvalue()}
    except MechanismError as exc:
        return {"kind": "raised", "class": "MechanismError", "message": str(exc)}
    except Exception as exc:
        import traceback

        base = next((c for c in _USAGE if isinstance(exc, _USAGE[c])), None)
        frame = {"kind": "raised", "class": base or "internal", "type": type(exc).__name__, "message": str(exc),
                 "traceback": "".join(traceback.format_exception(exc))}
        if isinstance(exc, OSError):
            frame.update(strerror=exc.strerror, filename=None if exc.filename is None else str(exc.filename))
        return frame
    except SystemExit as exc:  # something outside the sampling called sys.exit
        return {"kind": "ended", "why": f"raised SystemExit({exc.code!r})"}
    except BaseException as exc:  # KeyboardInterrupt included: the terminal's Ctrl-C goes to the parent's group
        return {"kind": "ended", "why": f"raised {type(exc).__name__}" + (f": {exc}" if str(exc) else "")}


def _child(work: Callable[[], int], fd: int, token: str, tty: bool) -> None:
    """The forked child: run ``work`` and send its final frame; never returns."""
    code = 70
    try:
        os.setpgid(0, 0)  # its own group: ending it also ends the worker processes it starts
        os.dup2(2, 1)  # what user code writes to fd 1 goes to stderr: the parent alone writes stdout
        captured = _capture()
        sys.stdout = sys.stderr
        _CHANNEL[0], _REPORT[0] = (fd, token, threading.Lock()), _Report(tty)
        from dpverify.mechanisms.sampling import observe_calls

        observe_calls(lambda call: _send({"kind": "call", "thread": threading.get_ident(), "call": call}))
        frame = _outcome(work)
        observe_calls(None)
        try:
            sys.stderr.flush()
        except Exception:
            pass
        frame["stderr"] = captured.getvalue() if captured is not None else ""
        frame.setdefault("stdout", "")
        _send(frame)
        code = 0
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def _capture():
    """Replace ``sys.stderr`` by a buffer where it is not a file (a test's capture): its text goes in
    the final frame; a file stream is shared as it is."""
    try:
        sys.stderr.fileno()
        return None
    except Exception:
        sys.stderr = io.StringIO()
        return sys.stderr


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in {s.value for s in signal.Signals} else str(sig)
        return f"was killed by signal {name}"
    return f"ended the process (exit status {os.WEXITSTATUS(status) if os.WIFEXITED(status) else status})"


def run_supervised(work: Callable[[], int], name: str) -> int:
    """Run ``work()`` in a forked child; print its report on stdout and return its exit status; raise
    here what it raised (as its class and message).

    Parameters
    ----------
    work : callable returning an int
        The command's work: it writes its report to :func:`report_stream` (its stdout is its stderr).
    name : str
        The mechanism's name, for the message when the child ends without a valid report.

    Returns
    -------
    int
        ``work()``'s status; 130 after Ctrl-C (the child and its processes ended).

    Raises
    ------
    MechanismError
        No valid final frame, or the child did not exit with status 0 after it (see the module).
    ValueError, TypeError, OSError, MemoryError, OverflowError
        What ``work`` raised of these classes (bad input), with its message.

    Example
    -------
    >>> run_supervised(lambda: 1, "m")
    1
    >>> import os, numpy as np
    >>> from dpverify.mechanisms.sampling import checked_sample
    >>> def stop(d, rng, n):
    ...     os._exit(3)
    >>> try:
    ...     run_supervised(lambda: checked_sample(stop, 0, np.random.default_rng(0), 5), "stop")
    ... except MechanismError as e:
    ...     print(e)
    mechanism 'stop' ended the process (exit status 3) in sample(data=0, rng, n=5); the audit has no verdict
    """
    import secrets

    _check(work, name)
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        stream.flush()
    token, tty = secrets.token_hex(16), bool(getattr(sys.stdout, "isatty", lambda: False)())
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(work, w, token, tty)
    os.close(w)
    ended = _Ended()
    old = signal.signal(signal.SIGTERM, ended.raise_) if _main_thread() else None
    try:
        data, status = _wait(pid, r)
    except (KeyboardInterrupt, _Terminated) as exc:
        print("dpverify audit: interrupted", file=sys.stderr)
        return 143 if isinstance(exc, _Terminated) else 130
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)
        os.close(r)
        _kill(pid)  # the child (if still running) and the leftovers of its group (worker processes)
    return _outcome_in_parent(channel_frames(data, token), status, name)


def _outcome_in_parent(frames: list | None, status: int, name: str) -> int:
    """Print the final frame's report and return its status, or raise what it says."""
    if frames is None:
        raise MechanismError(f"mechanism {name!r}: its audit's report channel holds data the supervisor did not "
                             "send (written by the mechanism or its processes); the audit has no verdict")
    last = frames[-1] if frames and frames[-1]["kind"] != "call" else None
    if last is not None and status != 0:  # the final frame stands only if the child then exits by itself
        raise MechanismError(f"mechanism {name!r}: its audit {_ended(status).replace('ended the process', 'was ended')}"
                             " after it sent its report; the audit has no verdict")
    if last is not None:
        sys.stderr.write(last["stderr"])
    if last is not None and last["kind"] == "result":
        sys.stdout.write(last["stdout"])
        sys.stdout.flush()
        return last["status"]
    if last is not None and last["kind"] == "raised":
        raise _rebuilt(last)
    open_calls, begun = {}, None  # the mechanism calls under way when it ended (by thread), the last begun
    for f in frames[:-1] if last is not None else frames:
        if f["call"] is None:
            open_calls.pop(f["thread"], None)
        else:
            open_calls[f["thread"]], begun = f["call"], f["call"]
    raise MechanismError(_death_message(name, last, status, list(open_calls.values()), begun))


def _rebuilt(frame: dict) -> Exception:
    """The child's exception as its class (a usage error, MechanismError) or, for a defect, an
    exception of the same name carrying the child's traceback."""
    cls, message = frame["class"], frame["message"]
    if cls == "MechanismError":
        return MechanismError(message)
    if cls in _USAGE:
        exc = _USAGE[cls](message)
        if isinstance(exc, OSError):
            exc.strerror, exc.filename = frame.get("strerror"), frame.get("filename")
        return exc
    exc = type(frame["type"], (Exception,), {"__module__": __name__})(message)
    exc.add_note(f"raised in the supervised child process:\n{frame.get('traceback', '')}")
    return exc


def _death_message(name: str, last, status: int, under_way: list, begun: str | None) -> str:
    """Why the child ended without a report: in which call of the mechanism, or outside its calls."""
    if last is not None and (under_way or last["why"].startswith("raised KeyboardInterrupt")):
        where = f" in {under_way[-1]}" if under_way else f" (after {begun})" if begun else ""
        return f"mechanism {name!r} {last['why']}{where}; the audit has no verdict"  # the mechanism's
    if last is not None:  # it raised SystemExit or another BaseException outside checked_sample
        return (f"mechanism {name!r}: its audit {last['why']} outside the mechanism's calls (in a statistic, "
                "a relation or a factory); the audit has no verdict")
    why = _ended(status)
    if under_way:
        more = f" (or one of {len(under_way) - 1} other calls under way)" if len(under_way) > 1 else ""
        return f"mechanism {name!r} {why} in {under_way[-1]}{more}; the audit has no verdict"
    after = f" (after {begun})" if begun else ""
    return (f"mechanism {name!r}: its audit {why.replace('ended the process', 'was ended')} outside the "
            f"mechanism's calls{after} (by a statistic, a relation or the mechanism's own threads); "
            "the audit has no verdict")


def supervise_command(work: Callable[[], int], name: str) -> int:
    """A command's ``work()`` (it writes its report to :func:`report_stream`), supervised by
    :func:`run_supervised` when stdout and stderr are files (a terminal, a pipe, a file: every run of
    a command); in this process when a Python caller replaced them by in-memory streams.

    Warnings the child raises are shown after it succeeds, never before an error (as
    ``dpverify.cli.main`` does in-process: its record of warnings does not reach back from a child).

    Example
    -------
    >>> supervise_command(lambda: 0, "m")
    0
    """
    _check(work, name)
    if not _file_streams() or not hasattr(os, "fork"):  # no fork (Windows): in this process
        return work()

    def in_child() -> int:
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            status = work()
        for w in caught:
            sys.stderr.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno))
        return status

    return run_supervised(in_child, name)


def _check(work, name) -> None:
    if not callable(work):
        raise TypeError(f"work must be callable, got {type(work).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (the mechanism's name), got {type(name).__name__}")


def _file_streams() -> bool:
    """Whether sys.stdout and sys.stderr write to file descriptors (which a forked child shares)."""
    try:
        sys.stdout.fileno(), sys.stderr.fileno()
    except Exception:  # io.UnsupportedOperation, AttributeError: an in-memory stream
        return False
    return True


class _Terminated(Exception):
    """SIGTERM reached the parent: the child is ended too."""


class _Ended:
    def raise_(self, signum, frame):
        raise _Terminated()


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _wait(pid: int, r: int) -> tuple[bytes, int]:
    """Read the pipe until the child has exited (left unreaped: its process group stays reserved);
    the bytes read and its wait status."""
    chunks = []
    while True:
        ready, _, _ = select.select([r], [], [], 0.2)
        chunk = os.read(r, _CHUNK) if ready else b""
        if chunk:
            chunks.append(chunk)
            continue
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | (0 if ready else os.WNOHANG)) is not None:
            while select.select([r], [], [], 0)[0]:
                chunk = os.read(r, _CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks), _status(pid)


def _status(pid: int) -> int:
    """The wait status of the exited, unreaped child (read without reaping it)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    if info.si_code == os.CLD_EXITED:
        return (info.si_status & 0xFF) << 8
    return info.si_status & 0x7F  # killed (or dumped) by signal si_status


def _kill(pid: int) -> None:
    """End the child's process group (it, and what it started); reap the child."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
