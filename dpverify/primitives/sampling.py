"""Noise samplers shared by every room.

``laplace(scale, size, rng)`` draws continuous Laplace noise;
``discrete_laplace(scale, size, rng)`` draws the two-sided geometric
distribution P(k) ∝ exp(−|k| / scale) on the integers, the integer analogue
used for integer-valued releases (no floating-point artefacts in outputs).
"""

from __future__ import annotations

import numpy as np

from dpverify._validation import as_generator, check_finite_array

__all__ = ["laplace", "discrete_laplace"]


def _scales(scale, name="scale") -> np.ndarray:
    if isinstance(scale, (str, bytes)) or np.asarray(scale).dtype.kind in "USOb":
        raise TypeError(f"{name} must be a positive real number or array of them, got {scale!r}")
    s = check_finite_array(scale, name)
    if (s <= 0).any():
        raise ValueError(f"{name} must be > 0, got {s[s <= 0].ravel()[0]!r}")
    return s


def laplace(scale, size=None, rng=None) -> np.ndarray:
    """Laplace(0, scale) noise; ``scale`` may be an array broadcast against ``size``.

    Example
    -------
    >>> laplace(1.0, 3, rng=np.random.default_rng(0)).shape
    (3,)
    """
    s = _scales(scale)
    g = as_generator(rng)
    return g.laplace(0.0, s, size=size)


def discrete_laplace(scale, size=None, rng=None) -> np.ndarray:
    """Two-sided geometric noise: P(K = k) = (1 − r)/(1 + r) · r^|k|, r = exp(−1/scale).

    Drawn as the difference of two i.i.d. geometric variables on {0, 1, ...}
    with success probability 1 − r; returned as int64.

    Example
    -------
    >>> discrete_laplace(2.0, 4, rng=np.random.default_rng(0)).dtype
    dtype('int64')
    """
    s = _scales(scale)
    g = as_generator(rng)
    p = -np.expm1(-1.0 / s)  # 1 - exp(-1/scale), accurate for large scale
    a = g.geometric(p, size=size)
    b = g.geometric(p, size=size)
    return (a - b).astype(np.int64)
