"""The n-ary closed form: exact dual certificates, LDP of every produced mechanism, caught perturbations."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpverify.audit import check_ldp
from dpverify.primitives import krr_matrix
from dpverify.rr import optimal_mechanism, optimal_support, optimal_utility, symbolic_optimum
from dpverify.rr import symbolic as sym
from dpverify.rr.nary import ExactOptimum, exact_optimum, verify_certificate_exact


@st.composite
def rational_instances(draw):
    n = draw(st.integers(2, 6))
    w = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    if sum(w) == 0:
        w[0] = 1
    pi = [Fraction(x, sum(w)) for x in w]
    E = Fraction(draw(st.integers(101, 800)), 100)
    d = Fraction(draw(st.integers(0, 99)), 100)
    return pi, E, d


@settings(max_examples=150)
@given(rational_instances())
def test_exact_certificate(inst):
    pi, E, d = inst
    opt = exact_optimum(pi, E, d)
    checks = verify_certificate_exact(pi, E, d, opt)
    assert all(checks.values()), checks
    # the mechanism is (ε, δ)-LDP exactly under both definitions (E rational: ε = log E)
    P = [list(r) for r in opt.P]
    assert check_ldp(P, sp.log(sp.Rational(E.numerator, E.denominator)), d, "standard", exact=True).holds


def test_certificate_rejects_suboptimal_or_infeasible():
    pi, E, d = [Fraction(1, 2), Fraction(3, 10), Fraction(1, 5)], Fraction(3), Fraction(1, 10)
    opt = exact_optimum(pi, E, d)
    # a feasible but suboptimal primal (uniform rows) with the optimal duals
    third = Fraction(1, 3)
    uni = ExactOptimum(tuple((third,) * 3 for _ in range(3)), third, opt.S, opt.mu, opt.lam)
    res = verify_certificate_exact(pi, E, d, uni)
    assert res["primal_feasible"] and not all(res.values())
    # duals that are too small are dual infeasible
    low = ExactOptimum(opt.P, opt.u, opt.S, tuple(m / 2 for m in opt.mu), opt.lam)
    assert not verify_certificate_exact(pi, E, d, low)["dual_feasible"]
    # the identity is not LDP
    ident = tuple(tuple(Fraction(int(i == j)) for j in range(3)) for i in range(3))
    assert not verify_certificate_exact(pi, E, d, ExactOptimum(ident, Fraction(1), opt.S, opt.mu, opt.lam))["primal_feasible"]


def test_binary_case_equals_symbolic_optimum():
    f0 = sp.lambdify((sym.eps, sym.pi0), symbolic_optimum(0), "math")
    f1 = sp.lambdify((sym.eps, sym.delta, sym.pi0), symbolic_optimum(), "math")
    for e in (0.05, 0.4, 1.5):
        for d in (0.0, 0.1, 0.6):
            for p in np.linspace(0, 1, 17):
                u = f0(e, p) if d == 0 else f1(e, d, p)
                assert abs(optimal_utility([p, 1 - p], e, d) - u) < 1e-14


def test_uniform_prior_gives_krr():
    for n in (2, 3, 6):
        for e in (0.3, 2.0):
            P, u = optimal_mechanism(np.full(n, 1 / n), e)
            S, _ = optimal_support(np.full(n, 1 / n), e)
            if S.size == n:
                assert np.allclose(P, krr_matrix(n, e), atol=1e-15)


@settings(max_examples=60)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=2, max_size=8).filter(lambda w: sum(w) > 0.01),
    st.floats(0.01, 5.0),
    st.floats(0.0, 0.95),
)
def test_produced_mechanisms_are_ldp_and_perturbations_are_caught(w, eps, delta):
    pi = np.array(w) / sum(w)
    P, u = optimal_mechanism(pi, eps, delta)
    assert abs(u - optimal_utility(pi, eps, delta)) < 1e-14
    for definition in ("standard", "per_output"):
        assert check_ldp(P, eps, delta, definition, atol=1e-12).holds  # solver output: rounding allowed
    # any move of mass onto a diagonal entry with π_i > 0 raises u, so (P being optimal) it must break LDP
    moves = [(i, j) for i in range(pi.size) for j in range(pi.size) if i != j and pi[i] > 1e-6 and P[i, j] > 1e-3]
    assume(moves)
    i, j = moves[0]
    Q = P.copy()
    Q[i, i] += 1e-4
    Q[i, j] -= 1e-4
    assert pi @ np.diag(Q) > u
    assert not check_ldp(Q, eps, delta, "per_output").holds


def test_worked_example_and_validation():
    P, u = optimal_mechanism([0.2, 0.8], 0.1, 0.15)
    assert np.allclose(P, [[0.15, 0.85], [0.0, 1.0]]) and abs(u - 0.83) < 1e-12
    with pytest.raises(ValueError, match="pi"):
        optimal_mechanism([1.0], 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        optimal_mechanism([0.5, 0.5], -1.0)
    with pytest.raises(ValueError, match="delta"):
        optimal_mechanism([0.5, 0.5], 1.0, 1.0)
    with pytest.raises(ValueError, match="pi"):
        optimal_mechanism([0.5, math.nan], 1.0)
    with pytest.raises(ValueError, match="E = e"):
        exact_optimum([Fraction(1, 2)] * 2, 1)
    pi = np.array([0.1, 0.9])
    optimal_mechanism(pi, 1.0)
    assert pi.tolist() == [0.1, 0.9]


def test_extreme_points_binary():
    """The extreme-point method (seed 003, §4): the binary vertices are the four/eight of Figs. 1 and 5."""
    from dpverify.rr.nary import extreme_points

    assert len(extreme_points(2, 0.5)) == 4 and len(extreme_points(2, 0.5, 0.2)) == 8
    rng = np.random.default_rng(13)
    for d in (0.0, 0.3):
        V = extreme_points(2, 0.7, d)
        for _ in range(20):
            pi = rng.dirichlet(np.ones(2))
            assert abs((V[:, [0, 1], [0, 1]] @ pi).max() - optimal_utility(pi, 0.7, d)) < 1e-12
    with pytest.raises(ValueError, match="n must be 2 or 3"):
        extreme_points(4, 1.0)


@pytest.mark.slow
def test_extreme_points_ternary():
    from dpverify.rr.nary import extreme_points

    rng = np.random.default_rng(14)
    for d in (0.0, 0.15):
        V = extreme_points(3, 0.8, d)
        for _ in range(30):
            pi = rng.dirichlet(np.ones(3))
            assert abs((V[:, [0, 1, 2], [0, 1, 2]] @ pi).max() - optimal_utility(pi, 0.8, d)) < 1e-9
