"""Sensitivity of linear queries (the survey (Zhu et al.), section "Δf: sensitivity").

For a linear query f(x) = A x on a histogram x, one record added or removed changes x
by ±e_j, so Δf = max_j ‖A e_j‖₁ = the largest column ℓ1 norm of A.  Replacing one record
(x → x − e_i + e_j) changes f by A(e_j − e_i), so the substitution sensitivity is
max_{i≠j} ‖A e_j − A e_i‖₁ ≤ 2·Δf (the "wrong neighbouring relation" bug the auditor
catches uses the add/remove value under substitution).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.validation import check_budget, check_finite_array
from dpverify.proofdocs import proven

__all__ = ["l1_sensitivity", "substitution_sensitivity"]


def _matrix(A):
    if sp.issparse(A):
        M = sp.csc_matrix(A, dtype=float, copy=True)
        if not np.isfinite(M.data).all():
            raise ValueError("A must be finite")
        return M
    return check_finite_array(A, "A", ndim=2)


@proven("survey/interactive_example.md")
def l1_sensitivity(A) -> float:
    """Add/remove-one sensitivity ``max_j Σ_i |A_ij|`` of f(x) = A x (dense or scipy.sparse A).

    Example
    -------
    >>> l1_sensitivity([[1, 1, 0], [0, 1, 1]])
    2.0
    """
    M = _matrix(A)
    if M.shape[0] < 1 or M.shape[1] < 1:
        raise ValueError(f"A must be non-empty, got shape {M.shape}")
    col = abs(M).sum(axis=0)  # proof: l1-colnorm
    return _finite(float(np.max(np.asarray(col))))


def _finite(v: float) -> float:
    if not np.isfinite(v):
        raise ValueError("A is too large: its column l1 norms overflow float64")
    return v


def substitution_sensitivity(A) -> float:
    """Replace-one sensitivity max_{i,j} ‖A e_j − A e_i‖₁ (dense; O(n²·m), small domains).

    Example
    -------
    >>> substitution_sensitivity(np.eye(3))
    2.0
    """
    M = _matrix(A)
    M = M.toarray() if sp.issparse(M) else M
    if M.shape[1] > 2000:
        raise ValueError(f"substitution_sensitivity is for small domains, got {M.shape[1]} columns")
    check_budget(8.0 * M.shape[0] * M.shape[1] ** 2, f"A of shape {M.shape}")
    with np.errstate(over="ignore"):
        diffs = np.abs(M[:, :, None] - M[:, None, :]).sum(axis=0)
    return _finite(float(diffs.max()))
