"""Exact two-sided geometric draws at float speed: the core of ``discrete_laplace``.

:func:`two_sided_geometric` returns K with P(K = k) = (1 − r)/(1 + r) · r^|k|, r = e^{−1/s},
exactly, vectorised over the draws.  One uniform real V (the top 53 bits of a 64-bit word, later
bits from further words) gives |K| by inversion on a coarse grid: Q' = max{m : V < T_m} with
T_0 = 1 and T_m = q₁ · e^{−(m−1)x} (q₁ = 2r/(1 + r) = P(|K| ≥ 1), x = M/s, M = 2^⌊log₂ s − 8⌋ or 1);
|K| = 0 when Q' = 0, else 1 + (Q' − 1)·M + R with R on {0, …, M − 1}, P(R = u) ∝ e^{−u/s}, by
rejection (a uniform u, accepted when a fresh V < e^{−u/s}); the sign is the lowest bit of V's
word.  Every comparison "V < p" is settled by a float p̂ with a proven |p̂ − p| < 2^-46 when
|V − p̂| > 2^-44, else (probability < 2^-42 per comparison) by exact rational brackets of p and
further random bits.  Proof: ``primitives/discrete_laplace_sampler.md``.

Example
-------
>>> raw = np.random.default_rng(0).bit_generator.random_raw
>>> two_sided_geometric(np.array([3.0]), 4, lambda ids: raw(ids.size)).dtype
dtype('int64')
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from dpverify.budget import check_elements
from dpverify.validation import check_nonneg_int, check_size

__all__ = ["two_sided_geometric"]

_DELTA = 2.0**-44  # decision margin; every approximation p̂ is within 2^-46 of its p
_TWO53 = 2.0**53
_X_CAP = 1e6  # float path only: e^{-y} is approximated by 0 beyond y = 40 anyway
_LEVEL = 9  # M = 2^(⌊log2 s⌋ − 8): M/s ∈ (1/512, 1/256]
_STEP = 512  # the table E[j] = e^{-j/512}, j ≤ 40·512
_LN2_53 = 53.0 * math.log(2.0)  # ln V̂ = ln(W + ½) − 53 ln 2 (the candidate only)
_TAYLOR = [(-1.0) ** i / math.factorial(i) for i in range(7)]


def _exp_bracket(x: Fraction, prec: int) -> tuple[int, int]:
    """Integers L ≤ e^{-x}·2^prec ≤ H for rational x ≥ 0 (directed rounding; H − L ≤ 3)."""
    if x == 0:
        return 1 << prec, 1 << prec
    if x > prec:  # e^{-x} < e^{-prec} < 2^{-prec}
        return 0, 1
    sq = math.ceil(math.log2(x)) if x > 1 else 0
    y, q = x / (1 << sq), prec + 2 * sq + 16  # y ≤ 1: the terms y^i/i! decrease
    prev, term, i = Fraction(1), Fraction(1), 0
    while True:  # consecutive partial sums of the alternating series bracket e^{-y}
        i += 1
        term = -term * y / i
        cur = prev + term
        if abs(term) < Fraction(1, 1 << (q + 2)):
            break
        prev = cur
    lo, hi = math.floor(min(prev, cur) * (1 << q)), math.ceil(max(prev, cur) * (1 << q))  # proof: exp-bracket
    for _ in range(sq):  # e^{-2y} = (e^{-y})^2, rounded down / up
        lo, hi = (lo * lo) >> q, -((-hi * hi) >> q)  # proof: exp-bracket-square
    return lo >> (q - prec), -((-hi) >> (q - prec))


@functools.lru_cache(maxsize=1)
def _exp_table() -> np.ndarray:
    """E[j] = e^{-j/512} rounded to the nearest float, j = 0 … 20480, from 256-bit integer brackets."""
    prec = 256
    lo1, hi1 = _exp_bracket(Fraction(1, _STEP), prec)
    lo = hi = 1 << prec
    out = np.empty(40 * _STEP + 1)
    for j in range(out.size):
        out[j] = (lo + hi) / (2 << prec)  # proof: exp-table
        lo, hi = (lo * lo1) >> prec, -((-hi * hi1) >> prec)
    out.setflags(write=False)
    return out


def _exp_small(y, deg: int = 5) -> np.ndarray:
    """≈ e^{-y} for 0 ≤ y ≤ 1/256, error < 2^-49: the Taylor polynomial of degree ``deg`` (5, or 4
    when y < 1/512) by Horner."""
    p = np.multiply(y, _TAYLOR[deg], out=np.empty(np.shape(y)))  # c_deg·y: Horner's first step
    for i, c in enumerate(_TAYLOR[deg - 1::-1]):
        if i:
            p *= y
        p += c  # proof: exp-small
    return p


def _exp_neg(y, top: float | None = None) -> np.ndarray:
    """≈ e^{-y} for y ≥ 0, error < 2^-49: E[⌊512 y⌋]·e^{-b} (b the exact remainder), 0 beyond 40.

    ``top``: the largest y, when the caller knows it (saves a pass over y)."""
    y = np.asarray(y, dtype=np.float64)
    far = (np.max(y, initial=0.0) if top is None else top) > 40.0
    yc = np.minimum(y, 40.0) if far else y
    j = (yc * _STEP).astype(np.int64)
    p = _exp_small(yc - j * (1.0 / _STEP), 4)  # proof: exp-neg
    p *= _exp_table()[j]  # proof: exp-neg-table
    if far:
        p[y > 40.0] = 0.0  # proof: exp-neg-tail
    return p


def _exp_any(y, top: float | None = None) -> np.ndarray:
    """≈ e^{-y}, error < 2^-49: :func:`_exp_small` when every y ≤ 1/256, else :func:`_exp_neg`
    (``top``: the largest y, when the caller knows it)."""
    y = np.asarray(y, dtype=np.float64)
    top = float(np.max(y, initial=0.0)) if top is None else top
    return _exp_small(y) if top <= 1.0 / 256.0 else _exp_neg(y, top)


def _less_exact(a: int, prec: int, bracket, more) -> tuple[bool, int, int]:
    """Decide V < p for V uniform on [a, a + 1)·2^-prec, ``bracket(k)`` = (L, H), L ≤ p·2^k ≤ H."""
    while True:
        lo, hi = bracket(prec)
        if a + 1 <= lo:
            return True, a, prec  # proof: less-exact-yes
        if a >= hi:
            return False, a, prec  # proof: less-exact-no
        a, prec = (a << 64) | int(more()), prec + 64  # proof: less-exact-extend


def _t_bracket(s: Fraction, x: Fraction, m: int, prec: int) -> tuple[int, int]:
    """Brackets of T_m·2^prec: T_0 = 1, T_m = q₁ e^{-(m−1)x}, q₁ = 2r/(1 + r) increasing in r = e^{-1/s}."""
    if m == 0:
        return 1 << prec, 1 << prec
    P = prec + 8
    lr, hr = _exp_bracket(1 / s, P)
    le, he = _exp_bracket((m - 1) * x, P)
    one = 1 << P
    lo = (2 * lr * le << prec) // ((one + lr) * one)  # proof: t-bracket
    hi = -((-(2 * hr * he) << prec) // ((one + hr) * one))  # proof: t-bracket
    return lo, hi


class _Tables:
    """Per scale s: M = 2^kb, x = M/s, ρ ≈ e^{-x}, q₁ ≈ 2r/(1 + r); with one scale, T[m] ≈ T_m tabulated."""

    @np.errstate(over="ignore", divide="ignore", invalid="ignore")
    def __init__(self, s: np.ndarray, least: float | None = None, top: float | None = None):
        self.one = s.size == 1
        self.s = s[0] if self.one else s
        if least is None or top is None:  # the extremes of s (the caller may know them)
            least, top = float(np.min(s)), float(np.max(s))
        self.unit = top < 256.0  # M = 1 for every entry
        if self.unit:
            self.kb, self.M = np.int64(0), np.int64(1)
        else:
            self.kb = np.maximum(np.frexp(self.s)[1].astype(np.int64) - _LEVEL, 0)  # M/s ∈ (1/512, 1/256] if M > 1
            self.M = np.left_shift(np.int64(1), self.kb)
        if self.unit and not self.one:  # x = 1/s: its extremes are those of s (division is monotone)
            self.x = 1.0 / self.s
            xmax = min(1.0 / least, _X_CAP)
            if 1.0 / least > _X_CAP:
                np.minimum(self.x, _X_CAP, out=self.x)
            self.rho = _exp_any(self.x, xmax)
        else:
            self.x = np.minimum(self.M / self.s, _X_CAP)
            self.rho = _exp_any(self.x)
        r = self.rho if self.unit else np.where(self.kb > 0, _exp_small(np.minimum(1.0 / self.s, 1 / 256)), self.rho)
        self.q1 = 2.0 * r / (1.0 + r)  # proof: tab-q1
        # the least x: with M = 1 that of the largest scale (x = 1/s is monotone in s), no pass over s
        least = np.minimum(1.0 / top, _X_CAP) if self.unit else np.min(self.x)
        self.L = int(np.ceil(40.0 / least)) + 3
        if self.one:  # T[0] = 2 stands for T_0 = 1: V < 1 always, and 2 − δ > V decides it
            e = _exp_neg(np.arange(self.L - 1) * self.x)
            T = np.concatenate([[2.0], self.q1 * e])  # proof: tab-thresholds
            self.T_hi, self.T_lo = (T - _DELTA) * _TWO53, (T + _DELTA) * _TWO53  # proof: decide-scaled
            self.T_hi.setflags(write=False)
            self.T_lo.setflags(write=False)
        self.lq1 = np.log(self.q1)  # the candidate's float inversion only
        self.lq1 += _LN2_53  # ln q̂₁ − ln V̂ = lq1 − ln(W + ½), V̂ = (W + ½)·2^-53
        self.inv_x = self.s if self.unit and not self.one else 1.0 / self.x  # 1/x (M = 1: s, as good)

    def thresholds(self, c: np.ndarray, cm1: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """((T̂_c − δ)·2^53, (T̂_{c+1} + δ)·2^53) per entry, T̂ within 2^-46 of T (T_0 as 2); ``cm1``:
        max(c − 1, 0), as floats or integers (computed when not given)."""
        if self.one:
            return self.T_hi[c], self.T_lo[c + 1]
        e = _exp_neg((np.maximum(c - 1, 0) if cm1 is None else cm1) * self.x)  # fl((c − 1)·x), one rounding
        hi = np.where(c == 0, 2.0, self.q1 * e)  # proof: tab-direct
        lo = self.q1 * np.where(c == 0, 1.0, e * self.rho)  # proof: tab-direct
        return (hi - _DELTA) * _TWO53, (lo + _DELTA) * _TWO53  # proof: decide-scaled

    def at(self, name: str, i):
        v = getattr(self, name)
        return v if np.ndim(v) == 0 else v[i]

    def exact(self, i: int) -> tuple[Fraction, Fraction]:
        """(s, x) of entry i as exact rationals."""
        s = Fraction(float(self.at("s", i)))
        return s, int(self.at("M", i)) / s


@functools.lru_cache(maxsize=32)
def _one_scale(s: float) -> _Tables:
    """The tables of one scale, kept for the next call with the same scale (never modified)."""
    return _Tables(np.array([s]))


def _inverse_exact(W: int, s: Fraction, x: Fraction, start: int, more) -> int:
    """Q' = max{m : V < T_m} for V on [W, W + 1)·2^-53, exactly, walking from ``start`` (T decreases)."""
    a, prec, m = W, 53, max(int(start), 0)
    while m > 0:
        ok, a, prec = _less_exact(a, prec, lambda k, m=m: _t_bracket(s, x, m, k), more)
        if ok:
            break
        m -= 1
    while True:
        ok, a, prec = _less_exact(a, prec, lambda k, m=m: _t_bracket(s, x, m + 1, k), more)
        if not ok:
            return m
        m += 1


def _decide(W: np.ndarray, f: np.ndarray, bracket_of, more_of) -> np.ndarray:
    """[V < p] per entry: W the 53-bit prefixes of V, f ≈ p within 2^-46, bracket_of(i) exact brackets."""
    wf = W.astype(np.float64)
    yes = wf + 1.0 <= (f - _DELTA) * _TWO53  # proof: decide-yes
    no = wf >= (f + _DELTA) * _TWO53  # proof: decide-no
    for i in np.flatnonzero(~(yes | no)):
        yes[i] = _less_exact(int(W[i]), 53, bracket_of(i), more_of(i))[0]  # proof: decide-exact
    return yes


def _remainders(tab: _Tables, sel: np.ndarray, draw) -> np.ndarray:
    """R on {0, …, M − 1}, P(R = u) ∝ e^{-u/s}, for the entries ``sel``: u uniform, accepted if V < e^{-u/s}."""
    R = np.zeros(sel.size, dtype=np.int64)
    pend = np.arange(sel.size) if np.ndim(tab.kb) == 0 else np.flatnonzero(tab.kb[sel] > 0)
    if np.ndim(tab.kb) == 0 and tab.kb == 0:
        pend = pend[:0]
    while pend.size:
        ids = sel[pend]
        s, kb = tab.at("s", ids), tab.at("kb", ids)
        u = (draw(ids) >> (64 - kb).astype(np.uint64)).astype(np.int64)  # proof: geo-r-uniform
        Wr = (draw(ids) >> np.uint64(11)).astype(np.int64)
        acc = Wr + 1.0 <= (tab.at("rho", ids) - _DELTA) * _TWO53  # V < ρ = e^{-M/s} ≤ e^{-u/s}  # proof: geo-r-quick
        rest = np.flatnonzero(~acc)
        if rest.size:
            ur, idr, sr = u[rest], ids[rest], s if np.ndim(s) == 0 else s[rest]
            br = lambda i: (lambda p, i=i: _exp_bracket(int(ur[i]) / tab.exact(int(idr[i]))[0], p))  # noqa: E731
            mo = lambda i: (lambda i=i: draw(idr[i : i + 1])[0])  # noqa: E731
            acc[rest] = _decide(Wr[rest], _exp_small(ur / sr), br, mo)  # proof: geo-r-accept
        R[pend[acc]] = u[acc]
        pend = pend[~acc]
    return R


def _ids(n: int) -> np.ndarray:
    """``arange(n)``; read-only and kept for the next call of the same size up to 2^16 (a release's runs)."""
    return _small_ids(n) if n <= 1 << 16 else np.arange(n)


@functools.lru_cache(maxsize=4)
def _small_ids(n: int) -> np.ndarray:
    ids = np.arange(n)
    ids.setflags(write=False)
    return ids


def _candidate(wf: np.ndarray, tab: _Tables) -> tuple[np.ndarray, np.ndarray]:
    """The candidate Q' = ⌊(ln q̂₁ − ln V̂)/x⌋ + 1 in [0, L − 3], V̂ = (W + ½)·2^-53 (any value: it is
    checked), and max(Q' − 1, 0) as floats (the per-draw thresholds' e^{-(Q'−1)x} reads it)."""
    f = wf + 0.5
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        np.log(f, out=f)
        np.subtract(tab.lq1, f, out=f)  # ln q̂₁ − ln V̂
        np.multiply(f, tab.inv_x, out=f)
        np.floor(f, out=f)
    np.fmax(f, -1.0, out=f)  # Q' − 1 in [−1, L − 4]; NaN (never expected) becomes −1, ±inf is clipped
    np.fmin(f, tab.L - 4, out=f)
    c = f.astype(np.int64)
    c += 1
    return c, (None if tab.one else np.maximum(f, 0.0, out=f))


def two_sided_geometric(s: np.ndarray, n: int, draw) -> np.ndarray:
    """n exact draws of P(K = k) ∝ e^{-|k|/s}: one scale (``s.size == 1``) or one per draw.

    ``draw(ids)`` returns one fresh uniform 64-bit word (uint64) for each id in the int64 array
    ``ids`` (the draws' own streams; with a shared stream the ids only count the words).

    Example
    -------
    >>> raw = np.random.default_rng(0).bit_generator.random_raw
    >>> two_sided_geometric(np.array([2.0]), 3, lambda ids: raw(ids.size)).shape
    (3,)
    """
    s = np.asarray(s)
    check_elements(s, "s")  # a zero-stride view is refused by its logical size, before any copy
    if s.dtype.kind not in "iuf":  # bool, complex, text: not scales
        raise TypeError(f"s must be one or more real scales, got an array of dtype {s.dtype}")
    s = np.asarray(s, dtype=np.float64).ravel()
    n = check_nonneg_int(n, "n")
    check_size(max(n, 1), "n")  # the n draws: refused up front beyond the memory budget
    least, top = (float(s.min()), float(s.max())) if s.size else (math.nan, math.nan)  # NaN fails both tests
    if s.size not in (1, n) or not (least > 0 and top <= 2.0**57):
        raise ValueError(f"s must be one scale or {n} scales in (0, 2^57], got {s.size} values")
    if not callable(draw):
        raise TypeError(f"draw must be callable, got {draw!r}")
    # one scale, or one per draw; equal scales (as a binary or Fenwick release passes them) take the
    # one-scale path: the same decisions on the same words, so the same draws
    tab = _one_scale(least) if least == top else _Tables(s, least, top)
    ids = _ids(n)
    w = draw(ids)
    wf = (w >> np.uint64(11)).astype(np.float64)  # proof: geo-w
    neg = (w & np.uint64(1)).astype(bool)  # proof: dlap-sign
    c, cm1 = _candidate(wf, tab)
    hi, lo = tab.thresholds(c, cm1)  # (T_c − δ)·2^53 and (T_{c+1} + δ)·2^53
    ok = (wf + 1.0 <= hi) & (wf >= lo) & (c < tab.L - 3)  # proof: geo-q-check
    for i in () if ok.all() else np.flatnonzero(~ok):
        more = lambda i=i: draw(ids[i : i + 1])[0]  # noqa: E731
        c[i] = _inverse_exact(int(w[i] >> np.uint64(11)), *tab.exact(i), int(c[i]), more)  # proof: geo-q-exact
    if tab.unit:
        mag = c  # |K| = Q' when M = 1  # proof: dlap-unit
    else:
        nz = np.flatnonzero(c > 0)
        M = tab.at("M", nz)
        if (c[nz] - 1 > np.iinfo(np.int64).max // M - 1).any():  # probability < e^{-64} below scale 2^57
            raise ValueError("discrete_laplace: a draw exceeded the int64 range (probability < e^-64)")
        mag = np.zeros(n, dtype=np.int64)
        mag[nz] = 1 + (c[nz] - 1) * M + _remainders(tab, nz, draw)  # proof: dlap-magnitude
    if tab.one and c.max(initial=0) > np.iinfo(np.int64).max // 2:
        raise ValueError("discrete_laplace: a draw exceeded the int64 range (probability < e^-64)")
    return np.where(neg, -mag, mag)  # proof: dlap-signed
