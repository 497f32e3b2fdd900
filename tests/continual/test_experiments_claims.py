"""The experiment claims give their expected verdicts, and their verdicts move when the numbers do."""

import numpy as np
import pytest

from dpverify.claims import Verdict, all_claims, run_claim
from dpverify.rooms import proof_path

MINE = [
    "continual.exp.naive_crossover",
    "continual.exp.bm_ratio",
    "continual.exp.bm_steadier",
    "continual.exp.static_ratio",
    "continual.exp.simulation",
    "continual.beyond.kary_recursion",
    "continual.beyond.table",
]


def _claim(cid):
    return next(c for c in all_claims(cid) if c.id == cid)


@pytest.mark.parametrize("cid", MINE)
def test_expected_verdict(cid, repo_root):
    c = _claim(cid)
    r = run_claim(c)
    assert r.error is None, r.error
    assert r.verdict == c.expected, r.outcome.evidence
    if c.proof:
        assert proof_path(c.proof) is not None


def test_bm_ratio_depends_on_the_level_count(monkeypatch):
    """With 13 levels (a tree over 4096 leaves) the 'at most 6×' reading fails: the claim would refute."""
    import dpverify.continual.experiments as E

    real = E.bm_vs_fda
    monkeypatch.setattr(E, "bm_vs_fda", lambda n, eps, levels=None: real(n, eps, levels=13))
    assert _claim("continual.exp.bm_ratio").check().verdict == Verdict.REFUTED


def test_static_ratio_verdict_follows_the_numbers(monkeypatch):
    """If FDA were 1.6× worse (ratios ≈ 0.625 ÷ 1.6 everywhere), the corrected statement no longer holds."""
    import dpverify.continual.experiments as E

    real = E.static_vs_fda

    def worse_fda(m_max=25, epsilon=1.0, per_release=False):
        s = real(m_max, epsilon, per_release=per_release)
        return E.StaticComparison(s.m, s.boost, s.privelet, s.fda * 1.6)

    monkeypatch.setattr(E, "static_vs_fda", worse_fda)
    assert _claim("continual.exp.static_ratio").check().verdict == Verdict.REFUTED


def test_table_claim_refutes_a_weaker_mechanism(monkeypatch):
    """If the best k-ary row were FDA's own numbers, the 1.8× target is missed."""
    import dpverify.continual.experiments as E

    real = E.comparison_table

    def fake(n, eps=1.0):
        rows = real(n, eps)
        fda = next(r for r in rows if r.method == "fda")
        return [E.TableRow(r.label, r.method, r.options, r.online, fda.total, fda.mean, fda.max)
                if r.label.startswith("k-ary FDA, k=") else r for r in rows]

    monkeypatch.setattr(E, "comparison_table", fake)
    assert _claim("continual.beyond.table").check().verdict == Verdict.REFUTED


def test_simulation_claim_catches_a_wrong_exact_mse(monkeypatch):
    """Halve one method's exact MSE: the simulation no longer agrees."""
    import dpverify.continual.api as api

    real = api.expected_mse

    def wrong(n, eps, method="fda", **o):
        v = real(n, eps, method, **o)
        return v * 0.5 if method == "honaker" else v

    monkeypatch.setattr(api, "expected_mse", wrong)
    assert _claim("continual.exp.simulation").check().verdict == Verdict.REFUTED


def test_kary_recursion_claim_catches_a_wrong_optimum(monkeypatch):
    import dpverify.continual.kary as K

    real = K.kary_optimum
    monkeypatch.setattr(K, "kary_optimum", lambda n, k: real(n, k) * 1.001)
    assert _claim("continual.beyond.kary_recursion").check().verdict == Verdict.REFUTED


def test_naive_and_steadiness_claims_follow_the_numbers(monkeypatch):
    import dpverify.continual.api as api
    import dpverify.continual.experiments as E

    real_cross = E.naive_vs_fda
    monkeypatch.setattr(E, "naive_vs_fda", lambda n, eps, window=100: E.NaiveCrossover(
        **{**real_cross(n, eps, window).__dict__, "majority": 800}))
    assert _claim("continual.exp.naive_crossover").check().verdict == Verdict.REFUTED
    monkeypatch.undo()
    real = api.expected_mse

    def flat_bm(n, eps, method="fda", **o):
        v = real(n, eps, method, **o)
        return np.full_like(v, v.mean()) if method == "binary" else v

    monkeypatch.setattr(api, "expected_mse", flat_bm)
    assert _claim("continual.exp.bm_steadier").check().verdict == Verdict.REFUTED


def test_lower_bound_singular_values_and_validity():
    from dpverify.continual.experiments import factorization_lower_bound, w_singular_values

    for n in (1, 2, 5, 40):
        s = np.linalg.svd(np.tril(np.ones((n, n))), compute_uv=False)
        assert np.allclose(w_singular_values(n), s)
    from dpverify.continual import expected_mse, method_names

    for meth in method_names(online=True):
        assert expected_mse(63, 1.0, meth).sum() >= factorization_lower_bound(63)


def test_experiment_functions_validate():
    from dpverify.continual.experiments import naive_vs_fda, simulate_mse, static_vs_fda

    with pytest.raises(ValueError, match="window"):
        naive_vs_fda(10, window=11)
    with pytest.raises((ValueError, TypeError), match="m_max"):
        static_vs_fda(0)
    with pytest.raises((ValueError, TypeError), match="reps"):
        simulate_mse("fda", 10, 1.0, 0)
    v = simulate_mse("fda", 15, 1.0, 5, rng=0)
    assert v.shape == (15,) and (v >= 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["continual.exp.simulation", "continual.exp.static_ratio", "continual.beyond.table",
                                 "continual.beyond.kary_recursion"])
def test_thorough_verdicts(cid):
    """The paper's 500 repetitions at N = 4095, the per-release sums to m = 25, the table at 2^20 − 1."""
    c = _claim(cid)
    assert c.check(thorough=True).verdict == c.expected
