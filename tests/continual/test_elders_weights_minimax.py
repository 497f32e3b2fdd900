"""The minimax tree solve (dual ascent over release weights): agreement with the conic solve, the certificate, flips."""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.continual import expected_mse
from dpverify.continual.elders_tree import elders_best_branching, elders_strategy_parts
from dpverify.continual.tree_minimax import tree_minimax_weights
from dpverify.continual.tree_weights import certify_weights, elders_parents, tree_parts, tree_total_at
from dpverify.continual.weights import dual_bound, optimal_weights


def _solve(n, k, **kw):
    R, A, offsets = elders_strategy_parts(n, k)
    return R, A, tree_minimax_weights(R, A, elders_parents(offsets, k), **kw)


def _max_var(R, d):
    B2 = R.multiply(R).tocsr()
    x = np.zeros(d.size)
    on = np.isfinite(d) & (d > 0)
    x[on] = 1.0 / d[on] ** 2
    return float((B2 @ x).max())


@pytest.mark.parametrize("n,k", [(1, 2), (7, 2), (40, 3), (60, 5), (130, 4), (400, 19)])
def test_agrees_with_the_conic_solve(n, k):
    R, A, res = _solve(n, k)
    ref = optimal_weights(R, A, "minimax")
    assert res.certified and ref.certified and res.kind == "minimax"
    # each solver's feasible point lies above the other's dual bound: the two optima agree within the gaps
    assert res.dual_bound <= ref.objective * (1 + 1e-12) and ref.dual_bound <= res.objective * (1 + 1e-12)
    assert abs(res.objective / ref.objective - 1) <= 1e-6


def test_objective_is_the_largest_release_variance_of_feasible_weights():
    n, k = 90, 4
    R, A, res = _solve(n, k)
    assert res.objective == _max_var(R, res.weights)
    col = np.asarray((abs(A).T @ np.where(np.isfinite(res.weights), res.weights, 0.0))).ravel()
    assert col.max() <= 1.0 and res.max_column_l1 <= 1 - 2.0**-40
    # the minimax optimum lowers the largest release's MSE below the total optimum's, and below uniform weights
    worst = expected_mse(n, 1.0, "elders", branching=k, weights="minimax").max()
    assert worst < expected_mse(n, 1.0, "elders", branching=k, weights="total").max()
    assert worst < expected_mse(n, 1.0, "elders", branching=k).max()


def test_the_bound_is_weak_duality_at_any_release_weights():
    n, k = 60, 5
    R, A, res = _solve(n, k)
    parts = tree_parts(R, A, elders_parents(elders_strategy_parts(n, k)[2], k))
    rng = np.random.default_rng(3)
    for _ in range(10):  # any λ, with the μ of its own total problem, bounds the minimax optimum from below
        lam = rng.random(n) ** 4
        lam /= lam.sum()
        _, _, mu = tree_total_at(parts, parts["B2"].T @ lam)
        assert dual_bound(R, A, mu, lam) <= res.objective * (1 + 1e-12)


def test_perturbed_primal_or_dual_fails_the_certificate():
    n, k = 200, 5
    R, A, res = _solve(n, k)
    assert res.certified and res.relative_gap <= 1e-6
    live = np.flatnonzero(np.isfinite(res.weights) & (res.weights > 0))
    d_low = res.weights.copy()
    d_low[live[::7]] *= 0.99  # still feasible, no longer optimal: the largest variance rises past the gap
    assert _max_var(R, d_low) > res.dual_bound * (1 + 1e-6)
    d_high = res.weights.copy()
    d_high[live] *= 1 + 2.0**-30  # over the budget by a hair: exact feasibility fails
    assert certify_weights(R, A, d_high, res.multipliers).max_column_l1 > 1
    lam = np.full(n, 1.0 / n)  # a bound at other release weights (uniform: the total program) is weaker
    assert dual_bound(R, A, res.multipliers, lam) < res.dual_bound * (1 - 1e-6)


def test_inputs_checked_and_not_mutated():
    R, A, offsets = elders_strategy_parts(25, 4)
    parent = elders_parents(offsets, 4)
    copies = (R.copy(), A.copy(), parent.copy())
    tree_minimax_weights(R, A, parent)
    assert (R != copies[0]).nnz == 0 and (A != copies[1]).nnz == 0 and np.array_equal(parent, copies[2])
    for kw, match in [({"tol": 2.0}, "tol"), ({"candidates": 0}, "candidates"), ({"rounds": 0}, "rounds"),
                      ({"warm": -1}, "warm")]:
        with pytest.raises(ValueError, match=match):
            tree_minimax_weights(R, A, parent, **kw)
    wrong = parent.copy()
    wrong[0] = parent[5]
    with pytest.raises(ValueError, match="not a tree"):
        tree_minimax_weights(R, A, wrong)


def test_elders_minimax_weights_past_the_conic_limit():
    n = 9000
    k = elders_best_branching(n)
    opt = expected_mse(n, 1.0, "elders", weights="minimax")
    uni = expected_mse(n, 1.0, "elders")
    assert opt.max() < uni.max()
    from dpverify.continual.elders_weights import elders_node_factors

    res = elders_node_factors(n, k, "minimax")[2]
    assert res.certified and res.kind == "minimax"
    with pytest.raises(ValueError, match="n must be <= 65536"):
        expected_mse(2**16 + 1, 1.0, "elders", weights="minimax")


def test_uncertified_weights_are_refused(monkeypatch):
    from dpverify.continual import elders_weights, tree_minimax

    real = tree_minimax.tree_minimax_weights
    monkeypatch.setattr(tree_minimax, "tree_minimax_weights", lambda R, A, parent: real(R, A, parent, rounds=1, warm=1,
                                                                                          tol=1e-15))
    elders_weights._node_factors_large.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="not certified"):
            elders_weights.elders_node_factors(8200, 3, "minimax")
    finally:
        elders_weights._node_factors_large.cache_clear()


@pytest.mark.slow
def test_certified_at_2_16():
    n = 2**16
    R, A, res = _solve(n, elders_best_branching(n))
    assert res.certified and res.relative_gap <= 1e-6 and res.max_column_l1 <= 1


@pytest.mark.slow
def test_sound_but_not_yet_tight_at_2_20():
    n = 2**20  # the dual converges (730.2458268 in units of 2/eps^2); the primal recovery does not reach 1e-6
    R, A, res = _solve(n, elders_best_branching(n), rounds=4)
    assert res.max_column_l1 <= 1 and 0 < res.dual_bound <= res.objective
