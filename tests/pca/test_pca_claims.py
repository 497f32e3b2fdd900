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
    from dpverify.pca import grid

    for f in (pca_claims.thm3._thm3_evidence, pca_claims.corrected._corrected_audit, grid.figure_grid):
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


def test_claims_are_filed_by_subject_with_every_erratum_in_one_module():
    modules = {c.id: c.check.__module__ for c in all_claims("pca.")}
    assert set(modules.values()) == {f"dpverify.pca.claims.{m}" for m in pca_claims.__all__}
    errata = {cid for cid, m in modules.items() if m == "dpverify.pca.claims.errata"}
    assert errata == {c.id for c in all_claims("pca.") if c.expected == Verdict.ERRATUM}


def test_figure_claims_share_one_grid(monkeypatch):
    """Every claim of Figs. 3-6 reads dpverify.pca.grid.figure_grid: one evaluation per data set."""
    from dpverify.pca import grid

    calls = []
    real = grid.figure_grid

    def counted(dataset, thorough=False):
        calls.append((dataset, thorough))
        return real(dataset, thorough)

    monkeypatch.setattr(grid, "figure_grid", counted)
    fig_ids = [c.id for c in all_claims("pca.fig3") + all_claims("pca.fig5")]
    for cid in fig_ids:
        get_claim(cid).check()
    assert set(calls) == {("adult", False), ("magic", False)} and len(calls) == 2 * len(fig_ids)
