"""The floating-point attack refutes float Laplace releases and leaves the grid release alone.

Seeded; false alarm: the refutations have count_q = 0 exactly (a structural zero, see
proofs/audit/auditor_fp.md) and ε_lb > 5 at confidence 1 − 1e-6, so an unseeded rerun fails only
if fewer than ~40 of 100 000 outputs fall off the grid where ~1.5 % are expected (< 1e-100); the
safe release's statistic is identically 0, so its test cannot fail by chance.
"""

import numpy as np
import pytest

from dpverify.audit import epsilon_lower_bound
from dpverify.audit.controls import OffGrid, TextbookLaplace, fp_attack_statistic
from dpverify.selftest.controls import LibraryLaplace, SafeLaplace


@pytest.mark.parametrize("mech", [TextbookLaplace(0.1), LibraryLaplace(0.1), TextbookLaplace(2.0)])
def test_float_laplace_refuted_far_above_claim(mech):
    r = epsilon_lower_bound(mech, 0.0, 1.0, samples=200_000, confidence=1 - 1e-6, rng=1,
                            statistic=fp_attack_statistic(1.0))
    assert r.count_q == 0 and r.epsilon > 5.0 and r.refutes(mech.epsilon)


def test_safe_release_not_refuted():
    mech = SafeLaplace(0.1)
    r = epsilon_lower_bound(mech, 0.0, 1.0, samples=200_000, confidence=1 - 1e-6, rng=1,
                            statistic=fp_attack_statistic(1.0))
    assert r.epsilon == 0.0
    r2 = epsilon_lower_bound(SafeLaplace(1.0), 0.0, 1.0, samples=200_000, confidence=1 - 1e-6, rng=2)
    assert not r2.refutes(1.0)


def test_attack_statistic_shapes():
    assert fp_attack_statistic(4.0) == OffGrid(-51)
    assert OffGrid(-1)(np.array([0.5, 0.25, 1.0])).tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match="shift"):
        fp_attack_statistic(0.0)


def test_safe_claim_fails_if_release_used_float_noise(monkeypatch):
    """Mutation: a 'safe' release that adds float Laplace noise is caught by the fp_safe claim."""
    from dpverify.selftest.claims import floating_point as ac
    from dpverify.primitives import additive as lap

    monkeypatch.setattr(lap, "safe_laplace_mechanism",
                        lambda v, d, e, rng=None, size=None, grid=None: lap.laplace_mechanism(v, d, e, rng, size=size))
    assert ac._fp_safe().verdict.value == "refuted"


def test_old_module_path_still_serves_the_fp_controls():
    """``dpverify.audit.floating_point`` is kept as a re-export of :mod:`dpverify.audit.controls.floating_point`."""
    import dpverify.audit.floating_point as old
    from dpverify.mechanisms import Mechanism

    assert old.TextbookLaplace is TextbookLaplace and old.fp_attack_statistic is fp_attack_statistic
    assert all(isinstance(c(0.1), Mechanism) for c in (TextbookLaplace, LibraryLaplace, SafeLaplace))
