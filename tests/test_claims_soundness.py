"""A `holds` that cannot be wrong (issue 26, findings 2-4): the engine keeps a claim's label true, and
the toolkit's simulation needs power before it says `holds`.

- registration refuses an audit that expects `holds` or `erratum`;
- every result's evidence records the route of its verdict (in process and in worker processes);
- a claim labelled exact may not conclude by a sampling route, and a check of such a claim that
  sampled must name its route: otherwise the result is an `error` saying why;
- ``simulate_against`` says `holds` only with a stated deviation caught with probability ≥ 1 − β,
  and that power is real (checked exactly for the binomial test, by seeded runs for the others).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from dpverify.claims import Method, Outcome, Source, Verdict, claim, get_claim, run_claim, run_claims
from dpverify.claims.model import label_error, note_sampling, sampling_notes
from dpverify.claims.store import unregister
from dpverify.toolkit import simulate_against

SRC = Source("none", "§0")


@pytest.fixture
def temp_claims():
    ids: list[str] = []
    yield ids
    for cid in ids:
        unregister(cid)


def _register(ids, cid, check, method="exact computation", expected="holds"):
    claim(cid, source=SRC, statement="a statement", method=method, expected=expected)(check)
    ids.append(cid)
    return get_claim(cid)


# ------------------------------------------------------------------ registration


@pytest.mark.parametrize("expected", ["holds", "erratum"])
def test_an_audit_expecting_holds_is_refused_at_registration(expected):
    with pytest.raises(ValueError, match=rf"zzsound.audit.*'audit'.*{expected}.*an audit can never establish"):
        claim("zzsound.audit", source=SRC, statement="s", method="audit", expected=expected)(
            lambda thorough=False: Outcome(Verdict.INCONCLUSIVE))
    with pytest.raises(KeyError):
        get_claim("zzsound.audit")


def test_an_audit_expecting_refuted_or_inconclusive_registers(temp_claims):
    for i, exp in enumerate(("refuted", "inconclusive")):
        c = _register(temp_claims, f"zzsound.audit{i}", lambda thorough=False: Outcome(Verdict.INCONCLUSIVE),
                      method="audit", expected=exp)
        assert c.expected.value == exp


# ------------------------------------------------------------------ the route in every result


def _sampling_check(route=None, verdict=Verdict.HOLDS):
    def check(thorough=False):
        coin = lambda rng, n: rng.random(n) < 0.5  # noqa: E731
        out = simulate_against(coin, 0.5, n=20_000, rng=0, detect=0.05)
        return Outcome(verdict if out.verdict is Verdict.HOLDS else Verdict.REFUTED, {"p": 1.0}, route=route)
    return check


def test_every_result_records_its_route_in_process_and_in_workers(temp_claims):
    cs = [_register(temp_claims, "zzsound.exact", lambda thorough=False: Outcome(Verdict.HOLDS, {"x": 1})),
          _register(temp_claims, "zzsound.sim", _sampling_check(), method="simulation"),
          _register(temp_claims, "zzsound.raises", lambda thorough=False: 1 / 0)]
    for kw in ({}, {"jobs": 2}):
        rs = {r.claim.id: r for r in run_claims(cs, **kw)}
        assert rs["zzsound.exact"].outcome.evidence["route"] == "exact computation"
        assert "sampling_ran" not in rs["zzsound.exact"].outcome.evidence
        assert rs["zzsound.sim"].outcome.evidence["route"] == "simulation"
        assert rs["zzsound.sim"].outcome.evidence["sampling_ran"] == "simulation"
        assert rs["zzsound.sim"].verdict is Verdict.HOLDS
        assert rs["zzsound.raises"].verdict is Verdict.ERROR
        assert rs["zzsound.raises"].outcome.evidence["route"] == "exact computation"
        assert rs["zzsound.exact"].outcome.route is Method.EXACT


def test_every_shipped_claim_carries_a_route():
    c = get_claim("pca.corrected_ppca_dp_is_dp")
    r = run_claim(c)
    assert r.verdict is Verdict.HOLDS and r.outcome.evidence["route"] == "exact computation"


# ------------------------------------------------------------------ exact labels stay exact


def test_an_exact_claim_whose_verdict_rests_on_sampling_is_an_error(temp_claims):
    c = _register(temp_claims, "zzsound.lying", _sampling_check(route="audit"))
    r = run_claim(c)
    assert r.verdict is Verdict.ERROR
    assert "labelled 'exact computation'" in r.outcome.summary and "rests on 'audit'" in r.outcome.summary
    assert r.outcome.evidence["returned_verdict"] == "holds" and r.outcome.evidence["route"] == "audit"


def test_an_exact_claim_that_sampled_must_name_its_route(temp_claims):
    silent = _register(temp_claims, "zzsound.silent", _sampling_check())
    r = run_claim(silent)
    assert r.verdict is Verdict.ERROR and "ran sampling (simulation)" in r.outcome.summary
    declared = _register(temp_claims, "zzsound.declared", _sampling_check(route=Method.EXACT))
    r = run_claim(declared)  # sampling as a cross-check, the verdict declared exact: allowed and recorded
    assert r.verdict is Verdict.HOLDS and r.outcome.evidence["sampling_ran"] == "simulation"
    labelled = _register(temp_claims, "zzsound.labelled", _sampling_check(), method="simulation")
    assert run_claim(labelled).verdict is Verdict.HOLDS


@pytest.mark.parametrize("method", ["symbolic", "solver cross-check", "property"])
def test_every_exact_method_refuses_a_sampling_route(temp_claims, method):
    c = _register(temp_claims, f"zzsound.m{len(temp_claims)}",
                  lambda thorough=False: Outcome(Verdict.REFUTED, route="simulation"), method=method)
    assert run_claim(c).verdict is Verdict.ERROR


def test_the_route_key_is_the_engines(temp_claims):
    c = _register(temp_claims, "zzsound.key", lambda thorough=False: Outcome(Verdict.HOLDS, {"route": "audit"}))
    r = run_claim(c)
    assert r.verdict is Verdict.ERROR and "the evidence key 'route' is the engine's" in r.outcome.summary


def test_label_error_and_notes_api():
    c = get_claim("pca.thm3_ppca_dp_is_dp")
    assert label_error(c, Outcome(Verdict.REFUTED, route="exact computation"), ["audit"]) is None
    assert "rests on 'audit'" in label_error(c, Outcome(Verdict.REFUTED, route="audit"))
    with pytest.raises(ValueError, match="route must be one of"):
        Outcome(Verdict.HOLDS, route="guess")
    with pytest.raises(ValueError, match="kind must be"):
        note_sampling("guess")
    note_sampling("audit")  # outside a check: nothing to record, no error
    with sampling_notes() as notes:
        note_sampling("audit")
    assert notes == {"audit"}


def _gauss(d, rng, n):
    return rng.normal(float(d), 1.0, n)


def _curve_check(thorough=False):
    from dpverify.audit import audit_delta_curve, gaussian_delta_curve

    r = audit_delta_curve(_gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(1.0), epsilons=[1.0],
                          samples=2_000, rng=0)
    return Outcome(Verdict.HOLDS, {"delta_lb": r.delta_lower[0]})


def _zcdp_check(thorough=False):
    from dpverify.audit import audit_zcdp

    audit_zcdp(_gauss, rho=0.5, pair=(0.0, 1.0), samples=2_000, epsilons=[1.0], rng=0)
    return Outcome(Verdict.HOLDS)


def _threaded_audit_check(thorough=False):
    from concurrent.futures import ThreadPoolExecutor

    from dpverify.audit import audit

    with ThreadPoolExecutor(1) as pool:  # a thread does not inherit the check's context
        report = pool.submit(audit, _gauss, epsilon=1.0, pairs=[(0.0, 1.0)], samples=2_000, rng=0).result()
    return Outcome(Verdict.HOLDS, {"epsilon_lb": report.epsilon})


@pytest.mark.parametrize("check, seen", [(_curve_check, "audit"), (_zcdp_check, "audit"),
                                         (_threaded_audit_check, "audit or simulation (seen in another thread)")])
def test_an_exact_claim_that_audits_unnoticed_before_is_an_error(temp_claims, check, seen):
    """The δ(ε)-curve and zCDP audits note their sampling; so does any audit run in another thread."""
    r = run_claim(_register(temp_claims, f"zzsound.hidden{len(temp_claims)}", check))
    assert r.verdict is Verdict.ERROR and f"ran sampling ({seen})" in r.outcome.summary, r.outcome.summary
    assert r.outcome.evidence["sampling_ran"] == seen


def test_sampling_seen_in_another_thread_or_a_nested_collection():
    import threading

    with sampling_notes() as notes:
        t = threading.Thread(target=note_sampling, args=("simulation",))
        t.start()
        t.join()
    assert notes == {"audit or simulation (seen in another thread)"}
    with sampling_notes() as outer:
        with sampling_notes() as inner:
            note_sampling("audit")
    assert inner == outer == {"audit"}  # a nested collection passes its calls on: not another thread's
    with sampling_notes() as quiet:
        pass
    assert quiet == set()


def test_thm3_refutes_by_its_exact_route_and_never_through_the_audit(monkeypatch):
    import dpverify.pca.claims.thm3 as T

    r = run_claim(get_claim("pca.thm3_ppca_dp_is_dp"))
    assert r.verdict is Verdict.REFUTED and r.outcome.evidence["route"] == "exact computation"
    assert r.outcome.evidence["audit_exceeds_claimed_epsilon"]  # the audit agrees, but does not decide
    real = T._thm3_evidence

    def no_exact_violation(thorough):
        return {**real(thorough), "exact_delta_at_eps": 0.0}

    monkeypatch.setattr(T, "_thm3_evidence", no_exact_violation)
    r = run_claim(get_claim("pca.thm3_ppca_dp_is_dp"))  # before issue 26: refuted through the audit branch
    assert r.verdict is Verdict.INCONCLUSIVE and r.outcome.evidence["audit_exceeds_claimed_epsilon"]


# ------------------------------------------------------------------ simulate_against needs power


def test_no_holds_without_a_stated_deviation_or_with_too_little_power():
    coin = lambda rng, n: rng.random(n) < 0.25  # noqa: E731
    out = simulate_against(coin, 0.25, n=100_000, rng=1)
    assert out.verdict is Verdict.INCONCLUSIVE and "no deviation to detect" in out.summary
    small = simulate_against(coin, 0.25, n=2_000, rng=1, detect=0.01)
    assert small.verdict is Verdict.INCONCLUSIVE and small.evidence["power"] < 0.99
    big = simulate_against(coin, 0.25, n=100_000, rng=1, detect=0.01)
    assert big.verdict is Verdict.HOLDS and big.evidence["power"] >= 0.99
    assert simulate_against(coin, 0.25, n=100_000, rng=1, detect=0.01, beta=1e-12).verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("kw, match", [(dict(detect=0.0), "detect"), (dict(detect=-1.0), "detect"),
                                       (dict(detect=math.nan), "detect"), (dict(beta=0.0), "beta"),
                                       (dict(beta=1.0), "beta"), (dict(what=3), "what"),
                                       (dict(bounds=(0.0,)), "bounds")])
def test_power_parameters_are_validated(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        simulate_against(lambda rng, n: rng.random(n), 0.5, n=100, rng=0, **kw)


@pytest.mark.parametrize("n, mu, alpha", [(200, 0.3, 1e-3), (57, 0.05, 0.01), (500, 0.5, 1e-6), (30, 0.0, 0.05)])
def test_binomial_power_is_exact(n, mu, alpha):
    """The acceptance interval found by bisection is the set of counts binomtest does not reject (brute
    force), and the power is the exact probability of falling outside it."""
    accepted = [k for k in range(n + 1) if binomtest(k, n, mu).pvalue >= alpha]
    d = 0.1
    x = (np.arange(n) < round(n * mu)).astype(float)  # any 0/1 sample: the power does not depend on it
    out = simulate_against(lambda rng, m: x, mu, n=n, alpha=alpha, rng=0, detect=d)
    k_lo, k_hi = out.evidence["acceptance_interval"]
    assert accepted == list(range(k_lo, k_hi + 1))
    sides = [q for q in (mu - d, mu + d) if 0 <= q <= 1]
    want = min(sum(binom.pmf(k, n, q) for k in range(n + 1) if not k_lo <= k <= k_hi) for q in sides)
    assert out.evidence["power"] == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("case", ["binomial", "hoeffding", "z"])
def test_the_stated_power_is_real(case):
    """A closed form off by exactly `detect`, where the test claims power ≥ 0.99: over 200 seeded runs it is
    refuted at least 190 times (fewer has probability < 1e-5 when the power is ≥ 0.99: Binom(200, 0.99))."""
    if case == "binomial":
        draw, mu, d, n, kw = (lambda rng, m: rng.random(m) < 0.31), 0.30, 0.01, 150_000, {}
    elif case == "hoeffding":
        draw, mu, d, n, kw = (lambda rng, m: rng.random(m) * 0.9 + 0.1), 0.50, 0.05, 20_000, {"bounds": (0.0, 1.0)}
    else:
        draw, mu, d, n, kw = (lambda rng, m: rng.exponential(1.0 + 0.05, m)), 1.0, 0.05, 40_000, {}
    first = simulate_against(draw, mu, n=n, rng=0, detect=d, **kw)
    assert first.evidence["power"] >= 0.99  # the test claims the power ...
    caught = sum(simulate_against(draw, mu, n=n, rng=s, detect=d, **kw).verdict is Verdict.REFUTED for s in range(200))
    assert caught >= 190  # ... and has it
    assert binom.cdf(189, 200, 0.99) < 1e-5
