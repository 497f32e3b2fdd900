"""What the self-test claims share: their sources, the planted inputs and one seeded audit call.

The claims about the auditor and the library's own (control, planted-bug) mechanisms cite the
library (:data:`~dpverify.claims.model.SELF_TEST`), not the survey (Zhu et al.): the survey states the
definitions, it does not make these claims.

Example
-------
>>> LAP.paper == DEF.paper == SELF_TEST
True
"""

from __future__ import annotations

from typing import Any

from dpverify.claims import Outcome, Source
from dpverify.claims import SELF_TEST
from dpverify.toolkit import audit_epsilon

__all__ = ["CONF_CONTROL", "DEF", "EXP", "FP", "LAP", "NMAX_D", "NMAX_DP", "SVT_D", "SVT_DP", "audited"]

#: the (ε, δ)-DP definition applied to one of the library's mechanisms
DEF = Source(SELF_TEST, "auditor", "(ε, δ)-DP definition applied to a library mechanism")
#: the Laplace-mechanism controls and planted bugs
LAP = Source(SELF_TEST, "auditor", "Laplace-mechanism controls and planted bugs")
#: the exponential-mechanism control and planted bug
EXP = Source(SELF_TEST, "auditor", "exponential-mechanism control and planted bug")
#: the floating-point attacks (Mironov 2012)
FP = Source(SELF_TEST, "auditor, floating point", "Laplace mechanism computed in double precision")

#: controls: a false refutation has probability ≤ 1e-6 per audit
CONF_CONTROL = 1 - 1e-6
#: sparse-vector inputs: ten queries at 0 against five at 1 and five at −1
SVT_D, SVT_DP = [0.0] * 10, [1.0] * 5 + [-1.0] * 5
#: report-noisy-max inputs: five tied scores against one raised, the others lowered
NMAX_D, NMAX_DP = [1.0] * 5, [2.0, 0.0, 0.0, 0.0, 0.0]


def audited(mech: Any, d: Any, dp: Any, *, epsilon: float, samples: int, seed: int, confidence: float = 0.99,
            **kw: Any) -> Outcome:
    """The seeded audit of ``mech`` on the inputs ``d``, ``d'`` against ``epsilon``, as a claim's outcome.

    The verdict and summary are :func:`dpverify.toolkit.audit_epsilon`'s; the evidence adds the
    mechanism's ``repr``.  ``kw`` goes to the auditor (e.g. ``statistic=``).

    Example
    -------
    >>> from dpverify.audit.controls import LaplaceMechanism
    >>> out = audited(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, samples=2000, seed=0)
    >>> out.verdict.value, out.evidence["mechanism"].startswith("LaplaceMechanism(")
    ('inconclusive', True)
    """
    if seed is None:
        raise TypeError("seed must be an integer (a claim's audit is seeded), got None")
    out = audit_epsilon(mech, d, dp, epsilon=epsilon, samples=samples, confidence=confidence, rng=seed, **kw)
    return Outcome(out.verdict, {**out.evidence, "mechanism": repr(mech)}, summary=out.summary)
