"""Exact local differential privacy of a finite mechanism matrix.

A mechanism with inputs ``i`` and outputs ``j`` is a row-stochastic matrix
``P[i, j] = Pr(output j | input i)``.  Two definitions of (ε, δ)-LDP are in use:

``"standard"`` (the default; sets of outputs)
    P(S | i1) ≤ e^ε P(S | i2) + δ for all inputs i1, i2 and every set S of
    outputs.  For an ordered pair of rows the smallest such δ is the
    hockey-stick divergence Σ_j max(0, P[i1, j] − e^ε P[i2, j])
    (:func:`dpverify.audit.exact.hockey_stick`), so the tight δ of the
    mechanism is its maximum over ordered pairs of rows.  O(n² m).

``"per_output"`` (seed 003, §2 and model (20))
    P[i1, j] ≤ e^ε P[i2, j] + δ for all i1, i2 and every single output j.
    For a column only its largest and smallest entries matter, so the tight δ
    is max_j (max_i P[i, j] − e^ε min_i P[i, j])⁺.  O(n m).

For δ = 0 the two coincide; for δ > 0 and more than two outputs the
per-output condition is strictly weaker (see ``dpverify/audit/proofs/hockey_stick.md``
and ``dpverify/rr/proofs/definitions.md``).

Float mode works in log space (e^ε P as exp(ε + ln P), so any finite ε is
handled, also beyond the float64 overflow of e^ε at 709.78); with δ = 0 it
decides every ratio P[i1, j] / P[i2, j] ≤ e^ε as ln P[i1, j] − ln P[i2, j] ≤ ε + atol,
so a zero against a non-zero probability always fails; with δ > 0 it decides
``required_delta ≤ δ + atol``.  Exact mode
(``exact=True``) takes rational entries (``int``, ``fractions.Fraction``,
sympy ``Rational`` or strings such as ``"1/3"``), ε as a number or a sympy
expression (``sympy.log(3)`` makes e^ε = 3 rational) and decides every
comparison without tolerance (the arithmetic: :mod:`dpverify.audit.exact.rational`).

Reference: seed 003 (Zhou, Lu, Wu 2019), §2 definition and model (20).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.validation import (
    check_bool,
    check_delta,
    check_epsilon,
    check_finite_array,
    check_real,
    check_row_stochastic,
)
from dpverify.audit.exact.divergence import privacy_curve
from dpverify.audit.exact.rational import (exact_delta, exact_epsilon_ldp, exact_exp_epsilon, exact_matrix,
                                     exact_required_delta, exact_simplify, exact_gt)

__all__ = ["DEFINITIONS", "LDPResult", "check_ldp", "ldp_delta_curve", "ldp_epsilon"]

DEFINITIONS = ("standard", "per_output")

# Block size bound (number of float64 entries) for the O(n^2 m) standard check.
_BLOCK_ENTRIES = 4_000_000


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
        Whether the decision was made in exact arithmetic.
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
        }


# ----------------------------------------------------------------------------- validation


def _check_definition(definition: Any) -> str:
    if not isinstance(definition, str):
        raise TypeError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    if definition not in DEFINITIONS:
        raise ValueError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    return definition


# ----------------------------------------------------------------------------- the checks


def _log(P: np.ndarray) -> np.ndarray:
    """Natural log with log 0 = −inf (no warning)."""
    with np.errstate(divide="ignore"):
        return np.log(P)


def _scaled(logP: np.ndarray, eps: float) -> np.ndarray:
    """e^ε · P computed as exp(ε + ln P): 0 for P = 0, +inf only when the true value exceeds 1.8e308."""
    with np.errstate(over="ignore"):
        return np.exp(eps + logP)  # proof: log-space-scale


def _per_output_float(P: np.ndarray, eps: float, delta: float, atol: float):
    """Per column: slack d_j = max_i P[i,j] − e^ε min_i P[i,j] and whether the column violates.

    With δ = 0 a column violates iff ln max − ln min > ε + atol (a zero minimum against a
    non-zero maximum always does); with δ > 0 iff d_j > δ + atol.
    """
    hi, lo = P.argmax(axis=0), P.argmin(axis=0)
    cols = np.arange(P.shape[1])
    phi, plo = P[hi, cols], P[lo, cols]
    d = phi - _scaled(_log(plo), eps)  # proof: per-output-column
    if delta == 0:
        with np.errstate(invalid="ignore", divide="ignore"):
            lr = np.where(phi > 0, _log(phi) - _log(plo), -np.inf)  # proof: zero-exact
        bad = lr > eps + atol
    else:
        bad = d > delta + atol
    return d, hi, lo, bad


def _standard_float(P: np.ndarray, eps: float, delta: float, atol: float):
    """max over ordered row pairs of the hockey-stick divergence, blocked over rows.

    Returns (best required δ, its pair, number of violating pairs, a violating pair or None).
    """
    n, m = P.shape
    logP = _log(P)
    EP = _scaled(logP, eps)
    block = max(1, _BLOCK_ENTRIES // max(1, n * m))
    best, arg, violations, first_bad = -math.inf, (0, 0), 0, None
    for a0 in range(0, n, block):
        A = P[a0 : a0 + block]
        hs = np.maximum(0.0, A[:, None, :] - EP[None, :, :]).sum(axis=2)  # proof: standard-pairs
        if delta == 0:  # decide P[a,j] ≤ e^ε P[c,j] for every j in log space, zeros exactly
            with np.errstate(invalid="ignore"):
                lr = np.where(A[:, None, :] > 0, logP[a0 : a0 + block, None, :] - logP[None, :, :], -np.inf)
            bad = (lr > eps + atol).any(axis=2)
        else:
            bad = hs > delta + atol
        violations += int(bad.sum())
        if first_bad is None and bad.any():
            k = int(np.argmax(bad))
            first_bad = (a0 + k // n, k % n)
        if n > 1:  # report a pair of distinct inputs (a row against itself gives 0)
            hs[np.arange(len(A)), a0 + np.arange(len(A))] = -1.0
        k = int(np.argmax(hs))
        if hs.flat[k] > best:
            best, arg = float(hs.flat[k]), (a0 + k // n, k % n)
    return best, arg, violations, first_bad


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
        ε > 0.  Any finite float works: e^ε P is computed as exp(ε + ln P), so ε beyond
        the float64 overflow point of e^ε (709.78) is decided correctly.
    delta : float in [0, 1)
        δ.
    definition : {"standard", "per_output"}
        Sets of outputs (hockey-stick; the usual definition) or single
        outputs (the definition printed in seed 003).
    exact : bool
        Decide in exact rational arithmetic (entries must be rational).
    atol : float, optional
        Float mode only, a tolerance for rounding.  With δ = 0: holds iff
        ln P[i1, j] − ln P[i2, j] ≤ ε + atol for every pair and output (default
        1e-12 in log space), so a zero against a non-zero probability always fails.
        With δ > 0: holds iff ``required_delta <= delta + atol``; the default is the
        rounding bound of the computed δ, 8(m + 1)·2⁻⁵³ for m outputs (each term
        max(0, P[a,j] − e^ε P[c,j]) is at most 1 and carries a few ulps), so a δ
        far below the required one is never accepted.  ``exact=True`` decides
        without any tolerance.

    Returns
    -------
    LDPResult
        ``holds``, the tight δ at this ε and the worst rows/outputs.

    Example
    -------
    >>> import math
    >>> from dpverify.audit import check_ldp
    >>> rr = [[0.75, 0.25], [0.25, 0.75]]               # randomized response, e^ε = 3
    >>> check_ldp(rr, math.log(3)).holds, check_ldp(rr, 1.0).holds
    (True, False)
    >>> check_ldp([[1 - 1e-12, 1e-12], [1, 0]], 1.0).holds   # ε = ∞: a zero against 1e-12
    False
    >>> import sympy
    >>> check_ldp([["3/4", "1/4"], ["1/4", "3/4"]], sympy.log(3), exact=True).required_delta
    Fraction(0, 1)
    """
    definition = _check_definition(definition)
    exact = check_bool(exact, "exact")
    if exact:
        return _check_ldp_exact(P, epsilon, delta, definition)
    Pm = check_row_stochastic(P, "P")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    if atol is None:  # δ = 0: log-ratio slack; δ > 0: the rounding bound of a hockey-stick sum
        tol = 1e-12 if dlt == 0 else 8.0 * (Pm.shape[1] + 1) * 2.0**-53
    else:
        tol = check_real(atol, "atol", nonneg=True)
    if definition == "per_output":
        return _per_output_result(Pm, eps, dlt, tol)
    return _standard_result(Pm, eps, dlt, tol)


def _per_output_result(Pm: np.ndarray, eps: float, dlt: float, tol: float) -> LDPResult:
    """:func:`check_ldp`'s float decision under the per-output definition."""
    d, hi, lo, bad = _per_output_float(Pm, eps, dlt, tol)
    j = int(np.argmax(d))
    if bad.any() and not bad[j]:
        j = int(np.argmax(bad))  # a violation the δ-scale cannot see (zero against 1e-300)
    req = max(0.0, float(d.max()))
    return LDPResult(
        holds=not bad.any(), definition="per_output", epsilon=eps, delta=dlt, required_delta=req,
        rows=(int(hi[j]), int(lo[j])), outputs=(j,), violations=int(bad.sum()), exact=False,
    )


def _standard_result(Pm: np.ndarray, eps: float, dlt: float, tol: float) -> LDPResult:
    """:func:`check_ldp`'s float decision under the standard (sets of outputs) definition."""
    req, (a, c), nviol, first_bad = _standard_float(Pm, eps, dlt, tol)
    if first_bad is not None and dlt == 0 and req <= tol:
        a, c = first_bad  # the violation is a log-ratio the δ-scale cannot see
    S = tuple(int(j) for j in np.flatnonzero(Pm[a] > _scaled(_log(Pm[c]), eps)))
    return LDPResult(
        holds=nviol == 0, definition="standard", epsilon=eps, delta=dlt, required_delta=max(0.0, req),
        rows=(a, c), outputs=S, violations=nviol, exact=False,
    )


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
