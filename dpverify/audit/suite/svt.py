"""Sparse-vector benchmark mechanisms: Lyu, Su & Li, "Understanding the Sparse Vector Technique
for Differential Privacy", PVLDB 2017, Alg. 1–6; NumericalSVT (Wang et al., PLDI 2019);
SVT34Parallel (Bichsel et al., S&P 2021).

Queries of sensitivity 1, ℓ∞ neighbours; threshold T, cutoff c.  Answers are coded
1 = ⊤ (above), 0 = ⊥ (below), −1 = not answered (stopped after c ⊤).  Alg. 3 returns the noisy
value instead of ⊤ and −1000.0 for ⊥, −2000.0 after stopping.

True ε (Lyu et al., Table 1 and §4): Alg. 1, 2 ε-DP; Alg. 3 not private (∞); Alg. 4
((1 + 6c)/4)·ε; Alg. 5 (no query noise) ∞; Alg. 6 (no cutoff) ∞; NumericalSVT ε-DP;
SVT34Parallel ∞ (it releases Alg. 3).

Example
-------
>>> SVT1(0.1).sample(np.zeros(10), np.random.default_rng(0), 2).shape
(2, 10)
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.mechanisms.relations import Neighbours
from dpverify.audit.suite.base import BenchmarkMechanism, epsilon_of, count_of, vector_of
from dpverify.validation import check_real

__all__ = ["NumericalSVT", "SVT1", "SVT2", "SVT3", "SVT4", "SVT5", "SVT6", "SVT34Parallel"]


def _stop_after(above: np.ndarray, c: int, fill, values=None) -> np.ndarray:
    """Code rows of ⊤/⊥ answers, replacing everything after the c-th ⊤ by ``fill``."""
    before = np.cumsum(above, axis=1, dtype=np.int16 if above.shape[1] < 2**15 else np.int64)  # no wrap-around
    before -= above
    stopped_before = before >= c  # c ⊤ already given before query i
    out = above.astype(np.int64) if values is None else np.where(above, values, -1000.0)
    np.copyto(out, fill, where=stopped_before)
    return out


class _SVT(BenchmarkMechanism):
    k = 10

    def __init__(self, epsilon: float = 0.1, c: int = 1, threshold: float = 1.0):
        self.epsilon = epsilon_of(epsilon)
        self.c = count_of(c, "c", maximum=2**63 - 1)  # answers are counted in int64
        self.threshold = check_real(threshold, "threshold")
        self.relation = Neighbours(shape=(self.k,), kind="linf", bound=1, default_domain=True)
        self.true_epsilon = self._true()

    def _true(self) -> float:
        return self.epsilon


class SVT1(_SVT):
    """Lyu et al. Alg. 1: ρ ~ Lap(2/ε), ν_i ~ Lap(4c/ε), stop after c ⊤; ε-DP.

    Example
    -------
    >>> SVT1(0.1, threshold=0.5).true_epsilon
    0.1
    """

    name = "SVT1"

    def sample(self, data, rng, n):
        x, n = vector_of(data), count_of(n)
        rho = rng.laplace(0.0, 2.0 / self.epsilon, (n, 1))
        nu = rng.laplace(0.0, 4.0 * self.c / self.epsilon, (n, x.size))
        return _stop_after(x + nu >= self.threshold + rho, self.c, -1)


class SVT2(_SVT):
    """Lyu et al. Alg. 2: ρ ~ Lap(2c/ε) redrawn after every ⊤, ν_i ~ Lap(4c/ε); ε-DP.

    Example
    -------
    >>> SVT2(0.1).true_epsilon
    0.1
    """

    name = "SVT2"

    def sample(self, data, rng, n):
        x, n = vector_of(data), count_of(n)
        rho = rng.laplace(0.0, 2.0 * self.c / self.epsilon, n)
        nu = rng.laplace(0.0, 4.0 * self.c / self.epsilon, (n, x.size))
        out = np.empty((n, x.size), dtype=np.int64)
        count = np.zeros(n, dtype=np.int64)
        for i in range(x.size):
            above = x[i] + nu[:, i] >= self.threshold + rho
            out[:, i] = np.where(count >= self.c, -1, above)
            count += above & (count < self.c)
            fresh = rng.laplace(0.0, 2.0 * self.c / self.epsilon, n)
            rho = np.where(above, fresh, rho)
        return out


class SVT3(_SVT):
    """Lyu et al. Alg. 3: like Alg. 1 with ν_i ~ Lap(2c/ε) but releasing the noisy answer x_i + ν_i
    for ⊤ (−1000.0 for ⊥, −2000.0 after c ⊤): not private (∞).

    Example
    -------
    >>> SVT3(0.1).true_epsilon
    inf
    """

    name = "SVT3"

    def _true(self):
        return math.inf

    def sample(self, data, rng, n):
        x, n = vector_of(data), count_of(n)
        rho = rng.laplace(0.0, 2.0 / self.epsilon, (n, 1))
        val = x + rng.laplace(0.0, self.c / (self.epsilon / 2), (n, x.size))
        return _stop_after(val >= self.threshold + rho, self.c, -2000.0, values=val)


class SVT4(_SVT):
    """Lyu et al. Alg. 4 (Lee & Clifton): ρ ~ Lap(4/ε), ν_i ~ Lap(4/(3ε)); ((1 + 6c)/4)·ε-DP.

    Example
    -------
    >>> SVT4(0.1).true_epsilon
    0.175
    """

    name = "SVT4"

    def _true(self):
        return check_real(round((1 + 6 * self.c) / 4 * self.epsilon, 12), "(1 + 6c)/4 * epsilon")  # finite

    def sample(self, data, rng, n):
        x, n = vector_of(data), count_of(n)
        rho = rng.laplace(0.0, 4.0 / self.epsilon, (n, 1))
        nu = rng.laplace(0.0, 1.0 / (0.75 * self.epsilon), (n, x.size))
        return _stop_after(x + nu >= self.threshold + rho, self.c, -1)


class SVT5(_SVT):
    """Lyu et al. Alg. 5 (Stoddard et al.): no query noise, no cutoff: not private (∞).

    Example
    -------
    >>> SVT5(0.1).true_epsilon
    inf
    """

    name = "SVT5"

    def _true(self):
        return math.inf

    def sample(self, data, rng, n):
        x, n = vector_of(data), count_of(n)
        rho = rng.laplace(0.0, 2.0 / self.epsilon, (n, 1))
        return (x >= self.threshold + rho).astype(np.int64)


class SVT6(_SVT):
    """Lyu et al. Alg. 6 (Chen et al.): ν_i ~ Lap(2/ε) but no cutoff: not private (∞).

    Example
    -------
    >>> SVT6(0.1).true_epsilon
    inf
    """

    name = "SVT6"

    def _true(self):
        return math.inf

    def sample(self, data, rng, n):
        x, n = vector_of(data), count_of(n)
        rho = rng.laplace(0.0, 2.0 / self.epsilon, (n, 1))
        nu = rng.laplace(0.0, 2.0 / self.epsilon, (n, x.size))
        return (x + nu >= self.threshold + rho).astype(np.int64)


class NumericalSVT(_SVT):
    """Wang et al., PLDI 2019: ρ ~ Lap(3/ε), ν_i ~ Lap(6c/ε); for ⊤ release x_i + Lap(3c/ε),
    0.0 for ⊥, −1000.0 after c ⊤; ε-DP.

    Example
    -------
    >>> NumericalSVT(0.1, c=2).true_epsilon
    0.1
    """

    name = "NumericalSVT"

    def sample(self, data, rng, n):
        x, n = vector_of(data), count_of(n)
        rho = rng.laplace(0.0, 3.0 / self.epsilon, (n, 1))
        nu = rng.laplace(0.0, 6.0 * self.c / self.epsilon, (n, x.size))
        z = x + rng.laplace(0.0, 3.0 * self.c / self.epsilon, (n, x.size))
        above = x + nu >= self.threshold + rho
        out = np.where(above, z, 0.0)
        out[np.cumsum(above, axis=1) - above >= self.c] = -1000.0
        return out


class SVT34Parallel(_SVT):
    """Alg. 3 and Alg. 4 run side by side on the same queries (Bichsel et al., S&P 2021): ∞.

    DP-Sniper's evaluation runs it with its constructor's default cutoff c = 2 (its other SVTs with
    c = 1); ``CASES`` does the same, so its published bound is for c = 2.

    Example
    -------
    >>> SVT34Parallel(0.1).sample(np.zeros(10), np.random.default_rng(0), 2).shape
    (2, 20)
    """

    name = "SVT34Parallel"

    def _true(self):
        return math.inf

    def sample(self, data, rng, n):
        a = SVT3(self.epsilon, self.c, self.threshold).sample(data, rng, n)
        out = np.empty((a.shape[0], 2 * a.shape[1]))
        out[:, :a.shape[1]] = a
        out[:, a.shape[1]:] = SVT4(self.epsilon, self.c, self.threshold).sample(data, rng, n)
        return out
