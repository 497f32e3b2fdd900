"""A PPCA-DP that is ε-differentially private: every data-dependent quantity is noised.

Alg. 2 of Gu, Zhang and Song's paper releases, without noise, the min–max normalisation, μ, σ²,
W and U_k (see ``pca/thm3_counterexample.md``).  The corrected variant
replaces each of them by a differentially private estimate and splits ε:

1. normalise with **public** bounds (lower, upper) to [0, 1], clipping outliers;
2. ε_μ: μ̃ = (Σ_i x_i + Lap(p/ε_μ)^p)/n, clipped to [0, 1]^p (ℓ1 sensitivity of the
   sum under replacing one row: ‖x − x′‖₁ ≤ p);
3. ε_Σ: S̃ = Σ_i x_i x_iᵀ + symmetric Laplace of scale (p(p+1)/2)/ε_Σ on the upper
   triangle; Σ̃ = S̃/n − μ̃μ̃ᵀ; eigenvalues λ̃ (clipped at 0) and eigenvectors Ũ;
   σ̃² and W̃ follow from them by the Tipping–Bishop formulas (post-processing);
4. ε_K: K̃ = (X − μ̃) Ũ_k + Lap(√(k p)/ε_K) entrywise (given μ̃ and Ũ, one row of
   K changes by (x − x′) Ũ_k, ℓ1 norm ≤ √k ‖x − x′‖₂ ≤ √(k p));
5. posterior draw and x′ ~ N(W̃ s + μ̃, σ̃² I) as in Alg. 1 (post-processing), then
   back to the data's units with the public bounds.

ε = ε_μ + ε_Σ + ε_K by sequential composition (replace-one neighbours, n public).
Proof: ``pca/corrected_ppca_dp.md``.

Example
-------
>>> import numpy as np
>>> X = np.random.default_rng(0).uniform(size=(60, 4))
>>> m = CorrectedPPCADP(k=2, epsilon=1.0, bounds=(np.zeros(4), np.ones(4)))
>>> m.fit_publish(X, rng=0).shape
(60, 4)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.validation import as_generator, check_epsilon, check_finite_array, check_positive_int
from dpverify.pca.noise import bounds_length, check_bounds, check_release_size, noise_scale, public_normalise, sorted_eigh, symmetric_laplace
from dpverify.pca.ppca import PPCAFit, check_data, check_k, sample_from_scores

__all__ = ["CorrectedPPCADP", "DEFAULT_SPLIT"]

#: fractions of ε spent on (μ, second moments, scores)
DEFAULT_SPLIT = (0.1, 0.3, 0.6)


def _check_split(split) -> tuple[float, float, float]:
    s = check_finite_array(split, "split", ndim=1)
    if s.shape != (3,) or (s <= 0).any() or abs(s.sum() - 1.0) > 1e-9:
        raise ValueError(f"split must be 3 positive fractions summing to 1, got {split!r}")
    return float(s[0]), float(s[1]), float(s[2])


@dataclass(frozen=True)
class CorrectedPPCADP:
    """ε-DP PPCA publishing (corrected Alg. 2): noise on μ, on the second moments and on the scores.

    Parameters
    ----------
    k : components, 1..p.
    epsilon : total budget.
    bounds : public (lower, upper) per feature; e.g. ``dpverify.datasets.ADULT_BOUNDS``.
    split : fractions of ε for (μ, Σ, K); default :data:`DEFAULT_SPLIT`.

    Example
    -------
    >>> X = np.random.default_rng(0).uniform(size=(40, 3))
    >>> CorrectedPPCADP(k=2, epsilon=1.0, bounds=(np.zeros(3), np.ones(3))).fit_publish(X, rng=0).shape
    (40, 3)
    """

    k: int
    epsilon: float
    bounds: tuple
    split: tuple = DEFAULT_SPLIT

    def __post_init__(self):  # k <= p and the bounds' length are checked when the data are known
        check_positive_int(self.k, "k")
        check_epsilon(self.epsilon)
        _check_split(self.split)
        bounds_length(self.bounds)

    def fit_publish(self, X, rng=None) -> np.ndarray:
        """Publish X′ (n × p, units of X)."""
        return self.publish_many(X, 1, rng)[0]

    def publish_many(self, X, reps: int, rng=None) -> np.ndarray:
        """``reps`` independent runs on the same X, shape (reps, n, p)."""
        X = check_data(X)
        n, p = X.shape
        k = check_k(self.k, p)
        eps = check_epsilon(self.epsilon)
        lo, hi = check_bounds(self.bounds, p)
        f_mu, f_cov, f_k = _check_split(self.split)
        reps = check_positive_int(reps, "reps")
        check_release_size(reps, n, p)
        g = as_generator(rng)
        Xn = public_normalise(X, lo, hi)                                              # step 1
        e_mu, e_cov, e_k = f_mu * eps, f_cov * eps, f_k * eps
        for num, share in ((p, e_mu), (p * (p + 1) / 2, e_cov), (math.sqrt(k * p), e_k)):
            noise_scale(num, share, self.epsilon)  # refuses ε whose shares underflow or scales overflow
        mu = (Xn.sum(axis=0) + g.laplace(0.0, p / e_mu, size=(reps, p))) / n         # proof: noisy-mean
        mu = np.clip(mu, 0.0, 1.0)
        S = Xn.T @ Xn + symmetric_laplace(p, p * (p + 1) / 2 / e_cov, reps, g)       # proof: noisy-moments
        C = S / n - mu[:, :, None] * mu[:, None, :]
        lam, U = sorted_eigh(C)
        fit = PPCAFit(mean=mu, eigvals=np.maximum(lam, 0.0), U=U, k=k)
        K = np.einsum("rnp,rpk->rnk", Xn[None, :, :] - mu[:, None, :], fit.U_k)
        K = K + g.laplace(0.0, math.sqrt(k * p) / e_k, size=(reps, n, k))           # proof: noisy-scores
        return lo + (hi - lo) * sample_from_scores(fit, K, g)                        # post-processing only
