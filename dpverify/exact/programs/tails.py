"""The tail of a gap output in closed form, and pure ε-DP over every gap value past the window, exactly.

A program's law (:mod:`.law`) gives a gap output (``ctx.noisy_gap``: w = x + Z − T − ρ when w ≥ a
bound) single cells on a window and one rest cell; a proof on those cells is not a proof for every
single gap value. This module closes that gap for a gap slot whose path has no hard bound on ρ.

**Closed form.** On one path the probability of the gap value w is Σ_ρ G(ρ)·P(Z = ρ + s0 + w) with
s0 = T − x and G the product of the path's other factors (term lists on each side of their splits,
:class:`~.geometric.Factor`). Let b1 be the smallest split of G. For w ≥ W0 = max(bound, −s0 − b1) the
point factor's split −s0 − w lies left of b1, and summing the three ranges ρ < −s, −s ≤ ρ < b1, ρ ≥ b1
in closed form (geometric series; r = t^a, c = (1 − r)/(1 + r), G_left = Σ_e g_e t^{eρ} the product
of every factor's low side) gives

    P(w) = Σ_k (α_k + β_k w) · t^{γ_k w},   α_k, β_k in Q(t), γ_k integers ≥ 1,

with rates γ = a (the gap noise) and γ = −e for the exponents e of G_left (β ≠ 0 only when e = −a).
Each path's form is re-checked against the direct sum (:meth:`.law.Evaluator.rho_part`) at three
values of w, exactly in Q(t).

**Decision.** For an ordered pair (i, j) let F(w) = P_i(w) − e^ε P_j(w), of the same form. For every
ε and every integer w ≥ W (W ≥ each row's W0):

- one rate γ: F = t^{γw}(C + D w) ≤ 0 for all w ≥ W  ⇔  D ≤ 0 and C + D W ≤ 0;
- two rates γ1 < γ2, no w-terms: F = t^{γ1 w}(C1 + C2 y^w) with y = t^{γ2−γ1} ∈ (0, 1) and y^w
  decreasing to 0, a linear function of y^w on (0, y^W]  ⇔  C1 ≤ 0 and F(W) ≤ 0.

Both are exact (iff), so the failing ε-set is exact (each condition by real-root isolation in x = e^{ε/unit}).

- more rates, no w-terms: with z = t^w ∈ (0, t^W] and s = z/t^W ∈ (0, 1], F/t^{γ1 w} = Σ_k C_k t^{(γ_k−γ1)W}
  s^{γ_k−γ1}; by Abel summation over the decreasing powers of s, it is ≤ 0 on s ∈ (0, 1] when every partial
  sum Σ_{m≤k} C_m t^{(γ_m−γ1)W} is ≤ 0 for every ε. Sufficient only: when a partial sum fails somewhere
  the tail is reported as undecided (never as failing).

Another form is reported as undecided. Proof: ``dpverify/exact/proofs/closed_forms.md`` (§ gap tails).

Example
-------
>>> from dpverify.exact.programs import program_law
>>> from dpverify.exact.programs.checkdp import gapsparsevector
>>> law = program_law(gapsparsevector, [(0,), (1,)], T=1, NN=1)
>>> r = tail_verdict(law, [(0, 1), (1, 0)])
>>> r["decided"], r["failing"]
(True, [])
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.exact.expsums import exp_product
from dpverify.exact.programs.context import OutVar
from dpverify.exact.programs.geometric import FIELD, ONE, T, Factor, sum_terms
from dpverify.exact.programs.law import EPSILON, Evaluator, output_shape as shape_of
from dpverify.exact.signs import X, XDomain, positive_cells, x_set_to_epsilon
from dpverify.validation import check_positive_int

__all__ = ["fails_set", "prove_program"]  # gap_tail and tail_verdict are its internal steps


def _add(form: dict, key, c) -> None:
    form[key] = form.get(key, FIELD.zero) + c


def gap_tail(ev: Evaluator, ctx, var: OutVar):
    """``(W0, {(γ, deg): coeff})``: P(gap = w, this path) = Σ coeff·w^deg·t^{γw} for w ≥ W0 (without the
    path's constant factor), or None when the path bounds ρ (``ctx.lo``/``ctx.hi``)."""
    if ctx.lo is not None or ctx.hi is not None or ctx.rho is None:
        return None
    others = [Factor(k, ev.a(b), s) for k, b, s in ctx.factors]
    a, s0 = ev.a(var.b), var.T - var.x
    r = T ** a
    c = (1 - r) / (1 + r)
    cuts = sorted({f.split for f in others})
    b1 = cuts[0]
    W0 = max(var.at_least, -s0 - b1)
    left = {0: ONE}
    for f in others:
        left = exp_product(left, f.terms(False))
    form: dict = {}
    for e, g in left.items():
        _add(form, (-e, 0), c * g * T ** (-e * s0 + a - e) / (1 - T ** (a - e)))  # ρ < −s
        k = e + a                                                                   # −s ≤ ρ < b1
        if k != 0:
            _add(form, (-e, 0), c * g * T ** (-e * s0) / (1 - T ** k))
            _add(form, (a, 0), -c * g * T ** (k * b1 + a * s0) / (1 - T ** k))
        else:
            _add(form, (a, 0), c * g * T ** (a * s0) * (b1 + s0))
            _add(form, (a, 1), c * g * T ** (a * s0))
    high = FIELD.zero                                                               # ρ ≥ b1
    for i, start in enumerate(cuts):
        end = cuts[i + 1] - 1 if i + 1 < len(cuts) else None
        terms = {a: ONE}
        for f in others:
            terms = exp_product(terms, f.terms(start >= f.split))
        high += sum_terms(terms, start, end)
    _add(form, (a, 0), c * T ** (a * s0) * high)
    return W0, {k: v for k, v in form.items() if v != 0}


def _value(form: dict, w: int):
    return sum((cf * w ** d * T ** (g * w) for (g, d), cf in form.items()), FIELD.zero)


def _row_tails(law, ev):
    """Per row: {(shape, slot): [W0, form]} summed over the paths, each path's form re-checked."""
    rows, lazy = [], Evaluator(law.unit, lazy=True)  # the direct sums of the re-check, reduced once each
    for paths in law.paths:
        acc: dict = {}
        for out, ctx in paths:
            slots = [(i, v) for i, v in enumerate(out) if isinstance(v, OutVar) and v.kind != "point"]
            if not slots:
                continue
            if len(slots) > 1 or slots[0][1].kind != "gap":
                return None, "an output with a random slot other than one gap"
            i, v = slots[0]
            got = gap_tail(ev, ctx, v)
            if got is None:
                return None, "a gap on a path that bounds the threshold noise"
            W0, form = got
            base = ev.const_part(ctx)
            for w in (W0, W0 + 1, W0 + 2):
                if _value(form, w) != lazy.rho_part(ctx, v, ("=", w)).to_field():
                    return None, f"the closed form of a gap tail disagrees with the direct sum at w = {w} (a bug)"
            key = (shape_of(out), i)
            slot = acc.setdefault(key, [W0, {}])
            slot[0] = max(slot[0], W0)
            for k, cf in form.items():
                _add(slot[1], k, base * cf)
        rows.append(acc)
    return rows, ""


_X_DOMAIN: dict = {}


def fails_set(cond, unit: int) -> sp.Set:
    """The exact ε-set where ``cond`` (an element of Q(t), t = e^{−ε/unit}) is > 0.

    >>> fails_set(T - T ** 2, 1)   # t − t² > 0 for every ε > 0
    Interval.open(0, oo)
    """
    if not isinstance(cond, type(FIELD.one)) or cond.field != FIELD:
        raise TypeError(f"cond must be an element of Q(t) (geometric.FIELD), got {cond!r:.60}")
    return _fails(cond, check_positive_int(unit, "unit", maximum=10 ** 4))


def _fails(cond, unit: int) -> sp.Set:
    """:func:`fails_set` without the argument checks.

    With x = 1/t = e^{ε/unit} > 1, cond has the sign of N(t)·D(t), and of x^d·N(1/x)·D(1/x) (d the
    degree): the reversed polynomial, decided by :func:`~dpverify.exact.signs.positive_cells`.
    """
    if cond == 0:
        return sp.EmptySet
    terms = (cond.numer * cond.denom).terms()
    d = max(m[0] for m, _ in terms)
    Q = sp.Poly.from_dict({(d - m[0],): sp.Rational(int(c.numerator), int(c.denominator)) for m, c in terms}, X,
                          domain="QQ")  # from the coefficients: no expression is built
    dom = _X_DOMAIN.setdefault(unit, XDomain(sp.Integer(1), sp.oo, True, True, unit))
    return x_set_to_epsilon(positive_cells(Q, dom), unit)


def _pair_fail(F: dict, W: int, unit: int):
    """The exact ε-set where some gap value w ≥ W breaks P_i ≤ e^ε P_j (None: form not decided)."""
    F = {k: v for k, v in F.items() if v != 0}
    rates = sorted({g for g, _ in F})
    if not F:
        return sp.EmptySet
    if len(rates) == 1:
        (g,) = rates
        C, D = F.get((g, 0), FIELD.zero), F.get((g, 1), FIELD.zero)
        return sp.Union(_fails(D, unit), _fails(C + D * W, unit))
    if len(rates) == 2 and all(d == 0 for _, d in F):
        g1, g2 = rates
        C1, C2 = F[(g1, 0)], F[(g2, 0)]
        return sp.Union(_fails(C1, unit), _fails(C1 + C2 * T ** ((g2 - g1) * W), unit))
    if all(d == 0 for _, d in F):  # more rates: the partial sums in z = t^(w−W) (sufficient only)
        S = FIELD.zero
        for g in rates:
            S += F[(g, 0)] * T ** ((g - rates[0]) * W)
            if _fails(S, unit) != sp.EmptySet:
                return None
        return sp.EmptySet
    return None


def tail_verdict(law, pairs) -> dict:
    """Pure ε-DP over every gap value past the window, for each ordered pair: exact where decided.

    Returns ``{"decided": bool, "reason": str, "failing": [(i, j, shape, ε-set)], "tail_from": {...}}``;
    ``decided`` is False when some form is outside the two decided cases (then nothing is claimed).
    """
    ev = Evaluator(law.unit)
    rows, why = _row_tails(law, ev)
    if rows is None:
        return {"decided": False, "reason": why, "failing": [], "tail_from": {}}
    keys = sorted({k for acc in rows for k in acc}, key=repr)
    e_eps = T ** (-law.unit)  # e^ε = t^{−unit}
    failing, starts = [], {}
    for key in keys:
        W = max(acc[key][0] for acc in rows if key in acc)
        lo, hi = law.partitions.get(key, (None, None))
        if hi is None or W > hi + 1:
            return {"decided": False, "reason": f"the window ends at {hi}, before the tail form starts (w >= {W}): "
                    "use a larger window", "failing": [], "tail_from": starts}
        W = hi + 1
        starts[repr(key)] = W
        for i, j in pairs:
            Fi, Fj = (rows[k].get(key, [W, {}])[1] for k in (i, j))
            F = dict(Fi)
            for k, cf in Fj.items():
                _add(F, k, -e_eps * cf)
            bad = _pair_fail(F, W, law.unit)
            if bad is None:
                return {"decided": False, "reason": f"a tail form with rates {sorted(F)} is not among the decided "
                        "forms", "failing": failing, "tail_from": starts}
            if bad != sp.EmptySet:
                failing.append((i, j, key, bad))
    return {"decided": True, "reason": "", "failing": failing, "tail_from": starts}


def prove_program(law, pairs, *, rng=None):
    """:func:`dpverify.exact.prove`'s decision on a program's law (built from its entries in Q(t), without
    the expression round trip), made exact for gap outputs by :func:`tail_verdict`.

    A refutation on the cells stands (a partition of the outputs is a post-processing). A proof on the
    cells of a law with gap outputs becomes ``proved`` only when every gap value past the window is
    decided and none fails; a decided tail failure is reported as ``unknown`` with its exact ε-set (no
    counterexample object is built for a single tail value); an undecided tail leaves ``unknown``.

    Example
    -------
    >>> from dpverify.exact.programs import program_law
    >>> from dpverify.exact.programs.checkdp import gapsparsevector
    >>> law = program_law(gapsparsevector, [(0,), (1,)], T=1, NN=1)
    >>> prove_program(law, [(0, 1), (1, 0)]).verdict
    'proved'
    """
    from dpverify.exact.result import ProofResult

    from dpverify.exact.law import prepare_field
    from dpverify.exact.decide import decide
    from dpverify.exact.programs.law import ProgramLaw

    if not isinstance(law, ProgramLaw):
        raise TypeError(f"law must be a ProgramLaw (from program_law), got {type(law).__name__}")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if pairs is None:
        raise TypeError("pairs must be a list of (i, j) row-index pairs (neighbour_pairs gives CheckDP's), got None")
    from dpverify.exact.validate import check_pairs

    pairs = tuple(dict.fromkeys(check_pairs(pairs, len(law.inputs))))
    rng = np.random.default_rng(0) if rng is None else rng
    res = decide(prepare_field(law.t_matrix, law.unit, pairs, EPSILON), rng)
    if res.verdict != "proved" or law.exact:
        return res
    tv = tail_verdict(law, pairs)
    cert = dict(res.certificate, tails={"decided": tv["decided"], "tail_from": tv["tail_from"],
                                        "failing": [[i, j, repr(k), str(s)] for i, j, k, s in tv["failing"]]})
    if not tv["decided"]:
        return ProofResult("unknown", f"proved on the cells, but the gap outputs past the window are not decided: "
                           f"{tv['reason']}", None, cert)
    if tv["failing"]:
        i, j, key, s = tv["failing"][0]
        return ProofResult("unknown", f"proved on the cells, but a single gap value past the window breaks rows "
                           f"({i}, {j}) for epsilon in {s} (exact; output {key!r})", None, cert)
    return ProofResult("proved", res.reason + "; every gap value past the window decided exactly "
                       f"({len(tv['tail_from'])} gap outputs, closed-form tails)", None, cert)
