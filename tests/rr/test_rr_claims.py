"""The rr claims come out as expected, and breaking the code changes their verdicts."""

from __future__ import annotations

import pytest

from dpverify.claims import Verdict, all_claims, get_claim, run_claims


def test_rr_claims_verdicts():
    results = run_claims(all_claims("rr."))
    assert len(results) >= 14
    bad = [(r.claim.id, r.verdict, r.error) for r in results if not r.as_expected]
    assert not bad, bad
    errata = {r.claim.id for r in results if r.verdict == Verdict.ERRATUM}
    assert errata == {"rr.model2.standard_form", "rr.sec4.case2", "rr.nary.definition"}


def test_closed_form_claim_can_be_refuted(monkeypatch):
    import dpverify.rr.nary as nary

    real = nary.optimal_utility
    monkeypatch.setattr(nary, "optimal_utility", lambda pi, e, d=0.0: real(pi, e, d) + 1e-7)
    assert get_claim("rr.nary.closed_form").check().verdict == Verdict.REFUTED


def test_exact_certificate_part_can_be_refuted(monkeypatch):
    import dpverify.rr.nary as nary

    real = nary.exact_optimum

    def wrong(pi, E, d=0):
        opt = real(pi, E, d)  # claim a slightly larger dual value than certified
        return nary.ExactOptimum(opt.P, opt.u, opt.S, tuple(m * 2 for m in opt.mu), opt.lam)

    monkeypatch.setattr(nary, "exact_optimum", wrong)
    out = get_claim("rr.nary.closed_form").check()
    assert out.verdict == Verdict.REFUTED and out.evidence["exact_failure"] is not None


def test_binary_claims_can_be_refuted(monkeypatch):
    import dpverify.rr.symbolic as sym

    regimes = sym.binary_regimes(False)
    monkeypatch.setattr(sym, "binary_regimes", lambda with_delta=True: regimes[::-1])
    assert get_claim("rr.model1.optimum").check().verdict == Verdict.REFUTED
    monkeypatch.setattr(sym, "binary_vertices", lambda with_delta=True: ((0, 1), (1, 0)))
    assert get_claim("rr.model1.vertices").check().verdict == Verdict.REFUTED


def test_solver_claim_can_be_refuted(monkeypatch):
    import dpverify.rr.symbolic as sym
    import sympy as sp

    monkeypatch.setattr(sym, "symbolic_optimum", lambda delta_value=None: sp.Integer(1) if delta_value == 0 else sym.delta + 1)
    assert get_claim("rr.binary.solvers").check().verdict == Verdict.REFUTED


def test_definition_claim_depends_on_the_checker(monkeypatch):
    import dpverify.audit as audit
    from dpverify.audit import ldp

    real = ldp.check_ldp

    def per_output_only(P, e, d=0.0, definition="standard", **kw):
        return real(P, e, d, "per_output", **kw)

    monkeypatch.setattr(audit, "check_ldp", per_output_only)
    assert get_claim("rr.nary.definition").check().verdict == Verdict.HOLDS  # no counterexample any more


def test_simulation_figure():
    c = get_claim("rr.simulation")
    fig = c.figure(c.check())
    assert len(fig.axes[0].lines) == 8


def test_claims_are_filed_by_subject_with_every_erratum_in_one_module():
    import dpverify.rr.claims as package

    modules = {c.id: c.check.__module__ for c in all_claims("rr.")}
    assert set(modules.values()) == {f"dpverify.rr.claims.{m}" for m in package.__all__}
    errata = {cid for cid, m in modules.items() if m == "dpverify.rr.claims.errata"}
    assert errata == {c.id for c in all_claims("rr.") if c.expected == Verdict.ERRATUM}
