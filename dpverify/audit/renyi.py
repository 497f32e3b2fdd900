"""Audit a Rényi-DP or zero-concentrated-DP claim through the (ε′, δ) curve it implies.

(α, ε_R)-RDP bounds every hockey-stick divergence of the pair (Canonne, Kamath & Steinke, NeurIPS
2020, Prop. 12; the same bound is Asoodeh et al. 2021 and Balle et al. 2020, Thm 21):

    δ(ε′) ≤ exp((α−1)(ε_R − ε′)) · (1 − 1/α)^(α−1) / α,

and ρ-zCDP is RDP at every order with ε_R = ρα, so δ(ε′) ≤ the infimum of that over α > 1 (CKS20,
Cor. 13).  The auditor bounds δ from below at a grid of ε′ (``audit_delta_curve``); a lower bound
above the implied curve refutes the claim at the audit's confidence.  A claim is never shown to hold.
``rho_lb`` (``epsilon_lb``) is a value of ρ (of ε_R) whose implied curve the lower bounds violate: the
mechanism's ρ (ε_R at order α) exceeds it with probability ≥ the confidence (``dpverify/audit/proofs/renyi.md``).

Example
-------
>>> gauss = lambda d, rng, n: rng.normal(float(d), 1.0, n)      # true ρ = 1/2
>>> r = audit_zcdp(gauss, rho=0.1, pair=(0.0, 1.0), samples=200_000, rng=0)
>>> r.verdict().value, r.rho_lb > 0.1
('refuted', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dpverify.validation import check_positive_int, check_real, check_work
from dpverify.audit.curves import CurveAudit, audit_delta_curve
from dpverify.claims.model import Verdict, note_sampling
from dpverify.proofdocs import proven

__all__ = ["RDPAudit", "ZCDPAudit", "audit_rdp", "audit_zcdp", "rdp_delta_curve", "zcdp_delta_curve"]

#: Upward margin on every computed log δ: far above the rounding error of the few float operations.
_SLACK = 1e-9
#: The orders α = 1 + e^u searched for ρ-zCDP, u in [−700, 700] (a smaller range only loosens the bound).
_U_LO, _U_HI, _U_STEPS = -700.0, 700.0, 64
_GRID_POINTS = 12


def _order(alpha, name: str = "alpha") -> float:
    a = check_real(alpha, name)
    if not a > 1:
        raise ValueError(f"{name} must be > 1 (a Rényi order), got {alpha!r}")
    return a


def _rdp_log_delta(a: float, eps_r: float, eps: np.ndarray) -> np.ndarray:
    """log of CKS20 Prop. 12's δ(ε′) at order a (before the cap at 1), vectorised over ε′."""
    log1m_inv = math.log1p(-1 / a) if a >= 2 else math.log(a - 1) - math.log(a)  # log(1 − 1/α), no cancellation
    log_factor = (a - 1) * log1m_inv - math.log(a)  # (α−1)·log(1−1/α) − log α
    return (a - 1) * (eps_r - eps) + log_factor  # proof: rdp-log-delta


def _log1m_inv(u: np.ndarray) -> np.ndarray:
    """log(1 − 1/α) = −log(1 + e^{−u}) for α = 1 + e^u, without cancellation at either end."""
    return -np.logaddexp(0.0, -u)


def _zcdp_order(rho: float, eps: np.ndarray) -> np.ndarray:
    """u = log(α − 1) of the order minimising CKS20 Cor. 13's bound: bisection on its derivative's sign."""
    lo = np.full(eps.shape, _U_LO)
    hi = np.full(eps.shape, _U_HI)
    for _ in range(_U_STEPS):
        mid = 0.5 * (lo + hi)
        slope = (1 + 2 * np.exp(mid)) * rho - eps + _log1m_inv(mid)  # proof: zcdp-slope
        up = slope > 0
        hi = np.where(up, mid, hi)
        lo = np.where(up, lo, mid)
    return hi


def _zcdp_log_delta_at(rho: float, eps: np.ndarray, u: np.ndarray) -> np.ndarray:
    """log of the RDP bound of order α = 1 + e^u with ε_R = ρα (before the cap at 1)."""
    x = np.exp(u)
    return x * ((1 + x) * rho - eps) + x * _log1m_inv(u) - np.log1p(x)  # proof: zcdp-log-delta


def _zcdp_log_delta(rho: float, eps: np.ndarray) -> np.ndarray:
    """log δ(ε′) of CKS20 Cor. 13, vectorised; any order is a valid bound, the search only makes it tight."""
    return _zcdp_log_delta_at(rho, eps, _zcdp_order(rho, eps))


def _capped(log_delta: np.ndarray) -> np.ndarray:
    return np.exp(np.minimum(0.0, log_delta + _SLACK))  # proof: cap


def _epsilon_prime(eps) -> float:
    return check_real(eps, "epsilon_prime", nonneg=True)


@proven("audit/renyi.md")
def rdp_delta_curve(*, alpha: float, epsilon: float) -> Callable[[float], float]:
    """The δ(ε′) that (α, ε_R)-RDP implies (CKS20 Prop. 12), as a function of ε′ ≥ 0.

    δ(ε′) = min(1, exp((α−1)(ε_R − ε′)) (1 − 1/α)^(α−1) / α), raised by a relative 10⁻⁹ to cover
    rounding.  It is below Mironov's exp((α−1)(ε_R − ε′)) at every α (``dpverify/audit/proofs/renyi.md``).

    Example
    -------
    >>> d = rdp_delta_curve(alpha=2.0, epsilon=0.5)
    >>> round(d(1.0), 6)                     # e^{-1/2} · (1/2) / 2
    0.151633
    """
    a = _order(alpha)
    eps_r = check_real(epsilon, "epsilon", positive=True)

    def delta(eps: float) -> float:
        return float(_capped(_rdp_log_delta(a, eps_r, np.array([_epsilon_prime(eps)])))[0])

    return delta


@proven("audit/renyi.md")
def zcdp_delta_curve(*, rho: float) -> Callable[[float], float]:
    """The δ(ε′) that ρ-zCDP implies: inf over α > 1 of the RDP bound with ε_R = ρα (CKS20 Cor. 13).

    The log-bound is strictly convex in α, so the minimising order is the root of its derivative
    (2α − 1)ρ − ε′ + log(1 − 1/α), found by bisection in log(α − 1); any order gives a valid bound.

    Example
    -------
    >>> d = zcdp_delta_curve(rho=0.5)       # Gaussian, σ = Δ: exact δ(1) = 0.1269
    >>> round(d(1.0), 4)
    0.2468
    """
    r = check_real(rho, "rho", positive=True)

    def delta(eps: float) -> float:
        return float(_capped(_zcdp_log_delta(r, np.array([_epsilon_prime(eps)])))[0])

    return delta


def _default_grid(delta_at: Callable[[np.ndarray], np.ndarray], samples: int) -> np.ndarray:
    """12 points from where the implied δ first drops to 1 − 1/n to where it drops to 1/n (n = samples),
    located on a fixed grid of ε′ (0 and 4,000 log-spaced points from 10⁻⁸ to 700; δ is non-increasing)."""
    eps = np.concatenate(([0.0], np.geomspace(1e-8, 700.0, 4000)))
    delta = delta_at(eps)

    def first_below(level: float) -> float:
        below = np.flatnonzero(delta <= level)
        return float(eps[below[0]]) if below.size else 700.0

    return np.unique(np.linspace(first_below(1 - 1 / samples), first_below(1 / samples), _GRID_POINTS))


def _lower_end(consistent: Callable[[float], bool], claim: float, claim_consistent: bool) -> float:
    """The largest parameter found whose implied curve the bounds violate, to relative 1e-12 (0 if none)."""
    if claim_consistent:  # the audit's own verdict on the claim, so rho_lb >= rho exactly when refuted
        lo, hi = claim / 2, claim
        while consistent(lo):
            lo, hi = lo / 2, lo
            if lo < 1e-300:
                return 0.0
    else:
        lo, hi = claim, 2 * claim
        while not consistent(hi):
            lo, hi = hi, 2 * hi
            if hi > 1e300:
                return lo
    for _ in range(200):  # the implied curve is non-decreasing in the parameter (dpverify/audit/proofs/renyi.md)
        if hi - lo <= 1e-12 * hi:
            break
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if consistent(mid) else (mid, hi)
    return lo  # proof: lower-end


@dataclass(frozen=True)
class RDPAudit:
    """An (α, ε_R)-RDP claim audited: the curve audit and ``epsilon_lb`` (ε_R at order α exceeds it).

    Example
    -------
    >>> from dpverify.audit.curves import CurveAudit
    >>> c = CurveAudit((0.0,), (0.3,), (0.2,), 0.99, 100, 100)
    >>> RDPAudit(2.0, 0.1, 0.4, c).verdict().value
    'refuted'
    """

    alpha: float
    epsilon: float
    epsilon_lb: float
    curve: CurveAudit

    def verdict(self) -> Verdict:
        """``refuted`` when a lower bound exceeds the implied curve, else ``inconclusive`` (never ``holds``)."""
        return self.curve.verdict()


@dataclass(frozen=True)
class ZCDPAudit:
    """A ρ-zCDP claim audited: the curve audit and ``rho_lb`` (the mechanism's ρ exceeds it).

    Example
    -------
    >>> from dpverify.audit.curves import CurveAudit
    >>> c = CurveAudit((0.0,), (0.1,), (0.2,), 0.99, 100, 100)
    >>> ZCDPAudit(0.5, 0.02, c).verdict().value
    'inconclusive'
    """

    rho: float
    rho_lb: float
    curve: CurveAudit

    def verdict(self) -> Verdict:
        """``refuted`` when a lower bound exceeds the implied curve, else ``inconclusive`` (never ``holds``)."""
        return self.curve.verdict()


def _run(mechanism, curve_at, claim, pair, samples, epsilons, confidence, rng, statistic) -> tuple:
    """The curve audit of ``curve_at(None)`` (the claim) and the parameter's lower bound."""
    note_sampling("audit")  # the entry of audit_rdp and audit_zcdp: the claims engine records the sampling
    if isinstance(pair, np.ndarray):  # an array of two inputs, stacked along the first axis
        if pair.ndim < 1 or pair.shape[0] != 2:
            raise ValueError(f"pair must be (d, d_prime), got an array of shape {pair.shape}")
        pair = (pair[0], pair[1])
    n = check_positive_int(samples, "samples")
    check_work(2 * n, f"samples = {n}")  # the curve audit draws in chunks beyond the memory budget
    if epsilons is None:
        epsilons = _default_grid(curve_at(None), n)
    curve = audit_delta_curve(mechanism, pair=pair, delta_curve=lambda e: float(curve_at(None)(np.array([e]))[0]),
                              epsilons=epsilons, samples=n, confidence=confidence, rng=rng, statistic=statistic)
    eps, lower = np.array(curve.epsilons), np.array(curve.delta_lower)
    keep = lower > 0

    def consistent(p: float) -> bool:
        return bool(np.all(lower[keep] <= curve_at(p)(eps[keep])))  # proof: consistent

    if not keep.any():
        return curve, 0.0
    return curve, _lower_end(consistent, claim, curve.verdict() is not Verdict.REFUTED)


@proven("audit/renyi.md")
def audit_rdp(mechanism, *, alpha: float, epsilon: float, pair, samples: int, epsilons=None,
              confidence: float = 0.99, rng=None, statistic=None) -> RDPAudit:
    """Audit an (α, ε_R)-RDP claim on ``pair`` through the δ(ε′) curve it implies.

    ``epsilons`` defaults to 12 points spanning where the implied δ falls from 1 − 1/n to 1/n.
    ``epsilon_lb``: ε_R at order α exceeds it with probability ≥ ``confidence``.

    Example
    -------
    >>> gauss = lambda d, rng, n: rng.normal(float(d), 1.0, n)      # D_2 = 1: (2, 1)-RDP
    >>> r = audit_rdp(gauss, alpha=2.0, epsilon=1.0, pair=(0.0, 1.0), samples=100_000, rng=0)
    >>> r.verdict().value, r.epsilon_lb < 1.0
    ('inconclusive', True)
    """
    a = _order(alpha)
    eps_r = check_real(epsilon, "epsilon", positive=True)

    def curve_at(p):
        return lambda e: _capped(_rdp_log_delta(a, eps_r if p is None else p, e))

    curve, lower = _run(mechanism, curve_at, eps_r, pair, samples, epsilons, confidence, rng, statistic)
    return RDPAudit(a, eps_r, lower, curve)


@proven("audit/renyi.md")
def audit_zcdp(mechanism, *, rho: float, pair, samples: int, epsilons=None, confidence: float = 0.99, rng=None,
               statistic=None) -> ZCDPAudit:
    """Audit a ρ-zCDP claim on ``pair`` through the δ(ε′) curve it implies (CKS20 Cor. 13).

    ``rho_lb``: the mechanism's ρ exceeds it with probability ≥ ``confidence``; ``rho_lb ≥ rho``
    exactly when the claim is refuted.

    Example
    -------
    >>> gauss = lambda d, rng, n: rng.normal(float(d), 1.0, n)      # true ρ = 1/2
    >>> r = audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=100_000, rng=0)
    >>> r.verdict().value, r.rho_lb <= 0.5
    ('inconclusive', True)
    """
    r = check_real(rho, "rho", positive=True)

    def curve_at(p):
        return lambda e: _capped(_zcdp_log_delta(r if p is None else p, e))

    curve, lower = _run(mechanism, curve_at, r, pair, samples, epsilons, confidence, rng, statistic)
    return ZCDPAudit(r, lower, curve)
