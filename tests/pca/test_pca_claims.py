"""The pca claims give their expected verdicts, and each verdict moves when the code it checks is broken."""

import json

import numpy as np
import pytest

from dpverify.claims import Verdict, all_claims, get_claim
from dpverify.pca import claims as pca_claims

IDS = [c.id for c in all_claims("pca.")]


def test_claim_ids_and_theorem3_named():
    assert len(IDS) >= 12 and all(i.startswith("pca.") for i in IDS)
    assert "pca.thm3_ppca_dp_is_dp" in IDS
    assert get_claim("pca.thm3_ppca_dp_is_dp").proof == "pca/thm3_counterexample.md"


@pytest.mark.parametrize("cid", IDS)
def test_expected_verdict(cid):
    c = get_claim(cid)
    out = c.check(thorough=False)
    assert out.verdict == c.expected, (cid, out.evidence)
    json.dumps({k: str(v) for k, v in out.evidence.items()})


def _clear():
    from dpverify.pca import claims_corrected

    for f in (pca_claims._thm3_evidence, claims_corrected._corrected_audit, pca_claims._grid):
        f.cache_clear()


def test_thm12_fails_with_a_wrong_sigma2(monkeypatch):
    from dpverify.pca import ppca

    monkeypatch.setattr(ppca.PPCAFit, "sigma2", property(lambda self: self.eigvals.mean(axis=-1)))
    assert get_claim("pca.thm1_thm2_ppca_formulas").check().verdict == Verdict.REFUTED


def test_thm3_not_refuted_for_a_dp_mechanism(monkeypatch):
    """Swap Alg. 2 for the corrected ε-DP mechanism: the Thm 3 check must no longer refute."""
    import dpverify.pca as pca

    box = (np.zeros(2), np.ones(2))
    monkeypatch.setattr(pca, "PPCADP", lambda k, epsilon: pca.CorrectedPPCADP(k, epsilon, box))
    _clear()
    try:
        out = get_claim("pca.thm3_ppca_dp_is_dp").check()
    finally:
        _clear()
    assert out.verdict != Verdict.REFUTED, out.evidence
    assert out.evidence["audit_epsilon_lower_bound"] <= 1.0


def test_corrected_claim_refutes_alg2(monkeypatch):
    """Feed Alg. 2 to the corrected-variant audit: it must be refuted."""
    import dpverify.pca as pca

    monkeypatch.setattr(pca, "CorrectedPPCADP", lambda k, epsilon, bounds: pca.PPCADP(k, epsilon))
    _clear()
    try:
        out = get_claim("pca.corrected_ppca_dp_audit").check()
    finally:
        _clear()
    assert out.verdict == Verdict.REFUTED and out.evidence["max_eps_lower_bound"] > 1.0


def test_sensitivity_claim_moves_with_the_bound(monkeypatch):
    import dpverify.pca as pca

    monkeypatch.setattr(pca, "paper_sensitivity", lambda k, p: 1e3)
    assert get_claim("pca.thm3_score_sensitivity").check().verdict == Verdict.HOLDS


def test_ppca_privacy_claim_moves_when_noise_is_added(monkeypatch):
    import dpverify.pca as pca

    class Noisy:
        def __init__(self, k):
            self.k = k

        def fit_publish(self, X, rng=None):
            return X + np.random.default_rng(rng).normal(size=X.shape)

    monkeypatch.setattr(pca, "PPCA", Noisy)
    assert get_claim("pca.ppca_protects_privacy").check().verdict == Verdict.HOLDS
