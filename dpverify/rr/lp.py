"""Model (19)–(20) of Zhou, Lu and Wu's paper as a sparse LP, solved by HiGHS and by cvxpy/Clarabel, with dual certificates.

Variables x = vec(P) row-major (x[i n + j] = p_ij).  The LP, as a maximisation,

    max  c·x       c[i n + i] = π_i
    s.t. A_ub x ≤ b_ub   (LDP constraints, multipliers y_ub ≥ 0)
         A_eq x = 1      (row sums, multipliers y_eq free)
         x ≥ 0.

``definition="per_output"`` is the paper's (20): p_{aj} − e^ε p_{cj} ≤ δ for
a ≠ c and every j — n²(n−1) sparse rows with two non-zeros each.
``definition="standard"`` adds slack variables s_{acj} ≥ p_{aj} − e^ε p_{cj},
s ≥ 0, with Σ_j s_{acj} ≤ δ (the hockey-stick divergence of every ordered row
pair at most δ).  For δ = 0 the two definitions coincide.

Every solution is returned with a :class:`Certificate`: primal feasibility,
dual feasibility (y_ub ≥ 0, reduced costs A_ubᵀ y_ub + A_eqᵀ y_eq − c ≥ 0),
complementary slackness and the duality gap, all recomputed from the
solver's primal and dual vectors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sps

from dpverify.validation import check_budget, check_delta, check_epsilon, check_probability_vector, check_real
from dpverify.proofdocs import proven

__all__ = ["Certificate", "LPSolution", "certify", "ldp_lp", "solve_lp"]

SOLVERS = ("highs", "cvxpy")
_SCALE_ABOVE = math.log(1e6)  # ε beyond which the LDP rows are divided by e^ε


@dataclass(frozen=True)
class Certificate:
    """Residuals of the optimality conditions of a primal–dual pair (all 0 at an exact optimum)."""

    primal_infeasibility: float
    dual_infeasibility: float
    complementary_slackness: float
    duality_gap: float

    def ok(self, tol: float = 1e-9) -> bool:
        """All four residuals at most ``tol`` (a finite number >= 0; a NaN residual is never ok)."""
        tol = check_real(tol, "tol", nonneg=True)
        return max(self.primal_infeasibility, self.dual_infeasibility, self.complementary_slackness, self.duality_gap) <= tol


@dataclass(frozen=True)
class LPSolution:
    """An LP optimum: the design matrix, its utility, the dual vectors and the certificate."""

    P: np.ndarray
    u: float
    solver: str
    definition: str
    y_ub: np.ndarray
    y_eq: np.ndarray
    certificate: Certificate


@proven("rr/nary_optimum.md")
def ldp_lp(pi, epsilon: float, delta: float = 0.0, definition: str = "per_output"):
    """(c, A_ub, b_ub, A_eq, b_eq) of the utility LP (sparse CSR matrices).

    For ε > ln 10⁶ every LDP row is divided by e^ε, i.e. written as
    e^−ε p_aj − p_cj ≤ e^−ε δ (the same constraint): HiGHS rejects coefficients
    above 10¹⁵ (ε > 34.5) and e^ε overflows float64 beyond ε ≈ 709.78.

    Example
    -------
    >>> from dpverify.rr.lp import ldp_lp
    >>> c, A_ub, b_ub, A_eq, b_eq = ldp_lp([0.5, 0.3, 0.2], 1.0)
    >>> A_ub.shape, A_eq.shape                 # n²(n−1) LDP rows, n row sums
    ((18, 9), (3, 9))
    """
    p = check_probability_vector(pi, "pi")
    n = p.size
    if n < 2:
        raise ValueError(f"pi must have at least 2 entries (n >= 2), got {n}")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    # n²(n−1) constraints, two non-zeros each (values, rows, cols), plus the solver's copies
    check_budget(10 * 24.0 * n**2 * (n - 1), f"pi with {n} entries (an LP with n²(n−1) constraints)")
    # row scale: 1, or e^−ε for large ε (p_aj − E p_cj ≤ δ  ⇔  e^−ε p_aj − p_cj ≤ e^−ε δ)
    scale = 1.0 if eps <= _SCALE_ABOVE else math.exp(-eps)
    E = math.exp(eps) if scale == 1.0 else 1.0  # the coefficient of p_cj after scaling, up to sign
    if definition not in ("per_output", "standard"):
        raise ValueError(f"definition must be 'per_output' or 'standard', got {definition!r}")
    a, c, j = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    keep = a != c
    a, c, j = a[keep], c[keep], j[keep]
    m = a.size  # constraint (a, c, j): p_aj − E p_cj (− s_acj) ≤ δ (or 0)
    rows = np.repeat(np.arange(m), 2)
    cols = np.column_stack([a * n + j, c * n + j]).ravel()
    vals = np.tile([scale, -E], m)  # proof: lp-row
    nx = n * n
    A_eq = sps.kron(sps.eye(n), np.ones((1, n)), format="csr")
    if definition == "per_output" or dlt == 0.0:
        A_ub = sps.csr_matrix((vals, (rows, cols)), shape=(m, nx))
        b_ub = np.full(m, scale * dlt)
    else:
        # slack s_k for constraint k, grouped by ordered pair (a, c): Σ_j s_{acj} ≤ δ
        nv = nx + m
        A1 = sps.csr_matrix(
            (np.concatenate([vals, np.full(m, -scale)]), (np.concatenate([rows, np.arange(m)]), np.concatenate([cols, nx + np.arange(m)]))),
            shape=(m, nv),
        )
        pair = (a * n + c)[::n]  # constraints are ordered (a, c, j) with j fastest
        npairs = pair.size
        A2 = sps.csr_matrix((np.ones(m), (np.repeat(np.arange(npairs), n), nx + np.arange(m))), shape=(npairs, nv))
        A_ub = sps.vstack([A1, A2], format="csr")
        b_ub = np.concatenate([np.zeros(m), np.full(npairs, dlt)])
        A_eq = sps.hstack([A_eq, sps.csr_matrix((n, m))], format="csr")
        nx = nv
    cvec = np.zeros(nx)
    cvec[np.arange(n) * (n + 1)] = p
    return cvec, A_ub, b_ub, A_eq, np.ones(n)


def certify(c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq) -> Certificate:
    """Residuals of primal/dual feasibility, complementary slackness and the gap of (x, y).

    Example
    -------
    >>> c, A_ub, b_ub, A_eq, b_eq = ldp_lp([0.2, 0.8], 0.1)
    >>> sol = solve_lp([0.2, 0.8], 0.1)                     # P = [[0, 1], [0, 1]], u = 0.8
    >>> certify(c, A_ub, b_ub, A_eq, b_eq, sol.P.ravel(), sol.y_ub, sol.y_eq).ok()
    True
    >>> round(certify(c, A_ub, b_ub, A_eq, b_eq, sol.P.ravel(), sol.y_ub, sol.y_eq + 0.1).duality_gap, 12)
    0.2
    """
    from dpverify.toolkit.lp import lp_residuals  # the one implementation (dpverify.toolkit)

    return Certificate(*lp_residuals(c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq))


def solve_lp(pi, epsilon: float, delta: float = 0.0, definition: str = "per_output", solver: str = "highs") -> LPSolution:
    """Solve the utility LP with HiGHS (scipy) or cvxpy/Clarabel and certify the optimum.

    Example
    -------
    >>> from dpverify.rr.lp import solve_lp
    >>> sol = solve_lp([0.2, 0.8], 0.1, 0.15)
    >>> round(sol.u, 9), sol.certificate.ok(1e-9)
    (0.83, True)
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    c, A_ub, b_ub, A_eq, b_eq = ldp_lp(pi, epsilon, delta, definition)
    n = A_eq.shape[0]
    if solver == "highs":
        from scipy.optimize import linprog

        res = linprog(-c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs",
                      options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        if res.status != 0:
            raise RuntimeError(f"HiGHS failed: {res.message}")
        x = res.x
        y_ub, y_eq = -res.ineqlin.marginals, -res.eqlin.marginals  # min(−c) sensitivities → max duals
    else:
        import cvxpy as cp

        xv = cp.Variable(c.size)
        cons = [A_ub @ xv <= b_ub, A_eq @ xv == b_eq, xv >= 0]
        prob = cp.Problem(cp.Maximize(c @ xv), cons)
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
        if prob.status != cp.OPTIMAL:
            raise RuntimeError(f"cvxpy/Clarabel failed: {prob.status}")
        x = np.asarray(xv.value, dtype=float)
        y_ub, y_eq = np.asarray(cons[0].dual_value, dtype=float), np.asarray(cons[1].dual_value, dtype=float)
    cert = certify(c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq)
    P = x[: n * n].reshape(n, n)
    return LPSolution(P, float(c @ x), solver, definition, y_ub, y_eq, cert)
