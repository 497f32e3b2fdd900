"""The ``audit.api.*`` self-tests of ``audit()`` hold, and each flips when the auditor is made anti-conservative.

Every audit is seeded, so the verdicts are deterministic.  Were they not: a valid auditor fails the
exceedance claim with probability ≤ 1e-3 (its one-sided binomial test), the staged-stop claim's
correct half with probability < 1e-4; the planted bugs are refuted with margins of several standard
errors.  The mutations below are refuted by margins far beyond those rates (measured: the bound
inflated by 2 % gives 33 exceedances of 100 audits where ≈ 10 are expected, p ≈ 3e-10).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpverify.audit.stages as stages_module
import dpverify.audit.statistical as statistical_module
from dpverify.claims import Verdict, get_claim, run_claims
from dpverify.mechanisms import Pairs
from dpverify.selftest.claims import audit_api
from dpverify.selftest.rare_event import RareEvent

H, R = Verdict.HOLDS, Verdict.REFUTED


def verdict(cid: str) -> Verdict:
    (res,) = run_claims([get_claim(cid)])
    assert res.error is None, res.error
    return res.verdict


def _inflate_bound(monkeypatch, factor: float) -> None:
    """The conditional test's bound multiplied by ``factor`` (an auditor that overclaims)."""
    real = statistical_module.poisson_log_ratio_lower
    monkeypatch.setattr(statistical_module, "poisson_log_ratio_lower", lambda *a, **k: factor * real(*a, **k))


def _drop_level_split(monkeypatch) -> None:
    """Every estimation stage tested at the whole remaining level (error spending dropped)."""
    real = stages_module.stage_plan
    monkeypatch.setattr(stages_module, "stage_plan", lambda n, a, **k: [(m, a) for m, _ in real(n, a, **k)])


# ------------------------------------------------------------------ the mechanism

def test_rare_event_true_epsilon_is_derived_from_its_laws():
    m = RareEvent(0.7, p=0.3, k=3)
    laws = [m.law(d)[1] for d in range(3)]
    assert all(np.isclose(law.sum(), 1.0) for law in laws)
    assert math.isclose(m.true_epsilon(), 0.7, rel_tol=1e-12)  # the rare output of inputs 0 and 2
    assert math.isclose(RareEvent(0.7, factor=1.5).true_epsilon(), 1.05, rel_tol=1e-12)
    # the non-informative output leaks less than the rare one whenever p <= 1/2 (module docstring)
    for eps in (0.05, 1.0, 5.0):
        q = RareEvent(eps, p=0.5)
        assert math.log(q.law(0)[1][0] / q.law(1)[1][0]) <= eps


def test_rare_event_samples_its_law():
    m = RareEvent(1.0, p=0.2, k=2)
    out = m(0, np.random.default_rng(3), 200_000)
    assert set(np.unique(out)) <= {0, 1}
    assert abs(out.mean() - m.rare_probability(0)) < 5 * math.sqrt(m.rare_probability(0) / 200_000)


@pytest.mark.parametrize("kw,name", [({"p": 0.6}, "p"), ({"p": 0.0}, "p"), ({"k": 1}, "k"),
                                     ({"factor": -1.0}, "factor"), ({"epsilon": float("nan")}, "epsilon")])
def test_rare_event_validates_its_parameters(kw, name):
    args = {"epsilon": 1.0, **kw}
    with pytest.raises(ValueError, match=name):
        RareEvent(**args)


def test_rare_event_refuses_inputs_outside_its_domain():
    with pytest.raises(ValueError, match="data"):
        RareEvent(1.0).rare_probability(2)


# ------------------------------------------------------------------ audit.api.exceedance

@pytest.mark.slow
def test_exceedance_claim_holds_with_a_rate_near_alpha():
    (res,) = run_claims([get_claim("audit.api.exceedance")])
    ev = res.outcome.evidence
    assert res.verdict is H, res.outcome.summary
    assert ev["audits"] >= 1000 and 0.05 <= ev["rate"] <= ev["alpha"] * 1.25  # sharp: close to α
    assert ev["audits_with_conditional_test"] == ev["audits"] and ev["audits_with_a_safe_event"] >= 1


def test_exceedance_claim_refuted_for_an_inflated_bound(monkeypatch):
    """An auditor whose conditional bound is 2 % too large exceeds the truth far more often than α."""
    assert get_claim("audit.api.exceedance").expected is H
    _inflate_bound(monkeypatch, 1.02)
    out = audit_api.exceedance_outcome(100)  # measured: 33 of 100 exceed, p ≈ 3e-10 against α = 0.1
    assert out.verdict is R and out.evidence["rejects_rate_at_most_alpha"]


def test_exceedance_claim_refuted_without_the_level_split(monkeypatch):
    """Stages each at the whole level: the levels of one audit then sum to more than α."""
    assert get_claim("audit.api.exceedance").proof == "audit/selection.md"
    _drop_level_split(monkeypatch)
    out = audit_api.exceedance_outcome(30)
    assert out.verdict is R and out.evidence["max_levels_sum/alpha"] > 1.5


@pytest.mark.slow
def test_exceedance_rate_alone_flips_without_the_level_split(monkeypatch):
    """The binomial test itself (not only the level accounting) sees the dropped split: measured 165 of
    1,000 audits exceed the truth, p ≈ 1.5e-10 against α = 0.1."""
    _drop_level_split(monkeypatch)
    assert get_claim("audit.api.exceedance").check.__module__ == audit_api.__name__
    out = audit_api.exceedance_outcome(1000)  # what the claim runs
    assert out.verdict is R and out.evidence["rejects_rate_at_most_alpha"]


def test_binomial_test_is_one_sided_at_its_false_alarm_rate():
    assert not audit_api._binomial_test(100, 1000, 0.1)["rejects_rate_at_most_alpha"]
    assert not audit_api._binomial_test(130, 1000, 0.1)["rejects_rate_at_most_alpha"]  # p ≈ 1.3e-3
    assert audit_api._binomial_test(131, 1000, 0.1)["rejects_rate_at_most_alpha"]  # p ≈ 9.7e-4
    t = audit_api._binomial_test(91, 1000, 0.1)
    assert t["rate_lower_99.9%"] < 0.091 < t["rate_upper_99.9%"]


# ------------------------------------------------------------------ the cheaper claims

def test_cheap_audit_api_claims_hold():
    for cid in ("audit.api.staged_stop", "audit.api.conditional_test", "audit.api.searched_pair"):
        assert verdict(cid) is H, cid


def test_staged_stop_refuted_with_a_single_stage(monkeypatch):
    """Without stages the planted bug is refuted only after the whole budget is drawn."""
    real = stages_module.stage_plan
    monkeypatch.setattr(stages_module, "stage_plan", lambda n, a, **k: [(n, a)] if real(n, a, **k) else [])
    assert verdict("audit.api.staged_stop") is R


def test_staged_stop_refuted_without_the_level_split(monkeypatch):
    _drop_level_split(monkeypatch)
    assert verdict("audit.api.staged_stop") is R


def test_conditional_test_refuted_when_only_the_binomial_test_is_offered(monkeypatch):
    import dpverify.audit.screening as screening_module

    for module in (screening_module, stages_module):  # screened (fixed) and learned statistics
        monkeypatch.setattr(module, "available_tests", lambda delta: ("binomial",))
    assert verdict("audit.api.conditional_test") is R


def test_conditional_test_refuted_for_a_blind_auditor(monkeypatch):
    _inflate_bound(monkeypatch, 0.0)  # the conditional test never bounds ε above 0
    assert verdict("audit.api.conditional_test") is R


def test_searched_pair_refuted_when_the_audit_does_not_search(monkeypatch):
    """An audit held to the adjacent pairs (no search: the relation's base patterns only) cannot refute."""
    real = audit_api.audit
    adjacent = Pairs(((1, 0), (1, 2), (2, 3)), description="adjacent inputs only")
    monkeypatch.setattr(audit_api, "audit", lambda mechanism, **kw: real(mechanism, pairs=adjacent, **kw))
    assert verdict("audit.api.searched_pair") is R


def test_audit_rows_report_the_tests_made():
    (row,) = audit_api.audit_rows(RareEvent(1.0), [5], epsilon=1.0, samples=20_000)
    assert row["levels"] <= 0.1 + 1e-12 and row["candidates"] >= 1 and row["samples_used"] <= 20_000
