"""Progress for anything that can take more than two seconds, on a terminal or not.

On a terminal: a ``rich`` progress bar on stderr.  Not on a terminal (CI logs,
pipes, ``--json`` runs): plain lines on stderr, at most one every
``every`` seconds, so that no command is silent for long and stdout stays clean.

Example
-------
>>> with progress("auditing", total=3, stream=None) as tick:
...     for _ in range(3):
...         tick(1)
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Callable, ContextManager, Iterator, TextIO

from dpverify.validation import check_real

__all__ = ["progress"]


def progress(label: str, total: float | None = None, *, stream: TextIO | None | str = "stderr",
             every: float = 1.0, unit: str = "") -> ContextManager[Callable[..., None]]:
    """Yield ``tick(advance=1, note="", total=None)``; report progress of ``label`` on ``stream``.

    The arguments are checked when ``progress`` is called, before the ``with`` block is entered.

    Parameters
    ----------
    label : str
        What is being done, printed first on every line.
    total : float, optional
        The amount of work (>= 0), when known; ``total`` given to a tick replaces it.
    stream : file object (with a ``write`` method), "stderr" or None, optional
        ``"stderr"`` is ``sys.stderr`` as it is at the call; ``None`` reports nothing.  A terminal
        gets a ``rich`` bar, anything else plain lines.
    every : float, optional
        At most one plain line every ``every`` seconds (>= 0), and one at the end if the work took longer.
    unit : str, optional
        Printed after the amount.

    Example
    -------
    >>> import io
    >>> out = io.StringIO()
    >>> with progress("draws", total=4, stream=out, every=0.0, unit="draws") as tick:
    ...     tick(2); tick(2, note="last chunk")
    >>> print(out.getvalue().splitlines()[-1].split(" (")[0])
    draws: 4/4 draws
    """
    for text, what in ((label, "label"), (unit, "unit")):
        if not isinstance(text, str):
            raise TypeError(f"{what} must be a string, got {text!r} of type {type(text).__name__}")
    if total is not None:
        check_real(total, "total", nonneg=True)
    check_real(every, "every", nonneg=True)
    if isinstance(stream, str):
        if stream != "stderr":
            raise ValueError(f"stream must be a file object, 'stderr' or None, got {stream!r}")
    elif stream is not None and not callable(getattr(stream, "write", None)):
        raise TypeError(f"stream must be a file object, 'stderr' or None, got {stream!r} of type {type(stream).__name__}")
    return _reporting(label, total, stream, every, unit)


@contextlib.contextmanager
def _reporting(label: str, total: float | None, stream: TextIO | None | str, every: float,
               unit: str) -> Iterator[Callable[..., None]]:
    """The body of :func:`progress`, its arguments checked."""
    if stream == "stderr":
        stream = sys.stderr
    if stream is None:
        yield lambda advance=1, note="", total=None: None
        return
    done = [0.0]
    t0 = time.monotonic()
    if getattr(stream, "isatty", lambda: False)():
        from rich.console import Console
        from rich.markup import escape
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        cols = [TextColumn(escape(label), style="bold"), BarColumn(), MofNCompleteColumn() if total else TextColumn(""),
                TextColumn("{task.description}", markup=False), TimeElapsedColumn()]
        with Progress(*cols, console=Console(file=stream), transient=True) as bar:
            task = bar.add_task("", total=total)

            def tick(advance: float = 1, note: str = "", total: float | None = None) -> None:
                done[0] += advance
                bar.update(task, advance=advance, description=note, **({"total": total} if total else {}))

            yield tick
        return
    last = [t0]
    current = [""]
    lock = threading.Lock()
    size = [total]

    def fmt(note: str) -> str:
        amount = f"{done[0]:,.0f}" + (f"/{size[0]:,.0f}" if size[0] else "") + (f" {unit}" if unit else "")
        return f"{label}: {amount} ({time.monotonic() - t0:.1f} s){' ' + note if note else ''}"

    def tick(advance: float = 1, note: str = "", total: float | None = None) -> None:
        with lock:
            done[0] += advance
            if total:
                size[0] = total
            if note:
                current[0] = note
            now = time.monotonic()
            if now - last[0] >= every:
                last[0] = now
                print(fmt(note), file=stream, flush=True)

    # A heartbeat: when no tick arrives (one long step), a line still comes at least every
    # ``heartbeat`` seconds, so no command is silent for long even off a terminal.
    stop = threading.Event()
    heartbeat = max(every, 2.0)

    def beat() -> None:
        while not stop.wait(heartbeat / 2):
            with lock:
                if time.monotonic() - last[0] >= heartbeat:
                    last[0] = time.monotonic()
                    print(fmt(f"still working (last done: {current[0]})" if current[0] else "working"),
                          file=stream, flush=True)

    watcher = threading.Thread(target=beat, name=f"progress:{label}", daemon=True)
    watcher.start()
    try:
        yield tick
    finally:
        stop.set()
        watcher.join()
    if time.monotonic() - t0 >= every:
        print(fmt("done"), file=stream, flush=True)
