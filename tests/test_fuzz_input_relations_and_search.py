"""Regression tests for the whole-API fuzz (issue 26, item 7): relations, domains, the pair
search, the local search and the audit CLI's inputs refuse hostile input by name, never hang or crash."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from dpverify.audit.cli_inputs import audit_pairs, literal, parse_shape, parse_values, resolve, stated_claim
from dpverify.audit.local_search import domain_values, local_search, moves
from dpverify.audit.search import candidate_pairs, distinct_inputs, domain_text, searched_relation
from dpverify.mechanisms.domain import Domain, check_pairs, number_text
from dpverify.mechanisms.relations import Neighbours, Pairs, as_relation

VIEW = np.broadcast_to(np.array([1.0]), (1_500_000_000,))  # 12 GB as float64, free as a view
VIEW_PAIRS = np.broadcast_to(np.array([[0.0, 1.0]]), (750_000_000, 2))
NAN_PAIRS = np.array([[math.nan, 1.0]])
REL = Neighbours(shape=(2,), kind="replace", low=0, high=2, integer=True)


def mech(d, rng, n):
    return rng.normal(float(np.sum(d)), 1.0, n)


@pytest.mark.parametrize("call, words", [
    (lambda: Neighbours(shape=VIEW), "shape"),                        # was a hang
    (lambda: Neighbours(shape=math.inf), "shape"),                    # was OverflowError
    (lambda: Neighbours(shape=True), "shape"),                        # was accepted as (1,)
    (lambda: Neighbours(shape=1 + 1j), "shape"),
    (lambda: Neighbours(kind=None), "kind"),
    (lambda: Neighbours(low=math.nan, high=1.0), "low"),
    (lambda: Neighbours(low=0.0, high="abc"), "high"),
    (lambda: Neighbours(integer=0), "integer"),
    (lambda: Neighbours(values=VIEW), "values with 1500000000 entries"),  # was a hang
    (lambda: Neighbours(values=3.0), "values"),
    (lambda: Neighbours(values=np.array(1.0)), "values"),
    (lambda: Pairs(VIEW_PAIRS), "pairs"),                             # was MemoryError
    (lambda: Pairs(NAN_PAIRS), "pairs must not hold NaN"),
    (lambda: Pairs(np.array(1.0)), "pairs"),
    (lambda: as_relation(()), "relation"),
    (lambda: Domain(integer=math.nan), "integer"),
    (lambda: Domain(values=VIEW), "values with 1500000000 entries"),   # was MemoryError
    (lambda: Domain(values=NAN_PAIRS[0]), "values must not hold NaN"),
    (lambda: Domain(values=np.array(1.0)), "values"),
    (lambda: number_text(math.inf), "x must be finite"),
    (lambda: number_text(True), "x must be a real number"),
    (lambda: check_pairs("ab"), "pairs"),
    (lambda: distinct_inputs(VIEW_PAIRS), "pairs"),                   # was a hang
    (lambda: distinct_inputs(2**63), "pairs"),
    (lambda: distinct_inputs("abc"), "pairs"),                        # was IndexError
    (lambda: distinct_inputs(NAN_PAIRS), "pairs must not hold NaN"),
    (lambda: searched_relation(None, [(0.0, 1.0)]), "mechanism"),
    (lambda: searched_relation(mech, NAN_PAIRS), "pairs"),
    (lambda: candidate_pairs(mech, [(0.0, 1.0)], 0), "g must be a numpy.random.Generator"),
    (lambda: domain_text(math.nan), "relation"),
    (lambda: domain_values(None), "relation"),
    (lambda: moves(REL, (np.array([1.0, 1.0]), np.array([True, False]))), "pair"),
    (lambda: moves(REL, [np.ones(2)] * 1000), "pair"),
    (lambda: moves(REL, (np.ones(2), np.zeros(2)), rng=math.nan), "rng"),
    (lambda: local_search(mech, REL, REL.candidates(0), budget=0, n_eval=1000, entropy=0), "budget"),
    (lambda: local_search(mech, REL, REL.candidates(0), budget=10**4, n_eval=1000, entropy=0, key=None), "key"),
    (lambda: local_search(mech, REL, REL.candidates(0), budget=10**4, n_eval=1000, entropy=0, alpha=0), "alpha"),
    (lambda: local_search(mech, REL, REL.candidates(0), budget=10**4, n_eval=1000, entropy=0, n_small=2**70),
     "n_small"),
    (lambda: local_search(mech, REL, [(np.ones(2), np.zeros(2))] * (10**5 + 1), budget=10**4, n_eval=1000,
                          entropy=0), "candidates holds 100001 pairs"),
    (lambda: literal(None), "text"),
    (lambda: parse_shape(0), "--shape"),
    (lambda: parse_values(math.nan), "--values"),
    (lambda: parse_values("[[1], [2]]"), "--values"),
    (lambda: resolve(None, "--search"), "spec"),
    (lambda: resolve("dpverify.mechanisms:Neighbours", 0), "flag"),
    (lambda: stated_claim(1), "mech"),
    (lambda: audit_pairs(math.nan, mech), "args"),
])
def test_hostile_input_is_refused_by_name(call, words):
    with pytest.raises((TypeError, ValueError), match=words.replace("(", r"\(").replace(")", r"\)")):
        call()


@pytest.mark.parametrize("shape, want", [
    (np.array([2, 3]), (2, 3)), (3, (3,)), ((), ()), ([], ()), (np.int64(2), (2,))])
def test_neighbours_accepts_integer_shapes(shape, want):
    ro = shape.copy() if isinstance(shape, np.ndarray) else shape
    if isinstance(ro, np.ndarray):
        ro.flags.writeable = False  # read-only arrays are accepted
    assert Neighbours(shape=ro, kind="l1", default_domain=True).shape == want


def test_valid_inputs_unchanged():
    """Valid input gives what it gave: the domain text, pairs (read-only arrays too), the CLI's domain."""
    rel = Neighbours(shape=(3,), kind="linf", low=0, high=2, integer=np.bool_(False))
    assert rel.describe_domain() == "3 real entries in [0, 2]"
    assert Domain(values=(True, False)).describe() == "a scalar in {1, 0}"  # bools as numbers, as before
    ro = np.array([[0.0, 1.0], [1.0, 2.0]])
    ro.flags.writeable = False
    assert as_relation(ro).candidates() == [(0.0, 1.0), (1.0, 2.0)]
    assert distinct_inputs(ro)[1] == [(0, 1), (1, 2)]
    assert searched_relation(mech, "|d - d'| <= 1").default_domain
    args = SimpleNamespace(mechanism="m:f", search="replace", shape="2", bound=1.0, low=0.0, high=2.0, integer=True,
                           values=None, default_domain=False, d=None, d_prime=None)
    assert audit_pairs(args, mech) == REL
    a = np.ones(2)
    a.flags.writeable = False  # the doctest's pair of moves(), one input read-only
    assert [(x.tolist(), y.tolist()) for x, y in moves(REL, (a, np.array([0.0, 1.0])))][:2] == \
        [([2.0, 1.0], [0.0, 1.0]), ([1.0, 1.0], [2.0, 1.0])]
