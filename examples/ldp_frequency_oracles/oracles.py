"""Local-DP frequency oracles (Wang, Blocki, Li, Jha, USENIX Security 2017): the user's code.

Each user holds a value in {0, ..., d − 1} and reports a randomised version of it; the server
estimates how many users hold each value.

* generalised randomized response (GRR, also k-RR): report the true value with probability
  p = e^ε/(e^ε + d − 1), each other value with probability q = 1/(e^ε + d − 1);
* unary encoding (UE): encode the value as a one-hot bit vector of length d and flip each bit:
  a 1 stays 1 with probability p, a 0 becomes 1 with probability q.  Symmetric UE (SUE, basic
  RAPPOR) takes p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p; optimised UE (OUE) p = 1/2, q = 1/(e^ε + 1).
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _check(epsilon: float, d: int) -> None:
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if not (isinstance(d, int) and d >= 2):
        raise ValueError(f"d must be an integer >= 2, got {d!r}")


def grr_matrix(epsilon: float, d: int) -> np.ndarray:
    """GRR's d × d matrix P[i, j] = Pr(report j | value i).

    Example
    -------
    >>> grr_matrix(math.log(3), 2).round(3).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    _check(epsilon, d)
    p = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
    q = 1 / (math.exp(epsilon) + d - 1)
    return np.where(np.eye(d, dtype=bool), p, q)


def ue_matrix(p: float, q: float, d: int) -> np.ndarray:
    """Unary encoding's d × 2^d matrix: Pr(report the bit vector y | value i), every y listed."""
    if not (0 < q < 1 and 0 < p < 1):
        raise ValueError(f"p and q must lie in (0, 1), got p={p!r}, q={q!r}")
    if not (isinstance(d, int) and 2 <= d <= 12):
        raise ValueError(f"d must be an integer in [2, 12], got {d!r}")
    outputs = list(itertools.product((0, 1), repeat=d))
    P = np.empty((d, len(outputs)))
    for i in range(d):
        for c, y in enumerate(outputs):
            P[i, c] = math.prod((p if y[b] else 1 - p) if b == i else (q if y[b] else 1 - q) for b in range(d))
    return P


def sue_pq(epsilon: float) -> tuple[float, float]:
    """Symmetric unary encoding's (p, q): p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p."""
    p = math.exp(epsilon / 2) / (math.exp(epsilon / 2) + 1)
    return p, 1 - p


def oue_pq(epsilon: float) -> tuple[float, float]:
    """Optimised unary encoding's (p, q): p = 1/2, q = 1/(e^ε + 1)."""
    return 0.5, 1 / (math.exp(epsilon) + 1)


def grr_estimate(reports: np.ndarray, epsilon: float, d: int) -> np.ndarray:
    """The unbiased estimate of the counts from GRR reports: (count_j − n q)/(p − q)."""
    _check(epsilon, d)
    reports = np.asarray(reports)
    n = reports.size
    p = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
    q = 1 / (math.exp(epsilon) + d - 1)
    counts = np.bincount(reports, minlength=d)
    return (counts - n * q) / (p - q)


def grr_sample(values: np.ndarray, epsilon: float, d: int, rng: np.random.Generator) -> np.ndarray:
    """Each user's GRR report."""
    _check(epsilon, d)
    values = np.asarray(values)
    p = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
    keep = rng.random(values.size) < p
    other = (values + rng.integers(1, d, values.size)) % d   # uniform over the d − 1 other values
    return np.where(keep, values, other)
