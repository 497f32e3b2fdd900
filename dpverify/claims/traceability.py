"""The traceability table: every checkable statement of each paper → the claims that check it.

One JSON file per paper ships with the package (``traceability_<seed>.json`` beside this module):
``{"paper": "000", "title": ..., "rows": [{"ref", "text", "claims": [...], "reason"?}]}``.
``ref`` is the paper's own numbering (definition, theorem, equation, algorithm, figure) or, for
unnumbered text, the section with a short quote; ``claims`` the ids of the claims whose checks test the
statement as printed; ``reason`` why a statement without claims cannot be checked.
``tests/test_traceability.py`` fails when a paper's claim is in no row of its paper, a row names an
unknown claim, or a row has neither claims nor a reason.

Example
-------
>>> rows = load_table()
>>> sorted({r.paper for r in rows})
['000', '001', '002', '003', '004']
>>> all(r.claim_ids or r.reason for r in rows)
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Row", "PAPERS", "load_table", "counts", "rows_for_claim"]

#: the seeds with a table, in report order
PAPERS = ("000", "004", "003", "001", "002")


@dataclass(frozen=True)
class Row:
    """One checkable statement of a paper and how it is covered.

    ``claim_ids`` is empty exactly when ``reason`` says why the statement cannot be checked.

    Example
    -------
    >>> Row("000", "Thm 5.1", "‖M_N‖₁ = ⌊log₂N⌋ + 1", ("continual.thm5.1",), "").covered
    True
    """

    paper: str
    ref: str
    text: str
    claim_ids: tuple[str, ...]
    reason: str

    @property
    def covered(self) -> bool:
        return bool(self.claim_ids)


def _path(paper: str) -> Path:
    return Path(__file__).with_name(f"traceability_{paper}.json")


def load_table(papers=PAPERS) -> list[Row]:
    """All rows of the given papers' tables (default: every paper), in file order.

    Example
    -------
    >>> any(r.ref == "Thm 5.1" for r in load_table(["000"]))
    True
    """
    out: list[Row] = []
    for paper in papers:
        if not isinstance(paper, str) or not _path(paper).is_file():
            raise ValueError(f"no traceability table for paper {paper!r}; known: {', '.join(PAPERS)}")
        data = json.loads(_path(paper).read_text(encoding="utf-8"))
        if data.get("paper") != paper:
            raise ValueError(f"traceability_{paper}.json names paper {data.get('paper')!r}")
        for r in data["rows"]:
            out.append(Row(paper, r["ref"], r["text"], tuple(r.get("claims", ())), r.get("reason", "")))
    return out


def counts(rows: list[Row] | None = None) -> dict[str, dict[str, int]]:
    """Per paper: ``statements``, ``covered`` (by ≥ 1 claim) and ``reasons`` (not checkable, with why).

    Example
    -------
    >>> c = counts()
    >>> all(v["statements"] == v["covered"] + v["reasons"] for v in c.values())
    True
    """
    rows = load_table() if rows is None else rows
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        d = out.setdefault(r.paper, {"statements": 0, "covered": 0, "reasons": 0})
        d["statements"] += 1
        d["covered" if r.covered else "reasons"] += 1
    return out


def rows_for_claim(claim_id: str, rows: list[Row] | None = None) -> list[Row]:
    """The statements a claim checks.

    Example
    -------
    >>> "§5.4.2, M₃ example" in [r.ref for r in rows_for_claim("continual.m3_example")]
    True
    """
    rows = load_table() if rows is None else rows
    return [r for r in rows if claim_id in r.claim_ids]
