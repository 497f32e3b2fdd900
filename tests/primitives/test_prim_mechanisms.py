"""Primitives: validation, laws of the samplers, composition, sensitivity, usefulness.

Statistical tests are seeded; each states its false-alarm rate (≤ 1e-6).
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpverify.primitives import (
    Accountant,
    BudgetExceeded,
    exponential_mechanism,
    exponential_probabilities,
    geometric_mechanism,
    krr_matrix,
    l1_sensitivity,
    laplace_alpha,
    laplace_failure_probability,
    laplace_mechanism,
    laplace_scale,
    parallel_epsilon,
    product_law,
    randomized_response,
    sequential_epsilon,
    simulate_failure_probability,
    substitution_sensitivity,
)

P_MIN = 1e-6  # reject a sampler when a goodness-of-fit p-value is below this: false alarm 1e-6


@pytest.mark.parametrize("bad, exc", [(0.0, ValueError), (-1.0, ValueError), (float("nan"), ValueError),
                                      (float("inf"), ValueError), ("1", TypeError), (True, TypeError)])
def test_epsilon_validation(bad, exc):
    for call in (lambda: laplace_mechanism(0.0, 1.0, bad), lambda: geometric_mechanism(0, 1, bad),
                 lambda: exponential_probabilities([0.0, 1.0], 1.0, bad), lambda: krr_matrix(3, bad),
                 lambda: laplace_alpha(1.0, bad, 3, 0.1)):
        with pytest.raises(exc, match="epsilon"):
            call()


def test_other_validation():
    with pytest.raises(ValueError, match="sensitivity"):
        laplace_scale(0.0, 1.0)
    with pytest.raises(ValueError, match="value"):
        laplace_mechanism([1.0, float("nan")], 1.0, 1.0)
    with pytest.raises(ValueError, match="integer"):
        geometric_mechanism([1.5], 1, 1.0)
    with pytest.raises(ValueError, match="scores"):
        exponential_probabilities([], 1.0, 1.0)
    with pytest.raises(ValueError, match="values"):
        randomized_response([0, 3], 3, 1.0)
    with pytest.raises(ValueError, match="values"):
        randomized_response([-1], 3, 1.0)
    with pytest.raises(ValueError, match="beta"):
        laplace_alpha(1.0, 1.0, 3, 1.0)
    with pytest.raises(TypeError, match="m"):
        laplace_alpha(1.0, 1.0, 2.5, 0.1)
    with pytest.raises(ValueError, match="A"):
        l1_sensitivity([[1.0, float("inf")]])
    with pytest.raises(ValueError, match="epsilons"):
        sequential_epsilon([1.0, -1.0])
    with pytest.raises(ValueError, match="laws"):
        product_law([0.5, 0.6])


def test_inputs_not_mutated():
    v = np.array([1.0, 2.0])
    laplace_mechanism(v, 1.0, 1.0, rng=0)
    q = np.array([0.0, 1.0])
    exponential_probabilities(q, 1.0, 1.0)
    vals = np.array([0, 1, 2])
    randomized_response(vals, 3, 1.0, rng=0)
    assert v.tolist() == [1.0, 2.0] and q.tolist() == [0.0, 1.0] and vals.tolist() == [0, 1, 2]


def test_laplace_mechanism_law():
    """KS test of value + Lap(Δ/ε) against the Laplace cdf; false alarm 1e-6 (p-value threshold)."""
    x = laplace_mechanism(3.0, 2.0, 0.5, rng=1, size=200_000)
    assert stats.kstest(x, stats.laplace(loc=3.0, scale=4.0).cdf).pvalue > P_MIN


def test_geometric_mechanism_law():
    """Chi-square of the two-sided geometric law P(k) ∝ e^{−ε|k|/Δ} on |k| ≤ 8 (+ tails); false alarm 1e-6."""
    eps = 0.8
    x = geometric_mechanism(5, 1, eps, rng=2, size=200_000) - 5
    r = math.exp(-eps)
    ks = np.arange(-8, 9)
    pk = (1 - r) / (1 + r) * r ** np.abs(ks)
    tail = (1 - pk.sum()) / 2
    expected = np.concatenate([[tail], pk, [tail]]) * x.size
    observed = np.concatenate([[np.sum(x < -8)], [np.sum(x == k) for k in ks], [np.sum(x > 8)]])
    assert stats.chisquare(observed, expected).pvalue > P_MIN


def test_exponential_mechanism_law():
    """Gumbel-max sampler frequencies vs exponential_probabilities (chi-square); false alarm 1e-6."""
    scores = [0.0, 2.0, 1.0, -1.0]
    p = exponential_probabilities(scores, 1.0, 1.5)
    w = np.exp(1.5 * np.array(scores) / 2)
    assert np.allclose(p, w / w.sum())
    idx = exponential_mechanism(scores, 1.0, 1.5, rng=3, size=100_000)
    assert stats.chisquare(np.bincount(idx, minlength=4), p * idx.size).pvalue > P_MIN


def test_krr_law():
    """k-RR sampler transition frequencies vs krr_matrix (chi-square per true value); false alarm ≤ 3·1e-7."""
    k, eps = 3, 1.0
    P = krr_matrix(k, eps)
    assert np.allclose(P.sum(axis=1), 1) and math.isclose(P[0, 0] / P[0, 1], math.e)
    for v in range(k):
        out = randomized_response(np.full(60_000, v), k, eps, rng=10 + v)
        assert stats.chisquare(np.bincount(out, minlength=k), P[v] * out.size).pvalue > P_MIN / 3


def test_sensitivity_dense_and_sparse():
    A = np.array([[1, 1, 0], [0, 1, 1], [0, 1, 0]], dtype=float)
    assert l1_sensitivity(A) == 3.0 == l1_sensitivity(sp.csr_matrix(A))
    assert substitution_sensitivity(np.eye(4)) == 2.0


@given(st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=1, max_size=4))
def test_substitution_at_most_twice_add_remove(rows):
    A = np.array(rows, dtype=float)
    assert substitution_sensitivity(A) <= 2 * l1_sensitivity(A) + 1e-12


def test_large_sparse_sensitivity_is_not_densified():
    n = 200_000
    A = sp.diags([np.ones(n), np.ones(n - 1)], [0, 1], format="csr")
    assert l1_sensitivity(A) == 2.0


def test_composition_and_accountant():
    assert sequential_epsilon([0.1] * 10) == pytest.approx(1.0)
    assert parallel_epsilon([0.1, 0.7, 0.3]) == 0.7
    acc = Accountant(1.0)
    for i in range(10):
        acc.spend(0.1, f"q{i}")  # floating sums 0.1·10 must be accepted
    with pytest.raises(BudgetExceeded, match="exceed"):
        acc.spend(0.01, "extra")
    assert len(acc.ledger) == 10
    with pytest.raises(ValueError, match="budget"):
        Accountant(0.0)


def test_usefulness_numbers():
    al = laplace_alpha(1.0, 1.0, 10, 0.05)
    assert al == pytest.approx(math.log(200))
    exact = laplace_failure_probability(al, 1.0, 1.0, 10)
    assert exact == pytest.approx(1 - (1 - 0.005) ** 10)
    # simulation vs exact: |sim − exact| ≤ 5.3 sd (two-sided false alarm ≈ 1.2e-7)
    sim = simulate_failure_probability(al, 1.0, 1.0, 10, 200_000, rng=4)
    assert abs(sim - exact) <= 5.3 * math.sqrt(exact * (1 - exact) / 200_000)


@settings(max_examples=200, deadline=None)
@given(sensitivity=st.floats(1e-6, 1e3), seed=st.integers(0, 2**31 - 1), k=st.integers(1, 6))
def test_score_pairs_keep_the_stated_sensitivity_in_floating_point(sensitivity, seed, k):
    # q + Δ rounds: without the ulp step back, about 15 % of pairs had |q' − q| > Δ by an ulp
    from dpverify.primitives.mechanisms import score_pairs

    for p in score_pairs(epsilon=1.0, k=k, sensitivity=sensitivity, seed=seed):
        assert np.max(np.abs(p.d_prime - p.d)) <= sensitivity
