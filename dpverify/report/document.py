"""The shape of a report document (``report.json``, ``verify --save``), checked before it is read.

A document is a mapping; its ``claims`` a list of entries, each a mapping with a text ``id``;
the optional parts have their types (``provenance``, ``summary`` and ``comparison`` mappings,
``total_seconds`` a number >= 0, the entries' text fields text).  Every reader of documents in
:mod:`dpverify.report` checks here first, so a document that lost a key, or holds a string where
a claim was, is a ``TypeError``/``ValueError`` naming the parameter and the place, never a
``KeyError`` or ``AttributeError`` from deep inside the page.

Example
-------
>>> check_document({"claims": [{"id": "rr.x", "verdict": "holds"}]})["claims"][0]["id"]
'rr.x'
>>> check_document({"claims": ["rr.x"]})
Traceback (most recent call last):
...
TypeError: doc['claims'][0] must be a claim entry (a mapping), got str
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ENTRY_TEXT", "check_document", "check_entry"]

#: Entry fields that hold text (or None) when present.  (``proof`` may hold anything a file says: a
#: name that is not a proof document of a room is flagged "document not found", never read.)
ENTRY_TEXT = ("id", "verdict", "expected", "method", "statement", "summary", "source", "error")
#: Document parts that are mappings (or None) when present.
_MAPPINGS = ("provenance", "summary", "comparison", "settings")


def _check_keys(require) -> None:
    if isinstance(require, (str, bytes)) or not isinstance(require, (tuple, list)) or not all(
            isinstance(k, str) for k in require):
        raise TypeError(f"require must be a tuple of entry keys (text), got {require!r}")


def check_entry(c: Any, name: str = "c", *, require: Sequence[str] = ("id",)) -> Mapping[str, Any]:
    """One claim entry of a document: a mapping with the ``require``-d keys and text fields of text.

    Example
    -------
    >>> check_entry({"id": "rr.x"}, require=("id", "verdict"))
    Traceback (most recent call last):
    ...
    ValueError: c has no 'verdict' (a claim entry needs id, verdict)
    """
    _check_keys(require)
    if not isinstance(c, Mapping):
        raise TypeError(f"{name} must be a claim entry (a mapping), got {type(c).__name__}")
    for key in require:
        if key not in c:
            raise ValueError(f"{name} has no {key!r} (a claim entry needs {', '.join(require)})")
    for key in ENTRY_TEXT:
        v = c.get(key)
        if v is not None and not isinstance(v, str):
            raise TypeError(f"{name}[{key!r}] must be text, got {type(v).__name__}")
    parts = c.get("source_parts")
    if parts is not None and not isinstance(parts, Mapping):
        raise TypeError(f"{name}['source_parts'] must be a mapping, got {type(parts).__name__}")
    ev = c.get("evidence")
    if ev is not None and not isinstance(ev, Mapping):
        raise TypeError(f"{name}['evidence'] must be a mapping, got {type(ev).__name__}")
    return c


def check_document(doc: Any, name: str = "doc", *, require: Sequence[str] = ("id",)) -> Mapping[str, Any]:
    """A report document: a mapping whose ``claims`` (if present) are entries (:func:`check_entry`).

    ``require`` lists the keys every entry must hold (readers that rebuild results need the
    verdicts: ``("id", "method", "expected", "verdict")``).
    """
    _check_keys(require)
    if not isinstance(doc, Mapping):
        raise TypeError(f"{name} must be a report document (a mapping), got {type(doc).__name__}")
    if "claims" not in doc:
        raise ValueError(f"{name} has no 'claims' (a report document lists its claim entries there)")
    claims = doc["claims"]
    if isinstance(claims, (str, bytes, Mapping)) or not isinstance(claims, Sequence):
        raise TypeError(f"{name}['claims'] must be a list of claim entries, got {type(claims).__name__}")
    for i, c in enumerate(claims):
        check_entry(c, f"{name}['claims'][{i}]", require=require)
    ids = [c["id"] for c in claims if "id" in c]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{name}['claims'] holds an id twice")
    for key in _MAPPINGS:
        v = doc.get(key)
        if v is not None and not isinstance(v, Mapping):
            raise TypeError(f"{name}[{key!r}] must be a mapping, got {type(v).__name__}")
    t = doc.get("total_seconds")
    if t is not None and (isinstance(t, bool) or not isinstance(t, numbers.Real) or not math.isfinite(t) or t < 0):
        raise ValueError(f"{name}['total_seconds'] must be a number of seconds >= 0, got {t!r}")
    return doc
