"""Tests of dpverify.exact.prove: proofs, exact refutations, (epsilon, delta), bad input, certificates."""

import sympy as sp
import pytest

from dpverify.exact import delta_curve, fail_set, prove
from dpverify.exact.signs import XDomain, X, positive_cells, sturm_count

EPS = sp.Symbol("epsilon", positive=True)
E = sp.exp(EPS)
KEEP = E / (1 + E)


def rr_kary(k, keep=None):
    keep = E / (E + k - 1) if keep is None else keep
    return sp.Matrix(k, k, lambda i, o: keep if i == o else (1 - keep) / (k - 1))


def truncated_geometric(n):
    a = sp.exp(-EPS)

    def ent(t, o):
        if o == 0:
            return a ** t / (1 + a)
        if o == n - 1:
            return a ** (n - 1 - t) / (1 + a)
        return (1 - a) / (1 + a) * a ** abs(o - t)
    return sp.Matrix(n, n, ent)


def neighbours(n):
    return [(i, i + 1) for i in range(n - 1)] + [(i + 1, i) for i in range(n - 1)]


@pytest.mark.parametrize("k", [2, 3, 5])
def test_kary_rr_proved(k):
    r = prove(rr_kary(k), epsilon=EPS)
    assert r.verdict == "proved" and r.counterexample is None
    assert r.certificate["agree"] and r.certificate["check_ldp_points"] > 0


def test_binary_rr_and_truncated_geometric_proved():
    assert prove(sp.Matrix([[KEEP, 1 - KEEP], [1 - KEEP, KEEP]]), epsilon=EPS).proved
    assert prove(truncated_geometric(5), epsilon=EPS, pairs=neighbours(5)).proved
    # the same law is not eps-DP for rows two apart: it needs exactly 2 epsilon there
    r = prove(truncated_geometric(5), epsilon=EPS, pairs=[(0, 2)])
    assert r.verdict == "refuted" and sp.simplify(r.counterexample.epsilon_needed - 2 * EPS) == 0


@pytest.mark.parametrize("k", [3, 4, 7])
def test_kary_with_binary_keep_needs_eps_plus_log_k_minus_1(k):
    r = prove(rr_kary(k, KEEP), epsilon=EPS)
    assert r.verdict == "refuted"
    cx = r.counterexample
    assert cx.pair == (0, 1) and cx.outputs == (0,)
    assert sp.simplify(cx.epsilon_needed - (EPS + sp.log(k - 1))) == 0
    assert cx.epsilon_fails == sp.Interval.open(0, sp.oo)


def test_binary_keep_is_exact_at_k_2():
    # k = 2 is the flip: the same construction is proved (log(k - 1) = 0)
    assert prove(rr_kary(2, KEEP), epsilon=EPS).proved


def test_law_holds_exactly_for_eps_at_least_log3():
    P = sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]])
    r = prove(P, epsilon=EPS)
    assert r.verdict == "refuted"
    assert r.counterexample.epsilon_fails == sp.Interval.open(0, sp.log(3))
    assert r.counterexample.epsilon_needed == sp.log(3)
    assert "1.0986122886" in r.reason
    assert prove(P, epsilon=EPS, domain=sp.Interval(sp.log(3), sp.oo)).proved
    assert prove(P, epsilon=sp.log(3)).proved
    assert prove(P, epsilon=sp.Rational(109, 100)).verdict == "refuted"   # just below ln 3


def test_fail_set_with_algebraic_endpoints():
    # e^{2eps} - e^eps - 1 > 0 iff e^eps > golden ratio
    s = fail_set(E ** 2 - E - 1, EPS)
    assert s == sp.Interval.open(sp.log((1 + sp.sqrt(5)) / 2), sp.oo)
    s = fail_set(-(E - 2) * (E - 3) * (E ** 3 - 7), EPS)
    assert s == sp.Union(sp.Interval.open(0, sp.log(7) / 3), sp.Interval.open(sp.log(2), sp.log(3)))
    # a double root is excluded from the failing set
    assert fail_set((E - 2) ** 2, EPS) == sp.Union(sp.Interval.open(0, sp.log(2)), sp.Interval.open(sp.log(2), sp.oo))


def test_refutation_with_an_irrational_boundary():
    # P[0,0] / P[1,0] = (e^eps + 1) / 1 ... fails where e^eps * q < p: build p = x^2/(x^2+x+1)
    p = E ** 2 / (E ** 2 + E + 1)
    q = 1 / (E ** 2 + E + 1)
    P = sp.Matrix([[p, 1 - p], [q, 1 - q]])
    r = prove(P, epsilon=EPS, pairs=[(0, 1)])
    assert r.verdict == "refuted" and sp.simplify(r.counterexample.epsilon_needed - 2 * EPS) == 0
    assert r.certificate["agree"]


def test_delta_curve_and_delta_claims():
    P = sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]])
    curve = delta_curve(P, (0, 1), EPS)
    for v in (sp.Rational(1, 2), sp.log(3), 2):
        direct = sum(max(0, P[0, o] - sp.exp(v) * P[1, o]) for o in range(2))
        assert sp.simplify(curve.subs(EPS, v) - direct) == 0
    r = prove(P, epsilon=EPS, delta=sp.Rational(1, 4))
    assert r.verdict == "refuted" and r.counterexample.epsilon_fails == sp.Interval.open(0, sp.log(2))
    assert r.counterexample.epsilon_needed == sp.log(2)
    assert prove(P, epsilon=EPS, delta=sp.Rational(1, 2)).proved
    assert prove(P, epsilon=EPS, delta=(3 - E) / 4, domain=sp.Interval.open(0, sp.log(3))).proved
    assert prove(P, epsilon=EPS, delta=(3 - E) / 5, domain=sp.Interval.open(0, sp.log(3))).verdict == "refuted"


def test_sturm_recount_matches_isolation():
    dom = XDomain(sp.Integer(1), sp.oo, True, True, 1)
    Q = sp.Poly((X - 2) ** 2 * (X - 3) * (X ** 2 - 5) * (X + 4), X)
    assert sturm_count(Q, dom) == 3
    assert len(positive_cells(Q, dom)) == 3   # (1, 2), (2, sqrt 5), (3, oo)


def test_not_rational_is_unknown():
    P = sp.Matrix([[1 / (1 + EPS), EPS / (1 + EPS)], [EPS / (1 + EPS), 1 / (1 + EPS)]])
    r = prove(P, epsilon=EPS)
    assert r.verdict == "unknown" and "not rational" in r.reason


@pytest.mark.parametrize("P, match", [
    (sp.Matrix([[2 - E, E - 1], [E - 1, 2 - E]]), "negative"),
    (sp.Matrix([[KEEP, KEEP], [1 - KEEP, KEEP]]), "sums to"),
    (sp.Matrix([[sp.Symbol("t"), 1 - sp.Symbol("t")], [0, 1]]), "free symbols"),
    (sp.zeros(51, 2), "size limit 50 x 50"),
])
def test_bad_law(P, match):
    with pytest.raises(ValueError, match=match):
        prove(P, epsilon=EPS)


def test_bad_pairs_and_epsilon():
    P = sp.Matrix([[KEEP, 1 - KEEP], [1 - KEEP, KEEP]])
    with pytest.raises(ValueError, match="non-empty"):
        prove(P, epsilon=EPS, pairs=[])
    with pytest.raises(ValueError, match="distinct"):
        prove(P, epsilon=EPS, pairs=[(0, 0)])
    with pytest.raises(TypeError, match="epsilon"):
        prove(P, epsilon="eps")
    with pytest.raises(ValueError, match="exclude epsilon = 0"):
        prove(P, epsilon=EPS, domain=sp.Interval(0, 1))
    with pytest.raises(ValueError, match="delta is negative"):
        prove(P, epsilon=EPS, delta=-sp.Rational(1, 10))
    with pytest.raises(TypeError, match="sympy Matrix"):
        prove([[1, 0], [0, 1]], epsilon=EPS)


def test_input_not_mutated_and_symbol_kept():
    e = sp.Symbol("e")   # not declared positive: results are in the caller's symbol
    keep = sp.exp(e) / (1 + sp.exp(e))
    P = sp.Matrix(3, 3, lambda i, o: keep if i == o else (1 - keep) / 2)
    before = P.copy()
    r = prove(P, epsilon=e)
    assert P == before
    assert r.verdict == "refuted"
    assert sp.simplify(r.counterexample.epsilon_needed - (e + sp.log(2))) == 0


def test_to_json_round_trip():
    import json
    r = prove(rr_kary(3, KEEP), epsilon=EPS)
    d = json.loads(r.to_json())
    assert d["verdict"] == "refuted" and d["counterexample"]["pair"] == [0, 1]
    assert d["counterexample"]["epsilon_fails_decimal"] == "(0, oo)"


def test_certificate_catches_a_wrong_exact_set():
    # the second route must flip: hand it a wrong failing set and it reports mismatches
    import numpy as np
    from dpverify.exact.certificate import certify, sturm_recheck
    from dpverify.exact.law import prepare
    P = sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]])
    law = prepare(P, EPS, None, 0, None)
    good = {(0, 1): [(sp.Integer(1), sp.Integer(3), True, True)], (1, 0): [(sp.Integer(1), sp.Integer(3), True, True)]}
    rng = np.random.default_rng(3)
    assert certify(law, good, rng, points=8)["mismatches"] == []
    wrong = {(0, 1): [(sp.Integer(1), sp.Integer(2), True, True)], (1, 0): good[(1, 0)]}
    cert = certify(law, wrong, np.random.default_rng(3), points=8)
    between = [x for x in map(sp.Rational, cert["points_x"]) if 2 <= x < 3]
    assert between, "seed 3 must draw a point in [2, 3) for this check to bite"
    assert len([m for m in cert["mismatches"] if "pair (0, 1)" in m]) == len(between)
    Q = sp.Poly((X - 2) * (X - 3), X)
    dom = XDomain(sp.Integer(1), sp.oo, True, True, 1)
    assert sturm_recheck({(Q, dom): 2}, rng)["sturm_mismatches"] == []
    assert sturm_recheck({(Q, dom): 1}, rng)["sturm_mismatches"]
