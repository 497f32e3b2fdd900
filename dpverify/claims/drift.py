"""What changed between two report runs: verdicts, claims added or removed, evidence that moved.

The one drift comparison of the library, used by ``dpverify verify --baseline``
(:func:`dpverify.claims.baseline.drift`), the pytest plugin's ``--dpverify-baseline`` and
``dpverify report --baseline`` / ``--compare``.

Evidence is compared leaf by leaf: numbers (also fractions, ``"inf"``/``"nan"``)
move when they differ by more than ``atol + rtol·|old|`` (defaults :data:`DEFAULT_RTOL`
= 1e-6 and :data:`DEFAULT_ATOL` = 1e-9: seeded checks reproduce to rounding, not beyond);
formulas change when their sympy text differs; other strings (messages) are not compared.

Example
-------
>>> old = {"claims": [{"id": "a.x", "verdict": "holds", "expected": "holds", "evidence": {"d": 1.0}}]}
>>> new = {"claims": [{"id": "a.x", "verdict": "refuted", "expected": "holds", "evidence": {"d": 2.0}},
...                   {"id": "a.y", "verdict": "holds", "expected": "holds", "evidence": {}}]}
>>> [(ch.kind, ch.claim_id, ch.field) for ch in compare_reports(old, new).changes]
[('verdict', 'a.x', 'verdict'), ('evidence', 'a.x', 'd'), ('new', 'a.y', '')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from dpverify.validation import check_real

__all__ = ["DEFAULT_ATOL", "DEFAULT_RTOL", "Change", "Comparison", "compare_reports", "flatten_evidence"]

#: Default tolerances of every drift comparison: seeded checks reproduce to rounding, not beyond.
DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9

_KIND_ORDER = {"verdict": 0, "expected": 1, "removed": 2, "evidence": 3, "new": 4}


@dataclass(frozen=True)
class Change:
    """One difference. ``kind``: verdict | expected | new | removed | evidence.

    For ``evidence``, ``field`` is the dotted path of the leaf (``a.b[2]``)
    and ``rel_change`` the relative change of a number (None otherwise).
    """

    kind: str
    claim_id: str
    field: str = ""
    old: Any = None
    new: Any = None
    rel_change: float | None = None


@dataclass(frozen=True)
class Comparison:
    """All changes between an old and a new run, verdict changes first."""

    changes: tuple[Change, ...]
    old_provenance: Mapping[str, Any]
    new_provenance: Mapping[str, Any]
    compared: int

    def of_kind(self, kind: str) -> list[Change]:
        return [c for c in self.changes if c.kind == kind]

    @property
    def verdict_changed(self) -> bool:
        return any(c.kind == "verdict" for c in self.changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "compared": self.compared,
            "counts": {k: len(self.of_kind(k)) for k in _KIND_ORDER},
            "changes": [
                {"kind": c.kind, "claim": c.claim_id, "field": c.field, "old": c.old, "new": c.new,
                 "rel_change": c.rel_change}
                for c in self.changes
            ],
            "old": {k: self.old_provenance.get(k) for k in ("git_revision", "started_utc", "command")},
            "new": {k: self.new_provenance.get(k) for k in ("git_revision", "started_utc", "command")},
        }


def _as_number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    if isinstance(v, Mapping) and set(v) == {"fraction", "float"}:
        return _as_number(v["float"])
    return None


def flatten_evidence(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Leaves of JSON evidence as ``(path, leaf)``; a formula or a fraction is one leaf.

    Example
    -------
    >>> list(flatten_evidence({"a": [1, {"b": 2.5}]}))
    [('a#len', 2), ('a[0]', 1), ('a[1].b', 2.5)]
    """
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a string, got {prefix!r} of type {type(prefix).__name__}")
    return _flatten(value, prefix)


def _flatten(value: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping) and not (set(value) in ({"sympy", "latex"}, {"fraction", "float"})):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list):
        yield f"{prefix}#len", len(value)
        for i, v in enumerate(value):
            yield from _flatten(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


def _moved(a: float, b: float, rtol: float, atol: float) -> tuple[bool, float | None]:
    if math.isnan(a) or math.isnan(b):
        return (math.isnan(a) != math.isnan(b)), None
    if math.isinf(a) or math.isinf(b):
        return a != b, None
    diff = abs(b - a)
    rel = diff / abs(a) if a != 0 else (math.inf if diff else 0.0)
    return diff > atol + rtol * abs(a), rel


def compare_reports(old: Mapping[str, Any], new: Mapping[str, Any], *, rtol: float = DEFAULT_RTOL,
                    atol: float = DEFAULT_ATOL) -> Comparison:
    """Compare two report documents (the content of two ``report.json`` files).

    Parameters
    ----------
    old, new : mapping
        Report documents (see :func:`dpverify.report.load_report`).
    rtol, atol : float
        A number moved when ``|new − old| > atol + rtol·|old|``.
    """
    for name, d in (("old", old), ("new", new)):
        _check_document(d, name)
    rtol = check_real(rtol, "rtol", nonneg=True)
    atol = check_real(atol, "atol", nonneg=True)
    o = {c["id"]: c for c in old["claims"]}
    n = {c["id"]: c for c in new["claims"]}
    changes: list[Change] = []
    for cid in sorted(set(o) | set(n)):
        if cid not in n:
            changes.append(Change("removed", cid, "", o[cid].get("verdict"), None))
            continue
        if cid not in o:
            changes.append(Change("new", cid, "", None, n[cid].get("verdict")))
            continue
        a, b = o[cid], n[cid]
        if a.get("verdict") != b.get("verdict"):
            changes.append(Change("verdict", cid, "verdict", a.get("verdict"), b.get("verdict")))
        if a.get("expected") != b.get("expected"):
            changes.append(Change("expected", cid, "expected", a.get("expected"), b.get("expected")))
        ea = dict(flatten_evidence(a.get("evidence") or {}))
        eb = dict(flatten_evidence(b.get("evidence") or {}))
        for path in sorted(set(ea) | set(eb)):
            va, vb = ea.get(path), eb.get(path)
            if path not in ea or path not in eb:
                if _comparable(va) or _comparable(vb):
                    changes.append(Change("evidence", cid, path, va, vb))
                continue
            xa, xb = _as_number(va), _as_number(vb)
            if xa is not None and xb is not None:
                moved, rel = _moved(xa, xb, rtol, atol)
                if moved:
                    changes.append(Change("evidence", cid, path, va, vb, rel))
            elif isinstance(va, Mapping) and "sympy" in va or isinstance(vb, Mapping) and "sympy" in vb:
                sa = va.get("sympy") if isinstance(va, Mapping) else va
                sb = vb.get("sympy") if isinstance(vb, Mapping) else vb
                if sa != sb:
                    changes.append(Change("evidence", cid, path, sa, sb))
            elif (xa is None) != (xb is None) or isinstance(va, bool) and va != vb:
                changes.append(Change("evidence", cid, path, va, vb))
    changes.sort(key=lambda c: _KIND_ORDER[c.kind])  # stable: claims stay in id order within a kind
    return Comparison(tuple(changes), dict(old.get("provenance") or {}), dict(new.get("provenance") or {}),
                      len(set(o) & set(n)))


def _check_document(d: Any, name: str) -> None:
    """A report document as :func:`compare_reports` reads it: a 'claims' list of entries with text ids."""
    if not isinstance(d, Mapping) or not isinstance(d.get("claims"), list):
        raise ValueError(f"{name} must be a report document with a 'claims' list")
    if d.get("provenance") is not None and not isinstance(d["provenance"], Mapping):
        raise ValueError(f"{name}['provenance'] must be a mapping, got {type(d['provenance']).__name__}")
    for i, c in enumerate(d["claims"]):
        if not isinstance(c, Mapping):
            raise ValueError(f"{name}['claims'][{i}] must be a mapping (a claim's entry), got {type(c).__name__}")
        if not isinstance(c.get("id"), str):
            raise ValueError(f"{name}['claims'][{i}] must have a text 'id', got {c.get('id')!r}")


def _comparable(v: Any) -> bool:
    return _as_number(v) is not None or isinstance(v, (bool, Mapping))
