"""FDA release (thesis chapter 5, §5.4; Cai, Wu, Wang 2016, §4-5): the optimal diagonal weights on a forest of complete
Fenwick blocks (sizes 2^m - 1), released exactly in chunks or online.

The weights are :mod:`dpverify.continual.fda_optimal` and their independent certificates
:mod:`dpverify.continual.fda_certify` (both re-exported here); this module holds the method:
exact MSE, strategy, batch release and stream, registered as ``"fda"``.

Example
-------
>>> from dpverify.continual.fda import fda_weights
>>> fda_weights(3).round(4).tolist()
[0.4425, 0.5575, 1.0]
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_counts
from dpverify.continual.checks import check_n
from dpverify.continual.fda_certify import kkt_certificate, solve_diagonal_cvxpy  # noqa: F401
from dpverify.continual.fda_optimal import (  # noqa: F401  (public names, also importable from here)
    coef,
    fda_errors,
    fda_forest_optimum,
    fda_forest_weights,
    fda_forest_weights_at,
    fda_level_shares,
    fda_optimum,
    fda_weights,
    fda_weights_at,
)
from dpverify.continual.fenwick import node_variances, weighted_strategy
from dpverify.continual.fenwick_tree import fenwick_recombination, fenwick_strategy
from dpverify.continual.forest import ForestStream, complete_blocks, forest_descent_sums
from dpverify.continual.fda_runs import FdaRunWeights
from dpverify.continual.methods import ContinualMethod, register_method

__all__ = [
    "fda_errors",
    "fda_level_shares",
    "fda_weights",
    "fda_weights_at",
    "fda_optimum",
    "fda_forest_weights",
    "fda_forest_optimum",
    "fda_forest_weights_at",
    "fda_expected_mse",
    "fda_release",
    "fda_strategy",
    "fda_forest_strategy",
    "coef",
    "solve_diagonal_cvxpy",
    "kkt_certificate",
]


def fda_expected_mse(n: int, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of each FDA release (forest of complete blocks): ``Σ_{nodes on its path} var_i``.

    ``var_i = 2/(ε λ_i)²`` (Laplace) or ``2r/(1-r)², r = e^{-ελ_i}`` (discrete).

    Example
    -------
    >>> round(float(fda_expected_mse(3, 1.0).sum()), 4)   # 2 · fda_optimum(3)
    25.0839
    """
    from dpverify.continual.forest import complete_blocks, forest_descent_sums

    n = check_n(n, per_node=48, what=f"fda_expected_mse(n={n})")
    return forest_descent_sums(node_variances(fda_forest_weights(n), epsilon, noise), complete_blocks(n))


def fda_strategy(n: int):
    """``(R, A) = (B Σ⁻¹, Σ M)`` with :func:`fda_weights` on the Fenwick forest of n (problem 5.10).

    The ``fda`` method releases with :func:`fda_forest_strategy` instead (no spike at n = 2^m).

    Example
    -------
    >>> R, A = fda_strategy(5)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((5, 5))))), bool(abs(A).sum(axis=0).max() <= 1)
    (True, True)
    """
    n = check_n(n, per_node=lambda k: 24 * k.bit_length() + 64, what=f"fda_strategy(n={n})")
    return weighted_strategy(fda_weights(n))


def fda_forest_strategy(n: int):
    """``(R, A)``: A = Σ M of the forest of complete blocks, R @ A = W (lower-triangular ones), sparse.

    Example
    -------
    >>> R, A = fda_forest_strategy(8)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((8, 8))))), bool(abs(A).sum(axis=0).max() <= 1)
    (True, True)
    """
    import scipy.sparse as sp

    from dpverify.continual.forest import complete_blocks

    n = check_n(n, per_node=lambda k: 12 * k.bit_length() ** 2 + 64, what=f"fda_forest_strategy(n={n})")
    lam = fda_forest_weights(n)
    blocks = complete_blocks(n)
    M = sp.block_diag([fenwick_strategy(s) for _, s in blocks], format="csr")
    B = sp.block_diag([fenwick_recombination(s) for _, s in blocks], format="lil")
    B = B.tocsr()
    # release t also adds the roots of every earlier block (their descent path from the block's end)
    rows, cols = [], []
    for (o, s), (o2, s2) in ((b1, b2) for i2, b2 in enumerate(blocks) for b1 in blocks[:i2]):
        roots = o + np.flatnonzero(B[o + s - 1].toarray().ravel()[o : o + s])
        tt = np.arange(o2, o2 + s2)
        rows.append(np.repeat(tt, roots.size))
        cols.append(np.tile(roots, tt.size))
    if rows:
        extra = sp.csr_matrix((np.ones(sum(r.size for r in rows)), (np.concatenate(rows), np.concatenate(cols))),
                              shape=(n, n))
        B = (B + extra).tocsr()
    return (B @ sp.diags(1.0 / lam)).tocsr(), (sp.diags(lam) @ M).tocsr()


def fda_release(counts, epsilon: float, rng=None, noise: str = "discrete") -> np.ndarray:
    """Batch FDA release of all running totals (forest of complete blocks), exact node arithmetic.

    Example
    -------
    >>> fda_release([1, 2, 3], 1e9, rng=0, noise="discrete").tolist()
    [1, 3, 6]
    """
    a = check_counts(counts, "counts", nonempty=True)
    return _fda_release(a, epsilon, rng, noise)


def _fda_release(a, epsilon, rng, noise):
    # input validated by dpverify.continual.release (or fda_release)
    return _fda_stream(a.size, epsilon, rng, noise).push_many(a)


def _fda_stream(n, epsilon, rng, noise):
    if n <= _PRECOMPUTE:  # all λ in O(n) once (at most 8 MB)
        lam = fda_forest_weights(n)
        return ForestStream(n, epsilon, complete_blocks(n), lambda t: lam[t - 1], rng=rng, noise=noise)
    # beyond: each run of nodes from per-level share tables, O(1) a node, the same floats as
    # fda_forest_weights_at (bit for bit, see dpverify.continual.fda_runs)
    return ForestStream(n, epsilon, complete_blocks(n), FdaRunWeights(n), rng=rng, noise=noise)


_PRECOMPUTE = 1 << 20


register_method(
    ContinualMethod(
        name="fda",
        description="FDA: optimal diagonal weights on a forest of complete Fenwick blocks (2^m - 1 each), any n",
        expected_mse=fda_expected_mse,
        strategy=fda_forest_strategy,
        release=_fda_release,
        stream=_fda_stream,
        online=True,
        reference="thesis chapter 5, §5.4 Thm 5.4; Cai, Wu, Wang 2016, Alg. 4/5; any n: proof continual/fda_any_n.md",
    )
)
