"""Audit: exact checkers for finite mechanisms and the statistical auditor."""

from dpverify.audit.exact import hockey_stick, max_privacy_loss, privacy_curve

__all__ = ["hockey_stick", "max_privacy_loss", "privacy_curve"]

from dpverify.audit.ldp import DEFINITIONS, LDPResult, check_ldp, ldp_delta_curve, ldp_epsilon  # noqa: E402

__all__ += ["DEFINITIONS", "LDPResult", "check_ldp", "ldp_delta_curve", "ldp_epsilon"]

from dpverify.audit.statistical import (  # noqa: E402
    AuditResult,
    Event,
    MechanismError,
    PatternCode,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
)

__all__ += [
    "AuditResult",
    "Event",
    "MechanismError",
    "PatternCode",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
]

from dpverify.audit.protocol import Mechanism, MechanismError, as_mechanism, checked_sample  # noqa: E402,F811

__all__ += ["Mechanism", "as_mechanism", "checked_sample"]
