"""The balanced-digit k-ary tree of the "elders" method: digits, levels and the explicit strategy.

Every t is written in balanced base-k digits d_j ∈ {lo, ..., hi}; release t adds or subtracts
aligned blocks, the nodes of a complete k-ary tree (the construction, what rests on the paper and
what is reconstructed are described in :mod:`dpverify.continual.elders`).  This module holds the tree: the digit range,
the number of levels, the digits of t, the digit-sum total that sets the best branching, and the
explicit strategy ``(R, A)``.

Example
-------
>>> elders_digits([7], 3).ravel().tolist()     # 7 = 1 - 1·3 + 1·9
[1, -1, 1]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from dpverify.validation import check_budget, check_positive_int
from dpverify.continual.checks import check_n, check_times

__all__ = ["check_elders_branching", "resolve_elders_branching", "elders_digit_range", "elders_levels",
           "elders_digits", "elders_digit_sum_total", "elders_best_branching", "elders_strategy",
           "elders_strategy_parts"]

_MAX_BRANCHING = 64
_MAX_NNZ = 60_000_000  # strategy matrices above this many entries are refused (memory)
_GUARD = 2.0**-40  # strategy weights scaled by (1 - _GUARD): exact column sums stay below 1


def check_elders_branching(branching, name: str = "branching") -> int:
    """The branching factor of the elders tree: an integer in [2, 64].

    Example
    -------
    >>> check_elders_branching(3)
    3
    """
    k = branching
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {k!r}")
    k = int(k)
    if not 2 <= k <= _MAX_BRANCHING:
        raise ValueError(f"{name} must be in [2, {_MAX_BRANCHING}], got {k}")
    return k


def elders_digit_range(k: int) -> tuple[int, int]:
    """``(lo, hi)``: the balanced digit set {lo, ..., hi} of base k (k consecutive integers around 0).

    Example
    -------
    >>> elders_digit_range(5), elders_digit_range(4)
    ((-2, 2), (-1, 2))
    """
    k = check_elders_branching(k, "k (the branching factor)")
    return -((k - 1) // 2), k // 2


def elders_levels(n: int, k: int) -> int:
    """L: the fewest balanced base-k digits representing every t in 1..n (hi (k^L - 1)/(k - 1) >= n).

    Example
    -------
    >>> elders_levels(4, 3), elders_levels(5, 3), elders_levels(4095, 19), elders_levels(4095, 20)
    (2, 3, 4, 3)
    """
    n = check_positive_int(n, "n")
    _, hi = elders_digit_range(k)
    L, top = 1, hi
    while top < n:
        L += 1
        top = top * k + hi
    return L


def elders_digits(t, k: int, levels: int | None = None) -> np.ndarray:
    """Balanced base-k digits of each t (rows = levels 0..L-1), L = ``elders_levels(max t, k)`` by default.

    Example
    -------
    >>> elders_digits([1, 2, 3, 4], 3).T.tolist()   # 2 = -1 + 3, 4 = 1 + 3
    [[1, 0], [-1, 1], [0, 1], [1, 1]]
    """
    lo, _ = elders_digit_range(k)
    u = np.array(check_times(t, "t"), ndmin=1)
    if u.size == 0 or (u < 1).any():
        raise ValueError("t must be a non-empty array of integers >= 1")
    L = elders_levels(int(u.max()), k) if levels is None else check_positive_int(levels, "levels")
    check_budget(L * u.size * 8, f"levels = {L} (with {u.size} times t)")
    out = np.zeros((L, u.size), dtype=np.int64)
    for j in range(L):
        if not u.any():  # every t written: the higher digits are 0 (u = 0 stays 0)
            break
        q = (u - lo) // k
        out[j] = u - k * q  # proof: elders-digit
        u = q
    if u.any():
        raise ValueError(f"levels={L} too few for t up to {int(np.max(t))} in base {k}")
    return out


def _level_run(n: int, k: int, lo: int):
    """Per level j: (first, last) value of u_j(t) for t = 1..n and the offset lo·R_j, R_j = (k^j - 1)/(k - 1)."""
    L = elders_levels(n, k)
    for j in range(L):
        off = lo * (k**j - 1) // (k - 1)
        yield j, (1 - off) // k**j, (n - off) // k**j, off


def elders_digit_sum_total(n: int, k: int) -> int:
    """Σ_{t=1..n} Σ_j |d_j(t)| exactly, in O(L) (u_j(t) = floor((t - lo R_j)/k^j) is a step function).

    Example
    -------
    >>> elders_digit_sum_total(7, 3), int(abs(elders_digits(range(1, 8), 3)).sum())
    (14, 14)
    """
    n = check_positive_int(n, "n")
    lo, hi = elders_digit_range(k)
    cyc = [abs(((q - lo) % k) + lo) for q in range(k)]
    per = sum(cyc)

    def F(x):  # Σ_{q=0}^{x-1} |d(q)|, d(q) = ((q - lo) mod k) + lo
        return (x // k) * per + sum(cyc[: x % k])

    total = 0
    for j, q1, qn, off in _level_run(n, k, lo):
        size = k**j
        if q1 == qn:
            total += n * cyc[q1 % k]
            continue
        first = (q1 + 1) * size + off - 1  # last t with u_j = q1
        last = qn * size + off  # first t with u_j = qn
        total += cyc[q1 % k] * first + cyc[qn % k] * (n - last + 1) + size * (F(qn) - F(q1 + 1))
    return total


def elders_best_branching(n: int) -> int:
    """The k in [2, 64] with the least total MSE (uniform node noise: L(k)² · Σ_t Σ_j |d_j(t)|).

    Example
    -------
    >>> elders_best_branching(4095), elders_best_branching(2**20)
    (20, 19)
    """
    n = check_positive_int(n, "n")
    cost = {k: elders_levels(n, k) ** 2 * elders_digit_sum_total(n, k) for k in range(2, _MAX_BRANCHING + 1)}
    return min(cost, key=lambda k: (cost[k], k))


def resolve_elders_branching(n: int, branching: int | None = None) -> int:
    """``branching`` checked, or the best branching for n when it is None.

    Example
    -------
    >>> resolve_elders_branching(10, 3)
    3
    """
    n = check_n(n)
    return elders_best_branching(n) if branching is None else check_elders_branching(branching)


def _node_weight(L: int) -> float:
    """w = (1/L)(1 - 2^-40) rounded: L·w < 1 - 2^-41 exactly, so no float summation order lifts a column over 1."""
    w = (1.0 / L) * (1.0 - _GUARD)
    if Fraction(w) * L > 1 - Fraction(1, 2**41):  # a rounding bug, not an input error
        raise RuntimeError(f"node weight guard failed for L={L}")
    return w


def elders_strategy(n: int, *, branching: int | None = None):
    """``(R, A)`` scipy.sparse: A = w·(node membership), w = (1/L)(1 - 2^-40); R = ±L on the nodes of each t.

    Rows of A are the nodes (level by level, index 1..I_j); W = R·A up to the
    guard (L·w = 1 - O(2^-40)); the max column l1 norm of A is exactly <= 1.

    Example
    -------
    >>> R, A = elders_strategy(4, branching=3)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((4, 4)))))
    True
    """
    n = check_positive_int(n, "n")
    R, A, _ = elders_strategy_parts(n, resolve_elders_branching(n, branching))
    return R, A


def elders_strategy_parts(n: int, k: int):
    """``(R, A, offsets)`` of the elders strategy for a checked n and k: offsets[j] = (first row, nodes) of level j.

    Example
    -------
    >>> elders_strategy_parts(4, 3)[2]
    [(0, 4), (4, 2)]
    """
    lo, _ = elders_digit_range(k)
    L = elders_levels(n, k)
    if n * L * (k + 4) // 4 > _MAX_NNZ:
        raise ValueError(f"n={n} too large for an explicit strategy (about {n * L * (k + 4) // 4} entries > {_MAX_NNZ})")
    t = np.arange(1, n + 1, dtype=np.int64)
    rows, cols, vals, a_rows, a_cols, offsets = [], [], [], [], [], []
    offset, u = 0, t
    for j in range(L):
        q = (u - lo) // k
        d = u - k * q
        size = k**j
        top = int(max(u.max(), (k * q).max(), -(-n // size)))  # nodes 1..top of level j (used or covering)
        for m in range(1, int(np.abs(d).max(initial=0)) + 1):
            sel = np.abs(d) >= m
            node = np.where(d[sel] > 0, k * q[sel] + m, k * q[sel] - m + 1)
            rows.append(t[sel] - 1)
            cols.append(offset + node - 1)
            vals.append(np.sign(d[sel]).astype(float) * L)
        s = np.arange(1, n + 1, dtype=np.int64)
        a_rows.append(offset + (s - 1) // size)  # count s lies in node ceil(s / k^j) of level j
        a_cols.append(s - 1)
        offsets.append((offset, top))
        offset += top
        u = q
    R = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, offset))
    ar = np.concatenate(a_rows)
    A = sp.csr_matrix((np.full(ar.size, _node_weight(L)), (ar, np.concatenate(a_cols))), shape=(offset, n))
    return R, A, offsets
