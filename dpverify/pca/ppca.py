"""PPCA data publishing (Gu, Zhang and Song's paper, Alg. 1) and the Tipping–Bishop machinery it rests on.

Alg. 1 as printed: normalise the data to [0, 1] (min–max, from the data); mean
and covariance (12–13); eigenvectors U_k of the k largest eigenvalues; scores
S = (X − E X) U_k (14); posterior s | x (Thm 2, eqs. 9–11); draw s, then
x′ ~ N(W s + μ, σ² I_p) (Thm 1, eq. 5); publish X′ (n × p).

Maximum-likelihood parameters (Tipping & Bishop 1999; the paper's eqs. 6–8 and
10–11 were lost in extraction, SPEC.md part C restates them):

    μ = sample mean,   σ² = mean of the p − k smallest eigenvalues,
    W = U_k (Λ_k − σ² I)^{1/2},   M = Wᵀ W + σ² I = Λ_k,
    s | x ~ N(M⁻¹ Wᵀ (x − μ), σ² M⁻¹).

Because Wᵀ(x − μ) = (Λ_k − σ²I)^{1/2} U_kᵀ (x − μ), the posterior mean is a
function of the score row only: E[s | x] = Λ_k⁻¹ (Λ_k − σ²I)^{1/2} S_i.  This is
where PPCA-DP (Alg. 2) substitutes the noisy scores.  The published data are
returned in the units of the input (the min–max map is inverted).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from dpverify.validation import as_generator, check_budget, check_finite_array, check_nonneg_int, check_positive_int
from dpverify.proofdocs import proven

__all__ = ["PPCA", "PPCAFit", "check_data", "check_k", "fit_ppca", "minmax_normalise", "sample_from_scores"]


def check_data(X, name: str = "X", *, min_rows: int = 2) -> np.ndarray:
    """A finite numeric 2-d data matrix (rows = records) with at least ``min_rows`` rows; a copy.

    Example
    -------
    >>> check_data([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    min_rows = check_nonneg_int(min_rows, "min_rows")
    try:
        raw = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
    except ValueError as exc:
        raise ValueError(f"{name} must be a rectangular 2-d array: {exc}") from None
    if raw.dtype.kind in "OUSV":
        for v in raw.ravel():
            if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.number)):
                raise TypeError(f"{name} must be numeric; found non-numeric entry {v!r} "
                                "(encode categorical columns first, as dpverify.datasets.load_adult does)")
    arr = check_finite_array(X, name, ndim=2)
    if arr.shape[0] < min_rows or arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least {min_rows} rows and 1 column, got shape {arr.shape}")
    return arr


def check_k(k, p: int) -> int:
    """Number of principal components: an integer in 1..p.

    Example
    -------
    >>> check_k(2, 5)
    2
    """
    k = check_positive_int(k, "k")
    p = check_positive_int(p, "p")
    if k > p:
        raise ValueError(f"k must be in 1..p = 1..{p}, got {k}")
    return k


def minmax_normalise(X: np.ndarray, name: str = "X") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Alg. 1/2 step 2: map every column to [0, 1] with its own min and max (data-dependent!).

    Returns ``(Xn, lo, span)`` with ``X = lo + span * Xn``; a constant column gets span 1.

    Example
    -------
    >>> Xn, lo, span = minmax_normalise(np.array([[1.0, 10.0], [3.0, 20.0]]))
    >>> Xn.tolist(), lo.tolist(), span.tolist()
    ([[0.0, 0.0], [1.0, 1.0]], [1.0, 10.0], [2.0, 10.0])
    """
    X = check_data(X, name, min_rows=1)
    lo = X.min(axis=0)
    with np.errstate(over="ignore"):
        span = X.max(axis=0) - lo
    if not np.isfinite(span).all():
        raise ValueError(f"{name} has a column whose range max − min overflows float64")
    span = np.where(span > 0, span, 1.0)
    return (X - lo) / span, lo, span


@dataclass(frozen=True)
class PPCAFit:
    """Tipping–Bishop maximum-likelihood PPCA of (normalised) data.

    ``eigvals`` are all p eigenvalues of the ML covariance (1/n) Σ (x − μ)(x − μ)ᵀ in
    decreasing order, ``U`` the matching orthonormal eigenvectors (columns).  The arrays
    may carry leading batch axes (one model per replicate, as the DP variants produce):
    mean (..., p), eigvals (..., p), U (..., p, p).

    Example
    -------
    >>> fit = fit_ppca(np.random.default_rng(0).uniform(size=(50, 3)), 2)
    >>> fit.W.shape, bool(np.isclose(fit.sigma2, fit.eigvals[2]))   # σ² = mean of the discarded eigenvalues
    ((3, 2), True)
    """

    mean: np.ndarray      # μ, shape (..., p)
    eigvals: np.ndarray   # λ_1 ≥ … ≥ λ_p, shape (..., p)
    U: np.ndarray         # eigenvectors as columns, shape (..., p, p)
    k: int

    @property
    def U_k(self) -> np.ndarray:
        return self.U[..., :, : self.k]

    @property
    def sigma2(self) -> np.ndarray:
        """σ² = mean of the p − k discarded eigenvalues (0 when k = p); shape (...)."""
        rest = self.eigvals[..., self.k:]
        return rest.mean(axis=-1) if rest.shape[-1] else np.zeros(rest.shape[:-1])  # proof: sigma2

    @property
    def W(self) -> np.ndarray:
        """W = U_k (Λ_k − σ² I)^{1/2} (eigenvalues below σ², possible only after noise, clip to 0)."""
        root = np.sqrt(np.maximum(self.eigvals[..., : self.k] - self.sigma2[..., None], 0.0))
        return self.U_k * root[..., None, :]  # proof: W

    @property
    def explained_variance_ratio(self) -> np.ndarray:
        lam = np.maximum(self.eigvals, 0.0)
        return lam / lam.sum(axis=-1, keepdims=True)


def fit_ppca(Xn: np.ndarray, k: int) -> PPCAFit:
    """Maximum-likelihood PPCA of the rows of ``Xn`` (no normalisation here).

    Example
    -------
    >>> import numpy as np
    >>> f = fit_ppca(np.random.default_rng(0).normal(size=(200, 3)) @ np.diag([3., 1., .1]), 2)
    >>> f.U_k.shape, round(float(f.sigma2), 2)
    ((3, 2), 0.01)
    """
    Xn = check_data(Xn, "Xn")
    k = check_k(k, Xn.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        mu = Xn.mean(axis=0)                           # eq. (12)
        C = (Xn - mu).T @ (Xn - mu) / Xn.shape[0]      # eq. (13), ML normalisation 1/n
    if not np.isfinite(C).all():
        raise ValueError("Xn is too large: its covariance overflows float64 (normalise the data first)")
    lam, U = np.linalg.eigh(C)
    order = np.argsort(lam)[::-1]
    return PPCAFit(mean=mu, eigvals=np.maximum(lam[order], 0.0), U=U[:, order], k=k)  # Σ is PSD: clip round-off


@proven("pca/ppca_model.md")
def sample_from_scores(fit: PPCAFit, K: np.ndarray, rng) -> np.ndarray:
    """Steps 6–9 of Alg. 1 (7–10 of Alg. 2): posterior draw s_i, then x′_i ~ N(W s_i + μ, σ² I).

    ``K`` holds score rows (..., n, k) — exact ones for PPCA, noisy ones for PPCA-DP; leading
    replicate axes give independent publications (and may match a batched ``fit``).

    Example
    -------
    >>> Xn = np.random.default_rng(0).uniform(size=(20, 3))
    >>> fit = fit_ppca(Xn, 3)   # k = p: σ² = 0, the draw returns the data exactly
    >>> K = (Xn - fit.mean) @ fit.U_k
    >>> bool(np.allclose(sample_from_scores(fit, K, 0), Xn))
    True
    """
    if not isinstance(fit, PPCAFit):
        raise TypeError(f"fit must be a PPCAFit (from fit_ppca), got {type(fit).__name__}")
    if isinstance(K, (str, bytes)) or K is None or np.ndim(K) < 2:
        raise TypeError(f"K must be an array of score rows of shape (..., n, {fit.k}), got {type(K).__name__}")
    check_budget(8 * int(np.prod(np.shape(K)[:-1], dtype=float)) * max(fit.mean.shape[-1], fit.k),
                 f"K with {np.shape(K)[-2]} rows")
    K = check_finite_array(K, "K")
    if K.shape[-1] != fit.k:
        raise ValueError(f"K must hold {fit.k} scores per row (shape (..., n, {fit.k})), got shape {K.shape}")
    g = as_generator(rng)
    lam_k = fit.eigvals[..., : fit.k]
    s2 = fit.sigma2[..., None]
    root = np.sqrt(np.maximum(lam_k - s2, 0.0))
    m_inv = np.divide(1.0, lam_k, out=np.zeros_like(lam_k), where=lam_k > 0)  # M = WᵀW + σ²I = Λ_k
    post_mean = K * (m_inv * root)[..., None, :]                               # eq. (9): M⁻¹Wᵀ(x − μ)
    s = post_mean + g.standard_normal(K.shape) * np.sqrt(s2 * m_inv)[..., None, :]  # proof: posterior
    xs = s @ np.swapaxes(fit.W, -1, -2) + fit.mean[..., None, :]                # eq. (5): W s + μ
    out = xs + g.standard_normal(xs.shape) * np.sqrt(s2)[..., None]            # proof: likelihood
    if not np.all(np.isfinite(out)):
        raise ValueError(f"K has scores too large for float64 (up to {float(np.max(np.abs(K))):.3g}): "
                         "the published rows overflow")
    return out


@dataclass(frozen=True)
class PPCA:
    """PPCA-based data publishing, Alg. 1 of Gu, Zhang and Song's paper (no differential privacy).

    Privacy claim as the paper states it: publishing X′ drawn from the fitted model
    "protects the privacy of the original data" (§2.1, no formal guarantee).  It does
    not: at k = p, σ² = 0 and X′ = X exactly; see claim ``pca.ppca_protects_privacy``.

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(1).normal(size=(50, 4))
    >>> Xp = PPCA(k=2).fit_publish(X, rng=0)
    >>> Xp.shape
    (50, 4)
    >>> bool(np.allclose(PPCA(k=4).fit_publish(X, rng=0), X))   # k = p republishes X itself
    True
    """

    k: int

    def __post_init__(self):  # k <= p is checked when the data (and p) are known
        check_positive_int(self.k, "k")

    def fit_publish(self, X, rng=None) -> np.ndarray:
        """Publish X′ (n × p, units of X) for the records in X."""
        return self.publish_many(X, 1, rng)[0]

    def publish_many(self, X, reps: int, rng=None) -> np.ndarray:
        """``reps`` independent publications of the same X, shape (reps, n, p)."""
        X = check_data(X)
        k = check_k(self.k, X.shape[1])
        reps = check_positive_int(reps, "reps")
        check_budget(4 * 8.0 * reps * X.shape[0] * X.shape[1], f"reps = {reps} runs of {X.shape[0]}×{X.shape[1]}")
        g = as_generator(rng)
        Xn, lo, span = minmax_normalise(X)
        fit = fit_ppca(Xn, k)
        K = (Xn - fit.mean) @ fit.U_k                     # eq. (14)
        Kr = np.broadcast_to(K, (reps,) + K.shape)
        return lo + span * sample_from_scores(fit, Kr, g)
