"""audit_delta_curve: the Gaussian mechanism's δ(ε) curve (seeded)."""

import numpy as np
import pytest

from dpverify.audit.curves import audit_delta_curve, gaussian_delta_curve
from dpverify.pca.thm3 import gaussian_hockey_stick


def gauss(d, rng, n):
    return rng.normal(float(d), 1.0, n)


def test_gaussian_curve_matches_independent_hockey_stick():
    for s in (0.7, 1.0, 3.0):
        for e in (0.0, 0.2, 1.5):
            assert abs(gaussian_delta_curve(s)(e) - gaussian_hockey_stick(0.0, s * s, 1.0, s * s, e)) < 1e-12


def test_true_curve_not_refuted_and_tight():
    """True curve at confidence 1 − 1e-6: false refutation ≤ 1e-6; the bounds sit close below it."""
    grid = np.linspace(0.0, 2.0, 5)
    r = audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(1.0), epsilons=grid,
                          samples=400_000, rng=0, confidence=1 - 1e-6)
    assert r.verdict().value == "inconclusive"
    assert all(c - lo < 0.02 for lo, c in zip(r.delta_lower, r.claimed))


def test_understated_noise_refuted_on_the_curve():
    """σ = 1 claimed as σ = 1.5: δ gap ≥ 0.1 at ε = 0, far beyond the bounds' noise at 4e5 draws."""
    r = audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(1.5), epsilons=[0.0, 0.5, 1.0],
                          samples=400_000, rng=1, confidence=0.999)
    assert r.verdict().value == "refuted" and 0.0 in r.refuted_at


def test_bad_input():
    with pytest.raises(ValueError, match="epsilons"):
        audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(1.0), epsilons=[-1.0], samples=1000)
    with pytest.raises(TypeError, match="delta_curve"):
        audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=0.1, epsilons=[0.0], samples=1000)
    with pytest.raises(ValueError, match="pair"):
        audit_delta_curve(gauss, pair=0.0, delta_curve=gaussian_delta_curve(1.0), epsilons=[0.0], samples=1000)
    with pytest.raises(ValueError, match="sigma"):
        gaussian_delta_curve(0.0)
