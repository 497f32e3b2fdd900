"""Exact exponential-mechanism sampling, far tail included (issue 10, item 4).

The far-tail probability (1e-18) is checked analytically on the sampler's CDF brackets and with a
rigged Generator that feeds chosen uniform draws, not by sampling 1e18 times.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpverify.primitives import exponential_mechanism, exponential_probabilities
from dpverify.primitives.exponential import exponential_cdf_bounds

D = -2 * math.log(1e18)  # score of the far outcome: weight e^{D/2} = 1e-18 against the best's 1


def _p_far():
    with mpmath.workdps(80):
        w = mpmath.exp(mpmath.mpf(D) / 2)  # ε = Δq = 1, factor 2
        return w / (1 + w)


class Rigged(np.random.Generator):
    """A Generator whose ``integers`` returns prescribed values (then falls back to PCG64)."""

    def __init__(self, values):
        super().__init__(np.random.PCG64(0))
        self.values = list(values)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if self.values:
            v = self.values.pop(0)
            return np.array(v, dtype=dtype) if size is not None else dtype(v) if dtype is not np.int64 else np.int64(v)
        return super().integers(low, high, size=size, dtype=dtype, endpoint=endpoint)


def test_far_tail_probability_exact_on_the_cdf():
    """Outcome 1 owns [C_1, 1) with C_1 = 1/(1 + 1e-18): bracketed to 2^-200 around the analytic value."""
    p = _p_far()
    A, B = exponential_cdf_bounds([0.0, D], 1.0, 1.0, bits=200)
    with mpmath.workdps(80):
        lo = (2**200 - B[0]) / mpmath.mpf(2) ** 200  # P(u ≥ upper bracket)
        hi = (2**200 - A[0]) / mpmath.mpf(2) ** 200
        assert lo <= p <= hi and hi - lo <= mpmath.mpf(2) ** -199
        assert abs(p - mpmath.mpf("1e-18")) < mpmath.mpf("1e-30")  # D is a float: 1e-18 up to rounding
    # at the sampler's first 62 bits, ~4.6 of the 2^62 draws fall beyond the boundary
    A62, B62 = exponential_cdf_bounds([0.0, D], 1.0, 1.0)
    assert 2**62 - B62[0] == 4 and 2**62 - A62[0] == 5


def test_rigged_generator_draws_the_far_outcome():
    top = 2**62 - 1
    assert exponential_mechanism([0.0, D], 1.0, 1.0, rng=Rigged([[top]]), size=1).tolist() == [1]
    assert exponential_mechanism([0.0, D], 1.0, 1.0, rng=Rigged([[2**62 - 4]]), size=1).tolist() == [1]
    assert exponential_mechanism([0.0, D], 1.0, 1.0, rng=Rigged([[2**62 - 6]]), size=1).tolist() == [0]
    # U = 2^62 − 5 lies in the bracket: the sampler draws 64 more bits and decides on them
    A, B = exponential_cdf_bounds([0.0, D], 1.0, 1.0, bits=126)
    below, above = A[0] - (2**62 - 5) * 2**64 - 1, B[0] - (2**62 - 5) * 2**64 + 1
    assert 0 <= below < 2**64 and 0 <= above < 2**64
    assert exponential_mechanism([0.0, D], 1.0, 1.0, rng=Rigged([[2**62 - 5], below]), size=1).tolist() == [0]
    assert exponential_mechanism([0.0, D], 1.0, 1.0, rng=Rigged([[2**62 - 5], above]), size=1).tolist() == [1]


def test_gumbel_float_would_never_draw_it():
    """The former Gumbel-max sampler's noise spans only ~[−3.6, 36.7]: a 41.4-nat gap is never crossed."""
    g = np.random.default_rng(0).gumbel(size=2_000_000)
    assert g.max() - g.min() < 41.4


def test_law_matches_probabilities_chisquare():
    """false alarm 1e-6 (p-value threshold)."""
    scores = [1.0, 5.0, 2.0, -3.0]
    p = exponential_probabilities(scores, 1.0, 1.5)
    idx = exponential_mechanism(scores, 1.0, 1.5, rng=4, size=100_000)
    assert stats.chisquare(np.bincount(idx, minlength=4), p * idx.size).pvalue > 1e-6


def test_extreme_epsilon_finite_results():
    assert exponential_probabilities([0.0, 1.0], 1.0, 1e308).tolist() == [0.0, 1.0]
    assert exponential_probabilities([0.0, 1e308], 1.0, 1e308).tolist() == [0.0, 1.0]
    p = exponential_probabilities([0.0, 1.0], 1.0, 5e-324)
    assert np.isfinite(p).all() and abs(p[0] - 0.5) < 1e-15
    assert exponential_mechanism([0.0, 1.0], 1.0, 1e308, rng=0, size=3).tolist() == [1, 1, 1]


def test_size_validated():
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises((ValueError, TypeError), match="size"):
            exponential_mechanism([0.0, 1.0], 1.0, 1.0, rng=0, size=bad)
    with pytest.raises(ValueError, match="size"):
        exponential_mechanism([0.0, 1.0], 1.0, 1.0, rng=0, size=10**12)
    assert exponential_mechanism([0.0, 1.0], 1.0, 1.0, rng=0, size=np.int64(2)).shape == (2,)
