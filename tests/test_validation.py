"""The shared validation module rejects bad input with errors naming the parameter."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpverify import _validation as v


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, -math.inf])
def test_epsilon_rejects(bad):
    with pytest.raises(ValueError, match="epsilon"):
        v.check_epsilon(bad)


@pytest.mark.parametrize("bad", ["1", None, True])
def test_epsilon_type(bad):
    with pytest.raises(TypeError, match="epsilon"):
        v.check_epsilon(bad)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2, math.nan])
def test_delta_rejects(bad):
    with pytest.raises(ValueError, match="delta"):
        v.check_delta(bad)


def test_counts():
    a = [1, 2, 3]
    out = v.check_counts(a)
    assert out.dtype == np.int64 and a == [1, 2, 3]
    assert v.check_counts(np.array([1.0, 2.0])).tolist() == [1, 2]
    for bad, msg in (([1, -1], "non-negative"), ([1.5], "integers"), ([math.nan], "finite"), ([[1]], "1-dimensional")):
        with pytest.raises(ValueError, match="counts"):
            v.check_counts(bad)
    with pytest.raises(ValueError, match="length 3"):
        v.check_counts([1, 2], length=3)


def test_probability_vector_and_matrix():
    with pytest.raises(ValueError, match="pi must sum to 1"):
        v.check_probability_vector([0.3, 0.3])
    with pytest.raises(ValueError, match="row 1"):
        v.check_row_stochastic([[0.5, 0.5], [0.2, 0.7]])
    with pytest.raises(ValueError, match="non-negative"):
        v.check_row_stochastic([[1.5, -0.5], [0.2, 0.8]])


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_epsilon_property(x):
    if math.isfinite(x) and x > 0:
        assert v.check_epsilon(x) == x
    else:
        with pytest.raises(ValueError):
            v.check_epsilon(x)


def test_no_mutation():
    arr = np.array([1.0, 2.0])
    out = v.check_finite_array(arr, "x")
    out[0] = 99
    assert arr[0] == 1.0


def test_generator():
    assert isinstance(v.as_generator(None), np.random.Generator)
    assert v.as_generator(3).random() == np.random.default_rng(3).random()
    with pytest.raises(TypeError, match="rng"):
        v.as_generator("seed")
