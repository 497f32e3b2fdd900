"""Every claim flips under at least one mutation of the code it checks.

``test_every_claim_has_a_mutation_test`` reads the mutation-test files (tests/test_claims_mutations*.py and
the rooms' tests/<room>/test_*claims*.py) and requires, for every registered claim, a test function that
takes ``monkeypatch`` and names the claim's id: a planted bug whose verdict change is asserted.  The tests
below add the mutations that were missing (audit controls and planted bugs, the floating-point audits,
pca figures, primitives, rr remarks).  Audits that need many samples are marked slow.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from dpverify.selftest import controls as S
from dpverify.audit import mechanisms as M
from dpverify.claims import Verdict, all_claims, get_claim, run_claims

R, H, E, I = Verdict.REFUTED, Verdict.HOLDS, Verdict.ERRATUM, Verdict.INCONCLUSIVE
TESTS = Path(__file__).resolve().parent


def verdict(cid: str) -> Verdict:
    (res,) = run_claims([get_claim(cid)])
    assert res.error is None, res.error  # a crash is no verdict: "not refuted" must not pass by an error
    return res.verdict


def mutation_tested_ids() -> set[str]:
    """Claim ids named by a test function with a ``monkeypatch`` argument (or its parametrize list)."""
    files = (sorted(TESTS.glob("test_claims_mutations*.py")) + sorted(TESTS.glob("*/test_*claims*.py"))
             + [TESTS / "audit" / "test_ldp_exact_decision.py"])  # the exact LDP checker's claim
    out: set[str] = set()
    for f in files:
        src = f.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and \
                    "monkeypatch" in [a.arg for a in node.args.args]:
                seg = ast.get_source_segment(src, node) + "".join(ast.get_source_segment(src, d) for d in node.decorator_list)
                out |= set(re.findall(r'"([a-z]+\.[A-Za-z0-9_.\-]+)"', seg))
    return out


def test_every_claim_has_a_mutation_test():
    from dpverify.claims.registry import reserved_namespaces

    # the package's claims (examples/ collected by the pytest plugin register their own, tested there)
    ids = {c.id for c in all_claims() if ".import:" not in c.id and c.namespace in reserved_namespaces()}
    missing = sorted(ids - mutation_tested_ids())
    assert not missing, f"claims without a mutation test: {missing}"


# ------------------------------------------------------------------ audit: planted bugs fixed -> no longer refuted

def _fix(monkeypatch, cls, **fields):
    real = cls.__call__
    monkeypatch.setattr(cls, "__call__", lambda self, d, rng, n: real(dataclasses.replace(self, **fields), d, rng, n))


@pytest.mark.parametrize("cid,cls,fields", [
    ("audit.bug.noisy_max_value_laplace", M.NoisyMax, {"returns": "index"}),
    ("audit.bug.noisy_max_value_exponential", M.NoisyMax, {"returns": "index"}),
    ("audit.bug.svt_no_query_noise", M.SparseVector, {"variant": "alg1"}),
    ("audit.bug.svt_lee_clifton", M.SparseVector, {"variant": "alg1"}),
    ("audit.bug.svt_no_cutoff", M.SparseVector, {"variant": "alg1"}),
    ("audit.bug.wrong_neighbours_histogram", M.HistogramLaplace, {"sensitivity": 2.0}),
])
def test_bug_not_refuted_once_fixed(monkeypatch, cid, cls, fields):
    _fix(monkeypatch, cls, **fields)
    assert verdict(cid) is not R


# ------------------------------------------------------------------ audit: controls broken -> refuted

@pytest.mark.parametrize("cid,cls,fields", [
    ("audit.control.exponential", S.ExponentialMechanism, {"factor": 0.5}),
    ("audit.control.histogram_substitution", M.HistogramLaplace, {"sensitivity": 0.5}),
    ("audit.control.noisy_max_index", M.NoisyMax, {"epsilon": 4.0}),
    ("audit.control.svt_alg1", M.SparseVector, {"variant": "no_query_noise"}),
])
def test_control_refuted_when_broken(monkeypatch, cid, cls, fields):
    _fix(monkeypatch, cls, **fields)
    assert verdict(cid) is R


def test_fda_control_refuted_with_a_tenth_of_the_noise(monkeypatch):
    import dpverify.continual.forest as F

    real = F.ForestStream._draw

    def tenth(self, lo):  # the FDA release draws its node noise in the forest stream, chunk by chunk
        real(self, lo)
        self._z = 0.1 * self._z

    monkeypatch.setattr(F.ForestStream, "_draw", tenth)
    assert verdict("audit.control.fda_release") is R


def _inflated_auditor(monkeypatch, factor):
    import dpverify.selftest.claims.validity as ac

    real = ac.epsilon_lower_bound
    monkeypatch.setattr(ac, "epsilon_lower_bound",
                        lambda *a, **kw: dataclasses.replace(real(*a, **kw), epsilon=factor * real(*a, **kw).epsilon + 0.5))


def test_ground_truth_refuted_for_an_overclaiming_auditor(monkeypatch):
    _inflated_auditor(monkeypatch, 2.0)
    assert verdict("audit.ground_truth") is R


@pytest.mark.slow
def test_false_refutation_rate_refuted_for_an_overclaiming_auditor(monkeypatch):
    _inflated_auditor(monkeypatch, 2.0)
    assert verdict("audit.false_refutation_rate") is R


@pytest.mark.slow
def test_tightness_eps01_refuted_for_a_blind_auditor(monkeypatch):
    import dpverify.selftest.claims.power as ac

    real = ac.epsilon_lower_bound
    monkeypatch.setattr(ac, "epsilon_lower_bound", lambda *a, **kw: dataclasses.replace(real(*a, **kw), epsilon=0.0))
    assert verdict("audit.tightness_laplace_eps0.1") is R


def test_fp_audits_follow_the_sampler(monkeypatch):
    """Swap the float samplers for the safe one: the float audits stop refuting; the reverse refutes the safe one."""
    import dpverify.audit.floating_point as fp

    safe = S.SafeLaplace.__call__
    for cls in (fp.TextbookLaplace, S.LibraryLaplace):
        monkeypatch.setattr(cls, "__call__", lambda self, d, rng, n: safe(S.SafeLaplace(self.epsilon), d, rng, n))
    assert verdict("audit.fp_textbook_laplace") is not R
    assert verdict("audit.fp_library_laplace") is not R
    monkeypatch.undo()
    lib = S.LibraryLaplace.__call__
    monkeypatch.setattr(S.SafeLaplace, "__call__", lambda self, d, rng, n: lib(S.LibraryLaplace(self.epsilon), d, rng, n))
    assert verdict("audit.fp_safe_laplace") is R


# ------------------------------------------------------------------ primitives

def test_laplace_dp_refuted_with_half_the_scale(monkeypatch):
    import dpverify.survey.claims.laplace as P

    real = P.laplace_scale
    monkeypatch.setattr(P, "laplace_scale", lambda d, e: real(d, e) / 2)
    assert verdict("primitives.laplace_dp") is R


def test_expmech_claims_refuted_without_the_factor_2(monkeypatch):
    import dpverify.survey.claims.exponential as P

    real = P.exponential_probabilities
    monkeypatch.setattr(P, "exponential_probabilities", lambda q, dq, e, factor=2.0: real(q, dq, e, factor=1.0))
    assert verdict("primitives.expmech_dp") is R
    monkeypatch.setattr(P, "exponential_probabilities", lambda q, dq, e, factor=2.0: real(q, dq, e, factor=2.0))
    assert verdict("primitives.expmech_factor2") is R


def test_sequential_composition_refuted_if_the_accountant_ignores_the_budget(monkeypatch):
    """Mutation found by mutmut (composition.py line 102 survived): the accountant's refusal test broken."""
    import dpverify.primitives.composition as comp

    assert verdict("primitives.sequential_composition") is H
    real = comp.Accountant.spend

    def lax(self, epsilon, label=""):  # refuses only beyond twice the budget
        b = self.budget
        self.budget = 2 * b
        try:
            real(self, epsilon, label)
        finally:
            self.budget = b

    monkeypatch.setattr(comp.Accountant, "spend", lax)
    assert verdict("primitives.sequential_composition") is R


def test_sequential_composition_refuted_if_it_takes_the_max(monkeypatch):
    import dpverify.survey.claims.composition as P

    monkeypatch.setattr(P, "sequential_epsilon", lambda e: float(np.max(e)))
    assert verdict("primitives.sequential_composition") is R


# ------------------------------------------------------------------ rr remarks

def test_rr_remarks_refuted_if_model_ii_were_model_i(monkeypatch):
    import dpverify.rr.symbolic as S

    real = S.binary_regimes
    monkeypatch.setattr(S, "binary_regimes", lambda with_delta=True: real(False))
    assert verdict("rr.sec3_3.delta_better") is R
    assert verdict("rr.sec3_3.no_deterministic") is R


def test_rr_counts_refuted_with_a_missing_privacy_row(monkeypatch):
    import dpverify.rr.lp as lp

    real = lp.ldp_lp

    def fewer(*a, **k):
        c, A_ub, b_ub, A_eq, b_eq = real(*a, **k)
        return c, A_ub[:-1], b_ub[:-1], A_eq, b_eq

    monkeypatch.setattr(lp, "ldp_lp", fewer)
    assert verdict("rr.sec4.counts") is R


# ------------------------------------------------------------------ pca

def _clear():
    import dpverify.pca.grid as C

    C.figure_grid.cache_clear()


def test_adult_features_refuted_with_a_dropped_column(monkeypatch):
    import dpverify.datasets as ds

    real = ds.load_adult
    monkeypatch.setattr(ds, "load_adult", lambda *a, **k: (lambda X, y: (X[:, 1:], y))(*real(*a, **k)))
    assert verdict("pca.adult_21_features") is R


def _mutated_grid(monkeypatch, change):
    import dpverify.pca.grid as C

    real = C.figure_grid
    monkeypatch.setattr(C, "figure_grid", lambda d, t: (change(real(d, t)[0]), real(d, t)[1]))


def test_pca_figure_claims_follow_the_numbers(monkeypatch):
    def flip_eps(rows):  # MSE labelled with the wrong ε: no longer grows as ε falls
        sw = {0.1: 1.0, 1.0: 0.1}
        return [dataclasses.replace(r, epsilon=sw.get(r.epsilon, r.epsilon)) for r in rows]

    _mutated_grid(monkeypatch, flip_eps)
    assert verdict("pca.fig3_4_dp_mse_trends") is R
    monkeypatch.undo()

    def ppca_falls(rows):  # PPCA accuracy falling with k
        return [dataclasses.replace(r, acc_mean=0.9 - 0.01 * r.k) if r.method == "ppca" else r for r in rows]

    _mutated_grid(monkeypatch, ppca_falls)
    assert verdict("pca.fig5_6_ppca_svm") is R
    monkeypatch.undo()

    def ppca_low(rows):  # PPCA below the baseline
        return [dataclasses.replace(r, acc_mean=0.5) if r.method == "ppca" else r for r in rows]

    _mutated_grid(monkeypatch, ppca_low)
    assert verdict("pca.fig5_6_ppca_above_baseline") is R
