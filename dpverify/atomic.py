"""Every file dpverify writes goes through here: atomically, never over its input.

A file is written to a temporary file in the destination's own directory, flushed
and ``fsync``-ed, then renamed over the destination (``os.replace``: atomic on
POSIX).  A crash or a full disk therefore leaves either the old file or the new
one, never a cut-off file; the temporary file is removed on any failure.

Example
-------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> atomic_write_text(d / "out.txt", "hello\\n").name
'out.txt'
>>> with atomic_open(d / "out.txt", "w", force=True) as f:
...     _ = f.write("replaced\\n")
>>> (d / "out.txt").read_text()
'replaced\\n'
"""

from __future__ import annotations

import codecs
import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Any, ContextManager, Iterator

from dpverify.plain_checks import check_flag, check_path

__all__ = ["OutputError", "atomic_open", "atomic_write_bytes", "atomic_write_text", "check_output_path"]


class OutputError(ValueError):
    """An output path that must not be written: exists (without ``force``), is a
    directory, is one of the inputs, or its parent is not a directory."""


def _input_paths(inputs: Any) -> tuple[Path, ...]:
    """``inputs`` as a tuple of paths: an iterable (not one path) of non-empty ``str``/``os.PathLike``."""
    if isinstance(inputs, (str, bytes, os.PathLike)) or not hasattr(inputs, "__iter__"):
        raise TypeError(f"inputs must be a tuple of paths, got {inputs!r} of type {type(inputs).__name__}")
    out = []
    for i, src in enumerate(inputs):
        out.append(check_path(src, f"inputs[{i}]"))
    return tuple(out)


def check_output_path(path: str | os.PathLike, *, force: bool = False,
                      inputs: tuple[str | os.PathLike, ...] = (), name: str = "output") -> Path:
    """Validate an output path before any work is done; return it as a ``Path``.

    Parameters
    ----------
    path : str or os.PathLike
        The file to be written.
    force : bool, optional
        Allow ``path`` to exist already (it will be replaced).
    inputs : tuple of paths, optional
        The files the command reads; ``path`` must be none of them.
    name : str, optional
        What ``path`` is, for the error messages (e.g. ``"--out"``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputError
        (a ``ValueError``) naming ``name`` when the path is empty or a directory, equals one of
        ``inputs`` (same file, after resolving links), exists and ``force`` is false, or its parent
        is missing or not a directory.
    TypeError
        ``path`` is not a path, ``force`` is not ``True``/``False``, or ``inputs`` is not a
        tuple of paths (ValueError for an empty one).

    Example
    -------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_path(d / "new.json").name
    'new.json'
    >>> check_output_path(d, name="--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpverify.atomic.OutputError: --out '...' is a directory, not a file
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path, got {type(path).__name__}")
    text = os.fspath(path)  # before Path(): Path('') is '.', the current folder
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a path (str or os.PathLike of str), got {text!r}")
    if not text.strip():
        raise OutputError(f"{name} must be a non-empty file path, got {text!r}")
    p = Path(text)
    force = check_flag(force, "force")
    for s in _input_paths(inputs):
        try:
            same = s.exists() and p.exists() and os.path.samefile(s, p)
        except OSError:
            same = False
        if same or s.resolve() == p.resolve():
            raise OutputError(f"{name} {str(p)!r} is the input file {str(s)!r}; refusing to overwrite the input")
    if p.is_dir():
        raise OutputError(f"{name} {str(p)!r} is a directory, not a file")
    parent = p.parent if str(p.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise OutputError(f"{name} {str(p)!r}: its parent {str(parent)!r} is not a directory")
    if not parent.exists():
        raise OutputError(f"{name} {str(p)!r}: the directory {str(parent)!r} does not exist")
    if p.exists() and not force:
        raise OutputError(f"{name} {str(p)!r} already exists; pass --force (force=True) to overwrite it")
    return p


def atomic_open(path: str | os.PathLike, mode: str = "w", *, force: bool = True,
                inputs: tuple[str | os.PathLike, ...] = (), name: str = "output",
                encoding: str | None = "utf-8", newline: str | None = None) -> ContextManager[IO]:
    """Open a temporary file beside ``path``; on a clean exit rename it over ``path``.

    Every argument is checked when ``atomic_open`` is called, before the ``with`` block is entered.

    Parameters
    ----------
    path : str or os.PathLike
        The destination (checked first with :func:`check_output_path`).
    mode : {"w", "wb"}, optional
        Text or binary.
    force : bool, optional
        ``False`` refuses an existing ``path``.
    inputs, name
        As in :func:`check_output_path`.
    encoding, newline : optional
        For text mode, as in :func:`open`: ``encoding`` a known codec or None, ``newline`` one of
        None, ``""``, ``"\\n"``, ``"\\r"``, ``"\\r\\n"``.

    Returns
    -------
    context manager
        Entering it gives the temporary file.  On an exception (including ``OSError`` from a full disk) it is
        removed and ``path`` is left as it was.

    Example
    -------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "table.csv"
    >>> with atomic_open(out, "w") as f:
    ...     _ = f.write("a,b\\n")
    >>> out.read_text()
    'a,b\\n'
    >>> with atomic_open(out, "w") as f:   # a failure leaves the old file
    ...     raise RuntimeError("crash")
    Traceback (most recent call last):
    ...
    RuntimeError: crash
    >>> out.read_text()
    'a,b\\n'
    """
    if not isinstance(mode, str) or mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    if encoding is not None:
        if not isinstance(encoding, str):
            raise TypeError(f"encoding must be a codec name or None, got {encoding!r} of type {type(encoding).__name__}")
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ValueError(f"encoding must be a known codec name, got {encoding!r}") from None
    if newline is not None and (not isinstance(newline, str) or newline not in ("", "\n", "\r", "\r\n")):
        raise ValueError(f"newline must be None, '', '\\n', '\\r' or '\\r\\n', got {newline!r}")
    p = check_output_path(path, force=force, inputs=inputs, name=name)
    return _replacing(p, mode, force=check_flag(force, "force"), name=name, encoding=encoding, newline=newline)


@contextlib.contextmanager
def _replacing(p: Path, mode: str, *, force: bool, name: str, encoding: str | None,
               newline: str | None) -> Iterator[IO]:
    """The body of :func:`atomic_open`, its arguments checked: the temporary file, renamed over ``p``."""
    parent = p.parent if str(p.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=parent)
    try:
        kwargs = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if p.exists() and not force:  # created meanwhile by someone else
            raise OutputError(f"{name} {str(p)!r} already exists; pass --force (force=True) to overwrite it")
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def atomic_write_text(path: str | os.PathLike, text: str, *, force: bool = True, **kw) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`); return the path.

    Parameters
    ----------
    path : str or os.PathLike
    text : str
    force : bool, optional
        ``False`` refuses an existing ``path``.
    **kw
        ``inputs``, ``name``, ``encoding``, ``newline`` of :func:`atomic_open`.

    Example
    -------
    >>> import tempfile, pathlib
    >>> p = atomic_write_text(pathlib.Path(tempfile.mkdtemp()) / "a.txt", "x = 1\\n")
    >>> p.read_text()
    'x = 1\\n'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    with atomic_open(path, "w", force=force, **kw) as f:
        f.write(text)
    return Path(path)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, force: bool = True, **kw) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`); return the path.

    Parameters
    ----------
    path : str or os.PathLike
    data : bytes, bytearray or memoryview
    force : bool, optional
        ``False`` refuses an existing ``path``.
    **kw
        ``inputs`` and ``name`` of :func:`atomic_open`.

    Example
    -------
    >>> import tempfile, pathlib
    >>> p = atomic_write_bytes(pathlib.Path(tempfile.mkdtemp()) / "a.bin", b"\\x00\\x01")
    >>> p.read_bytes()
    b'\\x00\\x01'
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    with atomic_open(path, "wb", force=force, **kw) as f:
        f.write(data)
    return Path(path)
