"""The baseline "PCA-based PPDP" (Gu, Zhang and Song's paper, ref. [8]: Jiang, Ji, Wang, Mohammed, Cheng,
Ohno-Machado, *Differential-private data publishing through component analysis*,
Trans. Data Privacy 6(1):19–34, 2013).

Which reading is implemented, and why.  The full text of ref. [8] could not be
read here — only its abstract (ε-DP data publishing through PCA, compared with
the Laplace and exponential mechanisms).  Gu, Zhang and Song give no algorithm for [8]; its
§2.2 only says that adding noise to the raw data or to the covariance matrix hurts
utility.  We implement the standard two-stage "noisy components, then noisy
projection" scheme, with the budget split in two equal halves — an assumption,
not a transcription of [8]:

1. normalise every feature to [0, 1] (min–max from the data, as Gu, Zhang and Song's
   experiments do for all methods; with ``bounds=`` the map uses public bounds);
2. ε/2: A = (1/n) Xᵀ X (second-moment matrix) plus symmetric Laplace noise of scale
   (p(p+1)/2)/(n ε/2) on the upper triangle — replacing one row x by x′ with entries
   in [0, 1] changes each of the p(p+1)/2 upper entries of x xᵀ by at most 1;
3. Ũ_k = top-k eigenvectors of the noisy A (post-processing);
4. ε/2: Y = X Ũ_k plus Lap(√(k p)/(ε/2)) on every entry — one row of Y changes by
   (x − x′) Ũ_k, whose ℓ1 norm is ≤ √k ‖x − x′‖₂ ≤ √(k p);
5. publish X̂ = Ỹ Ũ_kᵀ mapped back to the data's units.

Privacy claim as its paper states it: ε-differential privacy.  With ``bounds``
given, steps 2–5 are ε-DP by sequential composition (replace-one neighbours,
n public).  With the default min–max normalisation (as the comparison in seed
001 runs it) the data-dependent min and max are also released without noise, so
the guarantee then holds only conditionally on them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.validation import as_generator, check_epsilon, check_positive_int
from dpverify.pca.noise import bounds_length, check_bounds, check_release_size, noise_scale, public_normalise, sorted_eigh, symmetric_laplace
from dpverify.pca.ppca import check_data, check_k, minmax_normalise

__all__ = ["PCABasedPPDP"]


@dataclass(frozen=True)
class PCABasedPPDP:
    """PCA-based PPDP baseline (Jiang et al. 2013 as read here; see module docstring).

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(size=(40, 3))
    >>> PCABasedPPDP(k=2, epsilon=1.0).fit_publish(X, rng=0).shape
    (40, 3)
    """

    k: int
    epsilon: float
    bounds: tuple | None = None

    def __post_init__(self):  # k <= p and the bounds' length are checked when the data are known
        check_positive_int(self.k, "k")
        check_epsilon(self.epsilon)
        if self.bounds is not None:
            bounds_length(self.bounds)

    def fit_publish(self, X, rng=None) -> np.ndarray:
        """Publish X̂ (n × p, units of X)."""
        return self.publish_many(X, 1, rng)[0]

    def publish_many(self, X, reps: int, rng=None) -> np.ndarray:
        """``reps`` independent runs on the same X, shape (reps, n, p)."""
        X = check_data(X)
        n, p = X.shape
        k = check_k(self.k, p)
        eps = check_epsilon(self.epsilon)
        reps = check_positive_int(reps, "reps")
        check_release_size(reps, n, p)
        b_cov = noise_scale(p * (p + 1) / 2, eps / 2, self.epsilon)
        b_proj = noise_scale(math.sqrt(k * p), eps / 2, self.epsilon)
        g = as_generator(rng)
        if self.bounds is None:
            Xn, lo, span = minmax_normalise(X)
        else:
            lo, hi = check_bounds(self.bounds, p)
            with np.errstate(over="ignore"):
                span = hi - lo
            if not np.isfinite(span).all():
                raise ValueError("bounds are too wide: upper − lower overflows float64")
            Xn = public_normalise(X, lo, hi)
        eps_cov = eps_proj = eps / 2                                        # budget split ε/2 + ε/2
        A = (Xn.T @ Xn + symmetric_laplace(p, b_cov, reps, g)) / n
        _, U = sorted_eigh(A)
        U_k = U[..., :k]                                                    # (reps, p, k)
        Y = Xn @ U_k + g.laplace(0.0, b_proj, size=(reps, n, k))
        with np.errstate(over="ignore", invalid="ignore"):
            out = lo + span * (Y @ np.swapaxes(U_k, -1, -2))
        if not np.isfinite(out).all():  # the noisy values, mapped back to the data's units, leave float64
            raise ValueError("bounds are too wide for float64: the published values, scaled back by "
                             "upper − lower, overflow (scale the data down)")
        return out
