"""The auditor's contract: validation, errors, reproducibility, result consistency.

Deterministic tests (seeded); none of them is statistical unless its docstring says so.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy import stats

from dpverify.audit import (
    AuditResult,
    MechanismError,
    PatternCode,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
)
from dpverify.audit.mechanisms import BinDifference, HistogramLaplace, LaplaceMechanism
from dpverify.claims import Verdict

LAP = LaplaceMechanism(1.0)


def test_signature_and_result_fields():
    r = epsilon_lower_bound(LAP, 0.0, 1.0, samples=20_000, rng=3)
    assert isinstance(r, AuditResult)
    assert 0.0 <= r.epsilon
    assert r.n_selection + r.n_estimation == 20_000
    assert r.n_selection == 10_000
    lo, hi = r.p_interval[0], r.q_interval[1]
    assert 0 <= lo <= r.p_hat and r.q_hat <= hi <= 1
    assert r.n_trials in (r.n_estimation, 2 * r.n_estimation)
    # ε_lb is recomputable from the reported numbers
    assert r.epsilon == pytest.approx(max(0.0, np.log(lo / hi)), abs=1e-12)
    assert str(r.event) == r.event.description
    assert set(r.as_dict()) >= {"epsilon_lb", "event", "count_p", "count_q", "p_lower", "q_upper"}


def test_counts_are_recomputable_from_the_event():
    """The estimation counts are exactly what the events' ``contains`` give on the estimation draws."""
    r = epsilon_lower_bound(LAP, 0.0, 1.0, samples=10_000, rng=5, chunk_size=10_000)
    data = (0.0, 1.0)
    draws = [LAP(data[i], np.random.default_rng(np.random.SeedSequence(r.seed_entropy, spawn_key=(2, i, 0))),
                 r.n_estimation) for i in (0, 1)]
    hits = lambda ev, i: int(np.count_nonzero(ev.contains(draws[i])))  # noqa: E731
    if r.direction == "both":
        assert r.n_trials == 2 * r.n_estimation
        assert r.count_p == hits(r.event, 0) + hits(r.event_reverse, 1)
        assert r.count_q == hits(r.event, 1) + hits(r.event_reverse, 0)
    else:
        i = 0 if r.direction == "d>d_prime" else 1
        assert (r.count_p, r.count_q) == (hits(r.event, i), hits(r.event, 1 - i))
    assert r.direction == "both"  # a symmetric mechanism: the pooled event is chosen


def test_single_direction_for_asymmetric_mechanism():
    """Exponential mechanism without the 2 (seeded): the violation lives in one order only."""
    from dpverify.selftest.controls import ExponentialMechanism

    r = epsilon_lower_bound(ExponentialMechanism(1.0, factor=1.0), [0.0, 5.0, 5.0], [1.0, 4.0, 4.0],
                            samples=20_000, rng=1)
    assert r.direction in ("d>d_prime", "d_prime>d") and r.event_reverse is None
    assert r.n_trials == r.n_estimation


def test_reproducible_and_executor_gives_same_result():
    a = epsilon_lower_bound(LAP, 0.0, 1.0, samples=50_000, rng=11, chunk_size=7_000)
    b = epsilon_lower_bound(LAP, 0.0, 1.0, samples=50_000, rng=11, chunk_size=7_000)
    with ThreadPoolExecutor(2) as ex:
        c = epsilon_lower_bound(LAP, 0.0, 1.0, samples=50_000, rng=11, chunk_size=7_000, executor=ex)
    assert a.epsilon == b.epsilon == c.epsilon
    assert (a.count_p, a.count_q) == (c.count_p, c.count_q)


def test_progress_reports_all_samples():
    seen = []
    epsilon_lower_bound(LAP, 0.0, 1.0, samples=30_000, rng=1, chunk_size=4_000, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (60_000, 60_000)
    assert all(x[0] <= y[0] for x, y in zip(seen, seen[1:]))


def test_verdict_helper_never_says_holds():
    """Half-scale noise (true ε = 2) at 20 000 samples: ε_lb ≈ 1.8, more than 10 delta-method sd above
    the claimed 1, so an unseeded rerun would miss the refutation with probability < 1e-20."""
    r = epsilon_lower_bound(LaplaceMechanism(1.0, scale_factor=0.5), 0.0, 1.0, samples=20_000, rng=0)
    n = r.n_trials
    sd = np.sqrt((1 - r.p_hat) / (n * r.p_hat) + (1 - r.q_hat) / (n * r.q_hat))
    assert r.epsilon - 1.0 > 10 * sd
    assert r.verdict(1.0) is Verdict.REFUTED and r.refutes(1.0)
    assert r.verdict(100.0) is Verdict.INCONCLUSIVE
    with pytest.raises(ValueError, match="claimed_epsilon"):
        r.verdict(-1.0)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"samples": 0}, ValueError, "samples"),
        ({"samples": 1}, ValueError, "samples"),
        ({"samples": 10.5}, TypeError, "samples"),
        ({"samples": 100, "confidence": 1.0}, ValueError, "confidence"),
        ({"samples": 100, "confidence": 0.0}, ValueError, "confidence"),
        ({"samples": 100, "confidence": float("nan")}, ValueError, "confidence"),
        ({"samples": 100, "delta": 1.0}, ValueError, "delta"),
        ({"samples": 100, "delta": -0.1}, ValueError, "delta"),
        ({"samples": 100, "selection_fraction": 1.0}, ValueError, "selection_fraction"),
        ({"samples": 100, "statistic": "nope"}, ValueError, "statistic"),
        ({"samples": 100, "rng": "seed"}, TypeError, "rng"),
        ({"samples": 100, "chunk_size": 0}, ValueError, "chunk_size"),
        ({"samples": 100, "executor": object()}, TypeError, "executor"),
    ],
)
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        epsilon_lower_bound(LAP, 0.0, 1.0, **kwargs)


def test_mechanism_not_callable():
    with pytest.raises(TypeError, match="mechanism"):
        epsilon_lower_bound(42, 0.0, 1.0, samples=100)


def test_mechanism_errors_are_clear():
    def raises(data, rng, n):
        raise ZeroDivisionError("boom")

    def wrong_shape(data, rng, n):
        return rng.random(n - 1)

    def nan_out(data, rng, n):
        x = rng.random(n)
        x[0] = np.nan
        return x

    def strings(data, rng, n):
        return np.array(["a"] * n)

    def vector(data, rng, n):
        return rng.random((n, 3))

    for mech, match in [(raises, "ZeroDivisionError: boom"), (wrong_shape, "shape"), (nan_out, "NaN"),
                        (strings, "non-numeric"), (vector, "statistic=")]:
        with pytest.raises(MechanismError, match=match):
            epsilon_lower_bound(mech, 0.0, 1.0, samples=100, rng=0)
    with pytest.raises(MechanismError, match="statistic returned shape"):
        epsilon_lower_bound(vector, 0.0, 1.0, samples=100, rng=0, statistic=lambda o: o)


def test_inputs_not_mutated_and_passed_read_only():
    d = np.array([0, 1, 2, 3])
    seen = []

    def mech(data, rng, n):
        seen.append(data.flags.writeable)
        return rng.laplace(float(data[0]), 1.0, n)

    epsilon_lower_bound(mech, d, np.array([1, 1, 2, 3]), samples=100, rng=0)
    assert d.tolist() == [0, 1, 2, 3] and not any(seen)


def test_vector_outputs_with_projection_and_pattern_code():
    """Wrong-relation histogram (true ε = 2 on the projection's tail): seeded; ε_lb − 1 is asserted
    to exceed 5 delta-method sd, so an unseeded rerun fails with probability ≲ 3e-7."""
    mech = HistogramLaplace(1.0, 4, 1.0)  # the wrong-relation bug: refuted through a projection
    r = epsilon_lower_bound(mech, [0, 1, 2, 3], [1, 1, 2, 3], samples=40_000, rng=2, statistic=BinDifference(0, 1))
    n = r.n_trials
    sd = np.sqrt((1 - r.p_hat) / (n * r.p_hat) + (1 - r.q_hat) / (n * r.q_hat))
    assert r.epsilon - 1.0 > 5 * sd
    with pytest.raises(ValueError, match="pattern entries"):
        PatternCode(0, 1)(np.array([[0, 2]]))
    assert PatternCode(-1, 1)(np.array([[-1, -1], [1, 1]])).tolist() == [0, 8]


def test_clopper_pearson_against_binomial_tails():
    """The CP bounds are the exact inversions of the binomial tails (deterministic)."""
    for k, n in [(0, 10), (1, 10), (5, 10), (10, 10), (37, 1000), (999, 1000)]:
        a = 0.01
        lo = float(clopper_pearson_lower(k, n, a))
        hi = float(clopper_pearson_upper(k, n, a))
        if k > 0:
            assert stats.binom.sf(k - 1, n, lo) == pytest.approx(a, rel=1e-6)  # Pr[K ≥ k | p = lo] = α
        else:
            assert lo == 0.0
        if k < n:
            assert stats.binom.cdf(k, n, hi) == pytest.approx(a, rel=1e-6)  # Pr[K ≤ k | p = hi] = α
        else:
            assert hi == 1.0
        assert lo <= k / n <= hi


def test_mechanism_parameters_validated():
    from dpverify.audit.mechanisms import HistogramLaplace, NoisyMax, SparseVector
    from dpverify.selftest.controls import GeometricMechanism, KRR

    for make, exc, match in [(lambda: NoisyMax(0.0), ValueError, "epsilon"),
                             (lambda: NoisyMax(1.0, returns="x"), ValueError, "returns"),
                             (lambda: KRR(0, 1.0), ValueError, "k"),
                             (lambda: SparseVector(1.0, variant="z"), ValueError, "variant"),
                             (lambda: GeometricMechanism(1.0, 1.5), TypeError, "sensitivity"),
                             (lambda: HistogramLaplace(1.0, 0), ValueError, "bins"),
                             (lambda: LaplaceMechanism(float("nan")), ValueError, "epsilon")]:
        with pytest.raises(exc, match=match):
            make()


def test_process_pool_gives_same_result():
    from concurrent.futures import ProcessPoolExecutor

    a = epsilon_lower_bound(LAP, 0.0, 1.0, samples=40_000, rng=21, chunk_size=9_000)
    with ProcessPoolExecutor(2) as ex:
        b = epsilon_lower_bound(LAP, 0.0, 1.0, samples=40_000, rng=21, chunk_size=9_000, executor=ex)
    assert (a.epsilon, a.count_p, a.count_q) == (b.epsilon, b.count_p, b.count_q)


def test_memory_bounded_by_chunk_size():
    sizes = []

    def mech(data, rng, n):
        sizes.append(n)
        return rng.laplace(float(data), 1.0, n)

    r = epsilon_lower_bound(mech, 0.0, 1.0, samples=100_001, rng=0, chunk_size=4_096)
    assert max(sizes) <= 4_096 and sum(sizes) == 2 * 100_001
    assert r.n_selection + r.n_estimation == 100_001


def test_degenerate_and_boolean_outputs():
    """Constant outputs give ε_lb = 0; boolean outputs are audited as {0, 1}; disjoint supports give a
    large bound (seeded; the disjoint case has count_q = 0 structurally)."""
    const = epsilon_lower_bound(lambda d, rng, n: np.full(n, 3.0), 0, 1, samples=2_000, rng=0)
    assert const.epsilon == 0.0
    coin = epsilon_lower_bound(lambda d, rng, n: rng.random(n) < (0.5 if d == 0 else 0.6), 0, 1,
                               samples=2_000, rng=0, confidence=1 - 1e-6)
    assert 0.0 <= coin.epsilon <= np.log(0.5 / 0.4) + 1e-12  # true ε = max(ln 1.2, ln 1.25); false alarm 1e-6
    far = epsilon_lower_bound(lambda d, rng, n: rng.normal(100.0 * d, 1.0, n), 0, 1, samples=20_000, rng=0)
    assert far.count_q == 0 and far.epsilon > 5
