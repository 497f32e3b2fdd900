"""Above n = 1024 the Boost, Privelet and Honaker strategies return R as a LinearOperator (no dense n × n).

The operator must be the same linear map as the explicit matrix (checked at the boundary by
lowering the limit) and must satisfy R A = W (checked on random probe vectors at n = 4096,
where the dense R would hold 16.8 million entries).  Deterministic (seeded probes).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator

from dpverify.continual import baselines as bl


@pytest.mark.parametrize("f", [bl.boost_strategy, bl.privelet_strategy])
def test_operator_equals_matrix_at_the_boundary(f, monkeypatch):
    R, A = f(1024)
    monkeypatch.setattr(sys.modules[f.__module__], "DENSE_LIMIT", 512)  # the family module reads it
    Ro, Ao = f(1024)
    assert isinstance(Ro, LinearOperator) and not isinstance(R, LinearOperator)
    assert (A != Ao).nnz == 0
    Y = np.random.default_rng(0).normal(size=(A.shape[0], 3))
    for y in Y.T:
        np.testing.assert_allclose(Ro @ y, R @ y, rtol=0, atol=1e-9 * np.abs(R @ y).max())


@pytest.mark.parametrize("f", [bl.boost_strategy, bl.privelet_strategy])
def test_large_n_factorisation_by_probes(f):
    n = 4096
    R, A = f(n)
    assert isinstance(R, LinearOperator) and R.shape == (n, A.shape[0])
    X = np.random.default_rng(1).normal(size=(n, 3))
    for x in X.T:
        w = np.cumsum(x)
        np.testing.assert_allclose(R @ (A @ x), w, rtol=0, atol=1e-10 * np.abs(w).max())


@pytest.mark.parametrize("k, weights", [(2, "uniform"), (3, "optimized"), (4, "uniform")])
def test_honaker_operator_equals_matrix_at_the_boundary(k, weights, monkeypatch):
    n = 1000
    R, A = bl.honaker_strategy(n, branching=k, weights=weights)
    monkeypatch.setattr(sys.modules[bl.honaker_strategy.__module__], "DENSE_LIMIT", 100)
    Ro, Ao = bl.honaker_strategy(n, branching=k, weights=weights)
    assert isinstance(Ro, LinearOperator) and (A != Ao).nnz == 0
    for y in np.random.default_rng(2).normal(size=(3, A.shape[0])):
        np.testing.assert_allclose(Ro @ y, R @ y, rtol=0, atol=1e-9 * np.abs(R @ y).max())


def test_honaker_large_n_factorisation_by_probes():
    n = 5000
    R, A = bl.honaker_strategy(n, branching=3)
    assert isinstance(R, LinearOperator)
    for x in np.random.default_rng(3).normal(size=(3, n)):
        w = np.cumsum(x)
        np.testing.assert_allclose(R @ (A @ x), w, rtol=0, atol=1e-10 * np.abs(w).max())
