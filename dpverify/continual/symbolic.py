"""The FDA derivation of Cai, Wu and Wang's paper, §4.3-4.4, redone in sympy (the formulas lost in extraction).

Every function returns sympy objects derived here, not typed in:

- :func:`h_alpha` -- h(α) = e/α² + w/(1-α)² + e (Thm 5.4 proof, e = err_{m-1}, w = 2^{m-1});
- :func:`stationary_alpha` -- the unique root of h'(α) = 0 in (0, 1);
- :func:`err_recursion` -- err_m = h(α*) simplified in err_{m-1} ("eq. 20");
- :func:`popcount_sum_closed_form` -- Σ_{p=1}^{2^m-1} popcount(p);
- :func:`err_org_recursion` -- the unoptimised error ("eq. 21") and its closed form;
- :func:`ratio_sequence` -- err_org/err_FDA (Fig. 1) evaluated exactly from the two recursions;
- :func:`fenwick_recurrences` -- Thms 5.1/5.2: ‖M‖₁ and trace(BᵀB) from the block recursions (5.12, 5.13)
  by ``rsolve``; :func:`popcount_prefix_sum_digits` -- Σ popcount(p) for any N from its binary digits
  (``continual/thm5_symbolic.md``).

Derivation document: ``continual/fda_derivation.md``.

Example
-------
>>> import sympy as sp
>>> from dpverify.continual.symbolic import err_recursion
>>> e, m = sp.symbols("e m", positive=True)
>>> sp.simplify(err_recursion(e, m) - (e + (sp.cbrt(e) + 2 ** ((m - 1) / sp.Integer(3))) ** 3))
0
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import sympy as sp

__all__ = [
    "h_alpha",
    "stationary_alpha",
    "err_recursion",
    "popcount_sum_closed_form",
    "err_org_recursion",
    "err_org_closed_form",
    "ratio_sequence",
    "lambda_expression",
    "block_strategy",
    "block_recombination",
    "fenwick_recurrences",
    "popcount_prefix_sum_digits",
    "any_n_step_holds",
    "digit_sum_at_all_ones",
]

alpha = sp.Symbol("alpha", positive=True)

_MAX_M = 2**20  # closed forms: 2^m stays an exact integer of at most a million bits
_MAX_M_SYMBOLS = 512  # lambda_expression builds a product of m symbols (quadratic in m)


def _check_m(m, name: str = "m", *, maximum: int = _MAX_M):
    """``m`` for a closed form: a sympy expression (kept symbolic) or an integer in [0, maximum]."""
    from dpverify.validation import check_nonneg_int

    if isinstance(m, sp.Basic):
        if not m.is_Number:
            return m  # a symbol or an expression: evaluated symbolically
        if not m.is_Integer:
            raise TypeError(f"{name} must be an integer or a sympy expression, got {m!r}")
        m = int(m)
    return check_nonneg_int(m, name, maximum=maximum)


def _check_weight(x, name: str):
    """A node error (``e`` or ``w``): a sympy expression, or a finite real number >= 0 (made exact)."""
    if isinstance(x, sp.Basic):
        if x.is_Number and (not x.is_finite or not x.is_real or x.is_negative):
            raise ValueError(f"{name} must be a finite real number >= 0 or a sympy expression, got {x!r}")
        return x
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer, float, np.floating, Fraction)):
        raise TypeError(f"{name} must be a real number or a sympy expression, got {x!r} of type {type(x).__name__}")
    if not np.isfinite(float(x)) or x < 0:
        raise ValueError(f"{name} must be a finite real number >= 0, got {x!r}")
    return sp.nsimplify(x, rational=True) if isinstance(x, (float, np.floating)) else sp.Rational(int(x)) if isinstance(
        x, (int, np.integer)) else sp.Rational(x.numerator, x.denominator)


def h_alpha(e, w):
    """h(α) = e/α² + w/(1-α)² + e: the left copy scaled by α, the middle node 1 - α, the right copy.

    ``e`` and ``w`` are sympy expressions or finite real numbers >= 0 (floats are made exact).

    Example
    -------
    >>> h_alpha(1, 2).subs(alpha, sp.Rational(1, 2))     # 4 + 8 + 1
    13
    """
    e, w = _check_weight(e, "e"), _check_weight(w, "w")
    return e / alpha**2 + w / (1 - alpha) ** 2 + e


def stationary_alpha(e, w):
    """Solve h'(α) = 0 on (0, 1) in sympy: h' = 0 ⇔ e(1-α)³ = w α³; with e = u³, w = v³ the real root is u/(u+v).

    The cubic ``e(1-α)³ - wα³`` is solved by sympy; of its three roots exactly
    one is real (the other two have a non-zero imaginary part for u, v > 0),
    and it lies in (0, 1).

    Example
    -------
    >>> stationary_alpha(8, 27)                # e^(1/3) = 2, w^(1/3) = 3
    2/5
    """
    e, w = _check_weight(e, "e"), _check_weight(w, "w")
    if e.is_Number and w.is_Number and e + w == 0:
        raise ValueError("e and w must not both be 0 (h is then constant)")
    u, v = sp.symbols("u v", positive=True)
    dh = sp.diff(h_alpha(u**3, v**3), alpha)
    numer = sp.factor(sp.numer(sp.together(dh)))
    a = sp.Symbol("a")
    cubic = sp.expand(numer.subs(alpha, a))
    roots = sp.solve(cubic, a)
    real = [r for r in roots if sp.simplify(sp.im(r.subs({u: 2, v: 3}))) == 0]
    if len(real) != 1:
        raise AssertionError(f"expected one real stationary point, got {roots}")
    root = sp.simplify(real[0])
    return root.subs({u: sp.cbrt(e), v: sp.cbrt(w)})


def lambda_expression(k: int, m: int):
    """λ_k for n = 2^m - 1 as a product in the symbols α_1..α_m (Alg. 4 walked symbolically).

    Left of the split point div = 2^(t-1) a node lies in the α_t-scaled copy,
    right of it in the unscaled copy (k -> k - div); at the split it takes 1 - α_t.

    Example
    -------
    >>> lambda_expression(1, 2)
    alpha_2*(1 - alpha_1)
    """
    from dpverify.validation import check_positive_int

    m = check_positive_int(m, "m", maximum=_MAX_M_SYMBOLS)
    k = check_positive_int(k, "k")
    if k > 2**m - 1:
        raise ValueError(f"k must be <= 2^m - 1 = {2**m - 1}, got {k}")
    a = sp.symbols(f"alpha_1:{m + 1}", positive=True)
    expr, kt, t, div = sp.Integer(1), k, m, 2 ** (m - 1)
    while div != kt:
        if kt < div:
            expr *= a[t - 1]
        else:
            kt -= div
        t -= 1
        div //= 2
    return expr * (1 - a[t - 1])


def err_recursion(e, m):
    """err_m = min_α h(α) at w = 2^(m-1), simplified: e + (e^(1/3) + 2^((m-1)/3))³.

    Example
    -------
    >>> err_recursion(0, 1)                                    # err_1 = 1 (one node)
    1
    >>> sp.simplify(err_recursion(1, 2) - (1 + (1 + sp.cbrt(2)) ** 3))
    0
    """
    _check_weight(e, "e")  # checked only: a float e stays a float, as before
    if not isinstance(m, sp.Basic) or m.is_Number:  # a number: 2^((m-1)/3) must stay small
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer, float, np.floating, Fraction, sp.Number)):
            raise TypeError(f"m must be a real number or a sympy expression, got {m!r} of type {type(m).__name__}")
        if not (bool(m.is_real) if isinstance(m, sp.Number) else True) or not 1 <= float(m) <= 10_000:
            raise ValueError(f"m must be a number in [1, 10000] or a sympy expression, got {m!r}")
    if isinstance(m, sp.Basic) and (m.is_finite is False or m.is_real is False):
        raise ValueError(f"m must be a finite real number or a sympy expression, got {m!r}")
    w = 2 ** ((m - 1) / sp.Integer(3))
    u, v, val = _h_at_stationary()
    return val.subs({u: sp.cbrt(e), v: w})


@functools.lru_cache(maxsize=1)
def _h_at_stationary():
    """(u, v, h(α*) simplified in e = u³, w = v³): derived once, substituted by every :func:`err_recursion` call."""
    u, v = sp.symbols("u v", positive=True)
    a_star = stationary_alpha(u**3, v**3)
    return u, v, sp.factor(sp.simplify(h_alpha(u**3, v**3).subs(alpha, a_star)))


def popcount_sum_closed_form(m):
    """Σ_{p=1}^{2^m-1} popcount(p) = Σ_{j<m} #{p < 2^m: bit j set} = Σ_{j<m} 2^(m-1), summed by sympy.

    Example
    -------
    >>> popcount_sum_closed_form(3), sum(bin(p).count("1") for p in range(1, 8))   # exact, not a float
    (12, 12)
    """
    m = _check_m(m)
    j = sp.Symbol("j", integer=True, nonnegative=True)
    # bit j of p in [0, 2^m): half of the 2^m numbers have it set
    return sp.simplify(sp.summation(sp.Integer(2) ** m / 2, (j, 0, m - 1)))


def err_org_recursion():
    """The unoptimised error of n = 2^m - 1 (plain Fenwick, Δ = m): err_org(m) = m² T(m) with
    T(m) = trace(BᵀB) = 2 T(m-1) + 2^(m-1), T(0) = 0 (the two copies of B and the middle column).

    Returns ``(T, closed_T, err_org)`` as sympy expressions in m, T solved by ``rsolve``.

    Example
    -------
    >>> T, closed, org = err_org_recursion()
    >>> closed, org
    (2**(m - 1)*m, 2**(m - 1)*m**3)
    """
    m = sp.Symbol("m", integer=True, nonnegative=True)
    T = sp.Function("T")
    closed = sp.rsolve(T(m) - 2 * T(m - 1) - 2 ** (m - 1), T(m), {T(0): 0})
    return T, sp.simplify(closed), sp.simplify(m**2 * closed)


def err_org_closed_form(m):
    """err_org(m) = m³ 2^(m-1) (from :func:`err_org_recursion`), at the given m.

    Example
    -------
    >>> err_org_closed_form(3)                  # 27 · 4
    108
    """
    m = _check_m(m)
    ms = sp.Symbol("m", integer=True, nonnegative=True)
    return err_org_recursion()[2].subs(ms, m)


def ratio_sequence(m_max: int, prec: int = 50) -> list:
    """err_org(m)/err_FDA(m) for m = 1..m_max: err_org from the closed form, err_FDA from the
    recursion of :func:`err_recursion`, both in ``prec``-digit floats.

    Example
    -------
    >>> [round(float(r), 6) for r in ratio_sequence(2)]   # m = 1: 1/1; m = 2: 2³·2/err_2 = 16/12.541966
    [1.0, 1.275717]
    """
    from dpverify.validation import check_positive_int

    m_max = check_positive_int(m_max, "m_max", maximum=10_000)  # one recursion step per m
    prec = check_positive_int(prec, "prec", maximum=10_000)  # digits of each float
    ms = sp.Symbol("m", integer=True, nonnegative=True)
    org = sp.lambdify(ms, err_org_recursion()[2], "mpmath")
    e_sym, m_sym = sp.symbols("e m", positive=True)
    step = sp.lambdify((e_sym, m_sym), err_recursion(e_sym, m_sym), "mpmath")
    import mpmath

    out = []
    with mpmath.workdps(prec):
        e = mpmath.mpf(0)
        for m in range(1, m_max + 1):
            e = step(e, m)
            out.append(sp.Float(org(m) / e, prec))
    return out


# ---------------------------------------------------------------- Thms 5.1 and 5.2 from the block recursions


def _check_block(X, name: str) -> int:
    """The size h of a square scipy.sparse matrix ``X`` (TypeError/ValueError naming ``name``)."""
    import scipy.sparse as sps

    if not sps.issparse(X) or len(X.shape) != 2 or X.shape[0] != X.shape[1]:
        raise TypeError(f"{name} must be a square scipy.sparse matrix, got {type(X).__name__} {getattr(X, 'shape', '')}")
    return X.shape[0]


def block_strategy(M_prev):
    """M_{2^m−1} from M_{2^{m−1}−1} by (5.13): diag blocks M_prev, middle row of ones left of the diagonal.

    Example
    -------
    >>> import scipy.sparse as sp_
    >>> block_strategy(sp_.csr_matrix([[1.0]])).toarray().astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [0, 0, 1]]
    """
    import scipy.sparse as sps

    h = _check_block(M_prev, "M_prev")
    ones = sps.csr_matrix(([1.0] * (h + 1), ([0] * (h + 1), list(range(h + 1)))), shape=(1, 2 * h + 1))
    top = sps.hstack([M_prev, sps.csr_matrix((h, h + 1))])
    bottom = sps.hstack([sps.csr_matrix((h, h + 1)), M_prev])
    return sps.vstack([top, ones, bottom]).tocsr()  # (5.13)


def block_recombination(B_prev):
    """B_{2^m−1} from B_{2^{m−1}−1} by (5.12): diag blocks B_prev, the middle column all ones from row 2^{m−1} down.

    Example
    -------
    >>> import scipy.sparse as sp_
    >>> block_recombination(sp_.csr_matrix([[1.0]])).toarray().astype(int).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 1, 1]]
    """
    import scipy.sparse as sps

    h = _check_block(B_prev, "B_prev")
    mid = sps.csr_matrix(([1.0] * (h + 1), (list(range(h + 1)), [0] * (h + 1))), shape=(h + 1, 1))
    top = sps.hstack([B_prev, sps.csr_matrix((h, h + 1))])
    bottom = sps.hstack([sps.csr_matrix((h + 1, h)), mid, sps.vstack([sps.csr_matrix((1, h)), B_prev])])
    return sps.vstack([top, bottom]).tocsr()  # (5.12)


def fenwick_recurrences(m_probe: int = 6) -> dict:
    """Recurrences for ‖M‖₁ (first column) and trace(BᵀB) read off the block recursions, solved by ``rsolve``.

    The increments c(m) − c(m−1) and T(m) − 2T(m−1) are measured on the block matrices of
    :func:`block_strategy` / :func:`block_recombination` for m = 2..m_probe and must be 1 and 2^{m−1};
    then c(m) = c(m−1) + 1, c(1) = 1 and T(m) = 2T(m−1) + 2^{m−1}, T(0) = 0 are solved symbolically.

    Example
    -------
    >>> r = fenwick_recurrences(4)
    >>> r["col1_norm"], r["trace_BtB"], r["total_mse"]
    (m, 2**(m - 1)*m, 2**m*m**3/epsilon**2)
    """
    import scipy.sparse as sps

    from dpverify.validation import check_positive_int

    m_probe = check_positive_int(m_probe, "m_probe", maximum=20)  # block matrices of size 2^m_probe
    if m_probe < 2:
        raise ValueError(f"m_probe must be >= 2 (one increment to measure), got {m_probe}")
    m = sp.Symbol("m", integer=True, nonnegative=True)
    eps = sp.Symbol("epsilon", positive=True)
    M = B = sps.csr_matrix([[1.0]])
    col_inc, tr_inc = set(), set()
    for k in range(2, m_probe + 1):
        M2, B2 = block_strategy(M), block_recombination(B)
        col_inc.add(int(M2[:, 0].sum() - M[:, 0].sum()))
        tr_inc.add(int(B2.multiply(B2).sum() - 2 * B.multiply(B).sum()) - 2 ** (k - 1))  # 0 iff T = 2T' + 2^{k−1}
        M, B = M2, B2
    if len(col_inc) != 1 or tr_inc != {0}:
        raise ArithmeticError(f"block recursions give non-constant increments: {col_inc}, {tr_inc}")
    c, T = sp.Function("c"), sp.Function("T")
    col = sp.simplify(sp.rsolve(c(m) - c(m - 1) - col_inc.pop(), c(m), {c(1): 1}))
    tr = sp.simplify(sp.rsolve(T(m) - 2 * T(m - 1) - 2 ** (m - 1), T(m), {T(0): 0}))
    return {"m": m, "col1_norm": col, "trace_BtB": tr, "total_mse": sp.simplify(2 / eps**2 * col**2 * tr)}


def popcount_prefix_sum_digits(exponents):
    """Σ_{p=1}^{N} popcount(p) for N = Σ_i 2^{e_i} (e_1 > e_2 > …): Σ_i e_i 2^{e_i−1} + (i−1) 2^{e_i} + 1.

    From S(N) = e_1 2^{e_1−1} + (r + 1) + S(r), r = N − 2^{e_1} (numbers below 2^{e_1}, then the leading bit
    of the r + 1 numbers 2^{e_1}..N, then their lower bits); works on integers or sympy symbols.

    Example
    -------
    >>> popcount_prefix_sum_digits([3, 1]), sum(bin(p).count("1") for p in range(1, 11))
    (17, 17)
    """
    if isinstance(exponents, (str, bytes, sp.Basic)) or not hasattr(exponents, "__iter__"):
        raise TypeError(f"exponents must be a sequence of integers or sympy symbols, got {exponents!r}")
    if isinstance(exponents, np.ndarray) and exponents.ndim != 1:
        raise ValueError(f"exponents must be 1-dimensional, got shape {exponents.shape}")
    if hasattr(exponents, "__len__") and len(exponents) > 64:
        raise ValueError(f"exponents must be the (at most 64) binary digits of N, got {len(exponents)}")
    exponents = [_check_m(e, "exponents") for e in exponents]
    if all(isinstance(e, int) for e in exponents):  # plain integers: exact and fast
        return sum(e * 2**e // 2 + i * 2**e + 1 for i, e in enumerate(exponents))
    tot = 0
    for i, e in enumerate(exponents):
        tot += e * sp.Integer(2) ** e / 2 + i * sp.Integer(2) ** e + 1
    return sp.simplify(tot)


def any_n_step_holds(t: int) -> bool:
    """The digit formula satisfies S(N) − S(r) = e_1 2^{e_1−1} + r + 1 symbolically for t binary digits.

    Example
    -------
    >>> any_n_step_holds(3)
    True
    """
    from dpverify.validation import check_positive_int

    t = check_positive_int(t, "t", maximum=64)  # sympy's simplification grows with t (64 digits: a few seconds)
    es = sp.symbols(f"e1:{t + 1}", integer=True, nonnegative=True)
    r = sum(sp.Integer(2) ** e for e in es[1:])
    lhs = popcount_prefix_sum_digits(list(es)) - popcount_prefix_sum_digits(list(es[1:]))
    return sp.simplify(lhs - (es[0] * sp.Integer(2) ** es[0] / 2 + r + 1)) == 0


@functools.lru_cache(maxsize=1)
def digit_sum_at_all_ones():
    """The digit formula at N = 2^m − 1 (e_i = m − i, i = 1..m), summed by sympy: m·2^{m−1}.

    Example
    -------
    >>> digit_sum_at_all_ones()
    2**(m - 1)*m
    """
    m = sp.Symbol("m", integer=True, positive=True)
    i = sp.Symbol("i", integer=True, positive=True)
    e = m - i
    return sp.simplify(sp.summation(e * sp.Integer(2) ** e / 2 + (i - 1) * sp.Integer(2) ** e + 1, (i, 1, m)))
