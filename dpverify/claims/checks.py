"""Input checks of the claims engine: text, records, lists of records and JSON-like mappings.

The public functions of :mod:`dpverify.claims` check their input here (numbers and flags through
:mod:`dpverify.validation`): a wrong type is a ``TypeError``, a wrong value a ``ValueError``, and
each message names the parameter as the caller wrote it and shows the value.  Nothing is read as
something else: a number is never taken for an id, ``None`` never for text, a string never for a
list of claims.  The checks raise from inside :mod:`dpverify.claims`, so a claim defined wrongly
in a claims file is still reported as one line ``FILE:LINE: message``
(:func:`dpverify.claims.sources.authoring_error`).

Example
-------
>>> check_text("rr.x", "claim_id")
'rr.x'
>>> check_text(0, "claim_id")
Traceback (most recent call last):
...
TypeError: claim_id must be a string, got 0 of type int
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from dpverify.validation import check_bool

__all__ = ["check_instance", "check_items", "check_mapping", "check_text", "shown"]

_REPR = reprlib.Repr()
_REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 80, 80, 4, 4


def shown(value: Any) -> str:
    """A short ``repr`` of a value for an error message (numpy scalars as plain numbers, long values cut).

    Example
    -------
    >>> shown(np.float32(5.0)), shown("x" * 100)[:12]
    ('5.0', "'xxxxxxxxxxx")
    """
    if isinstance(value, np.generic):
        value = value.item()
    return _REPR.repr(value)


def _kind_name(kind: Any) -> str:
    """``"a Claim"``, ``"an int"``, ``"a str or a Path"``: the kinds with their articles."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = [getattr(k, "__name__", str(k)) for k in kinds]
    return " or ".join(("an " if n[:1].lower() in "aeiou" else "a ") + n for n in names)


def _check_kind(kind: Any) -> None:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not kinds or not all(isinstance(k, type) for k in kinds):
        raise TypeError(f"kind must be a class or a tuple of classes, got {shown(kind)}")


def check_text(value: Any, name: str, *, nonempty: bool = False) -> str:
    """Text: a ``str`` (never a number or ``None`` read as text); with ``nonempty``, not blank.

    Example
    -------
    >>> check_text(" ", "prefix", nonempty=True)
    Traceback (most recent call last):
    ...
    ValueError: prefix must be non-empty text, got ' '
    """
    nonempty = check_bool(nonempty, "nonempty")
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {shown(value)} of type {type(value).__name__}")
    if nonempty and not value.strip():
        raise ValueError(f"{name} must be non-empty text, got {value!r}")
    return str(value)


def check_instance(value: Any, kind: type | tuple, name: str) -> Any:
    """``value`` itself when it is an instance of ``kind`` (a class or a tuple of classes), else a TypeError.

    Example
    -------
    >>> check_instance(float("nan"), str, "r")
    Traceback (most recent call last):
    ...
    TypeError: r must be a str, got nan of type float
    """
    _check_kind(kind)
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {_kind_name(kind)}, got {shown(value)} of type {type(value).__name__}")
    return value


def check_items(values: Any, kind: type | tuple, name: str) -> list:
    """A list of the items of ``values`` (any finite iterable but text or a mapping), each a ``kind``.

    Example
    -------
    >>> check_items((1, 2), int, "ids")
    [1, 2]
    >>> check_items([1, "a"], int, "ids")
    Traceback (most recent call last):
    ...
    TypeError: ids[1] must be an int, got 'a' of type str
    """
    _check_kind(kind)
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list, each item {_kind_name(kind)}, got {shown(values)} of type "
                        f"{type(values).__name__}")
    items = list(values)
    for i, v in enumerate(items):
        if not isinstance(v, kind):
            raise TypeError(f"{name}[{i}] must be {_kind_name(kind)}, got {shown(v)} of type {type(v).__name__}")
    return items


def check_mapping(value: Any, name: str, *, of_mappings: bool = False) -> Mapping:
    """A mapping with text keys; with ``of_mappings`` every value a mapping too (baseline entries).

    Example
    -------
    >>> check_mapping({"rr.x": "holds"}, "entries", of_mappings=True)
    Traceback (most recent call last):
    ...
    TypeError: entries['rr.x'] must be a mapping, got 'holds' of type str
    """
    of_mappings = check_bool(of_mappings, "of_mappings")
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping, got {shown(value)} of type {type(value).__name__}")
    for k, v in value.items():
        if not isinstance(k, str):
            raise TypeError(f"{name} must have text keys, got the key {shown(k)} of type {type(k).__name__}")
        if of_mappings and not isinstance(v, Mapping):
            raise TypeError(f"{name}[{k!r}] must be a mapping, got {shown(v)} of type {type(v).__name__}")
    return value
