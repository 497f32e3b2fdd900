"""The complete binary tree the static baselines share (binary, Boost, Privelet, Honaker): its node
matrix and levels, its Haar eigenbasis, the straddle sums of the exact variances
(``continual/baselines_variance.md``), the prefix workload, and the sensitivity guard of every
baseline strategy.

Example
-------
>>> tree_matrix(2).toarray().tolist()
[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.validation import check_budget, check_counts, check_elements, check_positive_int
from dpverify.continual.checks import check_eps
from dpverify.proofdocs import proven

_GUARD = 2.0**-40  # strategies are scaled by (1 - _GUARD): max column l1 exactly < 1
DENSE_LIMIT = 1024  # above this n, strategies whose R is dense return R as a LinearOperator


def log2_exact(n: int, name: str = "n") -> int:
    """m for n = 2^m (ValueError naming ``name`` when n is not a power of two).

    Example
    -------
    >>> log2_exact(8)
    3
    """
    n = check_positive_int(n, name)
    if n & (n - 1):
        raise ValueError(f"{name} must be a power of two, got {n}")
    return n.bit_length() - 1


def guard(A):
    """A·(1 - 2^-40): exact column sums of a strategy at most 1 then stay below 1 under any float summation.

    Example
    -------
    >>> bool(guard(tree_matrix(2)).max() < 1)
    True
    """
    if not (sp.issparse(A) or isinstance(A, np.ndarray)) or A.ndim != 2 or A.dtype.kind not in "iuf":
        raise TypeError(f"A must be a 2-d real matrix (scipy.sparse or numpy), got {type(A).__name__}")
    return (A * (1.0 - _GUARD)).tocsr() if sp.issparse(A) else sp.csr_matrix(A * (1.0 - _GUARD))


def bit_counts(t: np.ndarray) -> np.ndarray:
    """The number of set bits of each entry of a non-negative integer array (a negative entry is a ValueError).

    Example
    -------
    >>> bit_counts(np.array([1, 3, 8])).tolist()
    [1, 2, 1]
    """
    t = np.asarray(t)
    check_elements(t, "t")
    if t.dtype.kind not in "iu":
        raise TypeError(f"t must be an integer array, got dtype {t.dtype}")
    if t.size and t.min() < 0:
        raise ValueError(f"t must be non-negative, got {int(t.min())}")
    v = t.astype(np.uint64)
    out = np.zeros(t.shape, dtype=np.int64)
    one = np.uint64(1)
    while v.any():
        out += (v & one).astype(np.int64)
        v >>= one
    return out


def tree_matrix(n: int) -> sp.csr_matrix:
    """H: one row per node of the complete binary tree over n = 2^m leaves (levels h = 0..m, leaves first).

    Example
    -------
    >>> tree_matrix(2).toarray().tolist()
    [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    """
    m = log2_exact(n)
    check_budget(24.0 * n * (m + 1), f"n = {n} (a tree matrix with n·(log2 n + 1) entries)")
    rows = []
    for h in range(m + 1):
        size = 1 << h
        nb = n >> h
        rows.append(sp.csr_matrix((np.ones(n), np.arange(n), np.arange(0, n + 1, size)), shape=(nb, n)))
    return sp.vstack(rows).tocsr()


def straddle_sum(n: int, coef) -> np.ndarray:
    """``Σ_h coef(h) g_h(t)²`` for t = 1..n, where ``g_h(t) = wᵀψ_u`` for the height-h block u around
    the prefix [1, t]: ``min(x, 2^h − x)``, x = t mod 2^h.

    The sum over h <= H has period 2^H in t, so it is built level by level on one period
    (2^H values, tiled twice for the next level): O(n) in all.

    Example
    -------
    >>> straddle_sum(4, lambda h: 1.0).tolist()
    [2.0, 4.0, 2.0, 0.0]
    """
    m = log2_exact(n)
    check_budget(32.0 * n, f"n = {n}")
    if not callable(coef):
        raise TypeError(f"coef must be a function of the height h, got {coef!r}")
    P = np.zeros(1)
    for h in range(1, m + 1):
        size = 1 << h
        x = np.arange(size, dtype=np.int64)
        g = np.minimum(x, size - x).astype(float)  # proof: haar-straddle
        P = np.tile(P, 2)
        P += coef(h) * (g * g)
    return np.roll(P, -1)  # t = 1..n reads P[t mod n]


@proven("continual/baselines_variance.md")
def static_total_mse(n: int, epsilon: float, method: str) -> float:
    """Σ_t MSE(t) of ``boost`` or ``privelet`` in O(log n) by summing the closed forms over t.

    Σ_t t² = n(n+1)(2n+1)/6 and, per level, Σ_t g_h(t)² = (n / 2^h) Σ_{x<2^h} min(x, 2^h − x)²
    = (n / 2^h) · 2^h (4^h + 2)/12.

    Example
    -------
    >>> from dpverify.continual.boost import boost_expected_mse
    >>> bool(np.isclose(static_total_mse(8, 1.0, 'boost'), boost_expected_mse(8, 1.0).sum()))
    True
    """
    eps = check_eps(epsilon)
    m = log2_exact(n)
    if method not in ("boost", "privelet"):
        raise ValueError(f"method must be 'boost' or 'privelet', got {method!r}")
    sum_t2 = n * (n + 1) * (2 * n + 1) / 6.0
    tot = 0.0
    for h in range(1, m + 1):
        # Σ_{x=0}^{2^h-1} min(x, 2^h - x)²
        per_block = (4.0**h + 2.0) * 2.0**h / 12.0  # proof: straddle-sum
        c = 1.0 / (2.0**h * (2.0**h - 1)) if method == "boost" else 1.0 / 4.0**h
        tot += (n >> h) * per_block * c
    lead = sum_t2 / (n * (2.0 * n - 1)) if method == "boost" else sum_t2 / float(n) ** 2
    return 2.0 * (m + 1) ** 2 / eps**2 * (lead + tot)


def haar_basis(n: int) -> tuple[sp.csc_matrix, np.ndarray, np.ndarray]:
    """Ψ (n × n, column 0 = 1, then ψ_u by height h = m..1), ||ψ||², and the tree eigenvalue of each column.

    Example
    -------
    >>> Psi, norms, eig = haar_basis(2)
    >>> Psi.toarray().tolist(), norms.tolist(), eig.tolist()
    ([[1.0, 1.0], [1.0, -1.0]], [2.0, 2.0], [3.0, 1.0])
    """
    m = log2_exact(n)
    check_budget(48.0 * n * (m + 1), f"n = {n} (a Haar basis with n·(log2 n + 1) entries)")
    cols, norms, eig = [np.ones(n)], [float(n)], [2.0 * n - 1.0]
    rows_i, cols_i, vals = [np.arange(n)], [np.zeros(n, dtype=np.int64)], [np.ones(n)]
    c = 1
    for h in range(m, 0, -1):
        size, half = 1 << h, 1 << (h - 1)
        for b in range(n >> h):
            idx = np.arange(b * size, (b + 1) * size)
            rows_i.append(idx)
            cols_i.append(np.full(size, c))
            vals.append(np.concatenate([np.ones(half), -np.ones(half)]))
            norms.append(float(size))
            eig.append(float(size - 1))
            c += 1
    Psi = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows_i), np.concatenate(cols_i))), shape=(n, n))
    return Psi, np.array(norms), np.array(eig)


def prefix_matrix(n: int) -> sp.csr_matrix:
    """W: the running-count workload of n counts, lower triangular ones (CSR).

    Example
    -------
    >>> prefix_matrix(2).toarray().tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    n = check_positive_int(n, "n")
    check_budget(16.0 * n * (n + 1) / 2, f"n = {n} (a dense lower triangle of n(n+1)/2 ones)")
    length = np.arange(1, n + 1, dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(length)])
    indices = np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1], length)
    return sp.csr_matrix((np.ones(indptr[-1]), indices, indptr), shape=(n, n))


def prefix_operator(n: int, inner):
    """``W ∘ inner`` as a scipy LinearOperator: y ↦ cumsum(inner(y)), inner given on vectors (``inner.m`` its input size).

    Example
    -------
    >>> def inner(y):
    ...     return 2 * y
    >>> inner.m = 2
    >>> op = prefix_operator(2, inner)
    >>> op.matvec(np.array([1.0, 2.0])).tolist()
    [2.0, 6.0]
    """
    from scipy.sparse.linalg import LinearOperator

    n = check_positive_int(n, "n")
    if not callable(inner) or not isinstance(getattr(inner, "m", None), (int, np.integer)):
        raise TypeError("inner must be a callable on vectors with an integer attribute m (its input size)")

    def mv(y):
        y = np.asarray(y, dtype=float)
        return np.cumsum(inner(y.reshape(-1)))

    return LinearOperator((n, inner.m), matvec=mv, dtype=float)


def tree_levels(a: np.ndarray) -> list[np.ndarray]:
    """Node counts of the complete binary tree, level h = 0 (leaves) .. m (root).

    Example
    -------
    >>> [x.tolist() for x in tree_levels(np.array([1, 2, 3, 4]))]
    [[1, 2, 3, 4], [3, 7], [10]]
    """
    a = check_counts(a, "a")  # 1-d non-negative integer counts, refused by name otherwise
    if a.size == 0 or a.size & (a.size - 1):
        raise ValueError(f"a must hold the leaves of a complete binary tree (a power-of-two length), got length {a.size}")
    out = [a.astype(np.int64)]
    while out[-1].size > 1:
        out.append(out[-1].reshape(-1, 2).sum(axis=1))
    return out
