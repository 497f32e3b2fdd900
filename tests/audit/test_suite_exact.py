"""Exact laws of the finite-output suite mechanisms and the ideal auditor built on them.

Every law is checked three ways: it sums to 1; the mechanism's own sampler agrees with it (an exact
Bonferroni-binomial test, false-alarm rate ≤ 1e-6 per check, seeded); and for small instances an
independent exact computation (sympy, piecewise exponentials integrated in closed form) or, for
the 10-query headline pair, a high-precision quadrature in mpmath.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import stats

from dpverify.audit import audit
from dpverify.audit.intervals import poisson_log_ratio_lower
from dpverify.audit.suite import CASES as SUITE
from dpverify.audit.suite import (SVT1, SVT2, SVT3, SVT4, SVT5, SVT6, ReportNoisyMax1, ReportNoisyMax2,
                                  ReportNoisyMax3, TruncatedGeometric)
from dpverify.audit.ideal.laws import exact_law
from dpverify.audit.ideal.oracle import _bound, best_event_bound, exact_epsilon, reach_probability, sampler_pvalue
from dpverify.audit.suite.svt import _stop_after

HALF = np.r_[np.zeros(5), np.ones(5)]
XSHAPE = (HALF, HALF[::-1].copy())
RAND = np.random.default_rng(7).uniform(-3, 3, 10).round(3)
CASES = [
    (SVT1(0.1, threshold=0.5), np.ones(10)), (SVT1(0.1, threshold=0.5), HALF), (SVT1(0.1, c=2), RAND),
    (SVT2(0.1), HALF), (SVT2(0.1, c=2), RAND), (SVT4(0.1), np.r_[2 * np.ones(5), np.zeros(5)]),
    (SVT4(0.1, c=2), RAND), (SVT5(0.1), RAND * 10), (SVT5(0.1), HALF), (SVT6(0.1), HALF),
    (ReportNoisyMax1(0.1), [0.0, 2, 2, 2, 2]), (ReportNoisyMax2(0.1), [0.0, 2, 2, 2, 2]),
    (ReportNoisyMax2(0.1), [1.0, 3, 0, 3, 2]), (TruncatedGeometric(0.1), [2]), (TruncatedGeometric(0.1), [5]),
]
IDS = [f"{type(m).__name__}-c{getattr(m, 'c', '')}-{i}" for i, (m, _) in enumerate(CASES)]


@pytest.mark.parametrize(("mech", "data"), CASES, ids=IDS)
def test_law_sums_to_one_and_lists_distinct_outcomes(mech, data):
    out, p = exact_law(mech, data)
    assert abs(p.sum() - 1.0) < 1e-9 and (p >= 0).all() and len(out) == len(p)
    assert len(np.unique(out.reshape(len(out), -1), axis=0)) == len(out)


@pytest.mark.parametrize(("mech", "data"), CASES, ids=IDS)
def test_law_agrees_with_the_sampler(mech, data):
    """Exact test at false-alarm rate 1e-6 per case (15 cases: ≤ 1.5e-5 for the file), seeded."""
    out, p = exact_law(mech, data)
    assert sampler_pvalue(mech, data, out, p, samples=400_000, rng=2024) > 1e-6


class HalfNoiseSVT1(SVT1):
    """SVT1 with the query noise at half its scale (2c/ε instead of 4c/ε): a wrong mechanism."""

    def sample(self, data, rng, n):
        x = np.asarray(data, float).reshape(-1)
        rho = rng.laplace(0.0, 2.0 / self.epsilon, (n, 1))
        nu = rng.laplace(0.0, 2.0 * self.c / self.epsilon, (n, x.size))
        return _stop_after(x + nu >= self.threshold + rho, self.c, -1)


class NoRedrawSVT2(SVT2):
    """SVT2 that forgets to redraw ρ after a ⊤ (i.e. SVT1 with SVT2's scales)."""

    def sample(self, data, rng, n):
        x = np.asarray(data, float).reshape(-1)
        rho = rng.laplace(0.0, 2.0 * self.c / self.epsilon, (n, 1))
        nu = rng.laplace(0.0, 4.0 * self.c / self.epsilon, (n, x.size))
        return _stop_after(x + nu >= self.threshold + rho, self.c, -1)


@pytest.mark.parametrize(("law_of", "sampled", "data"), [
    (SVT1(0.1, threshold=0.5), HalfNoiseSVT1(0.1, threshold=0.5), HALF),
    (SVT2(0.1, c=3, threshold=0.0), NoRedrawSVT2(0.1, c=3, threshold=0.0), np.r_[np.full(5, 20.0), np.zeros(5)]),
])
def test_sampler_check_rejects_a_misspecified_mechanism(law_of, sampled, data):
    out, p = exact_law(law_of, data)
    assert sampler_pvalue(law_of, data, out, p, samples=400_000, rng=5) > 1e-6  # the right sampler passes
    assert sampler_pvalue(sampled, data, out, p, samples=400_000, rng=5) < 1e-6  # the wrong one fails


def test_sampler_check_sees_an_impossible_outcome():
    out, p = exact_law(SVT5(0.1), HALF)  # only 3 of the 1024 rows are possible on HALF
    assert sampler_pvalue(SVT6(0.1), HALF, out, p, samples=1000, rng=0) == 0.0


# ----------------------------------------------------------------------------- independent laws (sympy)

R = sp.symbols("r", real=True)


def _exp_integral(expr, lo, hi):
    """∫_lo^hi expr dR for expr a sum of c·exp(a·R + b), in closed form."""
    total = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(sp.powsimp(sp.expand(expr), combine="exp"))):
        coeff, dep = term.as_independent(R, as_Add=False)
        dep = sp.powsimp(dep, combine="exp")
        assert dep == 1 or dep.func == sp.exp, term
        arg = sp.expand(dep.args[0]) if dep != 1 else sp.Integer(0)
        a = sp.diff(arg, R)
        assert sp.diff(a, R) == 0, term
        if a == 0:
            assert lo.is_finite and hi.is_finite
            total += coeff * (hi - lo)
            continue
        prim = lambda v: 0 if v.is_infinite else coeff * sp.exp(arg.subs(R, v)) / a  # noqa: E731
        assert not (lo == -sp.oo and a < 0) and not (hi == sp.oo and a > 0)
        total += prim(hi) - prim(lo)
    return total


def _pieces(kinks, lower=-sp.oo):
    pts = sorted({sp.nsimplify(k) for k in kinks if k > lower})
    edges = [lower, *pts, sp.oo]
    for lo, hi in zip(edges[:-1], edges[1:]):
        mid = (lo + hi) / 2 if lo.is_finite and hi.is_finite else (hi - 1 if hi.is_finite else lo + 1)
        yield lo, hi, float(mid)


def _lap_pdf(z, b, v):
    return sp.exp(-z / b) / (2 * b) if v >= 0 else sp.exp(z / b) / (2 * b)


def _lap_sf(z, b, v):
    return sp.exp(-z / b) / 2 if v >= 0 else 1 - sp.exp(z / b) / 2


def _sym_svt(x, T, b_rho, b_nu, row_factors, kinks):
    """∫ f_ρ(r) Π_i factor_i(r) dr, factor by row code: ⊤ → S, ⊥ → 1 − S, −1 → 1."""
    total = 0
    for lo, hi, v in _pieces(kinks):
        expr = _lap_pdf(R, b_rho, v)
        for i, code in row_factors:
            z = T + R - x[i]
            s = _lap_sf(z, b_nu, v + float(T - x[i]))
            expr *= s if code == 1 else 1 - s
        total += _exp_integral(expr, lo, hi)
    return total


@pytest.mark.parametrize(("mech", "xs"), [
    (SVT1(0.1, threshold=0.5), ["1", "0", "1"]),
    (SVT1(0.1, c=2, threshold=0.5), ["1", "0", "3/2"]),
    (SVT4(0.1, threshold=1.0), ["2", "0"]),
    (SVT6(0.1, threshold=1.0), ["1", "-1/2"]),
])
def test_svt_shared_noise_law_matches_closed_form(mech, xs):
    x = [sp.Rational(v) for v in xs]
    eps, T, c = sp.nsimplify(mech.epsilon), sp.nsimplify(mech.threshold), mech.c
    b_rho, b_nu = {SVT1: (2 / eps, 4 * c / eps), SVT4: (4 / eps, 4 / (3 * eps)), SVT6: (2 / eps, 2 / eps)}[type(mech)]
    out, p = exact_law(mech, [float(v) for v in x])
    kinks = [0] + [xi - T for xi in x]
    for row, pr in zip(out.tolist(), p):
        want = _sym_svt(x, T, b_rho, b_nu, [(i, code) for i, code in enumerate(row) if code != -1], kinks)
        assert abs(float(want) - pr) <= 1e-10 * pr, (row, float(want), pr)


def test_svt2_redrawn_law_matches_closed_form():
    """SVT2, c = 2, three queries: the segments after each ⊤ are independent integrals."""
    mech, x = SVT2(0.1, c=2, threshold=0.5), [sp.Integer(1), sp.Integer(0), sp.Rational(3, 2)]
    T = sp.Rational(1, 2)
    b_rho, b_nu = 2 * 2 / sp.Rational(1, 10), 4 * 2 / sp.Rational(1, 10)  # ρ ~ Lap(2c/ε), ν ~ Lap(4c/ε)
    kinks = [0] + [xi - T for xi in x]
    out, p = exact_law(mech, [1.0, 0.0, 1.5])
    for row, pr in zip(out.tolist(), p):
        want, start = sp.Integer(1), 0
        tops = [i for i, code in enumerate(row) if code == 1]
        for i in tops:  # ⊥ on start..i−1, ⊤ at i, one ρ
            want *= _sym_svt(x, T, b_rho, b_nu, [(j, 0) for j in range(start, i)] + [(i, 1)], kinks)
            start = i + 1
        if len(tops) < 2 and start < 3:
            want *= _sym_svt(x, T, b_rho, b_nu, [(j, 0) for j in range(start, 3)], kinks)
        assert abs(float(want) - pr) <= 1e-10 * pr, (row, float(want), pr)


def test_svt5_law_matches_indicator_integral():
    mech, x, T = SVT5(0.1, threshold=1.0), [sp.Integer(3), sp.Integer(0), sp.Integer(3), sp.Integer(-2)], 1
    out, p = exact_law(mech, [float(v) for v in x])
    want = {}
    for lo, hi, v in _pieces([0] + [xi - T for xi in x]):
        row = tuple(int(float(xi) >= T + v) for xi in x)  # the answers for ρ in this piece
        want[row] = want.get(row, 0) + _exp_integral(_lap_pdf(R, 20, v), lo, hi)
    got = {tuple(r): pr for r, pr in zip(out.tolist(), p) if pr > 0}
    assert got.keys() == want.keys()
    assert all(abs(float(want[k]) - got[k]) <= 1e-12 for k in got)


@pytest.mark.parametrize("mech", [ReportNoisyMax1(0.1), ReportNoisyMax2(0.5)])
def test_noisy_max_law_matches_closed_form(mech):
    x = [sp.Integer(1), sp.Integer(0), sp.Integer(3)]
    b = 2 / sp.nsimplify(mech.epsilon)
    out, p = exact_law(mech, [1.0, 0.0, 3.0])
    for i in out.tolist():
        want = 0
        if isinstance(mech, ReportNoisyMax2):  # support [x_i, ∞): every CDF positive above max x
            expr = sp.exp(-(R - x[i]) / b) / b
            for j in range(3):
                expr *= 1 if j == i else 1 - sp.exp(-(R - x[j]) / b)
            want = _exp_integral(expr, sp.Integer(3), sp.oo)
        else:
            for lo, hi, v in _pieces(x):
                expr = _lap_pdf(R - x[i], b, v - float(x[i]))
                for j in range(3):
                    expr *= 1 if j == i else 1 - _lap_sf(R - x[j], b, v - float(x[j]))
                want += _exp_integral(expr, lo, hi)
        assert abs(float(want) - p[i]) <= 1e-10 * p[i], (i, float(want), p[i])


def test_geometric_law_is_the_integer_law():
    m = TruncatedGeometric(0.1)
    for c in range(m.n + 1):
        out, p = exact_law(m, [c])
        cdf = m.cdf(c)
        want = [Fraction(b - a, m.d) for a, b in zip([0, *cdf], cdf)]
        assert out.tolist() == list(range(m.n + 1)) and p.tolist() == [float(w) for w in want]
    worst = max(exact_epsilon(exact_law(m, [c])[1], exact_law(m, [c + 1])[1]) for c in range(m.n))
    assert abs(worst - m.true_epsilon) < 1e-12


# ----------------------------------------------------------------------------- the headline pair

def test_svt1_headline_pair_in_high_precision():
    """SVT1(ε=0.1, T=0.5), 10 queries, ones vs half above/half below: every probability and the
    exact ε 0.0885 agree with a 20-digit tanh-sinh quadrature of the same law written anew."""
    d, dp = np.ones(10), np.r_[np.full(5, 2.0), np.zeros(5)]

    def law(x):
        def sf(z):  # P(Lap(40) ≥ z)
            return mpmath.exp(-z / 40) / 2 if z >= 0 else 1 - mpmath.exp(z / 40) / 2

        def prob(first):  # first ⊤ at `first` (10: none)
            def f(r):
                v = mpmath.exp(-abs(r) / 20) / 40
                for i in range(min(first + 1, 10)):
                    s = sf(mpmath.mpf("0.5") + r - x[i])
                    v *= s if i == first else 1 - s
                return v
            kinks = sorted({mpmath.mpf(0), *(xi - mpmath.mpf("0.5") for xi in x)})
            return mpmath.quad(f, [-mpmath.inf, *kinks, mpmath.inf])
        return [prob(10)] + [prob(j) for j in range(10)]

    for x in (d, dp):
        got = exact_law(SVT1(0.1, threshold=0.5), x)[1]
        with mpmath.workdps(20):
            want = law([mpmath.mpf(float(v)) for v in x])
        assert all(abs(float(w) - g) <= 1e-10 * g for w, g in zip(want, got))
    p, q = (exact_law(SVT1(0.1, threshold=0.5), x)[1] for x in (d, dp))
    assert abs(exact_epsilon(p, q) - 0.0885) < 5e-5
    b7 = best_event_bound(p, q, n=10**7, confidence=0.9)
    assert b7.epsilon < 0.0858 <= best_event_bound(p, q, n=2 * 10**8, confidence=0.9).epsilon


# ----------------------------------------------------------------------------- the ideal bound

def test_ratio_ordered_prefixes_are_best_among_all_events():
    """On random small laws the best prefix equals the best of all 2^K events (exhaustive)."""
    rng = np.random.default_rng(3)
    for _ in range(60):
        k, n = int(rng.integers(2, 7)), int(rng.choice([50, 2000, 10**6]))
        p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        best = max(_bound(np.array([a[list(s)].sum()]), np.array([b[list(s)].sum()]), n, 0.05)[0][0]
                   for m in range(1, k + 1) for s in itertools.combinations(range(k), m) for a, b in ((p, q), (q, p)))
        got = best_event_bound(p, q, n=n, confidence=0.9)
        assert abs(got.epsilon - max(best, 0.0)) < 1e-12
        if got.epsilon > 0:  # its counts and bounds recomputed by hand
            lo = stats.beta.ppf(0.05, got.k_p, n - got.k_p + 1)
            hi = stats.beta.ppf(0.95, got.k_q + 1, n - got.k_q)
            assert abs(got.epsilon - math.log(lo / hi)) < 1e-12 and got.k_p == round(n * got.p_event)


def test_ideal_bound_below_exact_and_converging():
    p, q = (exact_law(ReportNoisyMax1(0.1), x)[1] for x in ([1.0] * 5, [0.0, 2, 2, 2, 2]))
    eps = exact_epsilon(p, q)
    bounds = [best_event_bound(p, q, n=n, confidence=0.9).epsilon for n in (10**4, 10**6, 10**8, 10**12)]
    assert all(a < b for a, b in zip(bounds, bounds[1:])) and bounds[-1] < eps < bounds[-1] + 1e-4
    pooled = best_event_bound(p, q, n=10**6, confidence=0.9, pooled=True)
    assert pooled.epsilon >= bounds[1] and pooled.epsilon < eps


def test_pooled_event_uses_both_orders():
    p, q = [0.3, 0.3, 0.4], [0.4, 0.3, 0.3]  # mirror images: pooling doubles the trials
    single, both = (best_event_bound(p, q, n=10**4, confidence=0.9, pooled=v) for v in (False, True))
    assert both.direction == "both" and both.trials == 2 * 10**4 and both.epsilon > single.epsilon
    assert both.event == (2,) and both.event2 == (0,)


@pytest.mark.parametrize(("n", "pe", "qe"), [(60, 0.5, 0.3), (200, 0.05, 0.02), (40, 0.9, 0.9)])
def test_reach_probability_is_the_double_binomial_sum(n, pe, qe):
    """Against the full double sum over every (k_P, k_Q), the bounds computed by scipy directly."""
    k = np.arange(n + 1)
    lo = np.where(k > 0, stats.beta.ppf(0.05, np.maximum(k, 1), n - k + 1), 0.0)
    hi = np.where(k < n, stats.beta.ppf(0.95, k + 1, np.maximum(n - k, 1)), 1.0)
    with np.errstate(divide="ignore"):
        bound = np.log(lo)[:, None] - np.log(hi)[None, :]
    mass = stats.binom.pmf(k, n, pe)[:, None] * stats.binom.pmf(k, n, qe)[None, :]
    for target in (-0.2, 0.0, 0.2, 0.6, 1.5):
        want = mass[bound >= target].sum()
        assert abs(reach_probability(pe, qe, n=n, confidence=0.9, target=target) - want) < 1e-12


@pytest.mark.parametrize(("lam", "pe", "qe"), [(200, 0.3, 0.2), (1000, 0.05, 0.04), (50, 0.5, 0.5), (3000, 0.01, 0.002)])
def test_reach_probability_poisson_is_the_double_poisson_sum(lam, pe, qe):
    """Against the full double sum over (k_P, k_Q) ~ Poisson × Poisson of the library's conditional bound."""
    k = np.arange(int(lam * max(pe, qe) + 12 * np.sqrt(lam * max(pe, qe)) + 30) + 1)
    kp, kq = np.meshgrid(k, k, indexing="ij")
    ok = kp + kq > 0
    bound = np.full(kp.shape, -np.inf)
    bound[ok] = poisson_log_ratio_lower(kp[ok], kq[ok], 0.1)
    mass = stats.poisson.pmf(k, lam * pe)[:, None] * stats.poisson.pmf(k, lam * qe)[None, :]
    for target in (-0.3, 0.0, 0.1, 0.3, 1.0, 3.0):
        want = mass[bound >= target].sum()
        assert abs(reach_probability(pe, qe, n=lam, confidence=0.9, target=target, test="poisson") - want) < 1e-12


def test_reach_probability_poisson_matches_simulation():
    """Seeded: 20,000 simulated Poisson audits of SVT4's best event at 10^7 (the conditional test)
    against the exact sum; the binomial standard error is ≤ 0.0036, the tolerance 0.02 (> 5 se)."""
    svt4 = next(c for c in SUITE if c.name == "SVT4").make()  # the suite's SVT4, its best pair
    p, q = (exact_law(svt4, x)[1] for x in (np.ones(10), np.r_[np.zeros(9), 2.0]))
    b = best_event_bound(p, q, n=10**7, confidence=0.9, test="poisson")
    g = np.random.default_rng(3)
    kp, kq = g.poisson(10**7 * b.p_event, 20_000), g.poisson(10**7 * b.q_event, 20_000)
    sim = float(np.mean(poisson_log_ratio_lower(kp, kq, 0.1) >= 0.1687))
    exact = reach_probability(b.p_event, b.q_event, n=10**7, confidence=0.9, target=0.1687, test="poisson")
    assert abs(sim - exact) < 0.02 and 0.4 < exact < 0.6  # a coin flip for an auditor that knows the event


def test_reach_probability_counts_a_target_equal_to_an_attainable_bound():
    """A target equal to the bound of some counts (say an observed one) is reached by those counts:
    the first reaching count is settled by the bound itself, under either test."""
    lam, pe, qe = 200, 0.3, 0.2
    k = np.arange(201)
    kp, kq = np.meshgrid(k, k, indexing="ij")
    ok = kp + kq > 0
    bound = np.full(kp.shape, -np.inf)
    bound[ok] = poisson_log_ratio_lower(kp[ok], kq[ok], 0.1)
    mass = stats.poisson.pmf(k, lam * pe)[:, None] * stats.poisson.pmf(k, lam * qe)[None, :]
    for counts in ((58, 47), (30, 20), (100, 60)):
        t = float(poisson_log_ratio_lower(*counts, 0.1))
        assert abs(reach_probability(pe, qe, n=lam, confidence=0.9, target=t, test="poisson")
                   - mass[bound >= t].sum()) < 1e-12
    n = 80
    lo = np.where(k[:n + 1] > 0, stats.beta.ppf(0.05, np.maximum(k[:n + 1], 1), n - k[:n + 1] + 1), 0.0)
    hi = np.where(k[:n + 1] < n, stats.beta.ppf(0.95, k[:n + 1] + 1, np.maximum(n - k[:n + 1], 1)), 1.0)
    with np.errstate(divide="ignore"):
        b2 = np.log(lo)[:, None] - np.log(hi)[None, :]
    m2 = stats.binom.pmf(k[:n + 1], n, 0.4)[:, None] * stats.binom.pmf(k[:n + 1], n, 0.25)[None, :]
    for i, j in ((40, 20), (33, 25), (50, 10)):
        t = float(b2[i, j])
        assert abs(reach_probability(0.4, 0.25, n=n, confidence=0.9, target=t) - m2[b2 >= t].sum()) < 1e-12


def test_reach_probability_edges():
    """No draw in S under d: never reached; none under d′: π = 1; tiny α (the quantile computed
    without 1 − α); beyond every attainable bound: 0; below every one: the chance of any bound."""
    assert reach_probability(0.0, 0.3, n=100, confidence=0.9, target=-5.0, test="poisson") == 0.0
    # q_event = 0: k_P = m, the bound α^{1/m}-logit reaches t = 2 once m is large enough
    m = np.arange(1, 200)
    want = float(np.sum(stats.poisson.pmf(m, 30.0)[np.log(0.1 ** (1 / m)) - np.log1p(-(0.1 ** (1 / m))) >= 2.0]))
    assert abs(reach_probability(0.3, 0.0, n=100, confidence=0.9, target=2.0, test="poisson") - want) < 1e-12
    assert reach_probability(0.6, 0.4, n=1000, confidence=0.9, target=50.0, test="poisson") == 0.0
    assert abs(reach_probability(0.6, 0.4, n=1000, confidence=0.9, target=-50.0, test="poisson") - 1.0) < 1e-12
    tiny = reach_probability(0.6, 0.4, n=30_000, confidence=1 - 2.0**-52, target=0.3, test="poisson")
    assert 0.80 < tiny < 0.805  # 0.80215 by a full search; a 1 − α quantile was 245 steps off here


@pytest.mark.parametrize("test", ["binomial", "poisson"])
def test_reach_probability_refuses_a_window_too_wide_naming_n(test):
    with pytest.raises(ValueError, match=r"^n = 1000000000000( with p_event|: n·\(p_event \+ q_event\) = 9e\+11)"):
        reach_probability(0.5, 0.4, n=10**12, confidence=0.9, target=0.1, test=test)
    with pytest.raises(ValueError, match="at most 200000"):
        reach_probability(0.5, 0.4, n=2**62, confidence=0.9, target=0.1, test=test)
    # binomial: a narrow window of counts no float holds apart; Poisson: its window is as wide as √μ
    with pytest.raises(ValueError, match="exceed 2\\^53" if test == "binomial" else "at most 200000"):
        reach_probability(1.0, 0.0, n=2**53 + 7, confidence=0.9, target=0.1, test=test)


def test_poisson_pmf_is_accurate_where_scipy_cancels():
    """Against mpmath at 40 digits, across the whole central window the sum uses (edges included):
    relative error < 1e-13 up to μ = 1.5·10^8 (scipy's pmf: 6e-7; the direct bd0 at the window's
    edges for μ near 1000: 2e-13)."""
    import mpmath

    from dpverify.audit.ideal.reach import _TAIL, _poisson_pmf

    mpmath.mp.dps = 40
    for mu in (3.7, 250.0, 700.0, 1000.0, 1300.0, 3e3, 1e5, 1e7, 1.5e8):
        lo, hi = max(stats.poisson.ppf(_TAIL, mu), 1), stats.poisson.isf(_TAIL, mu)
        ks = np.unique(np.r_[np.linspace(lo, hi, 41).round(), lo, hi]).astype(np.int64)
        want = np.array([float(mpmath.exp(k * mpmath.log(mu) - mpmath.loggamma(k + 1) - mu)) for k in ks])
        assert np.max(np.abs(_poisson_pmf(ks, mu) / want - 1)) < 1e-13


def test_reach_probability_rejects_an_unknown_test():
    with pytest.raises(ValueError, match="test must be"):
        reach_probability(0.5, 0.4, n=100, confidence=0.9, target=0.1, test="wald")


def test_svt1_target_needs_luck_at_ten_million():
    """The best SVT1 event reaches DP-Sniper's 0.0858 at 10^7 only by chance (about 8 %), and
    almost surely at DP-Sniper's 2·10^8."""
    p, q = (exact_law(SVT1(0.1, threshold=0.5), x)[1] for x in (np.ones(10), np.r_[np.full(5, 2.0), np.zeros(5)]))
    b = best_event_bound(p, q, n=10**7, confidence=0.9)
    luck = reach_probability(b.p_event, b.q_event, n=10**7, confidence=0.9, target=0.0858)
    assert 0.05 < luck < 0.12
    assert reach_probability(b.p_event, b.q_event, n=2 * 10**8, confidence=0.9, target=0.0858) > 0.8


# ----------------------------------------------------------------------------- the auditor stays below

def test_audit_never_exceeds_the_pairs_exact_epsilon():
    """20 seeded audits at 200k draws, confidence 0.9, on TruncatedGeometric's pair (2, 1): each
    exceeds the pair's exact ε with probability ≤ 0.1, so more than binom.isf(1e-6, 20, 0.1) = 11
    exceedances has probability < 1e-6.  The control: the same bounds do exceed the exact ε of a
    less leaky pair (TruncatedGeometric(0.05), ε = ln(1 + 1/16)) — the comparison has teeth."""
    m, pair = TruncatedGeometric(0.1), (np.array([2.0]), np.array([1.0]))
    exact = exact_epsilon(exact_law(m, [2])[1], exact_law(m, [1])[1])
    small = TruncatedGeometric(0.05)
    smaller = exact_epsilon(exact_law(small, [2])[1], exact_law(small, [1])[1])
    bounds = [audit(m, epsilon=m.epsilon, pairs=[pair], samples=200_000, confidence=0.9, rng=s,
                    stop_early=False).epsilon for s in range(20)]
    assert sum(b > exact for b in bounds) <= stats.binom.isf(1e-6, 20, 0.1)
    assert sum(b > smaller for b in bounds) >= 15, (smaller, bounds)


# ----------------------------------------------------------------------------- refusals

def test_refusals():
    with pytest.raises(TypeError, match="mechanism"):
        exact_law(HalfNoiseSVT1(0.1), HALF)  # a subclass may sample differently
    for m in (SVT3(0.1), ReportNoisyMax3(0.1)):
        with pytest.raises(TypeError, match="mechanism"):
            exact_law(m, HALF)
    with pytest.raises(ValueError, match="data"):
        exact_law(SVT6(0.1), np.ones(13))  # 8192 outcomes
    with pytest.raises(ValueError, match="data"):
        exact_law(TruncatedGeometric(0.1), [2.5])
    with pytest.raises(ValueError, match="data"):
        exact_law(SVT1(0.1), [np.nan])
    with pytest.raises(ValueError, match="q"):
        best_event_bound([0.5, 0.5], [1.0], n=10, confidence=0.9)
    with pytest.raises(ValueError, match="confidence"):
        best_event_bound([0.5, 0.5], [0.5, 0.5], n=10, confidence=1.0)
    with pytest.raises(ValueError, match="outcomes"):
        sampler_pvalue(SVT1(0.1), HALF, np.zeros(3), [0.5, 0.5], samples=10, rng=0)
