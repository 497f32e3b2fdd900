"""Base-k digits of the time steps 1..n: the counting behind the online k-ary tree's errors.

Digit j of t (base k) is the number of complete aligned level-j blocks inside the level-(j+1)
block that holds t, so the nodes an online tree release sums at time t, and hence its MSE, are read
off t's digits (``continual/baselines_variance.md``, honaker-mse).

- :func:`digit_counts` — the table ``d[j, t-1]`` = digit j of t;
- :func:`digit_sums` — its row sums ``D_j`` in O(L), without the table;
- :func:`honaker_nodes` — per level, the complete aligned blocks inside [1, n].

Example
-------
>>> digit_counts(6, 3, 2).tolist()   # 6 = 20 in base 3
[[1, 2, 0, 1, 2, 0], [0, 0, 1, 1, 1, 2]]
>>> digit_sums(6, 3, 2).tolist(), honaker_nodes(6, 3, 2)
([6.0, 5.0], [6, 2])
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_budget, check_nonneg_int
from dpverify.continual.kary_tree import check_branching

__all__ = ["digit_counts", "digit_sums", "honaker_nodes"]


#: Digits a time step can have: n < 2^62 (int64 positions) has at most 62 base-2 digits, so more
#: levels than this are all 0 and are refused.
MAX_DIGITS = 64


def _check_digits(n, k, L) -> tuple[int, int, int]:
    """(n, k, L) of the digit tables: 0 <= n < 2^62 positions, base k >= 2, 0 <= L <= 64 digits."""
    n = check_nonneg_int(n, "n", maximum=2**62 - 1)
    return n, check_branching(k, "k"), check_nonneg_int(L, "L", maximum=MAX_DIGITS)


def digit_counts(n: int, k: int, L: int) -> np.ndarray:
    """The base-``k`` digits of every time step: ``d[j, t-1]`` = digit j of t, for t = 1..n.

    Digit j of t counts t's complete aligned level-j blocks inside the level-(j+1) block that
    holds t, so the MSE of Honaker's online release at t is ``Σ_j d[j, t-1] v_j``
    (``continual/baselines_variance.md``, honaker-mse).

    Parameters
    ----------
    n : int
        The number of time steps (>= 0).
    k : int
        The base (the tree's branching factor, >= 2).
    L : int
        How many digits (>= 0): the tree's number of levels.

    Returns
    -------
    numpy.ndarray of int64, shape (L, n)

    Example
    -------
    >>> digit_counts(5, 2, 3).tolist()   # 1 = 001, 2 = 010, 3 = 011, 4 = 100, 5 = 101 (least digit first)
    [[1, 0, 1, 0, 1], [0, 1, 1, 0, 0], [0, 0, 0, 1, 1]]
    >>> digit_counts(3, 1, 2)
    Traceback (most recent call last):
    ...
    ValueError: k must be >= 2, got 1
    """
    n, k, L = _check_digits(n, k, L)
    check_budget(8 * L * n, f"n = {n}, L = {L}")
    t = np.arange(1, n + 1, dtype=np.int64)
    d = np.empty((L, n), dtype=np.int64)
    for j in range(L):
        d[j] = t % k
        t = t // k
    return d


def digit_sums(n: int, k: int, L: int) -> np.ndarray:
    """``D_j = Σ_{t=1}^{n}`` (digit j of t in base k), in O(L): full cycles of k^(j+1), then the rest.

    The row sums of :func:`digit_counts` without building it: the total MSE of Honaker's online
    release is ``Σ_j D_j v_j``.

    Parameters
    ----------
    n : int
        The number of time steps (>= 0).
    k : int
        The base (>= 2).
    L : int
        How many digits (>= 0).

    Returns
    -------
    numpy.ndarray of float, shape (L,)

    Example
    -------
    >>> digit_sums(5, 2, 3).tolist(), digit_counts(5, 2, 3).sum(axis=1).tolist()
    ([3.0, 2.0, 2.0], [3, 2, 2])
    >>> digit_sums(-3, 2, 2)
    Traceback (most recent call last):
    ...
    ValueError: n must be >= 0, got -3
    """
    n, k, L = _check_digits(n, k, L)
    out = np.zeros(L)
    for j in range(L):
        p, P = k**j, k ** (j + 1)
        full, rem = divmod(n + 1, P)  # t = 0..n
        f, part = divmod(rem, p)
        out[j] = full * p * k * (k - 1) / 2 + p * f * (f - 1) / 2 + f * part
    return out


def honaker_nodes(n: int, k: int, L: int) -> list[int]:
    """Per level j < L: the number ``n // k**j`` of complete aligned blocks of size k^j inside [1, n].

    These are the nodes of level j that Honaker's online tree has measured by time n.

    Parameters
    ----------
    n : int
        The number of time steps (>= 0).
    k : int
        The branching factor (>= 2).
    L : int
        The number of levels (>= 0).

    Returns
    -------
    list of int

    Example
    -------
    >>> honaker_nodes(5, 2, 3)
    [5, 2, 1]
    >>> honaker_nodes(5, 0, 3)
    Traceback (most recent call last):
    ...
    ValueError: k must be >= 1, got 0
    """
    n, k, L = _check_digits(n, k, L)
    return [n // k**j for j in range(L)]
