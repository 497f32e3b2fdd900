"""Exact privacy quantities of finite output distributions.

For two output distributions ``p`` (on D) and ``q`` (on D') over the same
finite set, the tight (ε, δ) relation is the hockey-stick divergence

    δ(ε) = max_S P(S) − e^ε Q(S) = Σ_o max(0, p_o − e^ε q_o).

This module is the ground truth the statistical auditor's bounds must stay
under, and the building block of the LDP checker.  :func:`hockey_stick` computes
e^ε q_o as F·2^k·q_o and comes with a proven rounding bound
(:func:`hockey_stick_bound`); :func:`hockey_stick_holds` decides δ(ε) ≤ δ exactly
for the exact values of the floats, falling back to exact arithmetic when the
float value is within its bound of δ (:mod:`dpverify.audit.exact.certified`).
:func:`privacy_curve` is the vectorised float curve (log space, no certified bound).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpverify.audit.exact.certified import ExpE, pair_bound, pair_decides
from dpverify.validation import check_finite_array, check_real
from dpverify.proofdocs import proven

__all__ = ["hockey_stick", "hockey_stick_bound", "hockey_stick_holds", "max_privacy_loss", "privacy_curve"]


def _pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    p = check_finite_array(p, "p", ndim=1)
    q = check_finite_array(q, "q", ndim=1)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    for name, v in (("p", p), ("q", q)):
        if (v < 0).any():
            raise ValueError(f"{name} must be non-negative, got {v[v < 0][0]!r}")
        if abs(v.sum() - 1.0) > 1e-9:
            raise ValueError(f"{name} must sum to 1, sums to {v.sum()!r}")
    return p, q


@proven("audit/hockey_stick.md")
def hockey_stick(p, q, epsilon: float) -> float:
    """δ(ε) = Σ_o max(0, p_o − e^ε q_o): the smallest δ with P(S) ≤ e^ε Q(S) + δ for all S.

    ``epsilon`` may be any finite real (negative values are allowed here: the
    curve is defined for all ε).  The value is within :func:`hockey_stick_bound`
    of the exact divergence of the float vectors at the exact float ε.

    Example
    -------
    >>> round(hockey_stick([0.75, 0.25], [0.25, 0.75], 0.0), 12)
    0.5
    """
    return hockey_stick_bound(p, q, epsilon)[0]


def hockey_stick_bound(p, q, epsilon: float) -> tuple[float, float]:
    """(δ̂, b): the float divergence and a proven bound b ≥ |δ̂ − δ(ε)| (δ(ε) exact for the float inputs).

    b is about 8·2⁻⁵³ times the mass of the outputs near or above the line p = e^ε q, plus
    m·2⁻⁵³·δ̂ for the summation; it does not grow with m like an absolute tolerance
    (``dpverify/audit/proofs/hockey_stick.md``).

    Example
    -------
    >>> v, b = hockey_stick_bound([0.75, 0.25], [0.25, 0.75], 0.5)
    >>> round(v, 12), b < 1e-15
    (0.337819682325, True)
    """
    p, q = _pair(p, q)
    E = ExpE(Fraction(check_real(epsilon, "epsilon")))
    s = E.scale(q)
    with np.errstate(invalid="ignore"):
        value = float(np.maximum(0.0, p - s).sum())  # proof: certified-sum
    return value, pair_bound(p, s, value) + E.slack


def hockey_stick_holds(p, q, epsilon: float, delta: float) -> bool:
    """P(S) ≤ e^ε Q(S) + δ for every S, i.e. δ(ε) ≤ δ, decided exactly for the exact float values.

    The float value decides when it is farther than its bound from δ; otherwise the sum over
    S* = {o : p_o > e^ε q_o} is taken exactly and compared with δ using rational bounds on e^ε.

    Example
    -------
    >>> import math
    >>> hockey_stick_holds([0.8, 0.2], [0.2, 0.8], math.log(4), 0.0)     # the float ln 4 < ln 4
    False
    >>> hockey_stick_holds([0.8, 0.2], [0.2, 0.8], math.log(4) + 1e-15, 0.0)
    True
    """
    p, q = _pair(p, q)
    eps = check_real(epsilon, "epsilon")
    dlt = check_real(delta, "delta", nonneg=True)
    return not pair_decides(p, q, ExpE(Fraction(eps)), Fraction(dlt))


@proven("audit/hockey_stick.md")
def privacy_curve(p, q, epsilons) -> np.ndarray:
    """δ(ε) on an array of ε values (vectorised :func:`hockey_stick`).

    Example
    -------
    >>> privacy_curve([0.75, 0.25], [0.25, 0.75], [0.0, math.log(3)]).round(12).tolist()
    [0.5, 0.0]
    """
    p, q = _pair(p, q)
    eps = check_finite_array(epsilons, "epsilons")
    with np.errstate(divide="ignore"):
        logq = np.log(q)  # ln 0 = −inf
    with np.errstate(over="ignore"):  # e^ε q_o = exp(ε + ln q_o): 0 where q_o = 0, inf only if the true value is > 1.8e308
        scaled = np.exp(eps[..., None] + logq)  # proof: log-space
    return np.maximum(0.0, p - scaled).sum(axis=-1)  # proof: hockey-stick


def max_privacy_loss(p, q) -> float:
    """max_o ln(p_o / q_o) over outcomes with p_o > 0 (``inf`` if some q_o = 0 < p_o).

    The smallest ε with δ(ε) = 0 for the ordered pair (p, q).

    Example
    -------
    >>> round(max_privacy_loss([0.75, 0.25], [0.25, 0.75]), 12) == round(math.log(3), 12)
    True
    """
    p, q = _pair(p, q)
    pos = p > 0
    if (q[pos] == 0).any():
        return math.inf
    return float(np.max(np.log(p[pos]) - np.log(q[pos])))
