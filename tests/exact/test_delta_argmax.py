"""Report noisy max with exponential noise (dpverify.exact.argmax): its exact law against the sampler, proved
for every ε > 0 at scale 2/ε, refuted with the exact ε′ at scale 1/ε; the catalogue's control carries it."""

import numpy as np
import pytest
import sympy as sp
from scipy import stats

from dpverify.exact import prove, prove_mechanism
from dpverify.exact.argmax import ArgmaxExpLaw
from dpverify.mechanisms import catalogue

EPS = sp.Symbol("epsilon", positive=True)
PAIRS = (((0, 0, 0), (1, 0, 0)), ((1, 1, 1), (0, 2, 2)), ((0, 1, 3), (1, 0, 2)))


def test_rows_sum_to_one_and_match_the_sampler():
    """Chi-square of 200,000 draws of the control's sampler per input at ε = 0.7 (false-alarm rate 1e-6 each)."""
    from dpverify.audit.controls.vector import NoisyMax

    law = ArgmaxExpLaw(PAIRS, 2)(EPS)
    num = np.array(law.matrix.subs(EPS, 0.7).evalf(30).tolist(), dtype=float)
    m, rng = NoisyMax(0.7, noise="exponential"), np.random.default_rng(1)
    for i, q in enumerate(law.inputs):
        assert sp.simplify(sum(law.matrix.row(i)) - 1) == 0
        y = m(np.asarray(q, dtype=float), rng, 200_000)
        assert stats.chisquare(np.bincount(y, minlength=3), num[i] * 200_000).pvalue > 1e-6, (q, num[i])


def test_proved_at_scale_two_refuted_at_scale_one():
    law = ArgmaxExpLaw(PAIRS, 2)(EPS)
    assert prove(law.matrix, epsilon=EPS, pairs=list(law.pairs)).verdict == "proved"
    half = ArgmaxExpLaw(PAIRS, 1)(EPS)
    r = prove(half.matrix, epsilon=EPS, pairs=list(half.pairs))
    assert r.verdict == "refuted" and sp.simplify(r.counterexample.epsilon_needed - 2 * EPS) == 0


def test_catalogue_control_with_exponential_noise_is_proved(monkeypatch):
    fam = catalogue().families["audit.mechanisms.NoisyMax"]
    assert not hasattr(fam.make(noise="laplace"), "symbolic_law")  # Laplace noise: not rational in e^(ε/L)
    m = fam.make(noise="exponential")
    assert prove_mechanism(m).verdict == "proved"
    real = ArgmaxExpLaw.__call__
    monkeypatch.setattr(ArgmaxExpLaw, "__call__", lambda self, e: real(ArgmaxExpLaw(self.pairs, 1), e))
    assert prove_mechanism(m).verdict == "refuted"  # a planted half scale flips it


@pytest.mark.parametrize("pairs,scale,match", [((), 2, "non-empty"), ((((0, 0), (0, 0)),), 2, "two different"),
                                                ((((0, 0), (1,)),), 2, "one length"), ((((0, np.nan), (1, 0)),), 2, "finite"),
                                                ((((0, 0), (1, 0)),), 0, "scale must be")])
def test_bad_input(pairs, scale, match):
    with pytest.raises(ValueError, match=match):
        ArgmaxExpLaw(pairs, scale)
