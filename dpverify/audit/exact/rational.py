"""Exact rational arithmetic for the LDP checks of :mod:`dpverify.audit.exact.ldp` (``exact=True``).

Rationals are parsed from ``int``, ``fractions.Fraction``, sympy ``Rational``, strings such as
``"1/3"`` or the decimal a float literal shows (0.15 → 3/20); e^ε is a ``Fraction`` when it is
rational (ε = ln 3) and a sympy number otherwise; every comparison is decided exactly (:func:`exact_gt`).

- :func:`exact_required_delta` — the tight δ of a matrix at e^ε, its worst rows and outputs, and
  the number of violations, under either definition (the exact twin of the float checks).
- :func:`exact_epsilon_ldp` — the smallest ε as ``sympy.log`` of a rational (``sympy.oo`` when none).

Derivations: ``dpverify/audit/proofs/hockey_stick.md`` (standard) and ``dpverify/rr/proofs/definitions.md`` (per output).

Example
-------
>>> M = exact_matrix([["3/4", "1/4"], ["1/4", "3/4"]])
>>> exact_required_delta(M, Fraction(2), Fraction(0), "standard")[:2]   # e^ε = 2 < 3
(Fraction(1, 4), (0, 1))
>>> exact_epsilon_ldp(M, Fraction(0), "standard")
log(3)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpverify.toolkit.lp import to_fraction
from dpverify.validation import check_epsilon

__all__: list[str] = []  # the exact arithmetic behind check_ldp and ldp_epsilon (exact=True)


def exact_matrix(P: Any, name: str = "P") -> list[list[Fraction]]:
    """A row-stochastic matrix of exact rationals, checked exactly.

    Parameters
    ----------
    P : 2-d array-like, nested lists or sympy Matrix
        Entries as ints, Fractions, sympy Rationals, strings ``"p/q"`` or float literals
        (read by :func:`dpverify.toolkit.lp.to_fraction`: 0.15 → 3/20).
    name : str, optional
        The parameter's name, for the error messages.

    Returns
    -------
    list of list of Fraction
        Rows that are non-negative and sum to exactly 1.

    Raises
    ------
    TypeError
        An entry is not rational, or ``P`` is not 2-d.
    ValueError
        ``P`` is empty, ragged, has a negative entry or a row not summing to exactly 1.

    Example
    -------
    >>> exact_matrix([[0.25, "3/4"], [1, 0]])
    [[Fraction(1, 4), Fraction(3, 4)], [Fraction(1, 1), Fraction(0, 1)]]
    >>> exact_matrix([[0.3, 0.3]], "Q")
    Traceback (most recent call last):
    ...
    ValueError: Q must be row-stochastic: row 0 sums to 3/5
    """
    rows = P.tolist() if isinstance(P, np.ndarray) else P
    if isinstance(rows, sp.MatrixBase):
        rows = rows.tolist()
    try:
        M = [[to_fraction(v, name) for v in row] for row in rows]
    except TypeError as exc:
        if "exact mode" in str(exc) or "rational" in str(exc):
            raise
        raise TypeError(f"{name} must be a 2-d array of rationals, got {type(P).__name__}") from None
    if not M or not M[0]:
        raise ValueError(f"{name} must be non-empty")
    m = len(M[0])
    for i, row in enumerate(M):
        if len(row) != m:
            raise ValueError(f"{name} must be a rectangular 2-d array: row {i} has length {len(row)}, not {m}")
        for j, v in enumerate(row):
            if v < 0:
                raise ValueError(f"{name} must be non-negative, got {v} at index {(i, j)}")
        if sum(row) != 1:
            raise ValueError(f"{name} must be row-stochastic: row {i} sums to {sum(row)}")
    return M


def exact_exp_epsilon(epsilon: Any) -> tuple[Any, Any]:
    """(ε as given, e^ε) exactly; e^ε is a Fraction when rational, else a sympy number.

    Example
    -------
    >>> exact_exp_epsilon(sp.log(3)), exact_exp_epsilon(0.5)
    ((log(3), Fraction(3, 1)), (1/2, exp(1/2)))
    """
    if isinstance(epsilon, bool):
        raise TypeError(f"epsilon must be a real number, got {epsilon!r}")
    if isinstance(epsilon, (str, bytes)):
        # sympify would evaluate the string as Python code: ask for a number or a sympy expression
        raise TypeError(f"epsilon must be a real number or sympy expression, not a string, got {epsilon!r}")
    if isinstance(epsilon, (float, np.floating)):
        check_epsilon(float(epsilon))
        eps = sp.Rational(repr(float(epsilon)))
    else:
        try:
            eps = sp.sympify(epsilon)
        except (sp.SympifyError, TypeError):
            raise TypeError(f"epsilon must be a real number or sympy expression, got {epsilon!r}") from None
    if not (eps.is_real and eps.is_finite and eps.is_positive):
        raise ValueError(f"epsilon must be a finite real number > 0, got {epsilon!r}")
    E = sp.exp(eps)
    if E.is_Rational:
        return eps, Fraction(int(E.p), int(E.q))
    return eps, E


def exact_gt(x: Any, y: Any) -> bool:
    """x > y decided exactly (Fractions natively, sympy numbers by certified evaluation).

    Example
    -------
    >>> exact_gt(Fraction(3, 4), Fraction(2, 3)), exact_gt(sp.E, Fraction(2718281828, 10**9))
    (True, True)
    """
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return x > y
    r = sp.sympify(x) - sp.sympify(y)
    if r.is_zero:
        return False
    res = r.is_positive
    if res is None:
        raise ArithmeticError(f"cannot decide the sign of {r} exactly")
    return bool(res)


def exact_simplify(x: Any) -> Any:
    """An exact value in the form :func:`exact_required_delta` reports it: a Fraction as it is,
    a sympy expression (in e^ε when e^ε is irrational) expanded.

    Parameters
    ----------
    x : Fraction or sympy expression

    Example
    -------
    >>> exact_simplify(Fraction(1, 4))
    Fraction(1, 4)
    >>> exact_simplify((1 - sp.E) * sp.Rational(1, 2))
    1/2 - E/2
    """
    if not isinstance(x, (Fraction, sp.Basic)):
        raise TypeError(f"x must be a Fraction or a sympy expression, got {x!r} of type {type(x).__name__}")
    return x if isinstance(x, Fraction) else sp.expand(x)


def exact_delta(delta: Any) -> Fraction:
    """δ as an exact rational in [0, 1).

    Example
    -------
    >>> exact_delta(0.05), exact_delta("1/100")
    (Fraction(1, 20), Fraction(1, 100))
    >>> exact_delta(1)
    Traceback (most recent call last):
    ...
    ValueError: delta must be in [0, 1), got 1
    """
    dlt = to_fraction(delta, "delta")
    if dlt < 0 or dlt >= 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    return dlt


def _check_definition(definition: Any) -> None:
    if definition not in ("standard", "per_output"):
        raise ValueError(f"definition must be 'standard' or 'per_output', got {definition!r}")


def exact_required_delta(M: list, E: Any, dlt: Fraction, definition: str):
    """The tight δ of the rational matrix ``M`` at e^ε = ``E``: (δ, worst rows, worst outputs,
    violations of ``dlt``), as :func:`dpverify.audit.exact.ldp.check_ldp` reports them.

    Standard: per ordered pair of rows (a, c), Σ_{j∈S} M[a][j] − E·M[c][j] over S = {j : M[a][j] >
    E·M[c][j]} (the hockey-stick divergence).  Per output: per column, max_i M − E·min_i M (at least 0).

    Parameters
    ----------
    M : list of list of Fraction
        A matrix from :func:`exact_matrix`.
    E : Fraction or sympy number
        e^ε, from :func:`exact_exp_epsilon`.
    dlt : Fraction
        The δ whose violations are counted (:func:`exact_delta`).
    definition : {"standard", "per_output"}

    Example
    -------
    >>> M = exact_matrix([["3/4", "1/4"], ["1/4", "3/4"]])
    >>> exact_required_delta(M, Fraction(2), Fraction(0), "per_output")
    (Fraction(1, 4), (0, 1), (0,), 2)
    """
    _check_definition(definition)
    n, m = len(M), len(M[0])
    zero = Fraction(0)
    if definition == "per_output":
        best, arg, nviol = None, (0, 0, 0), 0
        for j in range(m):
            col = [M[i][j] for i in range(n)]
            hi = max(range(n), key=col.__getitem__)
            lo = min(range(n), key=col.__getitem__)
            d = col[hi] - E * col[lo]
            if exact_gt(d, dlt):
                nviol += 1
            if best is None or exact_gt(d, best):
                best, arg = d, (hi, lo, j)
        return (best if exact_gt(best, zero) else zero), (arg[0], arg[1]), (arg[2],), nviol
    best, arg, nviol = None, (0, 0), 0
    for a in range(n):
        for c in range(n):
            if a == c and n > 1:
                continue  # a row against itself gives 0
            S = [j for j in range(m) if exact_gt(M[a][j], E * M[c][j])]
            hs = sum((M[a][j] for j in S), zero) - E * sum((M[c][j] for j in S), zero)
            if exact_gt(hs, dlt):
                nviol += 1
            if best is None or exact_gt(hs, best):
                best, arg = hs, (a, c)
    a, c = arg
    return best, arg, tuple(j for j in range(m) if exact_gt(M[a][j], E * M[c][j])), nviol


def exact_epsilon_ldp(M: list, dlt: Fraction, definition: str):
    """The smallest ε ≥ 0 for which the rational matrix ``M`` is (ε, δ)-LDP: ``sympy.log(r)``, r
    rational, or ``sympy.oo`` when no finite ε works.

    Parameters
    ----------
    M : list of list of Fraction
        A matrix from :func:`exact_matrix`.
    dlt : Fraction
        δ (:func:`exact_delta`).
    definition : {"standard", "per_output"}

    Example
    -------
    >>> exact_epsilon_ldp(exact_matrix([["3/4", "1/4"], ["1/4", "3/4"]]), Fraction(1, 8), "standard")   # 3/4 − E/4 ≤ 1/8
    log(5/2)
    >>> exact_epsilon_ldp(exact_matrix([[1, 0], [0, 1]]), Fraction(0), "standard")
    oo
    """
    _check_definition(definition)
    n, m = len(M), len(M[0])
    E = Fraction(1)
    if definition == "per_output" or dlt == 0:
        # per column: max_i P ≤ E min_i P + δ  <=>  E ≥ (max − δ) / min
        for col in ([M[i][j] for i in range(n)] for j in range(m)):
            hi, lo = max(col), min(col)
            if hi > dlt:
                if lo == 0:
                    return sp.oo
                E = max(E, (hi - dlt) / lo)
        return sp.log(sp.Rational(E.numerator, E.denominator))
    for a in range(n):
        for c in range(n):
            if a == c:
                continue
            e_ac = _smallest_E_pair(list(M[a]), list(M[c]), dlt, Fraction(0))
            if e_ac is None:
                return sp.oo
            E = max(E, e_ac)
    return sp.log(sp.Rational(E.numerator, E.denominator))


def _smallest_E_pair(p, q, delta, zero):
    """Smallest E ≥ 1 with Σ_j max(0, p_j − E q_j) ≤ δ (None if no finite E works); exact (Fractions).

    The maximising output set at any E is a prefix of the outputs sorted by
    p_j / q_j (descending), so the condition is: for every prefix T,
    p(T) − E q(T) ≤ δ, i.e. E ≥ (p(T) − δ) / q(T).
    """
    c0 = sum((pj for pj, qj in zip(p, q) if qj == 0), zero)
    if c0 > delta:
        return None
    ratios = sorted(((pj / qj, pj, qj) for pj, qj in zip(p, q) if qj > 0), key=lambda t: t[0], reverse=True)
    E, A, B = zero + 1, c0, zero
    for _, pj, qj in ratios:
        A, B = A + pj, B + qj
        E = max(E, (A - delta) / B)
    return E
