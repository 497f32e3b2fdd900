"""The Fenwick (binary indexed tree) factorization W = B·M of running counts.

Seed 000 §5.3 (Alg. 5.1-5.3, eqs. 5.5-5.7): node ``c_i`` sums the counts
``a_j`` for ``i - lowbit(i) < j <= i``; the strategy ``M`` maps the counts to
the nodes and the recombination ``B`` adds the nodes on the descent path
``p, p - lowbit(p), ...`` of release ``p``.  Mathematics is 1-based (node i,
release p); arrays are 0-based (row ``i - 1``).

Structure used throughout (proved in ``proofs/continual/fenwick_forest.md``):
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
from typing import Callable

import numpy as np
import scipy.sparse as sp

from dpverify.validation import as_generator, check_budget, check_counts, check_epsilon, check_finite_array, check_positive_int
from dpverify.continual.forest import ForestStream, _check_count  # noqa: F401  (the one count check of the streams)
from dpverify.primitives.sampling import discrete_laplace
from dpverify.proofdocs import proven

__all__ = [
    "check_n",
    "lowbit",
    "popcount",
    "levels",
    "fenwick_strategy",
    "fenwick_recombination",
    "fenwick_roots",
    "column_sq_norms",
    "node_sums",
    "descent_sums",
    "strategy_column_sums",
    "fenwick_sensitivity",
    "fenwick_expected_mse",
    "weighted_expected_mse",
    "node_variances",
    "weighted_strategy",
    "weighted_release",
    "draw_node_noise",
    "FenwickStream",
]


MAX_N = 2**62  # positions and running totals are int64


def check_n(n, name: str = "n", *, per_node: int = 0, what: str = "") -> int:
    """``n`` as an int in [1, 2^62), and (``per_node`` > 0) within the memory budget at that many bytes a node.

    Example
    -------
    >>> check_n(7), check_n(10**6, per_node=8)
    (7, 1000000)
    """
    n = check_positive_int(n, name)
    if n >= MAX_N:
        raise ValueError(f"{name} must be < 2^62 (int64 positions), got {n}")
    if per_node:
        check_budget(per_node * n, what or f"{name}={n}")
    return n


EPSILON_RANGE = (1e-150, 1e150)  # beyond it 1/ε² or ε² leaves float64 in some method's exact arithmetic


def _check_eps(epsilon, name: str = "epsilon") -> float:
    """ε > 0 within :data:`EPSILON_RANGE`, where every method's noise scales and variances are finite floats."""
    eps = check_epsilon(epsilon, name)
    lo, hi = EPSILON_RANGE
    if not lo <= eps <= hi:
        raise ValueError(f"{name} must be in [{lo:g}, {hi:g}] for continual release (noise scales and variances "
                         f"must stay finite in float64), got {epsilon!r}")
    return eps


def _check_result(out: np.ndarray, epsilon) -> np.ndarray:
    """``out`` when finite; else a ValueError naming epsilon (a variance or noise scale left float64)."""
    if out.dtype.kind == "f" and not np.isfinite(out).all():
        raise ValueError(f"epsilon={epsilon!r} gives a non-finite result (noise scale out of float64 range)")
    return out


def _check_times(t, name: str = "t", *, bits: int = 63, dtype=np.int64) -> np.ndarray:
    """Integer times (node indices) as a fresh ``dtype`` array of the same shape: integral floats
    accepted; bool, complex, strings, NaN, ±inf and magnitudes at or beyond 2^bits refused
    (ValueError/TypeError naming ``name``)."""
    f = check_finite_array(t, name)  # type and finiteness; a float copy
    raw = np.asarray(t)
    if raw.dtype.kind in "iu":  # exact integers: only uint64 can pass 2^63
        big = raw >= np.uint64(1 << bits) if raw.dtype.kind == "u" and bits < 64 else np.zeros(raw.shape, bool)
    else:
        frac = f != np.round(f)
        if frac.any():
            raise ValueError(f"{name} must be integers, got {f[frac].ravel()[0].item()!r}")
        big = np.abs(f) >= 2.0**bits
    if big.any():
        raise ValueError(f"{name} must be < 2^{bits}, got {f[big].ravel()[0].item()!r}")
    return np.array(raw if raw.dtype.kind in "iu" else f, dtype=dtype)


@proven("proofs/continual/fenwick_forest.md")
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
    v = _check_times(x, "x", bits=64, dtype=np.uint64)
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
    n = check_n(n, per_node=24 * int(n).bit_length() + 64 if isinstance(n, int) else 0, what=f"fenwick_strategy(n={n})")
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


@proven("proofs/continual/fenwick_forest.md")
def fenwick_recombination(n: int) -> sp.csr_matrix:
    """The recombination B of Alg. 5.3 (``B[p, pt]``, ``pt -= lowbit(pt)``), CSR, 0/1 entries.

    Row p has ones at the descent path p, p - lowbit(p), ... > 0 (eq. 5.6),
    i.e. at p with its lowest j set bits cleared, j = 0..popcount(p) - 1.

    Example
    -------
    >>> fenwick_recombination(3).toarray().astype(int).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 1, 1]]
    """
    n = check_n(n, per_node=24 * int(n).bit_length() + 64 if isinstance(n, int) else 0, what=f"fenwick_recombination(n={n})")
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


@proven("proofs/continual/fenwick_forest.md")
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


@proven("proofs/continual/fenwick_forest.md")
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


@proven("proofs/continual/fenwick_forest.md")
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


def weighted_expected_mse(weights, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of each release of ``B Σ⁻¹ (Σ M a + noise)`` with per-node scale ``1/(ε λ_i)``.

    ``noise="laplace"``: node variance ``2 / (ε λ_i)^2``; ``"discrete"``:
    two-sided geometric with ``r = exp(-ε λ_i)``, variance ``2 r / (1 - r)^2``.
    Release p sums the variances on its descent path (independent nodes).

    Example
    -------
    >>> weighted_expected_mse([0.5, 0.5, 1.0], 1.0).tolist()   # 2/(1·0.5)² = 8; release 3 = nodes 2, 3: 8 + 2
    [8.0, 8.0, 10.0]
    """
    return descent_sums(node_variances(weights, epsilon, noise))


def node_variances(weights, epsilon: float, noise: str = "laplace") -> np.ndarray:
    """Variance of each node's noise in count units: ``2/(ε λ_i)²`` or ``2r/(1-r)²``, r = e^{-ελ_i}.

    Refuses an ε whose variance is not a finite float (ValueError naming epsilon).

    Example
    -------
    >>> node_variances([0.5, 1.0], 1.0).tolist()
    [8.0, 2.0]
    """
    w = check_finite_array(weights, "weights", ndim=1)
    if w.size < 1 or (w <= 0).any():
        raise ValueError("weights must be non-empty and > 0")
    eps = check_epsilon(epsilon)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if noise == "laplace":
            var = 2.0 / (eps * w) ** 2  # proof: node-var
        elif noise == "discrete":
            x = eps * w
            var = 2.0 * np.exp(-x) / np.expm1(-x) ** 2  # proof: node-var
        else:
            raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    if not np.isfinite(var).all():
        raise ValueError(f"epsilon={epsilon!r} is too small: the noise variance overflows float64")
    return var


def fenwick_expected_mse(n: int, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact per-release MSE of the plain Fenwick mechanism: Lap(Δ/ε) on every node, Δ = floor(log2 n)+1.

    Release p uses popcount(p) nodes: ``2 Δ^2 popcount(p) / ε^2`` (Thm 5.2), times
    ``(1 - 1e-12)^-2`` from the rounding guard on the weights.

    Example
    -------
    >>> fenwick_expected_mse(3, 1.0).round(9).tolist()
    [8.0, 8.0, 16.0]
    """
    n = check_n(n, per_node=48, what=f"fenwick_expected_mse(n={n})")
    return weighted_expected_mse(_plain_weights(n), epsilon, noise=noise)


def weighted_strategy(weights) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """``(R, A) = (B Σ⁻¹, Σ M)`` for the node weights λ (eq. 5.8): R @ A = W for any λ > 0.

    Example
    -------
    >>> R, A = weighted_strategy([0.5, 0.5, 1.0])
    >>> (R @ A).toarray().tolist(), abs(A).sum(axis=0).tolist()   # W, and column sums of ΣM
    ([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]], [[1.0, 0.5, 1.0]])
    """
    w = check_finite_array(weights, "weights", ndim=1)
    if w.size < 1 or (w <= 0).any():
        raise ValueError("weights must be non-empty and > 0")
    n = w.size
    M = fenwick_strategy(n)
    B = fenwick_recombination(n)
    S = sp.diags(w)
    return (B @ sp.diags(1.0 / w)).tocsr(), (S @ M).tocsr()


def draw_node_noise(weights, epsilon: float, rng: np.random.Generator, noise: str) -> np.ndarray:
    """Noise of the nodes: Lap(1/ε) on the weighted nodes (continuous), or integer DLap(1/(ε λ_i)).

    Continuous: returns η with η_i ~ Lap(1/ε), to be added to λ_i c_i.
    Discrete: returns Z with Z_i two-sided geometric of scale 1/(ε λ_i), to be added to c_i.

    Example
    -------
    >>> z = draw_node_noise([0.5, 0.5, 1.0], 1.0, rng=0, noise="discrete")
    >>> z.dtype.kind, z.shape
    ('i', (3,))
    """
    w = check_finite_array(weights, "weights", ndim=1)
    if w.size < 1 or (w <= 0).any():
        raise ValueError("weights must be non-empty and > 0")
    return _draw_node_noise(w, _check_eps(epsilon), as_generator(rng), noise)


def _draw_node_noise(w: np.ndarray, epsilon: float, rng: np.random.Generator, noise: str) -> np.ndarray:
    if noise == "laplace":
        return rng.laplace(0.0, 1.0 / epsilon, size=w.size)  # proof: laplace-noise
    if noise == "discrete":
        return discrete_laplace(1.0 / (epsilon * w), w.size, rng)  # proof: discrete-noise
    raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")


def weighted_release(counts, epsilon: float, weights, rng, noise: str = "discrete") -> np.ndarray:
    """``B Σ⁻¹ (Σ M a + Lap(1/ε))`` (eq. 5.8) in O(n); with ``noise="discrete"`` ``B (M a + Z)``, integers.

    The caller guarantees max column sum of ΣM <= 1 (then the release is ε-DP).

    Example
    -------
    >>> weighted_release([1, 2, 3], 1e9, [0.5, 0.5, 1.0], rng=0, noise="discrete").tolist()
    [1, 3, 6]
    """
    a = check_counts(counts, "counts", nonempty=True)
    _check_total(a)
    w = check_finite_array(weights, "weights", shape=(a.size,))
    if (w <= 0).any():
        raise ValueError("weights must be > 0")
    if noise not in ("laplace", "discrete"):
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    return _release_validated(a, check_epsilon(epsilon), w, as_generator(rng), noise)


_MAX_TOTAL = 2**62  # running totals (plus noise) must stay inside int64


def _check_total(a: np.ndarray, name: str = "counts") -> None:
    """Refuse counts whose running total would overflow int64 (numpy wraps around silently)."""
    if a.size and int(a.max()) * a.size >= _MAX_TOTAL and sum(int(x) for x in a) >= _MAX_TOTAL:
        raise ValueError(f"{name} too large: their total must stay below 2^62 (int64 running totals)")


def _release_validated(a: np.ndarray, eps: float, w: np.ndarray, rng: np.random.Generator, noise: str) -> np.ndarray:
    # the one-block forest stream, in one chunk: exact integer node sums, noise in aligned runs
    return ForestStream(a.size, eps, [(0, a.size)], lambda t: w[t - 1], rng=rng, noise=noise).push_many(a)


# ---------------------------------------------------------------- online release (seed 004 Alg. 5)
#
# The streams (and the batch releases) are dpverify.continual.forest.ForestStream: O(log n)
# state, exact integer node values, noise drawn in aligned runs of 4096 nodes.  Below: what
# the naive stream shares with it.

_CHUNK = 4096


class _Base:
    def __init__(self, n: int, epsilon: float, rng, noise: str):
        self.n = check_n(n)
        self.epsilon = check_epsilon(epsilon)
        if noise not in ("laplace", "discrete"):
            raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
        self.noise = noise
        self._rng = as_generator(rng)
        self.t = 0
        self._buf = None
        self._pos = 0

    @property
    def remaining(self) -> int:
        """How many more pushes are allowed (the bound n of Def. 5.2)."""
        return self.n - self.t

    def _refuse(self):
        raise ValueError(f"stream is bounded: n={self.n} releases already made, cannot push release {self.t + 1}")


class FenwickStream(ForestStream):
    """Weighted Fenwick stream: ``weights_at(nodes) -> λ`` (1-based node indices, vectorised).

    The one-block case of :class:`dpverify.continual.forest.ForestStream`: ``push(a_t)`` returns the noisy running total s_t, ``push_many(chunk)`` a chunk of them.
    Continuous noise adds Lap(1/ε) to λ_t c_t and publishes through B Σ⁻¹; discrete noise adds
    a two-sided geometric of scale 1/(ε λ_t) to c_t (integer outputs).

    Example
    -------
    >>> s = FenwickStream(3, 1.0, lambda idx: np.full(len(idx), 0.5), rng=0, noise="discrete")
    >>> [type(s.push(a)).__name__ for a in (1, 0, 2)], s.remaining
    (['int', 'int', 'int'], 0)
    """

    def __init__(self, n: int, epsilon: float, weights_at: Callable[[np.ndarray], np.ndarray], rng=None,
                 noise: str = "discrete"):
        n = check_n(n)
        super().__init__(n, epsilon, [(0, n)], weights_at, rng=rng, noise=noise)


def _plain_weights(n: int) -> np.ndarray:
    # Lap(Δ/ε) on every node, Δ = floor(log2 n) + 1 (Thm 5.1); the factor 1 - 1e-12 keeps every
    # column sum of ΣM <= 1 despite rounding (Δ · fl(1/Δ) can be 1 + 2^-52).
    return np.full(n, (1.0 - 1e-12) / n.bit_length())


def _fenwick_release(counts, epsilon, rng, noise="discrete"):
    a = np.asarray(counts)
    return _fenwick_stream(a.size, epsilon, rng, noise).push_many(a)


def _fenwick_stream(n, epsilon, rng, noise):
    from dpverify.continual.forest import ForestStream

    w = _plain_weights(1)[0] / n.bit_length()
    return ForestStream(n, epsilon, [(0, n)], lambda idx: np.full(np.size(idx), w), rng=rng, noise=noise)


def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(
        ContinualMethod(
            name="fenwick",
            description="plain (unweighted) Fenwick strategy, Lap(Δ/ε) per node, Δ = floor(log2 n) + 1",
            expected_mse=fenwick_expected_mse,
            strategy=lambda n: weighted_strategy(_plain_weights(check_n(n, per_node=24 * n.bit_length() + 64))),
            release=_fenwick_release,
            stream=_fenwick_stream,
            online=True,
            reference="seed 000 §5.3 Alg. 5.2/5.3, Thm 5.1/5.2",
        )
    )


_register()
