"""What a worker may send its supervisor, and what the supervisor does to stay the only writer of stdout.

A worker runs a user's check, so nothing it sends is trusted: a message is the bytes of one JSON
object (never a pickle, which would run code in the parent when read), at most
:data:`MAX_MESSAGE` bytes, and :func:`read_result` accepts it only if it has exactly the fields and
types of a report (:func:`encode_result`), the index the worker was given, and a verdict among the
:class:`~dpverify.claims.model.Verdict` values.  Anything else, or a second message, is a
:class:`ProtocolError`: the parent makes the claim an ``error`` ("the worker sent a malformed
message") and ends the worker.

A report may carry the figure the check's process drew (``drawn``: only when the parent asked
for it, :func:`dpverify.claims.server.report_text`): a dict holding the image as
:func:`dpverify.report.figures.image_to_json` writes it, or the figure function's error.  Only its
shape and size are checked here (:func:`image_size_problem`); :func:`read_result` hands it on as a
:class:`DrawnFigure` in place of the figure data, and the report accepts the image only when it is
a whole PNG whose header matches (:func:`dpverify.report.figures.image_problem`), else it shows a
figure error.  A report nested deeper than :data:`MAX_NESTING` is refused, and every string of an
accepted one is made writable as UTF-8 (:func:`utf8_safe`).

:func:`quiet_stdout` is called in every worker before a check runs: file descriptor 1 then points
where 2 does, so what a check prints (``print``, ``os.write(1, ...)``) goes to stderr and the
parent alone writes stdout (``verify --json`` output cannot be preceded by a check's text).

:func:`become_subreaper` (Linux only; a no-op elsewhere) makes the parent adopt the processes a
check leaves behind even after a double fork and ``setsid``, so :func:`stray_children` can find
and end them.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import time
from typing import Any

from dpverify.claims.model import Verdict

#: No Python API: the message format of :mod:`dpverify.claims.supervisor` and its workers.
__all__: list[str] = []

#: Largest message a worker may send (bytes).
MAX_MESSAGE = 64 * 2**20

#: Longest image (base64 characters), caption and figure error (characters) a report may carry.
MAX_IMAGE, MAX_CAPTION, MAX_FIGURE_ERROR = 8_000_000, 10_000, 100_000

#: Deepest nesting of lists and dicts a report's evidence and figure data may have (the report
#: converts them again: :data:`dpverify.claims.evidence.MAX_DEPTH` is 200).
MAX_NESTING = 150

_VERDICTS = frozenset(v.value for v in Verdict)


class ProtocolError(Exception):
    """A worker sent something that is not the one report it was asked for."""


class DrawnFigure:
    """The figure data of a report whose check's process also drew the figure (in the parent, in
    place of ``Outcome.figure_data``).

    ``data`` is the figure data as sent; ``image`` the image's JSON as sent (a dict, checked by the
    report before any use: :func:`dpverify.report.figures.image_from_json`) or None; ``error`` the
    figure function's error, quoted as the check's process sent it, or why what it sent is not a
    figure.  Exactly one of ``image`` and ``error`` is set.
    """

    __slots__ = ("data", "image", "error")

    def __init__(self, data: Any, drawn: Any) -> None:
        self.data, self.image, self.error = data, None, None
        if not isinstance(drawn, dict) or set(drawn) != {"image", "error"}:
            self.error = "the check's process sent a malformed figure (not a drawn image or an error)"
        elif isinstance(drawn["image"], dict) and drawn["error"] is None:
            problem = image_size_problem(drawn["image"])
            self.image = drawn["image"] if problem is None else None
            self.error = None if problem is None else f"the check's process sent a figure with {problem}"
        elif drawn["image"] is None and isinstance(drawn["error"], str) and drawn["error"]:
            self.error = drawn["error"][-MAX_FIGURE_ERROR:]
        else:
            self.error = "the check's process sent a malformed figure (not a drawn image or an error)"

    def __repr__(self) -> str:
        return f"DrawnFigure(image={self.image is not None}, error={self.error is not None})"


def image_size_problem(img: dict) -> str | None:
    """What is wrong with a drawn image's JSON before it may be sent ("an image larger than 8000000
    base64 characters", "a caption longer than 10000 characters", ...), or None.  The check's
    process tests its own image with it before sending; the parent tests what arrives."""
    data, cap = img.get("png_base64"), img.get("caption", "")
    if not isinstance(data, str):
        return "an image without its PNG data (no png_base64 string)"
    if len(data) > MAX_IMAGE:
        return f"an image larger than {MAX_IMAGE} base64 characters"
    if not isinstance(cap, str):
        return "a caption that is not text"
    if len(cap) > MAX_CAPTION:
        return f"a caption longer than {MAX_CAPTION} characters"
    return None


def utf8_safe(obj: Any) -> Any:
    """``obj`` (JSON values) with every string that cannot be written as UTF-8 (a lone surrogate, as
    a file name read from a non-UTF-8 file system gives: ``'\\udce9'``) backslash-escaped instead;
    a copy (of lists and dicts; other values as they are).  Nesting must be below the recursion
    limit (:func:`check_result` bounds a report's).

    >>> utf8_safe({"f": b"caf\\xe9".decode("utf-8", "surrogateescape"), "n": [1, "é"]})
    {'f': 'caf\\\\udce9', 'n': [1, 'é']}
    """
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
            return obj
        except UnicodeEncodeError:
            return obj.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(obj, dict):
        return {utf8_safe(k): utf8_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [utf8_safe(v) for v in obj]
    return obj


def nesting(obj: Any, limit: int) -> bool:
    """Whether ``obj`` (JSON values) is nested no deeper than ``limit`` lists and dicts (no recursion)."""
    todo = [(obj, 0)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, (list, dict)):
            if d >= limit:
                return False
            todo.extend((v, d + 1) for v in (x.values() if isinstance(x, dict) else x))
    return True


def send(conn: Any, msg: dict) -> None:
    """Send ``msg`` as the bytes of one JSON object."""
    conn.send_bytes(json.dumps(msg, allow_nan=False).encode("utf-8"))


def encode_result(i: int, kind: str, payload: Any, left: int, tampered: str | None = None,
                  threads: int = 0) -> dict:
    """A report: task ``i``, ``kind`` "ok" (payload: verdict, evidence, figure, seconds, error,
    summary, and the figure drawn or None) or "failed" (payload: a traceback), ``left`` processes
    the check left running,
    ``tampered`` the first part of the claims engine the check changed in its worker (or None:
    :mod:`dpverify.claims.integrity`) and ``threads`` the Python threads it left running."""
    if kind == "ok":
        verdict, ev, fig, secs, err, summary, drawn = payload
        body = {"verdict": verdict, "evidence": ev, "figure": fig, "seconds": float(secs),
                "error": err, "summary": summary, "drawn": drawn}
    else:
        body = {"traceback": str(payload)}
    return {"i": int(i), "kind": kind, "left": int(left), "tampered": tampered, "threads": int(threads), **body}


def read_result(conn: Any, expected: int) -> dict:
    """One message from ``conn``, checked to be the report of task ``expected``; else ProtocolError.

    A report with a drawn figure carries it as a :class:`DrawnFigure` in ``msg["figure"]``.  Every
    string is made writable as UTF-8 (:func:`utf8_safe`)."""
    try:
        raw = conn.recv_bytes(maxlength=MAX_MESSAGE)
    except OSError as exc:  # longer than MAX_MESSAGE, or a broken frame
        raise ProtocolError(f"an unreadable message ({exc})") from None
    try:
        msg = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ProtocolError(f"not JSON ({type(exc).__name__})") from None
    check_result(msg, expected)
    msg = utf8_safe(msg)  # every text it carries can be written out (a lone surrogate is escaped)
    if msg["kind"] == "ok" and msg.get("drawn") is not None:
        msg["figure"] = DrawnFigure(msg["figure"], msg["drawn"])
    return msg


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def check_result(msg: Any, expected: int) -> None:
    """Raise ProtocolError unless ``msg`` is a well-formed report of task ``expected``."""
    if not isinstance(msg, dict):
        raise ProtocolError(f"a {type(msg).__name__}, not a report")
    kind = msg.get("kind")
    common = {"i", "kind", "left", "tampered", "threads"}
    keys = (common | {"verdict", "evidence", "figure", "seconds", "error", "summary"} if kind == "ok"
            else common | {"traceback"} if kind == "failed" else None)
    if keys is None or set(msg) - ({"drawn"} if kind == "ok" else set()) != keys:  # a report may leave "drawn" out
        raise ProtocolError("a message without the fields of a report")
    i, left = msg["i"], msg["left"]
    if type(i) is not int or i != expected:
        raise ProtocolError(f"a report for task {i!r:.40} while it was given task {expected}")
    if type(left) is not int or not 0 <= left < 2**31:
        raise ProtocolError("a report with a bad count of processes left running")
    threads, tampered = msg["threads"], msg["tampered"]
    if type(threads) is not int or not 0 <= threads < 2**31:
        raise ProtocolError("a report with a bad count of threads left running")
    if tampered is not None and not (isinstance(tampered, str) and 0 < len(tampered) <= 1000):
        raise ProtocolError("a report with a bad name of what the check changed")
    if kind == "failed":
        if not isinstance(msg["traceback"], str):
            raise ProtocolError("a failure report without a traceback")
        return
    secs = msg["seconds"]
    ok = (isinstance(msg["verdict"], str) and msg["verdict"] in _VERDICTS and isinstance(msg["evidence"], dict)
          and isinstance(secs, float) and math.isfinite(secs) and secs >= 0
          and (msg["error"] is None or isinstance(msg["error"], str))
          and (msg["summary"] is None or isinstance(msg["summary"], str)))
    if not ok:
        raise ProtocolError("a report whose verdict, evidence, seconds, error or summary has the wrong type")
    if not nesting(msg, MAX_NESTING):  # the report converts evidence and figure data again, recursively
        raise ProtocolError(f"a report nested deeper than {MAX_NESTING} levels")


def quiet_stdout() -> None:
    """Point file descriptor 1 (and ``sys.stdout``) at stderr: a worker never writes stdout."""
    try:
        os.dup2(2, 1)
    except OSError:  # no stderr: drop what is printed
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    sys.stdout = sys.stderr


def become_subreaper() -> bool:
    """Make this process adopt its orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent: int) -> None:
    """Be killed when the process ``parent`` ends (Linux ``PR_SET_PDEATHSIG``); exit now if it already
    has.  A worker of a ``dpverify`` killed by a CI timeout must not live on waiting for tasks."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(0)


def children(zombies: bool = False) -> set[int]:
    """The process ids of this process's living (and with ``zombies``, ended) children (Linux ``/proc``)."""
    me, out = str(os.getpid()), set()
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return out
    for p in pids:
        try:
            with open(f"/proc/{p}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[1] == me and (zombies or fields[0] != "Z"):
            out.add(int(p))
    return out


def _wait_gone(pids: set[int], seconds: float = 2.0) -> None:
    """Collect the exit status of killed children (not workers), waiting up to ``seconds`` for them."""
    deadline = time.monotonic() + seconds
    left = set(pids)
    while left:
        for pid in list(left):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    left.discard(pid)
            except (ChildProcessError, OSError):  # not ours (any more)
                left.discard(pid)
        if left:
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)


def end_group(pgid: int, keep: set[int]) -> None:
    """After a worker's process group ``pgid`` was killed: collect the members this process
    adopted (subreaper), so they are not taken for processes the next check left."""
    mine = set()
    for pid in children(zombies=True) - keep - {pgid}:
        try:
            if os.getpgid(pid) == pgid:
                mine.add(pid)
        except OSError:
            continue
    _wait_gone(mine)


def end_strays(before: set[int], keep: set[int]) -> int:
    """Kill the children of this process that are neither in ``before`` (there before the run)
    nor in ``keep`` (live workers); how many there were.  A stray in a live worker's process
    group (a process a check started whose parent ended, adopted here) is killed alone; any
    other with its process group."""
    strays = set()
    for pid in children() - before - keep:
        try:
            group = os.getpgid(pid)
            strays.add(pid)
            if group not in keep and group != os.getpgrp():  # never a live worker's or this process's group
                os.killpg(group, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
        except OSError:  # gone meanwhile
            pass
    _wait_gone(strays)
    return len(strays)
