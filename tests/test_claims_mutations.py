"""Mutation tests for the finished rooms' claims that had none: a plausible bug flips each verdict.

Every test first checks that the unmutated claim gives its expected verdict (so the
mutation, not something else, is what changes it), then plants one bug with
``monkeypatch`` and asserts the verdict moves (to ``refuted``, or from ``erratum``
to ``holds`` when the bug makes the printed text look right).  Together with
tests/rr/test_rr_claims.py and tests/continual/test_continual_claims.py every
claim of rr, audit.ldp and the continual core has at least one such test.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sps
import sympy as sp

import dpverify.rr.symbolic as sym
from dpverify.claims import Verdict, all_claims, get_claim, run_claim

R = Verdict.REFUTED


def verdict(cid: str) -> Verdict:
    return get_claim(cid).check(thorough=False).verdict


def home(cid: str):
    """The module that defines a claim's check: a bug is planted where the check looks its names up."""
    return sys.modules[get_claim(cid).check.__module__]


def expected(cid: str) -> Verdict:
    return get_claim(cid).expected


@pytest.fixture(autouse=True)
def _load_claims():
    all_claims()  # discovery imports every room's claims modules


# ------------------------------------------------------------------ rr (symbolic)


def test_model2_vertices_missing_vertex(monkeypatch):
    assert verdict("rr.model2.vertices") == Verdict.HOLDS
    real = sym.binary_vertices(True)
    monkeypatch.setattr(sym, "binary_vertices", lambda with_delta=True: real[1:] if with_delta else sym.binary_vertices(False))
    assert verdict("rr.model2.vertices") == R


def test_model2_optimum_wrong_regimes(monkeypatch):
    regimes = sym.binary_regimes(True)
    monkeypatch.setattr(sym, "binary_regimes", lambda with_delta=True: regimes[::-1])
    assert verdict("rr.model2.optimum") == R


@pytest.mark.parametrize("cid", ["rr.model1.simplex", "rr.model2.simplex"])
def test_simplex_claims_wrong_multipliers(monkeypatch, cid):
    """Bug: the reduced cost computed as c_B B⁻¹ a_j − c_j (sign flipped)."""
    real = sym.reduced_costs

    def flipped(basis, with_delta=True, paper_b=False):
        sigma, x = real(basis, with_delta, paper_b)
        return {j: -v for j, v in sigma.items()}, x

    monkeypatch.setattr(sym, "reduced_costs", flipped)
    assert verdict(cid) == R


def test_standard_form_erratum_depends_on_the_printed_b(monkeypatch):
    """Bug: the paper's b flag ignored -> the printed b looks right (holds); a wrong basis -> refuted."""
    assert verdict("rr.model2.standard_form") == Verdict.ERRATUM
    real = sym.standard_form
    monkeypatch.setattr(sym, "standard_form", lambda with_delta=True, paper_b=False: real(with_delta, False))
    assert verdict("rr.model2.standard_form") == Verdict.HOLDS
    monkeypatch.setattr(sym, "standard_form", lambda with_delta=True, paper_b=False: real(False, paper_b))
    assert verdict("rr.model2.standard_form") == R


def test_sec4_extreme_points_missing_vertex(monkeypatch):
    real = sym.binary_vertices(False)
    monkeypatch.setattr(sym, "binary_vertices", lambda with_delta=True: real[:-1])
    assert verdict("rr.sec4.extreme_points") == R


def test_sec4_case2_needs_the_derived_regimes(monkeypatch):
    assert verdict("rr.sec4.case2") == Verdict.ERRATUM
    regimes = sym.binary_regimes(False)
    monkeypatch.setattr(sym, "binary_regimes", lambda with_delta=True: regimes[::-1])
    assert verdict("rr.sec4.case2") == R


def test_model1_ties_extra_constraint(monkeypatch):
    """Bug: a spurious constraint p00 ≤ 1/2 in model I cuts segment BC."""
    assert verdict("rr.model1.ties") == Verdict.HOLDS
    real = sym.binary_constraints
    monkeypatch.setattr(sym, "binary_constraints",
                        lambda with_delta=True: real(with_delta) + [(sym.p00 - sp.Rational(1, 2), "p00 <= 1/2")])
    assert verdict("rr.model1.ties") == R


# ------------------------------------------------------------------ rr (numeric)


def test_example_wrong_mechanism(monkeypatch):
    import dpverify.rr as rr

    assert verdict("rr.example") == Verdict.HOLDS
    real = rr.optimal_mechanism

    def no_delta(pi, epsilon, delta=0.0):  # bug: δ dropped
        return real(pi, epsilon, 0.0)

    monkeypatch.setattr(rr, "optimal_mechanism", no_delta)
    assert verdict("rr.example") == R


def test_simulation_wrong_utility(monkeypatch):
    import dpverify.rr as rr

    real = rr.optimal_mechanism
    monkeypatch.setattr(rr, "optimal_mechanism", lambda pi, e, d=0.0: (real(pi, e, d)[0], real(pi, e, d)[1] + 0.01))
    assert verdict("rr.simulation") == R


def test_simulation_biased_sampler(monkeypatch):
    """Bug: the sampler draws from a slightly different matrix than the one it reports on."""
    import dpverify.rr as rr
    from dpverify.rr.simulate import SurveyResult

    real = rr.simulate_survey

    def biased(P, pi, n, rng=None):
        P = np.asarray(P, dtype=float)
        Q = 0.97 * P + 0.03 * np.full(P.shape, 1 / P.shape[1])
        r = real(Q, pi, n, rng=rng)
        honest = real(P, pi, n, rng=0)
        return SurveyResult(r.counts, r.truthful_fraction, honest.expected_truthful, honest.std_truthful)

    monkeypatch.setattr(rr, "simulate_survey", biased)
    assert verdict("rr.simulation") == R


def test_holohan_missing_vertex(monkeypatch):
    import dpverify.rr.nary as nary

    assert verdict("rr.sec4.holohan") == Verdict.HOLDS
    real = nary.extreme_points

    def deterministic_only(n, epsilon, delta=0.0, **kw):  # bug: the randomized-response vertices dropped
        V = real(n, epsilon, delta, **kw)
        return V[np.all(np.isclose(V, 0) | np.isclose(V, 1), axis=(1, 2))]

    monkeypatch.setattr(nary, "extreme_points", deterministic_only)
    assert verdict("rr.sec4.holohan") == R


def test_ldp_checker_claim_catches_per_output_for_standard(monkeypatch):
    from dpverify.audit import ldp

    assert verdict("audit.ldp.checker") == Verdict.HOLDS
    real = ldp._check_ldp_exact
    monkeypatch.setattr(ldp, "_check_ldp_exact", lambda P, e, d, definition: real(P, e, d, "per_output"))
    assert verdict("audit.ldp.checker") == R


def test_ldp_checker_claim_catches_a_loose_smallest_epsilon(monkeypatch):
    from dpverify.audit import ldp

    real = ldp.ldp_epsilon
    monkeypatch.setattr(ldp, "ldp_epsilon", lambda P, d=0.0, definition="standard", exact=False:
                        sp.log(sp.exp(real(P, d, definition, exact=exact)) * sp.Rational(11, 10)))
    import dpverify.audit as audit

    monkeypatch.setattr(audit, "ldp_epsilon", ldp.ldp_epsilon)
    assert verdict("audit.ldp.checker") == R


# ------------------------------------------------------------------ continual


def test_thm52_rows_of_the_wrong_matrix(monkeypatch):
    C = home("continual.thm5.2")
    assert verdict("continual.thm5.2") == Verdict.HOLDS
    monkeypatch.setattr(C, "fenwick_recombination", lambda n: C.fenwick_strategy(n).T.tocsr())  # upward paths
    assert verdict("continual.thm5.2") == R


def test_fenwick_mse_unfloored_log(monkeypatch):
    """Bug: Δ = log2(N) + 1 without the floor in the per-release MSE."""
    C = home("continual.fenwick_mse")
    assert verdict("continual.fenwick_mse") == Verdict.HOLDS
    monkeypatch.setattr(C, "fenwick_expected_mse",
                        lambda n, e, noise="laplace": 2 * (np.log2(n) + 1) ** 2 * C.popcount(np.arange(1, n + 1)) / e**2)
    assert verdict("continual.fenwick_mse") == R


def test_thm53_strategy_not_unit_triangular(monkeypatch):
    C = home("continual.thm5.3")
    assert verdict("continual.thm5.3") == Verdict.HOLDS
    real = C.fenwick_strategy
    monkeypatch.setattr(C, "fenwick_strategy", lambda n: (real(n) + sps.triu(np.ones((n, n)), 1)).tocsr())
    assert verdict("continual.thm5.3") == R


def test_m3_example_wrong_optimum(monkeypatch):
    C = home("continual.m3_example")
    assert verdict("continual.m3_example") == Verdict.HOLDS
    monkeypatch.setattr(C, "fda_optimum", lambda n: 14.0)  # 2·14 = 28 > 26: the "optimum" is worse than the example
    assert verdict("continual.m3_example") == R


def test_m3_example_wrong_strategy(monkeypatch):
    C = home("continual.m3_example")
    real = C.fenwick_strategy

    def plain_ones(n):  # bug: M = W (the naive prefix-sum strategy), Δ = 3 for N = 3
        return sps.csr_matrix(np.tril(np.ones((n, n))))

    monkeypatch.setattr(C, "fenwick_strategy", plain_ones)
    assert verdict("continual.m3_example") == R
    monkeypatch.setattr(C, "fenwick_strategy", real)
    assert verdict("continual.m3_example") == Verdict.HOLDS


def _printed_loop_strategy(n):  # Alg. 5.2 as printed: while pt < N
    M = np.zeros((n, n))
    for p in range(1, n + 1):
        pt = p
        while pt < n:
            M[pt - 1, p - 1] = 1
            pt += pt & -pt
    return sps.csr_matrix(M)


@pytest.mark.parametrize(
    "cid",
    ["continual.erratum.alg5_2_loop", "continual.erratum.thm5_1_walk",
     "continual.erratum.proof_references"],
)
def test_errata_need_the_corrected_strategy(monkeypatch, cid):
    """Implementing Alg. 5.2 as printed (loop ``pt < N``) makes the corrected statements fail.

    (proof_references: the printed M is singular, so its check raises -- the runner reports
    ``error`` with the traceback, which differs from the expected ``erratum`` as well.)
    """
    C = home(cid)
    assert verdict(cid) == Verdict.ERRATUM
    monkeypatch.setattr(C, "fenwick_strategy", _printed_loop_strategy)
    r = run_claim(get_claim(cid))
    if cid == "continual.erratum.proof_references":
        assert r.verdict == Verdict.ERROR and "Singular" in r.error
    else:
        assert r.verdict == R


def test_erratum_alg5_3_needs_the_corrected_recombination(monkeypatch):
    C = home("continual.erratum.alg5_3_index")
    assert verdict("continual.erratum.alg5_3_index") == Verdict.ERRATUM
    real = C.fenwick_recombination
    monkeypatch.setattr(C, "fenwick_recombination", lambda n: real(n).T.tocsr())  # B[pt, p] as printed
    assert verdict("continual.erratum.alg5_3_index") == R


def test_err_recursion_wrong_stationary_point(monkeypatch):
    import dpverify.continual.symbolic as S

    assert verdict("continual.fda.err_recursion") == Verdict.HOLDS
    monkeypatch.setattr(S, "stationary_alpha", lambda e, w: sp.sqrt(e) / (sp.sqrt(e) + sp.sqrt(w)))  # square roots
    assert verdict("continual.fda.err_recursion") == R


def test_err_recursion_wrong_library_recursion(monkeypatch):
    C = home("continual.fda.err_recursion")
    real = C.fda_errors
    monkeypatch.setattr(C, "fda_errors", lambda m: real(m) * np.r_[1.0, np.full(m, 1.0 + 1e-6)])
    assert verdict("continual.fda.err_recursion") == R


def test_alg4_wrong_walk(monkeypatch):
    """Bug: Alg. 4 scaling the right (unscaled) copy by α_t instead of the left one."""
    C = home("continual.fda.alg4")
    assert verdict("continual.fda.alg4") == Verdict.HOLDS

    def swapped(k, m):
        err = C.fda_errors(m)
        alpha = np.cbrt(err) / (np.cbrt(err) + np.cbrt(2.0 ** np.arange(m + 1)))
        lam, kt, t, div = 1.0, k, m, 2 ** (m - 1)
        while div != kt:
            if kt > div:
                kt -= div
                lam *= alpha[t - 1]
            t -= 1
            div //= 2
        return float(lam * (1.0 - alpha[t - 1]))

    monkeypatch.setattr(C, "coef", swapped)
    assert verdict("continual.fda.alg4") == R


def test_err_org_wrong_closed_form(monkeypatch):
    import dpverify.continual.symbolic as S

    assert verdict("continual.fda.err_org") == Verdict.HOLDS
    real = S.err_org_recursion
    m = sp.Symbol("m", integer=True, nonnegative=True)
    monkeypatch.setattr(S, "err_org_recursion", lambda: (*real()[:2], sp.simplify(real()[2] / m)))  # m² 2^(m−1)·m / m
    assert verdict("continual.fda.err_org") == R


def test_fig1_monotone_with_a_wrong_err_org(monkeypatch):
    """Bug: err_org = m²·2^(m−1) (the Δ² factor taken once): the ratio then decreases like 4/m."""
    import dpverify.continual.symbolic as S

    assert verdict("continual.fig1.monotone") == Verdict.HOLDS
    real = S.err_org_recursion
    m = sp.Symbol("m", integer=True, nonnegative=True)
    monkeypatch.setattr(S, "err_org_recursion", lambda: (*real()[:2], sp.simplify(real()[2] / m)))
    assert verdict("continual.fig1.monotone") == R


def test_every_finished_claim_is_covered():
    """The mutation tests here and in the rooms' own files name every claim of rr, audit.ldp and continual
    (its k-ary, baselines and experiment claims aside)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent
    files = [*root.glob("test_claims_mutations*.py"), root / "rr" / "test_rr_claims.py", root / "rr" / "test_delta_claims.py",
             *sorted((root / "continual").glob("test_*.py"))]
    text = "".join(f.read_text(encoding="utf-8") for f in files)
    ids = [c.id for c in all_claims() if re.match(r"(rr\.|audit\.ldp\.|continual\.(?!import))", c.id)
           and not c.id.startswith(("continual.kary", "continual.baselines", "continual.exp"))]
    mutated_elsewhere = {"continual.w_eq_bm", "continual.thm5.1", "continual.thm5.4", "continual.fda.any_n",
                         "continual.release.mse", "continual.release.privacy", "rr.model1.optimum",
                         "rr.model1.vertices", "rr.binary.solvers", "rr.nary.closed_form", "rr.nary.definition",
                         "audit.ldp.float_exact"}  # its mutation: tests/audit/test_ldp_exact_decision.py
    missing = [i for i in ids if f'"{i}"' not in text and i not in mutated_elsewhere]
    assert not missing, missing


def test_privacy_claim_needs_the_rounding_guard(monkeypatch):
    """Bug: the (1 − 1e-12) guard on the FDA weights removed -> column sums of ΣM reach 1 + 4e-16 (e.g. N = 13)."""
    import dpverify.continual.fda as fda

    D = sys.modules[fda.fda_weights.__module__]  # the module whose weights carry the guard
    assert verdict("continual.release.privacy") == Verdict.HOLDS
    monkeypatch.setattr(D, "_GUARD", 0.0)
    out = get_claim("continual.release.privacy").check()
    assert out.verdict == R and out.evidence["max_column_l1_exceeds_1"]
