"""The continual claims return their expected verdicts, and breaking the code changes them."""

import numpy as np
import pytest

import dpverify.continual.claims.fda as CF
import dpverify.continual.claims.release as CP
import dpverify.continual.claims.structure as CS
import dpverify.continual.claims.thm5 as CT
from dpverify.claims import Verdict, all_claims, run_claim
from dpverify.rooms import proof_path

IDS = [c.id for c in all_claims("continual.") if not c.id.startswith("continual.import")]
MINE = {
    "continual.w_eq_bm", "continual.thm5.1", "continual.thm5.2", "continual.fenwick_mse", "continual.thm5.3",
    "continual.m3_example", "continual.erratum.alg5_2_loop", "continual.erratum.alg5_3_index",
    "continual.erratum.thm5_1_walk", "continual.thm5.4",
    "continual.fda.err_recursion", "continual.fda.alg4", "continual.fda.err_org", "continual.fig1.monotone",
    "continual.fda.any_n", "continual.release.mse", "continual.release.privacy",
    "continual.erratum.proof_references",
}


def test_all_my_claims_registered_with_proofs(repo_root):
    by_id = {c.id: c for c in all_claims("continual.")}
    assert MINE <= set(by_id)
    for cid in MINE:
        c = by_id[cid]
        if c.proof:
            assert proof_path(c.proof) is not None


@pytest.mark.parametrize("cid", sorted(MINE))
def test_claim_gives_expected_verdict(cid):
    c = next(c for c in all_claims(cid) if c.id == cid)
    r = run_claim(c)
    assert r.error is None, r.error
    assert r.verdict == c.expected, r.outcome.evidence


def _verdict(cid):
    c = next(c for c in all_claims(cid) if c.id == cid)
    return c.check(thorough=False).verdict


def test_broken_recombination_refutes_w_eq_bm(monkeypatch):
    real = CS.fenwick_recombination
    monkeypatch.setattr(CS, "fenwick_recombination", lambda n: real(n).T.tocsr())
    assert _verdict("continual.w_eq_bm") == Verdict.REFUTED


def test_broken_strategy_refutes_thm51(monkeypatch):
    import scipy.sparse as sp

    real = CT.fenwick_strategy

    def bad(n):
        M = real(n).tolil()
        if n > 4:
            M[n - 1, 1] = 1  # an extra entry in column 2 makes it heavier than column 1 for some n
            M[n - 2, 1] = 1
        return sp.csr_matrix(M)

    monkeypatch.setattr(CT, "fenwick_strategy", bad)
    assert _verdict("continual.thm5.1") == Verdict.REFUTED


def test_perturbed_weights_refute_optimality_and_privacy(monkeypatch):
    real = CF.fda_weights
    monkeypatch.setattr(CF, "fda_weights", lambda n: real(n) * np.where(np.arange(n) % 3 == 0, 0.9, 1.0))
    assert _verdict("continual.fda.any_n") == Verdict.REFUTED
    monkeypatch.setattr(CP, "fda_weights", lambda n: real(n) * 1.001)
    assert _verdict("continual.release.privacy") == Verdict.REFUTED


def test_wrong_mse_formula_refutes_simulation(monkeypatch):
    import dpverify.continual.fda as D
    import dpverify.continual.fenwick as F
    import dpverify.continual.naive as N

    real = F.node_variances
    monkeypatch.setattr(F, "node_variances", lambda w, e, noise="laplace": 1.2 * real(w, e, noise))
    monkeypatch.setattr(N, "node_variances", F.node_variances)
    monkeypatch.setattr(D, "node_variances", F.node_variances)
    assert _verdict("continual.release.mse") == Verdict.REFUTED


def test_wrong_recursion_refutes_thm54(monkeypatch):
    real = CT.fda_weights
    monkeypatch.setattr(CT, "fda_weights", lambda n: np.full(n, 1.0 / n.bit_length()))
    assert _verdict("continual.thm5.4") == Verdict.REFUTED
