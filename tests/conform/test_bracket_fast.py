"""The bracket's fast reading (suffix sums), its Bernstein de-biasing and its CPU budget."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpverify.conform.bracket_read as br_read
from dpverify.conform import bracket_details
from dpverify.conform.bracket import _deviation, _tilts
from dpverify.conform.bracket_read import delta_at, epsilon_at, fft_norm
from dpverify.conform.bracket_var import rounding_variance
from dpverify.conform.pld import Composed, compose, delta_curve, epsilon_of, step_law


def _composed(sigma, q, steps, delta, h, order):
    lam = _tilts(sigma, q, steps, delta, None)[0 if order == "remove" else 1]
    law = step_law(sigma, q, h, order, tail=1e-4 * delta / steps / 4)
    return [compose(law, steps, tail=1e-4 * delta, upper=u, lam=lam[0], lam_lower=lam[1])
            for u in (True, False)]


@pytest.mark.parametrize("config", [(1.0, 0.01, 100, 1e-5, 1e-3, "remove"),
                                    (0.5, 1e-3, 50, 1e-7, 1e-3, "add"),
                                    (2.0, 1.0, 10, 1e-6, 1e-3, "remove")])
def test_fast_reading_matches_the_direct_sum(config):
    """delta_at is the direct delta_curve to 1e-6 relative; epsilon_at is certified by both
    and never on the wrong side of the direct search's answer."""
    for c in _composed(*config):
        for eps in (0.0, 0.05, 0.3, 1.0, 2.5):
            a, b = delta_curve(c, eps), delta_at(c, eps)
            assert abs(a - b) <= 1e-6 * abs(a) + 1e-250
        e_fast, e_direct = epsilon_at(c, config[3]), epsilon_of(c, config[3])
        sign = 1 if c.upper else -1          # the bisection only tightens the direct search
        assert -1e-9 <= sign * (e_direct - e_fast) < 0.05 * c.h + 1e-4 * abs(e_direct)
        if c.upper:
            assert delta_at(c, e_fast) <= config[3] and delta_curve(c, e_fast) <= config[3] * (1 + 1e-6)
        else:
            assert delta_at(c, e_fast) >= config[3] and delta_curve(c, e_fast) >= config[3] * (1 - 1e-6)


def _exact_value(c, eps):
    s = (c.k0 + np.arange(c.p.size)).astype(np.longdouble) * np.longdouble(c.h)
    p = c.p.astype(np.longdouble)
    keep = s > eps
    return float(np.sum(p[keep] * (1 - np.exp(np.longdouble(eps) - s[keep]))))


def _raw(upper, seed=3):
    p = np.random.default_rng(seed).dirichlet(np.ones(4096))
    return Composed(h=1e-3, k0=-1000, p=p, inf=0.0, upper=upper)


def test_fast_allowance_holds_against_long_double_and_can_fail(monkeypatch):
    """Upper reading >= the long-double sum >= lower reading; B 1e-8 off breaks it."""
    up, lo = _raw(True), _raw(False)
    for eps in (0.1, 0.7, 1.9):
        exact = _exact_value(up, eps)
        assert delta_at(lo, eps) <= exact <= delta_at(up, eps)
    br_read._CACHE.clear()
    real = br_read.tables

    def off(c):
        a, b = real(c)
        return a, b * (1 + 1e-8)
    monkeypatch.setattr(br_read, "tables", off)
    assert any(delta_at(up, e) < _exact_value(up, e) for e in (0.1, 0.7, 1.9))
    br_read._CACHE.clear()


def test_closed_form_fft_norm_is_the_direct_norm():
    """The three geometric series equal the direct weighted norm (over i >= j - 1)."""
    up = _composed(1.0, 0.01, 100, 1e-5, 1e-3, "remove")[0]
    for eps in (0.2, 0.8, 1.5):
        j = br_read._first_above(up, eps)
        i0 = max(j - 1, 0)
        s = (up.k0 + np.arange(i0, up.p.size)) * up.h
        u = np.finfo(float).eps / 2
        w = 1 + 4 * u - np.exp(eps - s)
        direct = math.sqrt(float(np.sum(np.exp(-2 * up.lam * (s - up.center)) * w * w)))
        closed = fft_norm(up, eps, j)
        assert direct <= closed <= direct * (1 + 1e-5)


def _mc_rounding_variance(sigma, q, h, order, n, rng):
    comp = rng.random(n) < (q if order == "remove" else 0.0)
    x = rng.normal(np.where(comp, 1.0, 0.0), sigma)
    a = (2 * x - 1) / (2 * sigma ** 2)
    y = np.logaddexp(math.log1p(-q), math.log(q) + a) * (1 if order == "remove" else -1)
    z = np.ceil(y / h) * h - y
    return float(np.var(z)), float(np.std((z - z.mean()) ** 2) / math.sqrt(n))


@pytest.mark.parametrize("config", [(1.0, 0.01, 1e-4, "remove"), (1.0, 1e-4, 2e-6, "add")])
def test_rounding_variance_bounds_a_monte_carlo_variance(config):
    """Seeded: v >= the sample variance - 4 standard errors (false alarm <= 4e-5, normal
    approximation); the sample variance is within 10 % of h^2/12, so a bound 10 % too small
    would fail the first check: the check can flip."""
    sigma, q, h, order = config
    v = rounding_variance(step_law(sigma, q, h, order, tail=1e-12))
    var, se = _mc_rounding_variance(sigma, q, h, order, 200_000, np.random.default_rng(11))
    assert v >= var - 4 * se
    assert 0.9 * h * h / 12 < var - 4 * se and v < 0.12 * h * h
    assert not 0.9 * var >= var - 4 * se


def test_bernstein_deviation_is_never_wider_than_hoeffding():
    for var in (1 / 12, 1 / 8, 1 / 4):
        for steps in (10, 10 ** 3, 10 ** 5):
            assert _deviation(1.0, var, steps, 20.0) <= math.sqrt(steps * 20.0 / 2) * (1 + 1e-12)
    assert _deviation(1.0, 1 / 12, 10 ** 5, 20.0) < 0.6 * math.sqrt(10 ** 5 * 20.0 / 2)


def test_cpu_budget_only_widens():
    """A tiny CPU budget stops after the first grid: wider, still around the exact q = 1 value."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr
    mu, delta = math.sqrt(10) / 1.0, 1e-5

    def f(e):
        return math.exp(log_ndtr(-e / mu + mu / 2)) - math.exp(e + log_ndtr(-e / mu - mu / 2)) - delta
    exact = brentq(f, 0.0, 100.0, xtol=1e-14)
    quick = bracket_details(1.0, 1.0, 10, delta, stream=None, max_seconds=1e-6)
    full = bracket_details(1.0, 1.0, 10, delta, stream=None)
    assert quick.low <= exact <= quick.high and full.low <= exact <= full.high
    assert quick.high - quick.low >= full.high - full.low
    assert full.cpu_seconds > 0


@pytest.mark.parametrize("value", [0, -1.0, True, "1"])
def test_bad_budget_is_named(value):
    with pytest.raises((TypeError, ValueError), match="max_seconds"):
        bracket_details(1.0, 0.1, 10, 1e-5, stream=None, max_seconds=value)
