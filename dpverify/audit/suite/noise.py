"""Additive-noise benchmark mechanisms of StatDP and DP-Sniper.

- :class:`Laplace`: f(x) + Lap(1/ε) on a scalar (Dwork et al. 2006).
- :class:`NoisyHist1`, :class:`NoisyHist2`: Ding et al., CCS 2018, Alg. 9 and 10 — a histogram
  plus Lap(1/ε) per bin (correct) and plus Lap(ε) (the bug: scale ε instead of 1/ε, true ε = 1/ε).
- :class:`LaplaceParallel`: k copies of Laplace(ε) on one scalar (Bichsel et al., S&P 2021);
  true ε = kε.
- :class:`PrefixSum`: the prefix sums of x + Lap(1/ε) (Wang et al., PLDI 2019); ε-DP when one
  query changes by 1, and kε when all k queries may change by 1 (ℓ∞ neighbours).

Example
-------
>>> NoisyHist1(0.1).sample(np.zeros(5), np.random.default_rng(0), 3).shape
(3, 5)
"""

from __future__ import annotations

import numpy as np

from dpverify.mechanisms.relations import Neighbours
from dpverify.audit.suite.base import BenchmarkMechanism, epsilon_of, count_of, vector_of
from dpverify.validation import check_budget, check_real

__all__ = ["Laplace", "LaplaceParallel", "NoisyHist1", "NoisyHist2", "PrefixSum"]

#: PrefixSum's k queries are its relation's shape: a relation holds at most 10^6 entries.
_MAX_QUERIES = 10**6


class Laplace(BenchmarkMechanism):
    """x + Lap(1/ε) for a scalar x (sensitivity 1); ε-DP.

    Example
    -------
    >>> float(Laplace(0.5).log_density(0.0, np.array([0.0]))[0]) == float(np.log(0.25))
    True
    """

    name = "Laplace"

    def __init__(self, epsilon: float = 0.1):
        self.epsilon = epsilon_of(epsilon)
        self.true_epsilon = self.epsilon
        self.relation = Neighbours(shape=(1,), kind="l1", bound=1, default_domain=True)

    def sample(self, data, rng, n):
        return rng.laplace(float(vector_of(data)[0]), 1.0 / self.epsilon, count_of(n))

    def log_density(self, data, outputs):
        """log of the Laplace density at ``outputs`` (the white-box hook)."""
        b = 1.0 / self.epsilon
        return -np.abs(np.asarray(outputs, dtype=float) - float(vector_of(data)[0])) / b - np.log(2 * b)


class NoisyHist1(BenchmarkMechanism):
    """Ding et al., CCS 2018, Alg. 9: each bin + Lap(1/ε); ε-DP when one bin changes by 1.

    Example
    -------
    >>> NoisyHist1(0.1).true_epsilon
    0.1
    """

    name = "NoisyHist1"

    def __init__(self, epsilon: float = 0.1):
        self.epsilon = epsilon_of(epsilon)
        self.true_epsilon = self.epsilon
        self.relation = Neighbours(shape=(5,), kind="l1", bound=1, default_domain=True)

    def sample(self, data, rng, n):
        x = vector_of(data)
        return x + rng.laplace(0.0, 1.0 / self.epsilon, (count_of(n), x.size))


class NoisyHist2(NoisyHist1):
    """Ding et al., CCS 2018, Alg. 10 (a bug): each bin + Lap(ε); its true ε is 1/ε.

    Example
    -------
    >>> NoisyHist2(0.1).true_epsilon
    10.0
    """

    name = "NoisyHist2"

    def __init__(self, epsilon: float = 0.1):
        super().__init__(epsilon)
        self.true_epsilon = 1.0 / self.epsilon

    def sample(self, data, rng, n):
        x = vector_of(data)
        return x + rng.laplace(0.0, self.epsilon, (count_of(n), x.size))


class LaplaceParallel(BenchmarkMechanism):
    """k independent Laplace(ε) releases of one scalar (Bichsel et al., S&P 2021); true ε = kε.

    Example
    -------
    >>> round(LaplaceParallel(20, 0.005).true_epsilon, 12)
    0.1
    """

    name = "LaplaceParallel"

    def __init__(self, k: int = 20, epsilon: float = 0.005):
        self.k = count_of(k, "k")
        check_budget(8 * self.k, f"k = {self.k} (one draw holds k releases)")
        self.epsilon = epsilon_of(epsilon) * self.k  # the composed claim
        self.per_release = epsilon_of(epsilon)
        self.true_epsilon = self.per_release * self.k
        check_real(self.epsilon, "k * epsilon")  # the composed claim overflows float64 otherwise
        self.relation = Neighbours(shape=(1,), kind="l1", bound=1, default_domain=True)

    def sample(self, data, rng, n):
        return rng.laplace(float(vector_of(data)[0]), 1.0 / self.per_release, (count_of(n), self.k))


class PrefixSum(BenchmarkMechanism):
    """Prefix sums of x + Lap(1/ε) (Wang et al., PLDI 2019).

    Under ℓ∞ neighbours (every query may change by 1, the benchmark's relation) its true ε is
    k·ε for k queries: the prefix sums are an invertible linear map of the noisy answers.

    Example
    -------
    >>> PrefixSum(0.1).sample(np.ones(3), np.random.default_rng(0), 2).shape
    (2, 3)
    """

    name = "PrefixSum"

    def __init__(self, epsilon: float = 0.1, k: int = 10):
        self.epsilon = epsilon_of(epsilon)
        self.k = count_of(k, "k", maximum=_MAX_QUERIES)
        self.true_epsilon = check_real(self.k * self.epsilon, "k * epsilon")  # its exact ε, finite
        self.relation = Neighbours(shape=(self.k,), kind="linf", bound=1, default_domain=True)

    def sample(self, data, rng, n):
        x = vector_of(data)
        return np.cumsum(x + rng.laplace(0.0, 1.0 / self.epsilon, (count_of(n), x.size)), axis=1)
