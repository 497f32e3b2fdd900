"""Regression tests for the whole-API fuzz (issue 26, item 7): the audit's screening,
floating-point grid, curve, projection, interval, sequential, Rényi and chunk helpers refuse hostile
input with an error naming the parameter, and still accept numpy scalars and read-only arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.audit.chunks import chunk_sizes
from dpverify.audit.controls.floating_point import OffGrid
from dpverify.audit.curves import MAX_GRID_POINTS, audit_delta_curve, gaussian_delta_curve
from dpverify.audit.float_grid import FloatReach, reachable
from dpverify.audit.intervals import poisson_log_ratio_lower
from dpverify.audit.projections import CoordinateSum, SignCount
from dpverify.audit.renyi import audit_rdp, audit_zcdp
from dpverify.audit.screening import available_tests, elimination_schedule, minimum_count
from dpverify.audit.sequential import stage_plan
from dpverify.audit.statistical import epsilon_lower_bound


def _gauss(d, rng, n):
    return rng.normal(float(d), 1.0, n)


def _curve(**kw):
    args = {"pair": (0.0, 1.0), "delta_curve": gaussian_delta_curve(1.0), "epsilons": [0.5, 1.0], "samples": 2000,
            "rng": 0}
    return audit_delta_curve(_gauss, **{**args, **kw})


_VIEW = np.broadcast_to(np.array([0.5]), (1_500_000_000,))  # 12 GB as float64, free as a view

REFUSED = [
    (chunk_sizes, {"n": 2**63, "chunk": 4}, ValueError, "n = "),
    (chunk_sizes, {"n": 10**10, "chunk": 4}, ValueError, "n = "),
    (chunk_sizes, {"n": True, "chunk": 4}, TypeError, "n must"),
    (chunk_sizes, {"n": 10, "chunk": 0}, ValueError, "chunk"),
    (chunk_sizes, {"n": 10, "chunk": 1.5}, TypeError, "chunk"),
    (chunk_sizes, {"n": 10, "chunk": None}, TypeError, "chunk"),
    (OffGrid, {"exponent": math.nan}, TypeError, "exponent"),
    (OffGrid, {"exponent": True}, TypeError, "exponent"),
    (OffGrid, {"exponent": 2**63}, ValueError, "exponent"),
    (reachable, {"x": [0.1, math.nan], "c": 0.0}, ValueError, "x"),
    (reachable, {"x": [0.1], "c": math.inf}, ValueError, "c"),
    (reachable, {"x": [0.1], "c": True}, TypeError, "c"),
    (poisson_log_ratio_lower, {"k_p": 2**63, "k_q": 10, "alpha": 0.05}, ValueError, "k_p"),
    (poisson_log_ratio_lower, {"k_p": 30, "k_q": 1e308, "alpha": 0.05}, ValueError, "k_q"),
    (CoordinateSum, {"flags": None}, ValueError, "flags"),
    (CoordinateSum, {"flags": "abc"}, ValueError, "flags"),
    (SignCount, {"medians": np.zeros(2), "flags": True}, ValueError, "flags"),
    (elimination_schedule, {"n_pairs": None}, TypeError, "n_pairs"),
    (elimination_schedule, {"n_pairs": math.nan}, TypeError, "n_pairs"),
    (minimum_count, {"n_values": math.inf}, TypeError, "n_values"),
    (minimum_count, {"n_values": 10, "n_check": 1.5}, TypeError, "n_check"),
    (available_tests, {"delta": math.nan}, ValueError, "delta"),
    (available_tests, {"delta": "abc"}, TypeError, "delta"),
    (stage_plan, {"n": 10_000, "alpha": 0.05, "min_stage": None}, TypeError, "min_stage"),
    (_curve, {"epsilons": True}, TypeError, "epsilons"),
    (_curve, {"epsilons": "abc"}, TypeError, "epsilons"),
    (_curve, {"epsilons": [1 + 1j]}, TypeError, "epsilons"),
    (_curve, {"epsilons": _VIEW}, ValueError, "epsilons"),
    (_curve, {"epsilons": [0.5] * (MAX_GRID_POINTS + 1)}, ValueError, "epsilons"),
    (_curve, {"selection_fraction": 5e-324}, ValueError, "selection_fraction"),
    (lambda **kw: audit_rdp(_gauss, alpha=2.0, epsilon=1.0, pair=(0.0, 1.0), samples=2000, rng=0, **kw),
     {"epsilons": [0.5] * 10**6}, ValueError, "epsilons"),
    (lambda **kw: audit_zcdp(_gauss, rho=0.5, pair=(0.0, 1.0), samples=2000, rng=0, **kw),
     {"epsilons": _VIEW}, ValueError, "epsilons"),
    (lambda **kw: epsilon_lower_bound(_gauss, 0.0, 1.0, samples=2000, rng=0, **kw),
     {"selection_fraction": 5e-324}, ValueError, "selection_fraction"),
]


@pytest.mark.parametrize("fn, kwargs, exc, word", REFUSED, ids=[f"{i}-{next(iter(c[1]))}" for i, c in
                                                                 enumerate(REFUSED)])
def test_refused_naming_the_parameter(fn, kwargs, exc, word):
    with pytest.raises(exc, match=word):
        fn(**kwargs)


def test_numpy_scalars_and_read_only_arrays_accepted():
    assert chunk_sizes(np.int64(10), np.int64(4)) == chunk_sizes(10, 4) == [4, 4, 2]
    assert OffGrid(np.int64(-10)) == OffGrid(-10)
    assert stage_plan(10_000, 0.05, min_stage=np.int64(2_000)) == stage_plan(10_000, 0.05)
    assert minimum_count(np.int64(10_000), np.int64(500)) == 2000
    assert available_tests(np.float32(0.0)) == ("binomial", "poisson")
    pair = np.array([0.0, 1.0])
    pair.flags.writeable = False
    assert _curve(pair=pair).delta_lower == _curve().delta_lower  # the same draws: the same bounds


def test_statistics_still_read_non_finite_outputs():
    """The checks sit at the public entry: FloatReach still codes a mechanism's inf (reachable from
    both centres) and NaN (from neither) as before, and the k_p = 0 marker is still −inf."""
    assert FloatReach((0.0,), (1.0,))(np.array([np.inf, np.nan])).tolist() == [3, 0]
    assert CoordinateSum(np.array([np.inf]))(np.array([[1.0, np.inf]])).tolist() == [1.0]
    assert float(poisson_log_ratio_lower(0, 5, 0.1)) == -math.inf
