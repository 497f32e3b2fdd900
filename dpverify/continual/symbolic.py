"""The FDA derivation of seed 004 §4.3-4.4 redone in sympy (the formulas lost in extraction).

Every function returns sympy objects derived here, not typed in:

- :func:`h_alpha` -- h(α) = e/α² + w/(1-α)² + e (Thm 5.4 proof, e = err_{m-1}, w = 2^{m-1});
- :func:`stationary_alpha` -- the unique root of h'(α) = 0 in (0, 1);
- :func:`err_recursion` -- err_m = h(α*) simplified in err_{m-1} ("eq. 20");
- :func:`popcount_sum_closed_form` -- Σ_{p=1}^{2^m-1} popcount(p);
- :func:`err_org_recursion` -- the unoptimised error ("eq. 21") and its closed form;
- :func:`ratio_sequence` -- err_org/err_FDA (Fig. 1) evaluated exactly from the two recursions.

Derivation document: ``proofs/continual/fda_derivation.md``.

Example
-------
>>> import sympy as sp
>>> from dpverify.continual.symbolic import err_recursion
>>> e, m = sp.symbols("e m", positive=True)
>>> sp.simplify(err_recursion(e, m) - (e + (sp.cbrt(e) + 2 ** ((m - 1) / sp.Integer(3))) ** 3))
0
"""

from __future__ import annotations

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
]

alpha = sp.Symbol("alpha", positive=True)


def h_alpha(e, w):
    """h(α) = e/α² + w/(1-α)² + e: the left copy scaled by α, the middle node 1 - α, the right copy.

    Example
    -------
    >>> h_alpha(1, 2).subs(alpha, sp.Rational(1, 2))     # 4 + 8 + 1
    13
    """
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
    from dpverify._validation import check_positive_int

    m = check_positive_int(m, "m")
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
    w = 2 ** ((m - 1) / sp.Integer(3))
    u, v = sp.symbols("u v", positive=True)
    a_star = stationary_alpha(u**3, v**3)
    val = sp.factor(sp.simplify(h_alpha(u**3, v**3).subs(alpha, a_star)))
    return val.subs({u: sp.cbrt(e), v: w})


def popcount_sum_closed_form(m):
    """Σ_{p=1}^{2^m-1} popcount(p) = Σ_{j<m} #{p < 2^m: bit j set} = Σ_{j<m} 2^(m-1), summed by sympy.

    Example
    -------
    >>> popcount_sum_closed_form(3), sum(bin(p).count("1") for p in range(1, 8))   # exact, not a float
    (12, 12)
    """
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
    from dpverify._validation import check_positive_int

    m_max = check_positive_int(m_max, "m_max")
    prec = check_positive_int(prec, "prec")
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
