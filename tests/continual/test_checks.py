"""The room's input checks live in dpverify.continual.checks, and every entry point says the same thing."""

import numpy as np
import pytest

from dpverify.continual import checks, method_names, release, stream
from dpverify.continual.baselines import binary_release, boost_release
from dpverify.continual.fenwick import weighted_release
from dpverify.continual.kary import kary_release
from dpverify.continual.streams import BoundedStream

NOISE = "noise must be 'laplace' or 'discrete', got 'gaussian'"


@pytest.mark.parametrize("call", [
    lambda: release([1, 2, 3], 1.0, "fda", noise="gaussian"),
    lambda: stream(3, 1.0, "naive", noise="gaussian"),
    lambda: weighted_release([1, 2], 1.0, [0.5, 0.5], rng=0, noise="gaussian"),
    lambda: kary_release([1, 2], 1.0, noise="gaussian"),
    lambda: binary_release([1, 2], 1.0, noise="gaussian"),
    lambda: boost_release([1, 2], 1.0, noise="gaussian"),
    lambda: BoundedStream(3, 1.0, noise="gaussian"),
    lambda: checks.check_noise_scale(1.0, 0.5, "gaussian"),
])
def test_one_noise_kind_message(call):
    with pytest.raises(ValueError, match=NOISE):
        call()


@pytest.mark.parametrize("method", method_names())
def test_epsilon_range_is_the_rooms(method):
    lo, hi = checks.EPSILON_RANGE
    for eps in (lo / 10, hi * 10):
        with pytest.raises(ValueError, match="for continual release"):
            release(np.ones(4, dtype=int), eps, method, rng=0, noise="discrete")


def test_counts_and_horizon_checks():
    assert checks.check_count(np.int64(4)) == 4
    with pytest.raises(TypeError, match="a_t"):
        checks.check_count("4")
    with pytest.raises(ValueError, match="2\\^62"):
        checks.check_n(2**62)
    with pytest.raises(ValueError, match="total must stay below 2\\^62"):
        checks.check_total(np.array([2**61, 2**61], dtype=np.int64))
    with pytest.raises(TypeError, match="counts must be an integer array"):
        checks.check_total([1, 2])
