"""The generic interface over every registered factorization method (issue 6 item 5):
R·A = W, max column l1 of A <= 1, expected_mse = (2/ε²) diag(R Rᵀ); a broken strategy fails."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.continual import expected_mse, method_names, strategy
from dpverify.continual.methods import get_method

FACTORIZATIONS = [m for m in method_names() if get_method(m).strategy is not None]
OPTIONS = {
    "binary": [{}, {"levels": 12}],
    "honaker": [{}, {"branching": 3}, {"branching": 4, "weights": "optimized"}],
    "kary-fda": [{}, {"branching": 3}, {"branching": 5, "objective": "minimax"}],
}


def _check(n, meth, opts, eps=0.7):
    R, A = strategy(n, meth, **opts)
    R, A = R.toarray(), A.toarray()
    assert np.allclose(R @ A, np.tril(np.ones((n, n))), atol=1e-9)
    assert np.abs(A).sum(axis=0).max() <= 1 + 1e-12
    mse = expected_mse(n, eps, meth, **opts)
    assert np.allclose(mse, 2 / eps**2 * (R**2).sum(axis=1), rtol=1e-9)


def test_every_method_of_the_issue_is_registered():
    assert {"binary", "boost", "privelet", "honaker", "kary-fda", "naive", "fenwick", "fda"} <= set(FACTORIZATIONS)


@pytest.mark.parametrize("meth", FACTORIZATIONS)
@settings(max_examples=12)
@given(m=st.integers(0, 6), extra=st.integers(0, 40))
def test_factorization_contract(meth, m, extra):
    static = get_method(meth).leaves_power_of_two
    n = 2**m if static else 2**m + extra
    for opts in OPTIONS.get(meth, [{}]):
        _check(n, meth, opts)


def test_a_broken_strategy_fails_the_contract():
    """Scaling A up by 1 % (noise too small for ε) breaks the l1 bound; the check must notice."""
    R, A = strategy(20, "kary-fda", branching=3)
    A = (A * 1.01).toarray()
    assert np.abs(A).sum(axis=0).max() > 1
    R, A = strategy(16, "privelet")
    R2 = R.toarray().copy()
    R2[3, 0] += 1e-3  # a wrong recombination no longer reproduces W
    assert not np.allclose(R2 @ A.toarray(), np.tril(np.ones((16, 16))), atol=1e-9)
