"""Primitives: Laplace, discrete Laplace, exponential mechanism, composition, usefulness."""

from dpverify.primitives.composition import (
    Accountant,
    BudgetExceeded,
    parallel_epsilon,
    product_law,
    sequential_epsilon,
)
from dpverify.primitives.exponential import exponential_mechanism, exponential_probabilities
from dpverify.primitives.additive import geometric_mechanism, laplace_mechanism, laplace_scale, safe_laplace_mechanism
from dpverify.primitives.randomized_response import krr_matrix, randomized_response
from dpverify.primitives.sampling import discrete_laplace, laplace
from dpverify.primitives.sensitivity import l1_sensitivity, substitution_sensitivity
from dpverify.primitives.usefulness import laplace_alpha, laplace_failure_probability, simulate_failure_probability

__all__ = [
    "Accountant",
    "BudgetExceeded",
    "discrete_laplace",
    "exponential_mechanism",
    "exponential_probabilities",
    "geometric_mechanism",
    "krr_matrix",
    "l1_sensitivity",
    "laplace",
    "laplace_alpha",
    "laplace_failure_probability",
    "laplace_mechanism",
    "laplace_scale",
    "parallel_epsilon",
    "product_law",
    "randomized_response",
    "safe_laplace_mechanism",
    "sequential_epsilon",
    "simulate_failure_probability",
    "substitution_sensitivity",
]
