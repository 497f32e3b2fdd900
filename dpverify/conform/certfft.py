"""Floating-point FFT convolution power with a proven error bound (helpers of :mod:`dpverify.conform.pld`).

:func:`fft` is the radix-2 Cooley-Tukey algorithm written out in real arithmetic, one rounding per
operation, so Higham (2002, Thm 24.2) bounds its error: ``|fl(F x) - F x|_2 <= e |F x|_2`` with
``e = t eta / (1 - t eta)``, ``t = log2 n``, ``eta = mu + gamma_4 (sqrt 2 + mu)`` and ``mu`` the
error of the twiddle factors (:func:`fft_error`).  :func:`power_error` carries that bound through
the elementwise power and the inverse transform (proof: ``proofs/bracket.md``, step 4).
For speed the stages run in blocks that stay in cache (:func:`fft`) and :func:`cpow` runs in
blocks: the same operations on the same operands, so the same numbers as stage by stage
(``tests/conform/test_certfft.py`` checks it bit for bit).

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


def _transpose(src: np.ndarray, dst: np.ndarray, block: int = 256) -> None:
    """``dst[:] = src.T`` in strips of rows (an exact copy; kinder to the cache than one strided copy)."""
    for i in range(0, src.shape[0], block):
        dst[:, i:i + block] = src[i:i + block].T


def _stages(xr, xi, count, tw, bufs, scratch):
    """``count`` radix-2 stages on rows x columns ``(xr, xi)`` (Stockham order, see :func:`fft`).

    ``tw(m)`` gives the twiddles of the ``m`` rows; ``bufs`` (two ``(2, size)`` arrays) and
    ``scratch`` (``(3, size // 2)``) take every intermediate.  Returns ``(re, im, transposed)``.
    """
    m, cols = xr.shape
    size, k, transposed = m * cols, 0, False
    for _ in range(count):
        half = size // (2 * m)
        wr, wi = tw(m)
        if m < half and not transposed:
            fr, fi = wr[:, None], wi[:, None]
            er, ei, orr, oi = xr[:, :half], xi[:, :half], xr[:, half:], xi[:, half:]
            shape, top, bot, tshape = (2 * m, half), np.s_[:m], np.s_[m:], (m, half)
        else:                                   # held transposed: (2 half, m)
            if not transposed:
                tgt, k, transposed = bufs[k & 1], k + 1, True
                dr, di = tgt[0, :size].reshape(xr.shape[::-1]), tgt[1, :size].reshape(xr.shape[::-1])
                _transpose(xr, dr)
                _transpose(xi, di)
                xr, xi = dr, di
            fr, fi = wr, wi
            er, ei, orr, oi = xr[:half], xi[:half], xr[half:], xi[half:]
            shape, top, bot, tshape = (half, 2 * m), np.s_[:, :m], np.s_[:, m:], (half, m)
        tr, ti, t = (a[:size // 2].reshape(tshape) for a in scratch)
        np.multiply(fr, orr, out=tr)
        np.multiply(fi, oi, out=t)
        np.subtract(tr, t, out=tr)
        np.multiply(fr, oi, out=ti)
        np.multiply(fi, orr, out=t)
        np.add(ti, t, out=ti)
        out, k = bufs[k & 1], k + 1
        nr, ni = out[0, :size].reshape(shape), out[1, :size].reshape(shape)
        np.add(er, tr, out=nr[top])
        np.subtract(er, tr, out=nr[bot])
        np.add(ei, ti, out=ni[top])
        np.subtract(ei, ti, out=ni[bot])
        xr, xi, m = nr, ni, 2 * m
    return xr, xi, transposed


_BLOCK = 1 << 15                                # cells per block held in cache


def fft(re: np.ndarray, im: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Radix-2 Cooley-Tukey DFT, every real operation rounded once (Higham 2002, Sec. 24.1).

    Stage ``m`` (Stockham order): rows are the ``m`` sub-transforms (frequencies), columns the
    sub-sequences, and ``t = w^r x_odd`` with ``t_re = fl(fl(w_re o_re) - fl(w_im o_im))``,
    ``t_im = fl(fl(w_re o_im) + fl(w_im o_re))``, then ``y = x_even +- t``.  Each output column of
    the first ``s = log2(n) // 2`` stages needs only ``2^s`` input columns, and each output row of
    the others only its row modulo ``2^s``: both halves run in blocks that stay in cache, with the
    same operations on the same numbers (only their storage order differs).  Inputs are not changed.
    """
    n = re.size
    wr, wi, _ = twiddles(n)
    t = n.bit_length() - 1

    def tw_full(m):
        step = n // (2 * m)
        return np.ascontiguousarray(wr[::step][:m]), np.ascontiguousarray(wi[::step][:m])
    if n <= 1:
        return re.astype(float), im.astype(float)
    if n <= _BLOCK:
        bufs, scratch = (np.empty((2, n)), np.empty((2, n))), np.empty((3, max(n // 2, 1)))
        xr, xi, _ = _stages(re.reshape(1, n), im.reshape(1, n), t, tw_full, bufs, scratch)
        return xr.ravel(), xi.ravel()
    s = t // 2
    p, q = 1 << s, n >> s                       # after the first s stages: p rows, q columns
    c, r = max(_BLOCK // p, 1), max(_BLOCK // q, 1)
    size = max(p * c, q * r)
    bufs, scratch = (np.empty((2, size)), np.empty((2, size))), np.empty((3, size // 2))
    y = np.empty((2, p, q))
    for c0 in range(0, q, c):                   # first s stages, c columns at a time
        b = bufs[1][:, :p * c]
        b[0].reshape(p, c)[:] = re.reshape(p, q)[:, c0:c0 + c]
        b[1].reshape(p, c)[:] = im.reshape(p, q)[:, c0:c0 + c]
        xr, xi, tp = _stages(b[0].reshape(1, -1), b[1].reshape(1, -1), s, tw_full, bufs, scratch)
        y[0, :, c0:c0 + c] = xr.T if tp else xr
        y[1, :, c0:c0 + c] = xi.T if tp else xi
    out = np.empty((2, n))
    for r0 in range(0, p, r):                   # the other stages, r rows at a time
        def tw_rows(m, r0=r0):                  # block row j is row r0 + j % r + (j // r) p
            step, rows = n // (2 * p * m // r), p * m // r
            return tuple(np.ascontiguousarray(w[::step][:rows].reshape(-1, p)[:, r0:r0 + r]).ravel()
                         for w in (wr, wi))
        xr, xi, _ = _stages(y[0, r0:r0 + r], y[1, r0:r0 + r], t - s, tw_rows, bufs, scratch)
        out[0].reshape(q, p)[:, r0:r0 + r] = xr.reshape(q, r)
        out[1].reshape(q, p)[:, r0:r0 + r] = xi.reshape(q, r)
    return out[0], out[1]


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
    """``(ar + i ai) ** k`` elementwise by repeated squaring (each real operation rounded once).

    Computed in blocks of ``_BLOCK`` entries (elementwise, so the numbers are the same).
    """
    k = check_positive_int(k, "k")
    rr, ri = np.empty(ar.shape), np.empty(ar.shape)
    fr, fi, gr, gi = ar.reshape(-1), ai.reshape(-1), rr.reshape(-1), ri.reshape(-1)
    for i in range(0, fr.size, _BLOCK):
        gr[i:i + _BLOCK], gi[i:i + _BLOCK] = _cpow(fr[i:i + _BLOCK], fi[i:i + _BLOCK], k)
    return rr, ri


def _cpow(ar, ai, k):
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

    def norm(logs, k):                   # sqrt(sum (m + d)^(2k)), m rounded up; sum allowance 1e-9
        v = (2 * k) * logs
        top = float(np.max(v))
        if not math.isfinite(top):
            return math.exp(0.5 * float(logsumexp(v)))
        np.subtract(v, top, out=v)
        np.exp(v, out=v)
        return math.exp(0.5 * (top + math.log(float(np.sum(v)))) + 1e-9)
    e_p, w = 0.0, 0.0
    for m in mods:
        with np.errstate(divide="ignore"):
            logs = np.log(m * (1 + 4 * _U) + d)
        s_t = norm(logs, steps)
        e_p += steps * d * norm(logs, steps - 1) + rho * s_t
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
