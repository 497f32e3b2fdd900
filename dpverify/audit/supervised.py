"""Supervision of a command's work: a mechanism that ends its process is an error, never a verdict.

A mechanism (or a statistic) is user code.  :func:`dpverify.mechanisms.checked_sample` turns what it
*raises* — an exception, ``SystemExit``, ``GeneratorExit`` — into a :class:`MechanismError`, and
:mod:`dpverify.audit.contained` turns a worker process it ends into one; what ends the command's own
process is handled here.  :func:`run_supervised` runs the work in a forked child process in its own
process group; the parent only waits.  The child sends its exit status (or the exception it raised,
which the parent raises again) over a pipe before it exits, and names each mechanism call it
begins and ends (:func:`dpverify.mechanisms.sampling.observe_calls`).  A child that ends without
reporting — it called ``os._exit``, received a signal, crashed — is a :class:`MechanismError` naming
what ended it and the mechanism call under way.  Ctrl-C (SIGINT) or SIGTERM to the parent ends the
child's whole process group (its worker processes too): exit status 130 (143).
:func:`supervise_command` is the entry point of ``dpverify audit``.

Example
-------
>>> run_supervised(lambda: 3, "m")
3
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
from typing import Callable

from dpverify.audit.errors import MechanismError

__all__ = ["run_supervised", "supervise_command"]

_CHUNK = 1 << 16


def _child(work: Callable[[], int], fd: int) -> None:
    """The forked child: run ``work`` and send ``("status", int)`` or ``("raised", exc)``; never returns."""
    code = 0
    try:
        os.setpgid(0, 0)  # its own group: ending it also ends the worker processes it starts
        from dpverify.mechanisms.sampling import observe_calls

        import threading

        observe_calls(lambda call: _send(fd, ("call", threading.get_ident(), call)))
        captured = _capture()
        try:
            msg = ("status", int(work() or 0))
        except Exception as exc:  # re-raised by the parent: the command's usual one-line errors
            import traceback

            msg = ("raised", exc, "".join(traceback.format_exception(exc)))
        except SystemExit as exc:  # something outside the sampling called sys.exit
            msg = ("ended", f"raised SystemExit({exc.code!r})")
        except KeyboardInterrupt:
            msg = ("status", 130)
        except BaseException as exc:
            msg = ("ended", f"raised {type(exc).__name__}: {exc}")
        observe_calls(None)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        for which, buffer in captured.items():  # what was written to streams that are not files
            _send(fd, ("text", which, buffer.getvalue()))
        _send(fd, msg)
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def _capture() -> dict:
    """Replace ``sys.stdout``/``sys.stderr`` by buffers where they are not files (a test's capture):
    their text is sent to the parent at the end; file streams are shared as they are."""
    import io

    captured = {}
    for which in ("stdout", "stderr"):
        try:
            getattr(sys, which).fileno()
        except Exception:
            captured[which] = io.StringIO()
            setattr(sys, which, captured[which])
    return captured


def _send(fd: int, msg: tuple) -> None:
    try:
        data = pickle.dumps(msg)
        pickle.loads(data)  # an exception class may pickle but not unpickle
    except Exception:  # an exception that does not pickle: its text
        data = pickle.dumps(("raised", RuntimeError(f"{type(msg[1]).__name__}: {msg[1]}"), msg[-1]))
    frame = len(data).to_bytes(8, "little") + data
    while frame:
        frame = frame[os.write(fd, frame):]


def _frames(data: bytes) -> list:
    out = []
    while len(data) >= 8:
        size = int.from_bytes(data[:8], "little")
        if len(data) < 8 + size:
            break
        out.append(pickle.loads(data[8:8 + size]))
        data = data[8 + size:]
    return out


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in {s.value for s in signal.Signals} else str(sig)
        return f"was killed by signal {name}"
    return f"ended the process (exit status {os.WEXITSTATUS(status) if os.WIFEXITED(status) else status})"


def run_supervised(work: Callable[[], int], name: str) -> int:
    """Run ``work()`` in a forked child and return its exit status; raise here what it raised.

    Parameters
    ----------
    work : callable returning an int
        The command's work (it prints its own output; stdout and stderr are shared).
    name : str
        The mechanism's name, for the message when the child ends without reporting.

    Returns
    -------
    int
        ``work()``'s status; 130 after Ctrl-C (the child and its processes ended).

    Raises
    ------
    MechanismError
        The child ended without reporting (``os._exit``, a signal, a crash), or the mechanism
        ended it in another way (a ``SystemExit`` outside the sampling).

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
    _check(work, name)
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        stream.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(work, w)
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
    frames = _frames(data)
    for frame in frames:
        if frame[0] == "text":
            getattr(sys, frame[1]).write(frame[2])
    frames = [f for f in frames if f[0] != "text"]
    last = frames[-1] if frames and frames[-1][0] != "call" else None
    if last is not None and last[0] == "status":
        return last[1]
    if last is not None and last[0] == "raised":
        last[1].add_note(f"raised in the supervised child process:\n{last[2]}")
        raise last[1]
    open_calls, begun = {}, None  # the mechanism calls under way when it ended (by thread), the last begun
    for f in frames:
        if f[0] == "call" and f[2] is None:
            open_calls.pop(f[1], None)
        elif f[0] == "call":
            open_calls[f[1]], begun = f[2], f[2]
    raise MechanismError(_death_message(name, last, status, list(open_calls.values()), begun))


def _death_message(name: str, last, status: int, under_way: list, begun: str | None) -> str:
    """Why the child ended without a status: in which call of the mechanism, or outside its calls."""
    if last is not None:  # it raised SystemExit or another BaseException outside checked_sample
        return (f"mechanism {name!r}: its audit {last[1]} outside the mechanism's calls (in a statistic, "
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
    """A command's ``work()`` (it prints its own output), supervised by :func:`run_supervised` when
    stdout and stderr are files (a terminal, a pipe, a file: every run of a command); in this
    process when a Python caller replaced them by in-memory streams (to capture the output).

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
    import threading

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
