"""Pure ε-DP for every ε > 0 by a partial-sum certificate, for laws whose exponents need a large L.

An entry ``exp(c ε)`` with c a rational of large denominator (a float score read exactly: 2^52) makes
the polynomial route of :mod:`dpverify.exact.signs` impossible (degree ~ L). Write every entry as
``N/D`` with ``N, D`` *exponential sums* ``Σ_k a_k e^{b_k ε}`` (rational a_k, b_k). When every ``D`` has
non-negative coefficients (not all 0) it is > 0, and ``P[i, o] ≤ e^ε P[j, o]`` is ``h(ε) ≤ 0`` with
``h = N_i D_j − e^ε N_j D_i``, again an exponential sum. Order its exponents b_1 > b_2 > … > b_n and
let ``S_k = a_1 + … + a_k``. Abel summation gives, for every ε,

    h(ε) = Σ_{k<n} S_k (e^{b_k ε} − e^{b_{k+1} ε}) + S_n e^{b_n ε},

and for ε ≥ 0 each bracket is ≥ 0, so ``S_k ≤ 0`` for every k proves ``h ≤ 0`` on all of ε ≥ 0. The
condition is sufficient, not necessary: when some ``S_k > 0`` the verdict is ``unknown`` (never
``refuted``). For the exponential mechanism with |q − q′|∞ ≤ Δ the condition holds: matching the
terms of ``h`` by candidate r, each positive term's exponent is at most its negative partner's.
The certificate's second route evaluates every condition at random rational ε in 60-digit arithmetic.
Proof: ``dpverify/exact/proofs/decision.md`` (§ partial sums).

Example
-------
>>> import sympy as sp
>>> e = sp.Symbol("epsilon", positive=True)
>>> expsum(sp.exp(e / 3) * (2 + sp.exp(-e)) - 1, e) == {sp.Rational(1, 3): 2, sp.Rational(-2, 3): 1, 0: -1}
True
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from dpverify.exact.result import ProofResult
from dpverify.exact.signs import NotRational

__all__: list[str] = []  # internal to dpverify.exact (inputs validated by prove)


def expsum(expr, eps: sp.Symbol) -> dict:
    """``{b: a}`` with ``expr = Σ a e^{b ε}`` (rational a ≠ 0, b), or :class:`NotRational`.

    Example
    -------
    >>> import sympy as sp
    >>> e = sp.Symbol("e", positive=True)
    >>> expsum(3 * sp.exp(e) - 3 * sp.exp(e), e)
    {}
    """
    if not isinstance(eps, sp.Symbol):
        raise TypeError(f"eps must be a sympy Symbol, got {eps!r}")
    out: dict = {}
    for term in sp.Add.make_args(sp.expand(sp.sympify(expr))):
        if term == 0:
            continue
        c, rest = term.as_independent(eps, as_Add=False)
        rest = sp.powsimp(rest)
        if rest == 1:
            b = sp.Integer(0)
        elif isinstance(rest, sp.exp):
            b = sp.simplify(rest.args[0] / eps)
        else:
            raise NotRational(f"the term {term} is not a rational multiple of exp(c*{eps})")
        if not (c.is_Rational and b.is_Rational):
            raise NotRational(f"the term {term} is not a rational multiple of exp(c*{eps}) with c rational")
        out[b] = out.get(b, 0) + c
    return {b: a for b, a in out.items() if a != 0}


def exp_product(f: dict, g: dict) -> dict:
    """The product of two sums of powers, each a dict exponent -> coefficient (zero terms dropped).

    Also the product the exact programs use (:mod:`dpverify.exact.programs.geometric`, ``tails``).

    >>> exp_product({0: 1, 1: 2}, {1: 3, -1: 1})
    {1: 3, -1: 1, 2: 6, 0: 2}
    """
    out: dict = {}
    for b1, a1 in f.items():
        for b2, a2 in g.items():
            out[b1 + b2] = out.get(b1 + b2, 0) + a1 * a2
    return {b: a for b, a in out.items() if a != 0}


def partial_sums_ok(h: dict) -> bool:
    """True when every partial sum of ``h``'s coefficients, by decreasing exponent, is ≤ 0
    (then ``h(ε) ≤ 0`` for every ε ≥ 0).

    Example
    -------
    >>> partial_sums_ok({2: -1, 1: 1}), partial_sums_ok({2: 1, 1: -1})
    (True, False)
    """
    s = 0
    for b in sorted(h, reverse=True):
        s += h[b]
        if s > 0:
            return False
    return True


def _split(P, eps):
    parts = []
    for i in range(P.shape[0]):
        row = []
        for o in range(P.shape[1]):
            n, d = sp.fraction(sp.together(P[i, o]))
            N, D = expsum(n, eps), expsum(d, eps)
            if not D or any(a < 0 for a in D.values()):
                raise NotRational(f"the denominator of P[{i}, {o}] is not a sum of exponentials with positive "
                                  "coefficients")
            if any(a < 0 for a in N.values()):
                raise NotRational(f"P[{i}, {o}] is not a ratio of exponential sums with non-negative coefficients")
            row.append((N, D))
        parts.append(row)
    return parts


def _spot_check(P, eps, pairs, rng, points: int) -> list[str]:
    bad = []
    with mpmath.workdps(60):
        for x in rng.uniform(0.01, 8.0, points):
            e = sp.Rational(int(round(x * 1000)), 1000)
            M = P.subs(eps, e).evalf(60)
            for i, j in pairs:
                for o in range(M.shape[1]):
                    lhs, rhs = M[i, o], sp.exp(e).evalf(60) * M[j, o]
                    if lhs > rhs * (1 + sp.Float(10) ** -40):
                        bad.append(f"P[{i},{o}] > e^eps P[{j},{o}] at eps = {e}")
    return bad


def prove_by_partial_sums(P, eps: sp.Symbol, pairs, why: str, rng: np.random.Generator,
                          points: int = 4) -> ProofResult:
    """``proved`` (pure ε-DP for every ε ≥ 0) when every condition's partial sums are ≤ 0, else ``unknown``.

    ``P`` is an already validated sympy Matrix in the positive symbol ``eps``; ``why`` says why the
    polynomial route was not taken (it goes into the reason).

    Example
    -------
    >>> import sympy as sp, numpy as np
    >>> e = sp.Symbol("epsilon", positive=True)
    >>> w = sp.exp(e * sp.Rational(1, 2 ** 40))
    >>> P = sp.Matrix([[w / (1 + w), 1 / (1 + w)], [1 / (1 + w), w / (1 + w)]])
    >>> prove_by_partial_sums(P, e, [(0, 1), (1, 0)], "L = 2^40", np.random.default_rng(0)).verdict
    'proved'
    """
    try:
        parts = _split(P, eps)
    except NotRational as exc:
        return ProofResult("unknown", f"no exact decision: {why}; the partial-sum route needs {exc}")
    E = {sp.Integer(1): 1}
    checked = 0
    for i, j in pairs:
        for o in range(P.shape[1]):
            (Ni, Di), (Nj, Dj) = parts[i][o], parts[j][o]
            h = exp_product(Ni, Dj)
            for b, a in exp_product(E, exp_product(Nj, Di)).items():
                h[b] = h.get(b, 0) - a
            h = {b: a for b, a in h.items() if a != 0}
            checked += 1
            if not partial_sums_ok(h):
                return ProofResult("unknown", f"no exact decision: {why}; the partial-sum certificate does not settle "
                                   f"P[{i}, {o}] <= e^eps P[{j}, {o}] (a partial sum is > 0; the claim may still hold)")
    bad = _spot_check(P, eps, pairs, rng, points)
    cert = {"route": "partial sums (Abel summation)", "conditions": checked, "spot_points": points,
            "mismatches": bad, "agree": not bad}
    if bad:
        return ProofResult("unknown", "the second route disagrees with the partial-sum certificate (a bug): "
                           + "; ".join(bad[:3]), None, cert)
    return ProofResult("proved", f"pure epsilon-DP holds for every epsilon > 0: {len(pairs)} ordered pairs, "
                       f"{checked} conditions with every partial sum <= 0 ({why})", None, cert)
