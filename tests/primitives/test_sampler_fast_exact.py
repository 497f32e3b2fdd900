"""The vectorised exact discrete Laplace sampler (issue 30, item 1): the same exact law on every path.

Seeded statistical checks. Each chi-square test rejects at p < 1e-6 (false-alarm rate 1e-6 per test
under the exact law); each proportion check uses 6.1 standard errors (two-sided rate < 1.1e-9).
Controls show the checks can fail: the same test rejects draws whose scale is 2 % off, and the
former float transform ⌊s·E₁⌋ − ⌊s·E₂⌋ at scale 2^53.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpverify.primitives import exact_noise as S
from dpverify.primitives.sampling import discrete_laplace, discrete_laplace_words

ALPHA = 1e-6
Z = 6.1


def chi2_pvalue(x: np.ndarray, scale: float, bins: int = 12) -> float:
    """Chi-square p-value of integer draws against the exact law P(K = k) = (1 − r)/(1 + r) r^|k|.

    Bins: K = 0, and for each sign the intervals [1, e₁), [e₁, e₂), …, [e_m, ∞) (e = 2..13 at small
    scales, else edges of about equal probability), with P(K ≥ a) = e^{−a/scale}/(1 + r) for a ≥ 1.
    """
    r = math.exp(-1.0 / scale)
    if scale < 4:
        E = np.arange(1, 14)
    else:
        q = np.linspace(0.5, 0, bins + 1)[1:-1]
        E = np.unique(np.concatenate([[1], np.maximum(1, np.ceil(-scale * np.log(q * (1 + r))))])).astype(np.int64)
    up = lambda a: np.exp(-a / scale) / (1 + r)  # noqa: E731  P(K >= a), a >= 1
    p_side = np.append(up(E[:-1].astype(float)) - up(E[1:].astype(float)), up(float(E[-1])))
    side = lambda v: np.bincount(np.searchsorted(E, v, side="right") - 1, minlength=E.size)  # noqa: E731
    obs = np.concatenate([[np.sum(x == 0)], side(x[x > 0]), side(-x[x < 0])])
    exp = np.concatenate([[(1 - r) / (1 + r)], p_side, p_side]) * x.size
    keep = exp > 5
    obs = np.append(obs[keep], obs[~keep].sum())
    exp = np.append(exp[keep], exp[~keep].sum())
    if exp[-1] <= 5:
        obs[-2] += obs[-1]
        exp[-2] += exp[-1]
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


# 53-bit rational scales as a release uses them: 1/(ε λ) with λ = 1/3, 2/7, ...
RATIONAL = [1 / (0.3 * (1 / 3)), 1 / (0.1 * (2 / 7)), 1 / (1e-9 * 0.61803398875), float(2**45 + 12345) / 3]


@pytest.mark.parametrize("scale", [0.3, 1.0, 3.7, 255.9, 256.0, 1000.5, 2.0**33 + 1] + RATIONAL)
def test_chi_square_against_the_exact_law(scale):
    x = discrete_laplace(scale, 60_000, rng=int(scale * 1000) % 2**31)
    assert chi2_pvalue(x, scale) > ALPHA


@pytest.mark.parametrize("scale", [3.7, 1000.5, RATIONAL[2]])
def test_control_a_two_percent_wrong_scale_is_rejected(scale):
    x = discrete_laplace(scale * 1.02, 200_000, rng=3)
    assert chi2_pvalue(x, scale) < ALPHA


def test_per_draw_scales_give_the_same_law_and_the_same_draws():
    """An array of scales (one per draw, as fda passes) and a scalar scale: same words, same draws."""
    for scale in (2.5, 700.0, RATIONAL[1]):
        a = discrete_laplace(scale, 20_000, rng=5)
        b = discrete_laplace(np.full(20_000, scale), 20_000, rng=5)
        assert (a == b).all()
    s = np.array(RATIONAL * 5000)
    x = discrete_laplace(s, s.size, rng=6)
    for i, scale in enumerate(RATIONAL):
        assert chi2_pvalue(x[i :: len(RATIONAL)], scale) > ALPHA


@pytest.mark.parametrize("scale", [3.0, 300.0, RATIONAL[2]])
def test_the_exact_fallback_path_has_the_law(monkeypatch, scale):
    """δ = 2^-6 sends a few percent of all decisions to the rational brackets; the law stays exact.

    (The per-draw-scale path computes its thresholds afresh, the one-scale path from a cache.)"""
    monkeypatch.setattr(S, "_DELTA", 2.0**-6)  # the scaled thresholds of one scale are cached: clear them
    S._one_scale.cache_clear()
    calls = []
    orig = S._less_exact
    monkeypatch.setattr(S, "_less_exact", lambda *a: calls.append(1) or orig(*a))
    x = discrete_laplace(scale, 4_000, rng=8)
    S._one_scale.cache_clear()
    assert len(calls) > 100
    assert chi2_pvalue(x, scale) > ALPHA


def test_exact_brackets_bound_the_exponential():
    import mpmath as mp

    mp.mp.dps = 90
    for x in (Fraction(1, 7), Fraction(5, 2), Fraction(2**57 - 3, 2**50), Fraction(10**6)):
        for prec in (53, 117, 245):
            lo, hi = S._exp_bracket(x, prec)
            v = mp.e ** (-mp.mpf(x.numerator) / x.denominator) * mp.mpf(2) ** prec
            assert lo <= v <= hi and hi - lo <= 3


def test_float_approximations_within_the_proven_bound():
    import mpmath as mp

    mp.mp.dps = 30
    y = np.random.default_rng(1).uniform(0, 41, 3000)
    f = S._exp_neg(y)
    assert max(abs(mp.mpf(float(a)) - mp.e ** -mp.mpf(float(b))) for a, b in zip(f, y)) < 2.0**-48.5
    # a control: the same check catches a single-precision exponential
    f32 = np.exp(-y[:200].astype(np.float32)).astype(float)
    assert max(abs(mp.mpf(float(a)) - mp.e ** -mp.mpf(float(b))) for a, b in zip(f32, y)) > 2.0**-48.5
    ys = np.random.default_rng(2).uniform(0, 1 / 256, 3000)
    assert max(abs(mp.mpf(float(a)) - mp.e ** -mp.mpf(float(b))) for a, b in zip(S._exp_small(ys), ys)) < 2.0**-49


def test_words_streams_are_per_entry_and_extend_exactly():
    """Entry i's draw depends on its own words only; a one-word budget uses the extension (same law)."""
    g = np.random.default_rng(2)
    n = 8_000
    words = g.integers(0, 2**64, size=(n, 2), dtype=np.uint64)
    extra = lambda i: np.random.Philox(key=i + 1).random_raw  # noqa: E731
    scale = np.full(n, 700.0)
    x = discrete_laplace_words(scale, words, extra)
    sub = np.arange(0, n, 7)
    y = discrete_laplace_words(scale[sub], words[sub], lambda j: extra(int(sub[j])))
    assert (x[sub] == y).all()
    assert chi2_pvalue(x, 700.0) > ALPHA
    assert (discrete_laplace_words(700.0, words, extra) == x).all()


def test_parity_fair_at_2_53_and_the_old_transform_is_not():
    n = 200_000
    x = discrete_laplace(2.0**53, n, rng=12)
    assert abs(np.mean(x % 2) - 0.5) < Z * math.sqrt(0.25 / n)
    e = np.random.default_rng(12).standard_exponential((2, n))
    old = np.floor(2.0**53 * e[0]) - np.floor(2.0**53 * e[1])
    assert abs(np.mean(old % 2) - 0.5) > Z * math.sqrt(0.25 / n)


def test_words_input_validated():
    w = np.zeros((3, 2), dtype=np.uint64)
    with pytest.raises(ValueError, match="words"):
        discrete_laplace_words(np.ones(4), w, lambda i: None)
    with pytest.raises(ValueError, match="words"):
        discrete_laplace_words(np.ones(3), w.astype(np.int64), lambda i: None)
    with pytest.raises(TypeError, match="extra"):
        discrete_laplace_words(np.ones(3), w, None)
    with pytest.raises(ValueError, match="scale"):
        discrete_laplace_words(np.full(3, 2.0**58), w, lambda i: None)


@pytest.mark.parametrize("scale", [2**53 + 1, np.longdouble(1) / 3, np.array([1, 2**60 + 1])])
def test_a_scale_that_is_not_a_float64_is_refused_not_rounded(scale):
    """Rounding 2**53 + 1 down to 2**53 would shrink the noise (ε grows by 1 + 2^-52): refused by name."""
    from dpverify.primitives.sampling import discrete_laplace, discrete_laplace_words

    with pytest.raises(ValueError, match="scale must be exactly a float64"):
        discrete_laplace(scale, 2, rng=0)
    w = np.zeros((np.size(scale), 8), dtype=np.uint64)
    with pytest.raises(ValueError, match="scale must be exactly a float64"):
        discrete_laplace_words(np.atleast_1d(scale), w, lambda i: None)
    assert discrete_laplace(2**53, 2, rng=0).dtype == np.int64  # exactly representable: accepted
