"""Rényi-DP / zCDP audits: the implied curves against independent computations, and the audits (seeded).

The Gaussian mechanism N(d, σ²) with Δ = 1 is (α, α/(2σ²))-RDP at every order and ρ = 1/(2σ²)-zCDP,
tightly (its Rényi divergence is exactly α/(2σ²)); σ = 1 gives ρ = 1/2.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import optimize, stats

from dpverify.audit.curves import gaussian_delta_curve
from dpverify.audit.renyi import (_SLACK, RDPAudit, ZCDPAudit, audit_rdp, audit_zcdp, rdp_delta_curve,
                                  zcdp_delta_curve)


def gauss(d, rng, n):
    return rng.normal(float(d), 1.0, n)


def _cks_prop12_mp(alpha, eps_r, eps):
    """CKS20 Prop. 12 as printed: exp((α−1)(τ−ε)) (1−1/α)^α / (α−1), in 50-digit arithmetic."""
    with mp.workdps(50):
        a, t, e = mp.mpf(alpha), mp.mpf(eps_r), mp.mpf(eps)
        return min(mp.mpf(1), mp.exp((a - 1) * (t - e)) * mp.power(1 - 1 / a, a) / (a - 1))


def _cor13_minimize_scalar(rho, eps):
    """CKS20 Cor. 13 as printed, minimised over α by scipy's bounded Brent method on a dense bracket."""
    f = lambda a: (a - 1) * (a * rho - eps) + a * math.log1p(-1 / a) - math.log(a - 1)  # noqa: E731
    grid = 1 + np.geomspace(1e-9, 1e4, 2000)
    k = int(np.argmin([f(a) for a in grid]))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    best = optimize.minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return min(1.0, math.exp(min(best.fun, f(grid[k]))))


def test_rdp_curve_matches_cks_printed_form_and_beats_mironov():
    for alpha, eps_r in ((1.5, 0.2), (2.0, 1.0), (8.0, 3.0), (64.0, 10.0)):
        d = rdp_delta_curve(alpha=alpha, epsilon=eps_r)
        for e in (0.0, 0.5, 2.0, eps_r, eps_r + 1.0, 4 * eps_r):
            want = float(_cks_prop12_mp(alpha, eps_r, e))
            assert d(e) == pytest.approx(want, rel=1e-8, abs=1e-300)
            assert d(e) >= want  # the margin only ever raises the curve
            assert d(e) <= min(1.0, math.exp((alpha - 1) * (eps_r - e))) * (1 + 1e-8)  # Mironov, CSF 2017


def test_zcdp_curve_is_cor13_minimised_independently():
    """Our bisection on the derivative against scipy's bounded minimiser on the printed Cor. 13 form."""
    for rho in (0.01, 0.1, 0.5, 2.0, 10.0):
        z = zcdp_delta_curve(rho=rho)
        for e in (0.0, 0.1, 0.5, 1.0, 3.0, 8.0):
            want = _cor13_minimize_scalar(rho, e)
            if want > 1e-300:
                assert z(e) == pytest.approx(want, rel=1e-7)
                assert z(e) <= want * (1 + 2e-9)  # never looser than the independent minimum (plus the margin)


def test_zcdp_curve_mpmath_at_the_true_minimiser():
    """50-digit root of Z′(α) = (2α−1)ρ − ε′ + log(1−1/α), then Z there, against the library."""
    with mp.workdps(50):
        for rho, e in ((0.5, 1.0), (0.125, 0.7), (2.0, 6.0), (0.02, 0.3)):
            r, ep = mp.mpf(rho), mp.mpf(e)
            a = mp.findroot(lambda a: (2 * a - 1) * r - ep + mp.log(1 - 1 / a), (1 + ep / (2 * r)))
            z = (a - 1) * (a * r - ep) + (a - 1) * mp.log(1 - 1 / a) - mp.log(a)
            assert zcdp_delta_curve(rho=rho)(e) == pytest.approx(float(mp.exp(z)), rel=1e-8)


def test_zcdp_curve_dominates_the_exact_gaussian_curve_and_is_close():
    """A valid bound lies above the true δ(ε) of the Gaussian; ours within a factor 6 (where δ ≥ 1e-8)
    and 0.3 additively (measured: 5.6 and 0.27), and below the classical exp(−(ε−ρ)²/(4ρ))
    (Bun & Steinke 2016)."""
    for sigma in (0.5, 1.0, 2.0, 4.0):
        rho = 1 / (2 * sigma**2)
        z, g = zcdp_delta_curve(rho=rho), gaussian_delta_curve(sigma)
        for e in np.linspace(0.0, 6.0, 61):
            e = float(e)
            assert g(e) <= z(e) <= g(e) + 0.3
            if g(e) >= 1e-8:
                assert z(e) <= 6 * g(e)
            if e >= rho:
                assert z(e) <= math.exp(-((e - rho) ** 2) / (4 * rho)) * (1 + 2e-9)


def test_implied_curves_are_monotone():
    eps = np.linspace(0.0, 5.0, 26)
    for lo, hi in ((0.05, 0.06), (0.5, 0.8), (2.0, 2.01)):
        a, b = zcdp_delta_curve(rho=lo), zcdp_delta_curve(rho=hi)
        va, vb = [a(float(e)) for e in eps], [b(float(e)) for e in eps]
        assert all(x <= y for x, y in zip(va, vb))
        assert all(x >= y for x, y in zip(vb, vb[1:]))
        r1, r2 = rdp_delta_curve(alpha=3.0, epsilon=lo), rdp_delta_curve(alpha=3.0, epsilon=hi)
        assert all(r1(float(e)) <= r2(float(e)) for e in eps)


def test_understated_gaussian_refuted_zcdp():
    """σ = 1 (ρ = 0.5) sold as ρ = 0.1 at 10^6 draws: at ε′ ≈ 1 the claim allows δ ≈ 0.009, the truth is
    δ ≈ 0.13; the bound's sd at 5·10^5 estimation draws is < 1e-3, so refutation fails with prob. < 1e-20."""
    r = audit_zcdp(gauss, rho=0.1, pair=(0.0, 1.0), samples=10**6, rng=7)
    assert isinstance(r, ZCDPAudit) and r.verdict().value == "refuted" and r.curve.refuted_at
    assert 0.1 <= r.rho_lb <= 0.5
    # rho_lb is where the bounds cross the implied curve: violated there, satisfied just above
    eps, lower = np.array(r.curve.epsilons), np.array(r.curve.delta_lower)

    def viol(rho):
        return any(lo > zcdp_delta_curve(rho=rho)(float(e)) for e, lo in zip(eps, lower) if lo > 0)

    assert viol(r.rho_lb) and not viol(r.rho_lb * (1 + 1e-9))


def test_understated_gaussian_refuted_rdp_and_epsilon_lb_closed_form():
    """σ = 1 at α = 2 is (2, 1)-RDP exactly; sold as (2, 0.25). epsilon_lb against its closed form
    max_i ε_i + (log δ_lb,i − s + log α)/(α−1) − log(1 − 1/α) (solving Prop. 12, raised by the margin s,
    for ε_R): the bisection's value is below it by at most 1e-12 relative."""
    r = audit_rdp(gauss, alpha=2.0, epsilon=0.25, pair=(0.0, 1.0), samples=10**6, rng=3)
    assert isinstance(r, RDPAudit) and r.verdict().value == "refuted"
    closed = max(e + (math.log(lo) - _SLACK + math.log(2.0)) / 1.0 - math.log(0.5)
                 for e, lo in zip(r.curve.epsilons, r.curve.delta_lower) if lo > 0)
    assert closed * (1 - 2e-12) <= r.epsilon_lb <= closed * (1 + 1e-14)
    assert 0.25 <= r.epsilon_lb <= 1.0


def test_correct_claims_not_refuted_over_seeds():
    """True claims (ρ = 1/2; (2, 1)-RDP) at confidence 0.9, 20 seeds each: each audit refutes a true
    claim with probability ≤ 0.1, so more than 10 refutations has probability < 1e-6
    (Bin(20, 0.1).isf(1e-6) = 10).  rho_lb / epsilon_lb stay below the truth unless refuted."""
    allowed = stats.binom.isf(1e-6, 20, 0.1)
    assert allowed == 10
    z = [audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=100_000, confidence=0.9, rng=s) for s in range(20)]
    r = [audit_rdp(gauss, alpha=2.0, epsilon=1.0, pair=(0.0, 1.0), samples=100_000, confidence=0.9, rng=s)
         for s in range(20)]
    assert sum(a.verdict().value == "refuted" for a in z) <= allowed
    assert sum(a.verdict().value == "refuted" for a in r) <= allowed
    assert all((a.rho_lb >= 0.5) == (a.verdict().value == "refuted") for a in z)
    assert all((a.epsilon_lb >= 1.0) == (a.verdict().value == "refuted") for a in r)
    assert sum(a.rho_lb > 0.2 for a in z) >= 15  # the audit has power: the bounds are far from 0


def test_user_grid_and_no_mutation():
    grid = np.array([0.0, 0.5, 1.0])
    grid.flags.writeable = False
    r = audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=20_000, epsilons=grid, rng=0)
    assert r.curve.epsilons == (0.0, 0.5, 1.0) and grid.tolist() == [0.0, 0.5, 1.0]
    assert r.curve.claimed == tuple(zcdp_delta_curve(rho=0.5)(e) for e in (0.0, 0.5, 1.0))


def test_default_grid_spans_the_claims_informative_range():
    n = 50_000
    r = audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=n, rng=0)
    eps, z = r.curve.epsilons, zcdp_delta_curve(rho=0.5)
    assert len(eps) == 12 and eps[0] == 0.0 and list(eps) == sorted(eps)
    assert z(eps[-1]) <= 1 / n < z(eps[-1] * 0.99)
    r = audit_rdp(gauss, alpha=4.0, epsilon=3.0, pair=(0.0, 1.0), samples=n, rng=0)
    d = rdp_delta_curve(alpha=4.0, epsilon=3.0)
    assert d(r.curve.epsilons[0]) <= 1 - 1 / n < d(r.curve.epsilons[0] * 0.99)  # δ = 1 below: no power there


def test_all_zero_bounds_give_zero():
    r = audit_zcdp(lambda d, rng, n: rng.normal(0.0, 1.0, n), rho=0.5, pair=(0.0, 1.0), samples=2_000, rng=0,
                   epsilons=[3.0])
    assert r.curve.delta_lower == (0.0,) and r.rho_lb == 0.0 and r.verdict().value == "inconclusive"


def test_bad_input():
    for bad in (1.0, 0.5, -2.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="alpha"):
            rdp_delta_curve(alpha=bad, epsilon=1.0)
    for bad in ("2", True, 1 + 1j, None):
        with pytest.raises(TypeError, match="alpha"):
            rdp_delta_curve(alpha=bad, epsilon=1.0)
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="epsilon"):
            rdp_delta_curve(alpha=2.0, epsilon=bad)
        with pytest.raises(ValueError, match="rho"):
            zcdp_delta_curve(rho=bad)
        with pytest.raises(ValueError, match="rho"):
            audit_zcdp(gauss, rho=bad, pair=(0.0, 1.0), samples=1000)
    with pytest.raises(ValueError, match="epsilon_prime"):
        zcdp_delta_curve(rho=0.5)(-0.1)
    with pytest.raises(ValueError, match="epsilon_prime"):
        rdp_delta_curve(alpha=2.0, epsilon=1.0)(math.nan)
    with pytest.raises(TypeError):
        rdp_delta_curve(2.0, 1.0)  # privacy parameters are keyword-only
    with pytest.raises(ValueError, match="alpha"):
        audit_rdp(gauss, alpha=1.0, epsilon=1.0, pair=(0.0, 1.0), samples=1000)
    with pytest.raises(ValueError, match="samples"):
        audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=0)
    with pytest.raises(ValueError, match="samples"):
        audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=10**15)
    with pytest.raises(ValueError, match="epsilons"):
        audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=1000, epsilons=[-1.0])
    with pytest.raises(ValueError, match="pair"):
        audit_zcdp(gauss, rho=0.5, pair=0.0, samples=1000)
    with pytest.raises(ValueError, match="confidence"):
        audit_rdp(gauss, alpha=2.0, epsilon=1.0, pair=(0.0, 1.0), samples=1000, confidence=1.5)
