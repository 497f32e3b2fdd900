"""Mutation tests of the ``conform.opendp.*`` self-test claims: each verdict flips when the sampler is swapped.

OpenDP cannot be seeded; the claims run at level 10^-3, and the planted bug's bound at 10^4 draws per input
was above 0.62 in 30 of 30 runs (against the claimed 0.5), so these flips are not a matter of chance.
"""

from __future__ import annotations

import pytest

pytest.importorskip("opendp")
pytestmark = [pytest.mark.slow]  # four OpenDP draws of 3·10^4 (OpenDP cannot be vectorised here): ~50 s

from dpverify.claims import Verdict, get_claim, run_claim  # noqa: E402


def _verdict(cid: str):
    r = run_claim(get_claim(cid))
    assert r.error is None, r.error
    assert r.outcome.evidence["library"].startswith("opendp ")
    return r.outcome.verdict


def test_noisy_max_zcdp_flips_when_the_exponential_sampler_is_stated_with_the_zcdp_map(monkeypatch):
    import dpverify.selftest.claims.conform as C

    assert _verdict("conform.opendp.noisy_max_zcdp") is Verdict.INCONCLUSIVE
    monkeypatch.setitem(C.SAMPLED, "consistent", "max_divergence")
    assert _verdict("conform.opendp.noisy_max_zcdp") is Verdict.REFUTED


def test_zcdp_map_of_another_sampler_flips_when_the_sampler_matches_the_map(monkeypatch):
    import dpverify.selftest.claims.conform as C

    assert _verdict("conform.opendp.zcdp_map_of_another_sampler") is Verdict.REFUTED
    monkeypatch.setitem(C.SAMPLED, "planted", "zero_concentrated_divergence")
    assert _verdict("conform.opendp.zcdp_map_of_another_sampler") is Verdict.INCONCLUSIVE
