"""The traceability table: every checkable statement of each paper → the claims that check it.

Each room keeps the table of each paper it declares (:class:`dpverify.rooms.Paper`) beside its code,
``<room folder>/traceability_<key>.json`` (shipped as package data), so a new paper's room needs no
edit here: ``{"paper": "000", "title": ..., "rows": [{"ref", "text", "claims": [...], "reason"?}]}``.
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

from dpverify.claims.checks import check_items
from dpverify.rooms import rooms

__all__ = ["Row", "PAPERS", "load_table", "counts", "rows_for_claim", "table_paths"]


def table_paths() -> dict[str, Path]:
    """Paper key → its table, for every paper a room declares and keeps a table of (rooms in their order).

    Example
    -------
    >>> table_paths()["003"].relative_to(table_paths()["003"].parents[1]).as_posix()
    'rr/traceability_003.json'
    """
    out: dict[str, Path] = {}
    for r in rooms():
        for p in r.papers:
            f = None if r.path is None else Path(r.path) / f"traceability_{p.key}.json"
            if f is not None and f.is_file():
                out.setdefault(p.key, f)
    return out


#: the papers with a table (those of the rooms found when this module was imported)
PAPERS = tuple(table_paths())


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


def load_table(papers=None) -> list[Row]:
    """All rows of the given papers' tables (default: every paper with a table), in file order.

    Example
    -------
    >>> any(r.ref == "Thm 5.1" for r in load_table(["000"]))
    True
    """
    paths = table_paths()
    out: list[Row] = []
    for paper in paths if papers is None else papers:
        if not isinstance(paper, str) or paper not in paths:
            raise ValueError(f"no traceability table for paper {paper!r}; known: {', '.join(paths)}")
        data = json.loads(paths[paper].read_text(encoding="utf-8"))
        if data.get("paper") != paper:
            raise ValueError(f"{paths[paper]} names paper {data.get('paper')!r}")
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
    if not isinstance(claim_id, str):
        raise TypeError(f"claim_id must be a string, got {claim_id!r} of type {type(claim_id).__name__}")
    rows = load_table() if rows is None else check_items(rows, Row, "rows")
    return [r for r in rows if claim_id in r.claim_ids]
