"""Exact real roots of polynomials over QQ, kept as rational isolating intervals, and exact comparisons.

The sign decisions of :mod:`dpverify.exact.signs` need: the distinct real roots of a polynomial inside an
interval (:func:`inside_roots`), a rational point strictly between two of them (:func:`between`), the
sign of a polynomial at a root or at an endpoint (:func:`sign_at`), and the order of two numbers
(:func:`lt`). A root is a :class:`Root`: the ``idx``-th real root of an irreducible factor, with a
rational isolating interval refined on demand (``Poly.refine_root``), so comparisons are exact
rational comparisons; its sympy value (``CRootOf``, radicals up to degree 2) is built only when a set
is rendered (:func:`exact`). Numbers that are neither (domain endpoints e^c) are compared through
sympy's 60-digit evaluation with a margin, or by sympy's exact ``is_positive`` when too close.

Example
-------
>>> roots = inside_roots(sp.Poly((X - 2) * (X ** 2 - 5), X), sp.Integer(1), sp.oo)
>>> [exact(point(r)) for r in roots]
[2, sqrt(5)]
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

__all__: list[str] = []  # internal to dpverify.exact (the sign decisions of dpverify.exact.signs)

X = sp.Symbol("x", positive=True)  # x = e^{ε/L}


class NotRational(ValueError):
    """The expression is not rational in e^{ε/L} with rational coefficients: no exact decision here."""


@lru_cache(maxsize=65536)
def numeric(v):
    """``v`` to 60 significant digits (sympy's evalf)."""
    return sp.N(v, 60)


def bounds(v):
    """Rational ``(lo, hi)`` with ``lo <= v <= hi``: exact for rationals, the isolating interval for roots."""
    if isinstance(v, Root):
        return v.a, v.b
    if v.is_Rational:
        return v, v
    n = numeric(v)
    w = sp.Float(10, 60) ** -50 * (1 + abs(n))
    return sp.Rational(n - w), sp.Rational(n + w)


def refine_number(v) -> bool:
    if isinstance(v, Root):
        if v.a == v.b:
            return False
        v.refine()
        return True
    return False


def _lt(a, b) -> bool:
    """a < b for exact real numbers (``oo`` allowed); undecidable comparisons raise NotRational.

    Rationals are compared exactly; roots by refining their rational isolating intervals; other
    numbers (e^c) by sympy's 60-digit evaluation, or exactly by ``is_positive`` when that is too close.
    """
    if b is sp.oo:
        return a is not sp.oo
    if a is sp.oo or a == b:
        return False
    for _ in range(100):
        la, ha = bounds(a)
        lb, hb = bounds(b)
        if ha < lb:
            return True
        if hb < la:
            return False
        if not (refine_number(a) | refine_number(b)):
            break
    r = sp.sympify(b - a).is_positive
    if r is None:
        raise NotRational(f"cannot order {a} and {b} exactly")
    return bool(r)


def lt(a, b) -> bool:
    """The exact order ``a < b`` of two real numbers as used throughout (``oo`` allowed)."""
    return _lt(a, b)


def rational_between(a, b) -> sp.Rational:
    """A rational ``s`` with ``a < s < b`` exactly (``b`` may be ``oo``; ``a < b`` assumed)."""
    for _ in range(200):
        la, ha = bounds(a)
        if b is sp.oo:
            return sp.Integer(sp.floor(ha)) + 1
        lb, hb = bounds(b)
        if ha < lb:
            s = (ha + lb) / 2
            return s
        if not (refine_number(a) | refine_number(b)):
            break
    raise NotRational(f"no rational point found between {a} and {b}")


def sign_at(Q: sp.Poly, p) -> int:
    """The exact sign of ``Q(p)`` (``p`` rational, algebraic or transcendental of the form e^c)."""
    if isinstance(p, Root):
        return sign_at_root(Q, p)
    v = Q.eval(p) if p.is_Rational else sp.expand(Q.as_expr().subs(X, p))
    if v == 0:
        return 0
    pos = v.is_positive
    if pos is None:
        raise NotRational(f"cannot decide the sign of {v}")
    return 1 if pos else -1


class Root:
    """The ``idx``-th real root of an irreducible ``f`` (degree >= 2), isolated in ``[a, b]`` (rational).

    Equal roots are equal objects (key ``(f, idx)``); the exact sympy number (``CRootOf``, radicals
    up to degree 2) is built only when a set is rendered (:meth:`exact`).
    """

    __slots__ = ("a", "b", "f", "idx")

    def __init__(self, a, b, f, idx):
        self.a, self.b, self.f, self.idx = a, b, f, idx

    def __eq__(self, other):
        return isinstance(other, Root) and (self.f, self.idx) == (other.f, other.idx)

    def __hash__(self):
        return hash((self.f, self.idx))

    is_Rational = False

    def refine(self) -> None:
        if self.a != self.b:
            self.a, self.b = self.f.refine_root(self.a, self.b, eps=(self.b - self.a) / 16)

    def exact(self):
        return crootof(self.f, self.idx)


def exact(v):
    """The sympy number of a cell endpoint (roots are kept lazily as isolated roots)."""
    return v.exact() if isinstance(v, Root) else v


@lru_cache(maxsize=65536)
def crootof(f: sp.Poly, idx: int):
    return sp.CRootOf(f.as_expr(), X, idx, radicals=True)


def isolate(Q: sp.Poly) -> list[Root]:
    """The distinct real roots of ``Q``, sorted, with pairwise disjoint rational isolating intervals."""
    roots = []
    for f, _ in Q.factor_list()[1]:
        for k, ((a, b), _) in enumerate(f.intervals()):
            if f.degree() == 1:
                a = b = sp.Rational(-f.nth(0), f.nth(1))
            roots.append(Root(sp.Rational(a), sp.Rational(b), f, k))
    roots.sort(key=lambda r: (r.a, r.b))
    for _ in range(200):
        clash = [k for k in range(len(roots) - 1) if roots[k].b >= roots[k + 1].a]
        if not clash:
            return roots
        for k in clash:
            roots[k].refine()
            roots[k + 1].refine()
        roots.sort(key=lambda r: (r.a, r.b))
    raise NotRational(f"could not separate the roots of {Q.as_expr()}")


def side(r: Root, p) -> int:
    """-1 if the root is < p, +1 if > p, 0 if equal (``p`` exact, ``oo`` allowed)."""
    if p is sp.oo:
        return -1
    if isinstance(p, Root) and p == r:
        return 0
    for _ in range(200):
        if _lt(r.b, p):
            return -1
        if _lt(p, r.a):
            return 1
        if p.is_Rational and r.f.eval(p) == 0:
            return 0
        if r.a == r.b:
            return 0 if r.a == p else (-1 if _lt(r.a, p) else 1)
        r.refine()
    raise NotRational(f"cannot place a root of {r.f.as_expr()} against {p}")


def between(lo, r1: Root | None, r2: Root | None, hi, Q: sp.Poly):
    """A rational point strictly between the left item (``r1`` or ``lo``) and the right (``r2`` or ``hi``)."""
    for _ in range(200):
        left = r1.b if r1 is not None else lo
        right = r2.a if r2 is not None else hi
        if right is sp.oo:
            s = sp.Integer(sp.floor(sp.N(left, 30))) + 1
        elif left.is_Rational and right.is_Rational:
            s = (left + right) / 2
        else:
            s = rational_between(left, right) if _lt(left, right) else None
        if s is not None and (_lt(left, s) or (left == s and r1 is not None and Q.eval(s) != 0)) \
                and (right is sp.oo or _lt(s, right) or (s == right and r2 is not None and Q.eval(s) != 0)):
            if (r1 is None or r1.a != r1.b or s != r1.a) and Q.eval(s) != 0:
                return s
        for r in (r1, r2):
            if r is not None:
                r.refine()
    raise NotRational(f"no rational point found between two roots of {Q.as_expr()}")


def sign_at_root(Q: sp.Poly, r: Root) -> int:
    """The sign of ``Q`` at an isolated root ``r`` of the irreducible ``r.f``: 0 iff ``r.f`` divides ``Q``."""
    if Q.rem(r.f).is_zero:
        return 0
    for _ in range(200):
        if Q.count_roots(r.a, r.b) == 0:
            return 1 if Q.eval(r.a) > 0 else -1
        r.refine()
    raise NotRational(f"cannot decide the sign of {Q.as_expr()} at a root of {r.f.as_expr()}")


def point(r: Root):
    return r.a if r.a == r.b else r


def roots_inside(Q: sp.Poly, dom) -> list:
    """The distinct real roots of ``Q`` strictly inside the domain, increasing (exact sympy numbers)."""
    return [r.exact() for r in inside_roots(Q, dom.lo, dom.hi)]


def inside_roots(Q: sp.Poly, lo, hi) -> list[Root]:
    """The distinct real roots of ``Q`` in the open interval ``(lo, hi)``, increasing, as :class:`Root`."""
    if Q.degree() < 1:
        return []
    return [r for r in isolate(Q) if side(r, lo) > 0 and side(r, hi) < 0]


