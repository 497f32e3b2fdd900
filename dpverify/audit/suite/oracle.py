"""Moved to :mod:`dpverify.audit.ideal.oracle` (and :mod:`dpverify.audit.ideal.reach`); this path stays
importable for the README's examples.

>>> from dpverify.audit.suite.oracle import best_event_bound
>>> best_event_bound.__module__
'dpverify.audit.ideal.oracle'
"""

from dpverify.audit.ideal.oracle import EventBound, best_event_bound, exact_epsilon, reach_probability, sampler_pvalue

__all__ = ["EventBound", "best_event_bound", "exact_epsilon", "reach_probability", "sampler_pvalue"]
