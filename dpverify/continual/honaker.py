"""Honaker (2015) on the complete k-ary tree (default k = 2), in the online setting.

At time t, the minimum-variance linear unbiased estimate of s_t from every node
measured so far (the aligned blocks inside [1, t]); per-level budget shares λ_j,
Σ λ_j <= 1 (default uniform 1/L, the classical tree; ``weights="optimized"``
tunes them).  Online.  (Honaker's *offline* estimator from the whole tree is
the least squares estimate of Boost; ``tests/continual/test_baselines_exact.py``
checks they coincide.)  Reference: Honaker, TPDP 2015; ``continual/baselines_variance.md``.

Example
-------
>>> honaker_level_variances([0.5, 0.5], 2, 1.0).tolist()
[8.0, 5.333333333333333]
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from dpverify.validation import as_generator, check_counts, check_finite_array, check_positive_int
from dpverify.continual.checks import check_eps, check_n, check_noise, check_result, laplace_only
from dpverify.continual.digits import digit_counts, digit_sums, honaker_nodes
from dpverify.continual.kary_tree import check_branching, kary_levels
from dpverify.continual.streams import BoundedStream
from dpverify.continual.trees import DENSE_LIMIT, guard
from dpverify.proofdocs import proven

__all__ = [
    "honaker_level_weights",
    "honaker_level_variances",
    "honaker_expected_mse",
    "honaker_strategy",
    "honaker_release",
    "HonakerStream",
]


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


@proven("continual/baselines_variance.md")
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
    eps = check_eps(epsilon)
    prec = np.empty(lam.size)
    for j in range(lam.size):
        prec[j] = (eps * lam[j]) ** 2 / 2.0 + (prec[j - 1] / k if j else 0.0)  # proof: honaker-prec
    with np.errstate(divide="ignore"):
        return check_result(1.0 / prec, epsilon)


def _honaker_mse(n, k, shares, eps):
    v = honaker_level_variances(shares, k, eps)
    return v @ digit_counts(n, k, v.size)  # proof: honaker-mse


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
    D = digit_sums(n, k, L)
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


def honaker_expected_mse(n: int, epsilon: float, *, branching: int = 2, weights="uniform", noise: str = "laplace") -> np.ndarray:
    """Exact MSE of release t: ``Σ_j d_j(t) v_j`` — t's digits count its complete level-j blocks.

    Reference: Honaker (2015), online use of the tree; ``continual/baselines_variance.md``.

    Example
    -------
    >>> honaker_expected_mse(3, 1.0).round(3).tolist()   # L = 2: v_0 = 8, v_1 = 16/3
    [8.0, 5.333, 13.333]
    """
    laplace_only(noise, "honaker")
    n = check_positive_int(n, "n")
    eps = check_eps(epsilon)
    k = check_branching(branching)
    return check_result(_honaker_mse(n, k, honaker_level_weights(n, k, weights), eps), epsilon)


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
    n = check_n(n, per_node=lambda m: 24 * m.bit_length() + 64, what="honaker_strategy")
    k = check_branching(branching)
    lam = honaker_level_weights(n, k, weights)
    L = lam.size
    counts = honaker_nodes(n, k, L)
    if n > DENSE_LIMIT:
        return _honaker_operator(n, k, lam, counts), guard(_honaker_tree(n, k, lam, counts))
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
    return R.tocsr(), guard(A)  # proof: guard


@proven("continual/baselines_variance.md")
def honaker_release(counts, epsilon: float, rng=None, noise: str = "laplace", *, branching: int = 2,
                    weights="uniform") -> np.ndarray:
    """Batch form: noisy tree, bottom-up BLUE of every block, s_t = Σ of t's complete blocks.

    Example
    -------
    >>> honaker_release([1, 0, 2, 1, 3], 1.0, rng=0).shape
    (5,)
    """
    a = check_counts(counts, "counts", nonempty=True)
    eps = check_eps(epsilon)
    check_noise(noise)
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


class HonakerStream(BoundedStream):
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
        super().__init__(n, epsilon, rng, noise)
        if noise != "laplace":
            raise ValueError("honaker's estimator is real-valued: noise must be 'laplace'")
        self.k = check_branching(branching)
        self._lam = honaker_level_weights(self.n, self.k, weights)
        L = self._lam.size
        self._v = honaker_level_variances(self._lam, self.k, self.epsilon)
        self._sig2 = 2.0 / (self.epsilon * self._lam) ** 2
        self._open = [0] * L  # true count of the open block of each level
        self._done = [0.0] * L  # Σ BLUE of complete level-j blocks in the open level-(j+1) block

    def push(self, a_t) -> float:
        """Add a_t; return the BLUE of the running total s_t."""
        a_t = self.admit(a_t)  # the one push guard of the streams (dpverify.continual.streams)
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


def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

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
