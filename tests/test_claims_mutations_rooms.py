"""Breaking the code flips the verdicts of the primitives, audit and pca claims that had no
mutation test yet (the others are in tests/primitives, tests/audit, tests/pca, tests/continual).

Each test introduces one plausible bug — half the noise, a wrong keep probability, a composition
that adds, a control mechanism made too weak, a known bug fixed, results of two methods swapped —
and checks that the claim's verdict moves away from the expected one.  All claim checks here
are seeded, so the verdicts are deterministic.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys

import numpy as np

from dpverify.selftest import controls as S
from dpverify.audit import mechanisms as M
from dpverify.claims import Verdict, all_claims, run_claims


def _verdict(cid: str) -> Verdict:
    (claim,) = [c for c in all_claims(cid) if c.id == cid]
    (res,) = run_claims([claim])
    assert res.error is None or res.verdict is not Verdict.HOLDS, res.error
    return res.verdict


# ------------------------------------------------------------------ primitives


def test_geometric_claim_fails_with_half_scale_sampler(monkeypatch):
    add = importlib.import_module("dpverify.primitives.additive")
    real = add.geometric_mechanism
    monkeypatch.setattr(add, "geometric_mechanism",
                        lambda v, s, e, rng=None, size=None: real(v, s, 2 * e, rng=rng, size=size))
    assert _verdict("primitives.geometric_dp") is Verdict.REFUTED


def test_krr_claim_fails_with_wrong_keep_probability(monkeypatch):
    importlib.import_module("dpverify.primitives.randomized_response")
    rr = sys.modules["dpverify.primitives.randomized_response"]  # the package attribute is a function
    real = rr.krr_matrix
    monkeypatch.setattr(rr, "krr_matrix", lambda k, e: real(k, 1.5 * e))   # keeps too often
    assert _verdict("primitives.krr_dp") is Verdict.REFUTED
    monkeypatch.setattr(rr, "krr_matrix", lambda k, e: real(k, 0.5 * e))   # not tight
    assert _verdict("primitives.krr_dp") is Verdict.REFUTED


def test_parallel_claim_fails_if_composition_adds(monkeypatch):
    import dpverify.survey.claims.composition as pc

    monkeypatch.setattr(pc, "parallel_epsilon", lambda e: float(np.sum(e)))
    assert _verdict("primitives.parallel_composition") is Verdict.REFUTED


# ------------------------------------------------------------------ audit controls and bugs


def test_laplace_control_refuted_when_noise_halved(monkeypatch):
    monkeypatch.setattr(M.LaplaceMechanism, "__call__",
                        lambda self, d, rng, n: rng.laplace(float(d), 0.5 * self.sensitivity / self.epsilon, n))
    assert _verdict("audit.control.laplace") is Verdict.REFUTED


def test_krr_control_refuted_when_keep_probability_too_high(monkeypatch):
    real = S.KRR.__call__
    monkeypatch.setattr(S.KRR, "__call__", lambda self, d, rng, n: real(dataclasses.replace(self, epsilon=2 * self.epsilon), d, rng, n))
    assert _verdict("audit.control.krr") is Verdict.REFUTED


def test_geometric_control_refuted_when_noise_halved(monkeypatch):
    real = S.GeometricMechanism.__call__
    monkeypatch.setattr(S.GeometricMechanism, "__call__",
                        lambda self, d, rng, n: real(dataclasses.replace(self, scale_factor=0.5), d, rng, n))
    assert _verdict("audit.control.geometric") is Verdict.REFUTED


def test_half_noise_bug_not_refuted_once_fixed(monkeypatch):
    monkeypatch.setattr(M.LaplaceMechanism, "__call__",
                        lambda self, d, rng, n: rng.laplace(float(d), self.sensitivity / self.epsilon, n))
    assert _verdict("audit.bug.half_noise_laplace") is not Verdict.REFUTED


def test_exponential_bug_not_refuted_once_fixed(monkeypatch):
    real = S.ExponentialMechanism.__call__
    monkeypatch.setattr(S.ExponentialMechanism, "__call__",
                        lambda self, d, rng, n: real(dataclasses.replace(self, factor=2.0), d, rng, n))
    assert _verdict("audit.bug.exponential_without_2") is not Verdict.REFUTED


def test_power_claim_fails_for_a_blind_auditor(monkeypatch):
    import dpverify.selftest.claims.power as ac

    real = ac.epsilon_lower_bound
    monkeypatch.setattr(ac, "epsilon_lower_bound",
                        lambda *a, **kw: dataclasses.replace(real(*a, **kw), epsilon=0.0))
    assert _verdict("audit.power") is Verdict.REFUTED
    assert _verdict("audit.tightness_laplace") is Verdict.REFUTED


# ------------------------------------------------------------------ pca figure claims


def _swap_methods(rows, a, b):
    swap = {a: b, b: a}
    return [dataclasses.replace(r, method=swap.get(r.method, r.method)) for r in rows]


def test_fig34_compare_fails_if_methods_swapped(monkeypatch):
    import dpverify.pca.grid as C

    real = C.figure_grid
    monkeypatch.setattr(C, "figure_grid", lambda d, t: (_swap_methods(real(d, t)[0], "ppca-dp", "pca-ppdp"), real(d, t)[1]))
    assert _verdict("pca.fig3_4_ppcadp_beats_baseline_mse") is Verdict.REFUTED


def test_fig34_ppca_mse_fails_if_ppca_is_noisy(monkeypatch):
    import dpverify.pca.grid as C

    real = C.figure_grid

    def noisy(d, t):
        rows, setup = real(d, t)
        return [dataclasses.replace(r, mse_mean=r.mse_mean * 1e3) if r.method == "ppca" else r for r in rows], setup

    monkeypatch.setattr(C, "figure_grid", noisy)
    assert _verdict("pca.fig3_4_ppca_mse") is Verdict.REFUTED


def test_fig56_dp_svm_verdict_follows_the_data(monkeypatch):
    """The paper's statement is refuted on our data; on data where it is true the check says holds."""
    import dpverify.pca.grid as C

    real = C.figure_grid

    def as_paper(d, t):
        rows, setup = real(d, t)
        out = []
        for r in rows:
            if r.method in ("ppca-dp", "pca-ppdp"):
                acc = 0.9 - 0.01 * r.k + (0.02 if r.method == "ppca-dp" else 0.0)
                r = dataclasses.replace(r, acc_mean=acc)
            out.append(r)
        return out, setup

    monkeypatch.setattr(C, "figure_grid", as_paper)
    assert _verdict("pca.fig5_6_dp_svm") is Verdict.HOLDS


def test_fig2_fails_on_other_data(monkeypatch):
    import dpverify.pca.evaluate as ev

    def raw(X):  # the plausible bug: eigenvalues of the raw covariance, without min-max normalisation
        lam = np.linalg.eigvalsh(np.cov(np.asarray(X, dtype=float), rowvar=False))[::-1]
        return np.cumsum(lam / lam.sum())

    monkeypatch.setattr(ev, "explained_variance", raw)
    assert _verdict("pca.fig2_explained_variance") is Verdict.REFUTED
