"""The sparse LP (19)–(20): HiGHS, cvxpy/Clarabel and the closed form agree; certificates can fail."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.rr import optimal_utility, solve_lp
from dpverify.rr.lp import certify, ldp_lp


def _instances(seed, count, nmax=6):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, nmax + 1))
        pi = rng.dirichlet(np.full(n, rng.choice([0.3, 1.0, 4.0])))
        yield pi / pi.sum(), float(rng.uniform(0.05, 3)), float(rng.choice([0.0, rng.uniform(0, 0.8)]))


def test_three_answers_agree():
    for pi, e, d in _instances(0, 25):
        u = optimal_utility(pi, e, d)
        for solver in ("highs", "cvxpy"):
            sol = solve_lp(pi, e, d, solver=solver)
            assert abs(sol.u - u) < 1e-9, (pi, e, d, solver)
            assert sol.certificate.ok(1e-9)


def test_standard_definition_lp_has_the_same_optimum():
    for pi, e, d in _instances(1, 10, nmax=5):
        assert abs(solve_lp(pi, e, d, "standard").u - optimal_utility(pi, e, d)) < 1e-8


def test_certificate_catches_wrong_duals_and_primals():
    pi, e, d = [0.5, 0.3, 0.2], 1.0, 0.1
    sol = solve_lp(pi, e, d)
    c, A_ub, b_ub, A_eq, b_eq = ldp_lp(pi, e, d)
    x = sol.P.ravel()
    assert certify(c, A_ub, b_ub, A_eq, b_eq, x, sol.y_ub, sol.y_eq).ok(1e-9)
    y = sol.y_eq.copy()
    y[0] -= 1e-3  # dual infeasible
    assert not certify(c, A_ub, b_ub, A_eq, b_eq, x, sol.y_ub, y).ok(1e-9)
    x2 = x.copy()
    x2[0] += 1e-3  # breaks a row sum
    assert not certify(c, A_ub, b_ub, A_eq, b_eq, x2, sol.y_ub, sol.y_eq).ok(1e-9)
    # a feasible but suboptimal primal: uniform rows, certified against the optimal duals -> gap
    xu = np.full(9, 1 / 3)
    assert not certify(c, A_ub, b_ub, A_eq, b_eq, xu, sol.y_ub, sol.y_eq).ok(1e-9)


def test_lp_shapes_are_sparse():
    c, A_ub, b_ub, A_eq, b_eq = ldp_lp(np.full(30, 1 / 30), 1.0, 0.1)
    assert A_ub.shape == (30 * 30 * 29, 900) and A_ub.nnz == 2 * 30 * 30 * 29
    c, A_ub, b_ub, A_eq, b_eq = ldp_lp(np.full(4, 1 / 4), 1.0, 0.1, "standard")
    m = 4 * 4 * 3
    assert A_ub.shape == (m + 12, 16 + m)


@pytest.mark.parametrize(
    "args,match",
    [
        (([0.5, 0.5], 0.0), "epsilon"),
        (([0.5, 0.5], math.nan), "epsilon"),
        (([0.5, 0.5], 1.0, 1.0), "delta"),
        (([0.5, 0.6], 1.0), "pi"),
        (([1.0], 1.0), "pi"),
        (([0.5, 0.5], 1.0, 0.0, "sets"), "definition"),
    ],
)
def test_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        solve_lp(*args)


def test_rejects_unknown_solver():
    with pytest.raises(ValueError, match="solver"):
        solve_lp([0.5, 0.5], 1.0, solver="simplex")
