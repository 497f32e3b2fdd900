"""Exact symbolic verification of finite mechanisms for every ε: a proof or an exact counterexample.

A finite law is a ``sympy.Matrix`` ``P`` (rows are inputs, columns are outputs) whose entries are
expressions in one positive symbol ε, rational in e^{ε/L} for some integer L (randomized response,
the truncated geometric with r = e^{−ε}, exponential mechanisms over finite sets, ...).

- :func:`prove` — decide ε-DP (or (ε, δ)-DP) of ``P`` for every ε in a domain (default ε > 0):
  ``proved``, ``refuted`` with an exact :class:`Counterexample`, or ``unknown`` with the reason;
- :func:`delta_curve` — the exact δ(ε) of a pair of rows, a sympy ``Piecewise`` (the hockey-stick
  divergence piece by piece);
- :func:`prove_mechanism` — the same for a mechanism carrying ``symbolic_law`` (its law piece by piece);
- :func:`fail_set` — the exact set of ε in a domain where an expression rational in e^ε is > 0;
- :func:`prove_catalogue` — every catalogue family with a symbolic law proved for every ε > 0, and the
  reason each other one falls back to points (``dpverify prove --catalogue``).

This package decides symbolic laws; :mod:`dpverify.audit.exact` decides numeric (float or
rational) matrices at one ε, and is the second route of the certificate.
Method and proof: ``dpverify/exact/proofs/decision.md``.

Example
-------
>>> import sympy as sp
>>> from dpverify.exact import prove
>>> eps = sp.Symbol("epsilon", positive=True)
>>> q = sp.exp(eps) / (1 + sp.exp(eps))
>>> prove(sp.Matrix([[q, 1 - q], [1 - q, q]]), epsilon=eps).verdict
'proved'
"""

from dpverify.exact.result import VERDICTS, Counterexample, ProofResult, render_set
from dpverify.exact.signs import fail_set
from dpverify.exact.prove import SIZE_LIMIT, prove
from dpverify.exact.delta import delta_curve
from dpverify.exact.mechanism import prove_mechanism
from dpverify.exact.catalogue import prove_catalogue

__all__ = ["SIZE_LIMIT", "VERDICTS", "Counterexample", "ProofResult", "delta_curve", "fail_set", "prove",
           "prove_catalogue", "prove_mechanism", "render_set"]
