"""The baselines of seed 004 §5: binary mechanism (Chan–Shi–Song), Boost (Hay et al.), Privelet
(Xiao et al.) and Honaker's estimator — each with its exact per-release MSE.

Every method is a factorization W = R·A with max column l1 norm of A at most 1
(``strategy``), released as ``R (A a + Lap(1/ε))``; the exact MSE is
``(2/ε²) diag(R Rᵀ)``, computed here in closed form in O(n log n).

- ``binary`` — Chan, Shi, Song (2011), Alg. 2 "Binary Mechanism B" for T = n
  releases: p-sums α_i over ``(t − 2^i, t]`` with i the lowest set bit of t,
  each noisy with Lap(L/ε); s_t is the sum of the noisy p-sums of the set bits
  of t.  L counts the p-sums one count can fall in, ``floor(log2 n) + 1``
  (the paper writes ε' = ε/log T; with ``floor + 1`` the release is exactly
  ε-DP).  MSE(t) = 2 L² popcount(t) / ε².  Online.
- ``boost`` — Hay, Rastogi, Miklau, Suciu (2010): complete binary tree over
  n = 2^m leaves, ℓ = m + 1 levels, Lap(ℓ/ε) on every node, then the least
  squares (consistency) estimate by the two-pass algorithm; prefix t is the sum
  of the first t consistent leaves.  Static.
- ``privelet`` — Xiao, Wang, Gehrke (2011): Haar wavelet coefficients of the
  n = 2^m counts, coefficient c with weight W(c) (n for the base, 2^h for a
  node over 2^h leaves) gets Lap(ρ/(ε W(c))), ρ = 1 + log2 n; inverse
  transform.  Static.
- ``honaker`` — Honaker (2015) on the complete k-ary tree (default k = 2) in
  the online setting: at time t, the minimum-variance linear unbiased
  estimate of s_t from every node measured so far (the aligned blocks inside
  [1, t]); per-level budget shares λ_j, Σ λ_j <= 1 (default uniform 1/L, the
  classical tree; ``weights="optimized"`` tunes them).  Online.  (Honaker's
  *offline* estimator from the whole tree is the least squares estimate of
  Boost; ``tests/continual/test_baselines_exact.py`` checks they coincide.)

The exact variances (``proofs/continual/baselines_variance.md``): the Haar
vectors ψ_u diagonalise HᵀH of the complete binary tree (eigenvalue 2^h − 1
for a node over 2^h leaves, 2n − 1 for the constant vector), and the prefix
indicator meets only the ψ_u of the blocks that straddle t, with
``wᵀψ_u = min(x, 2^h − x)``, x = t mod 2^h.

Example
-------
>>> import numpy as np
>>> from dpverify.continual import expected_mse
>>> expected_mse(4, 1.0, "binary").tolist()   # 2 · 3² · popcount(t)
[18.0, 18.0, 36.0, 18.0]
"""

from __future__ import annotations

import numbers
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from dpverify._validation import as_generator, check_counts, check_epsilon, check_finite_array, check_positive_int
from dpverify.continual.kary import (
    _CHUNK,
    _node_noise,
    check_branching,
    kary_levels,
    kary_node_sums,
    kary_path_sums,
    kary_recombination,
    kary_strategy_matrix,
)
from dpverify.proofdocs import proven

__all__ = [
    "binary_levels",
    "binary_expected_mse",
    "binary_release",
    "binary_strategy",
    "BinaryMechanismStream",
    "tree_matrix",
    "boost_expected_mse",
    "boost_release",
    "boost_strategy",
    "privelet_expected_mse",
    "privelet_release",
    "privelet_strategy",
    "static_total_mse",
    "honaker_level_weights",
    "honaker_level_variances",
    "honaker_expected_mse",
    "honaker_release",
    "honaker_strategy",
    "HonakerStream",
]

_DENSE_LIMIT = 1024  # above this n, strategies whose R is dense return R as a LinearOperator


def _check_noise(noise):
    if noise not in ("laplace", "discrete"):
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")


def _log2_exact(n: int) -> int:
    n = check_positive_int(n, "n")
    if n & (n - 1):
        raise ValueError(f"n must be a power of two, got {n}")
    return n.bit_length() - 1


def _popcount(t: np.ndarray) -> np.ndarray:
    v = t.copy()
    out = np.zeros(t.shape, dtype=np.int64)
    while v.any():
        out += v & 1
        v >>= 1
    return out


# --------------------------------------------------------------------------------------------
# Binary mechanism (Chan, Shi, Song 2011)


def binary_levels(n: int, levels: int | None = None) -> int:
    """L: the noise is Lap(L/ε) per p-sum; default ``floor(log2 n) + 1``, the most p-sums one count is in.

    A smaller L would not be ε-DP and is refused; a larger one (e.g. the
    ``m + 1`` levels of a complete tree over 2^m >= n leaves) is allowed.

    Example
    -------
    >>> binary_levels(8)   # ⌈log2(n+1)⌉ levels for n = 8
    4
    >>> binary_levels(7)
    3
    """
    n = check_positive_int(n, "n")
    need = n.bit_length()
    if levels is None:
        return need
    levels = check_positive_int(levels, "levels")
    if levels < need:
        raise ValueError(f"levels must be >= floor(log2 n) + 1 = {need} for ε-DP, got {levels}")
    return levels


@proven("proofs/continual/baselines_variance.md")
def binary_expected_mse(n: int, epsilon: float, *, levels: int | None = None) -> np.ndarray:
    """Exact MSE of release t: ``2 L² popcount(t) / ε²`` (popcount(t) independent noisy p-sums).

    Reference: Chan, Shi, Song (2011) Alg. 2; seed 004 §5.2.

    Example
    -------
    >>> binary_expected_mse(7, 1.0).tolist()   # L = 3
    [18.0, 18.0, 36.0, 18.0, 36.0, 36.0, 54.0]
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    L = binary_levels(n, levels)
    t = np.arange(1, n + 1, dtype=np.int64)
    return 2.0 * L**2 * _popcount(t) / eps**2  # proof: binary-mse


def binary_strategy(n: int, *, levels: int | None = None):
    """``(R, A) = (L B, M / L)`` with the p-sum matrix M (rows = p-sums) and B summing the set bits.

    Example
    -------
    >>> R, A = binary_strategy(4)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((4, 4)))))   # R A = W
    True
    """
    n = check_positive_int(n, "n")
    L = binary_levels(n, levels)
    return (kary_recombination(n, 2) * float(L)).tocsr(), (kary_strategy_matrix(n, 2) / float(L)).tocsr()


@proven("proofs/continual/baselines_variance.md")
def binary_release(counts, epsilon: float, rng=None, noise: str = "laplace", *, levels: int | None = None) -> np.ndarray:
    """Batch form of Alg. 2 of Chan–Shi–Song: noisy p-sums, then the sums over the set bits of t.

    Example
    -------
    >>> binary_release([1, 0, 2, 1], 1.0, rng=0).shape
    (4,)
    """
    a = check_counts(counts, "counts")
    eps = check_epsilon(epsilon)
    _check_noise(noise)
    g = as_generator(rng)
    L = binary_levels(a.size, levels)
    psum = kary_node_sums(a, 2)  # α for the p-sum ending at t
    scale = np.full(a.size, 1.0 / L)  # weight 1/L per p-sum: Lap(L/ε), or DLap(L/ε) on the integer p-sum
    z = np.concatenate([_node_noise(scale[lo : lo + _CHUNK], eps, g, noise) for lo in range(0, a.size, _CHUNK)])
    return kary_path_sums(psum + z * (L if noise == "laplace" else 1), 2)  # proof: binary-release


class BinaryMechanismStream:
    """Chan–Shi–Song Alg. 2 verbatim: ``push(σ(t))`` returns B(t) in O(log n).

    i = lowest set bit of t; α_i ← Σ_{j<i} α_j + σ(t); α_j, α̂_j ← 0 for j < i;
    α̂_i ← α_i + Lap(L/ε); output Σ_{j: bit j of t set} α̂_j.

    Example
    -------
    >>> s = BinaryMechanismStream(3, 1.0, rng=0)
    >>> len([s.push(c) for c in (1, 0, 2)]), s.remaining
    (3, 0)
    """

    def __init__(self, n: int, epsilon: float, rng=None, noise: str = "laplace", *, levels: int | None = None):
        self.n = check_positive_int(n, "n")
        self.epsilon = check_epsilon(epsilon)
        _check_noise(noise)
        self.noise = noise
        self.L = binary_levels(self.n, levels)
        self._rng = as_generator(rng)
        self._alpha = [0] * (self.n.bit_length() + 1)
        self._alpha_hat = [0.0] * (self.n.bit_length() + 1)
        self._buf = None
        self._lo = 0
        self.t = 0

    @property
    def remaining(self) -> int:
        return self.n - self.t

    def push(self, a_t) -> float:
        if isinstance(a_t, bool) or not isinstance(a_t, numbers.Real):
            raise TypeError(f"a_t must be a non-negative integer, got {a_t!r}")
        if not np.isfinite(a_t) or a_t < 0 or a_t != int(a_t):
            raise ValueError(f"a_t must be a non-negative integer, got {a_t!r}")
        if self.t >= self.n:
            raise ValueError(f"stream is bounded: n={self.n} releases already made, cannot push release {self.t + 1}")
        if self._buf is None or self.t - self._lo >= self._buf.size:  # the batch release's chunks, in order
            m = min(_CHUNK, self.n - self.t)
            z = _node_noise(np.full(m, 1.0 / self.L), self.epsilon, self._rng, self.noise)
            self._buf = z * self.L if self.noise == "laplace" else z
            self._lo = self.t
        t = self.t + 1
        i = (t & -t).bit_length() - 1
        alpha, hat = self._alpha, self._alpha_hat
        alpha[i] = sum(alpha[:i]) + int(a_t)
        for j in range(i):
            alpha[j] = 0
            hat[j] = 0.0
        hat[i] = alpha[i] + self._buf[t - 1 - self._lo]
        self.t = t
        out = 0.0
        for j in range(len(hat) - 1, -1, -1):  # high bits first: the batch adds the descent path in this order
            if (t >> j) & 1:
                out += hat[j]
        return float(out)


# --------------------------------------------------------------------------------------------
# The complete binary tree, its Haar eigenbasis, Boost and Privelet


def tree_matrix(n: int) -> sp.csr_matrix:
    """H: one row per node of the complete binary tree over n = 2^m leaves (levels h = 0..m, leaves first).

    Example
    -------
    >>> tree_matrix(2).toarray().tolist()
    [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    """
    m = _log2_exact(n)
    rows = []
    for h in range(m + 1):
        size = 1 << h
        nb = n >> h
        rows.append(sp.csr_matrix((np.ones(n), np.arange(n), np.arange(0, n + 1, size)), shape=(nb, n)))
    return sp.vstack(rows).tocsr()


def _straddle_sum(n: int, coef) -> np.ndarray:
    """``Σ_h coef(h) g_h(t)²`` for t = 1..n, where ``g_h(t) = wᵀψ_u`` for the height-h block u around
    the prefix [1, t]: ``min(x, 2^h − x)``, x = t mod 2^h.

    The sum over h <= H has period 2^H in t, so it is built level by level on one period
    (2^H values, tiled twice for the next level): O(n) in all.
    """
    m = _log2_exact(n)
    P = np.zeros(1)
    for h in range(1, m + 1):
        size = 1 << h
        x = np.arange(size, dtype=np.int64)
        g = np.minimum(x, size - x).astype(float)  # proof: haar-straddle
        P = np.tile(P, 2)
        P += coef(h) * (g * g)
    return np.roll(P, -1)  # t = 1..n reads P[t mod n]


@proven("proofs/continual/baselines_variance.md")
def boost_expected_mse(n: int, epsilon: float) -> np.ndarray:
    """Exact MSE of each prefix after Hay's consistency: ``2ℓ²/ε² · wᵀ(HᵀH)⁻¹w``, O(n log n).

    ``wᵀ(HᵀH)⁻¹w = t²/(n(2n−1)) + Σ_h g_h(t)² / (2^h (2^h − 1))`` (Haar eigenbasis).
    Reference: Hay et al. (2010); seed 004 §5.3; ``proofs/continual/baselines_variance.md``.

    Example
    -------
    >>> boost_expected_mse(2, 1.0).round(4).tolist()   # ℓ = 2: 2·4·(1/6 + 1/2), 2·4·(4/6)
    [5.3333, 5.3333]
    """
    eps = check_epsilon(epsilon)
    m = _log2_exact(n)
    ell = m + 1
    t = np.arange(1, n + 1, dtype=float)
    q = t**2 / (n * (2.0 * n - 1)) + _straddle_sum(n, lambda h: 1.0 / (2.0**h * (2.0**h - 1)))  # proof: boost-var
    return 2.0 * ell**2 / eps**2 * q


@proven("proofs/continual/baselines_variance.md")
def privelet_expected_mse(n: int, epsilon: float) -> np.ndarray:
    """Exact MSE of each prefix from Privelet: ``2ρ²/ε² (t²/n² + Σ_h g_h(t)²/4^h)``, ρ = 1 + log2 n.

    Reference: Xiao, Wang, Gehrke (2011); seed 004 §5.3.

    Example
    -------
    >>> privelet_expected_mse(2, 1.0).tolist()   # ρ = 2: 8·(1/4 + 1/4), 8·(1 + 0)
    [4.0, 8.0]
    """
    eps = check_epsilon(epsilon)
    m = _log2_exact(n)
    rho = m + 1
    t = np.arange(1, n + 1, dtype=float)
    q = t**2 / float(n) ** 2 + _straddle_sum(n, lambda h: 1.0 / 4.0**h)  # proof: privelet-var
    return 2.0 * rho**2 / eps**2 * q


@proven("proofs/continual/baselines_variance.md")
def static_total_mse(n: int, epsilon: float, method: str) -> float:
    """Σ_t MSE(t) of ``boost`` or ``privelet`` in O(log n) by summing the closed forms over t.

    Σ_t t² = n(n+1)(2n+1)/6 and, per level, Σ_t g_h(t)² = (n / 2^h) Σ_{x<2^h} min(x, 2^h − x)²
    = (n / 2^h) · 2^h (4^h + 2)/12.

    Example
    -------
    >>> bool(np.isclose(static_total_mse(8, 1.0, 'boost'), boost_expected_mse(8, 1.0).sum()))
    True
    """
    eps = check_epsilon(epsilon)
    m = _log2_exact(n)
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


def _haar_basis(n: int) -> tuple[sp.csc_matrix, np.ndarray, np.ndarray]:
    """Ψ (n × n, column 0 = 1, then ψ_u by height h = m..1), ||ψ||², and the tree eigenvalue of each column."""
    m = _log2_exact(n)
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


def _prefix_matrix(n: int) -> sp.csr_matrix:
    length = np.arange(1, n + 1, dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(length)])
    indices = np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1], length)
    return sp.csr_matrix((np.ones(indptr[-1]), indices, indptr), shape=(n, n))


def _prefix_operator(n: int, inner):
    """``W ∘ inner`` as a scipy LinearOperator: y ↦ cumsum(inner(y)), inner given on vectors."""
    from scipy.sparse.linalg import LinearOperator

    def mv(y):
        y = np.asarray(y, dtype=float)
        return np.cumsum(inner(y.reshape(-1)))

    return LinearOperator((n, inner.m), matvec=mv, dtype=float)


def boost_strategy(n: int):
    """``(R, A) = (ℓ W (HᵀH)⁻¹ Hᵀ, H/ℓ)``.

    R is dense (every node informs every prefix): for n <= 1024 it is returned as a CSR matrix,
    above that as a ``scipy.sparse.linalg.LinearOperator`` applying Hᵀ, (HᵀH)⁻¹ in the Haar
    eigenbasis and the prefix sums in O(n log n) per vector (A stays a sparse matrix).

    Example
    -------
    >>> R, A = boost_strategy(4)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((4, 4)))))   # R A = W
    True
    >>> R, A = boost_strategy(4096)               # large n: R as a linear operator
    >>> x = np.arange(4096.0)
    >>> bool(np.allclose(R @ (A @ x), np.cumsum(x)))
    True
    """
    m = _log2_exact(n)
    ell = float(m + 1)
    H = tree_matrix(n)
    Psi, norms, eig = _haar_basis(n)
    if n > _DENSE_LIMIT:
        d = 1.0 / (norms * eig)
        Ht, PsiT = H.T.tocsr(), Psi.T.tocsr()

        def inner(y):  # ℓ (HᵀH)⁻¹ Hᵀ y
            return ell * (Psi @ (d * (PsiT @ (Ht @ y))))

        inner.m = H.shape[0]
        return _prefix_operator(n, inner), (H / ell).tocsr()
    inv = (Psi @ sp.diags(1.0 / (norms * eig)) @ Psi.T)  # (HᵀH)⁻¹ in the Haar eigenbasis
    R = ell * (_prefix_matrix(n) @ inv @ H.T)
    return sp.csr_matrix(R), (H / ell).tocsr()


def privelet_strategy(n: int):
    """``(R, A) = (ρ W Ψ D⁻¹, Ψᵀ/ρ)`` with the Haar basis Ψ and D = diag(||ψ||²).

    R is dense; above n = 1024 it is a ``scipy.sparse.linalg.LinearOperator`` (O(n log n) per vector).

    Example
    -------
    >>> R, A = privelet_strategy(4)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((4, 4)))))   # R A = W
    True
    >>> R, A = privelet_strategy(4096)            # large n: R as a linear operator
    >>> x = np.arange(4096.0)
    >>> bool(np.allclose(R @ (A @ x), np.cumsum(x)))
    True
    """
    m = _log2_exact(n)
    rho = float(m + 1)
    Psi, norms, _ = _haar_basis(n)
    if n > _DENSE_LIMIT:
        Psi_csr = Psi.tocsr()

        def inner(y):  # ρ Ψ D⁻¹ y
            return rho * (Psi_csr @ (y / norms))

        inner.m = n
        return _prefix_operator(n, inner), (Psi.T / rho).tocsr()
    R = rho * (_prefix_matrix(n) @ Psi @ sp.diags(1.0 / norms))
    return sp.csr_matrix(R), (Psi.T / rho).tocsr()


def _tree_levels(a: np.ndarray) -> list[np.ndarray]:
    """Node counts of the complete binary tree, level h = 0 (leaves) .. m (root)."""
    out = [a.astype(np.int64)]
    while out[-1].size > 1:
        out.append(out[-1].reshape(-1, 2).sum(axis=1))
    return out


@proven("proofs/continual/baselines_variance.md")
def boost_release(counts, epsilon: float, rng=None, noise: str = "laplace") -> np.ndarray:
    """Noisy tree (Lap(ℓ/ε) per node), Hay et al.'s two-pass least squares, prefix sums of the leaves.

    Example
    -------
    >>> boost_release([1, 0, 2, 1], 1.0, rng=0).shape   # n must be a power of two
    (4,)
    """
    a = check_counts(counts, "counts")
    eps = check_epsilon(epsilon)
    _check_noise(noise)
    if noise != "laplace":
        raise ValueError("boost's consistency step is real-valued: noise must be 'laplace'")
    m = _log2_exact(a.size)
    ell = m + 1
    g = as_generator(rng)
    x = [lv + g.laplace(0.0, ell / eps, size=lv.size) for lv in _tree_levels(a)]
    # pass 1 (bottom up): z_v = (2^l − 2^{l−1})/(2^l − 1) x_v + (2^{l−1} − 1)/(2^l − 1) Σ_children z, l = height + 1
    z = [x[0]]
    for h in range(1, m + 1):
        l = h + 1
        kids = z[-1].reshape(-1, 2).sum(axis=1)
        z.append((2**l - 2 ** (l - 1)) / (2**l - 1) * x[h] + (2 ** (l - 1) - 1) / (2**l - 1) * kids)  # proof: hay-up
    # pass 2 (top down): u_v = z_v + (u_parent − Σ_{children of parent} z) / 2
    u = z[m]
    for h in range(m - 1, -1, -1):
        par = np.repeat(u, 2)
        sib = np.repeat(z[h].reshape(-1, 2).sum(axis=1), 2)
        u = z[h] + (par - sib) / 2.0  # proof: hay-down
    return np.cumsum(u)


@proven("proofs/continual/baselines_variance.md")
def privelet_release(counts, epsilon: float, rng=None, noise: str = "laplace") -> np.ndarray:
    """Haar coefficients + Lap(ρ/(ε W(c))), inverse transform, prefix sums.

    Example
    -------
    >>> privelet_release([1, 0, 2, 1], 1.0, rng=0).shape   # n must be a power of two
    (4,)
    """
    a = check_counts(counts, "counts")
    eps = check_epsilon(epsilon)
    _check_noise(noise)
    if noise != "laplace":
        raise ValueError("privelet's coefficients are real-valued: noise must be 'laplace'")
    n = a.size
    m = _log2_exact(n)
    rho = m + 1
    g = as_generator(rng)
    lv = _tree_levels(a)
    base = lv[m][0] / n + g.laplace(0.0, rho / (eps * n))
    est = np.array([base])  # running estimate of the block averages, top down
    for h in range(m, 0, -1):
        pairs = lv[h - 1].reshape(-1, 2)
        c = (pairs[:, 0] - pairs[:, 1]) / 2.0**h  # (sum_left − sum_right)/2^h = (avg_l − avg_r)/2
        c = c + g.laplace(0.0, rho / (eps * 2.0**h), size=c.size)  # proof: privelet-noise
        est = np.stack([est + c, est - c], axis=1).ravel()  # child averages
    return np.cumsum(est)


# --------------------------------------------------------------------------------------------
# Honaker's estimator on the complete k-ary tree, online


def honaker_level_weights(n: int, branching: int = 2, weights="uniform") -> np.ndarray:
    """Budget shares λ_0..λ_{L-1} of the tree levels (Σ <= 1): ``"uniform"`` (1/L each), ``"optimized"``,
    or an explicit array.

    ``"optimized"`` minimises the exact total MSE over the shares (a smooth problem in L variables,
    solved by BFGS with the exact gradient from three starts; the best found, not a certified optimum).

    Example
    -------
    >>> honaker_level_weights(7, 2).tolist()
    [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
    """
    n = check_positive_int(n, "n")
    k = check_branching(branching)
    L = kary_levels(n, k)
    if isinstance(weights, str):
        if weights == "uniform":
            return np.full(L, 1.0 / L)
        if weights == "optimized":
            return _optimized_shares(n, k)
        raise ValueError(f"weights must be 'uniform', 'optimized' or an array, got {weights!r}")
    w = check_finite_array(weights, "weights", shape=(L,))
    if (w <= 0).any() or w.sum() > 1 + 1e-12:
        raise ValueError(f"weights must be > 0 and sum to at most 1, got {w.tolist()}")
    return w


@proven("proofs/continual/baselines_variance.md")
def honaker_level_variances(shares: np.ndarray, branching: int, epsilon: float) -> np.ndarray:
    """v_j: variance of the best estimate of one level-j block total from its subtree.

    Precisions add: ``1/v_j = ε²λ_j²/2 + 1/(k v_{j−1})`` (the node itself and its k children).

    Example
    -------
    >>> honaker_level_variances([0.5, 0.5], 2, 1.0).tolist()   # v_0 = 8, 1/v_1 = 1/8 + 1/16
    [8.0, 5.333333333333333]
    """
    lam = check_finite_array(shares, "shares", ndim=1)
    if lam.size < 1 or (lam <= 0).any():
        raise ValueError(f"shares must be non-empty and > 0, got {lam.tolist()}")
    k = check_branching(branching)
    epsilon = check_epsilon(epsilon)
    prec = np.empty(lam.size)
    for j in range(lam.size):
        prec[j] = (epsilon * lam[j]) ** 2 / 2.0 + (prec[j - 1] / k if j else 0.0)  # proof: honaker-prec
    return 1.0 / prec


def _digit_counts(n: int, k: int, L: int) -> np.ndarray:
    """d[j, t-1] = digit j of t in base k."""
    t = np.arange(1, n + 1, dtype=np.int64)
    d = np.empty((L, n), dtype=np.int64)
    for j in range(L):
        d[j] = t % k
        t = t // k
    return d


def _honaker_mse(n, k, shares, eps):
    v = honaker_level_variances(shares, k, eps)
    return v @ _digit_counts(n, k, v.size)  # proof: honaker-mse


def _digit_sums(n: int, k: int, L: int) -> np.ndarray:
    """D_j = Σ_{t=1}^{n} (digit j of t in base k), exactly, O(L): full cycles of k^(j+1), then the rest."""
    out = np.zeros(L)
    for j in range(L):
        p, P = k**j, k ** (j + 1)
        full, rem = divmod(n + 1, P)  # t = 0..n
        f, part = divmod(rem, p)
        out[j] = full * p * k * (k - 1) / 2 + p * f * (f - 1) / 2 + f * part
    return out


def _softmax(x):
    x = np.clip(x, -40.0, 40.0)
    e = np.exp(x - x.max())
    return e / e.sum()


@lru_cache(maxsize=256)
def _optimized_shares(n: int, k: int) -> np.ndarray:
    """Minimise Σ_j D_j v_j(λ) over the simplex (λ = softmax(x)), with the exact gradient:
    ∂p_j/∂λ_i = λ_i k^(i−j) for i <= j (ε = 1; the optimal shares do not depend on ε)."""
    from scipy.optimize import minimize

    L = kary_levels(n, k)
    D = _digit_sums(n, k, L)
    decay = np.tril(float(k) ** (np.arange(L)[None, :] - np.arange(L)[:, None]))  # [j, i] = k^(i-j), i <= j
    scale = float(honaker_level_variances(np.full(L, 1.0 / L), k, 1.0) @ D)

    def fun(x):
        lam = _softmax(x)
        p = 1.0 / honaker_level_variances(lam, k, 1.0)
        f = float(D @ (1.0 / p)) / scale
        g_lam = -((D / p**2) @ decay) * lam / scale  # ∂f/∂λ_i
        return f, lam * (g_lam - lam @ g_lam)  # through the softmax

    best = None
    for start in (np.zeros(L), np.linspace(0, 1, L), np.linspace(1, 0, L)):
        r = minimize(fun, start, jac=True, method="BFGS", options={"gtol": 1e-12, "maxiter": 5000})
        if best is None or r.fun < best.fun:
            best = r
    out = _softmax(best.x) * (1.0 - 1e-12)
    out.setflags(write=False)
    return out


def honaker_expected_mse(n: int, epsilon: float, *, branching: int = 2, weights="uniform") -> np.ndarray:
    """Exact MSE of release t: ``Σ_j d_j(t) v_j`` — t's digits count its complete level-j blocks.

    Reference: Honaker (2015), online use of the tree; ``proofs/continual/baselines_variance.md``.

    Example
    -------
    >>> honaker_expected_mse(3, 1.0).round(3).tolist()   # L = 2: v_0 = 8, v_1 = 16/3
    [8.0, 5.333, 13.333]
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    k = check_branching(branching)
    return _honaker_mse(n, k, honaker_level_weights(n, k, weights), eps)


def _honaker_nodes(n, k, L):
    """Per level j: number of complete aligned blocks of size k^j inside [1, n]."""
    return [n // k**j for j in range(L)]


def _honaker_tree(n, k, lam, counts) -> sp.csr_matrix:
    """A: one row per complete aligned block of level j (size k^j), entries λ_j on the block."""
    rows = []
    for j in range(lam.size):
        size, nb = k**j, counts[j]
        rows.append(sp.csr_matrix((np.full(nb * size, lam[j]), np.arange(nb * size), np.arange(0, nb * size + 1, size)),
                                  shape=(nb, n)))
    return sp.vstack(rows).tocsr()


def _honaker_operator(n, k, lam, counts):
    """R as a LinearOperator: y (node measurements, level by level, scaled by λ_j) ↦ BLUE of s_1..s_n.

    The same recursion as :func:`honaker_release` with ε = 1 (R does not depend on ε)."""
    from scipy.sparse.linalg import LinearOperator

    offs = np.concatenate([[0], np.cumsum(counts)])
    v = honaker_level_variances(lam, k, 1.0)
    sig2 = 2.0 / lam**2
    t = np.arange(1, n + 1, dtype=np.int64)

    def mv(y):
        y = np.asarray(y, dtype=float).reshape(-1)
        out = np.zeros(n)
        z_prev = None
        for j in range(lam.size):
            x = y[offs[j]:offs[j + 1]] / lam[j]
            if j == 0:
                z = x
            else:
                kids = z_prev[: counts[j] * k].reshape(counts[j], k).sum(axis=1)
                z = v[j] * (x / sig2[j] + kids / (k * v[j - 1]))
            P = np.concatenate([[0.0], np.cumsum(z)])
            q = t // k**j
            out += P[q] - P[(q // k) * k]
            z_prev = z
        return out

    return LinearOperator((n, int(offs[-1])), matvec=mv, dtype=float)


def honaker_strategy(n: int, *, branching: int = 2, weights="uniform"):
    """``(R, A)``: A = the level-weighted tree (rows: blocks of level 0, 1, ...), R = the online BLUE.

    R has up to O(n²) non-zeros (release t reads every node inside [1, t]): for n <= 1024 it is a
    CSR matrix, above that a ``scipy.sparse.linalg.LinearOperator`` running the bottom-up BLUE
    of :func:`honaker_release` on the node vector, O(n) per vector (A stays sparse).

    Example
    -------
    >>> R, A = honaker_strategy(5)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((5, 5)))))   # R A = W
    True
    >>> R, A = honaker_strategy(3000, branching=3)   # large n: R as a linear operator
    >>> x = np.arange(3000.0)
    >>> bool(np.allclose(R @ (A @ x), np.cumsum(x)))
    True
    """
    n = check_positive_int(n, "n")
    k = check_branching(branching)
    lam = honaker_level_weights(n, k, weights)
    L = lam.size
    counts = _honaker_nodes(n, k, L)
    if n > _DENSE_LIMIT:
        return _honaker_operator(n, k, lam, counts), _honaker_tree(n, k, lam, counts)
    offs = np.concatenate([[0], np.cumsum(counts)])
    nn = int(offs[-1])
    A = _honaker_tree(n, k, lam, counts)
    sig2 = 2.0 / lam**2  # ε = 1 scale; R does not depend on ε
    v = honaker_level_variances(lam, k, 1.0)
    # Z_j: y -> BLUE of the level-j block totals
    sel = lambda j: sp.csr_matrix((np.ones(counts[j]), (np.arange(counts[j]), offs[j] + np.arange(counts[j]))),
                                  shape=(counts[j], nn))
    Z = [sel(0) / lam[0]]
    for j in range(1, L):
        K = sp.csr_matrix((np.ones(counts[j] * k), (np.repeat(np.arange(counts[j]), k), np.arange(counts[j] * k))),
                          shape=(counts[j], counts[j - 1]))
        Z.append(v[j] * (sel(j) / (lam[j] * sig2[j]) + (K @ Z[j - 1]) / (k * v[j - 1])))
    t = np.arange(1, n + 1, dtype=np.int64)
    R = sp.csr_matrix((n, nn))
    for j in range(L):
        q = t // k**j
        lo = (q // k) * k
        cnt = q - lo
        r = np.repeat(np.arange(n), cnt)
        c = np.concatenate([np.arange(a, b) for a, b in zip(lo, q)]) if cnt.sum() else np.zeros(0, dtype=np.int64)
        C = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, counts[j]))
        R = R + C @ Z[j]
    return R.tocsr(), A


@proven("proofs/continual/baselines_variance.md")
def honaker_release(counts, epsilon: float, rng=None, noise: str = "laplace", *, branching: int = 2,
                    weights="uniform") -> np.ndarray:
    """Batch form: noisy tree, bottom-up BLUE of every block, s_t = Σ of t's complete blocks.

    Example
    -------
    >>> honaker_release([1, 0, 2, 1, 3], 1.0, rng=0).shape
    (5,)
    """
    a = check_counts(counts, "counts")
    eps = check_epsilon(epsilon)
    _check_noise(noise)
    if noise != "laplace":
        raise ValueError("honaker's estimator is real-valued: noise must be 'laplace'")
    n = a.size
    k = check_branching(branching)
    lam = honaker_level_weights(n, k, weights)
    L = lam.size
    g = as_generator(rng)
    s = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(a, out=s[1:])
    v = honaker_level_variances(lam, k, eps)
    sig2 = 2.0 / (eps * lam) ** 2
    z_prev = None
    out = np.zeros(n)
    t = np.arange(1, n + 1, dtype=np.int64)
    for j in range(L):
        size = k**j
        nb = n // size
        c = s[size : nb * size + 1 : size] - s[0 : (nb - 1) * size + 1 : size]
        x = (lam[j] * c + g.laplace(0.0, 1.0 / eps, size=nb)) / lam[j]
        if j == 0:
            z = x
        else:
            kids = z_prev[: nb * k].reshape(nb, k).sum(axis=1)
            z = v[j] * (x / sig2[j] + kids / (k * v[j - 1]))  # proof: honaker-blue
        P = np.concatenate([[0.0], np.cumsum(z)])
        q = t // size
        out += P[q] - P[(q // k) * k]
        z_prev = z
    return out


class HonakerStream:
    """Online Honaker estimate: ``push(a_t)`` returns the BLUE of s_t from the nodes measured so far.

    Per level j it keeps the true count of the open block and the sum of the
    BLUEs of the complete level-j blocks inside the open level-(j+1) block;
    s_t is the sum of those. O(log_k n) per push.

    Example
    -------
    >>> s = HonakerStream(3, 1.0, rng=0)
    >>> len([s.push(c) for c in (1, 0, 2)]), s.remaining
    (3, 0)
    """

    def __init__(self, n: int, epsilon: float, rng=None, noise: str = "laplace", *, branching: int = 2,
                 weights="uniform"):
        self.n = check_positive_int(n, "n")
        self.epsilon = check_epsilon(epsilon)
        _check_noise(noise)
        if noise != "laplace":
            raise ValueError("honaker's estimator is real-valued: noise must be 'laplace'")
        self.k = check_branching(branching)
        self._lam = honaker_level_weights(self.n, self.k, weights)
        L = self._lam.size
        self._v = honaker_level_variances(self._lam, self.k, self.epsilon)
        self._sig2 = 2.0 / (self.epsilon * self._lam) ** 2
        self._rng = as_generator(rng)
        self._open = [0] * L  # true count of the open block of each level
        self._done = [0.0] * L  # Σ BLUE of complete level-j blocks in the open level-(j+1) block
        self.t = 0

    @property
    def remaining(self) -> int:
        return self.n - self.t

    def push(self, a_t) -> float:
        if isinstance(a_t, bool) or not isinstance(a_t, numbers.Real):
            raise TypeError(f"a_t must be a non-negative integer, got {a_t!r}")
        if not np.isfinite(a_t) or a_t < 0 or a_t != int(a_t):
            raise ValueError(f"a_t must be a non-negative integer, got {a_t!r}")
        if self.t >= self.n:
            raise ValueError(f"stream is bounded: n={self.n} releases already made, cannot push release {self.t + 1}")
        t = self.t + 1
        k, L = self.k, self._lam.size
        for j in range(L):
            self._open[j] += int(a_t)
        j, z = 0, None
        while j < L and t % k**j == 0:
            lam = self._lam[j]
            x = (lam * self._open[j] + self._rng.laplace(0.0, 1.0 / self.epsilon)) / lam
            if j == 0:
                z = x
            else:
                kids = self._done[j - 1] + z  # the k children: k − 1 finished earlier, plus the newest
                self._done[j - 1] = 0.0
                z = self._v[j] * (x / self._sig2[j] + kids / (k * self._v[j - 1]))
            self._open[j] = 0
            j += 1
        self._done[j - 1] += z
        self.t = t
        return float(sum(self._done))


# --------------------------------------------------------------------------------------------


def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(ContinualMethod(
        name="binary",
        description="binary mechanism of Chan–Shi–Song (2011): Lap(L/ε) p-sums, L = floor(log2 n) + 1 (option levels)",
        expected_mse=binary_expected_mse,
        strategy=binary_strategy,
        release=binary_release,
        stream=BinaryMechanismStream,
        online=True,
        reference="Chan, Shi, Song, TISSEC 14(3) 2011, Alg. 2; seed 004 §5.2",
    ))
    register_method(ContinualMethod(
        name="boost",
        description="Hay et al. (2010): binary tree, Lap((m+1)/ε) per node, least-squares consistency (n = 2^m)",
        expected_mse=boost_expected_mse,
        strategy=boost_strategy,
        release=boost_release,
        leaves_power_of_two=True,
        reference="Hay, Rastogi, Miklau, Suciu, PVLDB 3(1) 2010; seed 004 §5.3",
    ))
    register_method(ContinualMethod(
        name="privelet",
        description="Xiao et al. (2011): Haar wavelet, Lap(ρ/(ε W(c))) per coefficient, ρ = 1 + log2 n (n = 2^m)",
        expected_mse=privelet_expected_mse,
        strategy=privelet_strategy,
        release=privelet_release,
        leaves_power_of_two=True,
        reference="Xiao, Wang, Gehrke, TKDE 23(8) 2011; seed 004 §5.3",
    ))
    register_method(ContinualMethod(
        name="honaker",
        description="Honaker (2015) online: BLUE of s_t from every measured node of the k-ary tree "
        "(options branching, weights='uniform'|'optimized'|array)",
        expected_mse=honaker_expected_mse,
        strategy=honaker_strategy,
        release=honaker_release,
        stream=HonakerStream,
        online=True,
        reference="Honaker, TPDP 2015 'Efficient use of differentially private binary trees'",
    ))


_register()
