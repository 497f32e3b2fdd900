"""The balanced-digit k-ary tree with subtraction ("elders"), batch and streaming, with exact MSE.

Reference: Andersson, Pagh, Steiner, Torkamani, *Count on Your Elders: Laplace vs
Gaussian Noise*, FORC 2025, arXiv:2408.07021.  **What was read and what was
reconstructed.**  The paper's text was not available to this library's
authors; the construction below is reconstructed from its abstract (as
restated in the issue that asked for it): every t is written in balanced
base-k digits, a release adds or subtracts aligned blocks (nodes of a complete
k-ary tree), every node gets Lap(levels/ε), and the noise of blocks that end
after t is drawn in advance.  The variance formula, the privacy proof
(``proofs/continual/elders_privacy.md``, including adaptively chosen streams)
and the two numbers checked in :mod:`dpverify.continual.claims_elders` are
derived here, not transcribed.  Even k (digits ``-(k/2-1) .. k/2``) is this
library's extension; the paper's k is odd.

Construction.  Digits D_k = {lo, ..., hi}, lo = -floor((k-1)/2), hi = ceil((k-1)/2)
(k odd: ±(k-1)/2).  Level j has nodes i >= 1, node (j, i) = the block
((i-1) k^j, i k^j] of time steps.  With u_0 = t and u_{j+1} = floor((u_j - lo)/k),
the digit d_j = u_j - k u_{j+1} is in D_k and t = Σ_j d_j k^j; L levels represent
every t <= hi (k^L - 1)/(k - 1).  Since

    s_t = Σ_j (S(u_j k^j) - S(u_{j+1} k^{j+1})),     S(x) = a_1 + ... + a_x,

release t adds the d_j level-j nodes k u_{j+1} + 1 .. u_j when d_j > 0 and
subtracts the |d_j| nodes u_j + 1 .. k u_{j+1} when d_j < 0 (these may end after
t: their *data* cancels in the sum, only their noise is needed early).  A
count lies in exactly one node per level, so with Lap(L/ε) on every node the
release is ε-DP; its MSE is ``Var(node) · Σ_j |d_j(t)|``.

Example
-------
>>> import numpy as np
>>> from dpverify.continual import expected_mse
>>> elders_digits([7], 3).ravel().tolist()     # 7 = 1 - 1·3 + 1·9
[1, -1, 1]
>>> expected_mse(7, 1.0, "elders", branching=3).tolist()   # L = 3 levels: 2·3²·Σ|d_j|
[18.0, 36.0, 18.0, 36.0, 54.0, 36.0, 54.0]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from dpverify.validation import as_generator, check_counts, check_positive_int
from dpverify.continual.fenwick import _check_eps, _check_times
from dpverify.continual.node_noise import NodeNoise

__all__ = [
    "elders_digit_range",
    "elders_levels",
    "elders_digits",
    "elders_digit_sum_total",
    "elders_best_branching",
    "elders_node_variance",
    "elders_expected_mse",
    "elders_strategy",
    "elders_release",
]

_MAX_BRANCHING = 64
_MAX_NNZ = 60_000_000  # strategy matrices above this many entries are refused (memory)
_NOISES = ("laplace", "discrete")
_GUARD = 2.0**-40  # strategy weights scaled by (1 - _GUARD): exact column sums stay below 1


def _branching(k, name: str = "branching") -> int:
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
    k = _branching(k, "k (the branching factor)")
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
    u = np.array(_check_times(t, "t"), ndmin=1)
    if u.size == 0 or (u < 1).any():
        raise ValueError("t must be a non-empty array of integers >= 1")
    L = elders_levels(int(u.max()), k) if levels is None else check_positive_int(levels, "levels")
    out = np.empty((L, u.size), dtype=np.int64)
    for j in range(L):
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


def elders_node_variance(levels: int, epsilon: float, noise: str = "laplace") -> float:
    """Variance of one node's noise: Lap(L/ε) → 2L²/ε²; discrete, r = e^{-ε/L} → 2r/(1 - r)².

    Example
    -------
    >>> elders_node_variance(3, 1.0)
    18.0
    """
    L = check_positive_int(levels, "levels")
    eps = _check_eps(epsilon)
    if noise == "laplace":
        return 2.0 * L * L / eps**2  # proof: elders-node-var
    if noise == "discrete":
        r = np.exp(-eps / L)
        return float(2.0 * r / np.expm1(-eps / L) ** 2)  # proof: elders-node-var
    raise ValueError(f"noise must be one of {_NOISES}, got {noise!r}")


def _resolve(n: int, branching) -> int:
    return elders_best_branching(n) if branching is None else _branching(branching)


def elders_expected_mse(n: int, epsilon: float, *, branching: int | None = None, noise: str = "laplace",
                        weights: str = "uniform") -> np.ndarray:
    """Exact MSE of each release: node variance times the number of nodes used, Σ_j |d_j(t)|.

    ``branching=None`` takes :func:`elders_best_branching`; ``weights="total"`` or
    ``"minimax"`` the certified optimal per-node scales
    (:mod:`dpverify.continual.elders_weights`, n <= 8191).  Proof:
    ``proofs/continual/elders_privacy.md`` (the nodes' noises are independent).

    Example
    -------
    >>> elders_expected_mse(4, 1.0, branching=3).tolist()   # L = 2: 8 · (1, 2, 1, 2)
    [8.0, 16.0, 8.0, 16.0]
    """
    from dpverify.continual.elders_weights import check_weights, weighted_mse

    n = check_positive_int(n, "n")
    k = _resolve(n, branching)
    var = elders_node_variance(elders_levels(n, k), epsilon, noise)
    if check_weights(weights, n) != "uniform":
        return weighted_mse(n, k, weights, _check_eps(epsilon), noise)
    out = np.empty(n)
    for lo in range(0, n, 1 << 20):  # chunks keep the L x chunk digit array small
        t = np.arange(lo + 1, min(n, lo + (1 << 20)) + 1, dtype=np.int64)
        out[lo : lo + t.size] = var * np.abs(elders_digits(t, k, elders_levels(n, k))).sum(axis=0)  # proof: elders-mse
    return out


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
    R, A, _ = _strategy(n, _resolve(n, branching))
    return R, A


def _strategy(n: int, k: int):
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


def _noise_on_levels(n: int, k: int, nn: NodeNoise, factors=None) -> np.ndarray:
    """G_0(t) = Σ_j Z_j(u_j) - Z_j(k u_{j+1}) for t = 1..n, Z_j(x) = Σ_{i<=x} z_{j,i} (top level first)."""
    lo, _ = elders_digit_range(k)
    L = elders_levels(n, k)
    firsts = [1]
    for _ in range(L):
        firsts.append((firsts[-1] - lo) // k)
    lasts = [n]
    for _ in range(L):
        lasts.append((lasts[-1] - lo) // k)
    dtype = np.int64 if nn.noise == "discrete" else np.float64
    G_up = np.zeros(1, dtype=dtype)  # G_L on u_L in [0, 0]
    for j in range(L - 1, -1, -1):
        u = np.arange(firsts[j], lasts[j] + 1, dtype=np.int64)
        q = (u - lo) // k
        top = int(max(u[-1], k * q[-1]))
        Z = np.zeros(top + 1, dtype=dtype)
        if top:
            f = None if factors is None else factors[j][1 : top + 1]
            np.cumsum(nn.nodes(j, 1, top, f), out=Z[1:])  # proof: elders-release
        G_up = Z[u] - Z[k * q] + G_up[q - firsts[j + 1]]  # proof: elders-release
    return G_up


def elders_release(counts, epsilon: float, rng=None, noise: str = "laplace", *, branching: int | None = None,
                   weights: str = "uniform") -> np.ndarray:
    """Batch release: s_t + Σ_j ±(noise of the level-j nodes of t), node noise Lap(L/ε) (or discrete).

    The same ``rng`` gives the same node noise as :class:`EldersStream`.

    Example
    -------
    >>> elders_release([1, 0, 2, 1], 1e9, rng=0, noise="discrete", branching=3).tolist()   # huge ε: no noise
    [1, 1, 3, 4]
    """
    a = check_counts(counts, "counts", nonempty=True)
    eps = _check_eps(epsilon)
    if noise not in _NOISES:
        raise ValueError(f"noise must be one of {_NOISES}, got {noise!r}")
    from dpverify.continual.elders_weights import check_weights, elders_node_factors

    k = _resolve(a.size, branching)
    L = elders_levels(a.size, k)
    factors = None
    if check_weights(weights, a.size) != "uniform":
        factors, L = elders_node_factors(a.size, k, weights)[1], 1
    nn = NodeNoise.from_rng(as_generator(rng), scale=L / eps, noise=noise)  # proof: elders-scale
    z = _noise_on_levels(a.size, k, nn, factors)
    s = np.cumsum(a)
    return s + z if noise == "discrete" else s.astype(float) + z
