"""Pieces shared by the room's ε-DP mechanisms (:mod:`~dpverify.pca.ppca_dp`,
:mod:`~dpverify.pca.corrected`, :mod:`~dpverify.pca.pca_ppdp`): the noise scale and release-size
guards, public-bounds normalisation, the Laplace mechanism on a symmetric matrix (upper triangle
noised, mirrored) and the sorted eigen-decomposition.

Example
-------
>>> import numpy as np
>>> lo, hi = check_bounds((np.zeros(2), np.ones(2) * 10), 2)
>>> public_normalise(np.array([[5.0, 12.0]]), lo, hi).tolist()
[[0.5, 1.0]]
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_budget, check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.proofdocs import proven

__all__ = ["MAX_BOUND", "MAX_NOISE_SCALE", "bounds_length", "check_bounds", "check_release_size", "noise_scale",
           "public_normalise", "sorted_eigh", "symmetric_laplace"]

#: Largest Laplace scale the room's float64 mechanisms accept: squares of noise up to ~1e150·40 and
#: their eigen-decompositions stay finite.  A smaller ε gives a useless release anyway.
MAX_NOISE_SCALE = 1e150

#: Largest |lower|, |upper| of public bounds: the normalised release (noise scales up to
#: :data:`MAX_NOISE_SCALE`) mapped back by lower + (upper − lower)·x stays finite in float64.
MAX_BOUND = 1e150


def noise_scale(numerator: float, eps_part: float, epsilon: float) -> float:
    """numerator / eps_part, refused with a ValueError naming ε when it is not a usable finite scale.

    ``numerator`` is a sensitivity (> 0), ``eps_part`` > 0 the share of ``epsilon`` spent on it; each is a
    finite real number (errors name the parameter and its value).

    Example
    -------
    >>> noise_scale(2.0, 0.5, 1.0)
    4.0
    >>> noise_scale(1.0, 1e-300, 1e-300)
    Traceback (most recent call last):
    ...
    ValueError: epsilon = 1e-300 is too small: the noise scale numerator / eps_part = 1 / 1e-300 = 1e+300 exceeds 1e+150, beyond float64 eigen-decomposition
    """
    num = check_real(numerator, "numerator", positive=True)
    check_epsilon(epsilon)
    share = check_real(eps_part, "eps_part", nonneg=True)
    if not share > 0:
        raise ValueError(f"epsilon = {epsilon!r} is too small: its share of the budget, eps_part = {eps_part!r}, "
                         "is 0 (a small epsilon's share underflows to 0)")
    b = num / share
    if not b <= MAX_NOISE_SCALE:
        raise ValueError(f"epsilon = {epsilon!r} is too small: the noise scale numerator / eps_part = {num:.6g} / "
                         f"{share:.6g} = {b:.3g} exceeds {MAX_NOISE_SCALE:.0e}, beyond float64 eigen-decomposition")
    return b


def check_release_size(reps: int, n: int, p: int) -> None:
    """Refuse (reps, n, p) releases beyond the memory budget (about four float64 copies); each a positive integer.

    Example
    -------
    >>> check_release_size(5, 100, 21) is None
    True
    """
    reps, n, p = check_positive_int(reps, "reps"), check_positive_int(n, "n"), check_positive_int(p, "p")
    check_budget(4 * 8.0 * reps * n * p + 4 * 8.0 * reps * p * p, f"reps = {reps} runs of {n}×{p}")


def _is_pair(bounds) -> bool:
    """A (lower, upper) pair: a 2-tuple/list or a 2-row array."""
    if isinstance(bounds, (tuple, list)):
        return len(bounds) == 2
    return isinstance(bounds, np.ndarray) and bounds.ndim == 2 and bounds.shape[0] == 2


def bounds_length(bounds) -> int:
    """Validate ``bounds`` on its own (no data yet): returns p; errors name ``bounds``.

    Example
    -------
    >>> bounds_length(([0, 0, 0], [1, 1, 2]))
    3
    """
    if not _is_pair(bounds):
        raise TypeError(f"bounds must be a pair (lower, upper) of arrays, got {type(bounds).__name__}")
    lo = check_finite_array(bounds[0], "bounds[0] (lower)", ndim=1)
    check_bounds(bounds, lo.shape[0])
    return lo.shape[0]


def check_bounds(bounds, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Public per-feature bounds ``(lower, upper)``, each of length p with lower < upper.

    Example
    -------
    >>> [b.tolist() for b in check_bounds(([0, 0], [1, 2]), 2)]
    [[0.0, 0.0], [1.0, 2.0]]
    >>> check_bounds(([0, 1], [1, 1]), 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: bounds must satisfy lower < upper; feature 1 has lower ...
    """
    if not _is_pair(bounds):
        raise TypeError(f"bounds must be a pair (lower, upper) of length-{p} arrays, got {type(bounds).__name__}")
    lo = check_finite_array(bounds[0], "bounds[0] (lower)", ndim=1)
    hi = check_finite_array(bounds[1], "bounds[1] (upper)", ndim=1)
    for name, v in (("lower", lo), ("upper", hi)):
        if v.shape != (p,):
            raise ValueError(f"bounds {name} must have length p = {p}, got {v.shape[0]}")
    bad = ~(lo < hi)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"bounds must satisfy lower < upper; feature {j} has lower {float(lo[j])!r}, upper {float(hi[j])!r}")
    wide = np.maximum(np.abs(lo), np.abs(hi)) > MAX_BOUND
    if wide.any():
        j = int(np.argmax(wide))
        raise ValueError(f"bounds must lie within ±{MAX_BOUND:.0e} (releases mapped back to the data's units stay finite); "
                         f"feature {j} has lower {float(lo[j])!r}, upper {float(hi[j])!r}")
    return lo, hi


@proven("pca/corrected_ppca_dp.md")
def public_normalise(X: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Map to [0, 1] with public bounds, clipping values outside them (data-independent map).

    ``X`` holds records as rows (1-d: one record); ``lo`` < ``hi`` have one entry per column, within
    ±:data:`MAX_BOUND`.

    Example
    -------
    >>> public_normalise(np.array([[-1.0, 2.0]]), np.zeros(2), np.full(2, 4.0)).tolist()
    [[0.0, 0.5]]
    """
    X = check_finite_array(X, "X")
    if X.ndim not in (1, 2) or X.shape[-1] < 1:
        raise ValueError(f"X must be 1- or 2-dimensional (records as rows) with at least 1 column, got shape {X.shape}")
    lo, hi = _lo_hi(lo, hi, X.shape[-1])
    return np.clip((X - lo) / (hi - lo), 0.0, 1.0)  # proof: public-normalise


def _lo_hi(lo, hi, p: int) -> tuple[np.ndarray, np.ndarray]:
    """``lo`` < ``hi``, each of length p and within ±MAX_BOUND (errors name ``lo``/``hi``)."""
    lo, hi = check_finite_array(lo, "lo", shape=(p,)), check_finite_array(hi, "hi", shape=(p,))
    bad = ~(lo < hi)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"lo < hi must hold; column {j} has lo {float(lo[j])!r}, hi {float(hi[j])!r}")
    for name, v in (("lo", lo), ("hi", hi)):
        if (np.abs(v) > MAX_BOUND).any():
            j = int(np.argmax(np.abs(v) > MAX_BOUND))
            raise ValueError(f"{name} must lie within ±{MAX_BOUND:.0e}, got {float(v[j])!r} at column {j}")
    return lo, hi


def symmetric_laplace(p: int, scale: float, reps: int, g: np.random.Generator) -> np.ndarray:
    """(reps, p, p) symmetric noise: i.i.d. Lap(scale) on the p(p+1)/2 upper-triangle entries.

    ``scale`` is in [0, :data:`MAX_NOISE_SCALE`]; ``g`` a ``numpy.random.Generator``; the (reps, p, p)
    arrays must fit the memory budget.

    Example
    -------
    >>> E = symmetric_laplace(3, 1.0, 2, np.random.default_rng(0))
    >>> E.shape, bool(np.allclose(E, np.swapaxes(E, -1, -2)))
    ((2, 3, 3), True)
    """
    p, reps = check_positive_int(p, "p"), check_positive_int(reps, "reps")
    scale = check_real(scale, "scale", nonneg=True)
    if scale > MAX_NOISE_SCALE:
        raise ValueError(f"scale must be <= {MAX_NOISE_SCALE:.0e} (beyond it the noise leaves float64), got {scale!r}")
    if not isinstance(g, np.random.Generator):
        raise TypeError(f"g must be a numpy.random.Generator, got {type(g).__name__}")
    check_budget(4 * 8.0 * reps * p * p, f"reps × p × p = {reps} × {p} × {p}")
    iu = np.triu_indices(p)
    E = np.zeros((reps, p, p))
    E[:, iu[0], iu[1]] = g.laplace(0.0, scale, size=(reps, iu[0].size))
    return E + np.swapaxes(E, -1, -2) - E * np.eye(p)


def sorted_eigh(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues in decreasing order with their eigenvectors, batched over leading axes.

    ``C``: finite symmetric matrices (only the lower triangle is read), shape (..., p, p); refused when the
    decomposition overflows float64.

    Example
    -------
    >>> lam, U = sorted_eigh(np.diag([1.0, 3.0, 2.0]))
    >>> lam.tolist(), np.abs(U[:, 0]).tolist()
    ([3.0, 2.0, 1.0], [0.0, 1.0, 0.0])
    """
    C = check_finite_array(C, "C")
    if C.ndim < 2 or C.shape[-1] != C.shape[-2] or C.shape[-1] < 1:
        raise ValueError(f"C must hold square matrices (shape (..., p, p) with p >= 1), got shape {C.shape}")
    lam, U = np.linalg.eigh(C)
    if not (np.isfinite(lam).all() and np.isfinite(U).all()):
        raise ValueError(f"C is too large for a float64 eigen-decomposition: its entries reach "
                         f"{float(np.abs(C).max()):.3g} and the eigenvalues overflow")
    return lam[..., ::-1], U[..., ::-1]
