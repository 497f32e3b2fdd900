"""The binary randomized-response optimum derived symbolically from the LP itself.

Model I (δ = 0) and model II (δ > 0) of Zhou, Lu and Wu's paper maximise u = π0 p00 + π1 p11
over the (ε, δ)-LDP design matrices [[p00, 1 − p00], [1 − p11, p11]] (eqs.
(2)–(3), (13)–(14)).  Nothing here is transcribed from the paper: the feasible
region's vertices are the feasible intersections of pairs of constraint lines
(solved by sympy), the optimum is the upper envelope of the objective over the
vertices, and every sign needed on the way (feasibility of a vertex, the order
of two regime boundaries) is decided for *all* ε > 0 and δ ∈ (0, 1) by
:func:`sign_everywhere`.  The paper's (4), (15) and the simplex reduced costs
(7)–(9), (16)–(18) are then checked against this derivation (see
``dpverify/rr/claims/`` and ``rr/binary_optimum.md``).

We write E = e^ε (so E > 1) throughout and substitute back at the end.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp
from sympy.polys.matrices import DomainMatrix
from dpverify.proofdocs import proven
from dpverify.validation import check_bool
from dpverify.toolkit.symbolic import expression

__all__ = [
    "BinaryRegime",
    "E",
    "binary_constraints",
    "binary_regimes",
    "binary_vertices",
    "delta",
    "eps",
    "optimality_interval",
    "p00",
    "p11",
    "pi0",
    "reduced_costs",
    "sign_everywhere",
    "standard_form",
    "symbolic_optimum",
]

eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", nonnegative=True)
pi0 = sp.Symbol("pi0", nonnegative=True)
E = sp.Symbol("e^ε", positive=True)  # E = e^ε > 1, printed "e^ε" (never Euler's number E)
p00, p11 = sp.symbols("p00 p11", real=True)
_t, _s = sp.symbols("t s", positive=True)


@proven("rr/binary_optimum.md")
def sign_everywhere(expr: sp.Expr, with_delta: bool) -> int | None:
    """The sign of ``expr`` for every E > 1 (and every δ ∈ (0, 1)), or None if it changes.

    Substitute E = 1 + t and δ = s/(1 + s) with t, s > 0; a rational function
    whose numerator and denominator polynomials in (t, s) have coefficients of
    one sign each has that sign everywhere.  Returns 0 for the zero function,
    ±1 when decided, None when this sufficient test cannot decide.

    Example
    -------
    >>> sign_everywhere(E - 1, False), sign_everywhere(-(E + delta) / (E + 1), True)
    (1, -1)
    >>> sign_everywhere(E - 3, False) is None      # negative for E < 3, positive beyond
    True
    """
    with_delta = check_bool(with_delta, "with_delta")
    x = expression(expr, "expr").subs(E, 1 + _t)
    if with_delta:
        x = x.subs(delta, _s / (1 + _s))
    # f: a reduced fraction of polynomials in (t, s) over QQ
    try:
        f = _FIELD.from_sympy(x)  # proof: sign-test
    except (ValueError, TypeError, sp.PolynomialError) as exc:
        raise ValueError(f"expr must be a rational function of e^ε{' and δ' if with_delta else ''} with rational "
                         f"coefficients, got {expr!r} ({exc})") from None
    if not f.numer:
        return 0

    def poly_sign(coeffs) -> int | None:
        if all(c > 0 for c in coeffs):
            return 1
        if all(c < 0 for c in coeffs):
            return -1
        return None

    a, b = poly_sign(f.numer.coeffs()), poly_sign(f.denom.coeffs())
    return None if a is None or b is None else a * b


_FIELD = sp.QQ.frac_field(_t, _s)


def binary_constraints(with_delta: bool = True) -> list[tuple[sp.Expr, str]]:
    """The constraints of model II (model I when ``with_delta`` is False) as ``g <= 0``.

    Returned as (g, label) with g linear in (p00, p11); labels name the
    paper's inequality in (14) (resp. (3)).

    Example
    -------
    >>> g, label = binary_constraints()[0]
    >>> len(binary_constraints()), label, g
    (8, '1-p11 <= e^eps p00 + delta', -delta - e^ε*p00 - p11 + 1)
    """
    with_delta = check_bool(with_delta, "with_delta")
    d = delta if with_delta else sp.Integer(0)
    return [
        ((1 - p11) - (E * p00 + d), "1-p11 <= e^eps p00 + delta"),
        ((1 - p00) - (E * p11 + d), "1-p00 <= e^eps p11 + delta"),
        (p00 - (E * (1 - p11) + d), "p00 <= e^eps (1-p11) + delta"),
        (p11 - (E * (1 - p00) + d), "p11 <= e^eps (1-p00) + delta"),
        (-p00, "p00 >= 0"),
        (-p11, "p11 >= 0"),
        (p00 - 1, "p00 <= 1"),
        (p11 - 1, "p11 <= 1"),
    ]


@proven("rr/binary_optimum.md")
@lru_cache(maxsize=None)
def binary_vertices(with_delta: bool = True) -> tuple[tuple[sp.Expr, sp.Expr], ...]:
    """Vertices (p00, p11) of the feasible region, valid for all E > 1 (and δ ∈ (0, 1)).

    Every pair of constraint lines is intersected; an intersection is a vertex
    iff it satisfies every constraint for all parameters.  Raises
    ``ArithmeticError`` if feasibility of some intersection depends on the
    parameters (it does not for this LP).
    """
    with_delta = check_bool(with_delta, "with_delta")
    cons = [g for g, _ in binary_constraints(with_delta)]
    verts: list[tuple[sp.Expr, sp.Expr]] = []
    for g1, g2 in itertools.combinations(cons, 2):
        # Cramer's rule on a1 p00 + b1 p11 + c1 = 0, a2 p00 + b2 p11 + c2 = 0
        (a1, b1), (a2, b2) = ([sp.expand(g).coeff(v) for v in (p00, p11)] for g in (g1, g2))
        c1, c2 = g1.subs({p00: 0, p11: 0}), g2.subs({p00: 0, p11: 0})
        det = sp.cancel(a1 * b2 - a2 * b1)
        if det == 0:
            continue  # parallel lines
        x = (sp.factor(sp.cancel((b1 * c2 - b2 * c1) / det)), sp.factor(sp.cancel((a2 * c1 - a1 * c2) / det)))
        signs = []
        for g in cons:
            signs.append(sign_everywhere(g.subs({p00: x[0], p11: x[1]}), with_delta))  # proof: vertex-feasible
            if signs[-1] == 1:
                break  # violates this constraint for every parameter value
        if signs[-1] == 1:
            continue
        if any(sg is None for sg in signs):
            raise ArithmeticError(f"feasibility of {x} depends on the parameters")
        if not any(sp.cancel(x[0] - v[0]) == 0 and sp.cancel(x[1] - v[1]) == 0 for v in verts):
            verts.append(x)
    return tuple(verts)


@dataclass(frozen=True)
class BinaryRegime:
    """One piece of the optimum: for ``lower <= pi0 <= upper`` the vertex ``vertex`` is optimal."""

    lower: sp.Expr
    upper: sp.Expr
    vertex: tuple[sp.Expr, sp.Expr]
    u: sp.Expr

    @property
    def design_matrix(self) -> sp.Matrix:
        a, b = self.vertex
        return sp.Matrix([[a, 1 - a], [1 - b, b]])


def _extreme(bounds: list[sp.Expr], with_delta: bool, largest: bool) -> sp.Expr:
    best = bounds[0]
    for b in bounds[1:]:
        sg = sign_everywhere(b - best, with_delta)
        if sg is None:
            raise ArithmeticError(f"order of {b} and {best} depends on the parameters")
        if (sg > 0) == largest and sg != 0:
            best = b
    return best


@lru_cache(maxsize=None)
def binary_regimes(with_delta: bool = True) -> tuple[BinaryRegime, ...]:
    """The upper envelope of u over the vertices, as regimes in π0, sorted by π0.

    Vertices whose u is below another vertex's at both π0 = 0 and π0 = 1 are
    dropped first (u is linear in π0).  For the remaining vertices v, w:
    u_v − u_w = α + β π0, and v is optimal on the interval cut out of [0, 1]
    by the half-lines {α + β π0 ≥ 0}; regimes of zero length are dropped.
    """
    with_delta = check_bool(with_delta, "with_delta")
    verts = binary_vertices(with_delta)
    u_all = [sp.expand(pi0 * a + (1 - pi0) * b) for a, b in verts]

    def dominated_by(v: int, w: int) -> bool:
        # u is linear in π0: w ≥ v on [0, 1] iff it is at both ends; ties broken by index
        ends = [sign_everywhere((u_all[w] - u_all[v]).subs(pi0, t), with_delta) for t in (0, 1)]
        return all(e in (0, 1) for e in ends) and (any(e == 1 for e in ends) or w < v)

    keep = [v for v in range(len(verts)) if not any(dominated_by(v, w) for w in range(len(verts)) if w != v)]
    verts = tuple(verts[v] for v in keep)
    u = [u_all[v] for v in keep]
    regimes = []
    for v, uv in enumerate(u):
        lows, ups, dominated = [sp.Integer(0)], [sp.Integer(1)], False
        for w, uw in enumerate(u):
            if w == v:
                continue
            diff = sp.expand(uv - uw)
            beta = sp.cancel(diff.coeff(pi0))
            alpha = sp.cancel(diff.subs(pi0, 0))
            sb = sign_everywhere(beta, with_delta)
            if sb == 0:
                sa = sign_everywhere(alpha, with_delta)
                if sa is None:
                    raise ArithmeticError(f"u difference {alpha} changes sign")
                dominated |= sa < 0
            elif sb is None:
                raise ArithmeticError(f"slope difference {beta} changes sign")
            elif sb > 0:
                lows.append(sp.factor(-alpha / beta))
            else:
                ups.append(sp.factor(-alpha / beta))
        if dominated:
            continue
        lo, hi = _extreme(lows, with_delta, True), _extreme(ups, with_delta, False)
        if sign_everywhere(hi - lo, with_delta) != 1:
            continue  # empty or a single point
        regimes.append(BinaryRegime(lo, hi, verts[v], sp.factor(uv)))
    regimes.sort(key=lambda r: float(r.lower.subs({E: 2, delta: sp.Rational(1, 3)})))
    return tuple(regimes)


def _check_delta_value(value) -> sp.Expr:
    """δ as an exact sympy number in [0, 1) (floats by their decimal repr), else ValueError/TypeError."""
    from dpverify.validation import check_delta

    if isinstance(value, sp.Basic):
        if not (value.is_number and value.is_real and value.is_finite):
            raise TypeError(f"delta_value must be a real number, got {value!r}")
        check_delta(float(value), "delta_value")
        return value
    v = check_delta(value, "delta_value")  # rejects strings, bools, NaN, inf and values outside [0, 1)
    return sp.Rational(repr(v)) if isinstance(value, float) else sp.nsimplify(value)


def symbolic_optimum(delta_value: sp.Expr | float | None = None) -> sp.Piecewise:
    """u*(ε, δ, π0) of the binary model as a sympy ``Piecewise``, derived from the LP.

    Parameters
    ----------
    delta_value : None, 0 or a number in (0, 1)
        ``None`` (default): model II with the symbol ``delta`` (δ > 0).  ``0``:
        model I (its own vertex enumeration, not a limit).  A number: model II
        with δ substituted.

    Example
    -------
    >>> import sympy as sp
    >>> from dpverify.rr import symbolic_optimum
    >>> from dpverify.rr.symbolic import eps, pi0
    >>> u = symbolic_optimum(0)
    >>> sp.simplify(u.subs({pi0: sp.Rational(1, 2)}) - sp.exp(eps) / (sp.exp(eps) + 1))
    0

    Reference: Zhou, Lu, Wu 2019, eqs. (4) and (15).
    """
    if delta_value is not None:
        delta_value = _check_delta_value(delta_value)
    with_delta = not (delta_value is not None and delta_value == 0)
    pieces = []
    for r in binary_regimes(with_delta):
        cond = sp.And(pi0 >= r.lower.subs(E, sp.exp(eps)), pi0 <= r.upper.subs(E, sp.exp(eps)))
        pieces.append((r.u.subs(E, sp.exp(eps)), cond))
    pw = sp.Piecewise(*pieces)
    if with_delta and delta_value is not None:
        pw = pw.subs(delta, sp.sympify(delta_value))
    return pw


# ----------------------------------------------------------------------------- simplex check


@proven("rr/binary_optimum.md")
def standard_form(with_delta: bool = True, paper_b: bool = False) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """(A, b, C) of the paper's standard form max CX, AX = b, X ≥ 0 (x1 = p00, x2 = p11).

    Rows: E x1 + x2 − x3 = 1 − δ; x1 + E x2 − x4 = 1 − δ; x1 + E x2 + x5 = E + δ;
    E x1 + x2 + x6 = E + δ; x1 + x7 = 1; x2 + x8 = 1 (derived from (14)).  With
    ``paper_b=True`` the right-hand side is the one printed in §3.2.2,
    b = (1 − δ, 1 − δ, e^ε, e^ε, 1, 1), which drops the δ of rows 3 and 4.

    Example
    -------
    >>> A, b, C = standard_form()
    >>> A.shape, list(b), list(standard_form(paper_b=True)[1])
    ((6, 8), [1 - delta, 1 - delta, delta + e^ε, delta + e^ε, 1, 1], [1 - delta, 1 - delta, e^ε, e^ε, 1, 1])
    """
    with_delta = check_bool(with_delta, "with_delta")
    paper_b = check_bool(paper_b, "paper_b")
    d = delta if with_delta else sp.Integer(0)
    A = sp.Matrix(
        [
            [E, 1, -1, 0, 0, 0, 0, 0],
            [1, E, 0, -1, 0, 0, 0, 0],
            [1, E, 0, 0, 1, 0, 0, 0],
            [E, 1, 0, 0, 0, 1, 0, 0],
            [1, 0, 0, 0, 0, 0, 1, 0],
            [0, 1, 0, 0, 0, 0, 0, 1],
        ]
    )
    top = E if paper_b else E + d  # proof: rhs-rows-3-4
    b = sp.Matrix([1 - d, 1 - d, top, top, 1, 1])
    C = sp.Matrix([[pi0, 1 - pi0, 0, 0, 0, 0, 0, 0]])
    return A, b, C


def _check_basis(basis) -> tuple[int, ...]:
    """A basis of the standard form: 6 distinct 1-based column numbers in 1..8."""
    basis = basis.tolist() if isinstance(basis, np.ndarray) and basis.shape == (6,) else basis
    if not isinstance(basis, (tuple, list)):
        raise TypeError(f"basis must be a tuple of 6 column numbers in 1..8, got {basis!r}")
    if len(basis) != 6 or len(set(basis)) != 6 or any(
            isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)) or not 1 <= j <= 8 for j in basis):
        raise ValueError(f"basis must be 6 distinct column numbers in 1..8, got {basis!r}")
    return tuple(int(j) for j in basis)


@proven("rr/binary_optimum.md")
def reduced_costs(basis: tuple[int, ...], with_delta: bool = True, paper_b: bool = False):
    """Reduced costs σ_j = c_j − c_B B⁻¹ a_j of the non-basic columns and the basic solution.

    ``basis`` uses the paper's 1-based column numbers.  Returns
    ``(sigma, x)`` with ``sigma`` a dict {j: σ_j} (1-based) and ``x`` the full
    basic solution X (a sympy Matrix of length 8).

    Example
    -------
    >>> sigma, x = reduced_costs((1, 2, 3, 4, 7, 8), with_delta=False)   # the symmetric RR basis of (7)
    >>> sorted(sigma), (x[0], x[1])
    ([5, 6], (e^ε/(e^ε + 1), e^ε/(e^ε + 1)))
    """
    with_delta = check_bool(with_delta, "with_delta")
    paper_b = check_bool(paper_b, "paper_b")
    basis = _check_basis(basis)
    A, b, C = standard_form(with_delta, paper_b)
    idx = [j - 1 for j in basis]
    B = A[:, idx]
    cB = C[:, idx]
    Binv = DomainMatrix.from_Matrix(B).to_field().inv().to_Matrix()  # exact inverse over QQ(E, δ)
    xB = (Binv * b).applyfunc(sp.cancel)
    x = sp.zeros(8, 1)
    for k, j in enumerate(idx):
        x[j] = sp.factor(xB[k])
    # simplex multipliers y = c_B B⁻¹ (the dual solution of this basis)
    y = (cB * Binv).applyfunc(sp.cancel)  # proof: simplex-multipliers
    sigma = {j + 1: sp.factor(sp.cancel(C[j] - (y * A[:, j])[0])) for j in range(8) if j not in idx}  # proof: reduced-cost
    return sigma, x


def optimality_interval(sigma: dict, with_delta: bool = True) -> tuple[sp.Expr, sp.Expr] | None:
    """The π0-interval on which every reduced cost in ``sigma`` is ≤ 0 (None if empty).

    Each σ_j is linear in π0, σ_j = α + β π0; its sign pattern in π0 is
    decided for all parameters by :func:`sign_everywhere`.

    Example
    -------
    >>> optimality_interval(reduced_costs((1, 2, 3, 4, 7, 8), False)[0], False)
    (1/(e^ε + 1), e^ε/(e^ε + 1))
    """
    with_delta = check_bool(with_delta, "with_delta")
    if not isinstance(sigma, Mapping):
        raise TypeError(f"sigma must map column numbers to reduced costs (reduced_costs' first value), got {sigma!r}")
    lows, ups = [sp.Integer(0)], [sp.Integer(1)]
    for j, sj in sigma.items():
        num, den = sp.fraction(sp.cancel(sp.expand(sp.cancel(expression(sj, "sigma")))))
        beta, alpha = sp.expand(num).coeff(pi0), sp.expand(num).subs(pi0, 0)
        try:
            sd, sb, sa = (sign_everywhere(x, with_delta) for x in (den, beta, alpha))
        except ValueError as exc:
            raise ValueError(f"sigma[{j!r}] is not linear in pi0 over rational functions of e^ε: {exc}") from None
        if sd is None or sb is None or (sb == 0 and sa is None):
            raise ArithmeticError(f"sign of {sj} depends on the parameters")
        if sb == 0:
            if sa * sd == 1:
                return None  # σ_j > 0 for every π0
            continue
        root = sp.factor(-alpha / beta)
        # sd*(alpha + beta*pi0) <= 0  <=>  pi0 <= root if sd*sb > 0, else pi0 >= root
        (ups if sd * sb > 0 else lows).append(root)
    lo, hi = _extreme(lows, with_delta, True), _extreme(ups, with_delta, False)
    return None if sign_everywhere(hi - lo, with_delta) == -1 else (lo, hi)
