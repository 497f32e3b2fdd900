"""Reading a certified ``delta(eps)`` and ``eps(delta)`` off a composed law, fast (helpers of bracket).

:func:`delta_at` is the bound of :func:`dpverify.conform.pld.delta_curve` (proof
``proofs/bracket.md``, step 5) evaluated in O(1) per ``eps`` after one O(n) pass: with
``j`` the first window index whose grid point is above ``eps``,

* the sum ``sum_{i >= j} p_i (1 - e^{eps - s_i}) = A_j - e^{eps - s_j} B_j`` from the suffix sums
  ``A_j = sum_{i >= j} p_i`` and ``B_j = sum_{i >= j} p_i e^{-(i - j) h}`` (all terms >= 0, so the
  round-off of both is at most ``gamma = 16 (n + 2) u`` of their value; proof, step 5);
* the FFT term ``E_2 || e^{-lam (s - center)} (w(s) + 4u) ||_2`` over ``s_i``, ``i >= j - 1``, in
  closed form: three finite geometric series (an upper bound on the same norm).

:func:`epsilon_at` searches ``eps`` as :func:`dpverify.conform.pld.epsilon_of` does, then narrows
the answer by bisection; every answer it returns is confirmed by :func:`delta_at`.

Example
-------
>>> import numpy as np
>>> from dpverify.conform.pld import Composed, delta_curve
>>> c = Composed(h=0.5, k0=-2, p=np.full(8, 0.125), inf=0.0)
>>> bool(abs(delta_at(c, 0.3) - delta_curve(c, 0.3)) < 1e-12)
True
"""

from __future__ import annotations

import math

import numpy as np
import scipy.signal

__all__: list[str] = []   # helpers of dpverify.conform.bracket, not API

_U = float(np.finfo(float).eps) / 2
_CACHE: list = []         # [(composed, tables)], the last four composed laws read


def tables(c):
    """``(A, B)``: suffix sums of ``p`` and of ``p e^{-(i - j) h}`` (cached for the last four laws)."""
    for cc, t in _CACHE:
        if cc is c:
            return t
    p = np.asarray(c.p, dtype=float)
    a = np.cumsum(p[::-1])[::-1]
    b = scipy.signal.lfilter([1.0], [1.0, -math.exp(-c.h)], p[::-1])[::-1]
    _CACHE.insert(0, (c, (a, b)))
    del _CACHE[4:]
    return a, b


def _first_above(c, eps: float) -> int:
    """The least ``j`` with ``(k0 + j) h > eps`` (``n`` if none)."""
    n = c.p.size
    j = min(max(int(math.floor(eps / c.h)) - c.k0 - 1, 0), n)
    while j > 0 and (c.k0 + j - 1) * c.h > eps:
        j -= 1
    while j < n and (c.k0 + j) * c.h <= eps:
        j += 1
    return j


def _geometric(x: float, count: int) -> float:
    """``sum_{k < count} e^{-x k}`` for ``x >= 0``."""
    if count <= 0:
        return 0.0
    if x == 0.0:
        return float(count)
    return -math.expm1(-x * count) / -math.expm1(-x)


def fft_norm(c, eps: float, j: int) -> float:
    """An upper bound on ``|| e^{-lam (s_i - center)} (w(s_i) + 4u) ||_2`` over ``i >= j - 1``."""
    i0 = max(j - 1, 0)
    count = c.p.size - i0
    if count <= 0:
        return 0.0
    d = (c.k0 + i0) * c.h
    y = math.exp(min(eps - d, 700.0))           # e^{eps - s}: terms are (1 + 4u - y e^{-kh})^2
    g = [_geometric((2 * c.lam + m) * c.h, count) for m in range(3)]
    terms = ((1 + 4 * _U) ** 2 * g[0], 2 * (1 + 4 * _U) * y * g[1], y * y * g[2])
    inner = terms[0] - terms[1] + terms[2]
    inner = max(inner, 0.0) + 64 * _U * sum(terms)   # cancellation and the series' round-off
    log_norm = 0.5 * (-2 * c.lam * (d - c.center) + math.log(inner)) if inner > 0 else -math.inf
    return math.exp(min(log_norm, 700.0)) * (1 + 1e-6)


def delta_at(c, eps: float) -> float:
    """The certified ``delta(eps)`` of :func:`dpverify.conform.pld.delta_curve`, in O(1)."""
    a_tab, b_tab = tables(c)
    n = c.p.size
    j = _first_above(c, eps)
    if j < n:
        a, b = float(a_tab[j]), float(b_tab[j])
        x = math.exp(min(eps - (c.k0 + j) * c.h, 0.0))
        value = max(a - x * b, 0.0)
        big = max(abs((c.k0 + j) * c.h), abs((c.k0 + n - 1) * c.h)) + abs(eps) + 1.0
    else:
        a = b = x = value = 0.0
        big = abs(eps) + 1.0
    mass = float(a_tab[j - 1]) if j > 0 else a       # one cell below: its grid point's round-off
    gamma = 16 * (n + 2) * _U
    slack = 1e-9 * value + 8 * _U * big * mass + gamma * (a + x * b)
    fft = c.err * fft_norm(c, eps, j) if c.err else 0.0
    if c.upper:
        return float(c.inf + value + slack + fft)
    tilt = -c.lam * (eps - c.center)
    return float(value - slack - fft - c.alias - math.exp(min(c.alias_log + tilt, 700.0)))


def _estimate(c, target: float) -> float:
    """The least ``eps`` with uncorrected ``delta <= target`` (closed form between grid points)."""
    if c.inf >= target:
        return math.inf
    a_tab, b_tab = tables(c)
    s = (c.k0 + np.arange(c.p.size)) * c.h
    ok = np.nonzero(c.inf + a_tab - b_tab <= target)[0]
    if not ok.size:
        return float(s[-1])
    k = int(ok[0])
    a, b = b_tab[k], a_tab[k]
    if a <= 0.0 or c.inf + b <= target:
        return float(s[k - 1] if k > 0 else s[k])
    value = s[k] + math.log((c.inf + b - target) / a)
    return float(min(max(value, s[k - 1] if k > 0 else -math.inf), s[k]))


def epsilon_at(c, target: float) -> float:
    """A certified ``eps`` for ``target`` on the side of ``c`` (``inf`` / ``-inf`` if none).

    Upper law: ``delta_at(c, eps) <= target``; lower law: ``delta_at(c, eps) >= target``.
    """
    if not 1e-250 <= target < 1.0:
        raise ValueError(f"target must be in [1e-250, 1), got {target!r}")
    e = _estimate(c, target)
    if not math.isfinite(e):
        return math.inf if c.upper else -math.inf
    sign = 1 if c.upper else -1

    def ok(v):
        d = delta_at(c, v)
        return d <= target if c.upper else d >= target
    step, bad = 1e-3 * c.h + 1e-6 * (1.0 + abs(e)), None
    for _ in range(200):
        if ok(e):
            break
        bad, e, step = e, e + sign * step, step * 2
    else:
        return math.inf if c.upper else -math.inf
    for _ in range(40 if bad is not None else 0):   # narrow between a failing and a passing eps
        mid = 0.5 * (bad + e)
        if ok(mid):
            e = mid
        else:
            bad = mid
        if abs(e - bad) <= 1e-12 * (1.0 + abs(e)):
            break
    return float(e)
