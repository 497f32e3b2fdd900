"""The example room's checks can fail: each is broken on purpose and the verdict flips."""

import math

import claims_gaussian as cg
import numpy as np
import sympy as sp
from analytic_gaussian import GaussianMechanism, calibrate_sigma, classical_sigma, gaussian_delta, gaussian_delta_mp

from dpverify.claims import Verdict
from dpverify.toolkit import audit_epsilon, derive_and_compare


def test_float_and_mpmath_profiles_agree():
    for e, s in [(0.1, 3.0), (1.0, 1.0), (10.0, 0.2), (30.0, 0.05)]:
        assert math.isclose(gaussian_delta(e, s), float(gaussian_delta_mp(e, s)), rel_tol=1e-9, abs_tol=1e-300)


def test_a_misprinted_formula_is_an_erratum():
    wrong = cg.PRINTED_DELTA.subs(sp.exp(cg.eps), sp.exp(cg.eps / 2))  # e^{ε/2} instead of e^ε
    out = derive_and_compare(cg.derived_delta(), wrong)
    assert out.verdict is Verdict.ERRATUM and out.evidence["corrected"] == cg.derived_delta()


def test_the_audit_refutes_too_little_noise():
    """An under-calibrated σ (a quarter of the right one) is caught; false-alarm rate 1 % (confidence 0.99)."""
    sigma = calibrate_sigma(1.0, 1e-5) / 4
    out = audit_epsilon(GaussianMechanism(sigma), 0.0, 1.0, epsilon=1.0, delta=1e-5, samples=200_000, rng=7)
    assert out.verdict is Verdict.REFUTED


def test_classical_sigma_counterexample_is_real():
    out = cg._classical_large()
    e, d = out.evidence["epsilon"], out.evidence["delta"]
    assert e > 1 and gaussian_delta_mp(e, classical_sigma(e, d)) > d
    # and the analytic σ at that point does satisfy it
    assert gaussian_delta_mp(e, calibrate_sigma(e, d) * (1 + 1e-9)) <= d


def test_calibration_rejects_bad_input():
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        try:
            calibrate_sigma(bad, 1e-5)
        except ValueError as exc:
            assert "epsilon" in str(exc)
        else:
            raise AssertionError(f"epsilon={bad} accepted")
    assert np.isfinite(calibrate_sigma(1.0, 0.5))
