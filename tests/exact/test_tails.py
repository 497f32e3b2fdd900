"""Gap outputs past the window, decided exactly (:mod:`dpverify.exact.programs.tails`, closed_forms.md §4)."""

import pytest
import sympy as sp

from dpverify.exact.programs import program_law
from dpverify.exact.programs.checkdp import gapsparsevector
from dpverify.exact.programs.geometric import FIELD, T
from dpverify.exact.programs.law import Evaluator
from dpverify.exact.programs.tails import gap_tail, prove_program, tail_verdict
from dpverify.exact.signs import fail_set

PAIRS = [(0, 1), (1, 0)]


def badgap_noise1(ctx, q, T, NN):
    """gapsparsevector with the gap's noise of scale 1 instead of 4·NN: not ε-DP."""
    thr, out = ctx.threshold(T, 2), []
    for qi in q:
        if sum(v is not None for v in out) >= NN:
            break
        out.append(ctx.noisy_gap(qi, 1, thr))
    return tuple(out)


def _value(form, w):
    return sum((cf * w ** d * T ** (g * w) for (g, d), cf in form.items()), FIELD.zero)


def same_scale(ctx, q):
    """Threshold and gap noise of one scale: the tail has a term linear in w (k = e + a = 0)."""
    thr = ctx.threshold(0, 4)
    return (ctx.noisy_gap(q[0], 4, thr),)


def test_gapsparsevector_is_proved_with_its_tail():
    law = program_law(gapsparsevector, [(0,), (1,)], T=1, NN=1)
    assert not law.exact
    r = prove_program(law, PAIRS)
    assert r.verdict == "proved" and "gap value past the window" in r.reason, r.reason


@pytest.mark.slow
def test_gapsparsevector_two_queries_is_proved_with_its_tail():
    law = program_law(gapsparsevector, [(0, 0), (1, 1)], T=1, NN=1)
    assert not law.exact
    r = prove_program(law, PAIRS)
    assert r.verdict == "proved" and "gap value past the window" in r.reason, r.reason


def test_tail_check_flips_on_a_bad_gap():
    good = tail_verdict(program_law(gapsparsevector, [(0,), (1,)], T=1, NN=1), PAIRS)
    bad = tail_verdict(program_law(badgap_noise1, [(0, 1), (1, 0)], T=1, NN=1), PAIRS)
    assert good["decided"] and not good["failing"]
    assert bad["decided"] and bad["failing"]
    assert any(s == sp.Interval.open(0, sp.oo) for *_, s in bad["failing"])


def test_closed_form_matches_the_direct_sum_far_out():
    for prog, kw in ((gapsparsevector, {"T": 1, "NN": 1}), (same_scale, {})):
        law = program_law(prog, [(0, 1), (1, 0)] if kw else [(0,), (1,)], **kw)
        ev = Evaluator(law.unit)
        for paths in law.paths:
            for out, ctx in paths:
                v = next((x for x in out if getattr(x, "kind", None) == "gap"), None)
                if v is None:
                    continue
                W0, form = gap_tail(ev, ctx, v)
                for w in (W0 + 5, W0 + 11):
                    assert _value(form, w) == ev.rho_part(ctx, v, ("=", w))


def test_linear_term_case_is_decided():
    law = program_law(same_scale, [(0,), (1,)])
    ev = Evaluator(law.unit)
    out, ctx = next((o, c) for o, c in law.paths[0] if o[0] is not None)
    _, form = gap_tail(ev, ctx, out[0])
    assert any(d == 1 for _, d in form)
    tv = tail_verdict(law, PAIRS)
    assert tv["decided"], tv["reason"]


def test_tail_sign_sets_agree_with_fail_set():
    """Second route: the reversed-polynomial decision equals fail_set on the expression in ε."""
    from dpverify.exact.programs.tails import _fails

    eps = sp.Symbol("epsilon", positive=True)
    for cf in (T - FIELD(sp.Rational(1, 2)), (1 - 3 * T) / (1 + T ** 2), FIELD(-2), T ** 3 - T / 4):
        expr = (cf.numer.as_expr() / cf.denom.as_expr()).subs(sp.Symbol("t"), sp.exp(-eps / 2))
        assert _fails(cf, 2) == fail_set(sp.sympify(expr), eps)


@pytest.mark.parametrize("name", ["noisymax", "badsparsevector2",
                                  pytest.param("badnoisymax", marks=pytest.mark.slow),
                                  pytest.param("sparsevector", marks=pytest.mark.slow)])
def test_field_route_agrees_with_the_expression_route(name):
    """prove_program builds the law from Q(t) directly; prove(law.matrix) goes through expressions."""
    from dpverify.exact import prove
    from dpverify.exact.programs import checkdp, neighbour_pairs
    from dpverify.exact.programs.law import EPSILON

    prog, relation, _ = checkdp.ALL[name]
    inputs = [(0, 0), (0, 1), (1, 0), (1, 1)]
    kw = {"T": 1, "NN": 1} if "sparse" in name else {}
    law = program_law(prog, inputs, **kw)
    pairs = neighbour_pairs(inputs, relation)
    a, b = prove(law.matrix, epsilon=EPSILON, pairs=pairs), prove_program(law, pairs)
    if law.exact:
        assert a.verdict == b.verdict
    else:  # cells only: prove says proved/refuted on the cells; prove_program adds the tail
        assert (a.verdict == "refuted") == (b.verdict == "refuted")
    if a.counterexample is not None:
        assert a.counterexample.pair == b.counterexample.pair
        assert sp.simplify(a.counterexample.epsilon_needed - b.counterexample.epsilon_needed) == 0


def test_more_rates_use_partial_sums_and_never_claim_a_failure():
    from dpverify.exact.programs.tails import _pair_fail

    ok = {(1, 0): FIELD(-1), (2, 0): FIELD(-1), (3, 0): FIELD(1)}       # partial sums -1, -2, -1
    bad = {(1, 0): FIELD(-1), (2, 0): FIELD(2), (3, 0): FIELD(-5)}      # -1, 1: undecided
    assert _pair_fail(ok, 0, 1) == sp.EmptySet
    assert _pair_fail(bad, 0, 1) is None
