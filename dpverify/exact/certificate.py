"""The second route of a proof: exact rational spot checks and an independent Sturm re-count.

1. At random rational points ``x = e^{ε/L}`` of the domain (so ``ε = L log x``), every entry is an
   exact ``Fraction`` (Horner on the polynomial coefficients, no sympy): the rows sum to 1, the entries
   are ≥ 0, and for each checked pair the inequality is evaluated directly; its outcome must agree with
   membership of ``x`` in the exact failing set found by the first route. In the local model (every
   pair) the whole claim at that ε is also decided by :func:`dpverify.audit.exact.check_ldp`
   (``exact=True``), which shares no code with :mod:`dpverify.exact`.
2. For every polynomial whose sign was decided (up to ``max_sturm`` of them, chosen at random), the
   number of distinct roots inside the domain found by real-root isolation (0 when Descartes' rule
   decided) must equal the count of a Sturm sequence (``sympy.sturm``, sign changes at the ends).

A disagreement makes :func:`dpverify.exact.prove` return ``unknown`` (it would be a bug).

Example
-------
>>> eps = sp.Symbol("epsilon", positive=True)
>>> from dpverify.exact import prove
>>> prove(sp.Matrix([[sp.exp(eps) / (1 + sp.exp(eps)), 1 / (1 + sp.exp(eps))],
...                  [1 / (1 + sp.exp(eps)), sp.exp(eps) / (1 + sp.exp(eps))]]), epsilon=eps).certificate["agree"]
True
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from dpverify.audit.exact import check_ldp
from dpverify.exact.law import Law
from dpverify.exact.signs import XDomain, in_cells, sturm_count

__all__: list[str] = []  # internal to dpverify.exact.prove


def _horner(coeffs, x: Fraction) -> Fraction:
    acc = Fraction(0)
    for c in coeffs:
        acc = acc * x + c
    return acc


def _fr(poly) -> list[Fraction]:
    return [Fraction(int(c.p), int(c.q)) for c in poly.all_coeffs()]


def _inside(x, cells) -> bool:
    return in_cells(x, cells)


def _points(dom: XDomain, rng: np.random.Generator, k: int) -> list[Fraction]:
    if dom.lo == dom.hi:
        return [Fraction(int(dom.lo.p), int(dom.lo.q))] if dom.lo.is_Rational else []
    lo = float(dom.lo)
    hi = float(dom.hi) if dom.hi is not sp.oo else lo + 4.0 * max(lo, 1.0)
    pts = []
    for u in rng.random(4 * k):
        x = sp.Rational(Fraction(lo + (hi - lo) * float(u)).limit_denominator(10**6))
        ok_lo = x > dom.lo if dom.lo_open else x >= dom.lo
        ok_hi = True if dom.hi is sp.oo else (x < dom.hi if dom.hi_open else x <= dom.hi)
        if bool(ok_lo) and bool(ok_hi) and x > 1:
            pts.append(Fraction(int(x.p), int(x.q)))
        if len(pts) == k:
            break
    return pts


def certify(law: Law, fails: dict, rng: np.random.Generator, points: int = 6, max_sturm: int = 200) -> dict:
    """The second-route evidence; ``fails[(i, j)]`` = the exact x-cells where the claim fails for that pair."""
    fr = [[(_fr(N), _fr(D)) for N, D in row] for row in law.polys]
    dN, dD = _fr(law.dpoly[0]), _fr(law.dpoly[1])
    pts = _points(law.xdom, rng, points)
    mism, ldp_checked = [], 0
    for x in pts:
        P = [[_horner(N, x) / _horner(D, x) for N, D in row] for row in fr]
        if any(sum(r) != 1 or min(r) < 0 for r in P):
            mism.append(f"x={x}: not a probability law")
        d, ex = _horner(dN, x) / _horner(dD, x), x ** law.L
        for (i, j) in law.pairs:
            if d == 0:
                bad = any(p > ex * q for p, q in zip(P[i], P[j]))
            else:
                bad = sum(max(Fraction(0), p - ex * q) for p, q in zip(P[i], P[j])) > d
            if bad != _inside(sp.Rational(x.numerator, x.denominator), fails.get((i, j), [])):
                mism.append(f"x={x}: pair {(i, j)} direct check {bad}, exact set says otherwise")
        if len(law.pairs) == law.P.shape[0] * (law.P.shape[0] - 1) and d < 1:
            eps_x = law.L * sp.log(sp.Rational(x.numerator, x.denominator))
            holds = check_ldp([[str(v) for v in r] for r in P], eps_x, d, exact=True).holds
            ldp_checked += 1
            if holds == any(_inside(sp.Rational(x.numerator, x.denominator), c) for c in fails.values()):
                mism.append(f"x={x}: check_ldp says holds={holds}, disagreeing")
    return {"points_x": [str(x) for x in pts], "x_is": f"exp(epsilon/{law.L})", "check_ldp_points": ldp_checked,
            "mismatches": mism}


#: Sturm sequences over QQ grow quadratically in coefficient size with the degree: past this degree the
#: re-count is skipped (and counted in the certificate); the rational spot checks still cover them
STURM_MAX_DEGREE = 120


def sturm_recheck(record: dict, rng: np.random.Generator, max_sturm: int = 200,
                  max_degree: int = STURM_MAX_DEGREE) -> dict:
    """Re-count the roots of the decided polynomials (degree ≤ ``max_degree``) with Sturm sequences."""
    keys = [k for k in record if k[0].degree() <= max_degree]
    skipped = len(record) - len(keys)
    if len(keys) > max_sturm:
        keys = [keys[k] for k in sorted(rng.choice(len(keys), size=max_sturm, replace=False))]
    bad = [f"{Q.as_expr()}: isolation {record[(Q, dom)]} roots, Sturm {n}"
           for (Q, dom) in keys if (n := sturm_count(Q, dom)) != record[(Q, dom)]]
    return {"polynomials_decided": len(record), "sturm_rechecked": len(keys), "sturm_mismatches": bad,
            "sturm_skipped_degree": skipped, "sturm_max_degree": max_degree}
