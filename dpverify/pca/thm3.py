"""Theorem 3 of Gu, Zhang and Song's paper ("PPCA-DP satisfies ε-differential privacy") under the microscope.

Reading Alg. 2: the Laplace noise goes on the score matrix K only.  The mean μ,
the noise variance σ², the loading matrix W (hence U_k and the eigenvalues)
and the min–max normalisation are computed from the raw data and reach the
output without noise.  In particular the output's component along the
*discarded* principal directions is pure Gaussian noise N(μ, σ² I) — it never
meets the Laplace noise — and its mean and variance are raw statistics.

This module builds neighbouring data sets that expose this, and computes the
resulting privacy loss exactly:

* :func:`gaussian_pair`: p = 2, k = 1, both data sets symmetric under
  x₁ ↦ 1 − x₁ so that the normalised covariance is diagonal with the larger
  variance on feature 1.  Then every published value of feature 2 is exactly
  N(x̄₂, s₂²) (sample mean and ML variance of column 2, original units), for any
  ε and any Laplace scale.  Replacing one record changes (x̄₂, s₂²), and two
  Gaussians with different variances have unbounded privacy loss.
* :func:`degenerate_pair`: D lies on the line x₁ = x₂ (σ² = 0), so every published
  row lies on that line; D′ moves one record off it, and then no published row
  does (with probability 1).  δ(ε) = 1 for every ε.
* :func:`adult_pair`: real data — a seeded subsample of UCI Adult and the same subsample
  with one record's capital-gain set to 99,999 (a value that occurs in Adult).  The min–max
  normalisation is computed from the raw data, so the spread of every published
  capital-gain column scales with the raw maximum (:func:`column_spread` observes it).
* :func:`flip_pair`: two neighbours whose top principal direction flips from e₁
  to e₂, so the *score matrix itself* changes by O(n) in ℓ1 — the sensitivity
  argument (17–18) ignores that U_k and E X depend on the data.

Proof: ``pca/thm3_counterexample.md``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

from dpverify.validation import (check_budget, check_epsilon, check_finite_array, check_nonneg_int, check_positive_int,
                                 check_real)
from dpverify.pca.ppca import check_data, check_k, fit_ppca, minmax_normalise
from dpverify.proofdocs import proven

__all__ = [
    "adult_pair",
    "column_spread",
    "degenerate_pair",
    "feature2_law",
    "flip_pair",
    "gaussian_hockey_stick",
    "gaussian_pair",
    "output_coordinate",
    "score_change_l1",
]


def gaussian_pair(a: float = 0.01, b: float = 0.4) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours D, D′ (10 × 2) differing in the last record: (½, ½) versus (½, ½ + b).

    D = {(0, ½)², (1, ½)², (½, ½ − a), (½, ½ + a), (½, ½)⁴}.  Both are symmetric under
    x₁ ↦ 1 − x₁ (so cov₁₂ = 0), and feature 1 has the larger normalised variance.

    Example
    -------
    >>> D, Dp = gaussian_pair()
    >>> D.shape, int((D != Dp).any(axis=1).sum())
    ((10, 2), 1)
    """
    a = check_real(a, "a", positive=True)
    b = check_real(b, "b", positive=True)
    rows = [(0, .5), (0, .5), (1, .5), (1, .5), (.5, .5 - a), (.5, .5 + a), (.5, .5), (.5, .5), (.5, .5), (.5, .5)]
    D = np.array(rows, dtype=float)
    Dp = D.copy()
    Dp[-1, 1] = 0.5 + b
    return D, Dp


def degenerate_pair() -> tuple[np.ndarray, np.ndarray]:
    """D on the diagonal x₁ = x₂ (rank-one covariance, σ² = 0 at k = 1); D′ moves one record off it.

    Example
    -------
    >>> D, Dp = degenerate_pair()
    >>> bool((D[:, 0] == D[:, 1]).all()), bool((Dp[:, 0] == Dp[:, 1]).all())
    (True, False)
    """
    D = np.array([(0, 0), (1, 1), (.5, .5), (.25, .25), (.75, .75)], dtype=float)
    Dp = D.copy()
    Dp[3] = (.25, .75)
    return D, Dp


def flip_pair(m: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours (4m × 2) whose first principal direction is mostly e₂ for D and mostly e₁ for D′.

    The four corners of the unit square m times each, with one corner (0, 0) replaced by
    (½, 0) in D and by (0, ½) in D′: shrinking one coordinate's spread decides the top
    direction.

    Example
    -------
    >>> D, Dp = flip_pair(5)
    >>> D.shape, int((D != Dp).any(axis=1).sum())
    ((20, 2), 1)
    """
    m = check_positive_int(m, "m")
    if m < 2:
        raise ValueError(f"m must be an integer >= 2, got {m!r}")
    check_budget(2 * 64.0 * m, f"m = {m} (two 4m × 2 matrices)")
    corners = np.array([(0, 0), (0, 1), (1, 0), (1, 1)], dtype=float)
    D = np.tile(corners, (m, 1))
    Dp = D.copy()
    D[0] = (0.5, 0.0)
    Dp[0] = (0.0, 0.5)
    return D, Dp


@proven("pca/thm3_counterexample.md")
def feature2_law(X) -> tuple[float, float]:
    """(mean, variance) of every published feature-2 value of PPCA / PPCA-DP at k = 1, p = 2.

    Valid when the min–max-normalised covariance is diagonal with λ₁ > λ₂ (checked):
    then U₁ = ±e₁, W ∝ e₁, and feature 2 of x′ = W s + μ + ξ is μ₂ + ξ₂ ~ N(μ₂, σ²),
    σ² = λ₂, which in original units is N(x̄₂, s₂²) with s₂² the ML variance of column 2.

    Example
    -------
    >>> D, _ = gaussian_pair()
    >>> [round(v, 6) for v in feature2_law(D)]
    [0.5, 2e-05]
    """
    X = check_data(X)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns, got {X.shape[1]}")
    Xn, _, _ = minmax_normalise(X)
    C = np.cov(Xn.T, bias=True)
    if abs(C[0, 1]) > 1e-12 or not C[0, 0] > C[1, 1]:
        raise ValueError(f"normalised covariance must be diagonal with the larger variance first, got {C.tolist()}")
    return float(X[:, 1].mean()), float(X[:, 1].var())  # proof: feature2-law


@proven("pca/thm3_counterexample.md")
def gaussian_hockey_stick(m1: float, v1: float, m2: float, v2: float, epsilon: float) -> float:
    """Exact δ(ε) = sup_S P₁(S) − e^ε P₂(S) for P₁ = N(m₁, v₁), P₂ = N(m₂, v₂) on ℝ.

    The optimal S = {t : ln p₁(t) − ln p₂(t) > ε} is where a quadratic a t² + b t + c is
    positive; its probabilities come from normal CDFs.

    Example
    -------
    >>> round(gaussian_hockey_stick(0.0, 1.0, 1.0, 1.0, 0.0), 6)   # TV distance = 2Φ(1/2) − 1
    0.382925
    """
    m1, m2 = check_real(m1, "m1"), check_real(m2, "m2")
    v1, v2 = check_real(v1, "v1", positive=True), check_real(v2, "v2", positive=True)
    eps = check_real(epsilon, "epsilon")
    for name, mv in (("m1", m1), ("m2", m2)):
        if abs(mv) > 1e150:
            raise ValueError(f"{name} must be at most 1e150 in absolute value (its square enters the log-ratio), got {mv!r}")
    for name, vv in (("v1", v1), ("v2", v2)):
        if not 1e-150 <= vv <= 1e150:
            raise ValueError(f"{name} must be in [1e-150, 1e150] (its reciprocal enters the log-ratio), got {vv!r}")
    # ln p1 − ln p2 − ε = a t² + b t + c
    a = 0.5 / v2 - 0.5 / v1
    b = m1 / v1 - m2 / v2
    c = m2 ** 2 / (2 * v2) - m1 ** 2 / (2 * v1) + 0.5 * math.log(v2 / v1) - eps
    s1, s2 = math.sqrt(v1), math.sqrt(v2)

    def mass(lo: float, hi: float) -> float:  # P1((lo, hi)) − e^ε P2((lo, hi)), tails computed stably
        def prob(m, s):
            return float(stats.norm.cdf(hi, m, s) - stats.norm.cdf(lo, m, s)) if hi <= m else float(
                stats.norm.sf(lo, m, s) - stats.norm.sf(hi, m, s))
        p2 = prob(m2, s2)
        if p2 <= 0:
            return prob(m1, s1)
        x = eps + math.log(p2)  # e^ε P2 in log space: no overflow of e^ε for ε > 709.78
        return prob(m1, s1) - (math.exp(x) if x < 709.0 else math.inf)

    if abs(a) < 1e-300:
        if b == 0:
            return max(0.0, mass(-math.inf, math.inf)) if c > 0 else 0.0
        r = -c / b
        return max(0.0, mass(r, math.inf) if b > 0 else mass(-math.inf, r))
    disc = b * b - 4 * a * c
    if disc <= 0:  # no sign change
        return max(0.0, mass(-math.inf, math.inf)) if a > 0 else 0.0
    r1, r2 = sorted(((-b - math.sqrt(disc)) / (2 * a), (-b + math.sqrt(disc)) / (2 * a)))
    if a > 0:  # positive outside the roots
        return max(0.0, mass(-math.inf, r1) + mass(r2, math.inf))  # proof: gauss-hs
    return max(0.0, mass(r1, r2))


def adult_pair(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Neighbouring subsets of UCI Adult: n records without the top-coded capital-gain 99,999, and
    the same records with the first one's capital-gain raised to 99,999.

    Example
    -------
    >>> D, Dp = adult_pair(500)
    >>> D.shape, int((D != Dp).any(axis=1).sum()), float(D[:, 18].max()) < float(Dp[:, 18].max())
    ((500, 21), 1, True)
    """
    from dpverify.datasets import ADULT_FEATURES, load_adult

    n = check_positive_int(n, "n")
    seed = check_nonneg_int(seed, "seed")
    X, _ = load_adult()
    col = ADULT_FEATURES.index("capital-gain")
    pool = np.flatnonzero(X[:, col] < 99999)
    if n > pool.size:
        raise ValueError(f"n must be <= {pool.size}, got {n}")
    D = X[np.sort(np.random.default_rng(seed).choice(pool, size=n, replace=False))]
    Dp = D.copy()
    Dp[0, col] = 99999.0
    return D, Dp


def _check_publisher(mechanism) -> None:
    if not callable(getattr(mechanism, "publish_many", None)):
        raise TypeError(f"mechanism must be one of the room's mechanism objects (with publish_many), "
                        f"got {type(mechanism).__name__}")


def column_spread(mechanism, col: int, batch: int = 32):
    """An auditor-ready ``mechanism(data, rng, n)``: n independent values of the standard deviation
    of published column ``col`` (one full publication each, drawn ``batch`` at a time).

    Example
    -------
    >>> from dpverify.pca import PPCADP
    >>> stat = column_spread(PPCADP(1, 1.0), col=0)
    >>> stat.__name__.startswith('PPCADP')
    True
    """
    _check_publisher(mechanism)
    col, batch = check_nonneg_int(col, "col"), check_positive_int(batch, "batch", maximum=10_000)

    def run(data, rng, n):
        out = np.empty(n)
        for i in range(0, n, batch):
            m = min(batch, n - i)
            out[i:i + m] = np.asarray(mechanism.publish_many(data, m, rng))[:, :, col].std(axis=1)
        return out

    run.__name__ = f"{type(mechanism).__name__}.std[{col}]"
    return run


def output_coordinate(mechanism, row: int = 0, col: int = 1):
    """An auditor-ready ``mechanism(data, rng, n)`` returning n independent values of X′[row, col].

    ``mechanism`` is any of the room's mechanism objects (uses its ``publish_many``).

    Example
    -------
    >>> from dpverify.pca import PPCADP
    >>> D, _ = gaussian_pair()
    >>> f = output_coordinate(PPCADP(1, 1.0), 0, 1)
    >>> f(D, np.random.default_rng(0), 3).shape
    (3,)
    """
    _check_publisher(mechanism)
    row, col = check_nonneg_int(row, "row"), check_nonneg_int(col, "col")

    def run(data, rng, n):
        return np.asarray(mechanism.publish_many(data, n, rng))[:, row, col]

    run.__name__ = f"{type(mechanism).__name__}[{row},{col}]"
    return run


def score_change_l1(D, Dp, k: int) -> float:
    """min over column signs of ‖K(D) − K(D′)‖₁, K = (X − E X) U_k on min–max-normalised data.

    Eigenvectors are defined up to sign; the minimum over the 2^k sign choices is the
    change most favourable to the paper's argument.

    Example
    -------
    >>> D, Dp = flip_pair()
    >>> score_change_l1(D, Dp, 1) > 1.0   # far above what the paper's Δ₁ allows
    True
    """
    D, Dp = check_data(D, "D"), check_data(Dp, "Dp")
    if D.shape != Dp.shape:
        raise ValueError(f"D and Dp must have the same shape, got {D.shape} and {Dp.shape}")
    k = check_k(k, D.shape[1])
    if k > 12:
        raise ValueError(f"k must be <= 12 here (2^k sign patterns), got {k}")
    K = []
    for X, name in ((D, "D"), (Dp, "Dp")):
        Xn, _, _ = minmax_normalise(X, name)
        f = fit_ppca(Xn, k)
        K.append((Xn - f.mean) @ f.U_k)
    best = math.inf
    for signs in itertools.product((1.0, -1.0), repeat=k):
        best = min(best, float(np.abs(K[0] - K[1] * np.array(signs)).sum()))
    return best


def _check_eps_list(eps) -> list[float]:
    arr = check_finite_array(eps, "epsilons", ndim=1)
    return [check_epsilon(float(e)) for e in arr]
