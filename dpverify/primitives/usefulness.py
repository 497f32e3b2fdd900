"""(α, β)-usefulness of the Laplace mechanism for m queries (the survey (Zhu et al.), section "(α, β)-usefulness").

Each answer gets Lap(b) noise, b = Δf/ε.  Pr[|Lap(b)| > α] = e^{−α/b}; by the union bound
``Pr[max_i |noise_i| > α] ≤ m e^{−α/b}``, which is ≤ β for α = (Δf/ε) ln(m/β).  With
independent noise the exact probability is 1 − (1 − e^{−α/b})^m ≤ m e^{−α/b}.
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.validation import as_generator, check_epsilon, check_positive_int, check_probability, check_real, check_work
from dpverify.primitives.sampling import MAX_LAPLACE_SCALE, laplace
from dpverify.proofdocs import proven

__all__ = ["laplace_alpha", "laplace_failure_probability", "simulate_failure_probability"]


def _beta(beta) -> float:
    b = check_probability(beta, "beta")
    if not 0 < b < 1:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    return b


@proven("survey/usefulness.md")
def laplace_alpha(sensitivity: float, epsilon: float, m: int, beta: float) -> float:
    """α = (Δf/ε)·ln(m/β): the union-bound accuracy of m Laplace answers with failure ≤ β.

    Example
    -------
    >>> round(laplace_alpha(1.0, 1.0, 10, 0.05), 6) == round(math.log(200), 6)
    True
    """
    d = check_real(sensitivity, "sensitivity", positive=True)
    e = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    b = _beta(beta)
    a = d / e * math.log(m / b)  # proof: usefulness-alpha
    if math.isinf(a):
        a = d * (math.log(m / b) / e)
    if math.isinf(a):
        raise ValueError(f"epsilon = {e!r} is too small for sensitivity {d!r}: alpha = (sensitivity/epsilon)·ln(m/beta) overflows float64")
    return a


def laplace_failure_probability(alpha: float, sensitivity: float, epsilon: float, m: int) -> float:
    """Exact ``Pr[max_i |noise_i| > α]`` = 1 − (1 − e^{−αε/Δf})^m for m independent Laplace answers.

    Example
    -------
    >>> round(laplace_failure_probability(math.log(200), 1.0, 1.0, 10), 6)
    0.04889
    >>> laplace_failure_probability(0.0, 1.0, 1.0, 3)
    1.0
    """
    a = check_real(alpha, "alpha", nonneg=True)
    d = check_real(sensitivity, "sensitivity", positive=True)
    e = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    x = math.exp(-a * e / d)  # Pr[|Lap(b)| > α] for one answer
    if x >= 1.0:  # α = 0 (or α ε/Δf below 1e-16): every answer misses by more than α
        return 1.0
    return float(-math.expm1(m * math.log1p(-x)))


def simulate_failure_probability(alpha, sensitivity, epsilon, m, trials: int, rng=None) -> float:
    """Monte-Carlo frequency of ``max_i |noise_i| > α`` over ``trials`` releases of m answers.

    Example
    -------
    >>> 0 <= simulate_failure_probability(3.0, 1.0, 1.0, 5, 1000, rng=0) <= 1
    True
    """
    a = check_real(alpha, "alpha", nonneg=True)
    d = check_real(sensitivity, "sensitivity", positive=True)
    e = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    if not d / e <= MAX_LAPLACE_SCALE:
        raise ValueError(f"sensitivity/epsilon = {d / e:.3g} is too large a Laplace scale (over 1e305, draws overflow float64)")
    trials = check_positive_int(trials, "trials")
    check_work(float(trials) * m, f"trials × m = {trials} × {m} Laplace draws")
    g = as_generator(rng)
    fails = 0
    step = max(1, 2_000_000 // m)
    for start in range(0, trials, step):
        k = min(step, trials - start)
        noise = laplace(d / e, (k, m), g)
        fails += int(np.count_nonzero(np.abs(noise).max(axis=1) > a))
    return fails / trials
