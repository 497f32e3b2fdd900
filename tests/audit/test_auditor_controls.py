"""Controls are never refuted; known-broken mechanisms are; the auditor stays under exact ground truth.

Every test here is seeded (so deterministic); each docstring states the probability that the
test would fail for a correct auditor on an unseeded run (the false-alarm rate), ≤ 1e-6.
"""

import math

import numpy as np
import pytest

from dpverify.audit import epsilon_lower_bound, max_privacy_loss, privacy_curve
from dpverify.audit.mechanisms import (
    BinDifference,
    FiniteMechanism,
    HistogramLaplace,
    LaplaceMechanism,
    NoisyMax,
    SparseVector,
    SuffixSum,
)
from dpverify.selftest.controls import ExponentialMechanism, GeometricMechanism, KRR
from dpverify.audit.statistical import PatternCode
from dpverify.selftest.controls import FDARelease

CONF = 1 - 1e-6
SVT_D, SVT_DP = [0.0] * 10, [1.0] * 5 + [-1.0] * 5
NMAX_D, NMAX_DP = [1.0] * 5, [2.0, 0.0, 0.0, 0.0, 0.0]

CONTROLS = {
    "laplace": (LaplaceMechanism(1.0), 0.0, 1.0, {}),
    "laplace_eps0.3_sens2": (LaplaceMechanism(0.3, sensitivity=2.0), 5.0, 7.0, {}),
    "geometric": (GeometricMechanism(1.0), 0, 1, {}),
    "exponential": (ExponentialMechanism(1.0), [0.0, 5.0, 5.0], [1.0, 4.0, 4.0], {}),
    "krr": (KRR(4, 1.0), 0, 1, {}),
    "noisy_max_index": (NoisyMax(1.0), NMAX_D, NMAX_DP, {}),
    "noisy_max_exp_index": (NoisyMax(1.0, noise="exponential"), NMAX_D, NMAX_DP, {}),
    "svt_alg1": (SparseVector(1.0), SVT_D, SVT_DP, {"statistic": PatternCode()}),
    "histogram": (HistogramLaplace(1.0, 4, 2.0), [0, 1, 2, 3], [1, 1, 2, 3], {"statistic": BinDifference(0, 1)}),
    "histogram_classifier": (HistogramLaplace(1.0, 4, 2.0), [0, 1, 2, 3], [1, 1, 2, 3], {"statistic": "classifier"}),
}


@pytest.mark.parametrize("name", list(CONTROLS))
def test_control_not_refuted(name):
    """Correct ε = claimed mechanism at confidence 1 − 1e-6: by the auditor's validity
    (proofs/audit/auditor_validity.md) a refutation has probability ≤ 1e-6 (false-alarm rate)."""
    mech, d, dp, kw = CONTROLS[name]
    eps = getattr(mech, "epsilon")
    r = epsilon_lower_bound(mech, d, dp, samples=100_000, confidence=CONF, rng=123, **kw)
    assert not r.refutes(eps), (name, r.epsilon, r.event.description)
    assert r.epsilon <= eps


def test_fda_release_control_not_refuted():
    """The continual room's FDA release (ε = 1), black-box: false-alarm rate ≤ 1e-6 (confidence 1 − 1e-6)."""
    r = epsilon_lower_bound(FDARelease(1.0), [1, 0, 1, 1], [1, 1, 1, 1], samples=1500, confidence=CONF, rng=4,
                            statistic=SuffixSum(1))
    assert not r.refutes(1.0)


def _margin_sd(r):
    """Delta-method sd of ln(p̂/q̂) from the estimation counts (for the false-alarm statement)."""
    n = r.n_trials
    p, q = max(r.count_p, 1) / n, max(r.count_q, 1) / n
    return math.sqrt((1 - p) / (n * p) + (1 - q) / (n * q))


BUGS = {
    "half_noise": (LaplaceMechanism(1.0, scale_factor=0.5), 0.0, 1.0, {}, 50_000),
    "wrong_neighbours": (HistogramLaplace(1.0, 4, 1.0), [0, 1, 2, 3], [1, 1, 2, 3], {"statistic": BinDifference(0, 1)},
                         200_000),
    "wrong_neighbours_classifier": (HistogramLaplace(1.0, 4, 1.0), [0, 1, 2, 3], [1, 1, 2, 3],
                                    {"statistic": "classifier"}, 200_000),
    "exponential_without_2": (ExponentialMechanism(1.0, factor=1.0), [0.0, 5.0, 5.0], [1.0, 4.0, 4.0], {}, 500_000),
    "noisy_max_value_laplace": (NoisyMax(1.0, returns="value"), NMAX_D, NMAX_DP, {}, 400_000),
    "noisy_max_value_exp": (NoisyMax(1.0, noise="exponential", returns="value"), NMAX_D, NMAX_DP, {}, 50_000),
    "svt_no_query_noise": (SparseVector(1.0, variant="no_query_noise"), SVT_D, SVT_DP, {"statistic": PatternCode()},
                           20_000),
    "svt_lee_clifton": (SparseVector(1.0, variant="lee_clifton"), SVT_D, SVT_DP, {"statistic": PatternCode()},
                        1_000_000),
    "svt_no_cutoff": (SparseVector(1.0, variant="no_cutoff"), SVT_D, SVT_DP, {"statistic": PatternCode()}, 200_000),
}


@pytest.mark.parametrize("name", list(BUGS))
def test_bug_refuted(name):
    """Broken mechanism refuted at confidence 1 − 1e-6.  The test asserts its own margin:
    ε_lb − ε must exceed 5 delta-method sd of the estimate, so an unseeded rerun fails
    with probability ≲ 3e-7 (one-sided normal tail at 5 sd) — the false-alarm rate."""
    mech, d, dp, kw, n = BUGS[name]
    r = epsilon_lower_bound(mech, d, dp, samples=n, confidence=CONF, rng=99, **kw)
    assert r.refutes(1.0), (name, r.epsilon, r.event.description)
    if r.count_q > 0:
        assert r.epsilon - 1.0 > 5 * _margin_sd(r), (name, r.epsilon, _margin_sd(r))


def test_power_against_noise_15_percent_too_small():
    """Power: Laplace noise 15 % too small (true ε = 1/0.85 ≈ 1.18, claimed 1) is refuted at
    confidence 1 − 1e-6 in ≥ 90 % of 20 seeded audits of 100 000 samples per input (measured:
    20 of 20, smallest margin 6.7 sd).  False alarm: each audit's margin ε_lb − 1 is asserted
    to exceed 5 delta-method sd, so an unseeded audit misses with probability ≲ 3e-7; the
    test fails only if ≥ 3 of 20 miss: ≤ C(20, 3)·(3e-7)³ < 1e-16."""
    mech = LaplaceMechanism(1.0, scale_factor=0.85)
    rs = [epsilon_lower_bound(mech, 0.0, 1.0, samples=100_000, confidence=CONF, rng=700 + s) for s in range(20)]
    hits = sum(r.refutes(1.0) for r in rs)
    assert hits >= 18, hits
    assert all(r.epsilon - 1.0 > 5 * _margin_sd(r) for r in rs if r.refutes(1.0))


def _exact_eps(p, q, delta):
    """Exact ε(δ) of the pair (both orders) by bisection on the exact hockey-stick curve."""
    lo, hi = 0.0, max(max_privacy_loss(p, q), max_privacy_loss(q, p)) + 1e-12
    if max(privacy_curve(p, q, [0.0])[0], privacy_curve(q, p, [0.0])[0]) <= delta:
        return 0.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if max(privacy_curve(p, q, [mid])[0], privacy_curve(q, p, [mid])[0]) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def test_bounds_stay_under_exact_curve_of_random_finite_mechanisms():
    """Ground truth: 60 random finite mechanisms (laws on 2..8 outputs), δ ∈ {0, 0.02, 0.1},
    one audit each at confidence 1 − 1e-8; every ε_lb must be ≤ the exact ε(δ).  By validity
    and the union bound the false-alarm rate is ≤ 60 · 1e-8 = 6e-7."""
    rnd = np.random.default_rng(2024)
    checked = 0
    for i in range(60):
        k = int(rnd.integers(2, 9))
        p = rnd.dirichlet(np.ones(k))
        q = rnd.dirichlet(np.ones(k))
        delta = [0.0, 0.02, 0.1][i % 3]
        mech = FiniteMechanism((tuple(p), tuple(q)))
        r = epsilon_lower_bound(mech, 0, 1, samples=20_000, confidence=1 - 1e-8, delta=delta, rng=i)
        exact = _exact_eps(p, q, delta)
        assert r.epsilon <= exact + 1e-12, (i, r.epsilon, exact)
        checked += r.epsilon > 0
    assert checked > 20  # the bounds are not vacuous


def test_geometric_bound_is_tight_but_valid():
    """Clipped geometric mechanism (exact law known): ε_lb within 0.1 of the exact ε = 0.7 and not above it.
    Validity part false alarm ≤ 1e-6 (confidence); tightness part: margin > 5 sd (≤ 3e-7)."""
    K = 6

    class Clipped(GeometricMechanism):
        def __call__(self, data, rng, n):
            return np.clip(super().__call__(data, rng, n), -K, K)

    r = epsilon_lower_bound(Clipped(0.7), 0, 1, samples=400_000, confidence=CONF, rng=8)
    assert r.epsilon <= 0.7 + 1e-12
    assert r.epsilon > 0.7 - 0.1 and 0.1 > 5 * _margin_sd(r)
