"""The conditional Poisson test of ``audit()`` at δ = 0 (``proofs/audit/auditor_validity.md``, step 7):
its exact coverage, its draw counts, the choice between it and the binomial test, and the
one-against-the-rest patterns with the odd entry last.

Statistical assertions are seeded; each states its false-alarm rate or margin.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpverify.audit import audit
from dpverify.audit.events import Binner, make_event
from dpverify.audit.intervals import clopper_pearson_lower, clopper_pearson_upper, poisson_draws, poisson_log_ratio_lower
from dpverify.audit.mechanisms import FiniteMechanism
from dpverify.audit.search import Neighbours
from dpverify.audit.statistical import Selection, estimate, select_event
from dpverify.audit.suite import SVT1
from dpverify.audit.ideal.laws import exact_law
from dpverify.audit.ideal.oracle import best_event_bound


# ----------------------------------------------------------------- the bound itself
@pytest.mark.parametrize("ratio", [1.0, 1.35, 4.0])
@pytest.mark.parametrize("mu_q", [0.5, 6.0, 80.0])
def test_conditional_bound_covers_exactly(ratio, mu_q):
    """Pr[bound > ln(μ_P/μ_Q)] summed over the joint Poisson law (tails beyond 12 sd dropped): ≤ a."""
    a, mu_p = 0.1, ratio * mu_q
    kp = np.arange(int(mu_p + 12 * math.sqrt(mu_p) + 30))
    kq = np.arange(int(mu_q + 12 * math.sqrt(mu_q) + 30))
    KP, KQ = np.meshgrid(kp, kq, indexing="ij")
    joint = np.outer(stats.poisson.pmf(kp, mu_p), stats.poisson.pmf(kq, mu_q))
    ok = KP + KQ > 0
    lb = np.full(KP.shape, -np.inf)
    lb[ok] = poisson_log_ratio_lower(KP[ok], KQ[ok], a)
    assert joint[lb > math.log(ratio) + 1e-12].sum() <= a + 1e-9


def test_conditional_bound_matches_its_definition_and_beats_bonferroni_on_rare_events():
    # by definition: the logit of the Clopper–Pearson lower bound on π from k_P of k_P + k_Q
    pi = float(clopper_pearson_lower(300, 500, 0.1))
    assert float(poisson_log_ratio_lower(300, 200, 0.1)) == pytest.approx(math.log(pi / (1 - pi)), rel=1e-12)
    # a rare event (p ≈ 0.006, q ≈ 0.0055, n = 5·10^6): one bound at α against two at α/2
    kp, kq, n = 31_000, 28_500, 5 * 10**6
    bonf = math.log(float(clopper_pearson_lower(kp, n, 0.05)) / float(clopper_pearson_upper(kq, n, 0.05)))
    assert float(poisson_log_ratio_lower(kp, kq, 0.1)) > bonf + 0.005
    assert float(poisson_log_ratio_lower(0, 5, 0.1)) == -math.inf


def test_bad_counts_and_levels_are_refused():
    with pytest.raises(ValueError, match="k"):
        poisson_log_ratio_lower(-1, 3, 0.1)
    with pytest.raises(ValueError, match="alpha"):
        poisson_log_ratio_lower(3, 3, 1.5)
    with pytest.raises(TypeError, match="k"):
        poisson_log_ratio_lower("3", 3, 0.1)
    with pytest.raises(ValueError, match=r"k_p \+ k_q must be >= 1"):
        poisson_log_ratio_lower(0, 0, 0.1)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        poisson_draws(0, 0.01)
    with pytest.raises(ValueError, match="eta"):
        poisson_draws(100, float("nan"))


@pytest.mark.parametrize("n", [1, 7, 1000, 123_457, 10**8])
def test_poisson_mean_keeps_the_cap_with_the_stated_probability(n):
    lam, over = poisson_draws(n, 1e-4)
    assert 0 < lam < n + 1 and over <= 1e-4 and over == pytest.approx(stats.poisson.sf(n, lam), rel=1e-9)
    assert stats.poisson.sf(n, lam * 1.02 + 0.05) > 1e-4  # and λ is (nearly) the largest such mean


# ----------------------------------------------------------------- the whole test on a finite mechanism
def _at_its_epsilon():
    p = np.array([0.02, 0.18, 0.3, 0.5])
    q = p * np.array([math.exp(-0.5), 1.0, 1.0, 1.0])
    q = q / q.sum()
    return FiniteMechanism((tuple(p), tuple(q))), float(np.max(np.abs(np.log(p / q))))


def test_estimate_with_poisson_counts_does_not_overclaim():
    """400 seeded runs at α = 0.2 on a mechanism at exactly its ε: the exceedances of the true ε are
    stochastically below Bin(400, 0.2), and more than 120 has probability < 1e-6 under the guarantee
    (measured: 70 of 400; with the level mutated to 4α, 316 — the test fails).  The event is the one
    outcome whose ratio is exactly e^ε, so any lost confidence shows."""
    mech, true_eps = _at_its_epsilon()
    b = Binner(np.arange(4), categorical=True)
    # the event {output 0}, whose ratio is exactly e^ε: the worst case for the guarantee
    sel = Selection((make_event("bins", np.array([True, False, False, False]), b),), "d>d_prime", 0.0, 0, "poisson")
    over = 0
    for seed in range(400):
        e = estimate(mech, (0, 1), sel, 4000, seed, None, alpha=0.2, delta=0.0)
        assert e.test == "poisson" and e.trials <= 4000 and e.trials_q <= 4000
        over += e.eps_lb > true_eps
    assert over <= 120, over


def test_poisson_test_needs_delta_zero():
    mech, _ = _at_its_epsilon()
    b = Binner(np.arange(4), categorical=True)
    ev = select_event(b, [np.array([[50, 5, 5, 5]] * 2), np.array([[20, 5, 5, 5]] * 2)], n_est=1000, alpha=0.1,
                      delta=0.0, tests=("binomial", "poisson"), min_count=1)
    sel = Selection(ev.events, ev.choice, ev.score, ev.n_selection, "poisson")
    with pytest.raises(ValueError, match="delta = 0"):
        estimate(mech, (0, 1), sel, 1000, 0, None, alpha=0.1, delta=1e-3)
    with pytest.raises(ValueError, match="tests must be"):
        select_event(b, [np.array([[5, 5, 5, 5]] * 2)] * 2, n_est=10, alpha=0.1, delta=0.0, tests=("wald",))


def test_selection_chooses_the_test_by_its_promise():
    """Rare events favour the conditional test (one bound at α instead of two at α/2); at δ > 0 only
    the binomial one is offered."""
    b = Binner(np.arange(3), categorical=True)
    rare = [np.array([[60, 4000, 5940]] * 2), np.array([[50, 4010, 5940]] * 2)]
    assert select_event(b, rare, n_est=10**6, alpha=0.1, delta=0.0, tests=("binomial", "poisson")).test == "poisson"
    assert select_event(b, rare, n_est=10**6, alpha=0.1, delta=1e-9, tests=("binomial", "poisson")).test == "binomial"
    assert select_event(b, rare, n_est=10**6, alpha=0.1, delta=0.0).test == "binomial"  # the default


def test_audit_reports_the_test_it_made():
    m, _ = _at_its_epsilon()
    r = audit(m, epsilon=5.0, pairs=[(0, 1)], samples=200_000, rng=0, confidence=0.9)
    d = r.as_dict()
    assert d["test"] in ("binomial", "poisson") and all("test" in s and "trials_q" in s for s in d["stages"])
    assert r.test == "poisson" and d["trials"] <= 200_000 and d["trials_q"] <= 200_000
    r = audit(m, epsilon=5.0, delta=1e-6, pairs=[(0, 1)], samples=200_000, rng=0, confidence=0.9)
    assert r.test == "binomial" and all(s.test == "binomial" for s in r.stages)


# ----------------------------------------------------------------- the odd entry last
def test_odd_entry_last_patterns_are_candidates_and_matter_for_svt():
    rel = Neighbours(shape=(10,), kind="linf", default_domain=True)
    seconds = [b.tolist() for _, b in rel.candidates(np.random.default_rng(0))]
    assert [0.0] * 9 + [2.0] in seconds and [2.0] * 9 + [0.0] in seconds
    m = SVT1(0.1)
    one = np.ones(10)
    first = best_event_bound(exact_law(m, one)[1], exact_law(m, np.r_[2.0, np.zeros(9)])[1], n=10**7, confidence=0.9)
    last = best_event_bound(exact_law(m, one)[1], exact_law(m, np.r_[np.zeros(9), 2.0])[1], n=10**7, confidence=0.9)
    assert last.epsilon > 2 * first.epsilon  # 0.085 against 0.038 (exact ε 0.098 against 0.040)
    pois = best_event_bound(exact_law(m, one)[1], exact_law(m, np.r_[np.zeros(9), 2.0])[1], n=10**7,
                            confidence=0.9, test="poisson")
    assert pois.epsilon > 0.0858 > last.epsilon  # DP-Sniper's SVT1 bound: within reach only by the conditional test


def test_poisson_bound_stays_finite_when_the_lower_bound_rounds_to_one():
    """All 10^17 draws in one input: π_lo rounds to 1 in float, yet the logit bound is finite and
    equals ln(π_lo/(1 − π_lo)) with 1 − π_lo = 1 − α^(1/m) = −expm1(ln α / m) (the k_q = 0 closed form)."""
    import math

    from dpverify.audit.intervals import poisson_log_ratio_lower

    for m in (10**6, 10**12, 10**17):
        got = float(poisson_log_ratio_lower(m, 0, 0.05))
        q = -math.expm1(math.log(0.05) / m)
        assert math.isfinite(got)
        assert abs(got - (math.log1p(-q) - math.log(q))) <= 1e-9 * abs(got)
