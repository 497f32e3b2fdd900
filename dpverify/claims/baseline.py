"""Evidence baselines: a committed JSON file that a run's verdicts and evidence must still match.

The file maps each claim key to its verdict, expected verdict and evidence::

    {
      "gaussian.delta_formula": {"evidence": {...}, "expected": "holds", "verdict": "holds"},
      "gaussian.delta_formula[thorough]": {...}
    }

A key is the claim id, with ``[thorough]`` appended for a thorough run.  The
text is sorted and indented (one claim per top-level key), so a change shows
as a readable diff in review.  :func:`drift` compares a run with the baseline
through :func:`dpverify.claims.drift.compare_reports`, the one drift comparison (numbers
move when ``|new − old| > atol + rtol·|old|``, by default rtol 1e-6 and atol 1e-9;
formulas when their text changes).
Only :func:`write_baseline` writes the file (atomically), and only the update
commands call it.

Example
-------
>>> base = {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0}}}
>>> drift(base, {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0 + 1e-12}}})
[]
>>> drift(base, {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.5}}})
['a.x: evidence d moved from 1.0 to 1.5 (relative change 0.5)']
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from dpverify.claims.checks import check_mapping, check_text
from dpverify.claims.drift import DEFAULT_ATOL, DEFAULT_RTOL, compare_reports
from dpverify.validation import check_bool, check_path

__all__ = ["DEFAULT_ATOL", "DEFAULT_RTOL", "baseline_key", "drift", "entry_of", "load_baseline", "write_baseline"]


def baseline_key(claim_id: str, thorough: bool = False) -> str:
    """The baseline key of a claim's run (``id`` or ``id[thorough]``)."""
    check_text(claim_id, "claim_id")
    thorough = check_bool(thorough, "thorough")
    return f"{claim_id}[thorough]" if thorough else claim_id


def entry_of(result_json: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a result (its ``--json`` form) that a baseline keeps."""
    check_mapping(result_json, "result_json")
    for key in ("verdict", "expected"):
        if key not in result_json:
            raise ValueError(f"result_json has no {key!r}: it is not a result's --json form (result_to_json)")
    return {"verdict": result_json["verdict"], "expected": result_json["expected"],
            "evidence": result_json.get("evidence") or {}}


def load_baseline(path: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """Read a baseline; a missing or malformed file is a one-line ``ValueError``."""
    p = check_path(path, "path")
    if not p.is_file():
        raise ValueError(f"baseline {str(p)!r} does not exist (write it with the update-baseline option)")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"baseline {str(p)!r} is not valid JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("verdict"), str) and isinstance(v.get("evidence", {}), dict)
        for v in data.values()
    ):
        raise ValueError(f"baseline {str(p)!r} is not a dpverify baseline "
                         "(expected an object mapping claim ids to {verdict, expected, evidence})")
    return data


def dumps(entries: Mapping[str, Any]) -> str:
    """The file text: sorted, indented, one claim per top-level key."""
    return json.dumps(dict(entries), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def write_baseline(path: str | os.PathLike, entries: Mapping[str, Mapping[str, Any]], *,
                   merge: bool = True) -> Path:
    """Write ``entries`` to the baseline atomically; with ``merge`` keep the other claims' entries.

    An existing file that is not a valid baseline is left alone (``ValueError``).
    """
    from dpverify.atomic import atomic_write_text, check_output_path

    check_path(path, "path")
    check_mapping(entries, "entries", of_mappings=True)
    merge = check_bool(merge, "merge")
    p = check_output_path(path, force=True, name="baseline")
    old = load_baseline(p) if merge and p.exists() else {}
    return atomic_write_text(p, dumps({**old, **entries}), force=True, name="baseline")


def drift(baseline: Mapping[str, Mapping[str, Any]], current: Mapping[str, Mapping[str, Any]], *,
          rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> list[str]:
    """One line per difference between ``current`` and the ``baseline`` entries of the same keys.

    A key of ``current`` missing from the baseline is a difference; baseline
    keys that were not run are not compared.
    """
    check_mapping(baseline, "baseline", of_mappings=True)
    check_mapping(current, "current", of_mappings=True)
    out = []
    for key in sorted(current):
        if key not in baseline:
            out.append(f"{key}: not in the baseline (add it with the update-baseline option)")
            continue
        old = {"claims": [{"id": key, **baseline[key]}]}
        new = {"claims": [{"id": key, **current[key]}]}
        for ch in compare_reports(old, new, rtol=rtol, atol=atol).changes:
            if ch.kind in ("verdict", "expected"):
                out.append(f"{key}: {ch.kind} changed from {ch.old} to {ch.new}")
            else:
                rel = f" (relative change {ch.rel_change:.3g})" if ch.rel_change is not None else ""
                out.append(f"{key}: evidence {ch.field} moved from {_short(ch.old)} to {_short(ch.new)}{rel}")
    return out


def _short(v: Any, width: int = 60) -> str:
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, (int, float)) or isinstance(v, bool) else repr(v)
    return s if len(s) <= width else s[: width - 1] + "…"
