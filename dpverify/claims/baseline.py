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

``dpverify verify --baseline`` and ``pytest --dpverify-baseline`` both judge a run with
:func:`check_baseline`, so they compare the same keys with the same tolerances: every run
whose key the baseline records is compared; a run the baseline does not record is a
difference, except a thorough run (``id[thorough]``) when the baseline records no thorough
run at all (it was written without the long sweeps): that run is *not recorded*, said once,
and is no failure.  A passing gate says ``baseline: N claims match``.

Example
-------
>>> base = {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0}}}
>>> drift(base, {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0 + 1e-12}}})
[]
>>> drift(base, {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.5}}})
['a.x: evidence d moved from 1.0 to 1.5 (relative change 0.5)']
>>> run = {"a.x": base["a.x"], "a.x[thorough]": base["a.x"]}
>>> check_baseline(base, run).summary()
'baseline: 1 claim matches (rtol 1e-06, atol 1e-09); 1 thorough run not recorded in the baseline'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from dpverify.claims.checks import check_mapping, check_text
from dpverify.claims.drift import DEFAULT_ATOL, DEFAULT_RTOL, compare_reports
from dpverify.validation import check_bool, check_path, check_real

__all__ = ["DEFAULT_ATOL", "DEFAULT_RTOL", "BaselineCheck", "baseline_key", "check_baseline", "drift", "entry_of",
           "load_baseline", "records_thorough", "write_baseline"]

_THOROUGH = "[thorough]"


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


def records_thorough(baseline: Mapping[str, Any]) -> bool:
    """Whether the baseline records any thorough run (a key ending in ``[thorough]``)."""
    check_mapping(baseline, "baseline")
    return any(isinstance(k, str) and k.endswith(_THOROUGH) for k in baseline)


@dataclass(frozen=True)
class BaselineCheck:
    """A run judged against a baseline (:func:`check_baseline`).

    ``matched``: keys whose verdict and evidence match; ``differences``: ``(key, line)`` per
    difference (:func:`drift`'s lines); ``missing``: keys the baseline should record but
    does not; ``unrecorded``: thorough runs of a baseline that records none (no failure).
    """

    matched: tuple[str, ...]
    differences: tuple[tuple[str, str], ...]
    missing: tuple[str, ...]
    unrecorded: tuple[str, ...]
    rtol: float
    atol: float

    def __post_init__(self) -> None:
        for name in ("matched", "missing", "unrecorded"):
            v = getattr(self, name)
            if not isinstance(v, tuple) or not all(isinstance(k, str) for k in v):
                raise TypeError(f"{name} must be a tuple of baseline keys (str), got {v!r}")
        if not isinstance(self.differences, tuple) or not all(
                isinstance(d, tuple) and len(d) == 2 and all(isinstance(x, str) for x in d) for d in self.differences):
            raise TypeError(f"differences must be a tuple of (key, line) pairs, got {self.differences!r}")
        for name in ("rtol", "atol"):
            object.__setattr__(self, name, check_real(getattr(self, name), name, nonneg=True))

    @property
    def ok(self) -> bool:
        """True when nothing differs and nothing is missing."""
        return not self.differences

    def summary(self) -> str:
        """One line: ``baseline: N claims match (rtol …, atol …)``, or how many differ."""
        n = len(self.matched)
        tol = f"(rtol {self.rtol:g}, atol {self.atol:g})"
        if self.ok:
            text = f"baseline: {n} {'claim matches' if n == 1 else 'claims match'} {tol}"
        else:
            bad = len({k for k, _ in self.differences})
            text = (f"baseline: {bad} {'claim differs' if bad == 1 else 'claims differ'} from the baseline {tol}, "
                    f"{n} match")
        if self.unrecorded:
            k = len(self.unrecorded)
            text += f"; {k} thorough {'run' if k == 1 else 'runs'} not recorded in the baseline"
        return text

    def headline(self, claim_id: str, path: str) -> str:
        """The first line of one claim's failure: what is wrong (not in the baseline, or what changed)."""
        if self.missing:
            return f"claim {claim_id}: not in the baseline {path} (add it with the update-baseline option)"
        changed = any(" verdict changed from " in ln or " expected changed from " in ln for _, ln in self.differences)
        what = "its verdict changed" if changed else "its evidence moved beyond the tolerance"
        return f"claim {claim_id}: {what} since the baseline {path}"


def check_baseline(baseline: Mapping[str, Mapping[str, Any]], current: Mapping[str, Mapping[str, Any]], *,
                   rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> BaselineCheck:
    """Judge ``current`` (key → :func:`entry_of`) against ``baseline``: the rule of both gates.

    A thorough key (``id[thorough]``) that the baseline lacks is *unrecorded* (no failure)
    when the baseline records no thorough run; any other key it lacks is *missing*
    (a difference).  Every other key is compared by :func:`drift` with ``rtol``/``atol``.

    Example
    -------
    >>> base = {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0}}}
    >>> c = check_baseline(base, {"a.y": base["a.x"]})
    >>> c.ok, c.missing, c.headline("a.y", "b.json")
    (False, ('a.y',), 'claim a.y: not in the baseline b.json (add it with the update-baseline option)')
    """
    check_mapping(baseline, "baseline", of_mappings=True)
    check_mapping(current, "current", of_mappings=True)
    thorough_recorded = records_thorough(baseline)
    unrecorded = tuple(sorted(k for k in current
                              if k not in baseline and k.endswith(_THOROUGH) and not thorough_recorded))
    per_key = {k: drift(baseline, {k: current[k]}, rtol=rtol, atol=atol)
               for k in sorted(current) if k not in unrecorded}
    missing = tuple(k for k in per_key if k not in baseline)
    matched = tuple(k for k, lines in per_key.items() if not lines)
    return BaselineCheck(matched, tuple((k, ln) for k, lines in per_key.items() for ln in lines),
                         missing, unrecorded, float(rtol), float(atol))
