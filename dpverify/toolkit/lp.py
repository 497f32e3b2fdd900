"""An LP optimum certified by its dual: exactly in rationals where possible.

The LP, as a maximisation in standard form::

    max  c·x   s.t.  A_ub x ≤ b_ub  (multipliers y_ub ≥ 0),  A_eq x = b_eq  (y_eq free),  x ≥ 0,

has the dual ``min b_ub·y_ub + b_eq·y_eq`` s.t. ``A_ubᵀ y_ub + A_eqᵀ y_eq ≥ c``.
A feasible primal–dual pair with equal objectives is optimal (weak duality),
so checking the pair needs no trust in the solver.  :func:`lp_optimum` solves
with HiGHS (scipy), rounds the primal and dual vectors to nearby rationals
and checks the pair in exact arithmetic (:func:`exact_lp_certificate`); when
the rounded pair does not verify exactly, the float residuals
(:func:`lp_residuals`) are reported and the optimum is certified only to
their size.  Data given as floats are read as the decimals they print as
(``0.1`` → 1/10); pass :class:`fractions.Fraction` or strings for other values.
"""

from __future__ import annotations

import decimal
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpverify.toolkit.shapes import check_shape, checked_coo, vector_length
from dpverify.validation import check_bool, check_elements, check_finite_array, check_positive_int

__all__ = ["LPOptimum", "SOLVER_RANGE", "check_solver_range", "exact_lp_certificate", "lp_optimum", "lp_residuals", "rationals",
           "to_fraction"]

_MAX_EXACT_NNZ = 2_000_000


def lp_residuals(c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq) -> tuple[float, float, float, float]:
    """Float residuals of a primal–dual pair of the max-form LP (all 0 at an exact optimum).

    Returns ``(primal_infeasibility, dual_infeasibility, complementary_slackness, duality_gap)``.

    Example
    -------
    >>> import numpy as np
    >>> A = np.array([[1.0, 1.0]]); c = np.array([1.0, 2.0])
    >>> lp_residuals(c, A, np.array([1.0]), np.zeros((0, 2)), np.zeros(0), np.array([0.0, 1.0]),
    ...              np.array([2.0]), np.zeros(0))
    (0.0, 0.0, 0.0, 0.0)
    """
    c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq = _float_lp(c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq)
    slack = b_ub - A_ub @ x
    r = A_ub.T @ y_ub + A_eq.T @ y_eq - c  # reduced costs of the max problem
    eq = np.abs(A_eq @ x - b_eq)
    primal = max(0.0, float(np.max(-slack, initial=0.0)), float(np.max(eq, initial=0.0)), float(np.max(-x, initial=0.0)))
    dual = max(0.0, float(np.max(-y_ub, initial=0.0)), float(np.max(-r, initial=0.0)))
    cs = max(float(np.max(np.abs(y_ub * slack), initial=0.0)), float(np.max(np.abs(x * r), initial=0.0)))
    gap = abs(float(c @ x) - float(b_ub @ y_ub + b_eq @ y_eq))
    out = (primal, dual, cs, gap)
    if not all(math.isfinite(v) for v in out):
        data = {"c": c, "A_ub": A_ub, "b_ub": b_ub, "A_eq": A_eq, "b_eq": b_eq, "x": x, "y_ub": y_ub, "y_eq": y_eq}
        top = {k: float(np.max(np.abs(v.tocoo().data if hasattr(v, "tocoo") else v), initial=0.0))
               for k, v in data.items()}
        big = max(top, key=top.get)
        raise ValueError(f"the residuals overflow float64: {big} has entries up to {top[big]:.3g} in absolute value")
    return out


def _float_matrix(A: Any, name: str, m: int, n: int, b_name: str):
    """A finite float matrix (dense, or scipy sparse as is) of shape (m, n); errors name ``name``."""
    if hasattr(A, "tocoo") and hasattr(A, "shape"):
        coo = checked_coo(A, name)
        check_elements(coo.data, name)
        if not np.all(np.isfinite(coo.data)):
            raise ValueError(f"{name} must be finite")
        M = A
    else:
        if A is None or isinstance(A, (str, bytes, dict)):
            raise TypeError(f"{name} must be a matrix, got {A!r}")
        M = check_finite_array(A, name)
        if m == 0 and M.shape in ((0,), (0, n)):  # no row, as no right-hand side
            M = M.reshape(0, n)
        if M.ndim != 2:
            raise ValueError(f"{name} must be a 2-d matrix, got shape {M.shape}")
    if tuple(M.shape) != (m, n):
        raise ValueError(f"{name} has shape {tuple(M.shape)}, expected {(m, n)}: one row per entry of {b_name} "
                         f"({m}), one column per entry of c ({n})")
    return M


def _float_lp(c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq) -> tuple:
    """The float data of :func:`lp_residuals`, checked: finite vectors and matrices of matching sizes."""
    vec = {}
    for name, v in (("c", c), ("b_ub", b_ub), ("b_eq", b_eq), ("x", x), ("y_ub", y_ub), ("y_eq", y_eq)):
        if v is None or isinstance(v, (str, bytes, dict)):
            raise TypeError(f"{name} must be a vector of reals, got {v!r}")
        vec[name] = check_finite_array(v, name, ndim=1)
    n, m, k = len(vec["c"]), len(vec["b_ub"]), len(vec["b_eq"])
    for name, want, what in (("x", n, "c"), ("y_ub", m, "b_ub"), ("y_eq", k, "b_eq")):
        if len(vec[name]) != want:
            raise ValueError(f"{name} must have one entry per entry of {what} ({want}), got {len(vec[name])}")
    Au, Ae = _float_matrix(A_ub, "A_ub", m, n, "b_ub"), _float_matrix(A_eq, "A_eq", k, n, "b_eq")
    return vec["c"], Au, vec["b_ub"], Ae, vec["b_eq"], vec["x"], vec["y_ub"], vec["y_eq"]


def to_fraction(v: Any, name: str = "LP data") -> Fraction:
    """A number as an exact :class:`fractions.Fraction`: the library's one reader of rationals.

    Parameters
    ----------
    v : int, Fraction, float, str, decimal.Decimal or sympy Rational
        The number.  A float is read as the decimal it prints as (its shortest ``repr``:
        ``0.15`` → 3/20); a string as ``"p/q"`` or a decimal literal.
    name : str, optional
        What ``v`` is, for the error messages.

    Returns
    -------
    Fraction

    Raises
    ------
    TypeError
        ``v`` is a bool, a non-rational sympy number, a string that is no rational, or of another type.
    ValueError
        ``v`` is a NaN or infinite float.

    Example
    -------
    >>> from dpverify.toolkit.lp import to_fraction
    >>> to_fraction(0.15), to_fraction("1/3"), to_fraction(4)
    (Fraction(3, 20), Fraction(1, 3), Fraction(4, 1))
    >>> to_fraction(float("nan"), "delta")
    Traceback (most recent call last):
    ...
    ValueError: delta must be finite, got nan
    """
    if isinstance(v, bool):
        raise TypeError(f"{name} must be rational, got {v!r}")
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (numbers.Integral, np.integer)):
        return Fraction(int(v))
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(float(v)):
            raise ValueError(f"{name} must be finite, got {v!r}")
        return Fraction(repr(float(v)))  # the decimal the user typed: 0.15 -> 3/20
    if isinstance(v, decimal.Decimal):
        if not v.is_finite():
            raise ValueError(f"{name} must be finite, got {v!r}")
        return Fraction(v)
    if hasattr(v, "is_Rational") and hasattr(v, "free_symbols"):  # a sympy number, without importing sympy
        if v.is_Rational:
            return Fraction(int(v.p), int(v.q))
        raise TypeError(f"{name} must be rational, got {v!r}")
    if isinstance(v, str):
        try:
            return Fraction(v)
        except ValueError:
            raise TypeError(f"{name} must be rational, got {v!r}") from None
    raise TypeError(f"{name} must be rational, got {v!r} of type {type(v).__name__}")


#: Entries beyond this magnitude are refused: the float solvers read them as infinite (HiGHS: 1e20,
#: and matrix entries above 1e15 are a model error), so no certificate could be found.
SOLVER_RANGE = 1e15


def rationals(v: Any, name: str) -> list[Fraction]:
    """A vector (a number, a list or a 1-d array) as exact Fractions; errors name ``name``.

    Example
    -------
    >>> rationals([1, "1/3", 0.5], "b")
    [Fraction(1, 1), Fraction(1, 3), Fraction(1, 2)]
    """
    if v is None or isinstance(v, (str, bytes, dict)):
        raise TypeError(f"{name} must be a vector of rationals, got {v!r}")
    raw = _object_array(v, name)
    if raw.ndim > 1:
        raise ValueError(f"{name} must be a vector, got shape {raw.shape}")
    return [to_fraction(x, name) for x in raw.ravel()]


def _object_array(v: Any, name: str) -> np.ndarray:
    try:
        raw = np.asarray(v)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a (rectangular) array of rationals: {exc}") from None
    check_elements(raw, name, itemsize=64)  # a Fraction is about 64 bytes and more
    return raw if raw.dtype == object else np.asarray(v, dtype=object)


def check_solver_range(values, name: str) -> None:
    """Refuse entries beyond :data:`SOLVER_RANGE` in absolute value (ValueError naming ``name``).

    >>> check_solver_range([1, -2.5], "c")
    >>> check_solver_range([1e300], "c")
    Traceback (most recent call last):
    ...
    ValueError: c entries must be at most 1e+15 in absolute value for the float solver, got 1e+300
    """
    big = [v for v in (values if isinstance(values, list) else rationals(values, name)) if abs(v) > SOLVER_RANGE]
    if big:
        raise ValueError(f"{name} entries must be at most {SOLVER_RANGE:g} in absolute value for the float solver, "
                         f"got {float(big[0]):.3g}")


def matrix_entries(A: Any, name: str) -> tuple[list[tuple[int, int, Fraction]], tuple[int, int]]:
    """The non-zero entries of a matrix (dense, nested lists, scipy sparse, or {(i, j): v}) as Fractions."""
    if isinstance(A, dict):
        if not all(isinstance(k, tuple) and len(k) == 2 and all(
                isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 0 for t in k) for k in A):
            raise TypeError(f"{name} as a dict must map (row, col) pairs of indices >= 0 to values")
        rows = max((i for i, _ in A), default=-1) + 1
        cols = max((j for _, j in A), default=-1) + 1
        return [(i, j, to_fraction(v, name)) for (i, j), v in A.items() if v != 0], (rows, cols)
    if hasattr(A, "tocoo"):
        coo = checked_coo(A, name)
        if coo.nnz > _MAX_EXACT_NNZ:
            raise ValueError(f"{name} has {coo.nnz} non-zeros; exact verification is limited to {_MAX_EXACT_NNZ}")
        return [(int(i), int(j), to_fraction(v, name)) for i, j, v in zip(coo.row, coo.col, coo.data) if v != 0], coo.shape
    if A is None or isinstance(A, (str, bytes)):
        raise TypeError(f"{name} must be a matrix, got {A!r}")
    M = _object_array(A, name)
    if M.ndim != 2:
        raise ValueError(f"{name} must be a 2-d matrix, got shape {M.shape}")
    return [(i, j, f) for i in range(M.shape[0]) for j in range(M.shape[1])
            if (f := to_fraction(M[i, j], name)) != 0], M.shape


def exact_lp_certificate(c, A_ub, b_ub, A_eq, b_eq, x, y_ub, y_eq) -> dict[str, bool]:
    """Check a primal–dual pair of the max-form LP in exact rational arithmetic.

    Returns ``primal_feasible``, ``dual_feasible``, ``complementary_slackness``
    and ``zero_gap`` (all True: the pair is optimal, and ``c·x`` is the exact optimum).
    Matrices may be dense, nested lists, scipy sparse or ``{(row, col): value}``.

    Example
    -------
    >>> from fractions import Fraction as F
    >>> cert = exact_lp_certificate([1, 2], [[1, 1]], [1], {}, [], [0, 1], [2], [])
    >>> all(cert.values())
    True
    >>> exact_lp_certificate([1, 2], [[1, 1]], [1], {}, [], [0, 1], [F(3, 2)], [])["dual_feasible"]
    False
    """
    n, mu, me = vector_length(c, "c"), vector_length(b_ub, "b_ub"), vector_length(b_eq, "b_eq")
    for name, v, want, what in (("x", x, n, "c"), ("y_ub", y_ub, mu, "b_ub"), ("y_eq", y_eq, me, "b_eq")):
        if (got := vector_length(v, name)) != want:
            raise ValueError(f"dimensions do not match: {name} must have one entry per entry of {what} ({want}), "
                             f"got {got}")
    check_shape(A_ub, "A_ub", mu, n, "b_ub")  # every size before any entry is converted
    check_shape(A_eq, "A_eq", me, n, "b_eq")
    cq, bu, be = rationals(c, "c"), rationals(b_ub, "b_ub"), rationals(b_eq, "b_eq")
    xu, yu, ye = rationals(x, "x"), rationals(y_ub, "y_ub"), rationals(y_eq, "y_eq")
    Au = _exact_matrix(A_ub, "A_ub", mu, n, "b_ub")
    Ae = _exact_matrix(A_eq, "A_eq", me, n, "b_eq")
    lhs_u, lhs_e = [Fraction(0)] * len(bu), [Fraction(0)] * len(be)
    r = [-v for v in cq]  # reduced costs Aᵀy − c
    for i, j, v in Au:
        lhs_u[i] += v * xu[j]
        r[j] += v * yu[i]
    for i, j, v in Ae:
        lhs_e[i] += v * xu[j]
        r[j] += v * ye[i]
    slack = [b - a for a, b in zip(lhs_u, bu)]
    primal = all(v >= 0 for v in xu) and all(s >= 0 for s in slack) and lhs_e == be
    dual = all(v >= 0 for v in yu) and all(v >= 0 for v in r)
    cs = all(y * s == 0 for y, s in zip(yu, slack)) and all(xj * rj == 0 for xj, rj in zip(xu, r))
    gap = sum(a * b for a, b in zip(cq, xu)) == sum(a * b for a, b in zip(bu, yu)) + sum(a * b for a, b in zip(be, ye))
    return {"primal_feasible": primal, "dual_feasible": dual, "complementary_slackness": cs, "zero_gap": gap}


def _exact_matrix(A: Any, name: str, m: int, n: int, b_name: str) -> list[tuple[int, int, Fraction]]:
    """The non-zero entries of a constraint matrix with ``m`` rows (one per entry of ``b_name``) and
    ``n`` columns (one per entry of c): a row without a right-hand side is refused, not dropped."""
    check_shape(A, name, m, n, b_name)
    return matrix_entries(A, name)[0] if m else []


@dataclass(frozen=True)
class LPOptimum:
    """An LP optimum with its dual certificate.

    ``value`` is a :class:`~fractions.Fraction` when ``exact`` (the rational
    primal–dual pair verified exactly), else a float certified to within
    ``residuals`` (primal, dual, complementary slackness, gap).
    """

    value: Fraction | float
    x: tuple
    y_ub: tuple
    y_eq: tuple
    exact: bool
    residuals: tuple[float, float, float, float]

    @property
    def certified(self) -> bool:
        """Exact, or every float residual ≤ 1e-9."""
        return self.exact or max(self.residuals) <= 1e-9

    def evidence(self) -> dict:
        return {"optimum": self.value, "exact": self.exact, "x": list(self.x), "y_ub": list(self.y_ub),
                "y_eq": list(self.y_eq), "residuals": dict(zip(
                    ("primal_infeasibility", "dual_infeasibility", "complementary_slackness", "duality_gap"),
                    self.residuals))}


def _dense_float(A, m: int, n: int, name: str, b_name: str):
    import scipy.sparse as sps

    if m == 0 and A is None:
        return sps.csr_matrix((0, n))
    entries = _exact_matrix(A, name, m, n, b_name)  # its shape is checked (also with no right-hand side: no row
    # is dropped) before its entries are converted
    check_solver_range([v for _, _, v in entries], name)
    rows, cols, vals = zip(*((i, j, float(v)) for i, j, v in entries)) if entries else ((), (), ())
    return sps.csr_matrix((vals, (rows, cols)), shape=(m, n))


def _why(status: int) -> str:
    """What a solver's failure says about the data (linprog's status codes)."""
    return {2: "the constraints A_ub x <= b_ub, A_eq x = b_eq, x >= 0 have no solution",
            3: "c·x is unbounded on the constraints A_ub x <= b_ub, A_eq x = b_eq, x >= 0"}.get(
        status, "the solver failed on c, A_ub, b_ub, A_eq, b_eq")


def lp_optimum(c, *, A_ub=None, b_ub=None, A_eq=None, b_eq=None, maximize: bool = False,
               max_denominator: int = 10**6) -> LPOptimum:
    """Solve ``max/min c·x`` s.t. ``A_ub x ≤ b_ub``, ``A_eq x = b_eq``, ``x ≥ 0`` and certify the optimum.

    The returned duals are those of the max form (for ``maximize=False`` the
    problem ``max −c·x``); ``value`` is the optimum of the problem as posed.

    Example
    -------
    >>> from fractions import Fraction as F
    >>> # max x + 2y s.t. x + y <= 1, y <= 2/3: optimum 5/3 at (1/3, 2/3), exactly
    >>> opt = lp_optimum([1, 2], A_ub=[[1, 1], [0, 1]], b_ub=[1, F(2, 3)], maximize=True)
    >>> opt.value, opt.exact
    (Fraction(5, 3), True)
    """
    from scipy.optimize import linprog

    maximize = check_bool(maximize, "maximize")
    max_denominator = check_positive_int(max_denominator, "max_denominator")
    if (A_ub is None) != (b_ub is None) or (A_eq is None) != (b_eq is None):
        raise ValueError("give A_ub with b_ub and A_eq with b_eq")
    if (n := vector_length(c, "c")) == 0:
        raise ValueError("c must have at least one entry")
    for A, name, b, b_name in ((A_ub, "A_ub", b_ub, "b_ub"), (A_eq, "A_eq", b_eq, "b_eq")):
        if A is not None:  # every size before any entry is converted
            check_shape(A, name, vector_length(b, b_name), n, b_name)
    cq = rationals(c, "c")
    cmax = cq if maximize else [-v for v in cq]
    bu = rationals(b_ub, "b_ub") if b_ub is not None else []
    be = rationals(b_eq, "b_eq") if b_eq is not None else []
    for vec, name in ((cq, "c"), (bu, "b_ub"), (be, "b_eq")):
        check_solver_range(vec, name)
    Au, Ae = _dense_float(A_ub, len(bu), n, "A_ub", "b_ub"), _dense_float(A_eq, len(be), n, "A_eq", "b_eq")
    cf = np.array([float(v) for v in cmax])
    buf, bef = np.array([float(v) for v in bu]), np.array([float(v) for v in be])
    res = linprog(-cf, A_ub=Au if len(bu) else None, b_ub=buf if len(bu) else None,
                  A_eq=Ae if len(be) else None, b_eq=bef if len(be) else None, bounds=(0, None), method="highs")
    if res.status != 0:
        raise ValueError(f"the LP has no optimum: {_why(res.status)} ({res.message})")
    x = np.asarray(res.x, dtype=float)
    y_ub = -np.asarray(res.ineqlin.marginals, dtype=float) if len(bu) else np.zeros(0)
    y_eq = -np.asarray(res.eqlin.marginals, dtype=float) if len(be) else np.zeros(0)
    resid = lp_residuals(cf, Au, buf, Ae, bef, x, y_ub, y_eq)

    def q(v):
        return [Fraction(float(t)).limit_denominator(max_denominator) for t in v]

    xq, yuq, yeq = q(x), q(y_ub), q(y_eq)
    cert = exact_lp_certificate(cmax, {} if A_ub is None else A_ub, bu, {} if A_eq is None else A_eq, be, xq, yuq, yeq)
    if all(cert.values()):
        val = sum(a * b for a, b in zip(cq, xq))
        return LPOptimum(val, tuple(xq), tuple(yuq), tuple(yeq), True, (0.0, 0.0, 0.0, 0.0))
    val = float(np.dot([float(v) for v in cq], x))
    return LPOptimum(val, tuple(x.tolist()), tuple(y_ub.tolist()), tuple(y_eq.tolist()), False, resid)
