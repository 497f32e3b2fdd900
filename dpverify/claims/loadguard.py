"""Loading claims files in a forked child first, so a file that exits, is killed or blocks at import is reported.

:func:`guarded_load` is what ``dpverify verify``, ``dpverify claims PATH`` and the pytest plugin call
before they import a user's claims files themselves.  The child's stdout is pointed at its stderr
(:func:`dpverify.claims.protocol.quiet_stdout`) and it reports in JSON, never a pickle, so a
file cannot write the caller's stdout or run code in the caller by what it sends.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import multiprocessing.connection
import os
from typing import Callable

from dpverify.claims.model import Claim, check_timeout
from dpverify.claims.protocol import quiet_stdout
from dpverify.claims.workers import exit_reason, kill_group
from dpverify.validation import check_bool

__all__ = ["guarded_load"]


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
    if not callable(load):
        raise TypeError(f"load must be a function returning the claims, got {type(load).__name__}")
    limit, base_exceptions = min(check_timeout(limit, "limit"), 1e6), check_bool(base_exceptions, "base_exceptions")
    ctx = mp.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)

    def body() -> None:
        os.setpgid(0, 0)
        quiet_stdout()
        try:
            msg = ["ok", len(load()), False]
        except BaseException as exc:  # the caller's own load reports ordinary errors
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            msg = ["raised", text[:10_000], not isinstance(exc, Exception)]
        writer.send_bytes(json.dumps(msg).encode("utf-8"))

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
                msg = json.loads(reader.recv_bytes(maxlength=2**20).decode("utf-8"))
            except (EOFError, OSError):
                msg = None
            except (ValueError, RecursionError):  # not what the child sends: a file wrote into the pipe
                return "loading the claims sent a malformed message"
            if msg is not None:
                if not (isinstance(msg, list) and len(msg) == 3 and msg[0] in ("ok", "raised")):
                    return "loading the claims sent a malformed message"
                if base_exceptions and msg[0] == "raised" and msg[2] is True:
                    return f"loading the claims raised {str(msg[1])[:10_000]}"
                return None
        proc.join(timeout=1)  # it may still be on its way out
        if proc.is_alive():
            return f"loading the claims ran past its {limit:g} s limit"
        return exit_reason(proc).replace("the worker", "loading the claims").replace(" before reporting",
                                                                                     " before it finished")
    finally:
        kill_group(proc)
        proc.join(timeout=5)
        reader.close()
