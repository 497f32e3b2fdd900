"""Regression cases from the whole-API fuzz of the certified DP-SGD bracket and the exact verifier.

Each case is a hostile value the fuzz found accepted, crashing or hanging; each must now be a
TypeError/ValueError whose message names the parameter.  ``test_valid_calls_still_work`` shows the
same callables still accept their valid inputs (so the refusals cannot pass by refusing everything).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
import sympy as sp

from dpverify.conform.accountants import classify, rdp_epsilon
from dpverify.conform.bracket import check_dpsgd
from dpverify.conform.pld import compose, delta_curve, epsilon_of, mean_bounds, step_law
from dpverify.exact.programs.context import ExactContext, SampleContext, Threshold
from dpverify.exact.programs.geometric import FIELD, Factor, path_sum, point, sum_terms, tail_ge
from dpverify.exact.programs.law import neighbour_pairs, program_law
from dpverify.exact.prove import prove
from dpverify.exact.result import render_set
from dpverify.exact.signs import XDomain, exp_scale, fail_set, positive_cells, to_polys
from dpverify.toolkit.shapes import checked_coo

EPS = sp.Symbol("epsilon", positive=True)
Q = sp.exp(EPS) / (1 + sp.exp(EPS))
RR = sp.Matrix([[Q, 1 - Q], [1 - Q, Q]])
LAW = step_law(2.0, 0.5, 0.05, "remove", tail=1e-10)
COMPOSED = compose(LAW, 4, tail=1e-10, upper=True)
DPSGD = (2.0, 1.0, 4, 1e-6)

CASES = [
    ("noise_multiplier", lambda: check_dpsgd(1e300, *DPSGD[1:])),
    ("noise_multiplier", lambda: check_dpsgd(1e-300, *DPSGD[1:])),
    ("delta", lambda: check_dpsgd(*DPSGD[:3], 5e-324)),
    ("orders", lambda: rdp_epsilon(*DPSGD, orders=None)),
    ("low", lambda: classify(1.0, float("nan"), 1.1)),
    ("high", lambda: classify(1.0, 1.0, 0.0)),
    ("sigma", lambda: step_law(1e300, 0.5, 0.05, "remove", tail=1e-10)),
    ("h", lambda: step_law(2.0, 0.5, 2.0**-60, "remove", tail=1e-10)),
    ("law", lambda: compose(None, 4, tail=1e-10, upper=True)),
    ("steps", lambda: compose(LAW, 2**63, tail=1e-10, upper=True)),
    ("upper", lambda: compose(LAW, 4, tail=1e-10, upper="yes")),
    ("points", lambda: mean_bounds(LAW, points=10**10)),
    ("c", lambda: delta_curve("c", 1.0)),
    ("eps", lambda: delta_curve(COMPOSED, float("nan"))),
    ("target", lambda: epsilon_of(COMPOSED, 0.0)),
    ("rng", lambda: SampleContext(float("nan"), 1.0)),
    ("epsilon", lambda: SampleContext(np.random.default_rng(0), float("inf"))),
    ("prefix", lambda: ExactContext(None)),
    ("T", lambda: Threshold(float("inf"))),
    ("k", lambda: point(1, 2**63)),
    ("a", lambda: tail_ge(True, 2)),
    ("s", lambda: Factor("ge", 1, float("nan"))),
    ("hi", lambda: sum_terms({1: FIELD.one}, 0, 2**63)),
    ("factors", lambda: path_sum(None)),
    ("inputs", lambda: neighbour_pairs(2**63)),
    ("program", lambda: program_law(None, [(0, 0)])),
    ("window", lambda: program_law(lambda ctx, q: (), [(0,)], window=True)),
    ("pairs", lambda: prove(RR, epsilon=EPS, pairs=[("a",)])),
    ("delta", lambda: prove(RR, epsilon=EPS, delta=float("nan"))),
    ("points", lambda: prove(RR, epsilon=EPS, points=2**63)),
    ("expr", lambda: fail_set(None, EPS)),
    ("eps", lambda: exp_scale([sp.exp(EPS)], None)),
    ("L", lambda: to_polys(3 - sp.exp(EPS), EPS, 2**63)),
    ("lo_open", lambda: XDomain(sp.Integer(1), sp.oo, "yes", True, 1)),
    ("dom", lambda: positive_cells(sp.Poly(3 - sp.Symbol("x"), sp.Symbol("x")), None)),
    ("s", lambda: render_set("not a set")),
    ("digits", lambda: render_set(sp.Interval(0, 1), digits=2**63)),
    ("A", lambda: checked_coo([[1.0]], "A")),
]


@pytest.mark.parametrize("name,call", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_refused_naming_the_parameter(name, call):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert name in str(info.value)


def test_valid_calls_still_work():
    assert check_dpsgd(*DPSGD) is None
    assert classify(1.05, 1.0, 1.1)[0] == "inside"
    assert 0 < epsilon_of(COMPOSED, 1e-6) < 10 and delta_curve(COMPOSED, 1.0) >= 0
    assert prove(RR, epsilon=EPS, points=np.int64(2)).verdict == "proved"
    assert point(np.int64(1), np.int64(2)) == point(1, 2)
    assert sum_terms({1: FIELD.one}, np.int64(0), None) == 1 / (1 - FIELD.gens[0])
    assert neighbour_pairs(np.array([[0, 0], [1, 1]])) == [(0, 1), (1, 0)]
    assert render_set(sp.Interval.Lopen(0, 1), digits=np.int64(3)) == render_set(sp.Interval.Lopen(0, 1), digits=3)
    assert ExactContext([0, 1]).prefix == (0, 1) and Threshold(np.int64(3)).T == 3
    assert checked_coo(scipy.sparse.eye(2, format="csr"), "A").nnz == 2


def test_array_pair_and_tiny_target():
    from dpverify.exact.delta import delta_curve

    assert delta_curve(RR, np.array([0, 1]), EPS) == delta_curve(RR, (0, 1), EPS)
    with pytest.raises(ValueError, match="target"):
        epsilon_of(COMPOSED, 5e-324)
    with pytest.raises(TypeError, match="pair"):
        delta_curve(RR, 0, EPS)
