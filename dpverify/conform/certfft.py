"""Floating-point FFT convolution power with a proven error bound (helpers of :mod:`dpverify.conform.pld`).

:func:`fft` is the radix-2 Cooley-Tukey algorithm written out in real arithmetic, one rounding per
operation, so Higham (2002, Thm 24.2) bounds its error: ``|fl(F x) - F x|_2 <= e |F x|_2`` with
``e = t eta / (1 - t eta)``, ``t = log2 n``, ``eta = mu + gamma_4 (sqrt 2 + mu)`` and ``mu`` the
error of the twiddle factors (:func:`fft_error`).  :func:`power_error` carries that bound through
the elementwise power and the inverse transform (proof: ``proofs/bracket.md``, step 4).

Example
-------
>>> import numpy as np
>>> x = np.arange(8.0)
>>> re, im = fft(x, np.zeros(8))
>>> bool(np.allclose(re + 1j * im, np.fft.fft(x)))
True
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import logsumexp

from dpverify.validation import check_positive_int

__all__: list[str] = []   # helpers of dpverify.conform.pld, not API

_U = float(np.finfo(float).eps) / 2


@functools.lru_cache(maxsize=4)
def twiddles(n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """``exp(-2 pi i k / n)``, ``k < n/2``, and ``mu``, a bound on each one's error (proof, step 3)."""
    if np.finfo(np.longdouble).eps <= 2.0 ** -63:          # cosl/sinl, then one rounding to double
        k = np.arange(n // 2, dtype=np.longdouble)
        th = k * (8 * np.arctan(np.longdouble(1)) / n)
        wr, wi, mu = np.cos(th).astype(float), -np.sin(th).astype(float), 2 * _U
    else:                                                   # assumes np.cos / np.sin within 4 ulp
        th = np.arange(n // 2) * (2 * np.pi / n)
        wr, wi, mu = np.cos(th), -np.sin(th), 32 * _U
    wr.setflags(write=False)
    wi.setflags(write=False)
    return wr, wi, mu


def fft(re: np.ndarray, im: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Radix-2 Cooley-Tukey DFT, every real operation rounded once (Higham 2002, Sec. 24.1).

    Stage ``m``: rows are the ``m`` sub-transforms, and ``y = x_even +- w^k x_odd``; once the
    rows outnumber the columns, the arrays are held transposed (same arithmetic, faster loops).
    """
    n = re.size
    wr, wi, _ = twiddles(n)
    xr, xi, m = re.reshape(1, n), im.reshape(1, n), 1
    while m < n:
        half = n // (2 * m)
        fr, fi = wr[::half][:m], wi[::half][:m]
        if m < half:
            fr, fi = fr[:, None], fi[:, None]
            er, ei, orr, oi = xr[:, :half], xi[:, :half], xr[:, half:], xi[:, half:]
            shape, top, bot = (2 * m, half), np.s_[:m], np.s_[m:]
        else:                                   # held transposed: (2 half, m)
            if xr.shape[0] == m:
                xr, xi = np.ascontiguousarray(xr.T), np.ascontiguousarray(xi.T)
            er, ei, orr, oi = xr[:half], xi[:half], xr[half:], xi[half:]
            shape, top, bot = (half, 2 * m), np.s_[:, :m], np.s_[:, m:]
        tr = fr * orr
        tr -= fi * oi
        ti = fr * oi
        ti += fi * orr
        nr, ni = np.empty(shape), np.empty(shape)
        np.add(er, tr, out=nr[top])
        np.subtract(er, tr, out=nr[bot])
        np.add(ei, ti, out=ni[top])
        np.subtract(ei, ti, out=ni[bot])
        xr, xi, m = nr, ni, 2 * m
    return xr.ravel(), xi.ravel()


def fft_error(n: int) -> float:
    """Bound ``e`` with ``|fl(F x) - F x|_2 <= e |F x|_2`` for :func:`fft` (Higham, Thm 24.2).

    >>> 0 < fft_error(1 << 20) < 1e-13
    True
    """
    n = check_positive_int(n, "n", maximum=1 << 40)
    if n & (n - 1) or n < 2:
        raise ValueError(f"n must be a power of two >= 2, got {n!r}")
    mu, t = (2 * _U if np.finfo(np.longdouble).eps <= 2.0 ** -63 else 32 * _U), n.bit_length() - 1
    eta = mu + 4 * _U / (1 - 4 * _U) * (math.sqrt(2) + mu)
    if not t * eta < 0.5:
        raise ValueError(f"n={n!r} is too large for the error bound")
    return float(t * eta / (1 - t * eta))


def cpow(ar, ai, k):
    """``(ar + i ai) ** k`` elementwise by repeated squaring (each real operation rounded once)."""
    rr, ri, br, bi = None, None, ar.copy(), ai.copy()
    t, t2 = np.empty_like(ar), np.empty_like(ar)
    while k:
        if k & 1:
            if rr is None:
                rr, ri = br.copy(), bi.copy()
            else:                                # r *= b
                np.multiply(rr, bi, out=t)
                np.multiply(ri, bi, out=t2)
                rr *= br
                rr -= t2
                ri *= br
                ri += t
        k >>= 1
        if k:                                    # b *= b
            np.multiply(br, bi, out=t)
            br *= br
            bi *= bi
            br -= bi
            np.add(t, t, out=bi)
    return rr, ri


def power_error(n: int, steps: int, znorm: float, mods: list) -> float:
    """Bound on the l2 error of the inverse-transformed tilted results (proof, step 4).

    ``mods``: ``|A_k|`` computed for each law; ``D`` bounds every ``|A_k - A_k computed|``.
    """
    ef, rt = fft_error(n), math.sqrt(n)
    d = ef * rt * znorm * (1 + 2 * _U) + 2 * _U * rt * znorm
    rho = math.expm1((2 * steps + steps.bit_length()) * math.log1p(2 * math.sqrt(2) * _U * 1.01))

    def norm(m, k):                      # sqrt(sum (m + d)^(2k)), m rounded up
        with np.errstate(divide="ignore"):
            return math.exp(0.5 * float(logsumexp(2 * k * np.log(m * (1 + 4 * _U) + d))))
    e_p, w = 0.0, 0.0
    for m in mods:
        s_t = norm(m, steps)
        e_p += steps * d * norm(m, steps - 1) + rho * s_t
        w += s_t * (1 + rho) * (1 + 2 * _U)
    e_p += 2 * _U * w + rt * 1e-290
    return (e_p + ef * (w + e_p)) / rt


def logm(a: np.ndarray, s: np.ndarray, lam: float) -> float:
    """An upper bound on ``log sum a e^{lam s}`` (relative allowance 1e-9)."""
    with np.errstate(divide="ignore"):
        return float(logsumexp(np.log(a) + lam * s)) + 1e-9


def window(a_up, a_lo, s, steps, lams, centers, budget):
    """(bottom, top, P_above_up, log tilted mass above top of the lower law, P_below_lo).

    ``top`` also keeps the upper law's tilted mass above it small: valid either way (wrapped
    mass only adds to the upper law), but mass wrapped from above is multiplied by the tilt.
    """
    grid, lb, (lam, lam_lo) = np.geomspace(1e-3, 1e3, 11), math.log(budget), lams
    tops = [(steps * logm(a_up, s, g) - lb) / g for g in lam + grid]
    tops += [(steps * logm(a_lo, s, lam_lo + g) - lam_lo * centers[1] - lb) / g for g in grid]
    tight = min((steps * logm(a_up, s, lam + g) - lam * centers[0] - lb) / g for g in grid)
    bots = [(lb - steps * logm(a_lo, s, -g)) / g for g in grid]
    lo_end, hi_end = steps * float(s[0]), steps * float(s[-1])
    i_up, i_lo = int(np.argmin(tops[:11])), int(np.argmin(tops[11:]))
    top = min(max(tops[i_up], tops[11 + i_lo], tight), hi_end)
    bottom = max(max(bots), lo_end)
    g_up, g_lo, g_b = lam + grid[i_up], lam_lo + grid[i_lo], grid[int(np.argmax(bots))]
    if top >= hi_end:
        above, tilt = 0.0, -math.inf
    else:
        above = math.exp(min(steps * logm(a_up, s, g_up) - g_up * top, 0.0))
        tilt = (lam_lo - g_lo) * top + steps * logm(a_lo, s, g_lo) - lam_lo * centers[1]
    below = 0.0 if bottom <= lo_end else math.exp(min(g_b * bottom + steps * logm(a_lo, s, -g_b), 0.0))
    return bottom, top, above, tilt, below
