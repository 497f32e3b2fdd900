"""Simulated surveys and the inversion estimator (seeded)."""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.primitives import krr_matrix
from dpverify.rr import estimate_distribution, optimal_mechanism, simulate_survey
from dpverify.rr.simulate import composition


def test_composition():
    assert composition([0.2, 0.8], 10_000).tolist() == [2000, 8000]
    c = composition([1 / 3, 1 / 3, 1 / 3], 100)
    assert c.sum() == 100 and c.max() - c.min() <= 1


def test_truthful_fraction_mean_and_std():
    """Seeded; 400 surveys: the mean of T is within 4.5 standard errors of its expectation (false-alarm
    rate 7e-6) and the empirical std within 15% of the formula (chi-square, 399 dof: false-alarm < 1e-6)."""
    P, u = optimal_mechanism([0.3, 0.7], 0.5, 0.1)
    rng = np.random.default_rng(11)
    T = np.array([simulate_survey(P, [0.3, 0.7], 2000, rng=rng).truthful_fraction for _ in range(400)])
    r = simulate_survey(P, [0.3, 0.7], 2000, rng=0)
    assert abs(T.mean() - r.expected_truthful) < 4.5 * r.std_truthful / np.sqrt(400)
    assert abs(T.std(ddof=1) / r.std_truthful - 1) < 0.15
    assert abs(r.expected_truthful - u) < 1e-12


def test_estimator_unbiased_with_its_variance():
    """Seeded; respondents' composition fixed; 300 surveys through 3-RR.  Mean within 4.5 s.e.
    (false-alarm rate 2e-5 over the three coordinates); the iid covariance formula is conservative for a
    fixed composition, so the empirical variance must not exceed it by more than 15%."""
    pi = np.array([0.5, 0.3, 0.2])
    P = krr_matrix(3, 1.0)
    rng = np.random.default_rng(12)
    ests = [estimate_distribution(P, simulate_survey(P, pi, 5000, rng=rng).output_counts) for _ in range(300)]
    hat = np.array([e.pi for e in ests])
    sd = np.sqrt(np.diag(ests[0].cov))
    assert np.all(np.abs(hat.mean(axis=0) - pi) < 4.5 * sd / np.sqrt(300))
    assert np.all(hat.var(axis=0, ddof=1) <= 1.15 * sd**2)
    assert np.allclose(hat.sum(axis=1), 1)


def test_singular_mechanism_is_not_invertible():
    P, _ = optimal_mechanism([0.9, 0.1], 0.1)  # everyone reports 0
    with pytest.raises(ValueError, match="singular"):
        estimate_distribution(P, [10, 0])


def test_validation():
    P = krr_matrix(2, 1.0)
    with pytest.raises(ValueError, match="P must have shape"):
        simulate_survey(P, [0.2, 0.3, 0.5], 10, rng=0)
    with pytest.raises(ValueError, match="n_respondents"):
        simulate_survey(P, [0.5, 0.5], 0, rng=0)
    with pytest.raises(TypeError, match="rng"):
        simulate_survey(P, [0.5, 0.5], 10, rng="x")
    with pytest.raises(ValueError, match="output_counts"):
        estimate_distribution(P, [-1, 3])
    with pytest.raises(ValueError, match="output_counts"):
        estimate_distribution(P, [1, 2, 3])
    a = simulate_survey(P, [0.5, 0.5], 1000, rng=5).counts
    b = simulate_survey(P, [0.5, 0.5], 1000, rng=5).counts
    assert np.array_equal(a, b)
