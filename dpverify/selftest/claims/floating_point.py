"""Floating-point attacks on Laplace releases (Mironov 2012): ids ``audit.fp_*``.

The textbook inverse-CDF Laplace mechanism and the library's own float release
(:func:`dpverify.primitives.laplace_mechanism`) leak through the low bits of their outputs and
must be refuted; the library's grid release (:func:`dpverify.primitives.safe_laplace_mechanism`)
must survive the same attack.  The attack statistic is the auditor's
:func:`~dpverify.audit.controls.fp_attack_statistic`.
"""

from __future__ import annotations

from dpverify.audit.controls import TextbookLaplace, fp_attack_statistic
from dpverify.selftest.controls import LibraryLaplace, SafeLaplace
from dpverify.claims import Outcome, claim
from dpverify.selftest.audits import FP, audited


def _fp_audit(mech, thorough: bool) -> Outcome:
    return audited(mech, 0.0, 1.0, epsilon=mech.epsilon, samples=2_000_000 if thorough else 200_000, seed=3,
                   confidence=0.99, statistic=fp_attack_statistic(1.0))


@claim("audit.fp_textbook_laplace", source=FP, method="audit", expected="refuted", proof="audit/auditor_fp.md",
       statement="The textbook floating-point Laplace mechanism f(D) − b·sgn(r)·ln(1 − 2|r|), b = 1/ε, "
                 "is ε-DP for ε = 0.1 (f(D) = 0, f(D') = 1)")
def _fp_textbook(thorough: bool = False) -> Outcome:
    return _fp_audit(TextbookLaplace(0.1), thorough)


@claim("audit.fp_library_laplace", source=FP, method="audit", expected="refuted", proof="audit/auditor_fp.md",
       statement="dpverify.primitives.laplace_mechanism (numpy Generator.laplace added in floating point) is "
                 "ε-DP for ε = 0.1 as implemented (f(D) = 0, f(D') = 1)")
def _fp_library(thorough: bool = False) -> Outcome:
    return _fp_audit(LibraryLaplace(0.1), thorough)


@claim("audit.fp_safe_laplace", source=FP, method="audit", expected="inconclusive", proof="audit/auditor_fp.md",
       statement="dpverify.primitives.safe_laplace_mechanism (grid 2^-10, integer noise) is ε-DP for ε = 0.1, "
                 "also against the floating-point attack")
def _fp_safe(thorough: bool = False) -> Outcome:
    return _fp_audit(SafeLaplace(0.1), thorough)
