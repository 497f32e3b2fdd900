"""The Laplace mechanism and its integer analogue (the survey (Zhu et al.), section "Laplace mechanism").

M(D) = f(D) + Lap(Δf / ε) is ε-DP for a query f with ℓ1 sensitivity Δf: the density
ratio of the outputs on neighbours is exp(ε(|x − f(D')| − |x − f(D)|)/Δf) ≤ e^{ε|f(D) − f(D')|/Δf}
≤ e^ε (proof: ``survey/laplace_dp.md``).  The geometric mechanism adds
two-sided geometric noise P(k) ∝ exp(−ε|k|/Δf) to an integer-valued query; the same
argument holds term by term on the integers.

An empty ``value`` (a vector query with no answers) is valid for every mechanism here: the
release is an empty array of the output type (float64, or int64 for the geometric mechanism),
after the other parameters are checked; it reveals nothing and costs no privacy.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpverify.validation import as_generator, check_epsilon, check_finite_array, check_real, check_size
from dpverify.primitives.sampling import MAX_DISCRETE_SCALE, MAX_LAPLACE_SCALE, discrete_laplace, laplace
from dpverify.proofdocs import proven

__all__ = ["geometric_mechanism", "laplace_mechanism", "laplace_scale", "safe_laplace_mechanism"]


def _check_value(value) -> np.ndarray:
    """The true answer as a float array.  An empty vector (a query with no answers) is valid: its
    release is an empty array, which reveals nothing and costs no privacy."""
    return check_finite_array(value, "value")


def _empty(v: np.ndarray, size, dtype) -> np.ndarray | None:
    """The release of an empty ``value`` (``size`` must then broadcast with it), else None."""
    if v.size:
        return None
    return np.empty(check_size(size, "size", broadcast=v.shape, itemsize=0) if size is not None else v.shape, dtype)


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """The noise scale b = Δf / ε of the ε-DP Laplace mechanism, rounded up: the float returned is the
    smallest one ≥ Δf/ε exactly, so the loss Δf/b never exceeds ε (Δf/ε rounded to nearest can fall
    below Δf/ε by half an ulp: Δf = 1, ε = 0.7 gave a loss 2.9e-17 above ε).

    Example
    -------
    >>> laplace_scale(2.0, 0.5)
    4.0
    >>> from fractions import Fraction
    >>> Fraction(laplace_scale(1.0, 0.7)) * Fraction(0.7) >= 1
    True

    Raises ``ValueError`` naming ε when Δf/ε overflows (ε tiny) or underflows to 0 (ε huge).
    """
    d = check_real(sensitivity, "sensitivity", positive=True)
    eps = check_epsilon(epsilon)
    b = d / eps
    if math.isinf(b):
        raise ValueError(f"epsilon = {eps!r} is too small for sensitivity {d!r}: the noise scale sensitivity/epsilon overflows float64")
    if b == 0.0:
        raise ValueError(f"epsilon = {eps!r} is too large for sensitivity {d!r}: the noise scale sensitivity/epsilon underflows to 0")
    if Fraction(b) * Fraction(eps) < Fraction(d):  # rounded down: one step up makes b ≥ Δf/ε exactly
        b = math.nextafter(b, math.inf)
    return b


@proven("survey/laplace_dp.md")
def laplace_mechanism(value, sensitivity: float, epsilon: float, rng=None, size=None) -> np.ndarray:
    """f(D) + Lap(Δf/ε), independently per entry of ``value`` (or ``size`` draws of a scalar).

    Parameters
    ----------
    value : the true answer f(D) (scalar or array; not mutated; an empty array gives an empty release)
    sensitivity : ℓ1 sensitivity Δf of the whole vector query (> 0)
    epsilon : ε > 0
    rng : numpy Generator, int seed or None
    size : output shape when ``value`` is to be broadcast (default: value's shape).  Each entry
        is an independent run on the same ``value`` (what an auditor needs): publishing a batch
        of ``size`` runs costs size·ε (sequential composition), and their mean tends to ``value``.

    Example
    -------
    >>> laplace_mechanism([10.0, 3.0], 1.0, 1.0, rng=0).shape
    (2,)
    """
    v = _check_value(value)
    b = laplace_scale(sensitivity, epsilon)
    if b > MAX_LAPLACE_SCALE:
        raise ValueError(f"sensitivity/epsilon = {b:.3g} is too large a Laplace scale (over 1e305, draws overflow float64)")
    if (empty := _empty(v, size, float)) is not None:
        return empty
    shape = check_size(size, "size", broadcast=v.shape)
    return v + laplace(b, shape, as_generator(rng))  # proof: laplace-mech


def geometric_mechanism(value, sensitivity: int, epsilon: float, rng=None, size=None) -> np.ndarray:
    """Integer f(D) + two-sided geometric noise with P(k) ∝ exp(−ε|k|/Δf); int64 outputs.

    The noise is exact at every scale (:func:`~dpverify.primitives.sampling.discrete_laplace`);
    Δf/ε must be at most 2^57 and ``|value|`` below 2^62 so that outputs fit int64.  ``size``: as in
    :func:`laplace_mechanism`, independent runs on the same value, size·ε for the batch.  An empty
    ``value`` gives an empty int64 release.

    Example
    -------
    >>> geometric_mechanism([5, 7], 1, 1.0, rng=0).dtype
    dtype('int64')
    """
    v = _check_value(value)
    if (v != np.round(v)).any():
        raise ValueError(f"value must be integer-valued, got {v[v != np.round(v)].ravel()[0]!r}")
    if (np.abs(v) >= 2.0**62).any():
        raise ValueError(f"value must be below 2^62 in absolute value (int64 outputs), got {v[np.abs(v) >= 2.0**62].ravel()[0]!r}")
    b = laplace_scale(sensitivity, epsilon)
    if b > MAX_DISCRETE_SCALE:
        raise ValueError(
            f"epsilon = {epsilon!r} is too small for sensitivity {sensitivity!r}: the noise scale "
            f"sensitivity/epsilon = {b:.4g} exceeds 2^57, beyond int64 outputs"
        )
    if (empty := _empty(v, size, np.int64)) is not None:
        return empty
    shape = check_size(size, "size", broadcast=v.shape)
    noise = discrete_laplace(b, shape, as_generator(rng))
    return _add_saturating(v.astype(np.int64), noise)


def _add_saturating(k: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """k + noise in int64, the exact sum clipped to the int64 range.

    |k| < 2^62, so int64 overflow needs |noise| ≥ 2^62 (probability < e^{-32} per draw at the
    largest scale 2^57); then the exact sum is computed in Python ints and saturated.  Clipping
    is a fixed function of the exact integer release: post-processing, no privacy cost (a
    raise would depend on the data and leak).
    """
    out = k + noise
    big = np.abs(noise) >= 2**62
    if big.any():
        kb = np.broadcast_to(k, noise.shape)
        for i in zip(*np.nonzero(big)):
            out[i] = min(max(int(kb[i]) + int(noise[i]), -(2**63)), 2**63 - 1)
    return out


def _grid_sensitivity(sensitivity: float, grid: float, entries: int) -> int:
    """max ‖rint(a/g) − rint(a'/g)‖₁ over ‖a − a'‖₁ ≤ Δ with ``entries`` coordinates: ⌊Δ/g⌋ + m.

    Each coordinate satisfies |rint(x) − rint(y)| ≤ ⌈|x − y|⌉ < |x − y| + 1, so the integer
    total is < Δ/g + m, i.e. ≤ ⌈Δ/g⌉ + m − 1 ≤ ⌊Δ/g⌋ + m.
    """
    return math.floor(sensitivity / grid) + entries


@proven("audit/auditor_fp.md")
def safe_laplace_mechanism(value, sensitivity: float, epsilon: float, rng=None, size=None, *, grid: float = 2.0**-10):
    """ε-DP Laplace-type release without floating-point leaks: outputs on the grid g·ℤ.

    k = rint(f(D)/g) (exact: g is a power of two), K = ⌊Δf/g⌋ + m bounds ‖k − k'‖₁ on
    neighbours for an m-entry query of ℓ1 sensitivity Δf (each entry's rounding can add less
    than one grid step: ``Σ|rint(a_i) − rint(a'_i)| < Δf/g + m``), and the release is (k + N)·g
    with N two-sided geometric of scale K/ε per entry, drawn exactly at every scale
    (:func:`~dpverify.primitives.sampling.discrete_laplace`), and k + N an exact int64: the
    set of reachable outputs does not depend on D (the textbook float mechanism's flaw,
    Mironov 2012; see :mod:`dpverify.audit.floating_point`).  When ``|k + N| ≥ 2^53`` the float
    output is the nearest double to (k + N)·g, a deterministic function of the exact integer
    release (post-processing: no privacy cost).  Noise scale in value units: (Δf + m·g)/ε at
    most, so choose g ≪ Δf/m for long vectors.  (K = ⌊Δf/g⌋ + 1, right for a scalar, is not
    enough for m ≥ 3: three entries changed by (102.25, 102.25, 819.5)·g, ℓ1 = Δf = 1 at
    g = 2⁻¹⁰, round to a change of 1026 > 1025 grid steps;
    ``tests/primitives/test_prim_safe_vector.py``.)

    ``size``: independent runs on the same ``value`` (what an auditor needs); publishing all
    of them is size·ε-DP by sequential composition, and their mean converges to ``value``.  An
    empty ``value`` gives an empty release.

    Example
    -------
    >>> x = safe_laplace_mechanism([10.3], 1.0, 0.5, rng=0)
    >>> bool((x * 2**10 == np.rint(x * 2**10)).all())
    True
    """
    v = _check_value(value)
    d = check_real(sensitivity, "sensitivity", positive=True)
    eps = check_epsilon(epsilon)
    g = check_real(grid, "grid", positive=True)
    if not d / g < 2.0**62:
        raise ValueError(f"grid = {g!r} is too fine for sensitivity {d!r}: sensitivity/grid must be < 2^62")
    if math.frexp(g)[0] != 0.5:
        raise ValueError(f"grid must be a power of two, got {grid!r}")
    k = np.rint(v / g)  # proof: safe-round
    if np.abs(k).max(initial=0) >= 2.0**53:
        raise ValueError(f"value/grid too large for an exact release on grid {g!r}: |value| must be < 2^53·grid")
    K = _grid_sensitivity(d, g, max(v.size, 1))  # proof: safe-sensitivity
    scale = K / eps
    if not scale <= MAX_DISCRETE_SCALE:
        raise ValueError(
            f"epsilon = {eps!r} is too small for sensitivity {d!r} on grid {g!r}: the integer noise scale "
            f"(⌊sensitivity/grid⌋ + m)/epsilon = {scale:.4g} exceeds 2^57 (use a coarser grid or a larger epsilon)"
        )
    if (empty := _empty(v, size, float)) is not None:
        return empty
    shape = check_size(size, "size", broadcast=v.shape)
    N = discrete_laplace(scale, shape, as_generator(rng))
    m = k.astype(np.int64) + N  # proof: safe-noise
    m = _add_saturating(k.astype(np.int64), N) if (np.abs(N) >= 2**62).any() else m  # int64-safe, see _add_saturating
    return np.ldexp(m.astype(np.float64), math.frexp(g)[1] - 1)  # m·g, rounded once: post-processing of m
