"""The rr room's (ε, δ) optima, decided exactly for every ε > 0 (``rr.model2.optimum_ldp``, ``rr.nary.optimum_ldp``):
their verdicts, the evidence they carry, and a planted bug that flips each."""

from __future__ import annotations

import dataclasses

import sympy as sp

import dpverify.rr.claims.delta_optima as mod
from dpverify.claims import Verdict, all_claims, get_claim, run_claims
from dpverify.rr.mechanisms import OptimumLaw
from dpverify.rr.symbolic import E, delta


def verdict(cid: str):
    (res,) = run_claims([get_claim(cid)])
    assert res.error is None, res.error
    return res


def setup_module():
    all_claims()


def test_model2_optimum_ldp_holds_on_the_whole_regime_and_the_grid():
    res = verdict("rr.model2.optimum_ldp")
    assert res.verdict == Verdict.HOLDS
    mats = res.outcome.evidence["matrices"]
    assert len(mats) == 3 and all(m["whole_regime_proved"] and m["tight"] for m in mats.values())
    for m in mats.values():
        assert [g["verdict"] for g in m["delta_grid_epsilon_symbolic"]] == ["proved"] * len(mod.DELTAS)
        assert {g["half_delta_verdict"] for g in m["delta_grid_epsilon_symbolic"]} == {"refuted"}


def test_model2_optimum_ldp_flips_on_a_misprinted_matrix(monkeypatch):
    """[[2δ, 1−2δ], [0, 1]] in place of [[δ, 1−δ], [0, 1]]: refuted, failing for every ε > 0 at each δ."""
    real = mod._printed

    def misprint():
        out = dict(real())
        out["pi0 <= 1/(e^eps+1)"] = sp.Matrix([[2 * delta, 1 - 2 * delta], [0, 1]])
        return out

    monkeypatch.setattr(mod, "_printed", misprint)
    res = verdict("rr.model2.optimum_ldp")
    assert res.verdict == Verdict.REFUTED
    bad = res.outcome.evidence["matrices"]["pi0 <= 1/(e^eps+1)"]
    assert not bad["whole_regime_proved"]
    assert all(g["verdict"] == "refuted" and g["fails_for_epsilon"].startswith("Interval.open(0, oo)")
               for g in bad["delta_grid_epsilon_symbolic"] if sp.Rational(g["delta"]) <= sp.Rational(1, 2))


def test_model2_optimum_ldp_flips_when_the_sign_test_is_wrong(monkeypatch):
    monkeypatch.setattr(mod.sym, "sign_everywhere", lambda expr, with_delta: -1)
    assert verdict("rr.model2.optimum_ldp").verdict == Verdict.REFUTED


def test_nary_optimum_ldp_holds_with_delta_tight():
    res = verdict("rr.nary.optimum_ldp")
    assert res.verdict == Verdict.HOLDS
    cases = res.outcome.evidence["cases"]
    assert len(cases) == len(mod.PRIORS) * len(mod.NARY_DELTAS)
    assert all(c["verdict"] == "proved" for c in cases)
    assert {c["half_delta_verdict"] for c in cases if c["delta"] == "1/4"} == {"refuted"}
    assert max(len(c["pieces"]) for c in cases) == 5  # the five-entry prior changes support four times


def test_nary_optimum_ldp_flips_with_twice_the_identity_weight(monkeypatch):
    """A plausible bug: the optimum mixes 2δ of the identity while claiming δ — refuted."""
    real = OptimumLaw._matrix
    monkeypatch.setattr(OptimumLaw, "_matrix", lambda self, k, S, e, sp_: real(
        dataclasses.replace(self, delta=min(2 * self.delta, 0.9)), k, S, e, sp_))
    res = verdict("rr.nary.optimum_ldp")
    assert res.verdict == Verdict.REFUTED
    assert all(c["verdict"] == "refuted" for c in res.outcome.evidence["cases"])


def test_model2_matrices_are_the_derived_regimes():
    """The printed matrices are the derived optimum's (a cross-check of the transcription)."""
    derived = [r.design_matrix for r in mod.sym.binary_regimes(True)]
    printed = list(mod._printed().values())
    assert len(derived) == 3
    for D, P in zip(derived, printed):
        assert sp.simplify(D - P) == sp.zeros(2, 2), (D, P)
    assert E in printed[1].free_symbols


def test_model2_optimum_ldp_flips_with_the_noise_removed(monkeypatch):
    """Every design matrix the identity (the true answer released, no randomisation): refuted."""
    monkeypatch.setattr(mod, "_printed", lambda: {k: sp.eye(2) for k in ("pi0 <= 1/(e^eps+1)", "in between",
                                                                         "pi0 >= e^eps/(e^eps+1)")})
    res = verdict("rr.model2.optimum_ldp")
    assert res.verdict == Verdict.REFUTED
    assert not any(m["whole_regime_proved"] for m in res.outcome.evidence["matrices"].values())


def test_nary_optimum_ldp_flips_with_the_noise_removed(monkeypatch):
    """The optimum replaced by the identity (no randomised part): refuted for every prior and δ < 1."""
    monkeypatch.setattr(OptimumLaw, "_matrix", lambda self, k, S, e, sp_: sp_.eye(len(self.pi)))
    res = verdict("rr.nary.optimum_ldp")
    assert res.verdict == Verdict.REFUTED
    assert all(c["verdict"] == "refuted" for c in res.outcome.evidence["cases"])
