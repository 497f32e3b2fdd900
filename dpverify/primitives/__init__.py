"""The primitives room: the DP building blocks, with exact samplers.

- :mod:`~dpverify.primitives.additive` — Laplace, geometric and grid-safe Laplace releases;
- :mod:`~dpverify.primitives.sampling` — exact Laplace and discrete Laplace samplers;
- :mod:`~dpverify.primitives.exponential` — the exponential mechanism (exact weights and sampling);
- :mod:`~dpverify.primitives.randomized_response` — k-ary randomized response;
- :mod:`~dpverify.primitives.composition` — sequential and parallel composition, a budget accountant;
- :mod:`~dpverify.primitives.sensitivity` — L1 sensitivities of linear queries;
- :mod:`~dpverify.primitives.usefulness` — (α, β)-usefulness of Laplace answers;
- ``proofs/`` — proofs about this code (the exact discrete Laplace sampler).

The statements these blocks implement are those of the survey (Zhu et al.); its claims (ids ``primitives.*``) and
their proofs live in the survey room, :mod:`dpverify.survey`.

Example
-------
>>> from dpverify.primitives import laplace_scale, sequential_epsilon
>>> laplace_scale(2.0, 0.5), sequential_epsilon([0.5, 0.25])
(4.0, 0.75)
"""

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
