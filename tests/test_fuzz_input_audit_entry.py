"""Regression tests of the whole-API fuzz: the auditor's entry point, events, words and
white-box statistics refuse hostile input by name, accept numpy scalars and read-only arrays, and
refuse work beyond the budgets up front."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.audit.api import MAX_PAIRS, audit
from dpverify.audit.controls import FiniteMechanism
from dpverify.audit.events import Binner, PatternCode, make_event
from dpverify.audit.white_box import LawRatio, LogLikelihoodRatio, white_box_statistics
from dpverify.audit.words import values_words
from dpverify.selftest.claims.audit_api import audit_rows, exceedance_outcome
from dpverify.selftest.rare_event import RareEvent

VIEW = np.broadcast_to(np.zeros(1), (1_500_000_000,))  # a zero-stride view: 12 GB as float64, free as a view


def _gauss(d, rng, n):
    return rng.normal(float(np.sum(d)), 1.0, n)


AUDIT = dict(epsilon=1.0, pairs=[(0.0, 1.0)], samples=2000, rng=0)


@pytest.mark.parametrize("param, value, error", [
    ("force", math.nan, TypeError), ("force", "abc", TypeError), ("force", 0, TypeError), ("force", None, TypeError),
    ("stop_early", math.nan, TypeError), ("stop_early", "yes", TypeError), ("stop_early", 1, TypeError),
    ("stop_early", None, TypeError),
    ("pairs", "abc", TypeError), ("pairs", np.array(1.0), ValueError), ("pairs", np.zeros(2), ValueError),
    ("pairs", np.broadcast_to(np.zeros((1, 2)), (750_000_000, 2)), ValueError),
    ("pairs", [(0.0, 1.0)] * (MAX_PAIRS + 1), ValueError), ("pairs", [(math.nan, 1.0)], ValueError),
    ("pairs", [(0.0, [1.0, math.inf])], ValueError), ("pairs", np.array([[0.0, math.nan]]), ValueError),
    ("pairs", [math.nan], ValueError),
])
def test_audit_refuses_by_name(param, value, error):
    with pytest.raises(error, match=param):
        audit(_gauss, **{**AUDIT, param: value})


def test_audit_accepts_numpy_flags_and_pair_arrays():
    ro = np.array([[0.0, 1.0]])
    ro.flags.writeable = False
    ref = audit(_gauss, **AUDIT)
    for kw in ({"pairs": ro}, {"force": np.False_, "stop_early": np.True_}):
        r = audit(_gauss, **{**AUDIT, **kw})
        assert r.epsilon == ref.epsilon and r.pair == ref.pair  # the array is read as the same pairs


EVENT = make_event("bins", np.array([True, False, False, False]), Binner(np.arange(3), categorical=True))


@pytest.mark.parametrize("t, error", [(math.nan, ValueError), (math.inf, ValueError), (True, TypeError),
                                      (1 + 1j, TypeError), ("abc", TypeError), (np.array([0.0, math.nan]), ValueError),
                                      (VIEW, ValueError)])
def test_event_contains_refuses(t, error):
    with pytest.raises(error, match="t "):
        EVENT.contains(t)
    assert EVENT.contains(np.array([0, 1, 5])).tolist() == [True, False, False]


@pytest.mark.parametrize("outputs, error", [(math.inf, ValueError), (None, TypeError), ("abc", TypeError),
                                            (np.array([[0.0, math.nan]]), ValueError), (np.array(1), ValueError),
                                            (np.array([[1e308, -1e308]]), ValueError), (1 + 1j, TypeError),
                                            (np.broadcast_to(np.zeros((1, 2)), (750_000_000, 2)), ValueError)])
def test_pattern_code_refuses_outputs_by_name(outputs, error):
    with pytest.raises(error, match="outputs"):
        PatternCode()(outputs)


def test_pattern_code_range_names_low_high_and_accepts_np_bool():
    with pytest.raises(ValueError, match="high"):
        PatternCode(high=0)(np.array([[0, 1]]))
    code = PatternCode(0, 1, clip=np.False_)
    assert code.clip is False and repr(code) == "PatternCode(low=0, high=1, columns=(), clip=False)"
    assert PatternCode()([]).tolist() == []  # no rows: no codes


FINITE = FiniteMechanism(((0.75, 0.25), (0.25, 0.75)))


class _Lap:
    def log_density(self, data, outputs):
        return -np.abs(np.asarray(outputs) - data)


@pytest.mark.parametrize("cls, mech", [(LawRatio, FINITE), (LogLikelihoodRatio, _Lap())])
@pytest.mark.parametrize("param, value, error", [("mechanism", math.nan, TypeError), ("d", math.nan, ValueError),
                                                 ("d", math.inf, ValueError), ("d_prime", -math.inf, ValueError),
                                                 ("d_prime", [0.0, math.nan], ValueError)])
def test_white_box_statistics_refuse(cls, mech, param, value, error):
    with pytest.raises(error, match=param):
        cls(**{"mechanism": mech, "d": 0, "d_prime": 1, param: value})


@pytest.mark.parametrize("param, value", [("mechanism", math.nan), ("out", math.nan), ("out", np.array([0.0, math.nan])),
                                          ("out", "abc"), ("pair", np.array([0.0, math.nan]))])
def test_white_box_statistics_checks(param, value):
    with pytest.raises((TypeError, ValueError), match=param):
        white_box_statistics(**{"mechanism": FINITE, "pair": (0, 1), "out": np.zeros(3, dtype=np.int64), param: value})
    ro = np.array([0, 1])
    ro.flags.writeable = False
    assert [n for n, _ in white_box_statistics(FINITE, ro, np.zeros(3, dtype=np.int64))] == ["exact likelihood ratio"]


@pytest.mark.parametrize("call, param", [
    (lambda: values_words(np.broadcast_to(np.arange(1), (1_500_000_000,))), "values"),
    (lambda: exceedance_outcome(10**10), "audits"), (lambda: exceedance_outcome(2**63), "audits"),
    (lambda: audit_rows(RareEvent(1.0), range(10**6), epsilon=1.0), "seeds"),
    (lambda: audit_rows(RareEvent(1.0), np.array(1), epsilon=1.0), "seeds"),
])
def test_work_and_memory_refused_up_front(call, param):
    with pytest.raises((TypeError, ValueError), match=param):
        call()
