"""Pieces shared by the ε-DP mechanisms of the room: public-bounds normalisation and the
Laplace mechanism on a symmetric matrix (upper triangle noised, mirrored)."""

from __future__ import annotations

import numpy as np

from dpverify._validation import check_finite_array
from dpverify.proofdocs import proven


def check_bounds(bounds, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Public per-feature bounds ``(lower, upper)``, each of length p with lower < upper."""
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
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
