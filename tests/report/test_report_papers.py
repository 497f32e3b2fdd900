"""Seed ids → paper sections, and the provenance helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpverify.report.papers import PAPERS, paper_for_seed, papers_from_spec
from dpverify.rooms import room
from dpverify.report.provenance import collect_provenance, find_seeds, git_revision

SPEC = Path(__file__).resolve().parents[3] / "shared" / "SPEC.md"  # shared/ beside the source tree


def test_table_matches_spec():
    """The rooms' papers equal SPEC.md's seed table (when SPEC.md is at hand): same seeds, files and
    citations; SPEC's room column names the claims' namespace, which the declaring room registers
    (paper 002's claims keep the ids ``primitives.*`` in the ``survey`` room)."""
    if not SPEC.is_file():
        pytest.skip(f"{SPEC} not present: nothing to compare the seed table with")
    spec = papers_from_spec(SPEC)
    assert {k: (p.title, p.seed_file) for k, p in spec.items()} == {
        k: (p.title, p.seed_file) for k, p in PAPERS.items()}
    for k, p in spec.items():
        assert p.room in room(PAPERS[k].room).namespaces, (k, p.room, PAPERS[k].room)


def test_papers_from_spec_parses_a_table(tmp_path):
    spec = tmp_path / "SPEC.md"
    spec.write_text("| seed file | paper | room |\n|---|---|---|\n"
                    "| `007_abc.txt` | Doe, *A title* — remark | `rr` |\nnot a | row\n")
    got = papers_from_spec(spec)
    assert list(got) == ["007"]
    assert got["007"].title == "Doe, A title" and got["007"].room == "rr" and got["007"].seed_file == "007_abc.txt"


@pytest.mark.parametrize("seed", ["004", "4", " 004 ", "004_2063bbaa5f69f7be.txt", "004.txt"])
def test_seed_spellings(seed):
    assert paper_for_seed(seed) is PAPERS["004"]


@pytest.mark.parametrize("seed", ["seed-x", "", "dpverify", "9", "004x"])
def test_unknown_seed_gets_own_section(seed):
    p = paper_for_seed(seed)
    assert not p.known and p.key == (seed.strip() or "(no seed)")


def test_validation():
    with pytest.raises(TypeError, match="seed"):
        paper_for_seed(4)
    with pytest.raises(TypeError, match="evidence"):
        find_seeds([1])
    with pytest.raises(TypeError, match="command"):
        collect_provenance(command=3)


def test_seeds_and_git(tmp_path):
    assert find_seeds({"seed": 1, "rng_seeds": [1, 2], "sub": {"Seed": 3, "x": 4}, "x": 5}) == {
        "seed": 1, "rng_seeds": [1, 2], "sub.Seed": 3}
    assert git_revision(tmp_path) == {"revision": "unknown", "dirty": None}  # not a checkout
    rev = collect_provenance(command="c")["git_revision"]
    assert rev == "unknown" or len(rev) == 40
