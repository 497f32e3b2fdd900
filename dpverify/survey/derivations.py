"""Derivations and random instances the survey's claims are checked on.

- :func:`laplace_log_ratio_sup`: the supremum of the Laplace log-density ratio, by regions (sympy);
  also run by the proof ``survey/laplace_dp.md``;
- :func:`random_neighbour_scores`: a score vector and a neighbour's, each score moved by at most
  Δq (the exponential mechanism's instances);
- :func:`random_channel_pair`: two output laws whose privacy loss is exactly ε in some direction
  (the composition theorems' instances).

Example
-------
>>> sup, _ = laplace_log_ratio_sup()
>>> sup
s/b
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.validation import as_generator, check_bool, check_epsilon, check_positive_int, check_real

#: The most outputs a random derivation draws (k floats each; a larger k is a mistake, not a test).
_MAX_K = 10**7


def _seeded(rnd):
    """The random stream of a derivation's check: a Generator or a seed, never None (reproducible)."""
    if rnd is None:
        raise TypeError("rnd must be a numpy.random.Generator or an int seed, got None")
    return rnd

__all__ = ["laplace_log_ratio_sup", "random_channel_pair", "random_neighbour_scores"]


def laplace_log_ratio_sup():
    """sympy: sup_x ln(f_{μ}(x)/f_{μ+s}(x)) for Laplace densities with scale b, s ≥ 0.

    Returns (sup, per-region expressions).  The log-ratio is (|x − μ − s| − |x − μ|)/b;
    on x ≤ μ it is s/b, on μ ≤ x ≤ μ + s it is (2μ + s − 2x)/b (decreasing from s/b to
    −s/b), on x ≥ μ + s it is −s/b; so the supremum is s/b.

    Example
    -------
    >>> sup, (left, mid, right) = laplace_log_ratio_sup()
    >>> sup, left, right
    (s/b, s/b, -s/b)
    """
    x, mu = sp.symbols("x mu", real=True)
    s, b = sp.symbols("s b", positive=True)
    L = (sp.Abs(x - mu - s) - sp.Abs(x - mu)) / b
    left = sp.simplify(L.subs(x, mu - sp.Symbol("t", positive=True)))          # x < μ
    mid_t = sp.Symbol("u", positive=True)
    mid = sp.simplify(L.subs(x, mu + s * mid_t / (1 + mid_t)))                  # μ < x < μ + s
    right = sp.simplify(L.subs(x, mu + s + sp.Symbol("t", positive=True)))    # x > μ + s
    return sp.simplify(sp.Max(left, right)), (left, mid, right)


def random_neighbour_scores(rnd: np.random.Generator, k: int, delta_q: float, *, monotone: bool = False):
    """A score vector q on k outputs and a neighbour's q', every score moved by at most Δq.

    One coordinate moves by exactly Δq, as the worst case does; with ``monotone=True`` every
    score moves up (a monotone quality function).

    Parameters
    ----------
    rnd : numpy.random.Generator or int
        The random stream (or its seed).
    k : int
        The number of outputs (≥ 1).
    delta_q : float
        The sensitivity Δq of the scores (> 0).
    monotone : bool
        Whether every score moves in the same direction.

    Returns
    -------
    (q, q') : two arrays of shape (k,)

    Example
    -------
    >>> q, q2 = random_neighbour_scores(np.random.default_rng(0), 4, 1.5, monotone=True)
    >>> bool(np.all(q2 >= q)), bool(np.max(np.abs(q2 - q)) == 1.5)
    (True, True)
    """
    rnd = as_generator(_seeded(rnd), "rnd")
    check_positive_int(k, "k", maximum=_MAX_K)
    if check_real(delta_q, "delta_q", positive=True) > 1e100:
        raise ValueError(f"delta_q must be at most 1e100 (the scores stay finite), got {delta_q!r}")
    monotone = check_bool(monotone, "monotone")
    q = rnd.uniform(-5, 5, k)
    step = rnd.uniform(-delta_q, delta_q, k)
    if monotone:
        step = np.abs(step)
    # push one coordinate to the extreme, as the worst case does
    step[rnd.integers(k)] = delta_q if monotone else rnd.choice([-delta_q, delta_q])
    return q, q + step


def random_channel_pair(rnd: np.random.Generator, k: int, *, epsilon: float):
    """Two laws p, q on k ≥ 2 outputs whose log-ratios ln(p_j/q_j) span an interval of width 2ε.

    The log-ratio ln(p_j/q_j) is drawn in [−ε, ε] with its two end points taken by the first and
    the last output, then q is renormalised (a shift of every log-ratio by the same constant).

    Parameters
    ----------
    rnd : numpy.random.Generator or int
        The random stream (or its seed).
    k : int
        The number of outputs (≥ 2).
    epsilon : float
        Half the spread of the log-ratios (> 0), keyword-only.

    Example
    -------
    >>> p, q = random_channel_pair(np.random.default_rng(1), 3, epsilon=0.5)
    >>> r = np.log(p / q)
    >>> round(float(r.max() - r.min()), 12), round(float(p.sum()), 12), round(float(q.sum()), 12)
    (1.0, 1.0, 1.0)
    """
    rnd = as_generator(_seeded(rnd), "rnd")
    check_positive_int(k, "k", maximum=_MAX_K)
    eps = check_epsilon(epsilon)
    if eps > 300:
        raise ValueError(f"epsilon must be at most 300 (e^epsilon stays a float), got {epsilon!r}")
    if k < 2:
        raise ValueError(f"k must be at least 2 (two outputs carry the extreme log-ratios), got {k}")
    p = rnd.dirichlet(np.ones(k))
    t = rnd.uniform(-eps, eps, k)
    t[0], t[-1] = eps, -eps
    q = p * np.exp(-t)
    q /= q.sum()
    return p, q
