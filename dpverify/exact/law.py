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

from dpverify.exact.signs import X, NotRational, XDomain, exp_scale, positive_cells, to_polys, x_set_to_epsilon
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
