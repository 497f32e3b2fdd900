"""Privelet: Xiao, Wang, Gehrke (2011), Haar wavelet coefficients of the n = 2^m counts.

Coefficient c with weight W(c) (n for the base, 2^h for a node over 2^h leaves)
gets Lap(ρ/(ε W(c))), ρ = 1 + log2 n; inverse transform, prefix sums.  Static.
Reference: Cai, Wu, Wang 2016, §5.3; ``continual/baselines_variance.md``.

Example
-------
>>> privelet_expected_mse(2, 1.0).tolist()
[4.0, 8.0]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.validation import as_generator, check_counts
from dpverify.continual.checks import check_eps, check_result, check_n
from dpverify.continual.trees import DENSE_LIMIT, guard, haar_basis, log2_exact, prefix_matrix, prefix_operator, straddle_sum, tree_levels
from dpverify.continual.checks import laplace_only
from dpverify.proofdocs import proven

__all__ = [
    "privelet_expected_mse",
    "privelet_strategy",
    "privelet_release",
]


@proven("continual/baselines_variance.md")
def privelet_expected_mse(n: int, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of each prefix from Privelet: ``2ρ²/ε² (t²/n² + Σ_h g_h(t)²/4^h)``, ρ = 1 + log2 n.

    Reference: Xiao, Wang, Gehrke (2011); Cai, Wu, Wang 2016, §5.3.

    Example
    -------
    >>> privelet_expected_mse(2, 1.0).tolist()   # ρ = 2: 8·(1/4 + 1/4), 8·(1 + 0)
    [4.0, 8.0]
    """
    laplace_only(noise, "privelet")
    eps = check_eps(epsilon)
    m = log2_exact(n)
    check_n(n, per_node=48, what=f"privelet_expected_mse(n={n})")
    rho = m + 1
    t = np.arange(1, n + 1, dtype=float)
    q = t**2 / float(n) ** 2 + straddle_sum(n, lambda h: 1.0 / 4.0**h)  # proof: privelet-var
    return check_result(2.0 * rho**2 / eps**2 * q, epsilon)


def privelet_strategy(n: int):
    """``(R, A) = (ρ W Ψ D⁻¹, Ψᵀ/ρ)`` with the Haar basis Ψ and D = diag(||ψ||²).

    R is dense; above n = 1024 it is a ``scipy.sparse.linalg.LinearOperator`` (O(n log n) per vector).

    Example
    -------
    >>> R, A = privelet_strategy(4)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((4, 4)))))   # R A = W
    True
    >>> R, A = privelet_strategy(4096)            # large n: R as a linear operator
    >>> x = np.arange(4096.0)
    >>> bool(np.allclose(R @ (A @ x), np.cumsum(x)))
    True
    """
    m = log2_exact(n)
    rho = float(m + 1)
    Psi, norms, _ = haar_basis(n)
    if n > DENSE_LIMIT:
        Psi_csr = Psi.tocsr()

        def inner(y):  # ρ Ψ D⁻¹ y
            return rho * (Psi_csr @ (y / norms))

        inner.m = n
        return prefix_operator(n, inner), guard(Psi.T / rho)
    R = rho * (prefix_matrix(n) @ Psi @ sp.diags(1.0 / norms))
    return sp.csr_matrix(R), guard(Psi.T / rho)  # proof: guard


@proven("continual/baselines_variance.md")
def privelet_release(counts, epsilon: float, rng=None, noise: str = "laplace") -> np.ndarray:
    """Haar coefficients + Lap(ρ/(ε W(c))), inverse transform, prefix sums.

    Example
    -------
    >>> privelet_release([1, 0, 2, 1], 1.0, rng=0).shape   # n must be a power of two
    (4,)
    """
    a = check_counts(counts, "counts", nonempty=True)
    eps = check_eps(epsilon)
    laplace_only(noise, "privelet")
    n = a.size
    m = log2_exact(n, "the length of counts")
    rho = m + 1
    g = as_generator(rng)
    lv = tree_levels(a)
    base = lv[m][0] / n + g.laplace(0.0, rho / (eps * n))
    est = np.array([base])  # running estimate of the block averages, top down
    for h in range(m, 0, -1):
        pairs = lv[h - 1].reshape(-1, 2)
        c = (pairs[:, 0] - pairs[:, 1]) / 2.0**h  # (sum_left − sum_right)/2^h = (avg_l − avg_r)/2
        c = c + g.laplace(0.0, rho / (eps * 2.0**h), size=c.size)  # proof: privelet-noise
        est = np.stack([est + c, est - c], axis=1).ravel()  # child averages
    return np.cumsum(est)


def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(ContinualMethod(
        name="privelet",
        description="Xiao et al. (2011): Haar wavelet, Lap(ρ/(ε W(c))) per coefficient, ρ = 1 + log2 n (n = 2^m)",
        expected_mse=privelet_expected_mse,
        strategy=privelet_strategy,
        release=privelet_release,
        leaves_power_of_two=True,
        reference="Xiao, Wang, Gehrke, TKDE 23(8) 2011; Cai, Wu, Wang 2016, §5.3",
    ))


_register()
