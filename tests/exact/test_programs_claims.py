"""Every ``audit.checkdp.*`` claim flips under a planted bug in the program it decides.

The claims look their program up by attribute of :mod:`dpverify.exact.programs.checkdp`, so
monkeypatching the program changes what is decided: halving a correct program's noise must refute it,
fixing an incorrect program must stop its refutation.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.claims import Verdict, get_claim, run_claims
from dpverify.exact.programs import checkdp
import dpverify.selftest.claims.checkdp  # noqa: F401 (registers the claims)


def verdict(cid: str) -> Verdict:
    (res,) = run_claims([get_claim(cid)])
    assert res.error is None, res.error
    return res.verdict


def test_partialsum_with_half_the_noise_is_refuted(monkeypatch):
    assert verdict("audit.checkdp.partialsum") is Verdict.HOLDS
    monkeypatch.setattr(checkdp, "partialsum", lambda ctx, q: (ctx.release(sum(q), Fraction(1, 2)),))
    assert verdict("audit.checkdp.partialsum") is Verdict.REFUTED


def test_badpartialsum_with_the_right_noise_is_not_refuted(monkeypatch):
    assert verdict("audit.checkdp.badpartialsum") is Verdict.REFUTED
    monkeypatch.setattr(checkdp, "badpartialsum", lambda ctx, q: (ctx.release(sum(q), 1),))
    assert verdict("audit.checkdp.badpartialsum") is Verdict.HOLDS


@pytest.mark.slow
def test_noisymax_releasing_the_value_is_refuted(monkeypatch):
    monkeypatch.setattr(checkdp, "noisymax", checkdp.badnoisymax)
    assert verdict("audit.checkdp.noisymax") is Verdict.REFUTED


def test_noisymax_with_half_the_noise_is_refuted(monkeypatch):
    monkeypatch.setattr(checkdp, "noisymax", lambda ctx, q: (ctx.argmax(q, 1),))
    assert verdict("audit.checkdp.noisymax") is Verdict.REFUTED


@pytest.mark.slow
def test_badsparsevector1_fixed_is_not_refuted(monkeypatch):
    assert verdict("audit.checkdp.badsparsevector1") is Verdict.REFUTED
    monkeypatch.setattr(checkdp, "badsparsevector1", checkdp.sparsevector)
    assert verdict("audit.checkdp.badsparsevector1") is Verdict.HOLDS


@pytest.mark.slow
def test_gapsparsevector_with_too_little_gap_noise_is_refuted(monkeypatch):
    assert verdict("audit.checkdp.gapsparsevector") is Verdict.HOLDS

    def bad(ctx, q, T, NN):  # the gap's noise of scale 1 instead of 4·NN
        thr, out = ctx.threshold(T, 2), []
        for qi in q:
            if sum(v is not None for v in out) >= NN:
                break
            out.append(ctx.noisy_gap(qi, 1, thr))
        return tuple(out)
    monkeypatch.setattr(checkdp, "gapsparsevector", bad)
    assert verdict("audit.checkdp.gapsparsevector") is not Verdict.HOLDS


def test_gapsparsevector_releasing_a_query_without_noise_is_refuted(monkeypatch):
    """The noise removed, not only shrunk: one query released exactly gives an infinite ε′."""
    orig = checkdp.gapsparsevector

    def bare(ctx, q, T, NN):
        return orig(ctx, q, T, NN) + (int(q[0]),)
    monkeypatch.setattr(checkdp, "gapsparsevector", bare)
    r = run_claims([get_claim("audit.checkdp.gapsparsevector")])[0]
    assert r.verdict is Verdict.REFUTED and "ε′ = oo" in r.outcome.summary, r.outcome.summary
