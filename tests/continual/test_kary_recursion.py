"""The k-ary Fenwick tree: structure, the optimal diagonal for any n and k, the minimax variant.

Cross-checks: k = 2 against the FDA module (another implementation), the
recursion's optimum against Σ c_i/λ_i² and against cvxpy, minimax against cvxpy.
"""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.continual.fda import fda_optimum, fda_weights
from dpverify.continual.kary import (
    best_branching,
    kary_column_sq_norms,
    kary_errors,
    kary_expected_mse,
    kary_levels,
    kary_minimax_value,
    kary_optimum,
    kary_path_sums,
    kary_recombination,
    kary_strategy_matrix,
    kary_weights,
)


def _W(n):
    return np.tril(np.ones((n, n)))


@pytest.mark.parametrize("n", list(range(1, 70)) + [255, 256, 1000, 4095])
def test_binary_case_is_fda(n):
    assert np.allclose(kary_weights(n, 2), fda_weights(n), rtol=1e-10, atol=0)
    assert kary_optimum(n, 2) == pytest.approx(fda_optimum(n), rel=1e-12)


@settings(max_examples=60)
@given(n=st.integers(1, 150), k=st.integers(2, 9))
def test_structure_and_weights(n, k):
    M = kary_strategy_matrix(n, k).toarray()
    B = kary_recombination(n, k).toarray()
    assert np.array_equal(B @ M, _W(n))
    assert np.allclose((B**2).sum(axis=0), kary_column_sq_norms(n, k))
    # column l1 norm of the unweighted M is the level count (the k-ary Thm 5.1)
    assert M.sum(axis=0).max() == kary_levels(n, k)
    for obj in ("total", "minimax"):
        lam = kary_weights(n, k, obj)
        assert (lam > 0).all()
        assert (M.T @ lam).max() <= 1.0  # ε-DP with Lap(1/ε) on ΣMa
    lam = kary_weights(n, k)
    f = float(kary_column_sq_norms(n, k) @ (1 / lam**2))
    assert f == pytest.approx(kary_optimum(n, k), rel=1e-9)
    assert kary_expected_mse(n, 2.0, branching=k).sum() == pytest.approx(f * 2 / 4.0, rel=1e-9)
    assert np.allclose(kary_path_sums(np.arange(n, dtype=float), k), B @ np.arange(n))


@settings(max_examples=40)
@given(n=st.integers(1, 120), k=st.integers(2, 7))
def test_minimax_value_is_the_largest_release(n, k):
    B = kary_recombination(n, k)
    lm = kary_weights(n, k, "minimax")
    per = B @ (1 / lm**2)
    assert per.max() == pytest.approx(kary_minimax_value(n, k), rel=1e-9)
    # and it is no worse than the largest release of the total-optimal weights, whose total is smaller
    lt = kary_weights(n, k)
    assert per.max() <= (B @ (1 / lt**2)).max() * (1 + 1e-9)
    assert (B @ (1 / lt**2)).sum() <= per.sum() * (1 + 1e-9)


def test_full_recursion_closed_form():
    """E_j for n = k^j − 1 is the optimum of the general-n block recursion at those n."""
    for k in (2, 3, 5):
        E = kary_errors(4, k)
        for j in range(5):
            assert kary_optimum(k**j - 1, k) == pytest.approx(E[j], rel=1e-12) if j else E[0] == 0


@pytest.mark.parametrize("n,k", [(8, 3), (26, 3), (30, 4), (63, 4), (45, 5), (37, 2)])
def test_total_optimum_matches_cvxpy(n, k):
    M = kary_strategy_matrix(n, k)
    c = kary_column_sq_norms(n, k)
    lam = cp.Variable(n, pos=True)
    prob = cp.Problem(cp.Minimize(c @ cp.power(lam, -2)), [M.T @ lam <= 1])
    prob.solve(solver=cp.CLARABEL)
    assert prob.value == pytest.approx(kary_optimum(n, k), rel=1e-6)
    assert np.allclose(lam.value, kary_weights(n, k), rtol=1e-3)


@pytest.mark.parametrize("n,k", [(10, 3), (26, 3), (31, 2), (40, 4)])
def test_minimax_matches_cvxpy(n, k):
    M = kary_strategy_matrix(n, k)
    B = kary_recombination(n, k)
    lam = cp.Variable(n, pos=True)
    prob = cp.Problem(cp.Minimize(cp.max(B @ cp.power(lam, -2))), [M.T @ lam <= 1])
    prob.solve(solver=cp.CLARABEL)
    assert prob.value == pytest.approx(kary_minimax_value(n, k), rel=1e-6)


def test_a_wrong_recursion_is_caught(monkeypatch):
    """The optimum check can fail: a wrong E_j (here 1.3 E_j) gives weights whose objective is
    measurably above the recursion's optimum, which cvxpy confirms."""
    import dpverify.continual.kary_optimum as K

    n, k = 26, 3
    good = kary_optimum(n, k)
    real = K._errors.__wrapped__
    K._full_total.cache_clear()
    monkeypatch.setattr(K, "_errors", lambda kk, L: tuple(1.3 * e for e in real(kk, L)))
    lam = K._assemble_total(n, k)
    monkeypatch.undo()
    K._full_total.cache_clear()
    f = float(kary_column_sq_norms(n, k) @ (1 / lam**2))
    assert (kary_strategy_matrix(n, k).T @ lam).max() <= 1 + 1e-12
    assert f > good * (1 + 1e-4)


def test_best_branching_is_argmin():
    n = 4095
    k = best_branching(n)
    vals = {j: kary_optimum(n, j) for j in range(2, 65)}
    assert vals[k] == min(vals.values())
    assert k == 16  # what the exact totals say for 4095 = 16^3 − 1


@pytest.mark.parametrize("bad", [0, 1, -3, 2.0, True, "3"])
def test_bad_branching(bad):
    with pytest.raises((ValueError, TypeError), match="branching"):
        kary_weights(10, bad)


def test_bad_objective_and_n():
    with pytest.raises(ValueError, match="objective"):
        kary_weights(10, 2, "median")
    with pytest.raises((ValueError, TypeError), match="n"):
        kary_weights(0, 2)
