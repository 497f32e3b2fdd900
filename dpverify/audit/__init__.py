"""Audit: exact checkers for finite mechanisms and the statistical auditor.

Its subjects are folders: :mod:`dpverify.audit.exact` (finite-mechanism checkers),
:mod:`dpverify.audit.ideal` (exact laws of the benchmark mechanisms, the ideal auditor's bound, reach
probability), :mod:`dpverify.audit.suite` (the benchmark mechanisms) and the statistical engine,
whose modules sit here (``api``: :func:`audit`; ``statistical``: :func:`epsilon_lower_bound`;
``screening``, ``search``, ``chunks``, ``events``, ``classifiers``, ``projections``, ``sequential``,
``intervals``, ``curves``, ``renyi``, ``report``, ``result``, ``dask_backend``).
"""

from dpverify.audit.exact import (DEFINITIONS, LDPResult, check_ldp, hockey_stick, hockey_stick_bound,
                                  hockey_stick_holds, ldp, ldp_delta_curve, ldp_epsilon, max_privacy_loss,
                                  privacy_curve)

__all__ = ["hockey_stick", "hockey_stick_bound", "hockey_stick_holds", "max_privacy_loss", "privacy_curve"]

__all__ += ["DEFINITIONS", "LDPResult", "check_ldp", "ldp_delta_curve", "ldp_epsilon"]

from dpverify.audit.errors import MechanismError  # noqa: E402
from dpverify.audit.events import Event, PatternCode  # noqa: E402
from dpverify.audit.intervals import clopper_pearson_lower, clopper_pearson_upper  # noqa: E402
from dpverify.audit.statistical import AuditResult, epsilon_lower_bound  # noqa: E402
from dpverify.audit.api import audit  # noqa: E402
from dpverify.audit.report import AuditReport  # noqa: E402
from dpverify.audit.search import Neighbours  # noqa: E402
from dpverify.audit.curves import CurveAudit, audit_delta_curve, gaussian_delta_curve  # noqa: E402

__all__ += [
    "AuditReport",
    "CurveAudit",
    "audit_delta_curve",
    "gaussian_delta_curve",
    "AuditResult",
    "Neighbours",
    "audit",
    "Event",
    "MechanismError",
    "PatternCode",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
]

from dpverify.audit.protocol import Mechanism, as_mechanism, checked_sample  # noqa: E402

__all__ += ["Mechanism", "as_mechanism", "checked_sample"]

from dpverify.audit.renyi import (  # noqa: E402
    RDPAudit,
    ZCDPAudit,
    audit_rdp,
    audit_zcdp,
    rdp_delta_curve,
    zcdp_delta_curve,
)

__all__ += ["RDPAudit", "ZCDPAudit", "audit_rdp", "audit_zcdp", "rdp_delta_curve", "zcdp_delta_curve"]
