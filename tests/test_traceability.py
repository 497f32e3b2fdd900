"""The traceability table covers every paper claim, names only real claims, and reaches 95 % coverage."""

from __future__ import annotations

import json

import pytest

from dpverify.claims import all_claims
from dpverify.claims.model import SELF_TEST
from dpverify.claims.traceability import PAPERS, Row, counts, load_table, rows_for_claim


@pytest.fixture(scope="module")
def rows():
    return load_table()


def test_every_paper_claim_checks_a_statement_of_its_own_paper(rows):
    """A claim citing a paper (source seed not the self-test) must name a statement of that paper's table."""
    by_paper = {}
    for r in rows:
        for cid in r.claim_ids:
            by_paper.setdefault(cid, set()).add(r.paper)
    missing = [(c.id, c.source.paper) for c in all_claims()
               if c.source.paper in PAPERS and c.source.paper not in by_paper.get(c.id, set())]
    assert not missing, f"claims whose statement is not in their paper's traceability table: {missing}"


def test_rows_name_only_registered_claims(rows):
    known = {c.id for c in all_claims()}
    unknown = [(r.paper, r.ref, cid) for r in rows for cid in r.claim_ids if cid not in known]
    assert not unknown, unknown


def test_self_test_claims_are_not_a_papers_finding(rows):
    """Self-test claims may be cited beside a statement, never as its only check."""
    self_ids = {c.id for c in all_claims() if c.source.paper == SELF_TEST}
    only_self = [(r.paper, r.ref) for r in rows if r.claim_ids and set(r.claim_ids) <= self_ids]
    assert not only_self, only_self


def test_every_row_has_claims_or_a_reason(rows):
    bad = [(r.paper, r.ref) for r in rows if not r.claim_ids and len(r.reason.strip()) < 20]
    assert not bad, f"statements with neither a claim nor a reason: {bad}"
    both = [(r.paper, r.ref) for r in rows if r.claim_ids and r.reason]
    assert not both, f"a covered statement carries a reason: {both}"


def test_refs_are_unique_per_statement(rows):
    keys = [(r.paper, r.ref, r.text) for r in rows]
    assert len(keys) == len(set(keys))


def test_coverage_at_least_95_percent(rows):
    c = counts(rows)
    total = sum(v["statements"] for v in c.values())
    covered = sum(v["covered"] for v in c.values())
    assert set(c) == set(PAPERS)
    assert covered / total >= 0.95, c


def test_counts_and_lookup_follow_the_rows():
    fake = [Row("000", "a", "x", ("c.one",), ""), Row("000", "b", "y", (), "cannot be checked because ..."),
            Row("001", "c", "z", ("c.one", "c.two"), "")]
    assert counts(fake) == {"000": {"statements": 2, "covered": 1, "reasons": 1},
                            "001": {"statements": 1, "covered": 1, "reasons": 0}}
    assert [r.ref for r in rows_for_claim("c.one", fake)] == ["a", "c"]


def test_unknown_paper_is_refused():
    with pytest.raises(ValueError, match="no traceability table"):
        load_table(["999"])


def test_each_room_keeps_the_tables_of_its_papers(repo_root):
    """The tables live in the rooms that declare the papers (no list of papers outside them)."""
    from dpverify.claims.traceability import table_paths
    from dpverify.rooms import rooms

    declared = {p.key: r for r in rooms() if r.shipped for p in r.papers}
    assert set(PAPERS) == set(declared) == {"000", "001", "002", "003", "004"}
    for key, path in table_paths().items():
        assert path == repo_root / "dpverify" / declared[key].name / f"traceability_{key}.json"
    assert not list((repo_root / "dpverify" / "claims").glob("traceability_*.json"))


def test_a_new_rooms_table_is_found(tmp_path, monkeypatch):
    """A room's paper with a ``traceability_<key>.json`` beside its code joins the table, with no edit elsewhere."""
    from dpverify import rooms as R
    from dpverify.claims.traceability import table_paths

    folder = tmp_path / "zzroom"
    folder.mkdir()
    (folder / "traceability_907.json").write_text(json.dumps(
        {"paper": "907", "title": "t", "rows": [{"ref": "Thm 1", "text": "x", "claims": ["zzroom.a"]}]}))
    new = R.Room(name="zzroom", papers=(R.Paper("907", "A title"),), path=folder)
    monkeypatch.setattr(R, "rooms", lambda **kw: (*R._all(), new))
    monkeypatch.setattr("dpverify.claims.traceability.rooms", R.rooms)
    assert table_paths()["907"] == folder / "traceability_907.json"
    assert [r.claim_ids for r in load_table(["907"])] == [("zzroom.a",)]


def test_tables_are_well_formed_json(repo_root):
    from dpverify.claims.traceability import table_paths

    for p, path in table_paths().items():
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["paper"] == p and data["title"] and data["rows"]
        for r in data["rows"]:
            assert set(r) <= {"ref", "text", "claims", "reason"} and r["ref"] and r["text"]
