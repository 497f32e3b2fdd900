"""dpverify.toolkit: each helper reaches every verdict it can return, and rejects bad input."""

from fractions import Fraction as F

import numpy as np
import pytest
import sympy as sp

from dpverify.claims import Verdict
from dpverify.toolkit import (
    audit_epsilon,
    check_equal,
    derive_and_compare,
    exact_lp_certificate,
    finite_mechanism_privacy,
    lp_optimum,
    lp_residuals,
    qp_optimum,
    simulate_against,
    symbolic_equal,
)


def test_symbolic_equal_proves_refutes_and_uses_assumptions():
    x = sp.Symbol("x", positive=True)
    y = sp.Symbol("y", real=True)
    assert symbolic_equal(sp.log(sp.exp(x)), x).equal is True
    r = symbolic_equal(sp.Abs(y), y)
    assert r.equal is False and sp.Rational(r.counterexample["point"]["y"]) < 0
    assert symbolic_equal(sp.Abs(y), y, assumptions=[y > 0]).equal is True
    # the relation restricts the counterexample search too: |y| = −y fails only for y > 0
    r = symbolic_equal(sp.Abs(y), -y, assumptions=y > 0)
    assert r.equal is False and sp.Rational(r.counterexample["point"]["y"]) > 0


def test_check_equal_and_derive_and_compare():
    n = sp.Symbol("n", positive=True, integer=True)
    k = sp.Symbol("k", integer=True)
    geometric = sp.summation(2**k, (k, 0, n - 1))
    assert check_equal(geometric, 2**n - 1).verdict is Verdict.HOLDS
    out = check_equal(geometric, 2**n)
    assert out.verdict is Verdict.REFUTED and out.summary
    out = derive_and_compare(geometric, 2**n + 1, what="eq. (3)")
    assert out.verdict is Verdict.ERRATUM and out.evidence["corrected"] == geometric
    assert "eq. (3)" in out.summary
    assert derive_and_compare(geometric, 2**n - 1).verdict is Verdict.HOLDS


def test_lp_optimum_exact_and_certified():
    # max 3a + 2b s.t. a + b <= 4, a + 3b <= 6, a <= 3: optimum 11 at (3, 1)
    opt = lp_optimum([3, 2], A_ub=[[1, 1], [1, 3], [1, 0]], b_ub=[4, 6, 3], maximize=True)
    assert opt.exact and opt.value == 11 and opt.x == (3, 1)
    assert all(exact_lp_certificate([3, 2], [[1, 1], [1, 3], [1, 0]], [4, 6, 3], {}, [], opt.x, opt.y_ub, []).values())
    # the same as a minimisation, with an equality row: min x + y s.t. x + 2y = 3/2 → 3/4 at (0, 3/4)
    opt = lp_optimum([1, 1], A_eq=[[1, 2]], b_eq=[F(3, 2)])
    assert opt.exact and opt.value == F(3, 4)
    # an irrational optimum cannot verify in small rationals: certified by the float residuals instead
    opt = lp_optimum([1.0, 1.0], A_ub=[[1.0, 1.0]], b_ub=[np.sqrt(2.0)], maximize=True, max_denominator=10)
    assert not opt.exact and opt.certified and abs(opt.value - np.sqrt(2.0)) < 1e-9
    ev = opt.evidence()
    assert set(ev["residuals"]) == {"primal_infeasibility", "dual_infeasibility", "complementary_slackness", "duality_gap"}


def test_lp_certificate_catches_a_wrong_pair_and_bad_input():
    A, b, c = [[1, 1]], [1], [1, 2]
    good = exact_lp_certificate(c, A, b, {}, [], [0, 1], [2], [])
    assert all(good.values())
    assert not exact_lp_certificate(c, A, b, {}, [], [1, 0], [2], [])["zero_gap"]  # suboptimal primal
    assert not exact_lp_certificate(c, A, b, {}, [], [0, 2], [2], [])["primal_feasible"]
    assert not exact_lp_certificate(c, A, b, {}, [], [0, 1], [F(3, 2)], [])["dual_feasible"]
    with pytest.raises(ValueError, match="dimensions"):
        exact_lp_certificate(c, A, b, {}, [], [0, 1, 2], [2], [])
    with pytest.raises(ValueError, match="no optimum"):
        lp_optimum([1, 1], A_ub=[[-1, -1]], b_ub=[-1], maximize=True)  # unbounded
    with pytest.raises(ValueError, match="finite"):
        lp_optimum([np.nan, 1])
    with pytest.raises(ValueError, match="A_ub with b_ub"):
        lp_optimum([1, 1], A_ub=[[1, 1]])


def test_rr_certificates_use_the_toolkit():
    """One implementation: rr.lp.certify returns the toolkit's residuals; nary's exact check its verifier."""
    from dpverify.rr.lp import certify, ldp_lp, solve_lp
    from dpverify.rr.nary import ExactOptimum, exact_optimum, verify_certificate_exact

    c, A_ub, b_ub, A_eq, b_eq = ldp_lp([0.2, 0.3, 0.5], 0.7)
    sol = solve_lp([0.2, 0.3, 0.5], 0.7)
    args = (c, A_ub, b_ub, A_eq, b_eq, sol.P.ravel(), sol.y_ub, sol.y_eq)
    assert tuple(vars(certify(*args)).values()) == lp_residuals(*args)
    pi, E = [F(1, 5), F(3, 10), F(1, 2)], F(2)
    opt = exact_optimum(pi, E, F(1, 20))
    assert all(verify_certificate_exact(pi, E, F(1, 20), opt).values())
    bad = ExactOptimum(opt.P, opt.u, opt.S, tuple(m + F(1, 100) for m in opt.mu), opt.lam)
    assert not verify_certificate_exact(pi, E, F(1, 20), bad)["zero_gap"]


def test_finite_mechanism_privacy():
    rr3 = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/4", "1/4", "1/2"]]
    assert finite_mechanism_privacy(rr3, epsilon="log(2)", exact=True).verdict is Verdict.HOLDS
    out = finite_mechanism_privacy(rr3, epsilon="log(3)/2", exact=True)
    assert out.verdict is Verdict.REFUTED and str(out.evidence["smallest_epsilon"]) == "log(2)"
    with pytest.raises(ValueError):
        finite_mechanism_privacy([[0.5, 0.6], [0.5, 0.5]], epsilon=1.0)


def test_audit_epsilon_never_holds():
    from dpverify.audit.mechanisms import LaplaceMechanism

    mech = LaplaceMechanism(epsilon=1.0)
    ok = audit_epsilon(mech, 0.0, 1.0, epsilon=1.0, samples=100_000, rng=3)
    assert ok.verdict is Verdict.INCONCLUSIVE and "does not prove" in ok.summary
    bad = audit_epsilon(LaplaceMechanism(epsilon=1.0, scale_factor=0.25), 0.0, 1.0, epsilon=1.0, samples=100_000, rng=3)
    assert bad.verdict is Verdict.REFUTED and bad.evidence["epsilon_lb"] > 1.0


def test_simulate_against_three_tests():
    coin = lambda rng, n: rng.random(n) < 0.3  # noqa: E731
    assert simulate_against(coin, 0.3, n=50_000, rng=0).evidence["test"] == "exact two-sided binomial"
    assert simulate_against(coin, 0.31, n=50_000, rng=0).verdict is Verdict.REFUTED
    unif = lambda rng, n: rng.random(n)  # noqa: E731
    out = simulate_against(unif, 0.5, n=20_000, bounds=(0, 1), detect=0.05, rng=0)
    assert out.verdict is Verdict.HOLDS and out.evidence["test"] == "Hoeffding (exact)"
    assert simulate_against(unif, 0.55, n=20_000, bounds=(0, 1), rng=0).verdict is Verdict.REFUTED
    lap2 = lambda rng, n: rng.laplace(0.0, 1.0, n) ** 2  # E[Lap(1)²] = 2  # noqa: E731
    out = simulate_against(lap2, 2.0, n=100_000, detect=0.15, rng=0)
    assert out.verdict is Verdict.HOLDS and "asymptotic" in out.evidence["test"]
    assert simulate_against(lap2, 1.0, n=100_000, rng=0).verdict is Verdict.REFUTED


def test_simulate_against_false_alarm_rate():
    """Under a true closed form, α = 0.1 rejects in about 10 % of 100 seeded runs (more than 25 of 100
    would happen with probability < 1e-5 for a valid test)."""
    coin = lambda rng, n: rng.random(n) < 0.4  # noqa: E731
    rejections = sum(simulate_against(coin, 0.4, n=2_000, alpha=0.1, rng=s).verdict is Verdict.REFUTED
                     for s in range(100))
    assert 1 <= rejections <= 25


@pytest.mark.parametrize("kw, match", [(dict(n=1), "n must be"), (dict(alpha=0.0), "alpha"), (dict(alpha=1.5), "alpha"),
                                       (dict(bounds=(1, 0)), "bounds"), (dict(bounds=(0.0, 0.1)), "outside")])
def test_simulate_against_bad_input(kw, match):
    args = dict(n=100, rng=0)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        simulate_against(lambda rng, n: rng.random(n), 0.5, **args)
    with pytest.raises(TypeError):
        simulate_against("not callable", 0.5, n=10)


def test_qp_optimum_exact_kkt_and_bad_input():
    # min ½(x² + y²) − x − y s.t. x + y ≤ 1: the minimum −3/4 at (1/2, 1/2), multiplier 1/2
    opt = qp_optimum([[1, 0], [0, 1]], [-1, -1], A_ub=[[1, 1]], b_ub=[1])
    assert opt.exact and opt.value == F(-3, 4) and opt.x == (F(1, 2), F(1, 2)) and opt.y_ub == (F(1, 2),)
    # the constraint inactive: the unconstrained minimum (1/3, 1/3) of ½(x² + y²) − x/3 − y/3
    opt = qp_optimum([[1, 0], [0, 1]], [F(-1, 3), F(-1, 3)], A_ub=[[1, 1]], b_ub=[1])
    assert opt.exact and opt.x == (F(1, 3), F(1, 3)) and opt.y_ub == (0,)
    # an irrational optimum: certified by the float KKT residual
    opt = qp_optimum([[1, 0], [0, 1]], [-1, -1], A_ub=[[1, 1]], b_ub=[np.sqrt(2.0)], max_denominator=10)
    assert not opt.exact and opt.kkt_residual < 1e-8 and abs(opt.value - (0.5 - np.sqrt(2.0))) < 1e-8  # t² − 2t, t = √2/2
    with pytest.raises(ValueError, match="positive semidefinite"):
        qp_optimum([[1, 2], [2, 1]], [0, 0])
    with pytest.raises(ValueError, match="symmetric"):
        qp_optimum([[1, 1], [0, 1]], [0, 0])
    with pytest.raises(ValueError, match="shape"):
        qp_optimum([[1, 0], [0, 1]], [0, 0], A_ub=[[1, 1, 1]], b_ub=[1])
