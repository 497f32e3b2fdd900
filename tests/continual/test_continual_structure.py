"""Fenwick structure: lowbit, M, B, the O(n) operators and Theorems 5.1/5.2 (seed 000 §5.3)."""

import numpy as np
import pytest
import scipy.sparse as sp

from dpverify.continual import fenwick_recombination, fenwick_strategy, lowbit
from dpverify.continual.fenwick import (
    column_sq_norms,
    descent_sums,
    fenwick_roots,
    fenwick_sensitivity,
    node_sums,
    popcount,
    strategy_column_sums,
)


def _loops(n):
    """M and B straight from the (corrected) text of Alg. 5.2 and 5.3."""
    M = np.zeros((n, n), dtype=int)
    B = np.zeros((n, n), dtype=int)
    for p in range(1, n + 1):
        pt = p
        while pt <= n:
            M[pt - 1, p - 1] = 1
            pt += pt & -pt
        pt = p
        while pt > 0:
            B[p - 1, pt - 1] = 1
            pt -= pt & -pt
    return M, B


@pytest.mark.parametrize("n", list(range(1, 70)) + [127, 128, 129, 255, 300])
def test_matrices_match_algorithms_and_factor_w(n):
    M, B = _loops(n)
    Ms, Bs = fenwick_strategy(n), fenwick_recombination(n)
    assert sp.isspmatrix_csr(Ms) and sp.isspmatrix_csr(Bs)
    assert np.array_equal(Ms.toarray(), M) and np.array_equal(Bs.toarray(), B)
    assert np.array_equal((Bs @ Ms).toarray(), np.tril(np.ones((n, n))))


def test_sizes_are_n_log_n():
    n = 5000
    i = np.arange(1, n + 1)
    assert fenwick_strategy(n).nnz == int((i & -i).sum())
    assert fenwick_recombination(n).nnz == int(popcount(i).sum())
    assert fenwick_strategy(n).nnz <= n * (n.bit_length() + 1)


@pytest.mark.parametrize("n", [1, 2, 3, 17, 64, 1000, 4097])
def test_fast_operators_equal_matrix_products(n):
    rng = np.random.default_rng(n)
    M, B = fenwick_strategy(n), fenwick_recombination(n)
    a = rng.integers(0, 50, size=n)
    x = rng.normal(size=n)
    lam = rng.random(n) + 0.1
    assert np.array_equal(node_sums(a), M @ a)
    assert np.allclose(descent_sums(x), B @ x)
    assert np.array_equal(descent_sums(node_sums(a)), np.cumsum(a))  # W = B M, exactly in integers
    assert np.allclose(strategy_column_sums(lam), M.T @ lam)
    assert np.array_equal(column_sq_norms(n), np.asarray(B.multiply(B).sum(axis=0)).ravel())


def test_operators_on_a_long_stream():
    a = np.random.default_rng(1).integers(0, 3, size=1_000_003)
    assert np.array_equal(descent_sums(node_sums(a)), np.cumsum(a))


def test_lowbit_and_popcount():
    assert [lowbit(x) for x in (1, 2, 3, 10, 12, 1024)] == [1, 2, 1, 2, 4, 1024]
    assert lowbit(np.array([5, 6, 8])).tolist() == [1, 2, 8]
    assert popcount(np.arange(8)).tolist() == [0, 1, 1, 2, 1, 2, 2, 3]
    for bad in (0, -3):
        with pytest.raises(ValueError, match="x"):
            lowbit(bad)
    with pytest.raises(TypeError):
        lowbit(np.array([1.5]))


def test_theorem_5_1_every_n_up_to_4096_directly():
    for n in range(1, 4097):
        u = strategy_column_sums(np.ones(n))
        assert u.max() == u[0] == n.bit_length()
    assert fenwick_sensitivity(2**20 - 1) == 20


def test_theorem_5_2_rows_popcount():
    B = fenwick_recombination(2**13)
    assert np.array_equal(np.diff(B.indptr), popcount(np.arange(1, 2**13 + 1)))


def test_roots_partition_the_prefix():
    for n in range(1, 300):
        r = fenwick_roots(n)
        spans = r & -r
        assert spans.sum() == n and r[-1] == n


@pytest.mark.parametrize("bad", [0, -1, 2.0, True, "3", None])
def test_bad_n(bad):
    for f in (fenwick_strategy, fenwick_recombination, column_sq_norms, fenwick_roots):
        with pytest.raises((ValueError, TypeError), match="n"):
            f(bad)


def test_inputs_not_mutated():
    a = np.array([3, 1, 4, 1, 5])
    keep = a.copy()
    node_sums(a)
    x = np.array([1.0, 2.0, 3.0])
    descent_sums(x)
    assert np.array_equal(a, keep) and x.tolist() == [1.0, 2.0, 3.0]
