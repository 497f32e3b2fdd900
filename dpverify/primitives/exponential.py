"""The exponential mechanism on a finite output set (paper 002, section "exponential mechanism").

Output φ with probability ∝ exp(ε q(D, φ) / (2Δq)).  The factor 2 pays for the change
of the normaliser between neighbours; with exp(ε q / Δq) the mechanism is only 2ε-DP in
general (ε-DP when every score moves in the same direction, i.e. q is monotone).
"""

from __future__ import annotations

import numpy as np

from dpverify._validation import as_generator, check_epsilon, check_finite_array, check_real

__all__ = ["exponential_mechanism", "exponential_probabilities"]


def exponential_probabilities(scores, sensitivity: float, epsilon: float, *, factor: float = 2.0) -> np.ndarray:
    """Output law p_φ = exp(ε q_φ / (factor·Δq)) / Σ exp(...); ``factor=2`` is the ε-DP mechanism.

    Computed as a stable softmax.

    Example
    -------
    >>> exponential_probabilities([0.0, 0.0], 1.0, 1.0).tolist()
    [0.5, 0.5]
    """
    q = check_finite_array(scores, "scores", ndim=1)
    if q.size < 1:
        raise ValueError("scores must be non-empty")
    dq = check_real(sensitivity, "sensitivity", positive=True)
    eps = check_epsilon(epsilon)
    c = check_real(factor, "factor", positive=True)
    u = eps * q / (c * dq)  # proof: expmech-weights
    w = np.exp(u - u.max())
    return w / w.sum()


def exponential_mechanism(scores, sensitivity: float, epsilon: float, rng=None, size=None) -> np.ndarray:
    """Sample output indices of the ε-DP exponential mechanism (Gumbel-max trick, vectorised).

    argmax_φ (ε q_φ/(2Δq) + G_φ) with i.i.d. standard Gumbel G_φ has exactly the law
    :func:`exponential_probabilities`.

    Example
    -------
    >>> exponential_mechanism([1.0, 5.0, 2.0], 1.0, 1.0, rng=0, size=4).shape
    (4,)
    """
    p = exponential_probabilities(scores, sensitivity, epsilon)
    g = as_generator(rng)
    n = 1 if size is None else int(np.prod(size))
    logp = np.log(np.maximum(p, 1e-300))
    idx = np.argmax(logp + g.gumbel(size=(n, p.size)), axis=1)
    return idx[0] if size is None else idx.reshape(size)
