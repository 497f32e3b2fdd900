"""The example's claims as tests: the folded mechanism is proved for every ε > 0, the unfolded one refuted."""

import sympy as sp

from dpverify.toolkit import prove_privacy
from rating import ADJACENT, rating_law, rating_law_unfolded

EPS = sp.Symbol("epsilon", positive=True)


def test_folded_rating_is_dp_for_every_epsilon():
    out = prove_privacy(rating_law(EPS), epsilon=EPS, pairs=ADJACENT)
    assert out.verdict.value == "holds", out.summary


def test_unfolded_rating_is_refuted_exactly():
    out = prove_privacy(rating_law_unfolded(EPS), epsilon=EPS, pairs=ADJACENT)
    assert out.verdict.value == "refuted"
    cx = out.evidence["counterexample"]
    assert cx["epsilon_fails_decimal"] == "(0, oo)"          # fails at every ε > 0
    need = sp.sympify(cx["epsilon_needed"], locals={"epsilon": EPS})
    assert (need - EPS).subs(EPS, 1).evalf() > 0             # it needs more than ε
