"""PPCA-DP data publishing, Alg. 2 of Gu, Zhang and Song's paper, exactly as printed.

Alg. 2: steps 1–5 as Alg. 1 (min–max normalisation from the data, mean,
covariance, U_k, score matrix K = (X − E X) U_k, eq. 15); step 6 adds Laplace
noise to K (eq. 16, formula lost in extraction); steps 7–10 are Alg. 1's
posterior draw and x′ ~ N(W s + μ, σ² I) — with μ, σ², W and U_k computed from
the raw data, without noise.

Sensitivity (Thm 3, eqs. 17–18; the formulas were lost in extraction).  Our
reading of the surviving text "k‖(X(1) − X(2)) U_{p×k}‖₂ = k[…]" is that a
square-root sign was lost: ‖v‖₁ ≤ √k ‖v‖₂ for v ∈ ℝ^k, and for rows in [0, 1]^p
‖(x₁ − x₂) U_k‖₂ ≤ ‖x₁ − x₂‖₂ ≤ √p, so Δ₁ = √(k p) and each entry of K gets
Lap(√(k p)/ε).  The alternative reading without the root (Δ₁ = k√p) only adds
noise; ``sensitivity=`` lets a user choose any Δ₁.  Neither choice matters for
the verdict on Thm 3: the Gaussian part of the output (σ², μ, the discarded
directions) never passes through the Laplace noise (claim
``pca.thm3_ppca_dp_is_dp``, proof ``pca/thm3_counterexample.md``).

Privacy claim as the paper states it (Thm 3): "Algorithm PPCA-DP satisfies
ε-differential privacy."  It is refuted here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.validation import as_generator, check_epsilon, check_positive_int, check_real
from dpverify.pca.noise import check_release_size, noise_scale
from dpverify.pca.ppca import check_data, check_k, fit_ppca, minmax_normalise, sample_from_scores
from dpverify.proofdocs import proven

__all__ = ["PPCADP", "paper_sensitivity"]


@proven("pca/thm3_counterexample.md")
def paper_sensitivity(k: int, p: int) -> float:
    """Δ₁ = √(k p): ℓ1 bound on the change of one score row for rows in [0, 1]^p (our reading of eqs. 17–18).

    Example
    -------
    >>> paper_sensitivity(4, 9)
    6.0
    """
    p = check_positive_int(p, "p")
    k = check_k(k, p)
    return math.sqrt(k * p)  # proof: paper-sensitivity


@dataclass(frozen=True)
class PPCADP:
    """PPCA-DP (Gu, Zhang and Song's paper, Alg. 2): Laplace noise on the score matrix only.

    Parameters
    ----------
    k : number of principal components, 1..p.
    epsilon : the privacy budget the paper says the algorithm satisfies (Thm 3).
    sensitivity : Δ₁ of the score rows; None means :func:`paper_sensitivity`.

    Not differentially private: μ, σ², W, U_k and the min–max normalisation reach
    the output without noise (see module docstring).

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(size=(30, 3))
    >>> PPCADP(k=1, epsilon=0.5).fit_publish(X, rng=1).shape
    (30, 3)
    """

    k: int
    epsilon: float
    sensitivity: float | None = None

    def __post_init__(self):  # k <= p is checked when the data (and p) are known
        check_positive_int(self.k, "k")
        check_epsilon(self.epsilon)
        if self.sensitivity is not None:
            check_real(self.sensitivity, "sensitivity", positive=True)

    def fit_publish(self, X, rng=None) -> np.ndarray:
        """Publish X′ (n × p, units of X)."""
        return self.publish_many(X, 1, rng)[0]

    def publish_many(self, X, reps: int, rng=None) -> np.ndarray:
        """``reps`` independent runs of Alg. 2 on the same X, shape (reps, n, p)."""
        X = check_data(X)
        n, p = X.shape
        k = check_k(self.k, p)
        eps = check_epsilon(self.epsilon)
        delta1 = paper_sensitivity(k, p) if self.sensitivity is None else check_real(
            self.sensitivity, "sensitivity", positive=True)
        reps = check_positive_int(reps, "reps")
        check_release_size(reps, n, p)
        try:
            noise_scale(delta1, eps, self.epsilon)  # refuses ε whose scale overflows
        except ValueError as exc:
            if self.sensitivity is None:
                raise
            raise ValueError(f"sensitivity = {self.sensitivity!r} with {exc}") from None
        g = as_generator(rng)
        Xn, lo, span = minmax_normalise(X)                       # step 2 (data-dependent, no noise)
        fit = fit_ppca(Xn, k)                                    # steps 3-4 (μ, Σ, U_k: no noise)
        K = (Xn - fit.mean) @ fit.U_k                            # step 5, eq. (15)
        K_noisy = K + g.laplace(0.0, delta1 / eps, size=(reps, n, k))  # proof: score-noise
        return lo + span * sample_from_scores(fit, K_noisy, g)  # steps 7-10 with raw μ, σ², W
