"""The certified decisions behind :func:`dpverify.audit.exact.check_ldp` for float matrices.

Every comparison of a computed δ with the claim is made with the proven rounding bound of that δ
(:mod:`dpverify.audit.exact.certified`); when the float value lies within its bound of the claim,
the comparison is decided exactly, for the exact values of the float entries, of ε and of δ.  So a
``holds`` is never wrong: the exact tight δ of the matrix as given is at most the claim.

- :func:`decide_per_output` — max_j (max_i P[i, j] − e^ε min_i P[i, j]) against δ, per column;
- :func:`decide_standard` — the hockey-stick divergence of every ordered pair of rows against δ
  (at δ = 0 decided per column, where the two definitions coincide).

Derivation: ``dpverify/audit/proofs/hockey_stick.md``, section "Rounding bound and exact fallback".

Example
-------
>>> from fractions import Fraction
>>> P = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> d = decide_standard(P, ExpE(1.0), Fraction(0), 0.0)
>>> d.holds, d.method, d.violations
(False, 'float', 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpverify.audit.exact.certified import U, ExpE, column_exceeds, pair_decides, pair_exceeds, side, support

__all__: list[str] = []  # the decisions behind check_ldp (inputs validated there)

# Block size bound (number of float64 entries per temporary) for the O(n^2 m) standard check.
_BLOCK_ENTRIES = 2_000_000


@dataclass(frozen=True)
class Decision:
    """One certified decision: ``holds`` is exact; ``required`` is the float tight δ, within ``bound`` of the exact one."""

    holds: bool
    required: float
    bound: float
    rows: tuple[int, int]
    outputs: tuple[int, ...]
    violations: int
    method: str  # "float" (every comparison clear of its bound) or "exact fallback"


def decide_per_output(P: np.ndarray, E: ExpE, dF: Fraction, dfl: float) -> Decision:
    """Per-output (ε, δ): every column's max_i P − e^ε min_i P ≤ δ, decided with the bound, exactly when close.

    Example
    -------
    >>> d = decide_per_output(np.array([[0.8, 0.2], [0.2, 0.8]]), ExpE(math.log(4)), Fraction(0), 0.0)
    >>> d.holds, d.method            # e^ε q = 0.8 in floats; exactly, e^ε q < 0.8
    (False, 'exact fallback')
    """
    hi, lo = P.max(axis=0), P.min(axis=0)
    s = E.scale(lo)
    with np.errstate(invalid="ignore"):
        t = hi - s  # proof: per-output-column
    e = E.term_bound(hi, s)
    sd = side(t, dfl, e)
    amb = sd == 0
    bad = sd > 0
    if amb.any():
        bad[amb] = column_exceeds(hi[amb], lo[amb], E, dF)
    near = t >= -e
    bound = float(e[near].max()) if near.any() else 0.0
    j = int(np.argmax(t))
    if bad.any() and not bad[j]:
        j = int(np.argmax(bad))  # a violation the δ-scale cannot see (zero against 1e-300)
    return Decision(holds=not bad.any(), required=max(0.0, float(t.max())), bound=bound,
                    rows=(int(np.argmax(P[:, j])), int(np.argmin(P[:, j]))), outputs=(j,), violations=int(bad.sum()),
                    method="exact fallback" if amb.any() else "float")


def _blocks(n: int, m: int):
    block = max(1, _BLOCK_ENTRIES // max(1, n * m))
    return range(0, n, block), block


def _pair_sides(P, EP, R, a0, A, dfl):
    """Float hockey-stick values of the rows ``A`` (from ``a0``) against every row, their tier-1 bound and sides."""
    n, m = P.shape
    with np.errstate(invalid="ignore"):
        H = np.maximum(0.0, A[:, None, :] - EP[None, :, :]).sum(axis=2)  # proof: standard-pairs
    B1 = (8.01 * U * R[a0 : a0 + len(A), None] + m * 2.0**-1070 + 1.01 * m * U * H) * (1 + 2.0**-40)  # proof: tier-one
    diag = (np.arange(len(A)), a0 + np.arange(len(A)))
    sd = side(H, dfl, B1)
    sd[diag] = -1  # a row against itself: δ = 0 exactly (ε > 0)
    H[diag] = -1.0
    return H, B1, sd


def _count_zero_delta(P, EP, E, a0, A):
    """At δ = 0: which pairs (a, c) of this block have some output with P[a, j] > e^ε P[c, j], exactly."""
    with np.errstate(invalid="ignore"):
        T = A[:, None, :] - EP[None, :, :]
    e = ExpE.term_bound(A[:, None, :], EP[None, :, :])
    clear = T > e
    amb = ~clear & (T >= -e) & (A[:, None, :] > 0)
    if amb.any():
        Pa = np.broadcast_to(A[:, None, :], T.shape)
        Pc = np.broadcast_to(P[None, :, :], T.shape)
        clear[amb] = E.above(Pa[amb], Pc[amb])
    bad = clear.any(axis=2)
    bad[np.arange(len(A)), a0 + np.arange(len(A))] = False
    return bad, bool(amb.any())


def decide_standard(P: np.ndarray, E: ExpE, dF: Fraction, dfl: float) -> Decision:
    """Standard (ε, δ): every ordered pair's hockey-stick divergence ≤ δ, decided with the bound, exactly when close.

    Example
    -------
    >>> decide_standard(np.array([[0.75, 0.25], [0.25, 0.75]]), ExpE(1.0), Fraction(1, 4), 0.25).holds
    True
    """
    n, m = P.shape
    EP = E.scale(P)
    R = P.sum(axis=1) * (1 + 1.01 * m * U)  # ≥ the exact row sums
    starts, block = _blocks(n, m)
    zero = dF == 0
    col = decide_per_output(P, E, dF, dfl) if zero else None
    best, arg, bound, violations, first_bad, exact_used = -math.inf, (0, 0), 0.0, 0, None, False
    if col is not None:
        exact_used = col.method != "float"
    for a0 in starts:
        A = P[a0 : a0 + block]
        H, B1, sd = _pair_sides(P, EP, R, a0, A, dfl)
        k = int(np.argmax(H))
        if H.flat[k] > best:
            best, arg = float(H.flat[k]), (a0 + k // n, k % n)
        off = H >= 0
        if off.any():
            bound = max(bound, float(B1[off].max()))
        if zero:
            if col.holds:
                continue
            bad, amb = _count_zero_delta(P, EP, E, a0, A)
            exact_used |= amb
        else:
            bad = sd > 0
            for i, c in zip(*np.nonzero(sd == 0)):
                exact_used = True
                bad[i, c] = pair_decides(P[a0 + i], P[c], E, dF)
        violations += int(bad.sum())
        if first_bad is None and bad.any():
            k = int(np.argmax(bad))
            first_bad = (a0 + k // n, k % n)
    if n == 1:
        best, arg = 0.0, (0, 0)
    a, c = arg
    if first_bad is not None and not pair_exceeds(P[a], P[c], E, dF):
        a, c = first_bad  # the largest float δ is not a violation (a tie within the bound): show one that is
    S = support(P[a], P[c], E, EP[c])
    holds = col.holds if zero else violations == 0  # at δ = 0 the column decision is the decision
    return Decision(holds=holds, required=max(0.0, best), bound=bound, rows=(a, c),
                    outputs=tuple(int(j) for j in np.flatnonzero(S)), violations=violations,
                    method="exact fallback" if exact_used else "float")
