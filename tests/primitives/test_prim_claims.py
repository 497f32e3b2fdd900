"""The survey claims (paper 002, ids primitives.*) reach their expected verdicts, and breaking the code changes them."""

import numpy as np

import dpverify.survey.claims.composition as comp
import dpverify.survey.claims.exponential as expo
import dpverify.survey.claims.interactive as inter
import dpverify.survey.claims.laplace as lap
import dpverify.survey.claims.usefulness as use
from dpverify.claims import Verdict, all_claims, run_claims


def test_primitives_claims_as_expected():
    results = run_claims(all_claims("primitives."))
    assert len(results) >= 7
    bad = [(r.claim.id, r.verdict.value, r.error) for r in results if not r.as_expected]
    assert not bad


def test_laplace_claim_fails_with_half_scale(monkeypatch):
    monkeypatch.setattr(lap, "laplace_scale", lambda s, e: s / (2 * e))
    assert lap._laplace_dp().verdict is Verdict.REFUTED


def test_expmech_claim_fails_without_factor_2(monkeypatch):
    real = expo.exponential_probabilities
    monkeypatch.setattr(expo, "exponential_probabilities", lambda q, s, e, factor=2.0: real(q, s, e, factor=1.0))
    assert expo._expmech().verdict is Verdict.REFUTED


def test_sequential_claim_fails_if_composition_undercounts(monkeypatch):
    monkeypatch.setattr(comp, "sequential_epsilon", lambda e: float(np.max(e)))
    assert comp._sequential().verdict is Verdict.REFUTED


def test_usefulness_claim_fails_with_wrong_alpha(monkeypatch):
    monkeypatch.setattr(use, "laplace_alpha", lambda d, e, m, b: d / e * np.log(1 / b))
    assert use._usefulness().verdict is Verdict.REFUTED


def test_interactive_claim_would_hold_if_sensitivity_were_2(monkeypatch):
    calls = iter([2.0, 2.0])
    monkeypatch.setattr(inter, "l1_sensitivity", lambda A: next(calls))
    # the sensitivity part alone does not rescue it: the scheme still spends 3ε/2
    assert inter._interactive().verdict is Verdict.ERRATUM
