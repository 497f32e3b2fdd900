"""The Laplace mechanism and its integer analogue (seed 002, "拉普拉斯机制").

M(D) = f(D) + Lap(Δf / ε) is ε-DP for a query f with ℓ1 sensitivity Δf: the density
ratio of the outputs on neighbours is exp(ε(|x − f(D')| − |x − f(D)|)/Δf) ≤ e^{ε|f(D) − f(D')|/Δf}
≤ e^ε (proof: ``proofs/primitives/laplace_dp.md``).  The geometric mechanism adds
two-sided geometric noise P(k) ∝ exp(−ε|k|/Δf) to an integer-valued query; the same
argument holds term by term on the integers.
"""

from __future__ import annotations

import numpy as np

from dpverify._validation import as_generator, check_epsilon, check_finite_array, check_real
from dpverify.primitives.sampling import discrete_laplace, laplace

__all__ = ["geometric_mechanism", "laplace_mechanism", "laplace_scale"]


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """The noise scale b = Δf / ε of the ε-DP Laplace mechanism.

    Example
    -------
    >>> laplace_scale(2.0, 0.5)
    4.0
    """
    return check_real(sensitivity, "sensitivity", positive=True) / check_epsilon(epsilon)


def laplace_mechanism(value, sensitivity: float, epsilon: float, rng=None, size=None) -> np.ndarray:
    """f(D) + Lap(Δf/ε), independently per entry of ``value`` (or ``size`` draws of a scalar).

    Parameters
    ----------
    value : the true answer f(D) (scalar or array; not mutated)
    sensitivity : ℓ1 sensitivity Δf of the whole vector query (> 0)
    epsilon : ε > 0
    rng : numpy Generator, int seed or None
    size : output shape when ``value`` is to be broadcast (default: value's shape)

    Example
    -------
    >>> laplace_mechanism([10.0, 3.0], 1.0, 1.0, rng=0).shape
    (2,)
    """
    v = check_finite_array(value, "value")
    b = laplace_scale(sensitivity, epsilon)
    shape = v.shape if size is None else size
    return v + laplace(b, shape, as_generator(rng))  # proof: laplace-mech


def geometric_mechanism(value, sensitivity: int, epsilon: float, rng=None, size=None) -> np.ndarray:
    """Integer f(D) + two-sided geometric noise with P(k) ∝ exp(−ε|k|/Δf); int64 outputs.

    Example
    -------
    >>> geometric_mechanism([5, 7], 1, 1.0, rng=0).dtype
    dtype('int64')
    """
    v = check_finite_array(value, "value")
    if (v != np.round(v)).any():
        raise ValueError(f"value must be integer-valued, got {v[v != np.round(v)].ravel()[0]!r}")
    b = laplace_scale(sensitivity, epsilon)
    shape = v.shape if size is None else size
    return v.astype(np.int64) + discrete_laplace(b, shape, as_generator(rng))
