"""Every proof document executes, keeps its four sections, and quotes the code exactly."""

from pathlib import Path

import pytest

from dpverify.proofdocs import Block, all_documents, check_quote, document_name, parse_blocks, run_document
from dpverify.rooms import proof_path

ROOT = Path(__file__).resolve().parent.parent
DOCS = all_documents(ROOT)


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_proof_document_runs(doc):
    run_document(doc, ROOT)


def test_there_are_proof_documents():
    assert DOCS, "no proof documents found under dpverify/*/proofs/"


def test_every_document_is_found_by_its_name():
    """``"<room>/<file>.md"`` resolves (:func:`dpverify.rooms.proof_path`) to the document of that name."""
    assert [proof_path(document_name(d)) for d in DOCS] == [d.resolve() for d in DOCS]


def test_every_claim_proof_exists():
    from dpverify.claims import all_claims

    missing = [(c.id, c.proof) for c in all_claims() if c.proof and proof_path(c.proof) is None]
    assert not missing, f"claims point at missing proof documents: {missing}"


def test_quote_detects_drift(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("x = 1  # proof: lab\ny = 2\n")
    good = Block("quote", "m.py:lab", "x = 1\n", 1)
    check_quote(good, tmp_path)
    bad = Block("quote", "m.py:lab", "x = 2\n", 1)
    with pytest.raises(AssertionError, match="drifted"):
        check_quote(bad, tmp_path)
    missing = Block("quote", "m.py:nolabel", "x = 1\n", 1)
    with pytest.raises(AssertionError, match="no line labelled"):
        check_quote(missing, tmp_path)


def test_failing_step_fails_document(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text(
        "## Statement\n## Assumptions\n## Derivation\n```python\nassert 1 == 2, 'step'\n```\n## What the code relies on\n"
    )
    with pytest.raises(AssertionError, match="step"):
        run_document(doc, tmp_path)


def test_sections_enforced(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("## Derivation\n## Statement\n## Assumptions\n## What the code relies on\n")
    with pytest.raises(AssertionError, match="out of order"):
        run_document(doc, tmp_path)
    assert [b.kind for b in parse_blocks("```python\n1\n```\n```text\nx\n```\n")] == ["python"]


def test_proof_links_are_complete():
    """Every ``proven`` marker names an existing document; every ``# proof:`` label is quoted by some
    proof; every proof document is cited by a claim (``Claim.proof``) or a ``proven`` function."""
    from dpverify.claims import all_claims
    from dpverify.proofdocs import labelled_lines_all, proven_references

    marks = proven_references(ROOT)
    assert marks, "no function carries a proven(...) marker"
    missing = [(f, fn, d) for f, fn, d in marks if proof_path(d) is None]
    assert not missing, f"proven() names documents that do not exist: {missing}"

    quoted = set()
    for doc in DOCS:
        for b in parse_blocks(doc.read_text(encoding="utf-8")):
            if b.kind == "quote":
                path, _, label = b.arg.rpartition(":")
                quoted.add((path, label))
    unquoted = [x for x in labelled_lines_all(ROOT) if x not in quoted]
    assert not unquoted, f"labelled lines quoted by no proof (quote them or remove the stale label): {unquoted}"

    cited = {c.proof for c in all_claims() if c.proof} | {d for _, _, d in marks}
    uncited = [document_name(d) for d in DOCS if document_name(d) not in cited]
    assert not uncited, f"proof documents cited by no claim and no proven() function: {uncited}"


def test_proven_marker_and_its_checks(tmp_path):
    from dpverify.proofdocs import proven, proven_references

    @proven("a/x.md")
    @proven("a/y.md")
    def f():
        return 1

    assert f() == 1 and f.__proofs__ == ("a/y.md", "a/x.md")
    for bad in ((), ("x.md",), ("a/x.txt",), ("a/b/x.md",), (3,)):
        with pytest.raises(ValueError):
            proven(*bad)
    (tmp_path / "dpverify").mkdir()
    (tmp_path / "dpverify" / "m.py").write_text('@proven("z/y.md")\ndef g():\n    pass\n')
    assert proven_references(tmp_path) == [("dpverify/m.py", "g", "z/y.md")]


def test_shipped_room_functions_carry_their_proofs():
    from dpverify.audit.exact import hockey_stick
    from dpverify.primitives.sampling import discrete_laplace

    assert "audit/hockey_stick.md" in hockey_stick.__proofs__
    assert "primitives/discrete_laplace_sampler.md" in discrete_laplace.__proofs__


def test_one_spelling_of_proof_names():
    """A proof is named ``"<room>/<file>.md"``, never ``"proofs/<room>/<file>.md"``: no source, proof document,
    doc page or notebook of the project keeps the old spelling (a file path is ``dpverify/<room>/proofs/<file>.md``)."""
    import re

    from dpverify.proofdocs import proven

    old = re.compile(r"(?<![\w/])proofs/[A-Za-z_]\w*/[\w.\-]+\.md")
    files = [*(ROOT / "dpverify").rglob("*.py"), *(ROOT / "dpverify").rglob("*.md"),
             *(ROOT / "docs").glob("*.md"), *(ROOT / "notebooks").glob("*.ipynb")]
    left = [f"{f.relative_to(ROOT)}:{i}: {m.group(0)}" for f in files
            for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) for m in old.finditer(line)]
    assert not left, "old proof spelling 'proofs/<room>/...' (write '<room>/<file>.md'):\n" + "\n".join(left)
    with pytest.raises(ValueError, match="<room>/<file>.md"):
        proven("proofs/audit/selection.md")


@pytest.mark.slow
def test_wheel_ships_the_proofs(tmp_path):
    """``pip wheel .`` ships every room's proofs/ as package data, for ``dpverify report``."""
    import subprocess
    import sys
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(ROOT), "-w", str(tmp_path)],
                   check=True, capture_output=True)
    (whl,) = tmp_path.glob("dpverify-*.whl")
    names = set(zipfile.ZipFile(whl).namelist())
    for doc in DOCS:
        assert doc.relative_to(ROOT).as_posix() in names, doc
    from dpverify.claims.traceability import table_paths  # the rooms' traceability tables too

    for table in table_paths().values():
        assert table.relative_to(ROOT).as_posix() in names, table
    assert any(n.endswith("entry_points.txt") for n in names)
