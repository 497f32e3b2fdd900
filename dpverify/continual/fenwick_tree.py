"""The Fenwick (binary indexed tree) geometry: the factorization W = B·M of running counts.

The thesis chapter, §5.3 (Alg. 5.1-5.3, eqs. 5.5-5.7): node ``c_i`` sums the counts
``a_j`` for ``i - lowbit(i) < j <= i``; the strategy ``M`` maps the counts to
the nodes and the recombination ``B`` adds the nodes on the descent path
``p, p - lowbit(p), ...`` of release ``p``.  Mathematics is 1-based (node i,
release p); arrays are 0-based (row ``i - 1``).

Structure used throughout (proved in ``continual/fenwick_forest.md``):
the parent of node i is ``i + lowbit(i)`` when that is ``<= n``; the nodes
form a forest whose roots are the descent path of n; column p of M is the
upward path from node p to its root, row p of B the descent path of p.
Everything below is vectorised over the ``floor(log2 n) + 1`` levels, so it
runs in O(n log n) (matrices) or O(n) (products with M and B).

Example
-------
>>> from dpverify.continual.fenwick import fenwick_strategy, fenwick_recombination
>>> M, B = fenwick_strategy(3), fenwick_recombination(3)
>>> (B @ M).toarray().astype(int).tolist()
[[1, 0, 0], [1, 1, 0], [1, 1, 1]]
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from dpverify.validation import check_counts, check_elements, check_finite_array
from dpverify.continual.checks import check_n, check_times
from dpverify.proofdocs import proven

__all__ = ["lowbit", "popcount", "levels", "fenwick_strategy", "fenwick_recombination", "fenwick_roots",
           "column_sq_norms", "node_sums", "descent_sums", "strategy_column_sums", "fenwick_sensitivity"]


@proven("continual/fenwick_forest.md")
def lowbit(x):
    """The lowest set bit ``x & -x`` (Alg. 5.1), for an int or an integer array, x >= 1.

    Example
    -------
    >>> lowbit(12), lowbit(np.array([1, 6, 8])).tolist()
    (4, [1, 2, 8])
    """
    if isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, bool):
        x = int(x)
        if x < 1:
            raise ValueError(f"x must be >= 1, got {x}")
        return x & -x  # proof: lowbit
    arr = np.asarray(x)
    check_elements(arr, "x")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"x must be an integer or an integer array, got dtype {arr.dtype}")
    if arr.size and arr.min() < 1:
        raise ValueError(f"x must be >= 1, got {arr.min()!r}")
    arr = arr.astype(np.int64)
    return arr & -arr


def popcount(x) -> np.ndarray:
    """Number of set bits of each entry of a non-negative integer array (vectorised).

    Example
    -------
    >>> popcount(np.array([0, 1, 7, 8])).tolist()
    [0, 1, 3, 1]
    """
    f = check_finite_array(x, "x")
    if (f < 0).any():
        raise ValueError(f"x must be >= 0, got {f[f < 0].ravel()[0].item()!r}")
    v = check_times(x, "x", bits=64, dtype=np.uint64)
    out = np.zeros(v.shape, dtype=np.int64)
    while v.any():
        out += (v & np.uint64(1)).astype(np.int64)
        v >>= np.uint64(1)
    return out


def levels(n: int) -> int:
    """Number of levels of the Fenwick forest of n nodes, ``floor(log2 n) + 1``.

    Example
    -------
    >>> levels(4), levels(7), levels(8)
    (3, 3, 4)
    """
    n = check_n(n)
    return n.bit_length()


def _index_dtype(nnz: int, n: int):
    return np.int32 if max(nnz, n) < 2**31 - 1 else np.int64


def fenwick_strategy(n: int) -> sp.csr_matrix:
    """The strategy M of Alg. 5.2 (with the corrected loop ``pt <= n``), CSR, 0/1 entries.

    ``M[i, j] = 1`` iff ``i - lowbit(i) < j <= i`` (1-based): row i is node c_i
    of eq. (5.5).  Built row by row as intervals, O(n log n) entries.

    Example
    -------
    >>> fenwick_strategy(4).toarray().astype(int).tolist()
    [[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 1, 1]]
    """
    n = check_n(n, per_node=lambda k: 24 * k.bit_length() + 64, what=f"fenwick_strategy(n={n})")
    i = np.arange(1, n + 1, dtype=np.int64)
    length = i & -i  # row i covers lowbit(i) columns
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=indptr[1:])
    nnz = int(indptr[-1])
    start = i - length  # 0-based first column of row i
    # column index = start of the row + position within the row
    indices = np.arange(nnz, dtype=np.int64) + np.repeat(start - indptr[:-1], length)
    dt = _index_dtype(nnz, n)
    return sp.csr_matrix(
        (np.ones(nnz), indices.astype(dt), indptr.astype(dt)), shape=(n, n)
    )


@proven("continual/fenwick_forest.md")
def fenwick_recombination(n: int) -> sp.csr_matrix:
    """The recombination B of Alg. 5.3 (``B[p, pt]``, ``pt -= lowbit(pt)``), CSR, 0/1 entries.

    Row p has ones at the descent path p, p - lowbit(p), ... > 0 (eq. 5.6),
    i.e. at p with its lowest j set bits cleared, j = 0..popcount(p) - 1.

    Example
    -------
    >>> fenwick_recombination(3).toarray().astype(int).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 1, 1]]
    """
    n = check_n(n, per_node=lambda k: 24 * k.bit_length() + 64, what=f"fenwick_recombination(n={n})")
    p = np.arange(1, n + 1, dtype=np.int64)
    rows, cols = [], []
    cur = p.copy()
    live = p
    while cur.size:
        rows.append(live)
        cols.append(cur)
        cur = cur & (cur - 1)  # pt -= lowbit(pt)  # proof: descent
        keep = cur > 0
        cur, live = cur[keep], live[keep]
    r = np.concatenate(rows) - 1
    c = np.concatenate(cols) - 1
    order = np.lexsort((c, r))
    r, c = r[order], c[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=indptr[1:])
    dt = _index_dtype(r.size, n)
    return sp.csr_matrix((np.ones(r.size), c.astype(dt), indptr.astype(dt)), shape=(n, n))


def fenwick_roots(n: int) -> np.ndarray:
    """Roots of the Fenwick forest of n nodes: the descent path of n, ascending (1-based).

    The root r with lowbit 2^k heads a complete binomial tree of 2^k nodes.

    Example
    -------
    >>> fenwick_roots(11).tolist()
    [8, 10, 11]
    """
    n = check_n(n)
    out = []
    r = n
    while r:
        out.append(r)
        r &= r - 1
    return np.array(out[::-1], dtype=np.int64)


@proven("continual/fenwick_forest.md")
def column_sq_norms(n: int) -> np.ndarray:
    """``||B(:, i)||^2`` for i = 1..n: how many releases use node i.

    Node i serves the releases p in ``[i, i + lowbit(i) - 1]`` capped at n,
    so the value is ``min(lowbit(i), n - i + 1)``.

    Example
    -------
    >>> column_sq_norms(3).tolist()
    [1.0, 2.0, 1.0]
    """
    n = check_n(n, per_node=32, what=f"column_sq_norms(n={n})")
    i = np.arange(1, n + 1, dtype=np.int64)
    return np.minimum(i & -i, n - i + 1).astype(float)  # proof: colnorm


def node_sums(counts) -> np.ndarray:
    """``M a``: node ``c_i = Σ_{i - lowbit(i) < j <= i} a_j`` (eq. 5.5), O(n), exact integers.

    Bottom-up: every node adds its finished value to its parent ``i + lowbit(i)``;
    level k (odd multiples of 2^k) is final once the levels below it are done.

    Example
    -------
    >>> node_sums([1, 2, 3, 4]).tolist()
    [1, 3, 3, 10]
    """
    return _node_sums_inplace(check_counts(counts, "counts"))  # a fresh int64 copy, updated in place


def _node_sums_inplace(c: np.ndarray) -> np.ndarray:
    n = c.size
    for k in range(max(n, 1).bit_length()):
        step = 1 << k
        child = c[step - 1 :: 2 * step]  # 0-based: nodes step, 3 step, ...
        parent = c[2 * step - 1 :: 2 * step]  # their parents 2 step, 4 step, ...
        parent += child[: parent.size]  # proof: node-sums
    return c


@proven("continual/fenwick_forest.md")
def descent_sums(x) -> np.ndarray:
    """``B x``: ``y_p = x_p + y_{p - lowbit(p)}`` (eq. 5.6), O(n) strided passes over the levels.

    Level k (odd multiples of 2^k) only needs levels above it, so the levels
    are filled from the top down.

    Example
    -------
    >>> descent_sums(np.array([1.0, 2.0, 4.0])).tolist()
    [1.0, 2.0, 6.0]
    """
    x = np.asarray(x)
    check_elements(x, "x")
    if x.ndim != 1:
        raise ValueError(f"x must be 1-dimensional, got shape {x.shape}")
    if x.dtype.kind in "fc" and not np.isfinite(x).all():
        i = int(np.argmin(np.isfinite(x)))
        raise ValueError(f"x must be finite, got {x[i].item()!r} at index {i}")
    n = x.size
    y = np.zeros(n + 1, dtype=np.result_type(x.dtype, np.int64) if x.dtype.kind in "iu" else x.dtype)
    y[1:] = x
    for k in range(max(n, 1).bit_length() - 1, -1, -1):
        step = 1 << k
        tgt = y[step :: 2 * step]  # p = step, 3 step, ... ; p - step = 0, 2 step, 4 step, ...
        tgt += y[0 :: 2 * step][: tgt.size]  # proof: descent-sums
    return y[1:]


@proven("continual/fenwick_forest.md")
def strategy_column_sums(weights) -> np.ndarray:
    """``(Σ M)^T 1``: for each count a_p the sum of the weights on its upward path.

    ``u_p = λ_p + u_{p + lowbit(p)}`` (0 beyond n); the l1 sensitivity of ΣM
    is the maximum.  O(n) strided passes from the top level down.

    Example
    -------
    >>> strategy_column_sums(np.ones(3)).tolist()
    [2.0, 1.0, 1.0]
    """
    w = check_finite_array(weights, "weights", ndim=1)
    n = w.size
    if n < 1:
        raise ValueError("weights must be non-empty")
    u = np.zeros(n + 1)
    u[1:] = w
    top = n.bit_length()
    # parent of p = odd multiple of 2^k is p + 2^k, a multiple of 2^(k+1): fill from the top level down
    for k in range(top - 1, -1, -1):
        step = 1 << k
        child = u[step :: 2 * step]
        parent = u[2 * step :: 2 * step]
        m = min(child.size, parent.size)
        child[:m] += parent[:m]  # proof: path-sums
    if not np.isfinite(u).all():
        raise ValueError("weights are too large: their path sums overflow float64")
    return u[1:]


def fenwick_sensitivity(n: int) -> int:
    """``||M_n||_1``, the maximum column l1 norm (Thm 5.1: ``floor(log2 n) + 1``, attained at column 1).

    Example
    -------
    >>> fenwick_sensitivity(5), int(abs(fenwick_strategy(5)).sum(axis=0).max())
    (3, 3)
    """
    n = check_n(n, per_node=32, what=f"fenwick_sensitivity(n={n})")
    return int(strategy_column_sums(np.ones(n)).max())
