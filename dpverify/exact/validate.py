"""Input checks of :func:`dpverify.exact.prove`, all made before any proof is attempted.

- :func:`check_law` — a non-empty ``sympy.Matrix`` within the size limit, no free symbol but ε;
- :func:`check_domain` — ε as a positive symbol plus its domain (an interval of ε > 0, or one point);
- :func:`check_pairs` — ordered pairs of distinct row indices (``None``: every ordered pair);
- :func:`check_stochastic` — every entry is a probability on the whole domain (decided exactly, by
  :func:`dpverify.exact.signs.positive_cells`) and every row sums to 1 identically.

Example
-------
>>> eps = sp.Symbol("epsilon", positive=True)
>>> check_pairs(None, 3)
((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))
"""

from __future__ import annotations

from numbers import Integral, Real

import sympy as sp

from dpverify.exact.signs import X, XDomain, positive_cells, roots_inside, sign_at, x_set_to_epsilon

__all__ = ["SIZE_LIMIT"]  # the checks are internal to dpverify.exact.prove

#: the largest law :func:`dpverify.exact.prove` accepts: rows x columns (deciding ε-DP of loop-free
#: programs is coNP^#P-complete, Gaboardi, Nissim, Purser, ICALP 2020: exact tools stay small)
SIZE_LIMIT = (50, 50)


def check_law(P, eps: sp.Symbol) -> sp.Matrix:
    """``P`` as an immutable sympy Matrix in ``eps`` (the caller's symbol replaced by ``eps``)."""
    if not isinstance(P, (sp.MatrixBase,)):
        raise TypeError(f"P must be a sympy Matrix (rows: inputs, columns: outputs), got {type(P).__name__}")
    n, m = P.shape
    if n < 2 or m < 1:
        raise ValueError(f"P must have at least 2 rows and 1 column, got shape {P.shape}")
    if n > SIZE_LIMIT[0] or m > SIZE_LIMIT[1]:
        raise ValueError(f"P of shape {P.shape} is past the size limit {SIZE_LIMIT[0]} x {SIZE_LIMIT[1]} "
                         "(exact verification is coNP^#P-hard: the limit keeps each proof within seconds)")
    return sp.ImmutableMatrix(P)


def check_domain(epsilon, domain):
    """``(symbol, domain)``: ``epsilon`` a sympy Symbol (domain default ε > 0) or a number > 0 (one point)."""
    if isinstance(epsilon, bool):
        raise TypeError(f"epsilon must be a sympy Symbol or a number > 0, got {epsilon!r}")
    if isinstance(epsilon, sp.Symbol):
        sym = epsilon
        if domain is None:
            domain = sp.Interval.open(0, sp.oo)
        elif isinstance(domain, (Real, sp.Expr)) and not isinstance(domain, bool) and not isinstance(domain, sp.Set):
            domain = sp.FiniteSet(sp.sympify(domain))
    elif isinstance(epsilon, Real) or (isinstance(epsilon, sp.Expr) and not epsilon.free_symbols):
        if domain is not None:
            raise ValueError(f"domain applies to a symbolic epsilon; epsilon={epsilon!r} is a number")
        sym = sp.Dummy("epsilon", positive=True)   # a number: the law must not contain a symbol
        domain = sp.FiniteSet(sp.nsimplify(epsilon) if isinstance(epsilon, float) else sp.sympify(epsilon))
    else:
        raise TypeError(f"epsilon must be a sympy Symbol or a number > 0, got {epsilon!r}")
    if isinstance(domain, sp.FiniteSet):
        if len(domain) != 1:
            raise ValueError(f"domain must be an interval or one point, got {domain}")
        (p,) = domain.args
        if not (p.is_real and p.is_finite and p.is_positive):
            raise ValueError(f"epsilon must be a finite real number > 0, got {p}")
    elif isinstance(domain, sp.Interval):
        if not (domain.start.is_real and domain.start >= 0) or domain.start == domain.end:
            raise ValueError(f"domain must be an interval of epsilon > 0 with non-negative start, got {domain}")
        if domain.start == 0 and not domain.left_open:
            raise ValueError(f"domain must exclude epsilon = 0 (privacy parameters are > 0), got {domain}")
    else:
        raise TypeError(f"domain must be a sympy Interval of epsilon or a number, got {domain!r}")
    return sym, domain


def check_pairs(pairs, n: int) -> tuple[tuple[int, int], ...]:
    """The ordered pairs to check: ``None`` means every ordered pair of distinct rows."""
    if pairs is None:
        return tuple((i, j) for i in range(n) for j in range(n) if i != j)
    if isinstance(pairs, (str, bytes)) or getattr(pairs, "size", 0) > 10 ** 6:
        raise TypeError(f"pairs must be a list of (i, j) row-index pairs, got {type(pairs).__name__}")
    try:
        out = tuple(tuple(p) for p in pairs)
    except TypeError:
        raise TypeError(f"pairs must be a list of (i, j) row-index pairs, got {pairs!r}") from None
    if not out:
        raise ValueError("pairs must be non-empty (None checks every pair of rows), got an empty list")
    for p in out:
        if len(p) != 2 or not all(isinstance(k, Integral) and not isinstance(k, bool) for k in p):
            raise ValueError(f"pairs: each pair must be two int row indices, got {p!r}")
    out = tuple((int(a), int(b)) for a, b in out)
    for p in out:
        if not all(0 <= k < n for k in p) or p[0] == p[1]:
            raise ValueError(f"pairs: pair {p!r} must be two distinct row indices in 0..{n - 1}")
    return out


def check_stochastic(polys, dom: XDomain, sym) -> list[list[int]]:
    """Every entry ≥ 0 on the domain, no pole, rows summing to 1 identically; the signs of the denominators.

    ``polys[i][o] = (N, D)``. Raises ValueError naming the entry and the exact ε-set of the problem.
    """
    signs = []
    for i, row in enumerate(polys):
        total = sp.Integer(0)
        srow = []
        for o, (N, D) in enumerate(row):
            sD = denominator_sign(D, dom, (i, o))
            srow.append(sD)
            neg = positive_cells(-N * D, dom)
            if neg:
                raise ValueError(f"P[{i}, {o}] is negative for epsilon in {x_set_to_epsilon(neg, dom.L)}: "
                                 "entries must be probabilities on the whole domain")
            total += N.as_expr() / D.as_expr()
        if sp.cancel(sp.together(total) - 1) != 0:
            raise ValueError(f"row {i} of P sums to {sp.simplify(total.subs(X, sp.exp(sym / dom.L)))}, "
                             "not 1 identically")
        signs.append(srow)
    return signs


def denominator_sign(D: sp.Poly, dom: XDomain, where) -> int:
    """The constant sign of a denominator on the domain (ValueError at a pole)."""
    if roots_inside(D, dom) or (not dom.lo_open and sign_at(D, dom.lo) == 0) \
            or (not dom.hi_open and dom.hi is not sp.oo and sign_at(D, dom.hi) == 0):
        raise ValueError(f"{where} has a pole in the domain" if isinstance(where, str) else f"P[{where[0]}, {where[1]}] has a pole in the domain")
    return sign_at(D, dom.sample())
