"""The OpenDP and diffprivlib adapters: claims, sampling, audits through the protocol.

Statistical tests are seeded and run at confidence 1 − 1e-6 per audit (false-alarm rate 1e-6
each); OpenDP cannot be seeded, so its audits are not reproducible: each of them can raise a
false alarm with probability at most 1e-6 (and its goodness-of-fit checks 1e-6).  The
refutations asserted below (diffprivlib's float Laplace under the floating-point attack, a
deliberately over-claimed OpenDP Laplace) are far from the threshold: see each test.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy import stats

from dpverify.audit import Mechanism, MechanismError, check_ldp, checked_sample, epsilon_lower_bound
from dpverify.audit.controls import fp_attack_statistic

CONF = 1.0 - 1e-6
RNG = np.random.default_rng


def _gof(mech, data, n, rng):
    """Chi-square goodness of fit of the sampler to the stated pmf (false-alarm rate 1e-6)."""
    support, probs = mech.output_distribution(data)
    out = checked_sample(mech, data, rng, n).astype(np.int64)
    counts = np.array([np.count_nonzero(out == s) for s in support])
    assert counts.sum() == n
    assert stats.chisquare(counts, n * np.asarray(probs)).pvalue > 1e-6


def _exact(mech, pairs):
    for d, dp in pairs:
        P = np.vstack([mech.output_distribution(d)[1], mech.output_distribution(dp)[1]])
        assert check_ldp(P, mech.epsilon, mech.delta, atol=1e-12).holds  # float pmf: rounding allowed


# --------------------------------------------------------------------------- OpenDP


@pytest.fixture(scope="module")
def dp():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    return dp


def test_opendp_claims_are_its_own_privacy_maps(dp):
    from dpverify.audit.adapters import from_opendp

    assert from_opendp("laplace", scale=2.0).epsilon == pytest.approx(0.5)
    assert from_opendp("laplace", scale=2.0, T="int").epsilon == pytest.approx(0.5)
    assert from_opendp("discrete_laplace", scale=0.5).epsilon == pytest.approx(2.0)
    assert from_opendp("geometric", scale=1.0, d_in=2).epsilon == pytest.approx(2.0)
    assert from_opendp("randomized_response_bool", prob=0.75).epsilon == pytest.approx(math.log(3))
    cat = from_opendp("randomized_response", categories="a,b,c", prob=0.6)
    assert cat.epsilon == pytest.approx(math.log(0.6 * 2 / 0.4))
    # ε given without a scale: OpenDP's own binary search chooses the scale
    m = from_opendp("laplace", epsilon=0.5, T="int")
    assert m.epsilon == 0.5 and "scale=2" in m.name
    for m in (from_opendp("laplace", scale=1.0), cat):
        assert isinstance(m, Mechanism) and m.delta == 0.0


def test_opendp_gaussian_claims_its_zcdp_rho_and_its_curve_at_a_point(dp):
    """Without ε the claim is OpenDP's own ρ = d_in²/(2σ²) in its own measure (zCDP); with ε it is the
    point of OpenDP's zCDP -> approx-DP conversion, which must lie above the exact Gaussian curve."""
    from dpverify.audit.adapters import from_opendp
    from dpverify.mechanisms.privacy import ZCDP

    sigma = 1.5
    m = from_opendp("gaussian", scale=sigma)
    assert isinstance(m.claim, ZCDP) and m.claim.rho == pytest.approx(1 / (2 * sigma**2)) and m.measure == "ZeroConcentratedDivergence"
    assert m.epsilon == math.inf and not hasattr(m, "delta_curve") and m.library.startswith("opendp ")
    ref = dp.c.make_zCDP_to_approxDP(
        dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=sigma)
    ).map(1.0)
    for eps in (0.1, 0.5, 1.0, 2.0):
        tight = stats.norm.cdf(0.5 / sigma - eps * sigma) - math.exp(eps) * stats.norm.cdf(-0.5 / sigma - eps * sigma)
        curve = from_opendp("gaussian", scale=sigma, epsilon=eps).delta_curve
        assert curve(eps) == pytest.approx(ref.delta(eps))
        assert curve(eps) >= tight - 1e-12
    point = from_opendp("gaussian", scale=sigma, epsilon=1.0)
    assert point.epsilon == 1.0 and point.delta == pytest.approx(ref.delta(1.0))


def test_opendp_vectorised_sampling_shapes_and_types(dp):
    from dpverify.audit.adapters import from_opendp

    g = RNG(0)
    assert checked_sample(from_opendp("laplace", scale=1.0), 0.5, g, 7).dtype == float
    x = checked_sample(from_opendp("geometric", scale=1.0), 3, g, 500)
    assert x.dtype == np.int64 and x.shape == (500,) and abs(np.median(x) - 3) <= 1
    assert checked_sample(from_opendp("randomized_response_bool", prob=0.75), 1, g, 5).dtype == bool
    # a built Measurement: called once per sample, claim from its map at d_in
    meas = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=4.0)
    m = from_opendp(meas, d_in=2)
    assert m.epsilon == pytest.approx(0.5) and checked_sample(m, 0, g, 4).shape == (4,)
    # a vector-valued built Measurement: outputs stacked to (n, k)
    vec = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=1.0)
    assert checked_sample(from_opendp(vec), [0, 5], g, 3).shape == (3, 2)
    # the user's own domain and metric, by name
    own = from_opendp("laplace", scale=2.0, input_domain=dp.atom_domain(T=float, nan=False),
                      input_metric=dp.absolute_distance(T=float))
    assert own.epsilon == pytest.approx(0.5) and checked_sample(own, 0.0, g, 3).shape == (3,)
    with pytest.raises(ValueError, match="needs input_metric and scale too"):
        from_opendp("laplace", scale=2.0, input_domain=dp.atom_domain(T=int))
    pickle.loads(pickle.dumps(from_opendp("laplace", scale=1.0, T="int"))).sample(0, g, 2)  # workers


def test_opendp_is_not_reproducible_from_the_seed(dp):
    """Documented limitation: OpenDP draws from the OS generator, whatever the rng."""
    from dpverify.audit.adapters import from_opendp

    m = from_opendp("laplace", scale=1.0)
    assert not np.array_equal(m.sample(0.0, RNG(1), 50), m.sample(0.0, RNG(1), 50))


def test_opendp_randomized_response_exact(dp):
    """Finite: the stated pmf is ε-LDP at OpenDP's claim and the sampler follows it."""
    from dpverify.audit.adapters import from_opendp

    for m, k in ((from_opendp("randomized_response_bool", prob=0.8), 2),
                 (from_opendp("randomized_response", categories=[0, 1, 2, 3], prob=0.5), 4)):
        _exact(m, [(i, j) for i in range(k) for j in range(i + 1, k)])
        for i in (0, 1):
            _gof(m, i, 1_500, RNG(i))


def test_opendp_laplace_not_refuted_and_survives_the_fp_attack(dp):
    from dpverify.audit.adapters import from_opendp

    m = from_opendp("laplace", scale=1.0, T="int")
    assert not epsilon_lower_bound(m, 0, 1, samples=20_000, confidence=CONF, rng=0).refutes(m.epsilon)
    f = from_opendp("laplace", scale=1.0)
    r = epsilon_lower_bound(f, 0.0, 1.0, samples=10_000, confidence=CONF, rng=0, statistic=fp_attack_statistic(1.0))
    assert not r.refutes(f.epsilon) and r.count_q > 0  # OpenDP rounds an exact sample: no structural zero


def test_opendp_overclaim_is_refuted(dp):
    """Mutation: OpenDP's ε = 1 Laplace claimed at ε = 0.25 is refuted.

    Unseeded (OpenDP), so not a chance-free test: eight reruns gave ε_lb in 0.89–0.93 at this
    budget, against the 0.25 needed; falling below 0.25 needs both Clopper–Pearson bounds to be
    off by many standard deviations."""
    from dpverify.audit.adapters import from_opendp

    m = from_opendp("laplace", scale=1.0, T="int", epsilon=0.25)
    assert m.epsilon == 0.25
    assert epsilon_lower_bound(m, 0, 1, samples=20_000, confidence=CONF, rng=0).refutes(0.25)


def test_opendp_bad_input(dp):
    from dpverify.audit.adapters import from_opendp

    with pytest.raises(ValueError, match="measurement must be one of"):
        from_opendp("laplase", scale=1.0)
    with pytest.raises(TypeError, match="laplace takes no parameter 'prob'"):
        from_opendp("laplace", scale=1.0, prob=0.5)
    with pytest.raises(ValueError, match="needs scale="):
        from_opendp("gaussian")
    with pytest.raises(ValueError, match="scale must be > 0"):
        from_opendp("laplace", scale=-1.0)
    with pytest.raises(ValueError, match="T must be 'float' or 'int'"):
        from_opendp("laplace", scale=1.0, T="bool")
    with pytest.raises(ValueError, match="prob"):
        from_opendp("randomized_response_bool", prob=1.5)
    m = from_opendp("randomized_response", categories="a,b", prob=0.7)
    with pytest.raises(MechanismError, match=r"one of the categories \['a', 'b'\].*in sample\(data='z'"):
        checked_sample(m, "z", RNG(0), 3)


# --------------------------------------------------------------------------- diffprivlib


@pytest.fixture(scope="module")
def dpl():
    return pytest.importorskip("diffprivlib.mechanisms")


def test_diffprivlib_claims(dpl):
    from dpverify.audit.adapters import from_diffprivlib

    m = from_diffprivlib("Laplace", epsilon=0.5, sensitivity=2.0)
    assert (m.epsilon, m.delta, m.sensitivity) == (0.5, 0.0, 2.0) and "<= 2.0" in str(m.relation) and m.relation.bound == 2.0
    g = from_diffprivlib("GaussianAnalytic", epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert (g.epsilon, g.delta) == (1.0, 1e-5)
    # an instance: parameters read back from it
    inst = from_diffprivlib(dpl.Geometric(epsilon=0.7, sensitivity=2))
    assert inst.epsilon == 0.7 and inst.sensitivity == 2.0
    # strings from the command line
    from dpverify.audit.adapters import diffprivlib

    assert diffprivlib("Laplace", epsilon="1", sensitivity="1").epsilon == 1.0


def test_diffprivlib_seeded_through_random_state(dpl):
    from dpverify.audit.adapters import from_diffprivlib

    m = from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1.0)
    a, b, c = (m.sample(0.0, RNG(s), 20) for s in (3, 3, 4))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    r1, r2 = (epsilon_lower_bound(m, 0.0, 1.0, samples=4_000, rng=9) for _ in range(2))
    assert r1.epsilon == r2.epsilon and r1.count_p == r2.count_p


def test_diffprivlib_binary_exact(dpl):
    from dpverify.audit.adapters import from_diffprivlib

    m = from_diffprivlib("Binary", epsilon=1.0, value0="no", value1="yes")
    _exact(m, [(0, 1)])
    for v in (0, 1):
        _gof(m, v, 20_000, RNG(v))
    assert checked_sample(m, "yes", RNG(0), 3).dtype == np.int64


def test_diffprivlib_correct_mechanisms_not_refuted_on_integer_pairs(dpl):
    from dpverify.audit.adapters import from_diffprivlib

    cases = [
        (from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1.0), 0.0, 1.0),
        (from_diffprivlib("Geometric", epsilon=1.0, sensitivity=1), 0, 1),
        (from_diffprivlib("Exponential", epsilon=1.0, sensitivity=1.0), np.array([0.0, 1.0, 2.0]),
         np.array([1.0, 0.0, 2.0])),
    ]
    for m, d, dp in cases:
        r = epsilon_lower_bound(m, d, dp, samples=15_000, confidence=CONF, rng=1, delta=m.delta)
        assert not r.refutes(m.epsilon), (m.name, r.epsilon)


def test_diffprivlib_float_laplace_refuted_by_the_fp_attack(dpl):
    """Not a chance event: count_q = 0 is structural (outputs off the 2^-53 grid cannot come from
    f(D') = 1), and ~27 % of the 50 000 estimation draws of f(D) = 0 land off it, so ε_lb > 5
    fails only if fewer than ~40 do (probability < 1e-100)."""
    from dpverify.audit.adapters import diffprivlib

    m = diffprivlib("Laplace", epsilon="1", sensitivity="1")
    r = epsilon_lower_bound(m, 0.0, 1.0, samples=100_000, confidence=CONF, rng=1, statistic=fp_attack_statistic(1.0))
    assert r.count_q == 0 and r.epsilon > 5.0 and r.refutes(1.0)


def test_diffprivlib_bad_input(dpl):
    from dpverify.audit.adapters import from_diffprivlib

    with pytest.raises(ValueError, match="mechanism must be one of"):
        from_diffprivlib("Laplacian", epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        from_diffprivlib("Laplace", epsilon=-1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="needs epsilon="):
        from_diffprivlib("Laplace", sensitivity=1.0)
    with pytest.raises(TypeError, match="utility is the audited input"):
        from_diffprivlib("Exponential", epsilon=1.0, sensitivity=1.0, utility=[1, 2])
    with pytest.raises(ValueError, match="diffprivlib Gaussian"):
        from_diffprivlib("Gaussian", epsilon=2.0, delta=0.1, sensitivity=1.0)  # diffprivlib: ε ≤ 1 only
    with pytest.raises(TypeError, match="diffprivlib Laplace"):
        from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1.0, bogus=3)
    with pytest.raises(TypeError, match="not a supported diffprivlib mechanism"):
        from_diffprivlib(object())
    m = from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1.0)
    with pytest.raises(MechanismError, match=r"diffprivlib:Laplace.*raised .*in sample\(data='x'"):
        checked_sample(m, "x", RNG(0), 2)
