"""The audit claims reach their expected verdicts; an auditor that ignores the confidence breaks them."""

import dpverify.audit.claims as ac
from dpverify.claims import Verdict, all_claims, run_claims


def test_audit_claims_as_expected():
    results = run_claims(all_claims("audit."))
    mine = [r for r in results if r.claim.id.startswith(("audit.control.", "audit.bug.", "audit.ground_truth",
                                                         "audit.false_refutation_rate", "audit.power",
                                                         "audit.tightness", "audit.fp_"))]
    assert len(mine) >= 19
    bad = [(r.claim.id, r.verdict.value, r.error) for r in mine if not r.as_expected]
    assert not bad


def test_point_estimate_auditor_breaks_validity_claims(monkeypatch):
    """An 'auditor' reporting ln(p̂/q̂) without intervals must fail the ground-truth claim."""
    real = ac.epsilon_lower_bound

    def naive(*args, **kw):
        r = real(*args, **kw)
        import dataclasses
        import math

        eps = math.log(max(r.count_p, 1) / max(r.count_q, 1))
        return dataclasses.replace(r, epsilon=max(0.0, eps))

    monkeypatch.setattr(ac, "epsilon_lower_bound", naive)
    assert ac._ground_truth().verdict is Verdict.REFUTED
    assert ac._false_rate().verdict is Verdict.REFUTED
