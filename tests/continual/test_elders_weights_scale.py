"""The closed-form tree solve of the total-MSE weights: agreement with the conic solve, the certificate, and its flips."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from dpverify.continual import expected_mse
from dpverify.continual.elders_tree import elders_best_branching, elders_strategy_parts
from dpverify.continual.tree_weights import certify_weights, elders_parents, tree_optimal_weights
from dpverify.continual.weights import dual_bound, optimal_weights


def _solve(n, k):
    R, A, offsets = elders_strategy_parts(n, k)
    return R, A, tree_optimal_weights(R, A, elders_parents(offsets, k))


@pytest.mark.parametrize("n,k", [(1, 2), (7, 2), (40, 3), (60, 5), (130, 4), (400, 19)])
def test_agrees_with_the_conic_solve(n, k):
    R, A, res = _solve(n, k)
    ref = optimal_weights(R, A, "total")
    assert res.certified and ref.certified
    assert abs(res.objective / ref.objective - 1) <= 1e-6
    # the conic d satisfies the same constraints: the tree's dual bound lies below its objective
    assert res.dual_bound <= ref.objective * (1 + 1e-12)


def test_feasibility_is_exact():
    n, k = 50, 3
    R, A, res = _solve(n, k)
    d = res.weights
    Ad = A.toarray()
    worst, worst_true = Fraction(0), Fraction(0)
    for s in range(n):  # count by count, summed as exact rationals
        rows = np.flatnonzero(Ad[:, s])
        col = sum((Fraction(float(d[v] * abs(Ad[v, s]))) for v in rows), Fraction(0))  # the stored products
        true = sum((Fraction(float(d[v])) * Fraction(float(abs(Ad[v, s]))) for v in rows), Fraction(0))
        worst, worst_true = max(worst, col), max(worst_true, true)
    assert worst <= 1 - Fraction(1, 2**40) and worst_true < 1
    assert res.max_column_l1 == float(worst)


def test_perturbed_primal_or_dual_fails_the_certificate():
    n, k = 200, 5
    R, A, res = _solve(n, k)
    mu = res.multipliers
    good = certify_weights(R, A, res.weights, mu)
    assert good.certified and good.objective == res.objective and good.dual_bound == res.dual_bound
    live = np.flatnonzero(np.isfinite(res.weights) & (res.weights > 0))
    d_low = res.weights.copy()
    d_low[live[0]] *= 0.99  # still feasible, no longer optimal: the gap exceeds 1e-6
    low = certify_weights(R, A, d_low, mu)
    assert low.max_column_l1 <= 1 and low.relative_gap > 1e-6 and not low.certified
    d_high = res.weights.copy()
    d_high[live] *= 1 + 2.0**-30  # over the budget by a hair: exact feasibility fails
    high = certify_weights(R, A, d_high, mu)
    assert high.max_column_l1 > 1 and not high.certified
    worse = certify_weights(R, A, res.weights, mu * 1.01)  # a perturbed dual: a weaker bound
    assert worse.dual_bound < res.dual_bound and not worse.certified
    assert dual_bound(R, A, np.zeros(n)) == 0.0


def test_not_a_tree_is_refused():
    R, A, offsets = elders_strategy_parts(30, 3)
    parent = elders_parents(offsets, 3)
    wrong = parent.copy()
    wrong[0] = parent[5]  # node 1 of level 0 hung under the wrong level-1 node
    with pytest.raises(ValueError, match="not a tree"):
        tree_optimal_weights(R, A, wrong)
    with pytest.raises(ValueError, match="one value"):
        tree_optimal_weights(R, A.multiply(sp.csr_matrix(np.linspace(1, 2, A.shape[1]))).tocsr(), parent)
    with pytest.raises(ValueError, match="parent"):
        tree_optimal_weights(R, A, parent[:-1])
    with pytest.raises(ValueError, match="tol"):
        tree_optimal_weights(R, A, parent, tol=2.0)


def test_inputs_not_mutated():
    R, A, offsets = elders_strategy_parts(25, 4)
    parent = elders_parents(offsets, 4)
    copies = (R.copy(), A.copy(), parent.copy())
    tree_optimal_weights(R, A, parent)
    assert (R != copies[0]).nnz == 0 and (A != copies[1]).nnz == 0 and np.array_equal(parent, copies[2])


def test_elders_total_weights_past_the_conic_limit():
    n = 9000
    k = elders_best_branching(n)
    opt = expected_mse(n, 1.0, "elders", weights="total")
    uni = expected_mse(n, 1.0, "elders")
    assert opt.sum() < uni.sum()
    from dpverify.continual.elders_weights import elders_node_factors

    assert elders_node_factors(n, k, "total")[2].certified
    with pytest.raises(ValueError, match="n must be <= 1048576"):
        expected_mse(2**20 + 1, 1.0, "elders", weights="total")


@pytest.mark.slow
@pytest.mark.parametrize("n", [2**16, 2**20])
def test_certified_at_scale(n):
    R, A, res = _solve(n, elders_best_branching(n))
    assert res.certified and res.relative_gap <= 1e-6 and res.max_column_l1 <= 1
