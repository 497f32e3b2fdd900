"""The decision of :func:`dpverify.exact.prove` on a prepared law, and its certificate (internal).

- :func:`prove_prepared` — validate (:func:`~dpverify.exact.law.prepare`), then decide; a law outside the
  polynomial route goes to the partial-sum certificate (:mod:`dpverify.exact.expsums`) or ``unknown``;
- :func:`decide` — the exact decision of a :class:`~dpverify.exact.law.Law`: every pair's failing
  ε-cells, the certificate's second route, the verdict and the counterexample.

Method and proof: ``dpverify/exact/proofs/decision.md``.

Example
-------
>>> import numpy as np, sympy as sp
>>> eps = sp.Symbol("epsilon", positive=True)
>>> q = sp.exp(eps) / (1 + sp.exp(eps))
>>> prove_prepared(sp.Matrix([[q, 1 - q], [1 - q, q]]), eps, 0, None, None, np.random.default_rng(0), 2).verdict
'proved'
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.exact.certificate import certify, sturm_recheck
from dpverify.exact.delta import delta_failures, needed_for_set, pure_fail_x, set_fail_x
from dpverify.exact.expsums import prove_by_partial_sums
from dpverify.exact.law import Law, prepare
from dpverify.exact.result import Counterexample, ProofResult, render_set
from dpverify.exact.signs import NotRational
from dpverify.exact.validate import check_pairs

__all__: list[str] = []  # internal to dpverify.exact (inputs validated by prove)


def _failures(law: Law, record: dict):
    """``{pair: x-cells where the claim fails}`` and the first failing pair's output set."""
    fails, first = {}, None
    pure = law.dpoly[0].is_zero
    for (i, j) in law.pairs:
        if pure:
            per = pure_fail_x(law, i, j, record)
            cells = [c for cs in per.values() for c in cs]
            outs = tuple(sorted(per))
        else:
            cells, outs = delta_failures(law, i, j, record)
        if cells:
            fails[(i, j)] = cells
            if first is None:
                first = ((i, j), outs)
    return fails, first


def _counterexample(law: Law, pair, outs) -> Counterexample:
    i, j = pair
    if law.dpoly[0].is_zero:
        per = pure_fail_x(law, i, j)
        where = law.eps_set([c for o in outs for c in per[o]])
    else:
        where = law.eps_set(set_fail_x(law, i, j, outs))
    need = needed_for_set(law, i, j, outs)
    return Counterexample((i, j), tuple(outs), law.back(need), law.back(where))


def _fallback(P, epsilon, delta, pairs, rng, exc) -> ProofResult:
    """Pure ε-DP of a law outside the polynomial route: the partial-sum certificate, else ``unknown``."""
    if not isinstance(epsilon, sp.Symbol) or sp.sympify(delta) != 0:
        return ProofResult("unknown", f"no exact decision: {exc}")
    eps = epsilon if epsilon.is_positive else sp.Symbol(epsilon.name, positive=True)
    M = sp.ImmutableMatrix(P).subs(epsilon, eps).replace(lambda a: isinstance(a, sp.Float), lambda f: sp.Rational(f))
    return prove_by_partial_sums(M, eps, check_pairs(pairs, M.shape[0]), str(exc), rng)


def prove_prepared(P, epsilon, delta, pairs, domain, rng: np.random.Generator, points: int) -> ProofResult:
    """Validate ``P`` and decide it (the body of :func:`dpverify.exact.prove` after its argument checks)."""
    try:
        law = prepare(P, epsilon, domain, delta, pairs)
    except NotRational as exc:
        return _fallback(P, epsilon, delta, pairs, rng, exc)
    return decide(law, rng, points)


def decide(law: Law, rng: np.random.Generator, points: int = 6) -> ProofResult:
    """The decision and its certificate for a prepared :class:`~dpverify.exact.law.Law` (internal)."""
    record: dict = {}
    try:
        fails, first = _failures(law, record)
        cert = certify(law, fails, rng, points)
        cert.update(sturm_recheck(record, rng))
    except NotRational as exc:
        return ProofResult("unknown", f"no exact decision: {exc}")
    cert.update({"L": law.L, "domain": str(law.back(law.domain)), "pairs_checked": len(law.pairs),
                 "failing_pairs": [list(p) for p in fails]})
    cert["agree"] = not cert["mismatches"] and not cert["sturm_mismatches"]
    if not cert["agree"]:
        return ProofResult("unknown", "the second route disagrees with the exact decision (a bug): "
                           + "; ".join((cert["mismatches"] + cert["sturm_mismatches"])[:3]), None, cert)
    kind = "pure epsilon-DP" if law.dpoly[0].is_zero else f"(epsilon, {law.back(law.delta)})-DP"
    name = "epsilon" if isinstance(law.user, sp.Dummy) else str(law.user)
    dom = f"{name} in {law.back(law.domain)}"
    if first is None:
        return ProofResult("proved", f"{kind} holds for every {dom}: {len(law.pairs)} ordered pairs, "
                           f"{cert['polynomials_decided']} distinct sign conditions decided exactly", None, cert)
    cx = _counterexample(law, *first)
    everywhere = law.back(law.eps_set([c for cs in fails.values() for c in cs]))
    cert["epsilon_fails_any_pair"] = str(everywhere)
    cert["epsilon_fails_any_pair_decimal"] = render_set(everywhere)
    return ProofResult("refuted", f"{kind} fails for {name} in {everywhere} [{render_set(everywhere)}]; "
                       f"first: {cx.describe()}", cx, cert)
