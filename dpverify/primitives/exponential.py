"""The exponential mechanism on a finite output set (the survey (Zhu et al.), section "exponential mechanism").

Output φ with probability ∝ exp(ε q(D, φ) / (2Δq)).  The factor 2 pays for the change
of the normaliser between neighbours; with exp(ε q / Δq) the mechanism is only 2ε-DP in
general (ε-DP when every score moves in the same direction, i.e. q is monotone).

Sampling is exact, far tail included: the output is the interval of the law's CDF that
holds a uniform u ∈ [0, 1), the CDF being computed in certified interval arithmetic
(mpmath) and u drawn bit by bit from the Generator until the interval is decided.  An
output 40 nats below the best (probability ~1e-18) is drawn with exactly its probability;
the Gumbel-max trick in float64 never draws it (its Gumbel noise spans only about
[−3.6, 36.7]), which would make the mechanism ε-DP only with a δ ≈ 1e-18.
"""

from __future__ import annotations

import bisect
import math

import mpmath
import numpy as np
from mpmath import iv

from dpverify.validation import as_generator, check_epsilon, check_finite_array, check_real, check_size
from dpverify.proofdocs import proven

__all__ = ["exponential_mechanism", "exponential_probabilities", "exponential_cdf_bounds"]

_L0 = 62  # bits of the first uniform draw (int64-vectorised)
_MAX_OUTCOMES = 1_000_000
#: The exact sampler certifies each CDF boundary in interval arithmetic, about 15 µs an outcome:
#: beyond this many outcomes its work is refused up front (the law itself takes _MAX_OUTCOMES).
_MAX_SAMPLED_OUTCOMES = 100_000


def _scores(scores, sensitivity, epsilon, factor):
    q = check_finite_array(scores, "scores", ndim=1)
    if q.size < 1:
        raise ValueError("scores must be non-empty")
    if q.size > _MAX_OUTCOMES:
        raise ValueError(f"scores must have at most {_MAX_OUTCOMES} outcomes, got {q.size}")
    dq = check_real(sensitivity, "sensitivity", positive=True)
    eps = check_epsilon(epsilon)
    c = check_real(factor, "factor", positive=True)
    return q, dq, eps, c


def _weights_iv(q: np.ndarray, dq: float, eps: float, c: float, prec: int):
    """Certified intervals of w_φ = exp(−ε (q* − q_φ) / (c Δq)) and of their partial sums."""
    old = iv.prec
    iv.prec = prec
    try:
        top = iv.mpf(float(q.max()))
        k = iv.mpf(eps) / (iv.mpf(c) * iv.mpf(dq))
        w = [iv.exp(-(k * (top - iv.mpf(float(x))))) for x in q.tolist()]  # proof: expmech-exact-weights
        partial = [iv.mpf(0)]
        for x in w:
            partial.append(partial[-1] + x)
        return w, partial
    finally:
        iv.prec = old


def _bounds(q, dq, eps, c, L: int):
    """Integer brackets A_j ≤ 2^L·C_j ≤ B_j of the CDF boundaries C_j = P(outcome < j), j = 1 … m−1."""
    m = q.size
    old = iv.prec
    prec = L + 2 * max(1, m.bit_length()) + 40
    w, partial = _weights_iv(q, dq, eps, c, prec)
    iv.prec = prec
    try:
        with mpmath.workprec(prec + 8):  # endpoints converted without rounding
            Z = partial[-1]
            A, B = [], []
            for j in range(1, m):
                C = partial[j] / Z  # proof: expmech-cdf
                lo, hi = mpmath.mpf(C._mpi_[0]), mpmath.mpf(C._mpi_[1])
                A.append(max(0, int(mpmath.floor(mpmath.ldexp(lo, L)))))
                B.append(min(2**L, int(mpmath.ceil(mpmath.ldexp(hi, L)))))
    finally:
        iv.prec = old
    return A, B


def exponential_cdf_bounds(scores, sensitivity: float, epsilon: float, *, factor: float = 2.0, bits: int = 62):
    """Certified integer brackets of the mechanism's CDF on a 2^bits grid: A_j ≤ 2^bits·P(φ < j) ≤ B_j.

    The sampler draws u = U/2^bits (refined with more bits while a bracket holds U) and returns
    the number of boundaries below u, so outcome j has exactly the probability C_{j+1} − C_j.

    Example
    -------
    >>> A, B = exponential_cdf_bounds([0.0, 0.0], 1.0, 1.0, bits=4)
    >>> A, B                      # the one boundary, 1/2, is 8/16 exactly
    ([8], [8])
    """
    q, dq, eps, c = _scores(scores, sensitivity, epsilon, factor)
    _check_sampled(q)
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not 1 <= bits <= 4096:
        raise ValueError(f"bits must be an integer in [1, 4096], got {bits!r}")
    return _bounds(q, dq, eps, c, int(bits))


def _check_sampled(q: np.ndarray) -> None:
    if q.size > _MAX_SAMPLED_OUTCOMES:
        raise ValueError(f"scores must have at most {_MAX_SAMPLED_OUTCOMES} outcomes for the exact sampler "
                         f"(its certified CDF costs about 15 µs an outcome), got {q.size}")


@proven("survey/exponential_mechanism.md")
def exponential_probabilities(scores, sensitivity: float, epsilon: float, *, factor: float = 2.0) -> np.ndarray:
    """Output law p_φ = exp(ε q_φ / (factor·Δq)) / Σ exp(...); ``factor=2`` is the ε-DP mechanism.

    Computed as a stable softmax, in extended precision when the float64 exponent would
    overflow (ε or scores near 1e308), so the result is always finite.

    Example
    -------
    >>> exponential_probabilities([0.0, 0.0], 1.0, 1.0).tolist()
    [0.5, 0.5]
    >>> exponential_probabilities([0.0, 1.0], 1.0, 1e308).tolist()
    [0.0, 1.0]
    """
    q, dq, eps, c = _scores(scores, sensitivity, epsilon, factor)
    with np.errstate(over="ignore", invalid="ignore"):
        u = eps * q / (c * dq)  # proof: expmech-weights
        ok = np.isfinite(u).all() and np.isfinite(u - u.max()).all()
    if ok:
        w = np.exp(u - u.max())
        return w / w.sum()
    w, partial = _weights_iv(q, dq, eps, c, 80)
    old = iv.prec
    iv.prec = 80
    try:
        with mpmath.workprec(90):
            Z = partial[-1]
            return np.array([float(mpmath.mpf((x / Z)._mpi_[0])) for x in w])
    finally:
        iv.prec = old


def exponential_mechanism(scores, sensitivity: float, epsilon: float, rng=None, size=None) -> np.ndarray:
    """Sample output indices of the ε-DP exponential mechanism, exactly (far tail included).

    The index is the CDF interval holding a uniform u: u's first 62 bits are drawn for all
    samples at once and compared with certified brackets of the CDF boundaries
    (:func:`exponential_cdf_bounds`); the rare u that falls inside a bracket gets 64 more bits
    and tighter brackets until decided.  So every outcome has exactly its probability
    (:func:`exponential_probabilities`), even ~1e-18 or less.

    ``size``: independent runs on the same scores (what an auditor needs); publishing a batch
    of ``size`` outputs costs size·ε (sequential composition).

    Example
    -------
    >>> exponential_mechanism([1.0, 5.0, 2.0], 1.0, 1.0, rng=0, size=4).shape
    (4,)
    """
    q, dq, eps, c = _scores(scores, sensitivity, epsilon, 2.0)
    _check_sampled(q)
    shape = check_size(size, "size")
    g = as_generator(rng)
    n = math.prod(shape) if size is not None else 1
    if q.size == 1:
        idx = np.zeros(n, dtype=np.int64)
        return int(idx[0]) if size is None else idx.reshape(shape)
    A, B = _bounds(q, dq, eps, c, _L0)
    U = g.integers(0, 2**_L0, size=n, dtype=np.int64)  # proof: expmech-uniform
    An, Bn = np.array(A, dtype=np.int64), np.array(B, dtype=np.int64)
    idx = np.searchsorted(Bn, U, side="right").astype(np.int64)  # boundaries surely below u
    undecided = np.flatnonzero(np.searchsorted(An, U, side="right") != idx)
    cache = {_L0: (A, B)}
    for i in undecided:  # u within a bracket: refine with 64 more bits at a time
        u, L = int(U[i]), _L0
        while True:
            L += 64
            u = (u << 64) | int(g.integers(0, 2**64, dtype=np.uint64))  # proof: expmech-refine
            if L not in cache:
                cache[L] = _bounds(q, dq, eps, c, L)
            a, b = cache[L]
            lo, hi = bisect.bisect_right(b, u), bisect.bisect_right(a, u)
            if lo == hi:
                idx[i] = lo
                break
    return int(idx[0]) if size is None else idx.reshape(shape)
