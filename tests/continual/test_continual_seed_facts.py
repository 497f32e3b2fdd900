"""The seed-000 facts packaged for installs without the papers equal what the seed text gives."""

import pytest

from dpverify.claims import get_claim, run_claim
from dpverify.claims.seeds import seed_sha256, seed_text
from dpverify.continual.claims import packaged_reference_facts, reference_facts


def test_packaged_facts_match_seed():
    text = seed_text("000")
    if text is None:
        pytest.skip("seed 000 not available beside the source tree (set DPVERIFY_SEEDS)")
    packaged = packaged_reference_facts()
    assert packaged.pop("seed_sha256") == seed_sha256("000")
    assert packaged == reference_facts(text)


def test_claim_without_seed_uses_packaged_facts(monkeypatch):
    import dpverify.claims.seeds as seeds

    monkeypatch.setattr(seeds, "seed_text", lambda prefix: None)
    r = run_claim(get_claim("continual.erratum.proof_references"))
    assert r.verdict.value == "erratum"
    assert r.outcome.evidence["read_from"].startswith("facts packaged")


def test_facts_detect_a_corrected_text():
    fixed = "根据算法5.2,有 ... 当矩阵M为行满秩矩阵时"
    f = reference_facts(fixed)
    assert f["citations_of_alg_5.4"] == 0 and f["mentions_of_matrix_L"] == 0
