"""k-ary Fenwick tree geometry: node t sums the counts ``a_j`` for ``t - k^v < j <= t``, v = v_k(t).

Beyond the paper (Cai, Wu and Wang's §6 leaves "further improvement" open).  Write t in base k and let
v = v_k(t) be its number of trailing zero digits; release t adds the nodes on its descent path
``t, t - k^{v(t)}, ...`` (eq. 5.6 with ``lowbit`` replaced by ``k^{v_k(t)}``), so it uses as many
nodes as the digit sum of t.  For k = 2 these are the Fenwick nodes of eq. 5.5.  This module holds
the tree (levels, digits, spans, the strategy M and recombination B, their O(n) products);
:mod:`dpverify.continual.kary_optimum` the optimal diagonal, :mod:`dpverify.continual.kary` the release.

Example
-------
>>> kary_strategy_matrix(3, 3).toarray().astype(int).tolist()
[[1, 0, 0], [0, 1, 0], [1, 1, 1]]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.continual.checks import check_n
from dpverify.validation import check_budget, check_counts, check_elements, check_finite_array, check_nonneg_int, check_positive_int
from dpverify.proofdocs import proven

__all__ = ["K_NAME", "check_branching", "kary_levels", "kary_digits", "kary_node_span", "kary_strategy_matrix",
           "kary_recombination", "kary_column_sq_norms", "kary_path_sums"]

K_NAME = "k (the branching factor)"  # how messages name a parameter k


def check_branching(k, name: str = "branching") -> int:
    """The branching factor: an integer >= 2.

    Example
    -------
    >>> check_branching(16)
    16
    """
    k = check_positive_int(k, name)
    if k < 2:
        raise ValueError(f"{name} must be >= 2, got {k}")
    check_budget(16 * k, f"{name} = {k}")  # the recursion over the digits holds O(k) floats per level
    return k


def kary_levels(n: int, k: int) -> int:
    """Number of levels ``floor(log_k n) + 1`` (integer arithmetic).

    Example
    -------
    >>> kary_levels(4095, 16), kary_levels(4096, 16)
    (3, 4)
    """
    n = check_n(n)
    k = check_branching(k, K_NAME)
    L, p = 0, 1
    while p <= n:
        L, p = L + 1, p * k
    return L


def kary_digits(n: int, k: int) -> list[int]:
    """Base-k digits of n, least significant first.

    Example
    -------
    >>> kary_digits(11, 3)
    [2, 0, 1]
    """
    n = check_nonneg_int(n, "n")
    k = check_branching(k, K_NAME)
    out = []
    while n:
        n, d = divmod(n, k)
        out.append(d)
    return out


def kary_node_span(t, k: int) -> np.ndarray:
    """``k^{v_k(t)}``: how many counts node t covers (the k-ary ``lowbit``), vectorised, t >= 1.

    Example
    -------
    >>> kary_node_span([1, 3, 9, 18, 27], 3).tolist()
    [1, 3, 9, 9, 27]
    """
    k = check_branching(k, K_NAME)
    if isinstance(t, (str, bytes)):
        raise TypeError(f"t must be integer node times, got {type(t).__name__}")
    t_in = np.asarray(t)
    check_elements(t_in, "t")
    if t_in.dtype == bool or not np.issubdtype(t_in.dtype, np.integer):
        raise TypeError(f"t must be integer node times >= 1, got dtype {t_in.dtype}")
    t = t_in.astype(np.int64)
    if (t < 1).any():
        raise ValueError(f"t must be >= 1, got {t[t < 1].ravel()[0]!r}")
    span = np.ones(t.shape, dtype=np.int64)
    tmax = int(t.max()) if t.size else 0
    p = k
    while p <= tmax:  # no t >= 1 is a multiple of p > max t (and p stays inside int64)
        m = t % p == 0
        if not m.any():
            return span
        span[m] = p
        p *= k
    return span


def _spans(n: int, k: int) -> np.ndarray:
    """``kary_node_span(1..n)`` by strided writes, O(n)."""
    span = np.ones(n + 1, dtype=np.int64)
    p = k
    while p <= n:
        span[p::p] = p
        p *= k
    return span[1:]


def kary_strategy_matrix(n: int, k: int) -> sp.csr_matrix:
    """The k-ary strategy M (0/1, CSR): row t has ones at columns ``t - k^{v_k(t)} < j <= t``.

    Example
    -------
    >>> kary_strategy_matrix(4, 3).toarray().astype(int).tolist()
    [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1]]
    """
    n = check_n(n, per_node=lambda k: 24 * k.bit_length() + 64, what=f"kary_strategy_matrix(n={n})")
    k = check_branching(k, K_NAME)
    t = np.arange(1, n + 1, dtype=np.int64)
    length = kary_node_span(t, k)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.arange(nnz, dtype=np.int64) + np.repeat(t - length - indptr[:-1], length)
    return sp.csr_matrix((np.ones(nnz), indices, indptr), shape=(n, n))


def _descent_edges(n: int, k: int):
    """(row, node) pairs of B: release t uses t, t - k^{v(t)}, ... (1-based)."""
    t = np.arange(1, n + 1, dtype=np.int64)
    rows, cols = [], []
    cur, live = t, t
    while cur.size:
        rows.append(live)
        cols.append(cur)
        cur = cur - kary_node_span(cur, k)  # proof: kary-descent
        keep = cur > 0
        cur, live = cur[keep], live[keep]
    return np.concatenate(rows), np.concatenate(cols)


def kary_recombination(n: int, k: int) -> sp.csr_matrix:
    """The k-ary recombination B (0/1, CSR): row t has ones on the descent path of t.

    Example
    -------
    >>> kary_recombination(5, 3).toarray().astype(int).tolist()[4]
    [0, 0, 1, 1, 1]
    """
    n = check_n(n, per_node=lambda k: 24 * k.bit_length() + 64, what=f"kary_recombination(n={n})")
    k = check_branching(k, K_NAME)
    r, c = _descent_edges(n, k)
    return sp.csr_matrix((np.ones(r.size), (r - 1, c - 1)), shape=(n, n))


@proven("continual/kary_recursion.md")
def kary_column_sq_norms(n: int, k: int) -> np.ndarray:
    """``||B(:, i)||²``: the releases that use node i.

    Node i (level v, digit d at position v) serves the releases that agree with
    i above position v and have digit >= d there: ``t in [i, hi]`` with
    ``hi = (i // k^(v+1) + 1) k^(v+1) - 1``, capped at n.

    Example
    -------
    >>> kary_column_sq_norms(8, 3).tolist()
    [2.0, 1.0, 6.0, 2.0, 1.0, 3.0, 2.0, 1.0]
    """
    n = check_n(n, per_node=48, what=f"kary_column_sq_norms(n={n})")
    k = check_branching(k, K_NAME)
    i = np.arange(1, n + 1, dtype=np.int64)
    span = kary_node_span(i, k)
    block = span * k
    hi = (i // block + 1) * block - 1
    return (np.minimum(hi, n) - i + 1).astype(float)  # proof: kary-colnorm


def kary_path_sums(x, k: int) -> np.ndarray:
    """``B x`` for the k-ary tree: ``y_t = x_t + y_{t - k^{v_k(t)}}``, O(n) strided passes.

    The parent of t (lowest non-zero digit d at position v) has digit d − 1 there: for d = 1 a
    node of a higher level, else the same level.  So levels are done from the top down and, within
    a level, digits in increasing order; each step is one strided slice.

    Example
    -------
    >>> kary_path_sums(np.ones(5), 3).tolist()
    [1.0, 2.0, 1.0, 2.0, 3.0]
    """
    if isinstance(x, (str, bytes)) or np.asarray(x).dtype.kind not in "iuf":
        raise TypeError(f"x must be a numeric 1-d array, got {x!r}")
    x = np.asarray(x)
    if x.dtype.kind == "f":
        x = check_finite_array(x, "x", ndim=1)
    elif x.ndim != 1:
        raise ValueError(f"x must be 1-dimensional, got shape {x.shape}")
    n = x.size
    k = check_branching(k, K_NAME)
    y = np.zeros(n + 1, dtype=np.float64 if x.dtype.kind == "f" else np.int64)
    y[1:] = x
    p = 1
    while p * k <= n:
        p *= k
    while p >= 1:  # level with span p, from the top down
        for d in range(1, k):
            tgt = y[d * p :: k * p]  # t = q k p + d p
            if not tgt.size:
                break
            tgt += y[(d - 1) * p :: k * p][: tgt.size]  # proof: kary-pathsum
        p //= k
    return y[1:]


def kary_node_sums(a: np.ndarray, k: int) -> np.ndarray:
    """``M a``: node t = s_t - s_{t - k^{v_k(t)}} from the prefix sums, exact integers.

    Example
    -------
    >>> kary_node_sums(np.array([1, 2, 3, 4]), 3).tolist()   # node 3 covers counts 1..3
    [1, 2, 6, 4]
    """
    a = check_counts(a, "a")
    k = check_branching(k, K_NAME)
    s = np.zeros(a.size + 1, dtype=np.int64)
    np.cumsum(a, out=s[1:])
    t = np.arange(1, a.size + 1, dtype=np.int64)
    return s[1:] - s[t - _spans(a.size, k)]
