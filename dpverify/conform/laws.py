"""Closed-form laws of the candidate mechanisms a library measurement may sample, on finitely many cells.

A sample is matched against these (:func:`dpverify.conform.finite.fits`) to say which mechanism the code
samples; the divergence of the matched law is then computed exactly (:func:`dpverify.conform.finite.exact`).

- real noise binned on ``edges`` (−∞ and +∞ added): :func:`binned` with ``"laplace"`` or ``"gaussian"``;
- integer noise on the cells ``(−∞, lo − 1], lo, …, hi, [hi + 1, ∞)``: :func:`integer` with
  ``"laplace"`` (the two-sided geometric) or ``"gaussian"`` (the discrete Gaussian, Canonne–Kamath–Steinke);
- randomized response: :func:`randomized_response`;
- report noisy max and top-k over a small score vector, ordered outputs: :func:`top_k` with ``"gumbel"``
  (the exponential mechanism: Plackett–Luce, closed form) or ``"exponential"`` (one-sided exponential noise,
  by numerical integration, k ≤ 2; or k rounds of noisy max with fresh noise: ``"exponential-peeling"``).

Example
-------
>>> import numpy as np
>>> np.round(top_k("gumbel", [0.0, 0.0], scale=1.0, k=1), 3)
array([0.5, 0.5])
>>> round(float(binned("laplace", 0.0, scale=1.0, edges=[0.0]).sum()), 12)
1.0
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from scipy import integrate, stats

from dpverify.validation import check_finite_array, check_int_in, check_positive_int, check_probability, check_real

#: the largest scale and |integer| the closed forms are listed for (cells are enumerated)
MAX_SCALE, MAX_INT = 1e4, 10**6

__all__ = ["binned", "integer", "orderings", "randomized_response", "top_k"]


def binned(noise: str, mean: float, *, scale: float, edges) -> np.ndarray:
    """The probabilities of ``mean + noise`` in the cells cut by ``edges`` (ascending; −∞, +∞ added).

    Example
    -------
    >>> np.round(binned("gaussian", 0.0, scale=1.0, edges=[0.0]), 3)
    array([0.5, 0.5])
    """
    s = check_real(scale, "scale", positive=True)
    mu = check_real(mean, "mean")
    if np.size(edges) > 10**6:
        raise ValueError(f"edges must hold at most 10^6 cut points, got {np.size(edges):,}")
    e = check_finite_array(edges, "edges", ndim=1)
    if e.size < 1 or (np.diff(e) <= 0).any():
        raise ValueError(f"edges must be finite ascending cut points, got {edges!r:.80}")
    dist = {"laplace": stats.laplace, "gaussian": stats.norm}.get(noise)
    if dist is None:
        raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
    lower, upper = np.concatenate([[-np.inf], e]), np.concatenate([e, [np.inf]])
    left = dist.cdf(upper, loc=mu, scale=s) - dist.cdf(lower, loc=mu, scale=s)
    right = dist.sf(lower, loc=mu, scale=s) - dist.sf(upper, loc=mu, scale=s)  # no cancellation in the upper tail
    return np.where(lower >= mu, right, left)


def integer(noise: str, mean: int, *, scale: float, lo: int, hi: int) -> np.ndarray:
    """The probabilities of ``mean + noise`` on the cells ``(−∞, lo − 1], lo, …, hi, [hi + 1, ∞)``:
    ``"laplace"``: P(k) ∝ exp(−|k|/scale); ``"gaussian"``: P(k) ∝ exp(−k²/(2·scale²)).

    Example
    -------
    >>> p = integer("laplace", 0, scale=1.0, lo=0, hi=0)
    >>> round(float(p[1]), 6) == round((1 - math.exp(-1)) / (1 + math.exp(-1)), 6)
    True
    """
    s = check_real(scale, "scale", positive=True)
    if s > MAX_SCALE:
        raise ValueError(f"scale must be at most {MAX_SCALE:g} (the support is listed), got {scale!r}")
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
    mean, lo, hi = (check_int_in(v, name, -MAX_INT, MAX_INT) for name, v in (("mean", mean), ("lo", lo), ("hi", hi)))
    if not lo <= hi:
        raise ValueError(f"lo must be <= hi, got lo={lo}, hi={hi}")
    reach = int(math.ceil(60 * s + 40)) + abs(int(mean)) + max(abs(lo), abs(hi))
    k = np.arange(-reach, reach + 1)
    x = (k - mean).astype(float)
    logw = -np.abs(x) / s if noise == "laplace" else -(x**2) / (2 * s * s)
    w = np.exp(logw - logw.max())
    w /= w.sum()
    inner = (k >= lo) & (k <= hi)
    return np.concatenate([[w[k < lo].sum()], w[inner], [w[k > hi].sum()]])


def randomized_response(truth: int, *, k: int, prob: float) -> np.ndarray:
    """The truth with probability ``prob``, else uniform over the ``k − 1`` others.

    Example
    -------
    >>> randomized_response(0, k=2, prob=0.75)
    array([0.75, 0.25])
    """
    k = check_int_in(k, "k", 2, MAX_INT)
    p = check_probability(prob, "prob")
    truth = check_int_in(truth, "truth", 0, k - 1)
    out = np.full(k, (1.0 - p) / (k - 1))
    out[truth] = p
    return out


def orderings(m: int, k: int) -> list[tuple]:
    """The ordered k-tuples of distinct indices below m: the cells of a top-k output.

    Example
    -------
    >>> orderings(3, 2)[:3]
    [(0, 1), (0, 2), (1, 0)]
    """
    m, k = check_positive_int(m, "m"), check_positive_int(k, "k")
    if m > 12 or k > m:
        raise ValueError(f"m must be at most 12 (the cells are listed) and k at most m, got m={m}, k={k}")
    return list(itertools.permutations(range(m), k))


def _exp_cdf(x, u, s):
    return 0.0 if x < u else -math.expm1(-(x - u) / s)


def _exp_pdf(x, u, s):
    return 0.0 if x < u else math.exp(-(x - u) / s) / s


def _exponential_cell(u, s, order) -> float:
    """P(the noisy scores put ``order`` first, in that order, ahead of every other) for u + s·Exp(1)."""
    rest = [j for j in range(len(u)) if j not in order]
    top = max(u) + 60 * s

    def below(x):  # all the others below x
        return math.prod(_exp_cdf(x, u[j], s) for j in rest)

    a = order[0]
    if len(order) == 1:
        return integrate.quad(lambda x: _exp_pdf(x, u[a], s) * below(x), u[a], top, epsabs=1e-13, limit=200)[0]
    b = order[1]

    def inner(x):  # the second below x, the rest below the second
        lo = u[b]
        if x <= lo:
            return 0.0
        return integrate.quad(lambda y: _exp_pdf(y, u[b], s) * below(y), lo, x, epsabs=1e-13, limit=200)[0]

    return integrate.quad(lambda x: _exp_pdf(x, u[a], s) * inner(x), u[a], top, epsabs=1e-12, limit=200)[0]


def top_k(noise: str, scores, *, scale: float, k: int) -> np.ndarray:
    """The law of the ordered top-``k`` indices of ``scores + noise`` on the cells :func:`orderings`:
    ``"gumbel"`` (Plackett–Luce with weights exp(score/scale)), ``"exponential"`` (one draw of noise, the k
    largest in order; k ≤ 2) or ``"exponential-peeling"`` (k rounds of noisy max with fresh noise).

    Example
    -------
    >>> np.round(top_k("exponential", [0.0, 0.0], scale=1.0, k=1), 6)
    array([0.5, 0.5])
    """
    s = check_real(scale, "scale", positive=True)
    if np.size(scores) > 12 or np.size(scores) < 2:
        raise ValueError(f"scores must hold 2 to 12 numbers, got {np.size(scores)}")
    flat = np.ravel(np.asarray(scores, dtype=object))
    if not 2 <= flat.size <= 12:
        raise ValueError(f"scores must hold 2 to 12 numbers, got {flat.size}")
    u = [check_real(x, "scores") for x in flat]
    k = check_positive_int(k, "k")
    if not k <= len(u):
        raise ValueError(f"k must be at most the number of scores, got k={k}, {len(u)} scores")
    if noise not in ("gumbel", "exponential", "exponential-peeling"):
        raise ValueError(f"noise must be 'gumbel', 'exponential' or 'exponential-peeling', got {noise!r}")
    if noise == "exponential" and k > 2:
        raise ValueError(f"the exponential-noise law is computed for k <= 2, got k={k}")
    return np.array(_top_k(noise, tuple(u), s, k))  # a fresh array: the cached law is never handed out


@functools.lru_cache(maxsize=256)
def _top_k(noise: str, u: tuple, s: float, k: int) -> tuple:
    """:func:`top_k` on validated arguments, cached: a sweep asks for one law at many cases."""
    cells = orderings(len(u), k)
    if noise == "gumbel":
        w = np.exp((np.array(u) - max(u)) / s)
        out = []
        for order in cells:
            left, p = w.sum(), 1.0
            for i in order:
                p *= w[i] / left
                left -= w[i]
            out.append(p)
        return tuple(out)
    if noise == "exponential-peeling":  # k rounds of noisy max, fresh noise, the winner removed each round
        out = []
        for order in cells:
            p, left = 1.0, list(range(len(u)))
            for i in order:
                sub = [u[j] for j in left]
                p *= _exponential_cell(sub, s, (left.index(i),)) if len(sub) > 1 else 1.0
                left.remove(i)
            out.append(p)
        return tuple(float(x) for x in np.array(out) / sum(out))
    law = np.array([_exponential_cell(u, s, order) for order in cells])
    return tuple(float(x) for x in law / law.sum())
