"""Exact sign decisions of expressions rational in e^{ε/L} on an interval of ε.

An expression ``f(ε)`` rational in ``x = e^{ε/L}`` (``L`` a positive integer: the least common
denominator of the rational multiples ``c`` in every ``exp(c ε)``) is ``N(x) / D(x)`` with ``N, D``
polynomials over the rationals. On an interval of ε the map ε ↦ x is increasing, so
``{ε : f(ε) > 0} = L log {x : N(x) D(x) > 0}``. The sign of the polynomial ``Q = N D`` is constant
between consecutive real roots (intermediate value theorem), so the positive set is decided exactly by
real-root isolation (irreducible factors, ``Poly.intervals``: :mod:`dpverify.exact.roots`) and one exact evaluation at a rational point in each cell.
A fast path: after the shift ``x = lo + t`` (``lo`` rational), a polynomial whose coefficients all have
one sign has no root with ``t > 0`` (Descartes' rule of signs).

- :func:`exp_scale` — ``L`` for a set of expressions (or :class:`NotRational`);
- :func:`to_polys` — ``(N, D)`` as ``Poly`` over QQ in ``x``;
- :class:`XDomain` — the image of an ε-interval under ``x = e^{ε/L}``;
- :func:`positive_cells` — the exact ``x``-set where a polynomial is > 0 on an ``XDomain``;
- :func:`fail_set` — the public form: ``{ε ∈ domain : expr > 0}`` as a sympy ``Set``;
- :func:`sturm_count` — the number of distinct roots in an open interval by a Sturm sequence
  (the independent re-check used in certificates).

Example
-------
>>> eps = sp.Symbol("epsilon", positive=True)
>>> fail_set(3 - sp.exp(eps), eps)
Interval.open(0, log(3))
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import reduce
from math import lcm
from typing import Any

import numpy as np
import sympy as sp

from dpverify.exact.roots import (X, NotRational, Root, between, bounds, exact, inside_roots, lt, point, rational_between,
                                  roots_inside, sign_at)
from dpverify.proofdocs import proven

__all__ = ["MAX_L", "NotRational", "X", "XDomain", "exp_scale", "fail_set", "positive_cells", "sturm_count", "to_polys"]


_MAX_L = 10 ** 4  # x = e^{ε/L}: the polynomials' degrees grow like L
MAX_L = _MAX_L  #: the largest L the polynomial route accepts


def _check_symbol(eps, name: str) -> None:
    if not isinstance(eps, sp.Symbol):
        raise TypeError(f"{name} must be a sympy Symbol, got {eps!r} of type {type(eps).__name__}")


def _check_expr(expr, name: str) -> None:
    """A sympy expression (``sympy.Integer(3)`` for a constant); numbers, text and None are refused."""
    if not isinstance(expr, sp.Expr):
        raise TypeError(f"{name} must be a sympy expression, got {expr!r} of type {type(expr).__name__}")
    if isinstance(expr, sp.Expr) and expr.has(sp.nan, sp.zoo):
        raise ValueError(f"{name} must be a finite sympy expression, got {expr!r}")


def _check_L(L, name: str = "L") -> int:
    if isinstance(L, bool) or not isinstance(L, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {L!r} of type {type(L).__name__}")
    if not 1 <= L <= _MAX_L:
        raise ValueError(f"{name} must be an integer in [1, {_MAX_L}], got {L!r}")
    return int(L)


def exp_scale(exprs, eps: sp.Symbol) -> int:
    """The least ``L`` with every ``exp(c ε)`` in ``exprs`` an integer power of ``e^{ε/L}``.

    Example
    -------
    >>> e = sp.Symbol("e", positive=True)
    >>> exp_scale([sp.exp(-e / 2), sp.exp(e)], e)
    2
    """
    _check_symbol(eps, "eps")
    if not isinstance(exprs, (list, tuple)):
        raise TypeError(f"exprs must be a list of sympy expressions, got {type(exprs).__name__}")
    if len(exprs) > 10 ** 7:
        raise ValueError(f"exprs must hold at most 10**7 expressions, got {len(exprs)}")
    for ex in exprs:
        _check_expr(ex, "exprs (an item)")
    exprs = list(dict.fromkeys(exprs))  # a repeated entry adds no denominator
    dens = [1]
    for ex in exprs:
        for node in sp.preorder_traversal(ex):
            if isinstance(node, sp.exp) and node.has(eps):
                c = sp.simplify(node.args[0] / eps)
                if not (c.is_Rational and c != 0):
                    raise NotRational(f"exp({node.args[0]}) is not exp(c*{eps}) with c rational")
                dens.append(int(c.q))
    return reduce(lcm, dens)


def _subst_exp(expr, eps: sp.Symbol, L: int):
    def repl(node):
        c = sp.Rational(node.args[0] / eps) if (node.args[0] / eps).is_Rational else None
        if c is None:
            raise NotRational(f"exp({node.args[0]}) is not rational in exp({eps}/{L})")
        return X ** int(c * L)
    return expr.replace(lambda n: isinstance(n, sp.exp) and n.has(eps), repl)


def to_polys(expr, eps: sp.Symbol, L: int) -> tuple[sp.Poly, sp.Poly]:
    """``(N, D)``, polynomials over QQ in ``x = e^{ε/L}`` with ``expr = N(x) / D(x)``.

    Example
    -------
    >>> eps = sp.Symbol("epsilon", positive=True)
    >>> N, D = to_polys(sp.exp(eps) / (1 + sp.exp(eps)), eps, 1)
    >>> N.as_expr(), D.as_expr()
    (x, x + 1)
    """
    _check_expr(expr, "expr")
    _check_symbol(eps, "eps")
    L = _check_L(L)
    e = _subst_exp(sp.sympify(expr), eps, L)
    if e.has(eps):
        raise NotRational(f"{expr} is not rational in exp({eps}/{L}): {eps} appears outside exp")
    num, den = sp.fraction(sp.cancel(sp.together(e)))
    try:
        N, D = sp.Poly(num, X, domain="QQ"), sp.Poly(den, X, domain="QQ")
    except (sp.PolynomialError, sp.CoercionFailed, sp.GeneratorsNeeded) as exc:
        raise NotRational(f"{expr} is not rational in exp({eps}/{L}) with rational coefficients ({exc})") from None
    if D.is_zero:
        raise NotRational(f"{expr} has a zero denominator")
    return N, D


@dataclass(frozen=True)
class XDomain:
    """An interval of ``x = e^{ε/L}``: ``lo < x < hi`` (or ``<=`` where closed); ``hi`` may be ``oo``."""

    lo: Any
    hi: Any
    lo_open: bool
    hi_open: bool
    L: int

    def __post_init__(self):
        for name in ("lo", "hi"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (sp.Expr, numbers.Rational, Root)) or (
                    isinstance(v, sp.Expr) and v.has(sp.nan, sp.zoo)):
                raise TypeError(f"{name} must be a sympy number (x = e^(epsilon/L)), got {v!r}")
        for name in ("lo_open", "hi_open"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if isinstance(self.L, bool) or not isinstance(self.L, numbers.Integral) or self.L < 1:
            raise TypeError(f"L must be a positive integer, got {self.L!r}")

    @classmethod
    def from_epsilon(cls, domain: sp.Interval, L: int) -> "XDomain":
        """The image of an ε-interval (or a one-point ``FiniteSet``)."""
        if isinstance(domain, sp.FiniteSet):
            (p,) = domain.args
            v = sp.exp(p / L)
            return cls(v, v, False, False, L)
        hi = sp.oo if domain.end is sp.oo else sp.exp(domain.end / L)
        return cls(sp.exp(domain.start / L), hi, bool(domain.left_open), bool(domain.right_open), L)

    def sample(self) -> Any:
        """A rational point inside (or the point itself for a one-point domain)."""
        if self.lo == self.hi:
            return self.lo
        return rational_between(self.lo, self.hi)


def _check_poly_domain(Q, dom) -> None:
    if not isinstance(Q, sp.Poly):
        raise TypeError(f"Q must be a sympy Poly in x, got {Q!r} of type {type(Q).__name__}")
    if not isinstance(dom, XDomain):
        raise TypeError(f"dom must be an XDomain, got {dom!r} of type {type(dom).__name__}")


@proven("exact/decision.md")
def positive_cells(Q: sp.Poly, dom: XDomain, record: dict | None = None) -> list[tuple[Any, Any, bool, bool]]:
    """The exact set ``{x in dom : Q(x) > 0}`` as a list of ``(a, b, a_open, b_open)``.

    ``record``, if given, receives ``record[(Q, dom)] = number of distinct roots of Q inside dom``
    (0 when Descartes' rule decided), for the Sturm re-check of a certificate.

    Example
    -------
    >>> positive_cells(sp.Poly(3 - X, X), XDomain(sp.Integer(1), sp.oo, True, True, 1))
    [(1, 3, True, True)]
    """
    _check_poly_domain(Q, dom)
    if Q.is_zero:
        return []
    if dom.lo == dom.hi:
        return [(dom.lo, dom.lo, False, False)] if sign_at(Q, dom.lo) > 0 else []
    cells = []
    if record is not None:
        record[(Q, dom)] = 0
    if getattr(dom.lo, "is_Rational", False) and dom.hi is sp.oo:
        # a positive multiple over ZZ has the same signs, and its shift by an integer is ~100x faster
        Qz = Q.clear_denoms(convert=True)[1] if Q.get_domain().is_Field and dom.lo.is_Integer else Q
        coeffs = [c for c in Qz.shift(dom.lo).all_coeffs() if c != 0]
        if all(c < 0 for c in coeffs):
            return [(dom.lo, dom.lo, False, False)] if not dom.lo_open and sign_at(Q, dom.lo) > 0 else []
        if all(c > 0 for c in coeffs):
            return [(dom.lo, dom.hi, not (not dom.lo_open and sign_at(Q, dom.lo) > 0), True)]
    inner = inside_roots(Q, dom.lo, dom.hi)
    if record is not None:
        record[(Q, dom)] = len(inner)
    ends = [None, *inner, None]
    for r1, r2 in zip(ends, ends[1:]):
        if Q.eval(between(dom.lo, r1, r2, dom.hi, Q)) > 0:
            cells.append([dom.lo if r1 is None else point(r1), dom.hi if r2 is None else point(r2), True, True])
    if cells and not dom.lo_open and cells[0][0] == dom.lo and sign_at(Q, dom.lo) > 0:
        cells[0][2] = False
    if cells and not dom.hi_open and dom.hi is not sp.oo and cells[-1][1] == dom.hi and sign_at(Q, dom.hi) > 0:
        cells[-1][3] = False
    return [tuple(c) for c in cells]


def _key(v):
    lo, hi = bounds(v)
    return (lo + hi) / 2


def merge_cells(cells) -> list:
    """The union of x-cells as disjoint cells in increasing order (exact comparisons)."""
    items = sorted(cells, key=lambda c: (_key(c[0]), c[2]))
    out: list = []
    for a, b, ao, bo in items:
        if out:
            pa, pb, pao, pbo = out[-1]
            if lt(a, pb) or (a == pb and not (ao and pbo)):
                if pb is not sp.oo and (b is sp.oo or lt(pb, b)):
                    out[-1] = (pa, b, pao, bo)
                elif b == pb:
                    out[-1] = (pa, pb, pao, pbo and bo)
                continue
        out.append((a, b, ao, bo))
    return out


def x_set_to_epsilon(cells, L: int) -> sp.Set:
    """Map ``x``-cells back to ε = L log x: a sympy ``Set`` (a union of disjoint intervals / points)."""
    parts = []
    for a, b, ao, bo in merge_cells(cells):
        a, b = exact(a), exact(b)
        ea = sp.expand_log(L * sp.log(a), force=False)
        eb = sp.oo if b is sp.oo else sp.expand_log(L * sp.log(b), force=False)
        parts.append(sp.FiniteSet(ea) if a == b else sp.Interval(ea, eb, ao, bo))
    if not parts:
        return sp.S.EmptySet
    return parts[0] if len(parts) == 1 else sp.Union(*parts, evaluate=False)


def in_cells(x, cells) -> bool:
    """Whether the exact number ``x`` lies in one of the x-cells."""
    for a, b, ao, bo in cells:
        lo_ok = lt(a, x) or (not ao and x == a)
        hi_ok = lt(x, b) or (not bo and x == b)
        if lo_ok and hi_ok:
            return True
    return False


def sturm_count(Q: sp.Poly, dom: XDomain) -> int:
    """The number of distinct real roots of ``Q`` in the open interval ``(lo, hi)``, by a Sturm sequence.

    Example
    -------
    >>> sturm_count(sp.Poly((X - 2) ** 2 * (X - 5), X), XDomain(sp.Integer(1), sp.oo, True, True, 1))
    2
    """
    _check_poly_domain(Q, dom)
    if Q.is_zero or Q.degree() < 1:
        return 0
    seq = sp.sturm(Q)

    def changes(p):
        if p is sp.oo:
            signs = [sp.sign(s.LC()) for s in seq]
        else:
            signs = [sign_at(s, p) for s in seq]
        signs = [s for s in signs if s != 0]
        return sum(1 for u, v in zip(signs, signs[1:]) if u != v)

    n = changes(dom.lo) - changes(dom.hi)  # distinct roots in (lo, hi]
    return n - (1 if dom.hi is not sp.oo and sign_at(Q, dom.hi) == 0 else 0)


def fail_set(expr, epsilon: sp.Symbol, domain: sp.Set = sp.Interval.open(0, sp.oo)) -> sp.Set:
    """The exact set ``{ε in domain : expr(ε) > 0}``, for ``expr`` rational in e^{ε/L}.

    Raises :class:`NotRational` (a ValueError) when ``expr`` is not of that form.

    Example
    -------
    >>> eps = sp.Symbol("epsilon", positive=True)
    >>> fail_set((sp.exp(eps) - 2) ** 2, eps)
    Union(Interval.open(0, log(2)), Interval.open(log(2), oo))
    """
    if not isinstance(epsilon, sp.Symbol):
        raise TypeError(f"epsilon must be a sympy Symbol, got {epsilon!r}")
    _check_expr(expr, "expr")
    if not isinstance(domain, (sp.Interval, sp.FiniteSet)):
        raise TypeError(f"domain must be a sympy Interval or one-point FiniteSet, got {domain!r}")
    L = exp_scale([expr], epsilon)
    N, D = to_polys(expr, epsilon, L)
    dom = XDomain.from_epsilon(domain, L)
    if roots_inside(D, dom) or (not dom.lo_open and sign_at(D, dom.lo) == 0):
        raise ValueError(f"{expr} has a pole in the domain {domain}")
    return x_set_to_epsilon(positive_cells(N * D, dom), L)
