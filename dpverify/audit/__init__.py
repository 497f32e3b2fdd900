"""Audit: exact checkers for finite mechanisms and the statistical auditor."""

from dpverify.audit.exact import hockey_stick, max_privacy_loss, privacy_curve

__all__ = ["hockey_stick", "max_privacy_loss", "privacy_curve"]
