"""Input checks that load no numpy: flags, text and paths, for the modules on the start-up path.

Room discovery (:mod:`dpverify.rooms`), room declarations (:mod:`dpverify.declarations`) and atomic
writes (:mod:`dpverify.atomic`) run before any command needs numpy, so ``dpverify --help`` stays
fast.  Their checks live here, once; :mod:`dpverify.validation` re-exports :func:`check_path` and
holds every numeric check.  Each raises ``TypeError``/``ValueError`` naming the parameter and value.

Example
-------
>>> check_flag(True, "force"), check_text("continual", "name"), str(check_path("out/r.json"))
(True, 'continual', 'out/r.json')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["check_flag", "check_path", "check_text"]


def _show(x: Any) -> str:
    """repr of a value for an error message, numpy scalars shown as plain numbers."""
    return repr(x.item() if type(x).__module__ == "numpy" and hasattr(x, "item") else x)


def check_flag(value: Any, name: str) -> bool:
    """``True``/``False`` (numpy bools too, as a plain bool); anything else refused by name.

    >>> check_flag(1, "force")
    Traceback (most recent call last):
    ...
    TypeError: force must be True or False, got 1 of type int
    """
    if isinstance(value, bool):
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {_show(value)} of type {type(value).__name__}")


def check_text(value: Any, name: str) -> str:
    """A ``str`` (TypeError naming ``name`` otherwise).

    >>> check_text(3, "name")
    Traceback (most recent call last):
    ...
    TypeError: name must be a string, got 3 of type int
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {_show(value)} of type {type(value).__name__}")
    return value


def check_path(path: Any, name: str = "path") -> Path:
    """A file-system path: ``str`` or ``os.PathLike``, never empty text (``''`` would mean the current
    directory without saying so); returned as a :class:`pathlib.Path`.

    >>> str(check_path("out/report.json"))
    'out/report.json'
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {_show(path)} of type {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{name} must be a non-empty path, got {_show(path)}")
    return Path(text)
