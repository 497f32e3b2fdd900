"""Noise samplers shared by every room.

``laplace(scale, size, rng)`` draws continuous Laplace noise;
``discrete_laplace(scale, size, rng)`` draws the two-sided geometric
distribution P(k) ∝ exp(−|k| / scale) on the integers, the integer analogue
used for integer-valued releases (no floating-point artefacts in outputs).
"""

from __future__ import annotations

import numpy as np

from dpverify._validation import as_generator, check_finite_array
from dpverify.proofdocs import proven

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


@proven("proofs/primitives/discrete_laplace_sampler.md")
def discrete_laplace(scale, size=None, rng=None) -> np.ndarray:
    """Two-sided geometric noise: P(K = k) = (1 − r)/(1 + r) · r^|k|, r = exp(−1/scale).

    Drawn as the difference of two i.i.d. geometric variables on {0, 1, ...}
    with success probability 1 − r, each as ``floor(scale · E)`` with E a
    standard exponential (P(floor(scale·E) ≥ m) = e^{−m/scale} = r^m); returned
    as int64.  Proof: ``proofs/primitives/discrete_laplace_sampler.md``.

    Example
    -------
    >>> discrete_laplace(2.0, 4, rng=np.random.default_rng(0)).dtype
    dtype('int64')
    >>> k = discrete_laplace(1.0, 200_000, rng=1)
    >>> r = np.exp(-1.0)
    >>> bool(abs(np.mean(k == 0) - (1 - r) / (1 + r)) < 0.005)
    True
    """
    s = _scales(scale)
    g = as_generator(rng)
    shape = np.broadcast_shapes(s.shape, ()) if size is None else size
    e1 = g.standard_exponential(size=shape)
    e2 = g.standard_exponential(size=shape)
    return (np.floor(s * e1) - np.floor(s * e2)).astype(np.int64)  # proof: dlap-sampler
