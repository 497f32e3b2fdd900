"""The exact LDP checker: against brute force over output sets, exact boundaries, smallest ε, validation."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.audit import check_ldp, hockey_stick, ldp_delta_curve, ldp_epsilon
from dpverify.primitives import krr_matrix


def _rand_stochastic(rng, n, m, zeros=0.0):
    P = rng.dirichlet(np.ones(m), size=n)
    if zeros:
        P = np.where(rng.random((n, m)) < zeros, 0.0, P) + 1e-300 * 0
        P[:, 0] += 1e-3
        P /= P.sum(axis=1, keepdims=True)
    return P


def _brute_standard(P, E):
    """max over ordered row pairs and all 2^m output sets of P(S|a) − E P(S|c)."""
    n, m = len(P), len(P[0])
    best = 0
    for a in range(n):
        for c in range(n):
            for r in range(m + 1):
                for S in itertools.combinations(range(m), r):
                    best = max(best, sum(P[a][j] for j in S) - E * sum(P[c][j] for j in S))
    return best


def _brute_per_output(P, E):
    n, m = len(P), len(P[0])
    return max(0, max(P[a][j] - E * P[c][j] for a in range(n) for c in range(n) for j in range(m)))


@st.composite
def rational_mechanisms(draw, max_n=4, max_m=4):
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(2, max_m))
    rows = []
    for _ in range(n):
        w = draw(st.lists(st.integers(0, 6), min_size=m, max_size=m))
        if sum(w) == 0:
            w[0] = 1
        rows.append([Fraction(x, sum(w)) for x in w])
    return rows


@settings(max_examples=60)
@given(rational_mechanisms(), st.integers(11, 40), st.integers(0, 20))
def test_exact_matches_brute_force(P, r10, d100):
    """Exact mode equals brute force over every output set (standard) / every entry (per-output)."""
    E, d = Fraction(r10, 10), Fraction(d100, 100)
    std = check_ldp(P, sp.log(sp.Rational(r10, 10)), d, "standard", exact=True)
    per = check_ldp(P, sp.log(sp.Rational(r10, 10)), d, "per_output", exact=True)
    assert std.required_delta == _brute_standard(P, E)
    assert per.required_delta == _brute_per_output(P, E)
    assert std.holds == (_brute_standard(P, E) <= d)
    assert per.holds == (_brute_per_output(P, E) <= d)
    assert per.required_delta <= std.required_delta  # per-output is implied by the standard definition


def test_float_standard_is_max_of_hockey_stick():
    rng = np.random.default_rng(0)
    for _ in range(30):
        n, m = rng.integers(2, 7, size=2)
        P = _rand_stochastic(rng, n, m, zeros=0.2)
        eps = float(rng.uniform(0.01, 2))
        want = max(hockey_stick(P[a], P[c], eps) for a in range(n) for c in range(n))
        res = check_ldp(P, eps, 0.0)
        assert abs(res.required_delta - want) < 1e-12
        a, c = res.rows
        assert abs(hockey_stick(P[a], P[c], eps) - want) < 1e-12
        # the reported set S* attains it
        S = list(res.outputs)
        assert abs(P[a, S].sum() - math.exp(eps) * P[c, S].sum() - want) < 1e-12


def test_float_per_output_matches_entrywise():
    rng = np.random.default_rng(1)
    for _ in range(30):
        n, m = rng.integers(2, 7, size=2)
        P = _rand_stochastic(rng, n, m)
        eps = float(rng.uniform(0.01, 2))
        want = _brute_per_output(P.tolist(), math.exp(eps))
        res = check_ldp(P, eps, 0.0, "per_output")
        assert abs(res.required_delta - want) < 1e-12
        (j,) = res.outputs
        i1, i2 = res.rows
        assert abs(P[i1, j] - math.exp(eps) * P[i2, j] - want) < 1e-12 or want == 0


def test_exact_boundary_decided_without_tolerance():
    rr = [["3/4", "1/4"], ["1/4", "3/4"]]
    assert check_ldp(rr, sp.log(3), exact=True).holds  # exactly on the boundary e^ε = 3
    assert not check_ldp(rr, sp.log(sp.Rational(2999, 1000)), exact=True).holds
    # a perturbation of 1e-30 is caught exactly (a float check cannot see it)
    tiny = Fraction(1, 10**30)
    bad = [[Fraction(3, 4) + tiny, Fraction(1, 4) - tiny], [Fraction(1, 4), Fraction(3, 4)]]
    res = check_ldp(bad, sp.log(3), exact=True)
    # worst pair: input 1 vs input 0 on output 1: 3/4 − 3 (1/4 − tiny) = 3 tiny
    assert not res.holds and res.required_delta == 3 * tiny and res.rows == (1, 0) and res.outputs == (1,)
    assert check_ldp(bad, sp.log(3), 3 * tiny, exact=True).holds
    assert not check_ldp(bad, sp.log(3), 3 * tiny - Fraction(1, 10**40), exact=True).holds
    # irrational e^ε: decided by certified evaluation
    assert check_ldp(rr, sp.log(3) + sp.Rational(1, 10**12), exact=True).holds
    assert not check_ldp(rr, sp.log(3) - sp.Rational(1, 10**12), exact=True).holds


def test_definitions_coincide_at_delta_zero_and_two_outputs_but_not_beyond():
    rng = np.random.default_rng(2)
    for _ in range(40):
        n, m = int(rng.integers(2, 6)), int(rng.integers(2, 6))
        P = _rand_stochastic(rng, n, m)
        eps = float(rng.uniform(0.01, 3))
        assert check_ldp(P, eps, 0.0).holds == check_ldp(P, eps, 0.0, "per_output").holds
        Q = _rand_stochastic(rng, n, 2)
        d = float(rng.uniform(0, 0.5))
        assert abs(check_ldp(Q, eps, d).required_delta - check_ldp(Q, eps, d, "per_output").required_delta) < 1e-12
    q, h = "1/4", "1/2"
    P = [[q, q, q, q], [h, h, "0", "0"]]
    assert check_ldp(P, sp.log(sp.Rational(11, 10)), "1/4", "per_output", exact=True).holds
    std = check_ldp(P, sp.log(sp.Rational(11, 10)), "1/4", exact=True)
    assert not std.holds and std.required_delta == Fraction(1, 2) and set(std.outputs) == {2, 3}


@pytest.mark.parametrize("definition", ["standard", "per_output"])
@pytest.mark.parametrize("delta", [0.0, 0.05, 0.3])
def test_ldp_epsilon_is_the_smallest(definition, delta):
    rng = np.random.default_rng(3)
    for _ in range(25):
        n, m = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        P = _rand_stochastic(rng, n, m)
        e = ldp_epsilon(P, delta, definition)
        assert math.isfinite(e)
        assert check_ldp(P, e + 1e-9, delta, definition, atol=0.0).holds
        if e > 1e-6:
            assert not check_ldp(P, e - 1e-6, delta, definition, atol=0.0).holds


def test_ldp_epsilon_exact():
    rng = np.random.default_rng(4)
    for _ in range(20):
        n, m = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        P = [[Fraction(int(x), 10) for x in rng.multinomial(10, np.ones(m) / m)] for _ in range(n)]
        for d in (Fraction(0), Fraction(1, 10)):
            for definition in ("standard", "per_output"):
                e = ldp_epsilon(P, d, definition, exact=True)
                if e == sp.oo:
                    assert not check_ldp(P, 50, d, definition, exact=True).holds
                    continue
                r = sp.exp(e)
                assert r.is_Rational and r >= 1
                if r > 1:
                    assert check_ldp(P, e, d, definition, exact=True).holds  # holds exactly at the optimum
                    assert not check_ldp(P, sp.log(r - sp.Rational(1, 10**9)), d, definition, exact=True).holds


def test_ldp_epsilon_infinite_and_known_values():
    assert ldp_epsilon([[1.0, 0.0], [0.0, 1.0]]) == math.inf
    assert ldp_epsilon([[1.0, 0.0], [0.5, 0.5]], 0.5) == 0.0
    assert abs(ldp_epsilon(krr_matrix(5, 1.3)) - 1.3) < 1e-12
    assert ldp_epsilon([[0.5, 0.5], [0.5, 0.5]]) == 0.0


def test_delta_curve_matches_check():
    rng = np.random.default_rng(5)
    P = _rand_stochastic(rng, 4, 5)
    eps = np.linspace(0, 3, 13)
    for definition in ("standard", "per_output"):
        curve = ldp_delta_curve(P, eps, definition)
        assert np.all(np.diff(curve) <= 1e-15)  # non-increasing in ε
        for e, dlt in zip(eps[1:], curve[1:]):
            assert abs(check_ldp(P, e, 0.0, definition).required_delta - dlt) < 1e-12


def _exactly_private(P, eps):
    """max over columns of max/min ≤ e^ε for the exact float values (60-digit e^ε; never a tie here)."""
    import mpmath

    F = [[Fraction(x) for x in row] for row in np.asarray(P).tolist()]
    cols = list(zip(*F))
    with mpmath.workdps(60):
        E = mpmath.exp(mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)
        return all(mpmath.mpf(max(c).numerator) / max(c).denominator <= E * mpmath.mpf(min(c).numerator) / min(c).denominator
                   for c in cols)


def test_krr_and_perturbation():
    """Classical k-RR passes at its ε exactly when its float entries do; moving mass between two entries is caught."""
    flips = set()
    for k in (2, 3, 7):
        for eps in (0.1, 1.0, 3.0):
            P = krr_matrix(k, eps)
            want = _exactly_private(P, eps)  # the float matrix is ε-LDP only up to its rounding
            flips.add(want)
            assert check_ldp(P, eps).holds is want and check_ldp(P, eps, 0, "per_output").holds is want
            assert check_ldp(P, eps, atol=1e-15).holds and check_ldp(P, eps, 0, "per_output", atol=1e-15).holds
            Q = P.copy()
            Q[0, 0] += 1e-6
            Q[0, 1] -= 1e-6
            res = check_ldp(Q, eps, atol=1e-12)
            assert not res.holds and 0 in res.rows
    assert flips == {True, False}  # both sides of the exact boundary occur among these k-RR matrices


def test_large_per_output_runs():
    rng = np.random.default_rng(6)
    P = rng.dirichlet(np.ones(600), size=600)
    res = check_ldp(P, 50.0, 0.0, "per_output")
    assert res.required_delta >= 0 and res.definition == "per_output"


@pytest.mark.parametrize("eps", [0, -1.0, math.nan, math.inf])
def test_rejects_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        check_ldp([[0.5, 0.5], [0.5, 0.5]], eps)


@pytest.mark.parametrize("delta", [-0.1, 1.0, math.nan])
def test_rejects_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        check_ldp([[0.5, 0.5], [0.5, 0.5]], 1.0, delta)


@pytest.mark.parametrize(
    "P", [[[0.5, 0.6], [0.5, 0.5]], [[1.5, -0.5], [0.5, 0.5]], [[math.nan, 1.0], [0.5, 0.5]], [0.5, 0.5]]
)
def test_rejects_bad_matrix(P):
    with pytest.raises(ValueError, match="P"):
        check_ldp(P, 1.0)


def test_rejects_bad_definition_and_exact_input():
    with pytest.raises(ValueError, match="definition"):
        check_ldp([[0.5, 0.5], [0.5, 0.5]], 1.0, definition="pure")
    with pytest.raises(ValueError, match="row-stochastic"):
        check_ldp([["1/2", "1/3"], ["1/2", "1/2"]], 1, exact=True)
    with pytest.raises(TypeError, match="rational"):
        check_ldp([["1/2", "x"], ["1/2", "1/2"]], 1, exact=True)
    with pytest.raises(ValueError, match="epsilon"):
        check_ldp([["1/2", "1/2"], ["1/2", "1/2"]], sp.Integer(-1), exact=True)


def test_input_not_mutated():
    P = np.array([[0.7, 0.3], [0.2, 0.8]])
    before = P.copy()
    check_ldp(P, 1.0)
    ldp_epsilon(P, 0.1)
    ldp_delta_curve(P, [0.5])
    assert np.array_equal(P, before)


def test_checker_claim_holds_and_can_fail(monkeypatch):
    import dpverify.audit as audit
    from dpverify.claims import Verdict, get_claim, load_rooms

    load_rooms()
    c = get_claim("audit.ldp.checker")
    assert c.check().verdict == Verdict.HOLDS
    real = audit.check_ldp
    monkeypatch.setattr(audit, "check_ldp", lambda P, e, d=0.0, definition="standard", **kw: real(P, e, d, "per_output", **kw))
    out = c.check()
    assert out.verdict == Verdict.REFUTED and out.evidence["failure"]["definition"] == "standard"


# ----------------------------------------------------------------------------- issue 10: the edges


def test_zero_against_nonzero_decided_exactly_at_delta_zero():
    P = [[1 - 1e-12, 1e-12], [1, 0]]  # ε = ∞: output 1 is impossible from input 1
    for definition in ("standard", "per_output"):
        res = check_ldp(P, 1.0, definition=definition)
        assert not res.holds and res.violations >= 1
        assert check_ldp(P, 700.0, definition=definition).holds is False
    assert ldp_epsilon(P) == math.inf
    assert check_ldp([[1 - 1e-300, 1e-300], [1, 0]], 1.0).holds is False
    # with δ ≥ 1e-12 the same matrix is (ε, δ)-LDP: the zero only costs its 1e-12 of mass
    assert check_ldp(P, 1.0, 1e-12 + 1e-15).holds


def test_exact_flag_must_be_bool():
    for bad in ("abc", 1, None, 0.0):
        with pytest.raises(TypeError, match="exact"):
            check_ldp([[0.5, 0.5], [0.5, 0.5]], 1.0, exact=bad)
        with pytest.raises(TypeError, match="exact"):
            ldp_epsilon([[0.5, 0.5], [0.5, 0.5]], exact=bad)
    assert check_ldp([[0.5, 0.5], [0.5, 0.5]], 1.0, exact=np.bool_(False)).holds


def test_epsilon_beyond_exp_overflow_log_space():
    P = [[1, 1e-313], [1e-313, 1]]
    true_eps = math.log(1.0) - math.log(1e-313)  # ln(1 / 1e-313) for the float 1e-313: 720.709...
    assert abs(ldp_epsilon(P) - true_eps) < 1e-9
    assert 720.70 < true_eps < 720.72
    res = check_ldp(P, 710)
    assert not res.holds
    hs = hockey_stick(P[0], P[1], 710)
    assert abs(res.required_delta - hs) < 1e-15
    assert abs(hs - (1 - math.exp(710 - true_eps))) < 1e-12  # 1 − e^ε·1e-313 (the other output gives 0)
    assert check_ldp(P, true_eps + 1e-6).holds and hockey_stick(P[0], P[1], true_eps + 1e-6) == 0.0
    assert not check_ldp(P, true_eps - 1e-6).holds and hockey_stick(P[0], P[1], true_eps - 1e-6) > 0
    assert not check_ldp(P, 710, definition="per_output").holds
    curve = ldp_delta_curve(P, [710.0, true_eps + 1e-6])
    assert abs(curve[0] - hs) < 1e-15 and curve[1] == 0.0
    assert abs(ldp_epsilon(P, 0.5) - (math.log(0.5) - math.log(1e-313))) < 1e-9


def _mp_curve(p, q, eps):
    import mpmath

    with mpmath.workdps(60):
        E = mpmath.exp(mpmath.mpf(eps))
        return float(sum(max(mpmath.mpf(0), mpmath.mpf(a) - E * mpmath.mpf(b)) for a, b in zip(p, q)))


@st.composite
def float_mechanisms_with_tiny_entries(draw):
    n = draw(st.integers(2, 3))
    m = draw(st.integers(2, 4))
    tiny = st.sampled_from([0.0, 5e-324, 1e-313, 1e-300, 1e-200, 1e-20])
    rows = []
    for _ in range(n):
        w = draw(st.lists(st.one_of(tiny, st.integers(1, 9).map(float)), min_size=m, max_size=m))
        if max(w) < 1:
            w[0] = 1.0
        big = sum(x for x in w if x >= 1)
        row = [x / big if x >= 1 else x for x in w]
        row[int(np.argmax(row))] += 1.0 - sum(row)  # float sum 1 within rounding
        rows.append(row)
    return rows


@settings(max_examples=150, deadline=None)
@given(float_mechanisms_with_tiny_entries(), st.sampled_from([0.1, 1.0, 5.0, 300.0, 709.0, 709.9, 710.0, 745.0, 800.0]))
def test_float_checker_agrees_with_exact_rationals(P, eps):
    """check_ldp(δ=0), ldp_epsilon and hockey_stick against Fraction / 60-digit computation on the same floats."""
    F = [[Fraction(x) for x in row] for row in P]  # the exact values of the float entries
    n, m = len(F), len(F[0])
    # exact ε: ln max_j max_{a,c} F[a][j] / F[c][j] (∞ for a zero against a non-zero)
    ratio = Fraction(1)
    infinite = False
    for j in range(m):
        col = [F[i][j] for i in range(n)]
        if max(col) > 0 and min(col) == 0:
            infinite = True
        elif max(col) > 0:
            ratio = max(ratio, max(col) / min(col))
    import mpmath

    with mpmath.workdps(60):
        true_eps = math.inf if infinite else float(mpmath.log(mpmath.mpf(ratio.numerator) / ratio.denominator))
    got_eps = ldp_epsilon(P)
    if infinite:
        assert got_eps == math.inf
    else:
        assert abs(got_eps - true_eps) <= 1e-9 * max(1.0, true_eps)
    res = check_ldp(P, eps)
    if infinite or true_eps > eps + 1e-9 * eps:
        assert not res.holds
    elif true_eps < eps - 1e-9 * eps:
        assert res.holds
    worst = max(_mp_curve(P[a], P[c], eps) for a in range(n) for c in range(n))
    assert abs(res.required_delta - worst) < 1e-12
    for a in range(n):
        for c in range(n):
            assert abs(hockey_stick(P[a], P[c], eps) - _mp_curve(P[a], P[c], eps)) < 1e-12


def test_small_delta_is_not_accepted_by_an_absolute_tolerance():
    """Review finding: with δ > 0 a fixed atol of 1e-12 accepted δ = 1e-15 for a mechanism needing 1e-13."""
    P = [[1e-13, 1 - 1e-13], [0.0, 1.0]]
    for definition in ("standard", "per_output"):
        r = check_ldp(P, 1.0, delta=1e-15, definition=definition)
        assert not r.holds and r.required_delta == pytest.approx(1e-13, rel=1e-9)
        assert check_ldp(P, 1.0, delta=1e-13, definition=definition).holds
    assert ldp_epsilon(P, delta=1e-15) == float("inf")
