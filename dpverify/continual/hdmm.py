"""Offline reference: the HDMM-style p-Identity strategy optimised for a workload under l1 sensitivity.

McKenna, Miklau, Hay, Machanavajjhala, "Optimizing error of high-dimensional
statistical queries under differential privacy" (PVLDB 11(10) 2018), §5:
A(Θ) = [I; Θ] D⁻¹ with Θ >= 0 (p × n) and D = diag(1 + 1ᵀΘ), so every column has
l1 norm exactly 1, and the least-squares reconstruction B = W A⁺ gives the
Laplace total MSE (2/ε²) F(Θ),

    F(Θ) = tr(W (AᵀA)⁻¹ Wᵀ) = Σ_j d_j² g_j - tr(M⁻¹ ZᵀZ),
    g_j = ‖W e_j‖²,  M = I_p + ΘΘᵀ,  Z = W D Θᵀ   (Woodbury: (I + ΘᵀΘ)⁻¹ = I - Θᵀ M⁻¹ Θ).

Its gradient (derived in ``continual/hdmm_gradient.md``, checked by finite
differences in the tests) is

    ∂F/∂Θ = -2 M⁻¹ (K - ZᵀZ M⁻¹ Θ) + 1 ⊗ (2 diag(QH) / d),   K = (WᵀZ)ᵀ D,
    diag(QH)_j = d_j² g_j - Σ_i Θ_ij (M⁻¹ K)_ij,

so one evaluation costs two products with W (or Wᵀ) of p columns and O(n p² + p³).
The program is not convex: the result is a reference (an upper bound on the
offline optimum over this family), optimised by L-BFGS-B from a seeded start,
not a certified optimum.

Example
-------
>>> import numpy as np
>>> res = p_identity(np.tril(np.ones((16, 16))), p=2, rng=0)
>>> bool(res.total < 16 * 17 / 2)   # beats the identity strategy, tr(W Wᵀ) = Σ t
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from dpverify.validation import as_generator, check_finite_array, check_positive_int
from dpverify.proofdocs import proven

__all__ = ["prefix_workload", "p_identity_objective", "p_identity", "PIdentityResult"]


def prefix_workload(n: int) -> spla.LinearOperator:
    """The n × n running-count workload W (lower-triangular ones) as an O(n)-per-column operator.

    Example
    -------
    >>> prefix_workload(3).matvec(np.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 3.0, 6.0]
    """
    n = check_positive_int(n, "n")

    def mm(X):
        return np.cumsum(np.asarray(X, dtype=float).reshape(n, -1), axis=0)

    def rmm(X):
        return np.cumsum(np.asarray(X, dtype=float).reshape(n, -1)[::-1], axis=0)[::-1]

    return spla.LinearOperator((n, n), matvec=lambda x: mm(x).ravel(), rmatvec=lambda x: rmm(x).ravel(),
                               matmat=mm, rmatmat=rmm, dtype=float)


def _operator(W):
    if isinstance(W, spla.LinearOperator):
        return W
    if sp.issparse(W):
        return spla.aslinearoperator(sp.csr_matrix(W, dtype=float))
    a = check_finite_array(W, "workload", ndim=2)
    if not np.isfinite(a * a.shape[0]).all() or not np.isfinite((a * a).sum()):
        raise ValueError("workload is too large: its squared column norms overflow float64")
    return spla.aslinearoperator(a)


def _col_sq_norms(W) -> np.ndarray:
    n = W.shape[1]
    out = np.empty(n)
    step = max(1, 2**22 // max(1, W.shape[0]))
    for lo in range(0, n, step):
        E = np.zeros((n, min(step, n - lo)))
        E[np.arange(lo, lo + E.shape[1]), np.arange(E.shape[1])] = 1.0
        out[lo : lo + E.shape[1]] = (np.asarray(W.matmat(E)) ** 2).sum(axis=0)
    return out


@proven("continual/hdmm_gradient.md")
def p_identity_objective(theta: np.ndarray, W, g: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """F(Θ) and ∂F/∂Θ (module docstring); ``g`` = squared column norms of W (computed if None).

    Example
    -------
    >>> W = np.tril(np.ones((4, 4)))
    >>> f, _ = p_identity_objective(np.zeros((1, 4)), W)
    >>> bool(f == np.trace(W @ W.T))          # Θ = 0 is the identity strategy
    True
    """
    Wop = _operator(W)
    th = check_finite_array(theta, "theta", ndim=2)
    p, n = th.shape
    if n != Wop.shape[1] or (th < 0).any() or p < 1:
        raise ValueError(f"theta must be a finite non-negative p × {Wop.shape[1]} array (p >= 1), got shape {th.shape}")
    if p * n > 2**24:
        raise ValueError(f"theta has p × n = {p * n} entries, over the memory budget of 2^24 entries")
    if g is None:
        g = _col_sq_norms(Wop)
    else:
        g = check_finite_array(g, "g", shape=(n,))
    F, grad = _objective(th, Wop, g)
    if not (np.isfinite(F) and np.isfinite(grad).all()):
        raise ValueError("theta (or g) is too large: F(Θ) or its gradient overflows float64")
    return F, grad


def _objective(th: np.ndarray, Wop, g: np.ndarray) -> tuple[float, np.ndarray]:
    """F(Θ) and ∂F/∂Θ on checked arguments (the optimiser's inner call)."""
    p = th.shape[0]
    d = 1.0 + th.sum(axis=0)
    M = np.eye(p) + th @ th.T
    Z = np.asarray(Wop.matmat((d[:, None] * th.T)))  # W D Θᵀ, m × p
    ZtZ = Z.T @ Z
    Minv_ZtZ = np.linalg.solve(M, ZtZ)
    F = float(np.dot(d * d, g) - np.trace(Minv_ZtZ))  # proof: hdmm-objective
    K = np.asarray(Wop.rmatmat(Z)).T * d  # (WᵀZ)ᵀ D, p × n
    MinvK = np.linalg.solve(M, K)
    MinvTh = np.linalg.solve(M, th)
    grad = -2.0 * (MinvK - np.linalg.solve(M, ZtZ @ MinvTh))  # -2 M⁻¹ (K - ZᵀZ M⁻¹ Θ)  # proof: hdmm-gradient
    qh = d * d * g - (th * MinvK).sum(axis=0)
    grad += (2.0 * qh / d)[None, :]  # through d_j = 1 + Σ_i Θ_ij  # proof: hdmm-gradient
    return F, grad


@dataclass(frozen=True)
class PIdentityResult:
    """The optimised Θ, the strategy A = [I; Θ] D⁻¹ (dense) and F = total MSE in units of 2/ε².

    Example
    -------
    >>> r = p_identity(np.tril(np.ones((4, 4))), p=1, rng=0)
    >>> r.strategy.shape, bool(np.allclose(np.abs(r.strategy).sum(axis=0), 1))
    ((5, 4), True)
    """

    theta: np.ndarray
    total: float
    iterations: int

    @property
    def strategy(self) -> np.ndarray:
        d = 1.0 + self.theta.sum(axis=0)
        return np.vstack([np.eye(self.theta.shape[1]), self.theta]) / d

    def total_mse(self, epsilon: float) -> float:
        """(2/ε²) F."""
        from dpverify.validation import check_epsilon

        return 2.0 * self.total / check_epsilon(epsilon) ** 2


def p_identity(workload, p: int | None = None, *, rng=None, maxiter: int = 500) -> PIdentityResult:
    """Optimise Θ (p rows, default n/16) with L-BFGS-B from Θ ~ U(0, 1) (seeded by ``rng``).

    Example
    -------
    >>> p_identity(np.tril(np.ones((6, 6))), p=2, rng=1).theta.shape
    (2, 6)
    """
    from scipy.optimize import minimize

    Wop = _operator(workload)
    n = Wop.shape[1]
    p = max(1, n // 16) if p is None else check_positive_int(p, "p")
    maxiter = check_positive_int(maxiter, "maxiter")
    if p * n > 2**24:
        raise ValueError(f"p × n = {p * n} exceeds the memory budget of 2^24 entries")
    g = _col_sq_norms(Wop)
    x0 = as_generator(rng).uniform(0.0, 1.0, size=p * n)

    def fun(x):
        f, gr = _objective(x.reshape(p, n), Wop, g)
        return f, gr.ravel()

    res = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * (p * n),
                   options={"maxiter": maxiter})
    th = res.x.reshape(p, n)
    return PIdentityResult(th, _objective(th, Wop, g)[0], int(res.nit))
