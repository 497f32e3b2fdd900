"""Divergences of finite laws, exactly and as lower confidence bounds from counts.

A measurement's outputs mapped to finitely many cells (its own finite outputs, or bins of integer or real
outputs: a post-processing, so every divergence of the cell laws is at most the measurement's own) give two
count vectors at neighbouring inputs.  Simultaneous Clopper–Pearson intervals (Bonferroni over every cell of
both laws) hold every true cell probability in a box [lo, hi] with probability ≥ 1 − α.  On that event:

- pure ε: ``log(p_i / q_i) ≥ log(lo_p,i / hi_q,i)`` for every cell, so the largest is a lower bound of ε;
- (ε, δ): ``Σ max(p_i − e^ε q_i, 0) ≥ Σ max(lo_p,i − e^ε hi_q,i, 0)``;
- Rényi of order α > 1: ``Σ p_i^α q_i^(1−α)`` increases in each p_i and decreases in each q_i, so its value
  at (lo_p, hi_q) is a lower bound, and D_α ≥ log(that)/(α − 1); ρ-zCDP (D_α ≤ ρα for every α) is then
  bounded below by the largest ``D_α / α`` over a grid of orders fixed in advance.

Each bound is taken in both directions (P‖Q and Q‖P).  :func:`exact` computes the same quantities for two
known pmfs (the closed form a sample was matched to).  The proof is ``conform/proofs/finite_bounds.md``.

Example
-------
>>> import numpy as np
>>> p, q = np.array([0.75, 0.25]), np.array([0.25, 0.75])
>>> round(exact("pure", p, q), 6)                   # randomized response at prob 3/4: ε = log 3
1.098612
>>> lower("pure", np.array([7500, 2500]), np.array([2500, 7500]), alpha=0.01) < 1.0986
True
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpverify.proofdocs import proven
from dpverify.validation import check_finite_array, check_probability, check_real

__all__ = ["KINDS", "MAX_CELLS", "ORDERS", "box", "exact", "fits", "lower"]

#: the most cells a count vector may have
MAX_CELLS = 100_000
#: the divergences: pure ε, δ at a given ε, ρ (zCDP), Rényi ε at a given order
KINDS = ("pure", "delta", "zcdp", "renyi")
#: the Rényi orders of the zCDP bound (fixed before any draw)
ORDERS = np.concatenate([np.linspace(1.05, 2.0, 20), np.geomspace(2.1, 400.0, 80)])


def _counts(x, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.size > MAX_CELLS:
        raise ValueError(f"{name} must have at most {MAX_CELLS:,} cells, got {a.size:,}")
    if a.ndim != 1 or a.size < 2 or not np.issubdtype(a.dtype, np.integer) or (a < 0).any() or a.sum() < 1:
        raise ValueError(f"{name} must be a 1-d array of at least two non-negative integer counts, got {x!r:.80}")
    return a.astype(np.int64)


def box(counts, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson intervals ``(lo, hi)`` for every cell, each at level ``alpha`` (two-sided).

    Example
    -------
    >>> lo, hi = box(np.array([50, 50]), 0.01)
    >>> bool((lo < 0.5).all() and (hi > 0.5).all())
    True
    """
    c = _counts(counts, "counts")
    a = check_probability(alpha, "alpha")
    if not 0 < a < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    n = int(c.sum())
    lo = np.where(c > 0, stats.beta.ppf(a / 2, np.maximum(c, 1), n - c + 1), 0.0)
    hi = np.where(c < n, stats.beta.ppf(1 - a / 2, c + 1, np.maximum(n - c, 1)), 1.0)
    return np.nan_to_num(lo), np.nan_to_num(hi, nan=1.0)


def _one_way(kind: str, p: np.ndarray, q: np.ndarray, at: float) -> float:
    """The divergence of ``kind`` of p from q (p may be lower ends and q upper ends of a box)."""
    if kind == "pure":
        keep = p > 0
        if not keep.any():
            return -math.inf
        with np.errstate(divide="ignore"):
            return float(np.max(np.log(p[keep]) - np.log(q[keep])))
    if kind == "delta":
        return float(np.sum(np.maximum(p - math.exp(at) * q, 0.0)))
    keep = (p > 0) & (q > 0)
    if (p[~keep] > 0).any():
        return math.inf  # P has mass where Q has none: every Rényi divergence is infinite
    lp, lq = np.log(p[keep]), np.log(q[keep])
    orders = np.array([at]) if kind == "renyi" else ORDERS
    terms = orders[:, None] * lp[None, :] + (1 - orders[:, None]) * lq[None, :]
    top = terms.max(axis=1)
    d = (top + np.log(np.exp(terms - top[:, None]).sum(axis=1))) / (orders - 1)
    return float(d[0]) if kind == "renyi" else float(np.max(d / orders))


def _kind(kind: str, at) -> float:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if kind in ("delta", "renyi"):
        a = check_real(at, "at", nonneg=kind == "delta", positive=kind == "renyi")
        if kind == "renyi" and not a > 1:
            raise ValueError(f"at (the Rényi order) must be > 1, got {at!r}")
        return a
    return 0.0


def exact(kind: str, p, q, *, at=None) -> float:
    """The divergence ``kind`` between two pmfs, the larger of both directions (``at``: the ε of
    ``"delta"``, the order of ``"renyi"``; the zCDP ρ is the largest D_α/α over :data:`ORDERS`).

    Example
    -------
    >>> round(exact("delta", np.array([0.5, 0.5]), np.array([0.25, 0.75]), at=0.0), 6)
    0.25
    """
    a = _kind(kind, at)
    p, q = check_finite_array(p, "p", ndim=1), check_finite_array(q, "q", ndim=1)
    if p.size > MAX_CELLS or p.shape != q.shape or (p < 0).any() or (q < 0).any():
        raise ValueError(f"p and q must be pmfs of one shape, got shapes {p.shape} and {q.shape}")
    return max(_one_way(kind, p, q, a), _one_way(kind, q, p, a))


@proven("conform/finite_bounds.md")
def lower(kind: str, counts_p, counts_q, *, alpha: float, at=None) -> float:
    """A lower bound of the divergence ``kind`` of the true cell laws behind two count vectors, valid with
    probability ≥ 1 − ``alpha`` (simultaneous Clopper–Pearson boxes; module docstring).

    Example
    -------
    >>> lower("zcdp", np.array([5000, 5000]), np.array([5000, 5000]), alpha=0.01) <= 0
    True
    """
    a = _kind(kind, at)
    cp, cq = _counts(counts_p, "counts_p"), _counts(counts_q, "counts_q")
    if cp.shape != cq.shape:
        raise ValueError(f"counts_p and counts_q must have one shape, got {cp.shape} and {cq.shape}")
    level = check_probability(alpha, "alpha") / (2 * cp.size)
    if not level > 0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    (lp, hp), (lq, hq) = box(cp, level), box(cq, level)
    return max(_one_way(kind, lp, hq, a), _one_way(kind, lq, hp, a))


def fits(counts, probs, *, alpha: float = 1e-3) -> float:
    """The p-value of Pearson's χ² test of ``counts`` against the pmf ``probs`` (cells expected below 5
    pooled); the law fits when it is ≥ ``alpha`` (returned as is; the caller compares).

    Example
    -------
    >>> fits(np.array([480, 520]), np.array([0.5, 0.5])) > 0.05
    True
    """
    c = _counts(counts, "counts")
    p = check_finite_array(probs, "probs", ndim=1)
    if p.shape != c.shape or (p < 0).any() or not abs(p.sum() - 1) < 1e-6:
        raise ValueError(f"probs must be a pmf of the counts' shape {c.shape}, got {probs!r:.80}")
    check_probability(alpha, "alpha")
    expected = p * c.sum()
    small = expected < 5
    if (c[expected == 0] > 0).any():
        return 0.0  # an output the law gives probability 0
    obs = np.append(c[~small], c[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    if keep.sum() < 2:
        return 1.0
    obs, exp = obs[keep], exp[keep]
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)
