""":func:`prove`: decide ε-DP or (ε, δ)-DP of a finite law for every ε in a domain, exactly.

Pure ε-DP of a finite law with pairs of neighbouring inputs ``(i, j)`` is: for every output set S,
``P[i, S] ≤ e^ε P[j, S]``; summing the single-output inequalities shows that single outputs suffice
(Dwork and Roth 2014, Definition 2.4 with δ = 0: the set condition is a sum of the singleton ones). So
the claim is the finite set of sign conditions ``h_o(ε) = P[i, o] − e^ε P[j, o] ≤ 0`` on the domain,
each decided exactly by :mod:`dpverify.exact.signs`. For δ > 0 the tight δ of a pair is the
hockey-stick divergence, decided piece by piece by :mod:`dpverify.exact.delta`.

The verdict covers the whole domain: ``proved`` means the claim holds at every ε in it (exactly, not at
sample points); ``refuted`` comes with the first failing ordered pair (in ``pairs`` order), its failing
output set, the exact ε′ it needs and the exact ε-set where it fails; ``unknown`` when an entry is not
rational in e^{ε/L} with rational coefficients, or when the second route disagrees.
Method and proof: ``dpverify/exact/proofs/decision.md``.

Example
-------
>>> import sympy as sp
>>> eps = sp.Symbol("epsilon", positive=True)
>>> third = sp.Rational(1, 3)
>>> P = sp.Matrix([[3 * third / 4 + third, 1 - (3 * third / 4 + third)], [third, 2 * third]])
>>> r = prove(sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]]),
...           epsilon=eps)
>>> r.verdict, r.counterexample.epsilon_fails, r.counterexample.epsilon_needed
('refuted', Interval.open(0, log(3)), log(3))
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.exact.certificate import certify, sturm_recheck
from dpverify.exact.delta import delta_failures, needed_for_set, pure_fail_x, set_fail_x
from dpverify.exact.law import Law, prepare
from dpverify.exact.result import Counterexample, ProofResult, render_set
from dpverify.exact.signs import NotRational
from dpverify.exact.validate import SIZE_LIMIT
from dpverify.proofdocs import proven

__all__ = ["SIZE_LIMIT", "prove"]


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


@proven("exact/decision.md")
def prove(P, *, epsilon, delta=0, pairs=None, domain=None, rng: np.random.Generator | None = None,
          points: int = 6) -> ProofResult:
    """Decide whether the finite law ``P`` is (ε, δ)-DP for every ε in the domain, exactly.

    Parameters
    ----------
    P : sympy.Matrix, shape (n, m)
        ``P[i, o] = Pr(output o | input i)``; entries expressions in ``epsilon``, rational in
        e^{ε/L} for some integer L ≥ 1 (e.g. ``exp(eps)``, ``exp(-eps/2)``). At most
        :data:`SIZE_LIMIT` rows x columns.
    epsilon : sympy.Symbol or number
        A symbol: the verdict covers every ε in ``domain``. A number > 0: that one ε (then ``P``
        must not contain a symbol).
    delta : number or sympy expression in epsilon, optional
        δ ∈ [0, 1] on the domain (default 0: pure ε-DP).
    pairs : list of (i, j), optional
        Ordered pairs of neighbouring rows (``None``: every ordered pair, the local model).
    domain : sympy.Interval or number, optional
        The ε-range of a symbolic ``epsilon`` (default ``Interval.open(0, oo)``); a number means one point.
    rng : numpy.random.Generator, optional
        Draws the certificate's rational spot-check points (default ``default_rng(0)``).
    points : int
        How many spot-check points (default 6).

    Returns
    -------
    ProofResult

    Raises
    ------
    ValueError, TypeError
        Bad input, found before any proof: entries not probabilities somewhere on the domain, a row
        not summing to 1 identically, free symbols other than ε, empty or invalid pairs, a law past
        the size limit.

    Example
    -------
    >>> import sympy as sp
    >>> eps = sp.Symbol("epsilon", positive=True)
    >>> k = 4
    >>> keep = sp.exp(eps) / (1 + sp.exp(eps))
    >>> P = sp.Matrix(k, k, lambda i, o: keep if i == o else (1 - keep) / (k - 1))
    >>> r = prove(P, epsilon=eps)
    >>> r.verdict, r.counterexample.epsilon_needed
    ('refuted', epsilon + log(3))
    """
    if isinstance(points, (bool, np.bool_)) or not isinstance(points, (int, np.integer)) or not 0 <= points <= 10 ** 4:
        raise ValueError(f"points must be an int in [0, 10**4], got {points!r}")
    points = int(points)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    rng = np.random.default_rng(0) if rng is None else rng
    try:
        law = prepare(P, epsilon, domain, delta, pairs)
    except NotRational as exc:
        return ProofResult("unknown", f"no exact decision: {exc}")
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
