"""Exact local differential privacy of a finite mechanism matrix.

A mechanism with inputs ``i`` and outputs ``j`` is a row-stochastic matrix
``P[i, j] = Pr(output j | input i)``.  Two definitions of (ε, δ)-LDP are in use:

``"standard"`` (the default; sets of outputs)
    P(S | i1) ≤ e^ε P(S | i2) + δ for all inputs i1, i2 and every set S of
    outputs.  For an ordered pair of rows the smallest such δ is the
    hockey-stick divergence Σ_j max(0, P[i1, j] − e^ε P[i2, j])
    (:func:`dpverify.audit.exact.hockey_stick`), so the tight δ of the
    mechanism is its maximum over ordered pairs of rows.  O(n² m).

``"per_output"`` (Zhou, Lu, Wu 2019, §2 and model (20))
    P[i1, j] ≤ e^ε P[i2, j] + δ for all i1, i2 and every single output j.
    For a column only its largest and smallest entries matter, so the tight δ
    is max_j (max_i P[i, j] − e^ε min_i P[i, j])⁺.  O(n m).

For δ = 0 the two coincide; for δ > 0 and more than two outputs the
per-output condition is strictly weaker (see ``dpverify/audit/proofs/hockey_stick.md``
and ``dpverify/rr/proofs/definitions.md``).

Float mode decides for the exact values of the float entries, of ε and of δ (each float is a
binary rational): every computed δ is compared with the claim using its proven rounding bound
(about 9·2⁻⁵³ plus m·2⁻⁵³ times the value, not an absolute m-sized tolerance), and whenever the
float value lies within that bound of the claim the comparison is decided exactly (e^ε bracketed
by rationals, the sums over the violating outputs taken exactly): :mod:`dpverify.audit.exact.decide`.
So ``holds`` is never wrong for the matrix as given, and ``required_delta`` lies on the side of δ
that the exact decision found (``holds == (required_delta <= delta)``).  e^ε P is computed as
F·2^k·P (F ∈ [1, 2)), so any finite ε is handled, also beyond the float64 overflow of e^ε at 709.78.
Exact mode (``exact=True``) takes rational entries (``int``, ``fractions.Fraction``,
sympy ``Rational`` or strings such as ``"1/3"``), ε as a number or a sympy
expression (``sympy.log(3)`` makes e^ε = 3 rational) and decides every
comparison without tolerance (the arithmetic: :mod:`dpverify.audit.exact.rational`).

Reference: Zhou, Lu, Wu 2019, §2 definition and model (20).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpverify.validation import (
    check_bool,
    check_delta,
    check_epsilon,
    check_finite_array,
    check_real,
    check_row_stochastic,
    check_work,
)
from dpverify.audit.exact.certified import ExpE
from dpverify.audit.exact.decide import decide_per_output, decide_standard
from dpverify.audit.exact.divergence import privacy_curve
from dpverify.audit.exact.rational import (exact_delta, exact_epsilon_ldp, exact_exp_epsilon, exact_matrix,
                                     exact_required_delta, exact_simplify, exact_gt)

__all__ = ["DEFINITIONS", "LDPResult", "check_ldp", "ldp_delta_curve", "ldp_epsilon"]

DEFINITIONS = ("standard", "per_output")


@dataclass(frozen=True)
class LDPResult:
    """Outcome of :func:`check_ldp`.

    Attributes
    ----------
    holds : bool
        Whether ``P`` is (ε, δ)-LDP under ``definition``.
    definition : str
        ``"standard"`` or ``"per_output"``.
    epsilon, delta :
        The parameters checked (floats, or exact values in exact mode).
    required_delta :
        The smallest δ for which ``P`` is (ε, δ)-LDP at this ε under this
        definition (exact value in exact mode).
    rows : tuple[int, int]
        The worst ordered pair of inputs (i1, i2): i1's probabilities exceed
        e^ε times i2's by ``required_delta``.
    outputs : tuple[int, ...]
        The worst output set S* = {j : P[i1, j] > e^ε P[i2, j]} (standard) or
        the single worst column (per_output).
    violations : int
        Number of violating ordered row pairs (standard) or columns (per_output).
    exact : bool
        Whether this is exact mode (rational entries, ``exact=True``).
    method : str
        How the decision was made: ``"float"`` (every computed δ was farther than its rounding
        bound from the claim), ``"exact fallback"`` (some comparison was within the bound and was
        decided in exact arithmetic) or ``"exact"`` (exact mode).  Each is an exact decision.
    error_bound : float
        Float mode: |required_delta − the exact tight δ| ≤ error_bound (0 in exact mode).
    row_sum_deviation : float
        The largest |Σ_j P[i, j] − 1| of the matrix as given and decided (correctly rounded from the
        exact sums): rows within m·2⁻⁵¹ of 1 are accepted as they are, not renormalised, so a ``holds``
        is for those rows (0 in exact mode, where rows sum to exactly 1).
    """

    holds: bool
    definition: str
    epsilon: Any
    delta: Any
    required_delta: Any
    rows: tuple[int, int]
    outputs: tuple[int, ...]
    violations: int
    exact: bool
    method: str = "exact"
    error_bound: Any = 0.0
    row_sum_deviation: float = 0.0

    def evidence(self) -> dict:
        """A small JSON-friendly summary (for claims and the CLI)."""
        return {
            "holds": self.holds,
            "definition": self.definition,
            "epsilon": str(self.epsilon) if self.exact else self.epsilon,
            "delta": str(self.delta) if self.exact else self.delta,
            "required_delta": str(self.required_delta) if self.exact else self.required_delta,
            "worst_rows": list(self.rows),
            "worst_outputs": list(self.outputs)[:20],
            "violations": self.violations,
            "exact": self.exact,
            "method": self.method,
            "error_bound": self.error_bound,
            "row_sum_deviation": self.row_sum_deviation,
        }


# ----------------------------------------------------------------------------- validation


def _check_work(M: np.ndarray, definition: str, factor: float = 1.0) -> None:
    """Refuse up front a standard-definition check whose n² m comparisons exceed the work budget."""
    n, m = M.shape
    if definition == "standard":
        check_work(float(n) * n * m * factor, f"P of shape {M.shape} (n² m = {float(n) * n * m:.3g} comparisons)")


def _check_definition(definition: Any) -> str:
    if not isinstance(definition, str):
        raise TypeError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    if definition not in DEFINITIONS:
        raise ValueError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    return definition


# ----------------------------------------------------------------------------- the checks


def check_ldp(
    P: Any,
    epsilon: Any,
    delta: Any = 0.0,
    definition: str = "standard",
    *,
    exact: bool = False,
    atol: float | None = None,
) -> LDPResult:
    """Decide whether the mechanism ``P`` is (ε, δ)-LDP.

    Parameters
    ----------
    P : array_like, shape (n, m)
        Row-stochastic mechanism matrix, ``P[i, j] = Pr(j | i)``.
    epsilon : float (or sympy expression in exact mode)
        ε > 0.  Float mode decides for the exact value of the float (``math.log(3)`` is a binary
        rational a little above ln 3, and ``math.log(4)`` one a little below ln 4).  Any finite float works, also beyond
        the float64 overflow point of e^ε (709.78).
    delta : float in [0, 1)
        δ (its exact float value in float mode).
    definition : {"standard", "per_output"}
        Sets of outputs (hockey-stick; the usual definition) or single
        outputs (the definition printed in Zhou, Lu and Wu's paper).
    exact : bool
        Decide in exact rational arithmetic (entries must be rational).
    atol : float, optional
        Float mode only: an explicit relaxation of the claim (default: none, the decision is
        exact for the matrix as given).  With δ > 0: holds iff the exact tight δ ≤ δ + atol.  With
        δ = 0: holds iff every ratio P[i1, j] / P[i2, j] ≤ e^(ε + atol), i.e. log-ratios up to
        ε + atol (a zero against a non-zero probability always fails; ``required_delta`` is then
        the tight δ at ε + atol).  Both are decided exactly.  ``atol=1e-12`` accepts the float
        rounding of a mechanism that is exactly on its boundary in real numbers (k-RR at its ε).

    Returns
    -------
    LDPResult
        ``holds``, the tight δ at this ε (float, within ``error_bound`` of the exact value and,
        without ``atol``, on the side of δ that the exact decision found), the worst
        rows/outputs and the ``method`` of the decision.

    Example
    -------
    >>> import math
    >>> from dpverify.audit import check_ldp
    >>> rr = [[0.75, 0.25], [0.25, 0.75]]               # randomized response, e^ε = 3
    >>> check_ldp(rr, 1.0986123).holds, check_ldp(rr, 1.0986122).holds    # ln 3 = 1.09861228866...
    (True, False)
    >>> r = check_ldp(rr, math.log(3))                  # the float ln 3 is above ln 3: decided exactly
    >>> r.holds, r.method, r.required_delta
    (True, 'exact fallback', 0.0)
    >>> rr2 = [[0.8, 0.2], [0.2, 0.8]]                  # e^ε = 4, and the float ln 4 is below ln 4
    >>> check_ldp(rr2, math.log(4)).holds, check_ldp(rr2, math.log(4), atol=1e-15).holds
    (False, True)
    >>> check_ldp([[1 - 1e-12, 1e-12], [1, 0]], 1.0).holds   # ε = ∞: a zero against 1e-12
    False
    >>> import sympy
    >>> check_ldp([["3/4", "1/4"], ["1/4", "3/4"]], sympy.log(3), exact=True).required_delta
    Fraction(0, 1)
    """
    definition = _check_definition(definition)
    exact = check_bool(exact, "exact")
    if exact:
        if atol is not None:
            raise ValueError(f"atol applies to float mode only (exact=True decides without one), got atol={atol!r}")
        return _check_ldp_exact(P, epsilon, delta, definition)
    Pm = check_row_stochastic(P, "P")
    _check_work(Pm, definition)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    tol = 0.0 if atol is None else check_real(atol, "atol", nonneg=True)
    return _float_result(Pm, eps, dlt, tol, definition)


def _row_sum_deviation(P: np.ndarray) -> float:
    """max_i |Σ_j P[i, j] − 1|, correctly rounded from the exact sums of the float entries (``math.fsum``
    with −1 among the terms, so a deviation below the float spacing at 1, e.g. 2⁻⁷⁰, is not lost).

    >>> _row_sum_deviation(np.array([[0.5, 0.5 - 2**-53, 2**-53 + 2**-70]])) == 2**-70
    True
    """
    return max(abs(math.fsum([*row.tolist(), -1.0])) for row in np.asarray(P, dtype=float))


def _float_result(Pm: np.ndarray, eps: float, dlt: float, atol: float, definition: str) -> LDPResult:
    """:func:`check_ldp`'s certified float decision (:mod:`dpverify.audit.exact.decide`)."""
    if dlt == 0 and atol > 0:  # ratios up to e^(ε + atol): decided exactly at ε + atol
        E, dF = ExpE(Fraction(eps) + Fraction(atol)), Fraction(0)
    else:
        E, dF = ExpE(Fraction(eps)), Fraction(dlt) + Fraction(atol)
    decide = decide_per_output if definition == "per_output" else decide_standard
    d = decide(Pm, E, dF, float(dF))
    req, bound = d.required, d.bound
    if atol == 0 and d.holds and req > dlt:  # rounding put the float δ above the claim: exact is ≤ δ
        req = dlt
    elif atol == 0 and not d.holds and req <= dlt:  # exact δ > claim: show the next float up
        req = math.nextafter(dlt, math.inf)
        bound = max(bound, req - dlt)
    return LDPResult(holds=d.holds, definition=definition, epsilon=eps, delta=dlt, required_delta=req,
                     rows=d.rows, outputs=d.outputs, violations=d.violations, exact=False, method=d.method,
                     error_bound=bound, row_sum_deviation=_row_sum_deviation(Pm))


def _check_ldp_exact(P: Any, epsilon: Any, delta: Any, definition: str) -> LDPResult:
    """:func:`check_ldp` in exact arithmetic (:func:`dpverify.audit.exact.rational.exact_required_delta`)."""
    M = exact_matrix(P)
    eps, E = exact_exp_epsilon(epsilon)
    dlt = exact_delta(delta)
    req, rows, outputs, nviol = exact_required_delta(M, E, dlt, definition)
    return LDPResult(holds=not exact_gt(req, dlt), definition=definition, epsilon=eps, delta=dlt,
                     required_delta=exact_simplify(req), rows=rows, outputs=outputs, violations=nviol, exact=True)


# ----------------------------------------------------------------------------- smallest epsilon


def _smallest_log_E_pair(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    """ln of :func:`dpverify.audit.exact.rational._smallest_E_pair` in float, in log space (−inf … inf; inf if no finite E works).

    ln E = max(0, max over prefixes T of ln(p(T) − δ) − ln q(T)), so E beyond float64's range
    (q(T) ~ 1e-313) still gives a finite ln E.
    """
    zero_q = q == 0
    c0 = float(p[zero_q].sum())
    if c0 > delta:
        return math.inf
    pos = ~zero_q
    pp, qq = p[pos], q[pos]
    with np.errstate(divide="ignore"):
        order = np.argsort(-(np.log(pp) - np.log(qq)), kind="stable")
    A = c0 + np.cumsum(pp[order])
    B = np.cumsum(qq[order])
    need = A > delta
    if not need.any():
        return 0.0
    with np.errstate(divide="ignore"):
        return max(0.0, float(np.max(np.log(A[need] - delta) - np.log(B[need]))))  # proof: log-space-epsilon


def ldp_epsilon(P: Any, delta: Any = 0.0, definition: str = "standard", *, exact: bool = False):
    """The smallest ε ≥ 0 for which ``P`` is (ε, δ)-LDP under ``definition``.

    ``math.inf`` (``sympy.oo`` in exact mode) when no finite ε works, e.g. a
    column with a zero and an entry larger than δ.  Exact mode returns
    ``sympy.log(r)`` with r rational.  Float mode works in log space, so an ε
    whose e^ε overflows float64 (ε > 709.78) is still returned finite.

    Example
    -------
    >>> import math
    >>> from dpverify.audit import ldp_epsilon
    >>> abs(ldp_epsilon([[0.75, 0.25], [0.25, 0.75]]) - math.log(3)) < 1e-12
    True
    >>> round(ldp_epsilon([[1, 1e-313], [1e-313, 1]]), 3)            # e^ε ≈ 1e313
    720.709
    >>> ldp_epsilon([["3/4", "1/4"], ["1/4", "3/4"]], exact=True)
    log(3)
    """
    definition = _check_definition(definition)
    exact = check_bool(exact, "exact")
    if exact:
        return exact_epsilon_ldp(exact_matrix(P), exact_delta(delta), definition)
    M = check_row_stochastic(P, "P")
    dlt = check_delta(delta)
    if dlt > 0:
        _check_work(M, definition, math.log2(M.shape[1] + 1))
    n = len(M)
    if definition == "per_output" or dlt == 0:
        # per column: max_i P ≤ E min_i P + δ  <=>  E ≥ (max − δ) / min
        hi, lo = M.max(axis=0), M.min(axis=0)
        need = hi > dlt
        if (need & (lo == 0)).any():
            return math.inf
        if not need.any():
            return 0.0
        return max(0.0, float(np.max(np.log(hi[need] - dlt) - np.log(lo[need]))))  # ln E in log space
    best = 0.0
    for a in range(n):
        for c in range(n):
            if a != c:
                best = max(best, _smallest_log_E_pair(M[a], M[c], dlt))
                if best == math.inf:
                    return math.inf
    return best


def ldp_delta_curve(P: Any, epsilons: Any, definition: str = "standard") -> np.ndarray:
    """δ(ε): the tight δ of ``P`` at each ε (vectorised over ε).

    Standard: the maximum over ordered row pairs of
    :func:`dpverify.audit.exact.privacy_curve`.  Per-output: the maximum over
    columns of (max_i P[i,j] − e^ε min_i P[i,j])⁺.

    Example
    -------
    >>> from dpverify.audit import ldp_delta_curve
    >>> ldp_delta_curve([[0.75, 0.25], [0.25, 0.75]], [0.0]).round(12).tolist()
    [0.5]
    """
    definition = _check_definition(definition)
    M = check_row_stochastic(P, "P")
    eps = check_finite_array(epsilons, "epsilons", ndim=1)
    if (eps < 0).any():
        raise ValueError(f"epsilons must be >= 0, got {eps[eps < 0][0]!r}")
    _check_work(M, definition, max(1, eps.size))
    if definition == "per_output":
        hi, lo = M.max(axis=0), M.min(axis=0)
        with np.errstate(over="ignore", divide="ignore"):  # e^ε·lo = exp(ε + ln lo): 0 for lo = 0, no inf·0
            scaled = np.exp(eps[:, None] + np.log(lo)[None, :])
        return np.maximum(0.0, (hi[None, :] - scaled).max(axis=1))
    n = M.shape[0]
    out = np.zeros(eps.shape)
    for a in range(n):
        for c in range(n):
            if a != c:
                out = np.maximum(out, privacy_curve(M[a], M[c], eps))
    return out
