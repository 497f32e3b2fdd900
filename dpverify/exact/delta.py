"""The exact δ(ε) of a pair of rows, piece by piece, and the (ε, δ) decision.

For rows ``p = P[i]``, ``q = P[j]`` the tight δ at ε is the hockey-stick divergence
``δ_ij(ε) = Σ_o max(0, p_o − e^ε q_o) = max_S (p(S) − e^ε q(S))`` (the maximum over output sets S is
attained at ``S = {o : p_o > e^ε q_o}``; Dwork and Roth 2014, and
``dpverify/audit/proofs/hockey_stick.md``). With the law's entries functions of ε too, each term's sign
changes only at the real roots of ``h_o = p_o − e^ε q_o`` (rational in ``x = e^{ε/L}``), so between
consecutive roots the active set ``A`` is constant and ``δ_ij = Σ_{o∈A} h_o`` is one rational function:
:func:`pair_cells` gives the cells, :func:`delta_curve` the ``Piecewise``, and :func:`delta_failures`
the exact ε-set where ``δ_ij(ε) > δ(ε)`` (decided on each closed cell: ``δ_ij`` is continuous).

Example
-------
>>> eps = sp.Symbol("epsilon", positive=True)
>>> P = sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]])
>>> delta_curve(P, (0, 1), eps)
Piecewise((3/4 - exp(epsilon)/4, epsilon <= log(3)), (0, True))
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.exact.law import Law, prepare
from dpverify.exact.signs import X, XDomain, exact, merge_cells, positive_cells, rational_between, sign_at
from dpverify.proofdocs import proven

__all__ = ["delta_curve"]  # the other functions are internal to dpverify.exact.prove


def _sorted_points(points, dom: XDomain) -> list:
    out = [c[0] for c in merge_cells([(p, p, False, False) for p in points])]
    return [dom.lo, *out, dom.hi]


def pair_cells(law: Law, i: int, j: int, record: dict | None = None):
    """``[(a, b, active outputs)]``: the x-cells of the domain where the active set of pair (i, j) is constant."""
    dom = law.xdom
    if dom.lo == dom.hi:
        act = tuple(o for o in range(law.P.shape[1]) if sign_at(law.h(i, j, o), dom.lo) > 0)
        return [(dom.lo, dom.hi, act)]
    points = set()
    for o in range(law.P.shape[1]):
        for a, b, _, _ in positive_cells(law.h(i, j, o), dom, record):
            points.update(v for v in (a, b) if v not in (dom.lo, dom.hi))
    pts = _sorted_points(points, dom)
    cells = []
    for a, b in zip(pts, pts[1:]):
        s = rational_between(a, b)
        cells.append((a, b, tuple(o for o in range(law.P.shape[1]) if sign_at(law.h(i, j, o), s) > 0)))
    return cells


def _excess(law: Law, i: int, j: int, outputs) -> sp.Poly:
    """A polynomial with the sign of ``Σ_{o∈S} h_o − δ`` on the domain: N·D for the reduced fraction N/D.

    Summed as fractions of polynomials over QQ (h_o = (N_i D_j − x^L N_j D_i)/(D_i D_j)), reduced by their
    gcd at each step, so N·D has no root that N/D lacks (no spurious zero splits a cell where it fails).
    """
    xl = sp.Poly(X ** law.L, X, domain="QQ")
    num, den = -law.dpoly[0], law.dpoly[1]
    for o in outputs:
        (Ni, Di), (Nj, Dj) = law.polys[i][o], law.polys[j][o]
        hn, hd = Ni * Dj - xl * Nj * Di, Di * Dj
        num, den = num * hd + hn * den, den * hd
        g = num.gcd(den)
        num, den = num.exquo(g), den.exquo(g)
    return num * den


def delta_failures(law: Law, i: int, j: int, record: dict | None = None):
    """``(x-cells where δ_ij > δ, the active set of the first failing cell)``, exact."""
    dom, failing, first = law.xdom, [], None
    for a, b, act in pair_cells(law, i, j, record):
        if not act:
            continue
        cell = XDomain(a, b, dom.lo_open if a == dom.lo else False, dom.hi_open if b == dom.hi else False, law.L)
        if cell.hi is sp.oo:
            cell = XDomain(a, b, cell.lo_open, True, law.L)
        bad = positive_cells(_excess(law, i, j, act), cell, record)
        if bad and first is None:
            first = act
        failing += bad
    return failing, first


@proven("exact/decision.md")
def delta_curve(P, pair, epsilon, *, domain=None) -> sp.Expr:
    """The exact δ(ε) of the ordered pair ``(i, j)`` of rows of ``P``: a ``Piecewise`` in ε.

    Parameters
    ----------
    P : sympy.Matrix
        The law (rows inputs, columns outputs), entries rational in e^{ε/L}.
    pair : tuple of two int
        ``(i, j)``: δ(ε) = Σ_o max(0, P[i, o] − e^ε P[j, o]).
    epsilon : sympy.Symbol
        The privacy parameter (also the law's parameter).
    domain : sympy.Interval, optional
        The ε-range (default ε > 0); the pieces' conditions are stated on it.

    Returns
    -------
    sympy expression
        A ``Piecewise`` with one piece per cell of constant active output set, in increasing ε
        (sympy returns the expression itself when there is one piece).

    Example
    -------
    >>> e = sp.Symbol("e", positive=True)
    >>> q = sp.exp(e) / (1 + sp.exp(e))
    >>> delta_curve(sp.Matrix([[q, 1 - q], [1 - q, q]]), (0, 1), e)     # one piece: no Piecewise
    0
    """
    if isinstance(pair, np.ndarray) and pair.shape == (2,):
        pair = tuple(pair.tolist())
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise TypeError(f"pair must be a tuple (i, j) of two row indices, got {pair!r}"[:200])
    law = prepare(P, epsilon, domain, 0, [pair])
    (i, j), = law.pairs
    pieces = []
    for a, b, act in pair_cells(law, i, j):
        expr = sum((law.P[i, o] - sp.exp(law.eps) * law.P[j, o] for o in act), sp.Integer(0))
        cond = True if b is sp.oo or b == law.xdom.hi else sp.Le(law.eps, sp.expand_log(law.L * sp.log(exact(b))))
        pieces.append((sp.simplify(expr), cond))
    return law.back(sp.Piecewise(*pieces))


def needed_for_set(law: Law, i: int, j: int, outputs):
    """The smallest ε′ with ``P[i, S] ≤ e^{ε′} P[j, S] + δ`` (δ > 0) or every ``o ∈ S`` at δ = 0."""
    if law.dpoly[0].is_zero:
        vals = []
        for o in outputs:
            (Ni, Di), (Nj, Dj) = law.polys[i][o], law.polys[j][o]
            vals.append(sp.oo if Nj.is_zero else _log_of((Ni * Dj).as_expr() / (Nj * Di).as_expr(), law))
        return sp.Max(*vals)
    pS = sum((law.P[i, o] for o in outputs), sp.Integer(0))
    qS = sum((law.P[j, o] for o in outputs), sp.Integer(0))
    if sp.simplify(qS) == 0:
        return sp.oo
    return sp.expand_log(sp.log(sp.factor(sp.cancel((pS - law.delta) / qS))))


def _log_of(ratio_x, law: Law):
    """``log`` of a positive rational function of ``x``, in ε, with the logs of positive factors split."""
    r = sp.factor(sp.cancel(ratio_x)).subs(X, sp.exp(law.eps / law.L))
    return sp.expand_log(sp.log(sp.powsimp(r)), force=False)


def set_fail_x(law: Law, i: int, j: int, outputs) -> list:
    """The x-cells where ``P[i, S] − e^ε P[j, S] > δ`` for the output set ``S``."""
    return positive_cells(_excess(law, i, j, outputs), law.xdom)


def pure_fail_x(law: Law, i: int, j: int, record=None) -> dict:
    """``{o: x-cells where P[i, o] > e^ε P[j, o]}`` for the outputs that fail somewhere."""
    out = {}
    for o in range(law.P.shape[1]):
        if law.polys[i][o][0].is_zero:
            continue
        cells = positive_cells(law.h(i, j, o), law.xdom, record)
        if cells:
            out[o] = cells
    return out


