"""The composition example's own tests: two routes agree, and each claim's verdict can flip."""

import math

import pytest
import rr_composition as rc

import claims_composition as cc


def test_two_routes_agree():
    for k, e, ep in [(3, 0.5, 0.4), (8, 1.0, 2.0), (12, 0.2, 0.0)]:
        assert rc.delta_binomial(k, e, ep) == pytest.approx(rc.delta_outputs(k, e, ep), abs=1e-12)


def test_claims_have_their_expected_verdicts():
    assert cc._basic().verdict.value == "holds"
    assert cc._advanced().verdict.value == "holds"
    assert cc._first_term_only().verdict.value == "refuted"


def test_advanced_flips_when_the_second_term_is_dropped(monkeypatch):
    monkeypatch.setattr(cc, "advanced_epsilon", lambda k, e, d: math.sqrt(2 * k * math.log(1 / d)) * e)
    assert cc._advanced().verdict.value == "refuted"


def test_basic_flips_with_a_wrong_exact_epsilon(monkeypatch):
    monkeypatch.setattr(cc, "exact_epsilon", lambda k, e: (k - 1) * e)
    assert cc._basic().verdict.value == "refuted"


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="k must be"):
        rc.delta_binomial(0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon must be"):
        rc.delta_binomial(3, -1.0, 1.0)
