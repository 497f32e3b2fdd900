"""A small toolkit for writing a claim in 10–30 lines: one way to do each kind of check.

Each helper returns an :class:`~dpverify.claims.Outcome` (verdict, evidence,
one-sentence summary) that a check can return as it is, or a small result
object the check turns into one.

- :func:`symbolic_equal` / :func:`check_equal` — symbolic equality under assumptions
  (a proof by simplification, or a numeric counterexample);
- :func:`derive_and_compare` — derive a formula, compare it with what the paper
  printed: ``holds``, or ``erratum`` with the corrected statement in the evidence;
- :func:`lp_optimum` — an LP optimum certified by its dual, exactly in rationals
  when the rationalised primal–dual pair verifies (:func:`exact_lp_certificate`);
  :func:`qp_optimum` — a convex QP optimum certified by its KKT conditions, the same way;
- :func:`finite_mechanism_privacy` — the exact privacy of a finite mechanism
  (a row-stochastic matrix), via :func:`dpverify.audit.check_ldp`;
- :func:`prove_privacy` — an exact proof of ε-DP of a symbolic finite law for every ε
  (:func:`dpverify.exact.prove`), or an exact counterexample;
- :func:`audit_epsilon` — a statistical audit (``refuted`` or ``inconclusive`` only);
- :func:`erratum_outcome` — the erratum rule (the printed statement fails, the corrected one
  holds), written once for every room;
- :func:`simulate_against` — a simulation tested against a closed form at a
  stated false-alarm rate; ``holds`` only with a stated power (``detect``, ``beta``).

Example
-------
>>> import sympy as sp
>>> from dpverify.toolkit import derive_and_compare
>>> eps = sp.Symbol("epsilon", positive=True)
>>> out = derive_and_compare(sp.exp(eps) / (1 + sp.exp(eps)), 1 / (1 + sp.exp(-eps)))
>>> out.verdict.value
'holds'
"""

from dpverify.toolkit.erratum import erratum_outcome, erratum_verdict
from dpverify.toolkit.lp import LPOptimum, exact_lp_certificate, lp_optimum, lp_residuals
from dpverify.toolkit.qp import QPOptimum, qp_optimum
from dpverify.toolkit.privacy import audit_epsilon, finite_mechanism_privacy
from dpverify.toolkit.prove import prove_privacy
from dpverify.toolkit.simulation import simulate_against
from dpverify.toolkit.symbolic import Equality, check_equal, derive_and_compare, symbolic_equal

__all__ = [
    "Equality",
    "LPOptimum",
    "QPOptimum",
    "audit_epsilon",
    "check_equal",
    "derive_and_compare",
    "erratum_outcome",
    "erratum_verdict",
    "exact_lp_certificate",
    "finite_mechanism_privacy",
    "lp_optimum",
    "lp_residuals",
    "prove_privacy",
    "qp_optimum",
    "simulate_against",
    "symbolic_equal",
]
