"""Exact proofs for every ε as claim outcomes, and the ``dpverify prove MODULE:FN`` command.

- :func:`prove_privacy` — :func:`dpverify.exact.prove` as an :class:`~dpverify.claims.Outcome`:
  ``holds`` (proved for every ε in the domain), ``refuted`` (with the exact counterexample in the
  evidence) or ``inconclusive`` (``unknown``: not rational in e^ε, ...);
- the ``dpverify prove MODULE:FN`` command is :mod:`dpverify.exact.cli`.

Example
-------
>>> import sympy as sp
>>> eps = sp.Symbol("epsilon", positive=True)
>>> q = sp.exp(eps) / (1 + sp.exp(eps))
>>> prove_privacy(sp.Matrix([[q, 1 - q], [1 - q, q]]), epsilon=eps).verdict.value
'holds'
"""

from __future__ import annotations

from typing import Any

from dpverify.claims.model import Outcome, Verdict

__all__ = ["prove_privacy"]


def prove_privacy(P: Any, *, epsilon: Any, delta: Any = 0, pairs: Any = None, domain: Any = None) -> Outcome:
    """Is the finite law ``P`` (ε, δ)-DP for every ε in the domain? An exact proof or counterexample.

    Parameters are those of :func:`dpverify.exact.prove`. The evidence is the result's JSON-ready dict
    (verdict, reason, counterexample with exact values and decimals, certificate).

    Example
    -------
    >>> import sympy as sp
    >>> eps = sp.Symbol("epsilon", positive=True)
    >>> keep = sp.exp(eps) / (1 + sp.exp(eps))           # binary keep probability on 3 values
    >>> P = sp.Matrix(3, 3, lambda i, o: keep if i == o else (1 - keep) / 2)
    >>> out = prove_privacy(P, epsilon=eps)
    >>> out.verdict.value, out.evidence["counterexample"]["epsilon_needed"]
    ('refuted', 'epsilon + log(2)')
    """
    from dpverify.exact import prove

    r = prove(P, epsilon=epsilon, delta=delta, pairs=pairs, domain=domain)
    ev = r.to_dict()
    if r.verdict == "proved":
        return Outcome(Verdict.HOLDS, ev, summary=r.reason)
    if r.verdict == "refuted":
        return Outcome(Verdict.REFUTED, ev, summary=r.reason)
    return Outcome(Verdict.INCONCLUSIVE, ev, summary=r.reason)
