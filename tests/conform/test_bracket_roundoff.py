"""The round-off allowance of the computed cell boundaries x(ell) (proof ``bracket.md``, step 1,
"Boundary round-off") holds against 60-digit arithmetic, is not vacuous, and is relative in ell
(u |ell| slope, not u (1 + |ell|) slope) where the slope sigma^2 / q is large.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from dpverify.conform import pld

U = 2.0 ** -53


def _exact_x(k: int, h: float, sigma: float, q: float, order: str):
    """x(ell) at ell = k h exactly (h, sigma, q as the binary floats they are), or None off the range."""
    with mpmath.workdps(60):
        ell = mpmath.mpf(k) * mpmath.mpf(h)
        v = ell if order == "remove" else -ell
        s2 = mpmath.mpf(sigma) ** 2
        if q == 1.0:
            return s2 * v + mpmath.mpf(0.5)
        y = mpmath.expm1(v) + mpmath.mpf(q)
        if y <= 0:
            return None
        return s2 * (mpmath.log(y) - mpmath.log(mpmath.mpf(q))) + mpmath.mpf(0.5)


def _ratios(sigma, q, order, h, rng, n=25):
    """|computed x - exact x| / allowance at grid points across the loss range (and near 0)."""
    lo, hi = pld._loss_range(sigma, q, order, 1e-14)
    k0, k1 = int(np.floor(lo / h)), int(np.ceil(hi / h))
    ks = np.unique(np.concatenate([rng.integers(k0, k1 + 1, n), [k0, k1, 0, 1, -1, k0 + 1, k1 - 1]]))
    ell = ks * h
    x = pld._x_of_loss(ell, sigma, q, order)
    xs = np.where(np.isfinite(x), x, np.nan)
    dx = pld._x_roundoff(ell, xs, sigma, q, order)
    out = []
    for k, xv, d in zip(ks, x, dx):
        exact = _exact_x(int(k), h, sigma, q, order) if np.isfinite(xv) else None
        if exact is not None:
            out.append(float(abs(mpmath.mpf(float(xv)) - exact) / mpmath.mpf(float(d))))
    return out


def test_boundary_allowance_holds_and_is_not_vacuous():
    rng = np.random.default_rng(7)
    ratios = []
    for sigma in (0.5, 2.0, 5.0):
        for q in (1e-9, 1e-4, 0.3, 0.999, 1.0):
            for order in ("remove", "add"):
                for h in (1e-9, 1.6327786668343854e-07, 0.01):
                    ratios += _ratios(sigma, q, order, h, rng)
    assert len(ratios) > 1000
    assert max(ratios) <= 1.0, max(ratios)        # the allowance covers the actual error
    assert max(ratios) > 1 / 20                   # and an allowance 20x smaller would not


def test_allowance_is_relative_where_the_slope_is_large():
    """At sigma 2, q 1e-4 the slope dx/dell is about sigma^2 / q = 4e4: near ell = 0 the allowance
    is u |ell| slope plus O(u (sigma^2 |log q| + |x|)), far below the former 128 u slope (1 + |ell|)."""
    sigma, q, h = 2.0, 1e-4, 1.6e-7
    ell = np.arange(-200, 201) * h
    x = pld._x_of_loss(ell, sigma, q, "remove")
    dx = pld._x_roundoff(ell, x, sigma, q, "remove")
    slope = sigma ** 2 / q
    former = 128 * U * slope * (1 + np.abs(ell))
    assert np.all(dx < 0.01 * former)
    rest = 16 * U * (sigma ** 2 * (1 - np.log(q)) + np.abs(x) + 1)
    local = sigma ** 2 * np.exp(ell) / (np.expm1(ell) + q)        # |dx/dell| at ell
    assert np.all(dx <= 17 * U * local * np.abs(ell) + rest)      # 8u (|E| + |ell| (|E| + 1)) / y


@pytest.mark.parametrize("order", ["remove", "add"])
def test_far_tail_keeps_the_former_allowance(order):
    """Where the relative bound's condition fails (y within ~1e-13 of 0: the loss at its infimum),
    the former allowance (assumption 3) is used, never something smaller."""
    sigma, q = 0.5, 0.5
    v = np.log1p(-q) + np.array([1e-15, 1e-14, 1e-3])     # y = e^v - (1 - q): tiny, tiny, ordinary
    ell = v if order == "remove" else -v
    x = pld._x_of_loss(ell, sigma, q, order)
    dx = pld._x_roundoff(ell, x, sigma, q, order)
    assert np.all(np.isfinite(dx[:2])) and np.all(dx[:2] >= 128 * U * (1 + np.abs(x[:2])))
    assert dx[2] < dx[0]
