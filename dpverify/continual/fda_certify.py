"""Independent certificates of FDA's optimum: problem (5.10) solved by cvxpy, and its KKT conditions.

:func:`solve_diagonal_cvxpy` solves the convex problem directly (a check of the closed form that
does not share its derivation); :func:`kkt_certificate` checks the weights of
:mod:`dpverify.continual.fda_optimal` against the Karush–Kuhn–Tucker conditions with explicit
multipliers.

Example
-------
>>> cert = kkt_certificate(7)
>>> cert["max_colsum"] <= 1.0, cert["min_mu_rel"] >= 0, cert["max_slack_times_mu_rel"] < 1e-9
(True, True, True)
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_finite_array, check_real
from dpverify.continual.checks import check_n
from dpverify.continual.fda_optimal import fda_weights
from dpverify.continual.fenwick_tree import column_sq_norms, fenwick_strategy, strategy_column_sums
from dpverify.proofdocs import proven

__all__ = ["solve_diagonal_cvxpy", "kkt_certificate"]


def solve_diagonal_cvxpy(n: int, *, tol: float = 1e-12) -> tuple[np.ndarray, float]:
    """Solve (5.10) with cvxpy/Clarabel (a general convex solver, independent of the recursion).

    Returns ``(λ, f*)``.  Solved in the variables x_i = 1/λ_i, where it reads
    ``min Σ w_i x_i²  s.t.  Σ_{i on the path of p} 1/x_i <= 1`` -- the same problem,
    but with a strongly convex objective: Clarabel then gets λ to ~1e-7 (worst
    seen 3e-6, n = 23) and f* to ~1e-9, where in λ itself (flat objective) λ
    came out only to ~1e-6 at n = 4095.  Only the constraints of the leaf
    columns (odd p) are passed: the upward path of an inner node p is a suffix
    of the path of its child p - 1, so with λ > 0 its constraint is implied
    (same feasible set).  The objective is divided by the plain-Fenwick value
    Σw·Δ² (within a factor 4 of f*, and independent of the recursion) for
    conditioning; the status may be ``optimal_inaccurate`` at these tolerances.

    Example
    -------
    >>> from dpverify.continual.fda_optimal import fda_optimum
    >>> lam, f = solve_diagonal_cvxpy(3)
    >>> bool(np.allclose(lam, fda_weights(3), rtol=1e-6)), round(f, 6) == round(fda_optimum(3), 6)
    (True, True)
    """
    import warnings

    import cvxpy as cp

    n = check_n(n, per_node=4096, what=f"solve_diagonal_cvxpy(n={n})")
    tol = check_real(tol, "tol", positive=True)
    if not tol < 1:
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    w = column_sq_norms(n)
    leaf_cols = fenwick_strategy(n)[:, 0::2]
    scale = w.sum() * n.bit_length() ** 2  # f at the plain Fenwick weights 1/Δ
    x = cp.Variable(n, pos=True)
    obj = cp.Minimize(cp.sum(cp.multiply(w / scale, cp.square(x))))
    prob = cp.Problem(obj, [leaf_cols.T @ cp.inv_pos(x) <= 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=500)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy status {prob.status} for n={n}")
    return 1.0 / np.asarray(x.value, dtype=float), float(prob.value * scale)


@proven("continual/fda_any_n.md")
def kkt_certificate(n: int, weights=None) -> dict:
    """KKT check of λ for (5.10): multipliers μ = M⁻¹ (2 w / λ³) must be >= 0, complementary.

    Stationarity of ``Σ w_i/λ_i² + μᵀ(Mᵀλ - 1)`` is ``M μ = 2 w / λ³``; M is
    invertible, and row i of M covers node i's own interval, whose other
    counts are exactly its children's intervals, so ``μ_i = g_i - Σ_{children c} g_c``
    (O(n)).  For this convex problem KKT (μ >= 0, feasibility, μ_p (1 - u_p) = 0)
    proves global optimality.  Returns the worst violations (relative).

    Tolerance, stated honestly: this is a floating-point certificate, not an exact one.  The
    μ_i are differences of O(log n) float terms, so an exact zero multiplier can come out
    slightly negative: the library accepts ``min_mu_rel >= -1e-12`` and
    ``max_slack_times_mu_rel < 1e-9`` (seen: >= -1.5e-15 and <= 1.0e-12 for every n < 2000).
    ``max_colsum <= 1`` is checked exactly on the float weights (the 1 - 1e-12 guard).
    It certifies :func:`fda_weights` (the Fenwick forest of n); the release's forest of
    complete blocks is certified per block in ``continual/fda_any_n.md``.

    Example
    -------
    >>> c = kkt_certificate(7)
    >>> c["min_mu_rel"] >= -1e-12, c["max_colsum"] <= 1, c["max_slack_times_mu_rel"] < 1e-9   # μ ≥ 0 up to rounding
    (True, True, True)
    >>> kkt_certificate(3, [0.5, 0.5, 1.0])["max_slack_times_mu_rel"] > 0.1   # 1/2, 1/2, 1: not optimal
    True
    """
    n = check_n(n, per_node=96, what=f"kkt_certificate(n={n})")
    lam = fda_weights(n) if weights is None else check_finite_array(weights, "weights", shape=(n,))
    if (lam <= 0).any():
        raise ValueError(f"weights must be > 0, got {lam[lam <= 0][0]!r}")
    w = column_sq_norms(n)
    g = 2.0 * w / lam**3
    i = np.arange(1, n + 1)
    parent = i + (i & -i)
    has_parent = parent <= n
    child_sum = np.bincount(parent[has_parent] - 1, weights=g[has_parent], minlength=n)
    mu = g - child_sum  # proof: kkt-mu
    u = strategy_column_sums(lam)
    scale = g.max()
    return {
        "min_mu_rel": float(mu.min() / scale),
        "max_colsum": float(u.max()),
        "max_slack_times_mu_rel": float(np.max(np.abs(mu * (1.0 - u))) / scale),
        "n_tight": int(np.sum(u > 1 - 1e-9)),
    }
