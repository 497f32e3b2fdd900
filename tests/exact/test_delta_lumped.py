"""The geometric mechanism's finite law with lumped tails (dpverify.exact.lumped): the same δ(ε) as the
unlumped mechanism, proved for every ε > 0, and a wrong scale refuted with the exact ε′."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from dpverify.exact import delta_curve, prove
from dpverify.exact.lumped import GeometricLaw

EPS = sp.Symbol("epsilon", positive=True)


def _unlumped_delta(d, d2, scale, e, width=6000):
    """Σ_y max(0, p_y − e^ε q_y) over the integers |y| ≤ width, in floats (the tails beyond are < 1e-40 here)."""
    r = np.exp(-e / scale)
    y = np.arange(-width, width + 1)
    p = (1 - r) / (1 + r) * r ** np.abs(y - d)
    q = (1 - r) / (1 + r) * r ** np.abs(y - d2)
    return np.maximum(p - np.exp(e) * q, 0).sum()


@pytest.mark.parametrize("pair,scale", [((0, 1), 1), ((0, 2), 2), ((0, 3), 1), ((-1, 2), 3)])
def test_lumped_law_has_the_mechanisms_delta_curve(pair, scale):
    law = GeometricLaw((pair,), scale)(EPS)
    for i, j in law.pairs:
        curve = delta_curve(law.matrix, (i, j), EPS)
        for e in (0.05, 0.4, 1.3, 3.0):
            d, d2 = law.inputs[i], law.inputs[j]
            assert abs(float(curve.subs(EPS, e)) - _unlumped_delta(d, d2, scale, e)) < 1e-12, (pair, scale, e)


def test_proved_when_calibrated_and_refuted_exactly_when_not():
    law = GeometricLaw(((0, 2),), 2)(EPS)
    assert prove(law.matrix, epsilon=EPS, pairs=list(law.pairs)).verdict == "proved"
    bad = GeometricLaw(((0, 2),), 1)(EPS)  # sensitivity 2 with the noise of sensitivity 1
    r = prove(bad.matrix, epsilon=EPS, pairs=list(bad.pairs))
    assert r.verdict == "refuted" and sp.simplify(r.counterexample.epsilon_needed - 2 * EPS) == 0


def test_catalogue_geometric_families_are_proved(monkeypatch):
    """Both geometric families of the catalogue carry the lumped law; a planted wrong scale flips the proof."""
    from dpverify.exact import prove_mechanism
    from dpverify.mechanisms import catalogue

    cat = catalogue()
    for name in ("primitives.geometric_mechanism", "audit.mechanisms.GeometricMechanism"):
        assert prove_mechanism(cat.families[name].make()).verdict == "proved", name
    real = GeometricLaw.__call__
    monkeypatch.setattr(GeometricLaw, "__call__", lambda self, e: real(GeometricLaw(self.pairs, Fraction(self.scale) / 2), e))
    assert prove_mechanism(cat.families["primitives.geometric_mechanism"].make()).verdict == "refuted"


@pytest.mark.parametrize("pairs,scale,match", [((), 1, "pairs must be a non-empty"), (((0, 0),), 1, "two different"),
                                                (((0, 0.5),), 1, "integer inputs"), (((0, 1),), 0, "scale must be"),
                                                (((0, 1),), 0.5, "scale must be"), (((0, 100),), 1, "at most 64")])
def test_bad_input(pairs, scale, match):
    with pytest.raises(ValueError, match=match):
        GeometricLaw(pairs, scale)
