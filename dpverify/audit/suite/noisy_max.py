"""Report-noisy-max benchmark mechanisms (Ding et al., CCS 2018, Alg. 5–8).

Queries of sensitivity 1, neighbours differ by at most 1 in every query (ℓ∞).

- :class:`ReportNoisyMax1`: argmax of x + Lap(2/ε) — ε-DP.
- :class:`ReportNoisyMax2`: argmax of x + Exp(2/ε) — ε-DP.
- :class:`ReportNoisyMax3`: the noisy maximum *value* with Lap(2/ε) — k·ε/2 for k queries
  (each of the k factors of the max's density shifts by at most e^{ε/2}).
- :class:`ReportNoisyMax4`: the noisy maximum value with Exp(2/ε) — not private (∞): the
  support of the maximum moves with the inputs.

Example
-------
>>> ReportNoisyMax1(0.1).sample(np.zeros(5), np.random.default_rng(0), 3).shape
(3,)
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.mechanisms.relations import Neighbours
from dpverify.audit.suite.base import BenchmarkMechanism, epsilon_of, count_of, vector_of

__all__ = ["ReportNoisyMax1", "ReportNoisyMax2", "ReportNoisyMax3", "ReportNoisyMax4"]


class ReportNoisyMax1(BenchmarkMechanism):
    """argmax_i (x_i + Lap(2/ε)); ε-DP (Ding et al., CCS 2018, Alg. 5).

    Example
    -------
    >>> ReportNoisyMax1(0.1).true_epsilon
    0.1
    """

    name = "ReportNoisyMax1"
    k = 5

    def __init__(self, epsilon: float = 0.1):
        self.epsilon = epsilon_of(epsilon)
        self.true_epsilon = self.epsilon
        self.relation = Neighbours(shape=(self.k,), kind="linf", bound=1, default_domain=True)

    def _noise(self, rng, shape):
        return rng.laplace(0.0, 2.0 / self.epsilon, shape)

    def sample(self, data, rng, n):
        x = vector_of(data)
        return np.argmax(x + self._noise(rng, (count_of(n), x.size)), axis=1)


class ReportNoisyMax2(ReportNoisyMax1):
    """argmax_i (x_i + Exp(2/ε)); ε-DP (Alg. 6).

    Example
    -------
    >>> ReportNoisyMax2(0.1).true_epsilon
    0.1
    """

    name = "ReportNoisyMax2"

    def _noise(self, rng, shape):
        return rng.exponential(2.0 / self.epsilon, shape)


class ReportNoisyMax3(ReportNoisyMax1):
    """max_i (x_i + Lap(2/ε)), the value (Alg. 7): k·ε/2 for k queries, not ε.

    Example
    -------
    >>> ReportNoisyMax3(0.1).true_epsilon
    0.25
    """

    name = "ReportNoisyMax3"

    def __init__(self, epsilon: float = 0.1):
        super().__init__(epsilon)
        self.true_epsilon = round(self.k * self.epsilon / 2, 12)

    def sample(self, data, rng, n):
        x = vector_of(data)
        return np.max(x + self._noise(rng, (count_of(n), x.size)), axis=1)


class ReportNoisyMax4(ReportNoisyMax3):
    """max_i (x_i + Exp(2/ε)), the value (Alg. 8): not private (true ε = ∞).

    Example
    -------
    >>> ReportNoisyMax4(0.1).true_epsilon
    inf
    """

    name = "ReportNoisyMax4"

    def __init__(self, epsilon: float = 0.1):
        super().__init__(epsilon)
        self.true_epsilon = math.inf

    def _noise(self, rng, shape):
        return rng.exponential(2.0 / self.epsilon, shape)
