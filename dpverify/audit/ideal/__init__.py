"""What an ideal auditor could show: exact output laws of the finite benchmark mechanisms, the best
event bound an auditor that knew them could report, and the chance of reaching a target bound.

- :mod:`~dpverify.audit.ideal.laws` — ``exact_law(mechanism, data)`` for the suite mechanisms whose
  output space is finite;
- :mod:`~dpverify.audit.ideal.oracle` — ``exact_epsilon``, ``best_event_bound``, ``sampler_pvalue``;
- :mod:`~dpverify.audit.ideal.reach` — ``reach_probability``.

Derivations: ``dpverify/audit/proofs/suite_exact.md``.

Example
-------
>>> from dpverify.audit.ideal import best_event_bound, exact_epsilon
>>> round(exact_epsilon([0.6, 0.4], [0.4, 0.6]), 6)
0.405465
"""

from dpverify.audit.ideal.laws import COVERED, exact_law
from dpverify.audit.ideal.oracle import EventBound, best_event_bound, exact_epsilon, sampler_pvalue
from dpverify.audit.ideal.reach import reach_probability

__all__ = ["COVERED", "EventBound", "best_event_bound", "exact_epsilon", "exact_law", "reach_probability",
           "sampler_pvalue"]
