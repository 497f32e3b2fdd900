"""``dpverify conform``: the libraries' measurements against their own stated claims (issue 28 items 1, 2).

Statistical checks are seeded where the library can be seeded (diffprivlib, numpy); OpenDP draws from the
system's generator, so its rows are checked at a stated level: each sweep here runs at confidence 0.99
(Bonferroni over its cases), so a false refutation of a correct measurement has probability ≤ 1 %; the
mutations below sit far beyond the claims (ρ 0.83 against 0.5): with 10^4 draws per input the bound's least
value over 30 seeds was 0.62.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from dpverify.conform import finite, laws
from dpverify.conform.rows import Case, check

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib")


_NAMES = {"MaxDivergence": "max_divergence", "ZeroConcentratedDivergence": "zero_concentrated_divergence"}


def _max_case(sampled, stated):
    """OpenDP's noisy max sampled under one measure, stated with the map of another (the issue's bug class)."""
    from dpverify.conform.opendp_sweep import noisy_max_case

    return noisy_max_case(sampled=_NAMES[str(sampled)], stated=_NAMES[str(stated)])


def test_exact_divergences_match_independent_closed_forms():
    """exact() on fine bins approaches the closed forms: Laplace ε = Δ/b, Gaussian ρ = Δ²/(2σ²); RR ε = log(p(k−1)/(1−p))."""
    edges = np.linspace(-12.0, 13.0, 2001)
    p, q = laws.binned("laplace", 0.0, scale=2.0, edges=edges), laws.binned("laplace", 1.0, scale=2.0, edges=edges)
    assert finite.exact("pure", p, q) == pytest.approx(0.5, rel=1e-9)
    g0, g1 = laws.binned("gaussian", 0.0, scale=1.0, edges=edges), laws.binned("gaussian", 1.0, scale=1.0, edges=edges)
    assert finite.exact("zcdp", g0, g1) == pytest.approx(0.5, rel=2e-3)  # the orders' grid: at most 0.2 % below
    assert finite.exact("zcdp", g0, g1) <= 0.5 + 1e-9
    rr0, rr1 = laws.randomized_response(0, k=3, prob=0.6), laws.randomized_response(1, k=3, prob=0.6)
    assert finite.exact("pure", rr0, rr1) == pytest.approx(math.log(0.6 * 2 / 0.4))
    # the exponential-noise argmax law against a Monte-Carlo estimate (10^6 draws, 5 standard errors)
    rng = np.random.default_rng(0)
    u = np.array([1.0, 0.0, 0.0])
    wins = np.bincount(np.argmax(u + rng.exponential(1.0, (10**6, 3)), axis=1), minlength=3) / 10**6
    assert np.abs(wins - laws.top_k("exponential", u, scale=1.0, k=1)).max() < 5 * math.sqrt(0.25 / 10**6)


def test_lower_bound_exceeds_a_tight_claim_at_most_at_its_level():
    """Randomized response at prob 3/4 (ε = log 3 exactly): over 400 seeded count pairs the pure-ε and zCDP
    lower bounds at α = 0.1 exceed the truth no more often than a binomial(400, 0.1) allows at 10^-3."""
    p, q = laws.randomized_response(0, k=2, prob=0.75), laws.randomized_response(1, k=2, prob=0.75)
    truth = {"pure": finite.exact("pure", p, q), "zcdp": finite.exact("zcdp", p, q)}
    rng = np.random.default_rng(28)
    over = {k: 0 for k in truth}
    for _ in range(400):
        cp, cq = rng.multinomial(2000, p), rng.multinomial(2000, q)
        for k in truth:
            over[k] += finite.lower(k, cp, cq, alpha=0.1) > truth[k]
    limit = stats.binom.ppf(1 - 1e-3, 400, 0.1)
    assert all(v <= limit for v in over.values()), over


def _exponential_max(x, n, rng):
    """Report noisy max with exponential noise of scale 1 (what OpenDP's pure-DP noisy max samples), seeded."""
    return np.argmax(np.asarray(x) + rng.exponential(1.0, (n, 3)), axis=1)


def test_a_zcdp_budget_stated_for_another_mechanism_is_refuted():
    """Mutation (the issue's bug class): exponential-noise noisy max (true ρ 0.83 at these scores) stated with
    the map of OpenDP's Gumbel sampler (ρ = 0.5) is refuted; stated in its own measure (ε = 2) it is
    consistent, and the law fitted names the sampler.  Seeded: at 10^4 draws per input the bound's least
    value over 30 seeds was 0.62."""
    case = _max_case(dp.max_divergence(), dp.zero_concentrated_divergence())
    case.sample = _exponential_max
    wrong = check(case, samples=10_000, alpha=0.01, rng=np.random.default_rng(1))
    assert wrong.verdict == "refuted" and wrong.bound > 0.5 and wrong.law.startswith("exponential")
    assert wrong.exact == pytest.approx(0.832, abs=2e-3) and len(case.pairs) == 2
    right = _max_case(dp.max_divergence(), dp.max_divergence())
    right.sample = _exponential_max
    row = check(right, samples=10_000, alpha=0.01, rng=np.random.default_rng(2))
    assert row.verdict == "consistent" and row.bound < 2.0


def test_sweep_rows_and_error_rows(monkeypatch):
    """Rows carry the claim in OpenDP's own measure; a map that cannot be evaluated is an error row."""
    from dpverify.conform import opendp_sweep
    from dpverify.conform.sweep import rows_json, sweep

    result = sweep("opendp", samples=8_000, only=["make_randomized_response_bool", "make_gaussian"], rng=0,
                   stream=None)
    rows = rows_json(result)
    assert {r["verdict"] for r in rows} == {"consistent"} and result.library.startswith("opendp ")
    assert {r["measure"] for r in rows} == {"MaxDivergence", "ZeroConcentratedDivergence"}
    assert all(set(r) >= {"constructor", "params", "claim", "bound", "verdict", "seconds"} for r in rows)
    assert dict(result.not_driven)["make_user_measurement"]

    def broken(measurement, d_in, **kw):
        raise ValueError("the privacy map cannot be evaluated at d_in=1")

    monkeypatch.setattr(opendp_sweep, "opendp_claim", broken)
    failed = sweep("opendp", samples=4_000, only=["make_laplace"], rng=0, stream=None)
    assert failed.rows and {r.verdict for r in failed.rows} == {"error"} and not failed.refuted
    assert "cannot be evaluated" in failed.rows[0].detail


def test_cli_exit_status_is_one_only_on_a_refutation(monkeypatch, capsys):
    from dpverify.cli import main
    from dpverify.conform import opendp_sweep

    monkeypatch.setattr(opendp_sweep, "cases", lambda only=None: [
        _max_case(dp.max_divergence(), dp.zero_concentrated_divergence())])
    assert main(["conform", "opendp", "--samples", "30000", "--json"]) == 1  # OpenDP's own draws: 10^4 per input
    rows = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in rows] == ["refuted"]
    monkeypatch.setattr(opendp_sweep, "cases", lambda only=None: [
        _max_case(dp.zero_concentrated_divergence(), dp.zero_concentrated_divergence())])
    assert main(["conform", "opendp", "--samples", "9000"]) == 0
    assert "0 refuted" in capsys.readouterr().out


def test_cli_json_lists_rows_diffprivlib(capsys):
    pytest.importorskip("diffprivlib")
    from dpverify.cli import main

    assert main(["conform", "diffprivlib", "--only", "Binary", "Laplace", "--samples", "6000", "--seed", "3",
                 "--json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert [r["constructor"] for r in rows] == ["Laplace", "Laplace", "Binary"]
    assert {r["verdict"] for r in rows} == {"consistent"} and all(r["library"].startswith("diffprivlib ") for r in rows)
    assert "not driven: Bingham" in captured.err
