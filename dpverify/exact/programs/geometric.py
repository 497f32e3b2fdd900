"""Closed forms for geometric (discrete Laplace) noise, exact in t = e^{−ε/L}.

A noise of scale ``b/ε`` has the law P(Z = z) = (1 − r)/(1 + r)·r^{|z|} with r = e^{−ε/b}.  With one
working variable t = e^{−ε/L} (L a common multiple making every a = L/b an integer), r = t^a and
every probability below is an element of the rational function field Q(t) (``FIELD``).

The tails, for an integer k (derived by summing the geometric series; proof in
``dpverify/exact/proofs/closed_forms.md``, proof name ``exact/closed_forms.md``):

- P(Z ≥ k) = r^k/(1 + r) for k ≥ 1, and 1 − r^{1−k}/(1 + r) for k ≤ 0;
- P(Z = k) = (1 − r)/(1 + r)·r^{|k|}.

A *term list* is a dict {e: c} standing for the function ρ ↦ Σ c·t^{e·ρ} of an integer ρ.  Each
factor of a program path (a tail or point probability at ρ + s) is such a list on each side of one
breakpoint, so a product of factors is a term list on each interval between the sorted breakpoints,
and :func:`sum_terms` sums it over the interval exactly:
Σ_{ρ=lo}^{hi} t^{eρ} = (t^{e·lo} − t^{e(hi+1)})/(1 − t^e), with the one-sided infinite forms
t^{e·lo}/(1 − t^e) (e > 0) and t^{e·hi}/(1 − t^{−e}) (e < 0).

Example
-------
>>> tail_ge(1, 0) == 1 / (1 + T)   # P(Z ≥ 0) = 1/(1 + r), r = t
True
>>> path_sum([Factor("eq", 1, 0)]) == 1   # Σ_ρ P(Z = ρ)
True
"""

from __future__ import annotations

import numbers


from dpverify.exact.expsums import exp_product
from dpverify.exact.programs.lazyfrac import FIELD as _LAZY_FIELD, Frac

__all__ = ["FIELD", "T", "Factor", "point", "path_sum", "sum_terms", "tail_ge"]

FIELD = _LAZY_FIELD  # field("t", QQ), made once in lazyfrac: Frac.to_field gives elements of this one
T = FIELD.gens[0]
ONE = FIELD.one


_MAX_EXP = 10 ** 4  # exponents of t beyond this are refused: Q(t) arithmetic at degree 2^63 never ends


def _int(v, name: str, low: int = -_MAX_EXP, high: int = _MAX_EXP) -> int:
    """An integer in [low, high] (numpy integers too), else TypeError/ValueError naming ``name``."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {v!r} of type {type(v).__name__}")
    if not low <= v <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {v!r}")
    return int(v)


def _r(a: int):
    return T ** a


def tail_ge(a: int, k: int):
    """P(Z ≥ k) for Z discrete Laplace with r = t^a, exactly (an element of Q(t)).

    Example
    -------
    >>> tail_ge(1, 1) == T / (1 + T)
    True
    """
    a, k = _int(a, "a", 1), _int(k, "k")
    r = _r(a)
    return r ** k / (1 + r) if k >= 1 else ONE - r ** (1 - k) / (1 + r)


def point(a: int, k: int):
    """P(Z = k) for Z discrete Laplace with r = t^a.

    Example
    -------
    >>> point(1, 0)
    (-t + 1)/(t + 1)
    """
    a, k = _int(a, "a", 1), _int(k, "k")
    r = _r(a)
    return (1 - r) / (1 + r) * r ** abs(k)


class Factor:
    """One factor of a path's weight as a function of the conditioned integer ρ.

    ``kind``: ``"ge"`` — P(Z ≥ ρ + s); ``"lt"`` — P(Z < ρ + s); ``"eq"`` — P(Z = ρ + s); Z has r = t^a.
    ``split`` is the first ρ of the high side; ``low``/``high`` are the term lists on each side.

    Example
    -------
    >>> Factor("ge", 1, 0), Factor("ge", 1, 0).split
    (Factor('ge', a=1, s=0), 1)
    """

    __slots__ = ("kind", "a", "s")

    def __init__(self, kind: str, a: int, s: int):
        if kind not in ("ge", "lt", "eq"):
            raise ValueError(f"kind must be 'ge', 'lt' or 'eq', got {kind!r}")
        self.kind, self.a, self.s = kind, _int(a, "a", 1), _int(s, "s")

    @property
    def split(self) -> int:
        return -self.s if self.kind == "eq" else 1 - self.s

    def terms(self, high: bool) -> dict:
        a, s, r = self.a, self.s, _r(self.a)
        if self.kind == "eq":
            c = (1 - r) / (1 + r)
            return {a: c * r ** s} if high else {-a: c * r ** (-s)}
        up = r ** s / (1 + r)          # P(Z ≥ ρ+s) = up·t^{aρ} on ρ ≥ 1 − s
        down = r ** (1 - s) / (1 + r)  # P(Z ≥ ρ+s) = 1 − down·t^{−aρ} on ρ ≤ −s
        if self.kind == "ge":
            return {a: up} if high else {0: ONE, -a: -down}
        return {0: ONE, a: -up} if high else {-a: down}

    def fterms(self, high: bool) -> dict:
        """:meth:`terms` with :class:`~.lazyfrac.Frac` coefficients (the same values)."""
        a, s = self.a, self.s
        if self.kind == "eq":
            c = Frac(Frac.power(0).num - Frac.power(a).num) * Frac.one_over_1_plus(a)
            return {a: c * Frac.power(a * s)} if high else {-a: c * Frac.power(-a * s)}
        up = Frac.power(a * s) * Frac.one_over_1_plus(a)
        down = Frac.power(a * (1 - s)) * Frac.one_over_1_plus(a)
        if self.kind == "ge":
            return {a: up} if high else {0: Frac.const(1), -a: -down}
        return {0: Frac.const(1), a: -up} if high else {-a: down}

    def __repr__(self) -> str:
        return f"Factor({self.kind!r}, a={self.a}, s={self.s})"


def _geometric(e: int, lo, hi) -> Frac:
    """Σ_{ρ=lo}^{hi} t^{eρ} as a :class:`~.lazyfrac.Frac` (the cases of :func:`sum_terms`)."""
    if lo is not None and hi is not None:
        if e == 0:
            return Frac.const(hi - lo + 1)
        return (Frac.power(e * lo) - Frac.power(e * (hi + 1))) * Frac.one_over_1_minus(e)
    if hi is None and lo is not None and e > 0:
        return Frac.power(e * lo) * Frac.one_over_1_minus(e)
    if lo is None and hi is not None and e < 0:
        return Frac.power(e * hi) * Frac.one_over_1_minus(-e)
    raise ValueError(f"lo={lo!r}, hi={hi!r}: the series Σ t^({e}·ρ) over [{lo}, {hi}] diverges: not a probability")


def sum_terms(terms: dict, lo, hi):
    """Σ_{ρ=lo}^{hi} Σ_e c_e·t^{eρ} exactly; ``lo`` may be None (−∞) and ``hi`` None (+∞).

    Example
    -------
    >>> sum_terms({1: ONE}, 0, None) == 1 / (1 - T)   # Σ_{ρ≥0} t^ρ
    True
    """
    if not isinstance(terms, dict) or not all(
            isinstance(c, type(ONE)) or isinstance(c, numbers.Rational) for c in terms.values()):
        raise TypeError(f"terms must be a dict {{exponent: coefficient in Q(t)}}, got {terms!r}"[:300])
    for e in terms:
        _int(e, "terms (an exponent)")
    lo = None if lo is None else _int(lo, "lo")
    hi = None if hi is None else _int(hi, "hi")
    total = FIELD.zero
    for e, c in terms.items():
        if lo is not None and hi is not None:
            if hi < lo:
                continue
            g = (hi - lo + 1) if e == 0 else (T ** (e * lo) - T ** (e * (hi + 1))) / (1 - T ** e)
        elif hi is None and lo is not None and e > 0:
            g = T ** (e * lo) / (1 - T ** e)
        elif lo is None and hi is not None and e < 0:
            g = T ** (e * hi) / (1 - T ** (-e))
        else:
            raise ValueError(f"lo={lo!r}, hi={hi!r}: the series Σ t^({e}·ρ) over [{lo}, {hi}] diverges: "
                             "not a probability")
        total += c * g
    return total


def path_sum(factors, lo=None, hi=None):
    """Σ over integers ρ in [lo, hi] (None: unbounded) of the product of ``factors`` at ρ, exactly.

    The integer line is cut at every factor's ``split``; on each piece every factor is one term list,
    their product is expanded and summed in closed form (:func:`sum_terms`).

    Example
    -------
    >>> path_sum([Factor("eq", 1, 0)], 0, 0) == point(1, 0)
    True
    """
    if not isinstance(factors, (list, tuple)) or not all(isinstance(f, Factor) for f in factors):
        raise TypeError(f"factors must be a list of Factor, got {factors!r}"[:300])
    if len(factors) > 64:
        raise ValueError(f"factors must hold at most 64 factors (the product's terms grow with each), got {len(factors)}")
    lo = None if lo is None else _int(lo, "lo")
    hi = None if hi is None else _int(hi, "hi")
    return path_sum_lazy(factors, lo, hi).to_field()


def path_sum_lazy(factors, lo=None, hi=None) -> Frac:
    """:func:`path_sum` as an unreduced :class:`~.lazyfrac.Frac` (arguments checked by :func:`path_sum`'s
    callers: :mod:`.law` builds them from checked programs)."""
    cuts = sorted({f.split for f in factors})
    edges = [None] + cuts  # piece i starts at edges[i] (None: −∞) and ends before the next cut
    total = Frac.const(0)  # summed without a gcd per term (lazyfrac), reduced once
    for i, start in enumerate(edges):
        end = cuts[i] - 1 if i < len(cuts) else None
        a_lo = start if lo is None else (lo if start is None else max(lo, start))
        a_hi = end if hi is None else (hi if end is None else min(hi, end))
        if a_lo is not None and a_hi is not None and a_hi < a_lo:
            continue
        probe = start if start is not None else (end if end is not None else 0)
        terms = {0: Frac.const(1)}
        for f in factors:
            terms = exp_product(terms, f.fterms(probe >= f.split))
        for e, c in terms.items():
            total = total + c * _geometric(e, a_lo, a_hi)
    return total


def tail_ge_lazy(a: int, k: int) -> Frac:
    """:func:`tail_ge` as a :class:`~.lazyfrac.Frac`."""
    up = Frac.power(a * k) if k >= 1 else Frac.power(a * (1 - k))
    up = up * Frac.one_over_1_plus(a)
    return up if k >= 1 else 1 - up


def point_lazy(a: int, k: int) -> Frac:
    """:func:`point` as a :class:`~.lazyfrac.Frac`."""
    return (1 - Frac.power(a)) * Frac.one_over_1_plus(a) * Frac.power(a * abs(k))
