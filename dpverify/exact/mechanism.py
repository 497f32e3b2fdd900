""":func:`prove_mechanism`: decide a mechanism that carries its symbolic law, for every ε > 0.

A mechanism with ``symbolic_law`` (:class:`~dpverify.mechanisms.protocol.SymbolicLaw`) gives its exact
law as pieces ``(where, matrix)``; the claim (ε-DP, or (ε, δ)-DP with the law's δ) holds for every
ε > 0 iff it holds on each piece's ε-set, and each piece is decided by :func:`dpverify.exact.prove` on
its set (the decision of :func:`dpverify.exact.prove`). ``proved`` when every piece is, ``refuted`` (with the first failing piece's exact
counterexample, its ε-set within that piece) when one is, ``unknown`` otherwise.

Example
-------
>>> from dpverify.mechanisms import catalogue
>>> r = prove_mechanism(catalogue()["primitives.randomized_response"])
>>> r.verdict, r.certificate["pieces"][0]["where"]
('proved', 'Interval.open(0, oo)')
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.exact.decide import prove_prepared
from dpverify.exact.result import ProofResult

__all__ = ["prove_mechanism"]

_ALL = sp.Interval.open(0, sp.oo)


def _domains(where: sp.Set) -> list:
    """The piece's ε-set within ε > 0 as intervals and points (what :func:`prove` takes)."""
    s = sp.Intersection(where, _ALL)
    parts = s.args if isinstance(s, sp.Union) else (s,)
    out = []
    for p in parts:
        if isinstance(p, sp.FiniteSet):
            out += [sp.FiniteSet(x) for x in p.args]
        elif isinstance(p, sp.Interval):
            out.append(p)
        elif p != sp.EmptySet:
            raise ValueError(f"a piece's epsilon-set must be intervals and points, got {p}")
    return out


def prove_mechanism(mechanism, *, epsilon=None, rng: np.random.Generator | None = None) -> ProofResult:
    """Decide the claim of a mechanism with a symbolic law for every ε > 0 (the law's δ: pure when 0).

    Parameters
    ----------
    mechanism : a mechanism with ``symbolic_law(epsilon) -> SymbolicLaw``
    epsilon : sympy.Symbol, optional
        The positive symbol to build the law in (default ``Symbol("epsilon", positive=True)``).
    rng : numpy.random.Generator, optional
        For the certificates' spot checks (default ``default_rng(0)``).

    Returns
    -------
    ProofResult; ``certificate["pieces"]`` lists each piece's set, verdict and certificate.

    Example
    -------
    >>> from dpverify.mechanisms import catalogue
    >>> prove_mechanism(catalogue()["rr.optimal_mechanism"]).verdict
    'proved'
    """
    from dpverify.mechanisms.protocol import SymbolicLaw

    build = getattr(mechanism, "symbolic_law", None)
    if build is None or not callable(build):
        raise TypeError(f"mechanism must carry a symbolic law (symbolic_law), got {type(mechanism).__name__}")
    eps = sp.Symbol("epsilon", positive=True) if epsilon is None else epsilon
    if not isinstance(eps, sp.Symbol) or not eps.is_positive:
        raise TypeError(f"epsilon must be a positive sympy Symbol, got {epsilon!r}")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    rng = np.random.default_rng(0) if rng is None else rng
    law = build(eps)
    if not isinstance(law, SymbolicLaw):
        raise TypeError(f"symbolic_law must return a SymbolicLaw, got {type(law).__name__}")
    rows, verdicts = [], []
    for where, M in law.pieces:
        for dom in _domains(where):
            r = prove_prepared(M, law.epsilon, law.delta, law.pairs, dom, rng, 6)
            rows.append({"where": str(dom), "verdict": r.verdict, "reason": r.reason, "certificate": r.certificate})
            verdicts.append(r)
            if r.verdict == "refuted":
                return ProofResult("refuted", f"on the piece {dom}: {r.reason}", r.counterexample,
                                   {"pieces": rows, "pairs": [list(p) for p in law.pairs]})
    cert = {"pieces": rows, "pairs": [list(p) for p in law.pairs], "delta": str(law.delta)}
    if verdicts and all(r.verdict == "proved" for r in verdicts):
        kind = "pure epsilon-DP" if law.delta == 0 else f"(epsilon, {law.delta} ≈ {float(law.delta):.6g})-DP"
        return ProofResult("proved", f"{kind} holds for every epsilon > 0: {len(rows)} piece(s) of the law, "
                           f"{len(law.pairs)} ordered pairs, each piece proved exactly", None, cert)
    why = next((r.reason for r in verdicts if r.verdict == "unknown"), "the law has no piece in epsilon > 0")
    return ProofResult("unknown", why, None, cert)
