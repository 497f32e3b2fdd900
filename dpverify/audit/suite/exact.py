"""Moved to :mod:`dpverify.audit.ideal.laws` (the exact output laws are the ideal auditor's, not a
benchmark mechanism); this path stays importable for the README's examples.

>>> from dpverify.audit.suite.exact import exact_law
>>> exact_law.__module__
'dpverify.audit.ideal.laws'
"""

from dpverify.audit.ideal.laws import COVERED, MAX_OUTCOMES, MAX_QUERIES, REL_TOL, exact_law

__all__ = ["COVERED", "MAX_OUTCOMES", "MAX_QUERIES", "REL_TOL", "exact_law"]
