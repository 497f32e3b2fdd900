"""The paper's FDA by name (``"fda-paper"``): Cai, Wu and Wang's Alg. 4/5 exactly as printed, at any N.

The paper defines FDA for N = 2^m − 1 only: "when N = 2^m − 1 the algorithm computes any λ_i in
O(log N)" (thesis chapter 5, §5.4, and Cai, Wu, Wang 2016, §4.2), Alg. 5 takes "the upper limit of continual release
T ∈ 2^m − 1", and §4.4 analyses "the case N = 2^m − 1".  It prints no rule for other N; its one
experiment at other sizes (004 §5.3, N = 2^m) runs FDA on one data point fewer, which answers
2^m − 1 releases, not N.  Alg. 5 is an online algorithm with a bound T on the number of releases
(Def. 5.2: a bounded algorithm publishes *at most* T releases), so the mechanism as printed at any
N is: **run Alg. 5 with the smallest bound T = 2^m − 1 >= N (m = floor(log2 N) + 1) and stop after
release N.**  That is the choice made here (named, not the paper's words: the paper is silent).

Release t of Alg. 5 only reads the nodes 1..t, so the first N releases are the matrix mechanism
(5.8) on the paper's own M_N (Alg. 5.2 with N) and B_N, with the diagonal Σ_N = the leading N×N
block of Σ_T, λ_k = coef(k, m) (Alg. 4): ``B_N Σ_N⁻¹ (Σ_N M_N a + Lap(1/ε)^N)``.  Its sensitivity
‖Σ_N M_N‖₁ is exactly that of Σ_T M_T, 1 (times the library's rounding guard 1 − 10⁻¹²):
column 1 of M_N is the whole upward path 1, 2, 4, …, 2^(m−1) <= N, a leaf-to-root path of the
tree of T, whose weights sum to 1 (``continual/fda_paper.md``).  So the release is ε-DP, with
the paper's calibration (Lap(1/ε) on each weighted node).

At N = 2^m − 1 this is the library's ``fda`` (same weights, same release); at other N the forest
``fda`` has a lower total MSE (0.86× at N = 1000; claim ``continual.fda_paper.vs_forest``).

Example
-------
>>> paper_bound(1000), fda_paper_weights(3).round(4).tolist()
(1023, [0.4425, 0.5575, 1.0])
>>> s = fda_paper_sensitivity(1000)      # exact rational sum of count 1's weights: 1 - 1e-12 up to rounding
>>> s <= 1, abs(float(s) - (1 - 1e-12)) < 1e-15
(True, True)
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpverify.continual.checks import check_n, check_times
from dpverify.continual.fda import fda_weights, fda_weights_at
from dpverify.continual.fenwick import node_variances, weighted_strategy
from dpverify.continual.fenwick_tree import descent_sums
from dpverify.continual.forest import ForestStream
from dpverify.continual.methods import ContinualMethod, register_method
from dpverify.proofdocs import proven

__all__ = ["paper_bound", "fda_paper_weights", "fda_paper_weights_at", "fda_paper_expected_mse",
           "fda_paper_strategy", "fda_paper_sensitivity"]

#: up to this many releases the weights are computed once for all nodes (fda_weights of T <= 2N + 1)
_PRECOMPUTE = 1 << 20


@proven("continual/fda_paper.md")
def paper_bound(n: int) -> int:
    """Alg. 5's bound for n releases: the smallest T = 2^m − 1 >= n (m = floor(log2 n) + 1).

    Example
    -------
    >>> [paper_bound(n) for n in (1, 2, 3, 4, 7, 8, 1000)]
    [1, 3, 3, 7, 7, 15, 1023]
    """
    n = check_n(n)
    return (1 << n.bit_length()) - 1  # proof: bound


@proven("continual/fda_paper.md")
def fda_paper_weights(n: int) -> np.ndarray:
    """λ_1..λ_n of the paper's FDA for n releases: coef(k, m) of Alg. 4 for T = 2^m − 1 >= n, k <= n.

    Computed as the first n of :func:`dpverify.continual.fda.fda_weights` (T) -- the optimum of
    (5.10) at T, which Alg. 4 walks to (claim ``continual.fda.alg4``) -- so at n = 2^m − 1 they are
    the ``fda`` weights bit for bit.  O(T) <= O(2n + 1) time and memory.

    Example
    -------
    >>> bool(np.array_equal(fda_paper_weights(5), fda_weights(7)[:5]))
    True
    """
    n = check_n(n, per_node=72, what=f"fda_paper_weights(n={n})")
    return fda_weights(paper_bound(n))[:n].copy()  # proof: leading-block


def fda_paper_weights_at(t, n: int) -> np.ndarray:
    """λ_t of :func:`fda_paper_weights` for chosen 1-based t <= n, O(log n) each (Alg. 4's walk up).

    Example
    -------
    >>> bool(np.allclose(fda_paper_weights_at([1, 4, 5], 5), fda_paper_weights(5)[[0, 3, 4]], rtol=1e-14))
    True
    """
    n = check_n(n)
    t = check_times(t, "t").ravel()
    if t.size and (t.min() < 1 or t.max() > n):
        raise ValueError(f"t must be in [1, {n}], got values in [{t.min()}, {t.max()}]")
    return fda_weights_at(t, paper_bound(n))


def fda_paper_expected_mse(n: int, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of each release: Σ over the descent path of t of the node variances (eq. 5.8).

    ``2/(ε λ_i)²`` (Laplace) or ``2r/(1 − r)²``, r = e^{−ελ_i} (discrete); the weights of T, the
    releases 1..n (release t depends on nodes <= t only).

    Example
    -------
    >>> round(float(fda_paper_expected_mse(3, 1.0).sum()), 4)    # = fda's: 2 · err_2
    25.0839
    """
    n = check_n(n, per_node=96, what=f"fda_paper_expected_mse(n={n})")
    return descent_sums(node_variances(fda_paper_weights(n), epsilon, noise))


def fda_paper_strategy(n: int):
    """``(R, A) = (B_n Σ_n⁻¹, Σ_n M_n)`` with the paper's FDA weights (eq. 5.8, M_n of Alg. 5.2).

    Example
    -------
    >>> R, A = fda_paper_strategy(5)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((5, 5))))), bool(abs(A).sum(axis=0).max() <= 1)
    (True, True)
    """
    n = check_n(n, per_node=lambda k: 24 * k.bit_length() + 96, what=f"fda_paper_strategy(n={n})")
    return weighted_strategy(fda_paper_weights(n))


@proven("continual/fda_paper.md")
def fda_paper_sensitivity(n: int) -> Fraction:
    """‖Σ_n M_n‖₁ as the paper states it: the weights on count 1's upward path 1, 2, 4, …, 2^(m−1).

    That path is a whole leaf-to-root path of the tree of T (all its nodes are <= n), so in real
    arithmetic it sums to 1 − 10⁻¹² (the rounding guard) and is the largest column; returned as the
    exact rational sum of the binary64 weights the release uses (``continual/fda_paper.md``).

    Example
    -------
    >>> s = fda_paper_sensitivity(12)
    >>> s <= 1, abs(float(s) - (1 - 1e-12)) < 1e-15
    (True, True)
    """
    n = check_n(n)
    path = 1 << np.arange(n.bit_length(), dtype=np.int64)  # proof: column-one
    lam = _weights_fn(n)(path)
    return sum((Fraction(float(x)) for x in lam), Fraction(0))


def _weights_fn(n: int):
    """The release's λ(t) for 1-based t: precomputed up to _PRECOMPUTE releases, Alg. 4's walk beyond."""
    if n <= _PRECOMPUTE:
        lam = fda_paper_weights(n)
        return lambda t: lam[np.asarray(t) - 1]
    T = paper_bound(n)
    return lambda t: fda_weights_at(t, T)


def _release(a, epsilon, rng, noise):
    # input validated by dpverify.continual.release
    return _stream(a.size, epsilon, rng, noise).push_many(a)


def _stream(n, epsilon, rng, noise):
    # the one-block forest [(0, n)] is the Fenwick tree of n: release t adds its descent path (Alg. 5 lines 7-14)
    return ForestStream(n, epsilon, [(0, n)], _weights_fn(n), rng=rng, noise=noise)


register_method(
    ContinualMethod(
        name="fda-paper",
        description="the paper's FDA as printed: Alg. 5 with the bound T = 2^m - 1 >= n (Alg. 4's weights of T), "
                    "first n releases",
        expected_mse=fda_paper_expected_mse,
        strategy=fda_paper_strategy,
        release=_release,
        stream=_stream,
        online=True,
        reference="Cai, Wu, Wang 2016, Alg. 4/5; thesis chapter 5, eq. (5.8)/(5.10); any n: proof continual/fda_paper.md",
    )
)
