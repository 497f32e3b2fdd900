"""The frequency-oracle example's own tests: each claim's verdict can flip."""

import math

import numpy as np
import pytest

import claims_oracles as co
import oracles


def test_claims_have_their_expected_verdicts():
    for check, want in ((co._grr_is_ldp, "holds"), (co._grr_variance, "holds"), (co._oue_is_ldp, "holds"),
                        (co._sue_full_epsilon, "refuted"), (co._grr_unbiased, "holds")):
        assert check().verdict.value == want, check.__name__


def test_grr_flips_when_p_is_too_large(monkeypatch):
    real = oracles.grr_matrix
    monkeypatch.setattr(co, "grr_matrix", lambda e, d: real(e * 1.1, d))
    assert co._grr_is_ldp().verdict.value == "refuted"


def test_oue_flips_with_q_too_small(monkeypatch):
    monkeypatch.setattr(co, "oue_pq", lambda e: (0.5, 1 / (math.exp(e) + 2)))
    assert co._oue_is_ldp().verdict.value == "refuted"


def test_unbiased_flips_with_a_biased_estimate(monkeypatch):
    real = oracles.grr_estimate
    monkeypatch.setattr(co, "grr_estimate", lambda r, e, d: real(r, e, d) * 1.05)
    assert co._grr_unbiased().verdict.value == "refuted"


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="epsilon must be"):
        oracles.grr_matrix(0, 3)
    with pytest.raises(ValueError, match="d must be"):
        oracles.grr_matrix(1.0, 1)
    with pytest.raises(ValueError, match="p and q"):
        oracles.ue_matrix(1.0, 0.5, 3)
    assert np.allclose(oracles.grr_matrix(1.0, 3).sum(axis=1), 1)
