"""The exact checkers of finite mechanisms: privacy quantities computed from the output laws, no sampling.

- :mod:`~dpverify.audit.exact.divergence` — the hockey-stick divergence of two finite output
  distributions, the exact privacy-loss bound and the δ(ε) curve (the ground truth the statistical
  auditor's bounds must stay under);
- :mod:`~dpverify.audit.exact.ldp` — local differential privacy of a row-stochastic mechanism matrix,
  in floats (log space) or exactly (``exact=True``);
- :mod:`~dpverify.audit.exact.rational` — the exact rational arithmetic behind ``exact=True``;
- :mod:`~dpverify.audit.exact.certified` and :mod:`~dpverify.audit.exact.decide` — the rounding
  bound of a computed divergence and the exact fallback that make float-mode decisions exact.

Example
-------
>>> from dpverify.audit.exact import check_ldp, max_privacy_loss
>>> round(max_privacy_loss([0.75, 0.25], [0.25, 0.75]), 6), check_ldp([[0.75, 0.25], [0.25, 0.75]], 1.1).holds
(1.098612, True)
"""

from dpverify.audit.exact.divergence import (hockey_stick, hockey_stick_bound, hockey_stick_holds, max_privacy_loss,
                                             privacy_curve)
from dpverify.audit.exact.ldp import DEFINITIONS, LDPResult, check_ldp, ldp_delta_curve, ldp_epsilon

__all__ = ["DEFINITIONS", "LDPResult", "check_ldp", "hockey_stick", "hockey_stick_bound", "hockey_stick_holds",
           "ldp_delta_curve", "ldp_epsilon", "max_privacy_loss", "privacy_curve"]
