"""Truncated geometric mechanism "GeoSample" (Balcer & Vadhan, "Differential Privacy on Finite
Computers", ITCS 2018, Alg. 4.8): a counting query c ∈ {0..n} released with integer arithmetic only.

With k = ⌈ln(2/ε)⌉ (the DP-Sniper benchmark's choice of logarithm) and
d = (2^{k+1} + 1)(2^k + 1)^{n−1}, draw u uniform on {1..d} and output the least z with F(z) ≥ u,
where F(z) = 2^{k(c−z)}(2^k + 1)^{n−(c−z)} for z < c, F(z) = d − 2^{k(z−c+1)}(2^k + 1)^{n−1−(z−c)}
for c ≤ z < n, F(n) = d.  Its exact ε is computed from these integer laws (``exact_epsilon``);
Balcer & Vadhan's Thm 4.7 gives ln(1 + 2^{−k}).

Example
-------
>>> m = TruncatedGeometric(0.1)
>>> round(m.true_epsilon, 6), round(float(np.log(1 + 2.0**-3)), 6)
(0.117783, 0.117783)
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpverify.mechanisms.relations import Neighbours
from dpverify.audit.suite.base import BenchmarkMechanism, epsilon_of, count_of, vector_of

__all__ = ["TruncatedGeometric"]


def _k_of(epsilon: float, n: int) -> int:
    """k = ⌈ln(2/ε)⌉, an integer >= 0 (ε < 2e); ε so small that 2/ε overflows is refused (d would too)."""
    ratio = 2.0 / epsilon
    if math.isinf(ratio):
        raise ValueError(f"epsilon={epsilon!r}, n={n!r} give k = ceil(ln(2/epsilon)) beyond 700: a range d "
                         "beyond 64-bit integers")
    k = math.ceil(math.log(ratio))
    if k < 0:
        raise ValueError(f"epsilon must be < 2e (so that k = ceil(ln(2/epsilon)) >= 0), got {epsilon!r}")
    return k


class TruncatedGeometric(BenchmarkMechanism):
    """GeoSample(ε, n) on a count c ∈ {0..n} (neighbours: counts differing by 1).

    ``epsilon`` must be below 2e (k = ⌈ln(2/ε)⌉ >= 0) and ε, n must give a range d < 2^62 (64-bit
    sampling); anything else is refused (ValueError naming them) before d is built.

    Example
    -------
    >>> TruncatedGeometric(0.1).sample(np.array([2]), np.random.default_rng(0), 4).tolist()
    [5, 5, 2, 0]
    """

    name = "TruncatedGeometric"

    def __init__(self, epsilon: float = 0.1, n: int = 5):
        self.epsilon = epsilon_of(epsilon)
        self.n = count_of(n, "n")
        self.k = _k_of(self.epsilon, self.n)
        # d ≥ 2^(k+1)·2^(max(k,1)(n−1)) (2^k + 1 ≥ 2^max(k,1)): refused before a huge integer is built
        if (self.k + 1) + max(self.k, 1) * (self.n - 1) >= 62:
            raise ValueError(f"epsilon={self.epsilon!r}, n={self.n!r} give a range d = (2^(k+1) + 1)(2^k + 1)^(n-1) "
                             f"with k = {self.k}: at least 2^{(self.k + 1) + max(self.k, 1) * (self.n - 1)}, "
                             "beyond 64-bit integers")
        self.d = (2 ** (self.k + 1) + 1) * (2**self.k + 1) ** (self.n - 1)
        if self.d >= 2**62:
            raise ValueError(f"epsilon={epsilon!r}, n={n!r} give a range d = {self.d} beyond 64-bit integers")
        self.relation = Neighbours(shape=(1,), kind="l1", bound=1, low=0, high=self.n, integer=True)
        self.true_epsilon = self.exact_epsilon()

    def cdf(self, c: int) -> list[int]:
        """F(0..n) for the count c (exact integers)."""
        if not 0 <= c <= self.n:
            raise ValueError(f"count must lie in 0..{self.n}, got {c!r}")
        b = 2**self.k + 1
        f = [2 ** (self.k * (c - z)) * b ** (self.n - (c - z)) for z in range(c)]
        f += [self.d - 2 ** (self.k * (z - c + 1)) * b ** (self.n - 1 - (z - c)) for z in range(c, self.n)]
        return f + [self.d]

    def exact_epsilon(self) -> float:
        """max over neighbouring counts c, c+1 and outputs z of |ln P_c(z) − ln P_{c+1}(z)|."""
        laws = [np.diff([0, *self.cdf(c)]).tolist() for c in range(self.n + 1)]
        worst = max(max(Fraction(a, b), Fraction(b, a)) for c in range(self.n)
                    for a, b in zip(laws[c], laws[c + 1]))
        return math.log(worst)

    def sample(self, data, rng, n):
        c = int(round(float(vector_of(data)[0])))
        f = np.array(self.cdf(min(max(c, 0), self.n)), dtype=np.int64)
        u = rng.integers(1, self.d + 1, count_of(n))
        return np.searchsorted(f, u, side="left")  # least z with F(z) ≥ u
