"""Issue 27 item 4 (first part): the rr room's binary optimum, proved for every ε > 0 by dpverify.exact.

The rr room derives the optimal binary mechanism as regimes in π0 with a positive symbol ``e^ε``
(:func:`dpverify.rr.symbolic.binary_regimes`). Each regime's design matrix, with e^ε = exp(ε), must be
ε-DP for every ε > 0 (pure), and (ε, δ)-DP on a stated grid of δ with ε symbolic. A planted flip (the
keep probability with e^{2ε}) is refuted, needing exactly 2ε.
"""

import pytest
import sympy as sp

from dpverify.exact import prove
from dpverify.rr.symbolic import binary_regimes

EPS = sp.Symbol("epsilon", positive=True)
DELTAS = (sp.Rational(1, 100), sp.Rational(1, 10), sp.Rational(1, 2))


def _in_eps(M):
    subs = {s: sp.exp(EPS) for s in M.free_symbols if s.name == "e^ε"}
    return M.subs(subs)


def test_binary_optimum_pure_proved_for_every_epsilon():
    regimes = binary_regimes(False)
    assert len(regimes) == 3
    for reg in regimes:
        r = prove(_in_eps(reg.design_matrix), epsilon=EPS)
        assert r.verdict == "proved", (reg.design_matrix, r.reason)


@pytest.mark.parametrize("d", DELTAS)
def test_binary_optimum_with_delta_proved_on_a_grid_of_delta(d):
    for reg in binary_regimes(True):
        M = _in_eps(reg.design_matrix)
        M = M.subs({s: d for s in M.free_symbols if s.name == "delta"})
        r = prove(M, epsilon=EPS, delta=d)
        assert r.verdict == "proved", (M, r.reason)
        # the same matrix is not pure-DP when it puts mass δ on an output the other row never gives
        if any(v == 0 for v in M):
            assert prove(M, epsilon=EPS).verdict == "refuted"


def test_planted_flip_is_refuted_exactly():
    x = sp.exp(2 * EPS)
    M = sp.Matrix([[x / (1 + x), 1 / (1 + x)], [1 / (1 + x), x / (1 + x)]])
    r = prove(M, epsilon=EPS)
    assert r.verdict == "refuted" and sp.simplify(r.counterexample.epsilon_needed - 2 * EPS) == 0
