"""What changed between two report runs (the comparison lives in :mod:`dpverify.claims.drift`).

Kept so that ``from dpverify.report.compare import compare_reports`` goes on working.

Example
-------
>>> from dpverify.report.compare import compare_reports
>>> compare_reports({"claims": []}, {"claims": []}).changes
()
"""

from dpverify.claims.drift import DEFAULT_ATOL, DEFAULT_RTOL, Change, Comparison, compare_reports, flatten_evidence

__all__ = ["DEFAULT_ATOL", "DEFAULT_RTOL", "Change", "Comparison", "compare_reports", "flatten_evidence"]
