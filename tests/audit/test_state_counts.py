"""State counts (how many columns are low, high, or each flag) and the cross-fitted choice of a
pair's statistic in screening."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.audit import screening
from dpverify.audit.projections import StateCounts, fixed_statistics
from dpverify.audit.suite import NumericalSVT


def _digits(code, base, width):
    return [(code // base ** (width - 1 - i)) % base for i in range(width)]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_state_counts_decode_to_the_states_of_each_row(width, rows, seed):
    g = np.random.default_rng(seed)
    x = g.standard_normal((rows, width))
    x[g.random(x.shape) < 0.3] = 0.0
    x[g.random(x.shape) < 0.2] = -1000.0
    before = x.copy()
    med = np.zeros(width)
    codes = StateCounts(med, np.array([0.0, -1000.0]))(x)
    np.testing.assert_array_equal(x, before)  # the input is not mutated
    for row, code in zip(x, codes):
        low, high, zero, stop = _digits(int(code), width + 1, 4)
        assert (low, high, zero, stop) == (int(((row <= 0) & (row != 0) & (row != -1000)).sum()),
                                           int((row > 0).sum()), int((row == 0).sum()), int((row == -1000).sum()))
        assert low + high + zero + stop == width


@pytest.mark.parametrize("kw", [dict(medians=np.array([np.nan])), dict(medians=np.zeros((2, 2))),
                                dict(medians=np.zeros(2), flags=np.array([np.inf]))])
def test_state_counts_validation_names_the_parameter(kw):
    name = next(iter(k for k in kw if k != "medians"), "medians")
    with pytest.raises(ValueError, match=name):
        StateCounts(**{"medians": np.zeros(2), **kw})


def test_state_counts_only_for_outputs_that_mix_values_and_flags():
    g = np.random.default_rng(0)
    svt = NumericalSVT(0.1, c=2, threshold=1.0).sample(np.zeros(10), g, 4000)
    assert "state counts" in [name for name, _ in fixed_statistics(svt)]
    assert "state counts" not in [name for name, _ in fixed_statistics(g.laplace(size=(4000, 10)))]


def test_screening_chooses_the_statistic_out_of_sample():
    # a weak continuous statistic (Laplace shift 0.02: ε 0.02) against a stronger binary one (ε 0.03):
    # chosen by in-sample selection scores the weak one wins 2 of these 10 seeds (its unions of
    # intervals fit the noise); chosen by cross-fitted scores it never does
    n, chosen = 400_000, []
    for seed in range(10):
        g = np.random.default_rng(seed)
        weak = [g.laplace(0.02, 1, n), g.laplace(0, 1, n)]
        strong = [(g.random(n) < 0.3 * np.exp(0.03)).astype(np.int64), (g.random(n) < 0.3).astype(np.int64)]
        chosen.append(screening._screen([("weak", None, weak), ("strong", None, strong)], 2 * 10**6, 10**4, 0.1, 0.0, 10**4)[2])
    assert chosen == ["strong"] * 10


def _numerical_svt_masses(a: float):
    """NumericalSVT(0.1, c=2, T=1) on a^10, by integration over ρ ~ Lap(30) (ν ~ Lap(120), answers
    a + Lap(60)): P(⊤ at queries 1 and 2, both answers > 0.5) and P(≥ 2 ⊤, both answers > 0.5)."""
    from scipy import integrate, stats

    def mass(f):
        return integrate.quad(lambda r: stats.laplace.pdf(r, scale=30) * f(stats.laplace.sf(1 + r - a, scale=120)),
                              -3000, 3000, points=[-1, 0, 1], limit=400)[0]

    high = stats.laplace.sf(0.5 - a, scale=60) ** 2
    first_two = mass(lambda q: q * q)
    at_least_two = mass(lambda q: 1 - (1 - q) ** 10 - 10 * q * (1 - q) ** 9)
    return first_two * high, at_least_two * high


def test_state_counts_expose_the_early_stop_of_numerical_svt():
    # NumericalSVT (c = 2) on 1^10 vs 0^10.  State counts (medians 0.5) code "⊤ at queries 1 and 2,
    # both answers high" as one category (0 low, 2 high, 8 stopped, 0 ⊥: 2·11² + 8·11 = 330), whose
    # exact ratio e^0.0457 exceeds that of every sign-count event (at most "2 high": e^0.0344).
    # The masses come from integration; the statistic's frequencies are checked against them
    # (4.5 standard errors per input: false alarm < 10^-5).
    (p1, s1), (p0, s0) = _numerical_svt_masses(1.0), _numerical_svt_masses(0.0)
    assert np.log(p1 / p0) > np.log(s1 / s0) + 0.01
    t = StateCounts(np.full(10, 0.5), np.array([-1000.0, 0.0]))
    m, n = NumericalSVT(0.1, c=2, threshold=1.0), 1_000_000
    for x, p in ((np.ones(10), p1), (np.zeros(10), p0)):
        hits = np.count_nonzero(t(m.sample(x, np.random.default_rng(7), n)) == 330)
        assert abs(hits / n - p) < 4.5 * np.sqrt(p * (1 - p) / n), (hits / n, p)
