"""Mechanisms of the pca room: shapes, exact distributional facts, seeding, input validation.

Statistical tests are seeded; each uses a 5-sigma (or tighter-than-1e-6) rule, so a correct
implementation fails with probability below 1e-6 per assertion.
"""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpverify.pca import PPCA, PPCADP, CorrectedPPCADP, PCABasedPPDP, fit_ppca, paper_sensitivity
from dpverify.pca.ppca import minmax_normalise
from dpverify.pca.thm3 import (degenerate_pair, feature2_law, flip_pair, gaussian_hockey_stick, gaussian_pair,
                               score_change_l1)

BOX = (np.zeros(5), np.ones(5))


def _data(n=200, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, p)) @ np.diag(np.linspace(1.0, 0.2, p))
    X[0], X[1] = 0.0, 1.0          # min 0, max 1 in every column: normalisation is the identity
    return X


ALL = [PPCA(2), PPCADP(2, 1.0), PCABasedPPDP(2, 1.0), CorrectedPPCADP(2, 1.0, BOX)]


@pytest.mark.parametrize("mech", ALL, ids=lambda m: type(m).__name__)
def test_shapes_seeding_and_no_mutation(mech):
    X = _data()
    X0 = X.copy()
    a = mech.fit_publish(X, rng=3)
    b = mech.fit_publish(X, rng=3)
    c = mech.fit_publish(X, rng=4)
    assert a.shape == X.shape and np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(X, X0)
    assert mech.publish_many(X, 3, np.random.default_rng(0)).shape == (3,) + X.shape


@pytest.mark.parametrize("make", [lambda k, e: PPCA(k), lambda k, e: PPCADP(k, e), lambda k, e: PCABasedPPDP(k, e),
                                  lambda k, e: CorrectedPPCADP(k, e, BOX)])
def test_bad_input(make):
    X = _data()
    for k, exc in ((0, ValueError), (6, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(exc, match="k"):
            make(k, 1.0).fit_publish(X, rng=0)
    if not isinstance(make(1, 1.0), PPCA):
        for e in (0.0, -1.0, float("nan"), float("inf")):
            with pytest.raises(ValueError, match="epsilon"):
                make(1, e).fit_publish(X, rng=0)
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="finite"):
        make(1, 1.0).fit_publish(bad, rng=0)
    with pytest.raises(TypeError, match="non-numeric"):
        make(1, 1.0).fit_publish([[1.0, "a"], [2.0, "b"], [3.0, "c"]], rng=0)
    with pytest.raises(ValueError, match="2-dimensional"):
        make(1, 1.0).fit_publish(np.ones(5), rng=0)
    with pytest.raises(ValueError, match="at least 2 rows"):
        make(1, 1.0).fit_publish(np.ones((1, 5)), rng=0)
    with pytest.raises(TypeError, match="rng"):
        make(1, 1.0).fit_publish(X, rng="seed")


def test_corrected_bad_bounds_and_split():
    X = _data()
    with pytest.raises(ValueError, match="length p"):
        CorrectedPPCADP(1, 1.0, (np.zeros(4), np.ones(4))).fit_publish(X)
    with pytest.raises(ValueError, match="lower < upper"):
        CorrectedPPCADP(1, 1.0, (np.ones(5), np.ones(5))).fit_publish(X)
    with pytest.raises(TypeError, match="pair"):
        CorrectedPPCADP(1, 1.0, np.ones(5)).fit_publish(X)
    with pytest.raises(ValueError, match="split"):
        CorrectedPPCADP(1, 1.0, BOX, split=(0.5, 0.5, 0.5)).fit_publish(X)


def test_ppca_k_equals_p_republishes_the_data():
    X = np.random.default_rng(1).normal(size=(60, 4)) * [1, 10, 100, 1000]
    assert np.allclose(PPCA(4).fit_publish(X, rng=0), X, rtol=0, atol=1e-9)


def test_ppca_posterior_predictive_mean_and_variance():
    """E[x′_i] = μ + U_k (Λ_k − σ²)Λ_k⁻¹ K_i; the variance along a discarded direction is σ²."""
    X = _data()
    Xn, lo, span = minmax_normalise(X)
    f = fit_ppca(Xn, 2)
    K = (Xn - f.mean) @ f.U_k
    lam = f.eigvals[:2]
    want = f.mean + (K * ((lam - f.sigma2) / lam)) @ f.U_k.T
    reps = 4000
    out = (PPCA(2).publish_many(X, reps, 11) - lo) / span
    sd = math.sqrt(float(f.eigvals[0]) + f.sigma2)
    z = np.abs(out.mean(axis=0) - want) / (sd / math.sqrt(reps))
    assert z.max() < 5.5                      # 1000 cells: max of |N(0,1)| exceeds 5.5 w.p. < 4e-5
    v_disc = ((out - want) @ f.U[:, -1]).var()
    assert abs(v_disc / f.sigma2 - 1) < 0.06  # 4000·200 draws: relative sd of the variance ~0.0016


def test_ppca_dp_laplace_scale_on_the_scores():
    """Along U_1 the published value is c(K + L) + Gaussian, Var = 2c²b² + (λ₁ − σ²)σ²/λ₁ + σ², b = √(kp)/ε."""
    X = _data()
    Xn, lo, span = minmax_normalise(X)
    f = fit_ppca(Xn, 2)
    lam1, s2 = float(f.eigvals[0]), float(f.sigma2)
    c = (lam1 - s2) / lam1
    eps = 2.0
    b = paper_sensitivity(2, 5) / eps
    want = 2 * c * c * b * b + (lam1 - s2) * s2 / lam1 + s2
    out = (PPCADP(2, eps).publish_many(X, 20000, 5)[:, 7] - lo) / span
    proj = (out - f.mean) @ f.U[:, 0]
    assert abs(proj.var() / want - 1) < 0.08   # Laplace kurtosis 6: relative sd ≈ 0.016, so 5 sd
    # a different sensitivity (k√p instead of √(kp)) would double the dominant term
    assert abs(proj.var() / (want + 2 * c * c * b * b) - 1) > 0.3


def test_dp_variants_approach_their_noise_free_versions():
    X = _data()
    huge = 1e9
    assert np.allclose(PCABasedPPDP(5, huge).fit_publish(X, rng=0), X, atol=1e-4)
    assert np.allclose(CorrectedPPCADP(5, huge, BOX).fit_publish(X, rng=0), X, atol=1e-3)
    reps = 2000
    a = PPCADP(2, huge).publish_many(X, reps, 1).mean(axis=0)
    b = PPCA(2).publish_many(X, reps, 2).mean(axis=0)
    sd = np.sqrt(fit_ppca(X, 2).eigvals[0] + fit_ppca(X, 2).sigma2)   # per-cell sd bound
    assert np.abs(a - b).max() < 6 * math.sqrt(2) * sd / math.sqrt(reps)


def test_sensitivity_parameter():
    X = _data()
    a = PPCADP(1, 1.0, sensitivity=1e-9).fit_publish(X, rng=0)
    b = PPCA(1).fit_publish(X, rng=0)
    assert not np.array_equal(a, b)
    with pytest.raises(ValueError, match="sensitivity"):
        PPCADP(1, 1.0, sensitivity=-1.0).fit_publish(X)
    assert paper_sensitivity(2, 8) == 4.0
    with pytest.raises(ValueError, match="k"):
        paper_sensitivity(9, 8)


def test_gaussian_hockey_stick_against_quadrature():
    rng = np.random.default_rng(2)
    for _ in range(15):
        m1, m2 = rng.normal(size=2)
        v1, v2 = rng.uniform(0.2, 3, size=2)
        eps = float(rng.uniform(0, 3))
        f = lambda t: max(0.0, stats.norm.pdf(t, m1, math.sqrt(v1)) - math.exp(eps) * stats.norm.pdf(t, m2, math.sqrt(v2)))
        # the integrand has kinks where p1 = e^eps p2: integrate piecewise between them
        a = 0.5 / v2 - 0.5 / v1
        b = m1 / v1 - m2 / v2
        c = m2 ** 2 / (2 * v2) - m1 ** 2 / (2 * v1) + 0.5 * math.log(v2 / v1) - eps
        r = [float(x.real) for x in np.roots([a, b, c]) if abs(x.imag) < 1e-12 and -40 < x.real < 40]
        pts = sorted([-40.0, 40.0] + r)
        q = sum(integrate.quad(f, lo_, hi_, limit=400, epsabs=1e-13)[0] for lo_, hi_ in zip(pts, pts[1:]))
        assert abs(gaussian_hockey_stick(m1, v1, m2, v2, eps) - q) < 1e-7
    assert gaussian_hockey_stick(0.3, 1.0, 0.3, 1.0, 0.0) == 0.0
    with pytest.raises(ValueError, match="v1"):
        gaussian_hockey_stick(0, 0, 0, 1, 1)


def test_thm3_pairs_are_neighbours_and_laws():
    for D, Dp in (gaussian_pair(), degenerate_pair(), flip_pair(4)):
        assert D.shape == Dp.shape and int((D != Dp).any(axis=1).sum()) == 1
    D, Dp = gaussian_pair()
    assert feature2_law(D) == pytest.approx((0.5, 2e-5)) and feature2_law(Dp) == pytest.approx((0.54, 0.01442))
    with pytest.raises(ValueError, match="diagonal"):
        feature2_law(flip_pair(4)[0])
    assert score_change_l1(*flip_pair(25), 1) > 10 * paper_sensitivity(1, 2)
