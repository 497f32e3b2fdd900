"""Weighted Fenwick release (thesis chapter 5, §5.3-5.4, eq. 5.8): ``B Σ⁻¹ (Σ M a + noise)`` for node weights λ.

The tree itself (``lowbit``, ``M``, ``B``, the O(n) products) is :mod:`dpverify.continual.fenwick_tree`,
re-exported here; this module holds what the weights add: the exact per-release MSE, the node
noise and its variances, the weighted strategy, the batch release and :class:`FenwickStream`,
and the plain (unweighted) Fenwick method.

Example
-------
>>> from dpverify.continual.fenwick import fenwick_expected_mse
>>> fenwick_expected_mse(3, 1.0).round(3).tolist()      # per-release MSE of the plain Fenwick method
[8.0, 8.0, 16.0]
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.sparse as sp

from dpverify.validation import as_generator, check_counts, check_epsilon, check_finite_array
from dpverify.continual.checks import check_eps, check_n, check_noise, check_total
from dpverify.continual.fenwick_tree import (  # noqa: F401  (the tree's public names, also importable from here)
    column_sq_norms,
    descent_sums,
    fenwick_recombination,
    fenwick_roots,
    fenwick_sensitivity,
    fenwick_strategy,
    levels,
    lowbit,
    node_sums,
    popcount,
    strategy_column_sums,
)
from dpverify.continual.forest import ForestStream
from dpverify.continual.streams import draw_run

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
    "plain_weights",
]


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
    return weighted_expected_mse(plain_weights(n), epsilon, noise=noise)


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
    return draw_run(w, check_eps(epsilon), as_generator(rng), noise)


def weighted_release(counts, epsilon: float, weights, rng, noise: str = "discrete") -> np.ndarray:
    """``B Σ⁻¹ (Σ M a + Lap(1/ε))`` (eq. 5.8) in O(n); with ``noise="discrete"`` ``B (M a + Z)``, integers.

    The caller guarantees max column sum of ΣM <= 1 (then the release is ε-DP).

    Example
    -------
    >>> weighted_release([1, 2, 3], 1e9, [0.5, 0.5, 1.0], rng=0, noise="discrete").tolist()
    [1, 3, 6]
    """
    a = check_counts(counts, "counts", nonempty=True)
    check_total(a)
    w = check_finite_array(weights, "weights", ndim=1)
    if w.size != a.size:
        raise ValueError(f"weights must have one entry per count: counts has {a.size}, weights has {w.size}")
    if (w <= 0).any():
        raise ValueError("weights must be > 0")
    check_noise(noise)
    return _release_validated(a, check_epsilon(epsilon), w, as_generator(rng), noise)


def _release_validated(a: np.ndarray, eps: float, w: np.ndarray, rng: np.random.Generator, noise: str) -> np.ndarray:
    # the one-block forest stream, in one chunk: exact integer node sums, noise in aligned runs
    return ForestStream(a.size, eps, [(0, a.size)], lambda t: w[t - 1], rng=rng, noise=noise).push_many(a)


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


def plain_weights(n: int) -> np.ndarray:
    """The plain Fenwick weights: every node λ = (1 − 10⁻¹²)/Δ, Δ = floor(log2 n) + 1 (Lap(Δ/ε) on each node).

    Example
    -------
    >>> bool(np.allclose(plain_weights(4), 1 / 3))
    True
    """
    # Lap(Δ/ε) on every node, Δ = floor(log2 n) + 1 (Thm 5.1); the factor 1 - 1e-12 keeps every
    # column sum of ΣM <= 1 despite rounding (Δ · fl(1/Δ) can be 1 + 2^-52).
    n = check_n(n, per_node=8, what="plain_weights")
    return np.full(n, (1.0 - 1e-12) / n.bit_length())


def _fenwick_release(counts, epsilon, rng, noise="discrete"):
    a = np.asarray(counts)
    return _fenwick_stream(a.size, epsilon, rng, noise).push_many(a)


def _fenwick_stream(n, epsilon, rng, noise):
    w = plain_weights(1)[0] / n.bit_length()
    return ForestStream(n, epsilon, [(0, n)], lambda idx: np.full(np.size(idx), w), rng=rng, noise=noise)


def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(
        ContinualMethod(
            name="fenwick",
            description="plain (unweighted) Fenwick strategy, Lap(Δ/ε) per node, Δ = floor(log2 n) + 1",
            expected_mse=fenwick_expected_mse,
            strategy=lambda n: weighted_strategy(plain_weights(check_n(n, per_node=24 * n.bit_length() + 64))),
            release=_fenwick_release,
            stream=_fenwick_stream,
            online=True,
            reference="thesis chapter 5, §5.3 Alg. 5.2/5.3, Thm 5.1/5.2",
        )
    )


_register()
