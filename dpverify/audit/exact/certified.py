"""Certified float decisions: the rounding bound of a computed hockey-stick term and the exact fallback.

A float64 entry is a binary rational (``Fraction(x)`` is exact), so a float mechanism has one exact
(ε, δ) answer: the one for the exact values of its entries, of ε and of δ.  This module computes
e^ε q in floats with a proven bound on its error, and decides exactly whenever a float answer lies
within its bound of the claim:

- :func:`exp_bracket` — rational bounds lo ≤ e^x ≤ hi from a Taylor series with a rational
  remainder bound, in integer arithmetic with directed rounding;
- :class:`ExpE` — e^ε for the exact value of ε: the float product e^ε·q (computed as
  F·2^k·q with F ∈ [1, 2)), the per-term error bound, and exact comparisons with a rational;
- :func:`exact_float_sum` — the exact sum of float64 values (vectorised, integer arithmetic);
- :func:`pair_exceeds` — Σ_j max(0, p_j − e^ε q_j) > δ decided exactly;
- :func:`side` — which side of a claim a float value lies on, given its error bound (0: too close).

Derivations and the constants: ``dpverify/audit/proofs/hockey_stick.md`` (section "Rounding
bound and exact fallback").  Assumptions: IEEE 754 binary64 with round-to-nearest and gradual
underflow (no flush-to-zero); entries in [0, 2].

Example
-------
>>> lo, hi = exp_bracket(Fraction(1))
>>> Fraction(2718281828459045, 10**15) < lo < hi < Fraction(2718281828459046, 10**15)   # e = 2.718281828459045235...
True
>>> hi - lo < Fraction(1, 2**60)
True
>>> E = ExpE(Fraction(0.5))
>>> pair_exceeds(np.array([0.75, 0.25]), np.array([0.25, 0.75]), E, Fraction(1, 2))   # δ(0.5) ≈ 0.338
False
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__: list[str] = []  # the machinery behind check_ldp and hockey_stick_holds (inputs validated there)

#: the unit roundoff of float64 (half an ulp of 1)
U = 2.0**-53
#: |ε| beyond which nothing changes: for ε ≥ 746, e^ε q ≥ e^746 · 2^-1074 > 4 for every q > 0
EPS_CAP = 746
#: absolute slack per term (subnormal rounding, the clamp below −746), proof: per-term bound
_ETA = 2.0**-1072
_MAX_BITS = 1 << 16


def exp_bracket(x, bits: int = 64) -> tuple[Fraction, Fraction]:
    """Rationals lo ≤ e^x ≤ hi for a rational |x| ≤ 746 (lo = hi = 1 at x = 0).

    e^y for y = |x| is (e^{y/2^s})^{2^s} with y/2^s ≤ 2^-7; the Taylor sum is taken with every term
    rounded down (lo) or up (hi) on the grid 2^-P, the tail after a term t is below t/64, and each
    squaring rounds down or up again.  e^{-y} = 1/e^y.  The width is about 2^-bits relative.

    Example
    -------
    >>> lo, hi = exp_bracket(Fraction(-3, 2), 80)
    >>> float(lo) <= math.exp(-1.5) <= float(hi)
    True
    """
    x = Fraction(x)
    if x == 0:
        return Fraction(1), Fraction(1)
    if abs(x) > EPS_CAP:
        raise ValueError(f"x must be in [-{EPS_CAP}, {EPS_CAP}], got {float(x)!r}")
    y = abs(x)
    s = max(0, y.numerator.bit_length() - y.denominator.bit_length() + 1) + 7  # y / 2^s ≤ 2^-7
    P = bits + s + 16
    one = 1 << P
    num, den = y.numerator << P, y.denominator << s
    ylo, yhi = num // den, -(-num // den)
    lo = hi = tlo = thi = one
    i = 0
    while thi >= 256 or i == 0:  # proof: taylor-bracket
        i += 1
        tlo = tlo * ylo // (one * i)
        thi = -(-thi * yhi // (one * i))
        lo, hi = lo + tlo, hi + thi
    hi += -(-thi // 64) + 1  # the tail Σ_{i>N} y^i/i! ≤ t_N · y/(1 − y) < t_N / 64
    for _ in range(s):
        lo, hi = lo * lo >> P, -(-hi * hi >> P)
    if x > 0:
        return Fraction(lo, one), Fraction(hi, one)
    return Fraction(one, hi), Fraction(one, lo)


def exact_float_sum(x: np.ndarray) -> Fraction:
    """The exact sum of float64 values (each is M·2^e with |M| < 2^53; grouped by e in exact halves).

    Example
    -------
    >>> exact_float_sum(np.array([0.1] * 10)) == 10 * Fraction(0.1)
    True
    """
    x = np.asarray(x, dtype=float).ravel()
    x = x[x != 0]
    if x.size == 0:
        return Fraction(0)
    if x.size >= 2**25:  # bin sums stay exact below 2^26 terms per bin
        return sum((exact_float_sum(x[i : i + 2**25]) for i in range(0, x.size, 2**25)), Fraction(0))
    mant, ex = np.frexp(x)
    M = np.ldexp(mant, 53)  # an integer-valued float, |M| < 2^53, x = M · 2^(ex − 53)
    hi = np.floor(M / 2.0**26)
    lo = M - hi * 2.0**26  # 0 ≤ lo < 2^26, |hi| ≤ 2^27: bin sums of < 2^26 of them are exact floats
    e0 = int(ex.min())
    idx = ex - e0
    sh = np.bincount(idx, weights=hi)
    sl = np.bincount(idx, weights=lo)
    total = 0
    for k in np.flatnonzero((sh != 0) | (sl != 0)).tolist():
        total += ((int(sh[k]) << 26) + int(sl[k])) << k
    e = e0 - 53
    return Fraction(total << e) if e >= 0 else Fraction(total, 1 << -e)


class ExpE:
    """e^ε for the exact value of ``eps`` (a float or a Fraction), clamped to [−746, 746].

    ``scale(q)`` is the float e^ε·q with |scale(q) − e^ε q| ≤ 2.03·u·e^ε q + 2^-1074 (u = 2^-53);
    ``term_bound(p, s)`` bounds |fl(p − s) − (p − e^ε q)| for s = scale(q); ``compare(r)`` is the
    exact sign of e^ε − r.  Clamping does not change any decision (entries ≤ 2; see the proof).

    Example
    -------
    >>> E = ExpE(math.log(4))                 # the float ln 4 is a little below ln 4
    >>> E.compare(Fraction(4)), E.compare(Fraction(399, 100)), float(E.scale(np.array([0.25]))[0])
    (-1, 1, 1.0)
    """

    def __init__(self, eps) -> None:
        x = Fraction(eps)
        self.eps = min(max(x, Fraction(-EPS_CAP)), Fraction(EPS_CAP))
        #: extra absolute error of a float δ when ε < −746 was clamped (e^ε q < 2^-1075 there)
        self.slack = 2.0**-1070 if x < -EPS_CAP else 0.0
        self._cache: dict[int, tuple[Fraction, Fraction]] = {}
        self.k = math.floor(float(self.eps) / math.log(2.0))
        lo, hi = self.bracket(64)
        shift = Fraction(2) ** self.k
        self.factor = float(lo / shift)  # F_m: the float nearest to e^ε / 2^k (up to 2^-62 relative)
        if not ((hi - lo) <= lo / 2**62 and 0.5 <= self.factor < 4.0):  # the proof's premises on F_m
            raise ArithmeticError(f"cannot scale e^{float(self.eps)!r} as F·2^k with F in [0.5, 4)")

    def bracket(self, bits: int) -> tuple[Fraction, Fraction]:
        """lo ≤ e^ε ≤ hi, of relative width about 2^-bits."""
        if bits not in self._cache:
            b = bits
            lo, hi = exp_bracket(self.eps, b)
            while hi - lo > lo / 2**bits:
                b *= 2
                lo, hi = exp_bracket(self.eps, b)
            self._cache[bits] = (lo, hi)
        return self._cache[bits]

    def compare(self, r: Fraction) -> int:
        """The sign of e^ε − r, exactly (+1, 0 or −1); 0 only when ε = 0 and r = 1 (e^ε is irrational otherwise)."""
        bits = 64
        while bits <= _MAX_BITS:
            lo, hi = self.bracket(bits)
            if hi < r:
                return -1
            if lo > r:
                return 1
            if lo == hi:
                return 0
            bits *= 2
        raise ArithmeticError(f"cannot separate e^{self.eps} from {r} with {_MAX_BITS} bits")

    def scale(self, q: np.ndarray) -> np.ndarray:
        """fl(e^ε q) as F_m·2^k·q: +inf only where e^ε q > 1.7e308."""
        q = np.asarray(q, dtype=float)
        with np.errstate(over="ignore"):
            if self.k >= 0:
                return self.factor * np.ldexp(q, self.k)  # proof: scale-product
            return np.ldexp(self.factor * q, self.k)  # proof: scale-product-neg

    @staticmethod
    def term_bound(p: np.ndarray, s: np.ndarray) -> np.ndarray:
        """A bound on |fl(p − s) − (p − e^ε q)|, 0 where s = inf (then both are negative)."""
        with np.errstate(invalid="ignore", over="ignore"):
            e = (4.01 * U) * (p + s) + _ETA  # proof: term-bound
        e[np.isinf(e)] = 0.0  # only where s = inf (p ≤ 2)
        return e

    def above(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """p_j > e^ε q_j for each j, exactly (one rational comparison per distinct pair (p_j, q_j))."""
        p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
        out = np.zeros(p.shape, dtype=bool)
        if p.size == 0:
            return out
        pairs, inv = np.unique(np.stack([p.ravel(), q.ravel()], axis=1), axis=0, return_inverse=True)
        res = np.array([self._above1(a, b) for a, b in pairs.tolist()], dtype=bool)
        return res[inv.ravel()].reshape(p.shape)

    def _above1(self, a: float, b: float) -> bool:
        if a == 0:
            return False
        if b == 0:
            return True
        return self.compare(Fraction(a) / Fraction(b)) < 0


def side(value, claim, bound) -> np.ndarray:
    """+1 where value − bound > claim for sure, −1 where value + bound < claim for sure, else 0.

    ``value`` is a float whose exact counterpart is within ``bound`` of it; ``claim`` a float.  The
    threshold 1.01·bound + 3u(|value| + |claim|) + 2⁻¹⁰⁶⁰ absorbs the rounding of the subtraction,
    of a claim that is the float nearest to a rational, and of the threshold itself.  A value of
    −inf (a term whose e^ε q overflowed) is below any claim ≥ 0, exactly.

    Example
    -------
    >>> side(np.array([1.0, 1.0, 1.0]), 0.5, np.array([0.1, 0.6, 0.4])).tolist()
    [1, 0, 1]
    """
    value, bound = np.asarray(value, dtype=float), np.asarray(bound, dtype=float)
    with np.errstate(invalid="ignore"):
        d = value - claim
        thr = 1.01 * bound + (3 * U) * (np.abs(value) + abs(claim)) + 2.0**-1060  # proof: side
        out = np.atleast_1d(d > thr).astype(np.int8)
        out[np.atleast_1d((d < -thr) | np.isneginf(value))] = -1  # −inf: e^ε q overflowed, exactly negative
    return out.reshape(np.shape(d))


def support(p: np.ndarray, q: np.ndarray, E: ExpE, s: np.ndarray | None = None) -> np.ndarray:
    """The exact set S = {j : p_j > e^ε q_j} as a boolean mask (floats first, exact where close)."""
    if s is None:
        s = E.scale(q)
    with np.errstate(invalid="ignore"):
        t = p - s
    e = E.term_bound(p, s)
    inside = ((t > e) & (p > 0)) | ((q == 0) & (p > 0))
    amb = ~inside & (t >= -e) & (p > 0) & (q > 0)
    if amb.any():
        inside[amb] = E.above(p[amb], q[amb])
    return inside


def pair_bound(p: np.ndarray, s: np.ndarray, value: float) -> float:
    """A bound on |value − Σ_j max(0, p_j − e^ε q_j)| for value = Σ fl-max(0, fl(p − s)) (any summation order).

    Only terms with fl(p − s) ≥ −e_j can be off; the float sum of m terms errs by at most
    1.01·(m − 1)·u·value.  The factor 1 + 2⁻⁴⁰ covers the rounding of the bound's own evaluation.
    """
    m = p.shape[-1]
    e = ExpE.term_bound(p, s)
    with np.errstate(invalid="ignore"):
        near = (p - s) >= -e
    total = float(np.sum(np.where(near, e, 0.0)))
    return (total * (1 + 1.01 * m * U) + 1.01 * m * U * value) * (1 + 2.0**-40)  # proof: pair-bound


def pair_exceeds(p: np.ndarray, q: np.ndarray, E: ExpE, delta: Fraction) -> bool:
    """Σ_j max(0, p_j − e^ε q_j) > δ, decided exactly for the exact values of the floats p, q.

    S = {j : p_j > e^ε q_j} exactly (:func:`support`); then Σ_S p − e^ε Σ_S q > δ with exact sums:
    with B = Σ_S q > 0 it is e^ε < (A − δ)/B, an exact comparison (:meth:`ExpE.compare`).

    Example
    -------
    >>> p, q = np.array([0.8, 0.2]), np.array([0.2, 0.8])
    >>> pair_exceeds(p, q, ExpE(math.log(4)), Fraction(0)), pair_exceeds(p, q, ExpE(1.4), Fraction(0))
    (True, False)
    """
    S = support(p, q, E)
    if delta == 0:
        return bool(S.any())
    A, B = exact_float_sum(p[S]), exact_float_sum(q[S])  # proof: exact-sums
    if B == 0:
        return A > delta
    r = (A - delta) / B
    return r > 0 and E.compare(r) < 0


def pair_decides(p: np.ndarray, q: np.ndarray, E: ExpE, delta: Fraction) -> bool:
    """Σ_j max(0, p_j − e^ε q_j) > δ: the float value and its bound when they decide, else :func:`pair_exceeds`.

    Example
    -------
    >>> pair_decides(np.array([0.75, 0.25]), np.array([0.25, 0.75]), ExpE(1.0), Fraction(1, 20))   # δ(1) ≈ 0.0704
    True
    """
    s = E.scale(q)
    with np.errstate(invalid="ignore"):
        H = float(np.maximum(0.0, p - s).sum())
    sd = int(side(H, float(delta), pair_bound(p, s, H) + E.slack))
    if sd:
        return sd > 0
    return pair_exceeds(p, q, E, delta)


def column_exceeds(hi: np.ndarray, lo: np.ndarray, E: ExpE, delta: Fraction) -> np.ndarray:
    """hi_j − e^ε lo_j > δ for each j, exactly (one rational comparison per distinct pair (hi_j, lo_j))."""
    if hi.size == 0:
        return np.zeros(hi.shape, dtype=bool)
    pairs, inv = np.unique(np.stack([hi, lo], axis=1), axis=0, return_inverse=True)
    res = []
    for a, b in pairs.tolist():
        A, B = Fraction(a), Fraction(b)
        if B == 0:
            res.append(A > delta)
        else:
            r = (A - delta) / B
            res.append(r > 0 and E.compare(r) < 0)
    return np.array(res, dtype=bool)[inv.ravel()]
