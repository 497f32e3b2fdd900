"""Boost: Hay, Rastogi, Miklau, Suciu (2010) on the complete binary tree over n = 2^m leaves.

ℓ = m + 1 levels, Lap(ℓ/ε) on every node, then the least squares (consistency)
estimate by the two-pass algorithm; prefix t is the sum of the first t
consistent leaves.  Static.  Exact variances from the Haar eigenbasis of HᵀH
(``continual/baselines_variance.md``).  Reference: Cai, Wu, Wang 2016, §5.3.

Example
-------
>>> boost_expected_mse(2, 1.0).round(4).tolist()
[5.3333, 5.3333]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.validation import as_generator, check_counts
from dpverify.continual.checks import check_eps, check_result, check_n
from dpverify.continual.trees import DENSE_LIMIT, guard, haar_basis, log2_exact, prefix_matrix, prefix_operator, straddle_sum, tree_levels, tree_matrix
from dpverify.continual.checks import laplace_only
from dpverify.proofdocs import proven

__all__ = [
    "boost_expected_mse",
    "boost_strategy",
    "boost_release",
]


@proven("continual/baselines_variance.md")
def boost_expected_mse(n: int, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of each prefix after Hay's consistency: ``2ℓ²/ε² · wᵀ(HᵀH)⁻¹w``, O(n log n).

    ``wᵀ(HᵀH)⁻¹w = t²/(n(2n−1)) + Σ_h g_h(t)² / (2^h (2^h − 1))`` (Haar eigenbasis).
    Reference: Hay et al. (2010); Cai, Wu, Wang 2016, §5.3; ``continual/baselines_variance.md``.

    Example
    -------
    >>> boost_expected_mse(2, 1.0).round(4).tolist()   # ℓ = 2: 2·4·(1/6 + 1/2), 2·4·(4/6)
    [5.3333, 5.3333]
    """
    laplace_only(noise, "boost")
    eps = check_eps(epsilon)
    m = log2_exact(n)
    check_n(n, per_node=48, what=f"boost_expected_mse(n={n})")
    ell = m + 1
    t = np.arange(1, n + 1, dtype=float)
    q = t**2 / (n * (2.0 * n - 1)) + straddle_sum(n, lambda h: 1.0 / (2.0**h * (2.0**h - 1)))  # proof: boost-var
    return check_result(2.0 * ell**2 / eps**2 * q, epsilon)


def boost_strategy(n: int):
    """``(R, A) = (ℓ W (HᵀH)⁻¹ Hᵀ, H/ℓ)``.

    R is dense (every node informs every prefix): for n <= 1024 it is returned as a CSR matrix,
    above that as a ``scipy.sparse.linalg.LinearOperator`` applying Hᵀ, (HᵀH)⁻¹ in the Haar
    eigenbasis and the prefix sums in O(n log n) per vector (A stays a sparse matrix).

    Example
    -------
    >>> R, A = boost_strategy(4)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((4, 4)))))   # R A = W
    True
    >>> R, A = boost_strategy(4096)               # large n: R as a linear operator
    >>> x = np.arange(4096.0)
    >>> bool(np.allclose(R @ (A @ x), np.cumsum(x)))
    True
    """
    m = log2_exact(n)
    ell = float(m + 1)
    H = tree_matrix(n)
    Psi, norms, eig = haar_basis(n)
    if n > DENSE_LIMIT:
        d = 1.0 / (norms * eig)
        Ht, PsiT = H.T.tocsr(), Psi.T.tocsr()

        def inner(y):  # ℓ (HᵀH)⁻¹ Hᵀ y
            return ell * (Psi @ (d * (PsiT @ (Ht @ y))))

        inner.m = H.shape[0]
        return prefix_operator(n, inner), guard(H / ell)
    inv = (Psi @ sp.diags(1.0 / (norms * eig)) @ Psi.T)  # (HᵀH)⁻¹ in the Haar eigenbasis
    R = ell * (prefix_matrix(n) @ inv @ H.T)
    return sp.csr_matrix(R), guard(H / ell)  # proof: guard


@proven("continual/baselines_variance.md")
def boost_release(counts, epsilon: float, rng=None, noise: str = "laplace") -> np.ndarray:
    """Noisy tree (Lap(ℓ/ε) per node), Hay et al.'s two-pass least squares, prefix sums of the leaves.

    Example
    -------
    >>> boost_release([1, 0, 2, 1], 1.0, rng=0).shape   # n must be a power of two
    (4,)
    """
    a = check_counts(counts, "counts", nonempty=True)
    eps = check_eps(epsilon)
    laplace_only(noise, "boost")
    m = log2_exact(a.size, "the length of counts")
    ell = m + 1
    g = as_generator(rng)
    x = [lv + g.laplace(0.0, ell / eps, size=lv.size) for lv in tree_levels(a)]
    # pass 1 (bottom up): z_v = (2^l − 2^{l−1})/(2^l − 1) x_v + (2^{l−1} − 1)/(2^l − 1) Σ_children z, l = height + 1
    z = [x[0]]
    for h in range(1, m + 1):
        l = h + 1
        kids = z[-1].reshape(-1, 2).sum(axis=1)
        z.append((2**l - 2 ** (l - 1)) / (2**l - 1) * x[h] + (2 ** (l - 1) - 1) / (2**l - 1) * kids)  # proof: hay-up
    # pass 2 (top down): u_v = z_v + (u_parent − Σ_{children of parent} z) / 2
    u = z[m]
    for h in range(m - 1, -1, -1):
        par = np.repeat(u, 2)
        sib = np.repeat(z[h].reshape(-1, 2).sum(axis=1), 2)
        u = z[h] + (par - sib) / 2.0  # proof: hay-down
    return np.cumsum(u)


def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(ContinualMethod(
        name="boost",
        description="Hay et al. (2010): binary tree, Lap((m+1)/ε) per node, least-squares consistency (n = 2^m)",
        expected_mse=boost_expected_mse,
        strategy=boost_strategy,
        release=boost_release,
        leaves_power_of_two=True,
        reference="Hay, Rastogi, Miklau, Suciu, PVLDB 3(1) 2010; Cai, Wu, Wang 2016, §5.3",
    ))


_register()
