"""Loading claims files in a forked child first, so a file that exits, is killed or blocks at import is reported.

:func:`load_in_child` is how ``dpverify verify``, ``dpverify claims PATH``, ``dpverify report PATH``
and the pytest plugin read a user's claims files: a child imports them and sends the claims'
records (:mod:`dpverify.claims.remote`); the caller never imports them.  :func:`guarded_load`
only asks whether loading succeeds in a child (an installed room is tried that way before it is
imported).  The child's stdout is pointed at its stderr
(:func:`dpverify.claims.protocol.quiet_stdout`) and it reports in JSON, never a pickle, so a
file cannot write the caller's stdout or run code in the caller by what it sends.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import multiprocessing.connection
import os
import traceback
from typing import Any, Callable

from dpverify.claims.model import Claim, check_timeout
from dpverify.claims.protocol import MAX_MESSAGE, die_with_parent, quiet_stdout
from dpverify.claims.workers import exit_reason, kill_group
from dpverify.validation import check_bool

__all__ = ["ChildLoadError", "guarded_load", "load_in_child"]


class ChildLoadError(ValueError):
    """An ordinary exception raised by ``load`` in the loading child: its message, with the
    exception's type name (``kind``) and the child's traceback (``tb``)."""

    def __init__(self, kind: str, text: str, tb: str) -> None:
        super().__init__(text)
        self.kind, self.tb = kind, tb


def guarded_load(load: Callable[[], list[Claim]], limit: float, *, base_exceptions: bool = False) -> str | None:
    """Try ``load`` in a forked process first; the reason it failed there, or None when it returned.

    A claims file that calls ``os._exit``, kills its process or blocks at import would end
    or stall the caller; tried in a child (ended with its process group after ``limit``
    seconds), it is reported instead.  An exception ``load`` raises is left to the caller's
    own load to report.

    Parameters
    ----------
    load : callable
        Loads the claims (``load()`` returns them).
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
    if not callable(load):
        raise TypeError(f"load must be a function returning the claims, got {type(load).__name__}")
    try:
        return load_in_child(lambda: len(load()), limit, base_exceptions=base_exceptions)[1]
    except ChildLoadError:
        return None


def load_in_child(load: Callable[[], Any], limit: float, *, base_exceptions: bool = False) -> tuple[Any, str | None]:
    """Run ``load`` in a forked process and return what it returned (JSON data), or why it failed.

    Nothing the child sends is trusted: it is one JSON message (never a pickle), at most
    :data:`~dpverify.claims.protocol.MAX_MESSAGE` bytes.  The claims files the child imports
    are never imported by the caller.

    Parameters
    ----------
    load : callable
        Returns JSON-able data (e.g. the records of the claims it loaded,
        :func:`dpverify.claims.remote.record_of`).
    limit : float
        Seconds the load may take.
    base_exceptions : bool
        As for :func:`guarded_load`: a ``BaseException`` that is not an ``Exception`` is a
        failure ("loading the claims raised SystemExit: 0"); otherwise it is raised here as a
        :class:`ChildLoadError` like any other exception.

    Returns
    -------
    (data, None) or (None, str)
        What ``load`` returned, or why loading failed in the child ("... ran past its 2 s
        limit", "... exited with code 0 before it finished", "... sent a malformed message").

    Raises
    ------
    ChildLoadError
        ``load`` raised an exception in the child (its type name, message and traceback).

    Example
    -------
    >>> load_in_child(lambda: [1, 2], 30.0)
    ([1, 2], None)
    """
    if not callable(load):
        raise TypeError(f"load must be a function returning JSON data, got {type(load).__name__}")
    limit, base_exceptions = min(check_timeout(limit, "limit"), 1e6), check_bool(base_exceptions, "base_exceptions")
    ctx = mp.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)

    parent = os.getpid()

    def body() -> None:
        os.setpgid(0, 0)
        die_with_parent(parent)
        quiet_stdout()
        try:
            msg = ["ok", load(), False, "", ""]
        except BaseException as exc:
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            msg = ["raised", text[:10_000], not isinstance(exc, Exception), type(exc).__name__,
                   traceback.format_exc()[-100_000:]]
            if isinstance(exc, Exception):
                msg[1] = str(exc)[:10_000]
        writer.send_bytes(json.dumps(msg, allow_nan=False).encode("utf-8"))

    proc = ctx.Process(target=body, daemon=False)
    proc.start()
    writer.close()
    try:
        return _answer(proc, reader, limit, base_exceptions)
    finally:
        kill_group(proc)
        proc.join(timeout=5)
        reader.close()


def _answer(proc: Any, reader: Any, limit: float, base_exceptions: bool) -> tuple[Any, str | None]:
    """What the loading child sent (or why there is nothing)."""
    ready = mp.connection.wait([reader, proc.sentinel], timeout=limit)
    if not ready:  # the limit came first: whatever the child does next is too late
        return None, f"loading the claims ran past its {limit:g} s limit"
    if proc.sentinel in ready and reader not in ready:
        proc.join(timeout=1)  # it ended: a message sent just before may still be in the pipe
    if reader.poll():
        try:
            msg = json.loads(reader.recv_bytes(maxlength=MAX_MESSAGE).decode("utf-8"))
        except (EOFError, OSError):
            msg = None
        except (ValueError, RecursionError):  # not what the child sends: a file wrote into the pipe
            return None, "loading the claims sent a malformed message"
        if msg is not None:
            if not (isinstance(msg, list) and len(msg) == 5 and msg[0] in ("ok", "raised")
                    and all(isinstance(x, str) for x in msg[3:])):
                return None, "loading the claims sent a malformed message"
            if msg[0] == "ok":
                return msg[1], None
            if msg[2] is True:
                if base_exceptions:
                    return None, f"loading the claims raised {str(msg[1])[:10_000]}"
                raise ChildLoadError(msg[3], str(msg[1]), msg[4])
            raise ChildLoadError(msg[3], str(msg[1]), msg[4])
    proc.join(timeout=1)  # it may still be on its way out
    if proc.is_alive():
        return None, f"loading the claims ran past its {limit:g} s limit"
    return None, exit_reason(proc).replace("the worker", "loading the claims").replace(" before reporting",
                                                                                       " before it finished")
