"""Verify any linear (matrix) mechanism a user brings: W a released as B (A a + noise).

``MatrixMechanism(workload, strategy, reconstruction=None)`` takes dense arrays,
scipy.sparse matrices or ``scipy.sparse.linalg.LinearOperator`` s (W: m×n queries,
A: p×n strategy, B: m×p reconstruction).  Without B it is computed as
B = W A⁺ (A square: a sparse LU; A tall: the normal equations), and a singular
strategy is refused; with B, ``W = B·A`` is checked (exactly when small, on
random probes otherwise) and a non-factorising pair is refused.

- ``sensitivity(p)``: max column l_p norm of A, computed exactly in rational
  arithmetic and rounded up (:mod:`dpverify.continual.exact`);
- ``variances(epsilon, noise, delta)``: exact per-query variance
  ``σ² ‖B_t‖²`` with Laplace σ² = 2 (Δ₁/ε)² or Gaussian σ = Δ₂ · σ_G(ε, δ), σ_G the
  analytic Gaussian calibration (Balle & Wang 2018, the smallest σ for which
  N(0, σ²) on a unit-sensitivity query is (ε, δ)-DP, by bisection, rounded up);
- ``total_mse``; ``is_causal`` (release t depends on a_1..a_t only: W lower
  triangular; then W a + B z is computed online with the noise drawn or
  derived in advance, ``continual/elders_privacy.md`` §3) and
  ``factors_causal`` (every row of A that release t uses is complete by t);
- ``reweighted(objective)``: the optimal positive diagonal D (strategy D A,
  reconstruction B D⁻¹), certified by its dual (:mod:`dpverify.continual.weights`);
- ``lower_bound(epsilon)``: the singular-value bound of Li and Miklau,
  (2/ε²) ‖W‖_*² / n for Laplace noise with Δ₁ <= 1 (``continual/baselines_lower_bound.md``);
- ``p_identity_reference(epsilon)``: the offline HDMM-style p-Identity reference (:mod:`dpverify.continual.hdmm`).

The side-by-side table against the library's strategies is :func:`dpverify.continual.matrix_table.compare`.

Example
-------
>>> import numpy as np
>>> W = np.tril(np.ones((3, 3)))
>>> mm = MatrixMechanism(W, np.eye(3))            # the naive mechanism: B = W
>>> mm.sensitivity(1), mm.variances(1.0).tolist(), mm.is_causal()
(1.0, [2.0, 4.0, 6.0], True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import exp, sqrt

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from dpverify.validation import check_delta, check_epsilon, check_real
from dpverify.continual.exact import max_column_norm_exact, round_up
from dpverify.continual.matrix_ops import as_matrix, dense, lu_solve, row_sq_norms, tri_solve

__all__ = ["MatrixMechanism", "gaussian_sigma"]

_PROBES = 8


def gaussian_sigma(epsilon: float, delta: float) -> float:
    """σ of the analytic Gaussian mechanism for l2 sensitivity 1: the least σ with δ(σ) <= δ (rounded up).

    δ(σ) = Φ(1/(2σ) - εσ) - e^ε Φ(-1/(2σ) - εσ) (Balle & Wang 2018, Thm 8), decreasing in σ.

    Example
    -------
    >>> round(gaussian_sigma(1.0, 1e-5), 3)
    3.731
    """
    from scipy.stats import norm

    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    if d <= 0:
        raise ValueError("delta must be > 0 for Gaussian noise")
    try:
        exp(eps)
    except OverflowError:
        raise ValueError(f"epsilon must be at most ln(max float) ≈ 709.78 (e^epsilon must be finite), got {epsilon!r}") from None

    def dl(s):
        return norm.cdf(1 / (2 * s) - eps * s) - exp(eps) * norm.cdf(-1 / (2 * s) - eps * s)

    lo, hi = 1e-6, 1.0
    while dl(hi) > d:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if dl(mid) > d else (lo, mid)
    return hi * (1 + 1e-12)


@dataclass(frozen=True)
class MatrixMechanism:
    """The linear mechanism B (A a + noise) for the workload W = B·A (see the module docstring).

    Example
    -------
    >>> import scipy.sparse as sp
    >>> from dpverify.continual import strategy
    >>> R, A = strategy(7, "fenwick")
    >>> mm = MatrixMechanism(R @ A, A, R)
    >>> mm.sensitivity(1) <= 1, round(mm.total_mse(1.0), 6) == round(float(2 * (R.multiply(R)).sum()), 6)
    (True, True)
    """

    workload: object
    strategy: object
    reconstruction: object = None
    rtol: float = 1e-8
    _B: object = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        W = as_matrix(self.workload, "workload")
        A = as_matrix(self.strategy, "strategy")
        if W.shape[1] != A.shape[1]:
            raise ValueError(f"strategy has {A.shape[1]} columns but workload has {W.shape[1]}: shapes do not match")
        rtol = check_real(self.rtol, "rtol")
        if not 0 < rtol < 1:
            raise ValueError(f"rtol must be a float in (0, 1), got {self.rtol!r}")
        object.__setattr__(self, "rtol", rtol)
        if self.reconstruction is None:
            B = self._solve(W, A)
        else:
            B = as_matrix(self.reconstruction, "reconstruction")
            if B.shape != (W.shape[0], A.shape[0]):
                raise ValueError(f"reconstruction must have shape {(W.shape[0], A.shape[0])}, got {B.shape}")
        self._check_factorization(W, A, B)
        object.__setattr__(self, "workload", W)
        object.__setattr__(self, "strategy", A)
        object.__setattr__(self, "_B", B)

    @staticmethod
    def _solve(W, A):
        if isinstance(A, spla.LinearOperator):
            raise ValueError("strategy is a LinearOperator: pass its reconstruction (B with W = B·A)")
        p, n = A.shape
        if p < n:
            raise ValueError(f"strategy has {p} rows < {n} columns: it is singular (rank < n); pass a reconstruction")
        Wt = dense(W.T if not isinstance(W, spla.LinearOperator) else W.adjoint(), "workload")
        As = sp.csc_matrix(A)
        if p == n and (sp.tril(As, -1).nnz == 0 or sp.triu(As, 1).nnz == 0):  # triangular: no LU needed
            B = tri_solve(As.T, np.asarray(Wt, dtype=np.float64), lower=sp.tril(As, -1).nnz == 0).T  # Aᵀ is lower iff A is upper
        elif p == n:
            B = lu_solve(sp.csc_matrix(As.T), Wt).T  # Aᵀ X = Wᵀ, X = Bᵀ
        else:
            B = (As @ lu_solve(sp.csc_matrix(As.T @ As), Wt)).T  # W (AᵀA)⁻¹ Aᵀ
        if not np.isfinite(B).all():
            raise ValueError("strategy is singular or ill-conditioned: B = W A⁺ is not finite")
        return B

    def _check_factorization(self, W, A, B):
        n = W.shape[1]
        if W.shape[0] * n <= 2**22 and not any(isinstance(x, spla.LinearOperator) for x in (W, A, B)):
            X = np.eye(n)
        else:
            X = np.random.default_rng(0).standard_normal((n, _PROBES))
        lhs = np.asarray(W @ X)
        rhs = np.asarray(B @ np.asarray(A @ X))
        err = np.linalg.norm(lhs - rhs)
        if not err <= self.rtol * max(np.linalg.norm(lhs), 1.0) * sqrt(n):
            raise ValueError(f"reconstruction·strategy does not equal workload (W ≠ B·A: error {err:.3g}); "
                             "the strategy does not factor the workload")

    @property
    def reconstruction_matrix(self):
        """B (given, or B = W A⁺)."""
        return self._B

    def _columns(self):
        A = self.strategy
        if isinstance(A, spla.LinearOperator):
            return dense(A, "strategy")
        return A

    def sensitivity_exact(self, p: int = 1) -> Fraction:
        """Exact max column l1 norm (p = 1) or *squared* l2 norm (p = 2) of the strategy, a Fraction.

        Example
        -------
        >>> MatrixMechanism([[1.0]], [[0.5], [0.5]]).sensitivity_exact(2)
        Fraction(1, 2)
        """
        if p not in (1, 2):
            raise ValueError(f"p must be 1 or 2, got {p!r}")
        return max_column_norm_exact(self._columns(), p)

    def sensitivity(self, p: int = 1) -> float:
        """Max column l_p norm of the strategy (p = 1 or 2), exact and rounded up to a float.

        Example
        -------
        >>> MatrixMechanism([[1.0]], [[0.5], [0.5]]).sensitivity(2) >= 2**-0.5
        True
        """
        s = self.sensitivity_exact(p)
        if p == 1:
            return round_up(s)
        r = sqrt(float(s))
        while Fraction(r) ** 2 < s:
            r = float(np.nextafter(r, np.inf))
        return r

    def variances(self, epsilon: float, noise: str = "laplace", *, delta: float | None = None) -> np.ndarray:
        """Exact per-query variance of B (A a + noise), noise calibrated to the strategy's sensitivity.

        Example
        -------
        >>> MatrixMechanism([[1.0, 1.0]], [[1.0, 1.0]], [[1.0]]).variances(1.0).tolist()   # one query, Lap(1/ε)
        [2.0]
        """
        eps = check_epsilon(epsilon)
        rows = row_sq_norms(self._B)
        if noise == "laplace":
            if delta is not None:
                raise ValueError("delta is only for noise='gaussian'")
            return 2.0 * (self.sensitivity(1) / eps) ** 2 * rows
        if noise == "gaussian":
            if delta is None:
                raise ValueError("noise='gaussian' needs delta")
            return (self.sensitivity(2) * gaussian_sigma(eps, delta)) ** 2 * rows
        raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")

    def total_mse(self, epsilon: float, noise: str = "laplace", *, delta: float | None = None) -> float:
        """Σ of :meth:`variances` (the expected squared error of all queries).

        Example
        -------
        >>> MatrixMechanism(np.tril(np.ones((3, 3))), np.eye(3)).total_mse(1.0)
        12.0
        """
        return float(self.variances(epsilon, noise, delta=delta).sum())

    def is_causal(self) -> bool:
        """Release t depends on a_1..a_t only (W lower triangular): online via W a + B z, noise in advance.

        Example
        -------
        >>> MatrixMechanism(np.triu(np.ones((2, 2))), np.eye(2)).is_causal()
        False
        """
        W = self.workload
        if isinstance(W, spla.LinearOperator):
            W = dense(W, "workload")
        W = sp.coo_matrix(W)
        return bool(np.all(W.col[W.data != 0] <= W.row[W.data != 0]))

    def factors_causal(self) -> bool:
        """Every strategy row used by release t measures only a_1..a_t (B(Aa + z) computable at t).

        Example
        -------
        >>> from dpverify.continual import strategy
        >>> R, A = strategy(9, "elders", branching=3)
        >>> MatrixMechanism(R @ A, A, R).factors_causal()   # subtracts blocks that end later
        False
        """
        A = sp.coo_matrix(self._columns())
        last = np.full(A.shape[0], -1)
        np.maximum.at(last, A.row, A.col)
        B = self._B if not isinstance(self._B, spla.LinearOperator) else dense(self._B, "reconstruction")
        B = sp.coo_matrix(B)
        nz = B.data != 0
        return bool(np.all(last[B.col[nz]] <= B.row[nz]))

    def reweighted(self, objective: str = "total"):
        """``(mechanism, certificate)``: strategy D A and reconstruction B D⁻¹ with the optimal diagonal D.

        Example
        -------
        >>> from dpverify.continual import strategy
        >>> R, A = strategy(7, "binary")
        >>> mm, cert = MatrixMechanism(R @ A, A, R).reweighted()
        >>> cert.certified and mm.total_mse(1.0) < MatrixMechanism(R @ A, A, R).total_mse(1.0)
        True
        """
        from dpverify.continual.weights import optimal_weights

        B = self._B if sp.issparse(self._B) else sp.csr_matrix(dense(self._B, "reconstruction"))
        A = sp.csr_matrix(self._columns())
        res = optimal_weights(B, A, objective)
        d = res.weights
        keep = np.isfinite(d) & (d > 0)  # ∞: a row measuring nothing (exact, no noise); 0: a row no query uses
        dinv = np.where(keep, 1.0 / np.where(keep, d, 1.0), 0.0)
        return MatrixMechanism(self.workload, sp.diags(np.where(np.isfinite(d), d, 0.0)) @ A, B @ sp.diags(dinv), self.rtol), res

    def p_identity_reference(self, epsilon: float, *, p: int | None = None, rng=0, maxiter: int = 500) -> float:
        """Total Laplace MSE of the offline HDMM-style p-Identity strategy for this workload (a reference:
        optimised by L-BFGS-B, not certified; :mod:`dpverify.continual.hdmm`).

        Example
        -------
        >>> mm = MatrixMechanism(np.tril(np.ones((16, 16))), np.eye(16))
        >>> mm.lower_bound(1.0) <= mm.p_identity_reference(1.0, p=2) < mm.total_mse(1.0)
        True
        """
        from dpverify.continual.hdmm import p_identity

        return p_identity(self.workload, p, rng=rng, maxiter=maxiter).total_mse(epsilon)

    def lower_bound(self, epsilon: float) -> float:
        """Li–Miklau SVD bound: every factorization with Δ₁ <= 1 has total MSE >= (2/ε²) ‖W‖_*² / n.

        Example
        -------
        >>> mm = MatrixMechanism(np.tril(np.ones((4, 4))), np.eye(4))
        >>> mm.lower_bound(1.0) <= mm.total_mse(1.0)
        True
        """
        eps = check_epsilon(epsilon)
        s = np.linalg.svd(dense(self.workload, "workload"), compute_uv=False)
        return float(2.0 / eps**2 * s.sum() ** 2 / self.workload.shape[1])
