"""The exact privacy of k-fold randomized response, the worst case of composing ε-DP mechanisms.

Binary randomized response with parameter ε reports the true bit with probability e^ε/(1 + e^ε).
Run k times on the bit of one person (0 in D, 1 in D'), the number j of reported ones is all that
matters: its law is Binomial(k, q) under D and Binomial(k, p) under D' (p = e^ε/(1 + e^ε),
q = 1 − p), and the privacy loss is ε(k − 2j). Kairouz, Oh and Viswanath (ICML 2015) show that
this pair is the worst case of k-fold composition of ε-DP mechanisms, so the δ(ε') computed here
is what any composition theorem for pure ε-DP must bound.

Two independent routes: :func:`delta_binomial` sums over j in 50-digit arithmetic (mpmath);
:func:`delta_outputs` sums over all 2^k output vectors (small k only).
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp


def delta_binomial(k: int, epsilon: float, eps_prime: float) -> float:
    """δ(ε') = Σ_j max(0, P(j) − e^ε' Q(j)) for k-fold RR(ε), P = Bin(k, p) (under D'), Q = Bin(k, q).

    Example
    -------
    >>> round(delta_binomial(1, 1.0, 1.0), 12)          # one RR(1) is (1, 0)-DP
    0.0
    """
    if not (isinstance(k, int) and k >= 1):
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    with mp.workdps(50):
        e, ep = mp.mpf(epsilon), mp.mpf(eps_prime)
        p = mp.e**e / (1 + mp.e**e)
        q = 1 - p
        total = mp.mpf(0)
        for j in range(k + 1):
            c = mp.binomial(k, j)
            P, Q = c * p**j * q**(k - j), c * q**j * p**(k - j)
            total += max(mp.mpf(0), P - mp.e**ep * Q)
        return float(total)


def delta_outputs(k: int, epsilon: float, eps_prime: float) -> float:
    """The same δ(ε'), summed over every one of the 2^k output vectors (k ≤ 16), in floats."""
    if not (isinstance(k, int) and 1 <= k <= 16):
        raise ValueError(f"k must be an integer in [1, 16], got {k!r}")
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    total = 0.0
    for y in itertools.product((0, 1), repeat=k):
        j = sum(y)
        P, Q = p**j * (1 - p) ** (k - j), (1 - p) ** j * p ** (k - j)
        total += max(0.0, P - math.exp(eps_prime) * Q)
    return total


def exact_epsilon(k: int, epsilon: float) -> float:
    """The smallest ε' with δ(ε') = 0: the largest privacy loss, ε(k − 2·0) = kε."""
    return max(epsilon * (k - 2 * j) for j in range(k + 1))


def advanced_epsilon(k: int, epsilon: float, delta_prime: float) -> float:
    """ε' of the advanced composition theorem (Dwork, Rothblum, Vadhan 2010; Dwork & Roth, Thm 3.20)."""
    return math.sqrt(2 * k * math.log(1 / delta_prime)) * epsilon + k * epsilon * math.expm1(epsilon)
