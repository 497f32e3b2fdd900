"""The mechanism protocol: as_mechanism conversions and the sampling rules of checked_sample."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import dpverify.audit as audit
from dpverify.audit import Mechanism, MechanismError, as_mechanism, checked_sample, epsilon_lower_bound
from dpverify.audit.controls import LaplaceMechanism
from dpverify.selftest.controls import KRR
from dpverify.audit.protocol import FunctionMechanism
from dpverify.mechanisms import Neighbours

RNG = np.random.default_rng


def lap(d, rng, n):
    return float(d) + rng.laplace(0.0, 1.0, n)


def test_one_error_class_for_the_auditor_and_the_protocol():
    from dpverify.audit import statistical

    assert audit.MechanismError is statistical.MechanismError is MechanismError
    assert issubclass(MechanismError, RuntimeError)


def test_callable_becomes_protocol_object():
    m = as_mechanism(lap, epsilon=1.0, relation="|d - d'| <= 1")
    assert isinstance(m, Mechanism) and isinstance(m, FunctionMechanism)
    assert (m.name, m.epsilon, m.delta, str(m.relation)) == ("lap", 1.0, 0.0, "|d - d'| <= 1")
    assert isinstance(m.relation, Neighbours) and m.relation.domain.shape == ()  # free text: the scalar domain
    assert not hasattr(m, "output_distribution") and not hasattr(m, "delta_curve") and not hasattr(m, "sensitivity")
    assert checked_sample(m, 0.0, RNG(0), 5).shape == (5,)
    # same seed, same outputs; the object is picklable (runs on workers)
    assert np.array_equal(m.sample(0.0, RNG(1), 4), pickle.loads(pickle.dumps(m)).sample(0.0, RNG(1), 4))


def test_protocol_object_returned_as_is_and_contradicting_claims_refused():
    m = as_mechanism(lap, epsilon=1.0)
    assert as_mechanism(m) is m
    assert as_mechanism(m, epsilon=1.0) is m
    with pytest.raises(ValueError, match="epsilon=2.0 contradicts"):
        as_mechanism(m, epsilon=2.0)


def test_class_instantiated_with_params_and_claims_from_attributes():
    m = as_mechanism(LaplaceMechanism, epsilon=0.5, scale_factor=1.0, relation="|d - d'| <= 1")
    assert m.epsilon == 0.5 and m.name == "LaplaceMechanism(epsilon=0.5, scale_factor=1.0)"
    assert m.function == LaplaceMechanism(0.5)
    k = as_mechanism(KRR, k=3, epsilon=1.0)
    assert set(np.unique(checked_sample(k, 1, RNG(0), 200))) <= {0, 1, 2}
    with pytest.raises(TypeError, match="takes no parameter 'bogus'"):
        as_mechanism(KRR, k=3, epsilon=1.0, bogus=2)
    # an instance carrying .epsilon: the claim is read from it; a Mechanism instance is returned as is
    assert as_mechanism(LaplaceMechanism(0.25)).epsilon == 0.25
    assert as_mechanism(LaplaceMechanism, epsilon=0.25) == LaplaceMechanism(0.25)


def test_optional_members_present_only_when_given():
    law = lambda d: (np.array([0, 1]), np.array([0.75, 0.25]) if d == 0 else np.array([0.25, 0.75]))  # noqa: E731
    m = as_mechanism(lambda d, rng, n: rng.integers(0, 2, n), epsilon=math.log(3), output_distribution=law,
                     sensitivity=1.0, delta_curve=lambda e: 0.0, noise="none")
    assert hasattr(m, "output_distribution") and m.output_distribution(0)[1][0] == 0.75
    assert m.sensitivity == 1.0 and m.delta_curve(0.3) == 0.0 and m.noise == "none"


@pytest.mark.parametrize(
    "claims, err, match",
    [
        ({}, ValueError, "epsilon must be given"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"epsilon": -1.0}, ValueError, "epsilon"),
        ({"epsilon": math.nan}, ValueError, "epsilon"),
        ({"epsilon": math.inf}, ValueError, "finite unless a delta_curve"),
        ({"epsilon": "1"}, TypeError, "epsilon"),
        ({"epsilon": 1.0, "delta": 1.0}, ValueError, "delta"),
        ({"epsilon": 1.0, "delta": -0.1}, ValueError, "delta"),
        ({"epsilon": 1.0, "bogus": 1}, TypeError, "unknown claim 'bogus'"),
        ({"epsilon": 1.0, "delta_curve": 3}, TypeError, "delta_curve must be callable"),
    ],
)
def test_bad_claims(claims, err, match):
    with pytest.raises(err, match=match):
        as_mechanism(lap, **claims)


def test_infinite_epsilon_only_with_a_curve():
    m = as_mechanism(lap, epsilon=math.inf, delta_curve=lambda e: math.exp(-e))
    assert m.epsilon == math.inf and m.delta_curve(0.0) == 1.0


def test_not_a_mechanism():
    with pytest.raises(TypeError, match="must be a Mechanism"):
        as_mechanism(3.0, epsilon=1.0)


@pytest.mark.parametrize(
    "fn, match",
    [
        (lambda d, rng, n: 1 / 0, r"raised ZeroDivisionError: division by zero in sample\(data=0.5, rng, n=4\)"),
        (lambda d, rng, n: np.zeros(n + 1), r"returned shape \(5,\), expected \(4,\) or \(4, k\)"),
        (lambda d, rng, n: np.zeros((n, 2, 2)), r"returned shape \(4, 2, 2\)"),
        (lambda d, rng, n: np.float64(1.0), r"returned shape \(\)"),
        (lambda d, rng, n: np.array(["a"] * n), "returned non-numeric outputs of dtype <U1"),
        (lambda d, rng, n: np.r_[np.zeros(n - 1), np.nan], "returned NaN or inf"),
        (lambda d, rng, n: np.r_[np.zeros(n - 1), -np.inf], "returned NaN or inf"),
    ],
)
def test_checked_sample_rules(fn, match):
    m = FunctionMechanism(fn, epsilon=1.0, name="broken")
    with pytest.raises(MechanismError, match=r"mechanism 'broken' " + match):
        checked_sample(m, 0.5, RNG(0), 4)


def test_checked_sample_accepts_vectors_ints_bools_and_plain_callables():
    assert checked_sample(lambda d, rng, n: rng.random((n, 3)), 0, RNG(0), 4).shape == (4, 3)
    assert checked_sample(lambda d, rng, n: np.ones(n, dtype=bool), 0, RNG(0), 2).dtype == bool
    assert checked_sample(lambda d, rng, n: [1] * n, 0, RNG(0), 2).tolist() == [1, 1]


def test_checked_sample_names_an_array_input_briefly():
    m = FunctionMechanism(lambda d, rng, n: np.zeros(n + 1), epsilon=1.0, name="b")
    with pytest.raises(MechanismError, match=r"data=array\(\[0, 1, 2, 3, 4, 5, 6, 7, \.\.\.\]\) \(shape \(100,\)\)"):
        checked_sample(m, np.arange(100), RNG(0), 3)


@pytest.mark.parametrize("n", [0, -1, 2.5, True, None])
def test_checked_sample_bad_n(n):
    with pytest.raises((ValueError, TypeError), match="n"):
        checked_sample(lambda d, rng, k: np.zeros(k), 0, RNG(0), n)


def test_checked_sample_bad_rng():
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        checked_sample(lambda d, rng, k: np.zeros(k), 0, 3, 2)


def test_function_mechanism_runs_in_the_auditor_with_the_rules():
    m = as_mechanism(LaplaceMechanism, epsilon=1.0)
    r = epsilon_lower_bound(m, 0.0, 1.0, samples=20_000, rng=0)
    assert 0.0 < r.epsilon <= 1.0
    bad = FunctionMechanism(lambda d, rng, n: np.full(n, np.nan if d else 0.0), epsilon=1.0, name="nan-on-1")
    with pytest.raises(MechanismError, match=r"'nan-on-1' returned NaN or inf in sample\(data=1.0"):
        epsilon_lower_bound(bad, 0.0, 1.0, samples=1_000, rng=0)


def test_inputs_not_mutated():
    d = np.arange(4.0)
    d.setflags(write=False)
    m = as_mechanism(lambda x, rng, n: np.tile(x, (n, 1)) + rng.random((n, 4)), epsilon=1.0)
    assert checked_sample(m, d, RNG(0), 3).shape == (3, 4)
    assert d.tolist() == [0.0, 1.0, 2.0, 3.0]
