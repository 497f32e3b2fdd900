"""Every proof document executes, keeps its four sections, and quotes the code exactly."""

from pathlib import Path

import pytest

from dpverify.proofdocs import Block, all_documents, check_quote, parse_blocks, run_document

ROOT = Path(__file__).resolve().parent.parent
DOCS = all_documents(ROOT)


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_proof_document_runs(doc):
    run_document(doc, ROOT)


def test_there_are_proof_documents():
    assert DOCS, "no proof documents found under proofs/"


def test_every_claim_proof_exists():
    from dpverify.claims import all_claims

    missing = [(c.id, c.proof) for c in all_claims() if c.proof and not (ROOT / "proofs" / c.proof).is_file()]
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
