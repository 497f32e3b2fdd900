"""Optimal per-node weights for any factorization W = B·A: the FDA program (Cai, Wu, Wang 2016, eq. 5.10), generalised.

Given a strategy A (rows = nodes) and a reconstruction B, reweight the nodes by
a positive diagonal D: release ``B D⁻¹ (D A a + Lap(1/ε))``.  It is ε-DP when
every column of D|A| has l1 norm at most 1, and release t has variance
``(2/ε²) Σ_v B_tv² / d_v²``.  The two programs

    total:    min_d  Σ_v c_v / d_v²,            c_v = Σ_t B_tv²
    minimax:  min_d  max_t Σ_v B_tv² / d_v²
    s.t.      |A|ᵀ d <= 1,  d > 0

are convex; they are solved with cvxpy (Clarabel) and *certified by their
duals*: for multipliers μ >= 0 of the constraints (and λ >= 0, Σλ = 1, on the
releases for minimax) the Lagrangian's minimum over each d_v is attained at
d_v = (2 c_v / m_v)^(1/3), m_v = (|A| μ)_v, so

    g(λ, μ) = Σ_v 3 (c_v(λ) m_v² / 4)^(1/3) - Σ_s μ_s,     c_v(λ) = Σ_t λ_t B_tv²

is a lower bound on the optimum (weak duality, ``continual/weights_duality.md``).  The
returned weights are rescaled until their exact (rational) column sums are at
most 1 - 2^-40, so the certified gap is ``primal(d) - g`` with a feasible d.

Example
-------
>>> import numpy as np
>>> from dpverify.continual import strategy
>>> R, A = strategy(7, "fenwick")
>>> res = optimal_weights(R, A)
>>> res.certified and res.relative_gap < 1e-6
True
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dpverify.validation import check_finite_array, check_real
from dpverify.continual.exact import max_column_norm_exact

__all__ = ["WeightsResult", "optimal_weights", "dual_bound", "reweighting_parts", "round_feasible"]

_OBJECTIVES = ("total", "minimax")
_GUARD = 2.0**-40
_MAX_NODES = 20_000  # the conic program grows with the nodes; beyond this it is refused


@dataclass(frozen=True)
class WeightsResult:
    """Optimal diagonal d (one weight per strategy row), its objective, the dual bound and the gap.

    ``objective`` is in units of 2/ε² (multiply by 2/ε² for the MSE).
    ``certified``: the relative gap is below ``tol`` and d is exactly feasible.
    ``multipliers``: the μ at which ``dual_bound`` was evaluated (total objective).

    Example
    -------
    >>> WeightsResult(np.ones(1), 1.0, 1.0, "total", 1.0).relative_gap
    0.0
    """

    weights: np.ndarray
    objective: float
    dual_bound: float
    kind: str
    max_column_l1: float
    tol: float = 1e-6
    multipliers: np.ndarray | None = None  # μ of the dual bound (one per count), when the solver keeps it

    @property
    def relative_gap(self) -> float:
        """(primal - dual) / primal."""
        return float((self.objective - self.dual_bound) / self.objective)

    @property
    def certified(self) -> bool:
        """Gap below tol, and the exact max column sum of D|A| at most 1."""
        return bool(self.relative_gap <= self.tol and self.max_column_l1 <= 1.0)


def _as_sparse(M, name: str):
    if not sp.issparse(M):
        M = check_finite_array(M, name, ndim=2)
        return sp.csr_matrix(M)
    M = sp.csr_matrix(M, dtype=float)
    if not np.isfinite(M.data).all():
        raise ValueError(f"{name} must have finite entries")
    return M


def _matrices(R, A):
    A, R = _as_sparse(A, "A"), _as_sparse(R, "R")
    if R.shape[1] != A.shape[0]:
        raise ValueError(f"R (the reconstruction) has {R.shape[1]} columns but A (the strategy) has {A.shape[0]} rows")
    absA = abs(sp.csr_matrix(A))
    B2 = sp.csr_matrix(R).multiply(sp.csr_matrix(R)).tocsr()
    measuring = np.asarray(absA.sum(axis=1)).ravel() > 0  # a row measuring nothing needs no noise: weight ∞
    used = np.asarray(B2.sum(axis=0)).ravel() > 0  # a row no release uses needs no budget: weight 0
    return absA, B2, measuring & used


def reweighting_parts(R, A):
    """``(|A|, B∘B, keep)`` as sparse matrices: keep marks the rows that measure a count and are used by a release.

    Example
    -------
    >>> import scipy.sparse as sp
    >>> absA, B2, keep = reweighting_parts(sp.identity(2, format="csr"), -sp.identity(2, format="csr"))
    >>> absA.toarray().tolist(), keep.tolist()
    ([[1.0, 0.0], [0.0, 1.0]], [True, True])
    """
    return _matrices(R, A)


def round_feasible(d, absA):
    """``(d', s)``: d scaled down until s, the exact max column sum of D|A|, is at most 1 - 2^-40.

    Example
    -------
    >>> import scipy.sparse as sp
    >>> d, s = round_feasible(np.array([1.0, 1.0]), sp.identity(2, format="csr"))
    >>> bool(s <= 1 - 2.0**-40), bool(d[0] < 1)
    (True, True)
    """
    d = check_finite_array(d, "d", ndim=1)
    if d.size == 0:
        raise ValueError("d must be non-empty")
    if not sp.issparse(absA):
        raise TypeError(f"absA must be a scipy.sparse matrix, got {type(absA).__name__}")
    if absA.shape[0] != d.size:
        raise ValueError(f"d has {d.size} entries but absA has {absA.shape[0]} rows")
    if (d < 0).any():
        raise ValueError("d must be non-negative")
    return _feasible(d, absA)


def dual_bound(R, A, mu, lam=None) -> float:
    """g(λ, μ): a lower bound (in units of 2/ε²) on the total (λ=None) or minimax optimum.

    Example
    -------
    >>> import scipy.sparse as sp
    >>> R, A = sp.identity(2, format="csr"), sp.identity(2, format="csr")   # nodes = releases
    >>> round(dual_bound(R, A, [2.0, 2.0]), 12)     # optimum d = 1: total 2
    2.0
    """
    absA, B2, _ = _matrices(R, A)
    mu = check_finite_array(mu, "mu", ndim=1)
    if lam is not None:
        lam = check_finite_array(lam, "lam", ndim=1)
        if not lam.sum() > 0:
            raise ValueError(f"lam must be non-negative release weights with a positive sum, got sum {lam.sum()!r}")
    return _dual(absA, B2, mu, lam)


def _dual(absA, B2, mu, lam) -> float:
    mu = np.asarray(mu, dtype=float)
    if mu.shape != (absA.shape[1],) or (mu < 0).any() or not np.isfinite(mu).all():
        raise ValueError("mu must be a finite non-negative vector, one entry per count")
    if lam is None:
        c = np.asarray(B2.sum(axis=0)).ravel()
    else:
        lam = np.asarray(lam, dtype=float)
        if lam.shape != (B2.shape[0],) or (lam < 0).any():
            raise ValueError("lam must be non-negative, one entry per release")
        lam = lam / lam.sum()
        c = B2.T @ lam
    m = absA @ mu
    return float(np.sum(3.0 * np.cbrt(c * m * m / 4.0)) - mu.sum())  # proof: weights-dual


def _feasible(d, absA):
    """Scale d down until the exact max column sum of D|A| is at most 1 - 2^-40."""
    for _ in range(4):
        s = max_column_norm_exact(sp.diags(d) @ absA, 1)
        if s <= 1 - _GUARD:
            return d, float(s)
        d = d * ((1 - 2 * _GUARD) / float(s))
    raise RuntimeError("could not round the weights to exact feasibility")


def _polish(absA, c: np.ndarray, mu0: np.ndarray, iters: int = 500):
    """Maximise the concave dual g(μ) = Σ 3 (c m²/4)^(1/3) - Σμ over μ >= 0 (L-BFGS-B); return μ and d(μ)."""
    from scipy.optimize import minimize

    scale = max(float(mu0.max()), 1e-300)

    def neg(x):
        mu = x * scale
        m = np.maximum(absA @ mu, 1e-300)
        dv = np.cbrt(2.0 * c / m)  # the Lagrangian's minimiser: ∂g/∂μ_s = Σ_v |A_vs| d_v - 1
        val = np.sum(3.0 * np.cbrt(c * m * m / 4.0)) - mu.sum()
        return -val / scale, -(absA.T @ dv - 1.0)

    res = minimize(neg, mu0 / scale, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * mu0.size,
                   options={"maxiter": iters, "ftol": 1e-15, "gtol": 1e-12})
    mu = np.maximum(res.x, 0.0) * scale
    if _dual(absA, sp.csr_matrix(np.atleast_2d(c)), mu, None) < _dual(absA, sp.csr_matrix(np.atleast_2d(c)), mu0, None):
        mu = mu0
    return mu, np.cbrt(2.0 * c / np.maximum(absA @ mu, 1e-300))


def optimal_weights(R, A, objective: str = "total", *, tol: float = 1e-6) -> WeightsResult:
    """Solve the reweighting program and certify it by its dual (see the module docstring).

    Example
    -------
    >>> from dpverify.continual import strategy
    >>> R, A = strategy(5, "elders", branching=3)
    >>> r = optimal_weights(R, A, "minimax")
    >>> r.certified, r.weights.shape == (A.shape[0],)
    (True, True)
    """
    import cvxpy as cp

    if not isinstance(objective, str) or objective not in _OBJECTIVES:
        raise ValueError(f"objective must be one of {_OBJECTIVES}, got {objective!r}")
    tol = check_real(tol, "tol", positive=True)
    if not tol < 1:
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    absA, B2, keep = _matrices(R, A)
    if keep.sum() > _MAX_NODES:
        raise ValueError(f"strategy has {int(keep.sum())} nodes, above the solver budget of {_MAX_NODES}")
    Ak, Bk = absA[keep], B2[:, keep].tocsr()
    c = np.asarray(Bk.sum(axis=0)).ravel()
    scale = float(c.max())
    x = cp.Variable(int(keep.sum()), pos=True)  # x = d
    cons = [Ak.T @ x <= 1]
    if objective == "total":
        prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(c / scale, cp.power(x, -2)))), cons)
    else:
        tau = cp.Variable()
        cons.append(Bk / scale @ cp.power(x, -2) <= tau)
        prob = cp.Problem(cp.Minimize(tau), cons)
    with warnings.catch_warnings():  # 'may be inaccurate': the dual certificate below decides
        warnings.simplefilter("ignore")
        prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, max_iter=500)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"solver status {prob.status}")
    mu = np.maximum(np.asarray(cons[0].dual_value, dtype=float), 0.0) * scale
    d = np.zeros(absA.shape[0])  # rows no release uses: weight 0 (not released)
    d[keep] = np.asarray(x.value, dtype=float)
    d[np.asarray(absA.sum(axis=1)).ravel() == 0] = np.inf  # rows measuring no count: value 0, released without noise
    d[keep], s = _feasible(d[keep], Ak)
    if objective == "total":
        mu, dk = _polish(Ak, c, mu)  # ascend the concave dual from the solver's μ; its d(μ) may beat the solver's d
        dk, s2 = _feasible(dk, Ak)
        if float(c @ (1.0 / dk**2)) < float(c @ (1.0 / d[keep] ** 2)):
            d[keep], s = dk, s2
    var = Bk @ (1.0 / d[keep] ** 2)
    if objective == "total":
        primal, lam = float(var.sum()), None
    else:
        primal = float(var.max())
        lam = np.maximum(np.asarray(cons[1].dual_value, dtype=float), 0.0)
    bound = _dual(Ak, Bk, mu, lam) if lam is None or lam.sum() > 0 else 0.0
    return WeightsResult(d, primal, bound, objective, s, tol, mu)
