"""A finite law prepared for exact decisions: entries as ``N(x) / D(x)`` over QQ with ``x = e^{ε/L}``.

:func:`prepare` validates everything :func:`dpverify.exact.prove` needs before any proof (the
checks of :mod:`dpverify.exact.validate`) and returns a :class:`Law`, or raises
:class:`~dpverify.exact.signs.NotRational` when an entry is not rational in e^{ε/L} (the verdict is
then ``unknown``; the row sums are still checked, by ``simplify``).

Example
-------
>>> eps = sp.Symbol("epsilon", positive=True)
>>> q = sp.exp(eps) / (1 + sp.exp(eps))
>>> law = prepare(sp.Matrix([[q, 1 - q], [1 - q, q]]), eps, None, 0, None)
>>> law.L, law.pairs, law.xdom.lo
(1, ((0, 1), (1, 0)), 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from dpverify.exact.signs import MAX_L, X, NotRational, XDomain, exp_scale, positive_cells, to_polys, x_set_to_epsilon
from dpverify.exact.validate import check_domain, check_law, check_pairs, check_stochastic, denominator_sign

__all__: list[str] = []  # internal to dpverify.exact (inputs validated by prove)


@dataclass(frozen=True)
class Law:
    """A validated law: ``P`` in the internal positive symbol ``eps``, polys ``(N, D)`` and denominator signs."""

    P: sp.ImmutableMatrix
    eps: sp.Symbol          # the positive symbol used inside
    user: sp.Symbol         # the caller's symbol (results are given in it)
    domain: sp.Set          # ε-domain
    L: int
    xdom: XDomain
    pairs: tuple
    polys: tuple            # polys[i][o] = (N, D)
    signs: tuple            # sign of D on the domain
    delta: Any              # δ as an expression in eps
    dpoly: tuple            # (N, D) of δ, D's sign folded into N

    def h(self, i: int, j: int, o: int) -> sp.Poly:
        """A polynomial with the sign of ``P[i, o] − e^ε P[j, o]`` on the domain."""
        (Ni, Di), (Nj, Dj) = self.polys[i][o], self.polys[j][o]
        Q = Ni * Dj - Nj * Di * sp.Poly(X ** self.L, X, domain="QQ")
        return Q if self.signs[i][o] * self.signs[j][o] > 0 else -Q

    def h_expr(self, i: int, j: int, o: int):
        """``P[i, o] − e^ε P[j, o]`` as a rational function of ``x``."""
        (Ni, Di), (Nj, Dj) = self.polys[i][o], self.polys[j][o]
        return Ni.as_expr() / Di.as_expr() - X ** self.L * Nj.as_expr() / Dj.as_expr()

    def back(self, expr):
        """An expression or set in the caller's symbol."""
        return expr.subs(self.eps, self.user) if self.eps != self.user else expr

    def eps_set(self, cells) -> sp.Set:
        """x-cells as an ε-set in the caller's symbol."""
        return x_set_to_epsilon(cells, self.L)


def _check_delta(delta, eps, user):
    if delta is None or isinstance(delta, bool) or isinstance(delta, (str, bytes)):
        raise TypeError(f"delta must be a number or a sympy expression in epsilon, got {delta!r}")
    try:
        d = sp.nsimplify(delta) if isinstance(delta, float) else sp.sympify(delta)
    except (sp.SympifyError, TypeError):
        raise TypeError(f"delta must be a number or a sympy expression in epsilon, got {delta!r}") from None
    if not isinstance(d, sp.Expr) or d.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or (d.is_number and not d.is_real):
        raise ValueError(f"delta must be a finite real number or a sympy expression in epsilon, got {delta!r}")
    if d.free_symbols - {user}:
        raise ValueError(f"delta has free symbols {sorted(map(str, d.free_symbols - {user}))} other than {user}")
    return d.subs(user, eps)


def prepare(P, epsilon, domain, delta, pairs) -> Law:
    """Validate and convert; ValueError/TypeError for bad input, NotRational when not decidable here."""
    user, dom = check_domain(epsilon, domain)
    M = check_law(P, user)
    eps = user if user.is_positive else sp.Symbol(user.name, positive=True)
    M = M.subs(user, eps)
    # a float entry is read as its exact binary value (never rounded to a "nice" rational)
    M = M.replace(lambda a: isinstance(a, sp.Float), lambda f: sp.Rational(f))
    extra = M.free_symbols - {eps}
    if extra:
        if isinstance(user, sp.Dummy):
            raise ValueError(f"P has free symbols {sorted(map(str, extra))}: with epsilon a number the law must "
                             "contain no symbol")
        raise ValueError(f"P has free symbols {sorted(map(str, extra))} other than epsilon={user}")
    d = _check_delta(delta, eps, user)
    prs = check_pairs(pairs, M.shape[0])
    try:
        L = exp_scale(list(M) + [d], eps)
        if L > MAX_L:
            raise NotRational(f"the exponents need x = exp(epsilon/L) with L = {L}, past the polynomial "
                              f"route's limit L <= {MAX_L}")
        polys = tuple(tuple(to_polys(M[i, o], eps, L) for o in range(M.shape[1])) for i in range(M.shape[0]))
        dN, dD = to_polys(d, eps, L)
    except NotRational:
        for i in range(M.shape[0]):
            if sp.simplify(sum(M.row(i)) - 1) != 0:
                raise ValueError(f"row {i} of P does not sum to 1 identically") from None
        raise
    xdom = XDomain.from_epsilon(dom, L)
    signs = check_stochastic(polys, xdom, eps)
    sd = denominator_sign(dD, xdom, "delta")
    dN = dN if sd > 0 else -dN
    dD = dD if sd > 0 else -dD
    for bad, what in ((positive_cells(-dN, xdom), "negative"), (positive_cells(dN - dD, xdom), "greater than 1")):
        if bad:
            raise ValueError(f"delta is {what} for epsilon in {x_set_to_epsilon(bad, L)}")
    return Law(sp.ImmutableMatrix(M), eps, user, dom, L, xdom, prs, polys, tuple(map(tuple, signs)), d, (dN, dD))


def prepare_field(t_matrix, unit: int, pairs, eps: sp.Symbol) -> Law:
    """A :class:`Law` straight from entries in Q(t), t = e^{−ε/unit} (a program's law), pure ε-DP on ε > 0.

    With x = 1/t = e^{ε/L}, L = unit, an entry N(t)/D(t) is x^d N(1/x) / (x^d D(1/x)) (d the larger
    degree): polynomials in x, no expression round trip. Checked: every row sums to 1 in Q(t), every
    entry is ≥ 0 and has no pole on the domain (exactly, as :func:`prepare` does).
    """
    from dpverify.exact.validate import check_pairs

    rows = [list(r) for r in t_matrix]
    if len(rows) < 2 or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("t_matrix must have at least 2 rows of one length")
    for i, r in enumerate(rows):
        if sum(r[1:], r[0]) != 1:
            raise ValueError(f"row {i} of the law does not sum to 1 in Q(t)")

    def rev(poly, d):
        return sp.Poly.from_dict({(d - m[0],): sp.Rational(int(c.numerator), int(c.denominator))
                                  for m, c in poly.terms()} or {(0,): 0}, X, domain="QQ")

    polys = []
    for r in rows:
        prow = []
        for c in r:
            d = max(c.numer.degree(), c.denom.degree(), 0)
            prow.append((rev(c.numer, d), rev(c.denom, d)))
        polys.append(tuple(prow))
    L = int(unit)
    dom = sp.Interval.open(0, sp.oo)
    xdom = XDomain.from_epsilon(dom, L)
    signs = []
    for i, prow in enumerate(polys):
        signs.append([denominator_sign(D, xdom, (i, o)) for o, (N, D) in enumerate(prow)])
        for o, (N, D) in enumerate(prow):
            if positive_cells(-N * D, xdom):
                raise ValueError(f"P[{i}, {o}] is negative somewhere on epsilon > 0")
    n = len(rows)
    P = sp.ImmutableMatrix(n, len(rows[0]), lambda i, o: (polys[i][o][0].as_expr() / polys[i][o][1].as_expr()).subs(
        X, sp.exp(eps / L)))
    zero, one = sp.Poly(0, X, domain="QQ"), sp.Poly(1, X, domain="QQ")
    return Law(P, eps, eps, dom, L, xdom, check_pairs(pairs, n), tuple(polys), tuple(map(tuple, signs)),
               sp.Integer(0), (zero, one))
