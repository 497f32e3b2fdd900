"""The shared validation module rejects bad input with errors naming the parameter."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpverify import validation as v


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


# ----------------------------------------------------------------------------- issue 10 hardening


@pytest.mark.parametrize("bad", [[2**63], [1e308], [2.0**63], [2**70], np.array([2**63], dtype=np.uint64)])
def test_counts_refuse_int64_wraparound(bad):
    with pytest.raises(ValueError, match=r"counts must be < 2\^63"):
        v.check_counts(bad)


def test_counts_total_bounded_and_largest_accepted():
    assert v.check_counts([2**62 - 1]).tolist() == [2**62 - 1]
    with pytest.raises(ValueError, match="counts must total"):
        v.check_counts([2**61, 2**61, 2**61])


@pytest.mark.parametrize("bad", [[0.2 + 1j, 0.8], np.array([0.2, 0.8], dtype=complex), [True, False],
                                 np.array([1, 0], dtype=bool), ["0.2", "0.8"]])
def test_arrays_refuse_complex_bool_strings(bad):
    with pytest.raises(TypeError, match="pi"):
        v.check_probability_vector(bad, "pi")


def test_float32_probability_vector_accepted_and_renormalised():
    pi32 = np.array([0.1, 0.2, 0.7], dtype=np.float32)
    assert abs(float(pi32.sum(dtype=np.float64)) - 1) > 1e-9  # off by float32 rounding
    got = v.check_probability_vector(pi32)
    assert got.dtype == np.float64 and abs(got.sum() - 1) < 1e-15
    P32 = np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]], dtype=np.float32)
    assert np.allclose(v.check_row_stochastic(P32).sum(axis=1), 1, atol=1e-15)
    with pytest.raises(ValueError, match="pi must sum to 1"):
        v.check_probability_vector(np.array([0.1, 0.2, 0.6], dtype=np.float32))


def test_numpy_scalars_and_zero_d_arrays_accepted():
    assert v.check_epsilon(np.float32(0.5)) == 0.5
    assert v.check_epsilon(np.array(2.0)) == 2.0
    assert v.check_positive_int(np.int64(3), "n") == 3
    assert v.check_positive_int(np.array(3), "n") == 3
    assert v.check_nonneg_int(np.uint8(0), "n") == 0
    with pytest.raises(TypeError, match="n"):
        v.check_positive_int(np.bool_(True), "n")
    with pytest.raises(ValueError, match="epsilon must be finite"):
        v.check_epsilon(10**400)
    with pytest.raises(ValueError, match="n must be <= 10"):
        v.check_positive_int(11, "n", maximum=10)


def test_memory_budget_and_size(monkeypatch):
    assert v.memory_budget() == v.MEMORY_BUDGET_BYTES == 4 * 2**30
    v.check_budget(v.MEMORY_BUDGET_BYTES, "x")
    with pytest.raises(ValueError, match="n = 10 is too large.*DPVERIFY_MEMORY_BUDGET"):
        v.check_budget(v.MEMORY_BUDGET_BYTES + 1, "n = 10")
    monkeypatch.setenv("DPVERIFY_MEMORY_BUDGET", "1000")
    assert v.memory_budget() == 1000
    with pytest.raises(ValueError, match="size"):
        v.check_size(200, "size")  # 1600 bytes > 1000
    monkeypatch.setenv("DPVERIFY_MEMORY_BUDGET", "-5")
    with pytest.raises(ValueError, match="DPVERIFY_MEMORY_BUDGET"):
        v.memory_budget()
    monkeypatch.delenv("DPVERIFY_MEMORY_BUDGET")
    assert v.check_size(None, broadcast=(2, 3)) == (2, 3)
    assert v.check_size((4, 3), broadcast=(3,)) == (4, 3)
    for bad, exc in ((0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError), ("3", TypeError),
                     ((2, 0), ValueError), (10**12, ValueError)):
        with pytest.raises(exc, match="size"):
            v.check_size(bad)
    with pytest.raises(ValueError, match="size"):
        v.check_size((4, 2), broadcast=(3,))


def test_work_budget(monkeypatch):
    v.check_work(10**9, "trials")
    with pytest.raises(ValueError, match="trials .* too much work"):
        v.check_work(10**10, "trials")
    monkeypatch.setenv("DPVERIFY_WORK_BUDGET", "10")
    with pytest.raises(ValueError, match="trials"):
        v.check_work(11, "trials")


def test_bool_flag():
    assert v.check_bool(True, "exact") is True and v.check_bool(np.bool_(False), "exact") is False
    for bad in ("abc", 1, None):
        with pytest.raises(TypeError, match="exact"):
            v.check_bool(bad, "exact")


def test_edge_counterexamples_from_the_issue():
    """Each counterexample of issue 10's bad-input list, now refused or correct."""
    from dpverify.datasets import ADULT_BOUNDS, MAGIC_BOUNDS, SHA256
    from dpverify.primitives import (discrete_laplace, exponential_probabilities, geometric_mechanism, krr_matrix,
                                     laplace_alpha, laplace_failure_probability, laplace_scale, randomized_response,
                                     simulate_failure_probability)
    from dpverify.rr import optimal_mechanism
    from dpverify.rr.nary import extreme_points
    from dpverify.rr.simulate import estimate_distribution

    with pytest.raises(ValueError, match="output_counts"):
        estimate_distribution([[0.75, 0.25], [0.25, 0.75]], [2**63, 1])
    with pytest.raises(ValueError, match="scale"):
        discrete_laplace(1e308, rng=0)
    with pytest.raises(ValueError, match="epsilon"):
        geometric_mechanism([1], 1, 1e-300, rng=0)
    for eps in (1e308, 2.0**70, 5e-324):
        for P in (krr_matrix(3, eps), exponential_probabilities([0.0, 1.0], 1.0, eps)):
            assert np.isfinite(P).all() and np.allclose(np.sum(P, axis=-1), 1)
        assert randomized_response([0, 1, 2], 3, eps, rng=0).shape == (3,)
        assert len(extreme_points(2, eps)) >= 1
    b = laplace_scale(1.0, 1e308)  # subnormal, rounded up: the smallest float with b·ε ≥ Δ exactly
    assert Fraction(b) * Fraction(1e308) >= 1 and Fraction(float(np.nextafter(b, 0.0))) * Fraction(1e308) < 1
    with pytest.raises(ValueError, match="epsilon"):
        laplace_scale(5e-324, 1e308)  # underflows to 0
    with pytest.raises(ValueError, match="epsilon"):
        laplace_alpha(1.0, 5e-324, 10, 0.05)
    assert laplace_failure_probability(0.0, 1.0, 1.0, 4) == 1.0
    with pytest.raises(ValueError, match="trials"):
        simulate_failure_probability(1.0, 1.0, 1.0, 1, 10**10)
    for bad in (-1, math.nan):
        with pytest.raises(ValueError, match="tol"):
            extreme_points(2, 1.0, tol=bad)
    with pytest.raises(TypeError, match="pi"):
        optimal_mechanism([0.2 + 1j, 0.8], 1.0)
    with pytest.raises(ValueError, match="pi with 40000 entries"):
        optimal_mechanism(np.full(40_000, 1 / 40_000), 1.0)
    with pytest.raises(TypeError):
        SHA256["adult.data"] = "x"
    for lo, hi in (ADULT_BOUNDS, MAGIC_BOUNDS):
        with pytest.raises(ValueError):
            lo[0] = 99.0
        assert isinstance((lo, hi), tuple) and not hi.flags.writeable


def test_pca_epsilon_extremes():
    from dpverify.pca.corrected import CorrectedPPCADP
    from dpverify.pca.pca_ppdp import PCABasedPPDP

    X = np.random.default_rng(0).random((20, 3))
    bounds = (np.zeros(3), np.ones(3))
    for eps in (1e308, 2.0**70):
        for mech in (CorrectedPPCADP(k=1, epsilon=eps, bounds=bounds), PCABasedPPDP(k=1, epsilon=eps)):
            assert np.isfinite(mech.fit_publish(X, rng=0)).all()
    for eps in (5e-324, 1e-200):
        for mech in (CorrectedPPCADP(k=1, epsilon=eps, bounds=bounds), PCABasedPPDP(k=1, epsilon=eps)):
            with pytest.raises(ValueError, match="epsilon"):
                mech.fit_publish(X, rng=0)
    with pytest.raises(ValueError, match="reps"):
        PCABasedPPDP(k=1, epsilon=1.0).publish_many(X, 10**9, rng=0)
    with pytest.raises(ValueError, match="bounds"):
        CorrectedPPCADP(k=1, epsilon=1.0, bounds=(np.array([0.0, np.nan, 0.0]), np.ones(3)))


def test_to_jsonable_cycles_and_bad_gzip(tmp_path):
    from dpverify.claims.evidence import to_jsonable
    from dpverify.datasets import load_magic

    d = {"a": 1}
    d["self"] = d
    with pytest.raises(ValueError, match="cycle"):
        to_jsonable(d)
    assert to_jsonable({"shared": [[1], [1]]}) == {"shared": [[1], [1]]}
    bad = tmp_path / "magic.gz"
    bad.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="gzip"):
        load_magic(bad)
