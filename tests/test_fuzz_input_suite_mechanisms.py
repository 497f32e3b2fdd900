"""Regression tests for the whole-API fuzz (issue 26, item 7): the benchmark mechanisms of
``dpverify.audit.suite`` refuse hostile parameters by name at construction (never a hang on 2^63
hashes or records, never an unnamed error), and their valid values still give the same mechanism."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from dpverify.audit.suite import (CASES, SVT1, SVT4, SVT34Parallel, Case, ExponentialMedian, Laplace, LaplaceParallel,
                                  NumericalSVT, OneTimeRappor, PrefixSum, Rappor, TruncatedGeometric)
from dpverify.audit.suite.base import vector_of
from dpverify.audit.suite.rappor import murmur3_32

VIEW = np.broadcast_to(np.array([1.0]), (1_500_000_000,))  # 12 GB as float64, free as a view


@pytest.mark.parametrize("call, words", [
    (lambda: Rappor(hashes=2**63), "hashes must be <= 64"),             # was a hang
    (lambda: Rappor(hashes=1.5), "hashes must be an integer"),
    (lambda: OneTimeRappor(size=10**10), "size = 10000000000"),          # was MemoryError
    (lambda: Rappor(size=0), "size must be >= 1"),
    (lambda: Rappor(high=2**63), "high"),                                # was a hang
    (lambda: Rappor(high=1e308), "high must be an integer"),             # was a hang
    (lambda: Rappor(low=math.nan), "low must be an integer"),            # was an unnamed ValueError
    (lambda: Rappor(low=math.inf), "low"),                               # was OverflowError
    (lambda: Rappor(low=10, high=10), "high must be in [low + 1"),
    (lambda: Rappor(f=True), "f must be a real number"),                 # was accepted as 1
    (lambda: Rappor(q=None), "q must be a real number"),
    (lambda: Rappor(p=1.5), "p must be in [0, 1]"),
    (lambda: murmur3_32("abc", 0), "data must be bytes"),
    (lambda: murmur3_32(b"abc", -1), "seed must be an integer in [0, 4294967295]"),
    (lambda: murmur3_32(b"abc", 1.5), "seed must be an integer"),
    (lambda: ExponentialMedian(records=2**63), "records=9223372036854775808"),  # was a hang
    (lambda: ExponentialMedian(records=0), "records must be >= 1"),
    (lambda: ExponentialMedian(top=math.nan), "top must be an integer"),
    (lambda: ExponentialMedian(records=1, top=10**5), "records=1, top=100000"),  # beyond the memory budget
    (lambda: ExponentialMedian(records=3, top=99), "too much work"),     # ran 5 minutes
    (lambda: TruncatedGeometric(n=2**63), "n=9223372036854775808"),      # was a hang
    (lambda: TruncatedGeometric(epsilon=5e-324), "epsilon=5e-324"),      # was OverflowError
    (lambda: TruncatedGeometric(epsilon=1e308), "epsilon must be < 2e"),  # was an unnamed TypeError
    (lambda: LaplaceParallel(k=2**40), "k = 1099511627776"),
    (lambda: LaplaceParallel(k=True), "k must be an integer"),
    (lambda: PrefixSum(k=10**10), "k must be <= 1000000"),
    (lambda: SVT1(c=0), "c must be >= 1"),
    (lambda: SVT1(c=10**400), "c must be <= 9223372036854775807"),
    (lambda: SVT4(1e308, c=2**60), "(1 + 6c)/4 * epsilon must be finite"),  # was a true ε of inf
    (lambda: LaplaceParallel(20, 1e308), "k * epsilon must be finite"),      # was a claim of inf
    (lambda: PrefixSum(1e308), "k * epsilon must be finite"),
    (lambda: SVT34Parallel(c=math.nan), "c must be an integer"),
    (lambda: SVT4(threshold=math.nan), "threshold must be finite"),      # was accepted
    (lambda: NumericalSVT(threshold="abc"), "threshold must be a real number"),
    (lambda: vector_of(VIEW), "data with 1500000000 entries"),           # was a hang
    (lambda: vector_of([True, False]), "data must be numeric"),          # was accepted as 1.0, 0.0
    (lambda: vector_of(1 + 1j), "data must be real"),
    (lambda: vector_of([]), "data must be a non-empty"),
    (lambda: Case("x", None, 0.1), "make must be callable"),
    (lambda: Case("x", Laplace, math.inf), "dpsniper must be finite"),
    (lambda: Case("x", Laplace, 0.1, "abc"), "dpsniper_1e7"),
])
def test_refused_by_name_and_fast(call, words):
    t0 = time.perf_counter()
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    assert words in str(err.value)
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("call, epsilon", [
    (lambda: Rappor(hashes=np.int64(4), size=np.int64(20), f=np.float32(0.75), low=np.int64(-10), high=10), 0.4000834),
    (lambda: ExponentialMedian(np.float64(1.0), records=np.int64(5), top=np.int64(5), halved=np.bool_(False)), 1.7713379),
    (lambda: TruncatedGeometric(3.0, 61), math.log(2)),                 # k = 0 and d = 3·2^60 < 2^62: accepted
    (lambda: SVT4(0.1, c=np.int64(1), threshold=np.float32(0.5)), 0.175),
    (lambda: PrefixSum(0.1, k=np.int64(10)), 1.0),
])
def test_numpy_scalars_and_edges_accepted(call, epsilon):
    assert call().true_epsilon == pytest.approx(epsilon, rel=1e-6)


def test_rappor_exact_epsilon_is_the_pairwise_maximum():
    """The exact ε (each filter hashed once, a sparse product) equals the maximum of pair_epsilon over all pairs."""
    for r in (Rappor(), OneTimeRappor(), Rappor(hashes=2, size=7, low=0, high=12)):
        vals = range(r.low, r.high + 1)
        assert r.true_epsilon == max(r.pair_epsilon(a, b) for a in vals for b in vals)


def test_cases_unchanged():
    """Valid inputs give the same mechanisms: every case builds, with the repr it had."""
    reprs = [repr(c.make()) for c in CASES]
    assert reprs[:3] == ["Laplace(epsilon=0.1)", "TruncatedGeometric(epsilon=0.1)", "NoisyHist1(epsilon=0.1)"]
    assert "Rappor(epsilon=0.400083)" in reprs and "OneTimeRappor(epsilon=0.800668)" in reprs


@pytest.mark.parametrize("make, param", [
    (lambda v: SVT1(0.1, c=v), "c"), (lambda v: NumericalSVT(0.1, c=v), "c"), (lambda v: SVT34Parallel(0.1, c=v), "c"),
    (lambda v: LaplaceParallel(k=v), "k"), (lambda v: PrefixSum(0.1, k=v), "k"), (lambda v: Rappor(hashes=v), "hashes"),
    (lambda v: OneTimeRappor(size=v), "size"), (lambda v: TruncatedGeometric(0.1, v), "n"),
    (lambda v: ExponentialMedian(1.0, records=v), "records"), (lambda v: ExponentialMedian(1.0, top=v), "top"),
])
@pytest.mark.parametrize("bad", ["x", 1.5, complex(1), b"1", None, True])
def test_integer_parameters_are_named_as_themselves(make, param, bad):
    """issue 32 item 6: every integer parameter was reported as 'n must be an integer' and str/complex
    data went to float(); each message now names its own parameter."""
    with pytest.raises((TypeError, ValueError), match=rf"^{param}\b"):
        make(bad)


@pytest.mark.parametrize("bad", ["x", complex(1), b"1", [1, "a"], None])
def test_suite_data_are_named(bad):
    for case in CASES:
        with pytest.raises((TypeError, ValueError), match=r"\bdata\b"):
            case.make().sample(bad, np.random.default_rng(0), 3)
