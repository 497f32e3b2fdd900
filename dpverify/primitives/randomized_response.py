"""k-ary randomized response as a sampler: keep the true category with probability
e^ε/(e^ε + k − 1), otherwise report one of the other k − 1 uniformly (ε-LDP)."""

from __future__ import annotations

import math

import numpy as np

from dpverify.validation import as_generator, check_budget, check_counts, check_elements, check_epsilon, check_positive_int

__all__ = ["krr_matrix", "randomized_response"]


def _keep_other(k: int, eps: float) -> tuple[float, float]:
    """(e^ε, 1)/(e^ε + k − 1) computed with e^{−ε}, finite for every float ε > 0."""
    r = math.exp(-eps)  # in (0, 1]; 0 only when e^ε overflows, then keep = 1 exactly
    den = 1.0 + (k - 1) * r
    return 1.0 / den, r / den


def krr_matrix(k: int, epsilon: float) -> np.ndarray:
    """The k×k channel P[i, j] = Pr[report j | true i] of k-RR.

    Example
    -------
    >>> np.round(krr_matrix(2, math.log(3)), 6).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    k = check_positive_int(k, "k")
    eps = check_epsilon(epsilon)
    check_budget(8.0 * k * k, f"k = {k} (a k×k matrix)")
    keep, other = _keep_other(k, eps)
    P = np.full((k, k), other)
    np.fill_diagonal(P, keep)
    return P


def randomized_response(values, k: int, epsilon: float, rng=None) -> np.ndarray:
    """Privatise each value in {0..k−1} by k-RR, vectorised; returns int64 of the same shape.

    Example
    -------
    >>> randomized_response([0, 1, 2], 3, 1.0, rng=0).shape
    (3,)
    """
    k = check_positive_int(k, "k", maximum=2**62)
    eps = check_epsilon(epsilon)
    try:
        shape = np.shape(values)
    except ValueError:
        raise ValueError("values must be a (rectangular) array of integers in 0..k-1") from None
    check_elements(np.asarray(values) if not isinstance(values, np.ndarray) else values, "values")
    v = check_counts(np.ravel(values), "values")
    if (v >= k).any():
        raise ValueError(f"values must be in 0..{k - 1}, got {int(v[v >= k][0])}")
    g = as_generator(rng)
    keep = g.random(v.shape) < _keep_other(k, eps)[0]
    shift = g.integers(1, k, size=v.shape) if k > 1 else np.zeros_like(v)  # uniform over the others
    out = np.where(keep, v, (v + shift) % k)
    return out.reshape(shape).astype(np.int64)
