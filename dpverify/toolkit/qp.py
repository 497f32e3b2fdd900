"""A convex QP optimum certified by its KKT conditions, exactly in rationals where possible.

The QP::

    min ½ xᵀQx + c·x   s.t.  A_ub x ≤ b_ub  (y ≥ 0),  A_eq x = b_eq  (z free),  x ≥ 0,

with Q positive semidefinite, is solved by cvxpy (Clarabel).  For a convex QP the KKT
conditions are sufficient: x feasible, y ≥ 0, the reduced gradient
g = Qx + c + A_ubᵀy + A_eqᵀz ≥ 0 and complementary slackness (y·slack = 0, x·g = 0) make x
a global minimiser.  :func:`qp_optimum` rounds (x, y, z) to nearby rationals and checks all of
it, and Q ⪰ 0, in exact arithmetic; when the rounded point does not verify, the float KKT
residual is reported instead.  Data are read as in :mod:`dpverify.toolkit.lp`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpverify.toolkit.lp import check_solver_range, matrix_entries, rationals
from dpverify.toolkit.shapes import check_shape, vector_length
from dpverify.validation import check_budget, check_positive_int

__all__ = ["QPOptimum", "qp_optimum"]


@dataclass(frozen=True)
class QPOptimum:
    """A QP minimum: ``value`` is a Fraction when ``exact`` (the KKT point verified exactly),
    else a float whose KKT conditions hold to within ``kkt_residual``."""

    value: Fraction | float
    x: tuple
    y_ub: tuple
    y_eq: tuple
    exact: bool
    kkt_residual: float

    def evidence(self) -> dict:
        return {"optimum": self.value, "exact": self.exact, "x": list(self.x), "y_ub": list(self.y_ub),
                "y_eq": list(self.y_eq), "kkt_residual": self.kkt_residual}


def _dense(A, m: int, n: int, name: str, b_name: str = "c") -> list[list[Fraction]]:
    M = [[Fraction(0)] * n for _ in range(m)]
    if A is not None:
        check_shape(A, name, m, n, b_name)  # a row without a right-hand side is refused, not dropped
    if m == 0:
        return M  # no constraint of this kind
    entries, _ = matrix_entries(A, name)
    check_solver_range([v for _, _, v in entries], name)
    for i, j, v in entries:
        M[i][j] = v
    return M


def _psd(Q: list[list[Fraction]]) -> bool:
    import sympy as sp

    return bool(sp.Matrix([[sp.Rational(v.numerator, v.denominator) for v in row] for row in Q]).is_positive_semidefinite)


def _kkt(Q, c, Au, bu, Ae, be, x, y, z):
    """(exact) KKT conditions; works on Fractions and, for residuals, on floats."""
    n = len(c)
    g = [sum(Q[j][k] * x[k] for k in range(n)) + c[j] + sum(Au[i][j] * y[i] for i in range(len(y)))
         + sum(Ae[i][j] * z[i] for i in range(len(z))) for j in range(n)]
    slack = [bu[i] - sum(Au[i][k] * x[k] for k in range(n)) for i in range(len(bu))]
    eq = [sum(Ae[i][k] * x[k] for k in range(n)) - be[i] for i in range(len(be))]
    return g, slack, eq


def qp_optimum(Q, c, *, A_ub=None, b_ub=None, A_eq=None, b_eq=None, max_denominator: int = 10**6) -> QPOptimum:
    """Minimise ``½ xᵀQx + c·x`` s.t. ``A_ub x ≤ b_ub``, ``A_eq x = b_eq``, ``x ≥ 0`` and certify it.

    Example
    -------
    >>> # min x² + y² s.t. x + 2y = 1 (Q = 2I): the minimum 1/5 at (1/5, 2/5), exactly
    >>> opt = qp_optimum([[2, 0], [0, 2]], [0, 0], A_eq=[[1, 2]], b_eq=[1])
    >>> opt.value, opt.x, opt.exact
    (Fraction(1, 5), (Fraction(1, 5), Fraction(2, 5)), True)
    """
    import cvxpy as cp

    max_denominator = check_positive_int(max_denominator, "max_denominator")
    if (A_ub is None) != (b_ub is None) or (A_eq is None) != (b_eq is None):
        raise ValueError("give A_ub with b_ub and A_eq with b_eq")
    if (n := vector_length(c, "c")) == 0:
        raise ValueError("c must have at least one entry")
    for A, name, m, b_name in ((Q, "Q", n, "c"), (A_ub, "A_ub", b_ub, "b_ub"), (A_eq, "A_eq", b_eq, "b_eq")):
        if A is not None:  # every size before any entry is converted
            check_shape(A, name, m if name == "Q" else vector_length(m, b_name), n, b_name)
    cq = rationals(c, "c")
    bu = rationals(b_ub, "b_ub") if b_ub is not None else []
    be = rationals(b_eq, "b_eq") if b_eq is not None else []
    for vec, name in ((cq, "c"), (bu, "b_ub"), (be, "b_eq")):
        check_solver_range(vec, name)
    check_budget(64.0 * n * (n + len(bu) + len(be)), f"c with {n} entries (dense exact n×n and constraint matrices)")
    Qq = _dense(Q, n, n, "Q")
    if any(Qq[i][j] != Qq[j][i] for i in range(n) for j in range(i)):
        raise ValueError("Q must be symmetric")
    if not _psd(Qq):
        raise ValueError("Q must be positive semidefinite (the QP must be convex)")
    Au, Ae = _dense(A_ub, len(bu), n, "A_ub", "b_ub"), _dense(A_eq, len(be), n, "A_eq", "b_eq")
    f = lambda M: np.array([[float(v) for v in row] for row in M], dtype=float).reshape(len(M), n)  # noqa: E731
    xv = cp.Variable(n)
    cons = [xv >= 0]
    if bu:
        cons.append(f(Au) @ xv <= np.array([float(v) for v in bu]))
    if be:
        cons.append(f(Ae) @ xv == np.array([float(v) for v in be]))
    Qf = f(Qq)
    prob = cp.Problem(cp.Minimize(0.5 * cp.quad_form(xv, cp.psd_wrap(Qf)) + np.array([float(v) for v in cq]) @ xv), cons)
    try:
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    except cp.error.SolverError:  # Clarabel can fail on a singular Q; OSQP (a cvxpy dependency) is the fallback
        try:
            prob.solve(solver=cp.OSQP, eps_abs=1e-10, eps_rel=1e-10, max_iter=100_000)
        except cp.error.SolverError as exc:
            raise ValueError(f"the QP solvers failed on Q, c and the constraints A_ub x <= b_ub, A_eq x = b_eq, "
                             f"x >= 0: {exc}") from None
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise ValueError(f"the QP has no optimum: {prob.status} (on Q, c and the constraints A_ub x <= b_ub, "
                         "A_eq x = b_eq, x >= 0)")
    x = np.asarray(xv.value, dtype=float)
    y = np.asarray(cons[1].dual_value, dtype=float).ravel() if bu else np.zeros(0)
    z0 = np.asarray(cons[-1].dual_value, dtype=float).ravel() if be else np.zeros(0)

    def resid(zz):
        g, slack, eq = _kkt(Qf, [float(v) for v in cq], f(Au), [float(v) for v in bu], f(Ae), [float(v) for v in be], x, y, zz)
        return max([0.0] + [max(0.0, -v) for v in g] + [max(0.0, -v) for v in slack] + [abs(v) for v in eq]
                   + [abs(a * b) for a, b in zip(x, g)] + [abs(a * b) for a, b in zip(y, slack)] + [max(0.0, -v) for v in y])

    z = min((z0, -z0), key=resid)  # cvxpy's sign convention for equality duals, whichever it is

    def q(v):
        return [Fraction(float(t)).limit_denominator(max_denominator) for t in v]

    xq, yq, zq = q(x), q(y), q(z)
    g, slack, eq = _kkt(Qq, cq, Au, bu, Ae, be, xq, yq, zq)
    ok = (all(v >= 0 for v in xq) and all(v >= 0 for v in yq) and all(v >= 0 for v in g) and all(v >= 0 for v in slack)
          and all(v == 0 for v in eq) and all(a * b == 0 for a, b in zip(xq, g)) and all(a * b == 0 for a, b in zip(yq, slack)))
    if ok:
        val = sum(xq[i] * Qq[i][j] * xq[j] for i in range(n) for j in range(n)) / 2 + sum(a * b for a, b in zip(cq, xq))
        return QPOptimum(val, tuple(xq), tuple(yq), tuple(zq), True, 0.0)
    return QPOptimum(float(prob.value), tuple(x.tolist()), tuple(y.tolist()), tuple(z.tolist()), False, float(resid(z)))
