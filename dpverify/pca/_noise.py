"""Pieces shared by the ε-DP mechanisms of the room: public-bounds normalisation and the
Laplace mechanism on a symmetric matrix (upper triangle noised, mirrored)."""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_budget, check_finite_array
from dpverify.proofdocs import proven

#: Largest Laplace scale the room's float64 mechanisms accept: squares of noise up to ~1e150·40 and
#: their eigen-decompositions stay finite.  A smaller ε gives a useless release anyway.
MAX_NOISE_SCALE = 1e150


def noise_scale(numerator: float, eps_part: float, epsilon: float) -> float:
    """numerator / eps_part, refused with a ValueError naming ε when it is not a usable finite scale."""
    if not eps_part > 0:
        raise ValueError(f"epsilon = {epsilon!r} is too small: its share of the budget underflows to 0")
    b = numerator / eps_part
    if not b <= MAX_NOISE_SCALE:
        raise ValueError(f"epsilon = {epsilon!r} is too small: the noise scale {b:.3g} exceeds {MAX_NOISE_SCALE:.0e}, beyond float64 eigen-decomposition")
    return b


def check_release_size(reps: int, n: int, p: int) -> None:
    """Refuse (reps, n, p) releases beyond the memory budget (about four float64 copies)."""
    check_budget(4 * 8.0 * reps * n * p + 4 * 8.0 * reps * p * p, f"reps = {reps} runs of {n}×{p}")


def _is_pair(bounds) -> bool:
    """A (lower, upper) pair: a 2-tuple/list or a 2-row array."""
    if isinstance(bounds, (tuple, list)):
        return len(bounds) == 2
    return isinstance(bounds, np.ndarray) and bounds.ndim == 2 and bounds.shape[0] == 2


def bounds_length(bounds) -> int:
    """Validate ``bounds`` on its own (no data yet): returns p; errors name ``bounds``."""
    if not _is_pair(bounds):
        raise TypeError(f"bounds must be a pair (lower, upper) of arrays, got {type(bounds).__name__}")
    lo = check_finite_array(bounds[0], "bounds[0] (lower)", ndim=1)
    check_bounds(bounds, lo.shape[0])
    return lo.shape[0]


def check_bounds(bounds, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Public per-feature bounds ``(lower, upper)``, each of length p with lower < upper."""
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


@proven("proofs/pca/corrected_ppca_dp.md")
def public_normalise(X: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Map to [0, 1] with public bounds, clipping values outside them (data-independent map)."""
    return np.clip((X - lo) / (hi - lo), 0.0, 1.0)  # proof: public-normalise


def symmetric_laplace(p: int, scale: float, reps: int, g: np.random.Generator) -> np.ndarray:
    """(reps, p, p) symmetric noise: i.i.d. Lap(scale) on the p(p+1)/2 upper-triangle entries."""
    iu = np.triu_indices(p)
    E = np.zeros((reps, p, p))
    E[:, iu[0], iu[1]] = g.laplace(0.0, scale, size=(reps, iu[0].size))
    return E + np.swapaxes(E, -1, -2) - E * np.eye(p)


def sorted_eigh(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues in decreasing order with their eigenvectors, batched over leading axes."""
    lam, U = np.linalg.eigh(C)
    return lam[..., ::-1], U[..., ::-1]
