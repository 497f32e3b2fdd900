"""The versioned envelope of ``dpverify verify --json --json-envelope``: results with a summary.

``verify --json`` prints a bare list of results (:func:`dpverify.claims.result_to_json`);
with ``--json-envelope`` it prints one object instead::

    {
      "schema": "dpverify-verify/1",          # this format; bumped when a field changes incompatibly
      "dpverify_version": "0.1.0",
      "created_utc": "2026-11-26T07:00:00+00:00",
      "command": "dpverify verify --json --json-envelope my_claims.py",
      "summary": {"total": 2, "counts": {"holds": 2, ...}, "as_expected": true,
                  "differ_from_expected": [], "seconds": 0.4},
      "results": [ ...one object per claim, as in the bare list... ]
    }

The JSON Schema of that object ships with the package (:func:`schema`, the file
``verify_envelope.schema.json`` next to this module) and is checked against real output
by the tests.

Example
-------
>>> env = envelope([{"id": "a.x", "verdict": "holds", "expected": "holds", "as_expected": True}],
...                command="dpverify verify --json --json-envelope", seconds=0.25)
>>> env["schema"], env["summary"]["total"], env["summary"]["counts"]["holds"], env["summary"]["as_expected"]
('dpverify-verify/1', 1, 1, True)
>>> schema()["$id"]
'urn:dpverify:schema:verify:1'
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence

from dpverify.validation import check_real

__all__ = ["SCHEMA_ID", "SCHEMA_NAME", "VERDICTS", "envelope", "schema", "schema_path"]

#: The ``schema`` field of every envelope of this format.
SCHEMA_NAME = "dpverify-verify/1"
#: The ``$id`` of the shipped JSON Schema.
SCHEMA_ID = "urn:dpverify:schema:verify:1"
#: The verdicts, in the order the summary counts them.
VERDICTS = ("holds", "erratum", "refuted", "inconclusive", "error")


def schema_path() -> Path:
    """The shipped JSON Schema file of the envelope."""
    return Path(__file__).with_name("verify_envelope.schema.json")


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :func:`envelope`'s output, read from the package."""
    return json.loads(schema_path().read_text(encoding="utf-8"))


def envelope(results: Sequence[Mapping[str, Any]], *, command: str, seconds: float,
             created: datetime | None = None) -> dict[str, Any]:
    """Wrap results in their ``--json`` form in the versioned envelope.

    Parameters
    ----------
    results : sequence of mapping
        One :func:`dpverify.claims.result_to_json` object per claim (each needs ``id``,
        ``verdict``, ``expected``).
    command : str
        The command line that made them.
    seconds : float
        Wall time of the run, >= 0.
    created : datetime, optional
        When the run started (default: now, UTC); a naive datetime is refused.
    """
    if isinstance(results, (str, bytes, Mapping)) or not isinstance(results, Sequence):
        raise TypeError(f"results must be a list of result objects, got {type(results).__name__}")
    for i, r in enumerate(results):
        if not isinstance(r, Mapping) or not all(isinstance(r.get(k), str) for k in ("id", "verdict", "expected")):
            raise ValueError(f"results[{i}] must be a result's --json form (with text id, verdict and expected)")
        if r["verdict"] not in VERDICTS:
            raise ValueError(f"results[{i}] has the unknown verdict {r['verdict']!r}")
    if not isinstance(command, str):
        raise TypeError(f"command must be text, got {type(command).__name__}")
    seconds = check_real(seconds, "seconds", nonneg=True)
    if created is None:
        created = datetime.now(timezone.utc)
    if not isinstance(created, datetime) or created.tzinfo is None:
        raise ValueError(f"created must be a timezone-aware datetime, got {created!r}")
    from dpverify import __version__

    differ = [r["id"] for r in results if not r.get("as_expected", r["verdict"] == r["expected"])]
    return {
        "schema": SCHEMA_NAME,
        "dpverify_version": __version__,
        "created_utc": created.astimezone(timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "summary": {
            "total": len(results),
            "counts": {v: sum(1 for r in results if r["verdict"] == v) for v in VERDICTS},
            "as_expected": not differ,
            "differ_from_expected": differ,
            "seconds": round(float(seconds), 3),
        },
        "results": [dict(r) for r in results],
    }
