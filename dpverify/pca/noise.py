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

from dpverify.validation import check_budget, check_finite_array
from dpverify.proofdocs import proven

__all__ = ["MAX_NOISE_SCALE", "bounds_length", "check_bounds", "check_release_size", "noise_scale",
           "public_normalise", "sorted_eigh", "symmetric_laplace"]

#: Largest Laplace scale the room's float64 mechanisms accept: squares of noise up to ~1e150·40 and
#: their eigen-decompositions stay finite.  A smaller ε gives a useless release anyway.
MAX_NOISE_SCALE = 1e150


def noise_scale(numerator: float, eps_part: float, epsilon: float) -> float:
    """numerator / eps_part, refused with a ValueError naming ε when it is not a usable finite scale.

    Example
    -------
    >>> noise_scale(2.0, 0.5, 1.0)
    4.0
    >>> noise_scale(1.0, 1e-300, 1e-300)
    Traceback (most recent call last):
    ...
    ValueError: epsilon = 1e-300 is too small: the noise scale 1e+300 exceeds 1e+150, beyond float64 eigen-decomposition
    """
    if not eps_part > 0:
        raise ValueError(f"epsilon = {epsilon!r} is too small: its share of the budget underflows to 0")
    b = numerator / eps_part
    if not b <= MAX_NOISE_SCALE:
        raise ValueError(f"epsilon = {epsilon!r} is too small: the noise scale {b:.3g} exceeds {MAX_NOISE_SCALE:.0e}, beyond float64 eigen-decomposition")
    return b


def check_release_size(reps: int, n: int, p: int) -> None:
    """Refuse (reps, n, p) releases beyond the memory budget (about four float64 copies).

    Example
    -------
    >>> check_release_size(5, 100, 21) is None
    True
    """
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
        raise ValueError(f"bounds must satisfy lower < upper; feature {j} has lower {lo[j]!r}, upper {hi[j]!r}")
    return lo, hi


@proven("pca/corrected_ppca_dp.md")
def public_normalise(X: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Map to [0, 1] with public bounds, clipping values outside them (data-independent map).

    Example
    -------
    >>> public_normalise(np.array([[-1.0, 2.0]]), np.zeros(2), np.full(2, 4.0)).tolist()
    [[0.0, 0.5]]
    """
    return np.clip((X - lo) / (hi - lo), 0.0, 1.0)  # proof: public-normalise


def symmetric_laplace(p: int, scale: float, reps: int, g: np.random.Generator) -> np.ndarray:
    """(reps, p, p) symmetric noise: i.i.d. Lap(scale) on the p(p+1)/2 upper-triangle entries.

    Example
    -------
    >>> E = symmetric_laplace(3, 1.0, 2, np.random.default_rng(0))
    >>> E.shape, bool(np.allclose(E, np.swapaxes(E, -1, -2)))
    ((2, 3, 3), True)
    """
    iu = np.triu_indices(p)
    E = np.zeros((reps, p, p))
    E[:, iu[0], iu[1]] = g.laplace(0.0, scale, size=(reps, iu[0].size))
    return E + np.swapaxes(E, -1, -2) - E * np.eye(p)


def sorted_eigh(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues in decreasing order with their eigenvectors, batched over leading axes.

    Example
    -------
    >>> lam, U = sorted_eigh(np.diag([1.0, 3.0, 2.0]))
    >>> lam.tolist(), np.abs(U[:, 0]).tolist()
    ([3.0, 2.0, 1.0], [0.0, 1.0, 0.0])
    """
    lam, U = np.linalg.eigh(C)
    return lam[..., ::-1], U[..., ::-1]
