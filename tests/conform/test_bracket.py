"""The certified DP-SGD bracket: valid against the exact Gaussian form and a Monte-Carlo tail,
narrow on a few configurations, and every check shown able to flip."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import log_ndtr

from dpverify.conform import bracket_details, epsilon_bracket
from dpverify.conform.pld import compose, delta_curve, step_law


def gaussian_epsilon(mu: float, delta: float) -> float:
    """epsilon(delta) of mu-GDP (Dong, Roth, Su 2022, Cor. 2.13), solved numerically."""
    def f(e):
        return math.exp(log_ndtr(-e / mu + mu / 2)) - math.exp(e + log_ndtr(-e / mu - mu / 2)) - delta
    return brentq(f, 0.0, mu * mu + 50 * mu, xtol=1e-13)


Q1_FAST = [(1.0, 10, 1e-5), (5.0, 100, 1e-7), (0.7, 3, 1e-9)]
Q1_SLOW = [(s, t, d) for s in (0.5, 1.0, 3.0) for t in (1, 30, 1000) for d in (1e-5, 1e-9)]


@pytest.mark.parametrize("sigma,steps,delta", Q1_FAST)
def test_q1_contains_closed_form(sigma, steps, delta):
    low, high = epsilon_bracket(noise_multiplier=sigma, sample_rate=1.0, steps=steps, delta=delta)
    exact = gaussian_epsilon(math.sqrt(steps) / sigma, delta)
    assert low <= exact <= high
    assert high - low <= 0.01 * high
    # flips: the closed form of a 2 % different noise multiplier is outside the bracket
    assert not low <= gaussian_epsilon(math.sqrt(steps) / (1.02 * sigma), delta) <= high


@pytest.mark.slow
@pytest.mark.parametrize("sigma,steps,delta", Q1_SLOW)
def test_q1_contains_closed_form_grid(sigma, steps, delta):
    low, high = epsilon_bracket(noise_multiplier=sigma, sample_rate=1.0, steps=steps, delta=delta)
    assert low <= gaussian_epsilon(math.sqrt(steps) / sigma, delta) <= high


def _mc_delta(sigma, q, steps, eps, n, rng):
    """Monte-Carlo delta(eps) of both orders (values in [0, 1]: Hoeffding applies)."""
    out = []
    for order in ("remove", "add"):
        total = np.zeros(n)
        for _ in range(steps):
            x = rng.normal(0.0, sigma, n)
            if order == "remove":
                x = x + (rng.random(n) < q)
            a = (2 * x - 1) / (2 * sigma ** 2)
            loss = np.logaddexp(np.log1p(-q), np.log(q) + a)
            total += loss if order == "remove" else -loss
        out.append(float(np.mean(-np.expm1(np.minimum(eps - total, 0.0)))))
    return max(out)


def test_monte_carlo_tail_agrees():
    """Seeded; each of the 4 one-sided Hoeffding intervals fails w.p. <= 1e-4 (false alarm
    <= 4e-4 in all)."""
    sigma, q, steps, delta, n = 1.0, 0.2, 8, 0.05, 100_000
    low, high = epsilon_bracket(noise_multiplier=sigma, sample_rate=q, steps=steps, delta=delta)
    rng = np.random.default_rng(2026)
    half = math.sqrt(math.log(1e4) / (2 * n))
    # delta(high) <= delta <= delta(low), each true value within `half` of its estimate
    assert _mc_delta(sigma, q, steps, high, n, rng) - half <= delta
    assert _mc_delta(sigma, q, steps, low, n, rng) + half >= delta
    # flips: a bracket 30 % too low or too high is caught by the same estimate
    assert _mc_delta(sigma, q, steps, 0.7 * low, n, rng) - half > delta
    assert _mc_delta(sigma, q, steps, 1.3 * high, n, rng) + half < delta


@pytest.mark.slow
def test_monte_carlo_tail_agrees_small_sigma():
    """The heavy one-step tail of small sigma (sigma 0.6, q 0.05): seeded, 4 one-sided
    Hoeffding intervals each failing w.p. <= 1e-4 (false alarm <= 4e-4 in all)."""
    sigma, q, steps, delta, n = 0.6, 0.05, 30, 0.05, 200_000
    low, high = epsilon_bracket(noise_multiplier=sigma, sample_rate=q, steps=steps, delta=delta)
    rng = np.random.default_rng(2027)
    half = math.sqrt(math.log(1e4) / (2 * n))
    assert _mc_delta(sigma, q, steps, high, n, rng) - half <= delta
    assert _mc_delta(sigma, q, steps, low, n, rng) + half >= delta
    assert _mc_delta(sigma, q, steps, 0.7 * low, n, rng) - half > delta
    assert _mc_delta(sigma, q, steps, 1.3 * high, n, rng) + half < delta


@pytest.mark.parametrize("config", [(2.0, 0.01, 100, 1e-5), (1.0, 0.1, 300, 1e-7)])
def test_width_target(config):
    d = bracket_details(*config, stream=None)
    assert 0 < d.low <= d.high <= 1.01 * d.low + 1e-12
    assert d.seconds < 30


def test_upper_and_lower_laws_are_on_their_sides():
    """The rounded-up law's delta curve is above the rounded-down one at every eps, and the
    distance shrinks with the grid (it is about T h in eps)."""
    gaps = []
    for h in (1e-2, 1e-3):
        law = step_law(1.0, 0.05, h, "remove", tail=1e-14)
        up = compose(law, 50, tail=1e-14, upper=True)
        lo = compose(law, 50, tail=1e-14, upper=False)
        ds = [(delta_curve(up, e), delta_curve(lo, e)) for e in (0.0, 0.3, 0.6, 1.0)]
        assert all(a >= b for a, b in ds)
        gaps.append(max(a - b for a, b in ds))
    assert gaps[1] < gaps[0] / 5


def test_fft_composition_within_its_certified_bound():
    """The certified circular FFT power against direct convolution in long double: the observed
    l2 error is within the proven bound ``err``, and the law's delta is on its side."""
    law = step_law(1.0, 0.1, 0.01, "remove", tail=1e-16)
    up = compose(law, 4, tail=1e-14, upper=True)
    a = (law.upper + np.concatenate(([law.edge_err[0]], law.mass_err))).astype(np.longdouble)
    direct = np.convolve(np.convolve(a, a), np.convolve(a, a)) * (1 + 1e-11) ** 4
    s_direct = (4 * law.k0 + np.arange(direct.size)) * law.h
    s_up = (up.k0 + np.arange(up.p.size)) * up.h
    got = np.interp(s_direct, s_up, up.p, left=0.0, right=0.0)
    inside = (s_direct >= s_up[0]) & (s_direct <= s_up[-1])
    assert float(np.sqrt(np.sum((got[inside] - direct[inside]) ** 2))) <= up.err
    for e in (0.5, 1.0, 2.0):
        w = -np.expm1(np.minimum(e - s_direct, 0.0))
        assert delta_curve(up, e) >= float(np.dot(direct, w))


def test_fft_error_bound_holds_and_can_fail(monkeypatch):
    """Higham's bound on the radix-2 FFT holds against a long-double DFT; with a twiddle
    perturbed by 1e-9 the same comparison fails (the check can flip)."""
    from dpverify.conform import certfft

    n = 256
    x = np.random.default_rng(7).random(n)
    k = np.arange(n)
    pi = 4 * np.arctan(np.longdouble(1))                  # pi to long-double accuracy
    dft = np.exp(-2j * pi * (np.outer(k, k) % n).astype(np.longdouble) / n) @ x.astype(np.longdouble)
    re, im = certfft.fft(x, np.zeros(n))
    err = np.sqrt(np.sum(np.abs(re + 1j * im - dft) ** 2))
    assert err <= certfft.fft_error(n) * np.sqrt(np.sum(np.abs(dft) ** 2))
    wr, wi, mu = certfft.twiddles(n)
    bad = wr.copy()
    bad[5] += 1e-9
    monkeypatch.setattr(certfft, "twiddles", lambda m: (bad, wi, mu))
    re, im = certfft.fft(x, np.zeros(n))
    err = np.sqrt(np.sum(np.abs(re + 1j * im - dft) ** 2))
    assert err > certfft.fft_error(n) * np.sqrt(np.sum(np.abs(dft) ** 2))


def test_power_error_bound_holds_and_can_fail(monkeypatch):
    """The bound carried through the elementwise power and the inverse FFT holds against an
    exact (long-double, direct) 6-fold convolution; a power computed 1e-8 off breaks it."""
    from dpverify.conform import certfft, pld

    law = step_law(0.8, 0.3, 0.02, "add", tail=1e-14)
    up = compose(law, 6, tail=1e-13, upper=True)
    a = (law.upper + np.concatenate(([law.edge_err[0]], law.mass_err))).astype(np.longdouble)
    direct = a.copy()
    for _ in range(5):
        direct = np.convolve(direct, a)
    direct *= (1 + 1e-11) ** 6
    def on_window(c):
        out = np.zeros(c.p.size, dtype=np.longdouble)
        j = np.arange(direct.size) + 6 * law.k0 - c.k0
        ok = (j >= 0) & (j < c.p.size)
        out[j[ok]] = direct[ok]
        return out
    assert float(np.sqrt(np.sum((up.p - on_window(up)) ** 2))) <= up.err
    real = certfft.cpow
    monkeypatch.setattr(pld, "cpow", lambda ar, ai, k: tuple(v * (1 + 1e-8) for v in real(ar, ai, k)))
    pld._LAST[0] = None
    bad = compose(law, 6, tail=1e-13, upper=True)
    pld._LAST[0] = None
    assert float(np.sqrt(np.sum((bad.p - on_window(bad)) ** 2))) > bad.err


def test_sides_of_the_certified_delta():
    """An upper law's certified delta is at least the plain sum, a lower law's at most."""
    from dpverify.conform.pld import Composed

    p = np.array([0.2, 0.3, 0.5])
    plain = float(np.dot(p, -np.expm1(np.minimum(0.5 - np.arange(3.0), 0.0))))
    up = Composed(h=1.0, k0=0, p=p, inf=0.0, upper=True, err=1e-12)
    lo = Composed(h=1.0, k0=0, p=p, inf=0.0, upper=False, err=1e-12, alias=1e-9)
    assert delta_curve(up, 0.5) > plain > delta_curve(lo, 0.5)
    assert plain - delta_curve(lo, 0.5) >= 1e-9


@pytest.mark.parametrize("kw,name", [
    ({"noise_multiplier": 0.0}, "noise_multiplier"), ({"noise_multiplier": float("nan")}, "noise_multiplier"),
    ({"sample_rate": 0.0}, "sample_rate"), ({"sample_rate": 1.5}, "sample_rate"),
    ({"steps": 0}, "steps"), ({"delta": 1.0}, "delta"), ({"delta": -1e-5}, "delta"),
    ({"sampling": "shuffled"}, "shuffled"), ({"sampling": "fixed-size"}, "no certified bracket"),
    ({"sampling": "bogus"}, "sampling"),
    ({"rel_width": 0.0}, "rel_width")])
def test_bad_input_is_named(kw, name):
    args = dict(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5)
    args.update(kw)
    with pytest.raises(ValueError, match=name):
        epsilon_bracket(**args)


@pytest.mark.parametrize("kw,name", [({"steps": 2.5}, "steps"), ({"steps": True}, "steps"),
                                     ({"delta": "1e-5"}, "delta")])
def test_bad_types_are_named(kw, name):
    args = dict(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5)
    args.update(kw)
    with pytest.raises(TypeError, match=name):
        epsilon_bracket(**args)
