"""Mutation tests for the claims added or strengthened by issue 15: each planted bug flips the verdict.

Every test checks the unmutated verdict first (so the mutation is what changes it).
"""

from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np
import pytest

from dpverify.claims import Verdict, all_claims, get_claim

R, H, E, I = Verdict.REFUTED, Verdict.HOLDS, Verdict.ERRATUM, Verdict.INCONCLUSIVE


def verdict(cid: str) -> Verdict:
    return get_claim(cid).check(thorough=False).verdict


def home(cid: str):
    """The module that defines a claim's check: a bug is planted where the check looks its names up."""
    return sys.modules[get_claim(cid).check.__module__]


@pytest.fixture(autouse=True)
def _load_claims():
    all_claims()


def _printed_loop_strategy(n):
    """Alg. 5.2 as printed (``while pt < N``): M[N, N] never set."""
    import scipy.sparse as sps

    rows, cols = [], []
    for p in range(1, n + 1):
        pt = p
        while pt < n:
            rows.append(pt - 1)
            cols.append(p - 1)
            pt += pt & -pt
    return sps.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))


def _scaled_method(monkeypatch, name, factor):
    """Replace a continual method's exact MSE by factor × itself (registry entry)."""
    import dpverify.continual.methods as MM

    real = MM._METHODS[name]
    fake = dataclasses.replace(real, expected_mse=lambda *a, **k: factor * real.expected_mse(*a, **k))
    monkeypatch.setitem(MM._METHODS, name, fake)


# ------------------------------------------------------------------ primitives


def test_usefulness_refuted_when_alpha_too_small(monkeypatch):
    import dpverify.survey.claims.usefulness as P

    assert verdict("primitives.usefulness_laplace") == E
    real = P.laplace_alpha
    monkeypatch.setattr(P, "laplace_alpha", lambda *a: real(*a) / 2)
    assert verdict("primitives.usefulness_laplace") == R


def test_interactive_refuted_with_a_wrong_sensitivity(monkeypatch):
    import dpverify.survey.claims.interactive as P

    assert verdict("primitives.interactive_example") == E
    real = P.l1_sensitivity
    monkeypatch.setattr(P, "l1_sensitivity", lambda A: 2 * real(A))
    assert verdict("primitives.interactive_example") == R


# ------------------------------------------------------------------ pca


class _ScaledGen(np.random.Generator):
    """A Generator sharing ``g``'s stream whose Laplace scales are multiplied by ``f`` (noise at a fraction)."""

    def __init__(self, g, f):
        super().__init__(g.bit_generator)
        self._g, self._f = g, f

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return self._g.laplace(loc, scale * self._f, size)


@pytest.mark.parametrize("part", ["scores_half", "moments_third", "all_third"])
def test_corrected_budget_refuted_with_less_noise(monkeypatch, part):
    import dpverify.pca.corrected as Cm

    assert verdict("pca.corrected_ppca_dp_is_dp") == H
    if part == "scores_half":
        class _Half:
            sqrt = staticmethod(lambda x: math.sqrt(x) / 2)

        monkeypatch.setattr(Cm, "math", _Half)
    elif part == "moments_third":
        real = Cm.symmetric_laplace
        monkeypatch.setattr(Cm, "symmetric_laplace", lambda p, scale, reps, g: real(p, scale / 3, reps, g))
    else:
        monkeypatch.setattr(Cm, "as_generator", lambda rng: _ScaledGen(rng, 1 / 3))
    out = get_claim("pca.corrected_ppca_dp_is_dp").check()
    assert out.verdict == R and out.evidence["worst_spent_over_claimed"] > 1.5


def test_corrected_budget_refuted_for_alg2(monkeypatch):
    """Alg. 2 (noise on the scores only) fed to the white-box check: parts left un-noised."""
    import dpverify.pca as pca

    monkeypatch.setattr(pca, "CorrectedPPCADP", lambda k, epsilon, bounds, **kw: pca.PPCADP(k, epsilon))
    assert verdict("pca.corrected_ppca_dp_is_dp") == R


@pytest.mark.slow
def test_fig56_refuted_when_dp_accuracies_are_informative_and_baseline_wins(monkeypatch):
    import dpverify.pca.grid as C

    real = C.figure_grid

    def informative(d, t):
        rows, setup = real(d, t)
        out = []
        for r in rows:
            if r.method in ("ppca-dp", "pca-ppdp"):
                acc = 0.9 - 0.01 * r.k - (0.02 if r.method == "ppca-dp" else 0.0)
                r = dataclasses.replace(r, acc_mean=acc)
            out.append(r)
        return out, setup

    monkeypatch.setattr(C, "figure_grid", informative)
    assert verdict("pca.fig5_6_dp_svm") == R


def test_eq3_erratum_needs_the_eigenvector_columns(monkeypatch):
    import dpverify.pca.ppca as pp

    assert verdict("pca.erratum.eq3_decomposition") == E
    real = pp.fit_ppca

    def rows_not_columns(X, k):
        f = real(X, k)
        return dataclasses.replace(f, U=np.swapaxes(f.U, -1, -2))

    monkeypatch.setattr(pp, "fit_ppca", rows_not_columns)
    assert verdict("pca.erratum.eq3_decomposition") in (R, H)


# ------------------------------------------------------------------ continual


def test_symbolic_thm5_refuted_with_the_printed_loop(monkeypatch):
    CS = home("continual.thm5.symbolic")

    monkeypatch.setattr(CS, "fenwick_strategy", _printed_loop_strategy)
    assert verdict("continual.thm5.symbolic") == R


@pytest.mark.slow
def test_symbolic_thm5_refuted_with_a_wrong_block_recursion(monkeypatch):
    import dpverify.continual.symbolic as S

    real = S.block_recombination
    monkeypatch.setattr(S, "block_recombination", lambda B: real(B).T.tocsr())
    assert verdict("continual.thm5.symbolic") != H


def test_alg5_refuted_with_a_wrong_coef(monkeypatch):
    import dpverify.continual.alg5 as A

    assert verdict("continual.fda.alg5") == H
    real = A.coef_counted
    monkeypatch.setattr(A, "coef_counted", lambda k, m, al, c: real(k, m, al, c) * (1.01 if k % 2 else 1.0))
    assert verdict("continual.fda.alg5") == R


def test_alg5_cost_holds_once_lambda_is_stored(monkeypatch):
    """The erratum is about line 10's repeated coef calls: memoised, the per-release cost is O(log N)."""
    import functools

    import dpverify.continual.alg5 as A

    assert verdict("continual.fda.alg5_cost") == E
    real = A.coef_counted

    @functools.lru_cache(maxsize=None)
    def cached(k, m):
        return real(k, m, A.alpha_table(m), [0])

    def stored(k, m, alpha, counter):
        first = (k, m) not in _seen
        _seen.add((k, m))
        return real(k, m, alpha, counter) if first else cached(k, m)

    _seen: set = set()
    monkeypatch.setattr(A, "coef_counted", stored)
    assert verdict("continual.fda.alg5_cost") == H


def _halve_forest_noise(monkeypatch):
    """The releases and streams of fenwick and fda draw their node noise in ForestStream._draw."""
    import dpverify.continual.forest as F

    real = F.ForestStream._draw

    def half(self, lo):
        real(self, lo)
        self._z = 0.5 * self._z

    monkeypatch.setattr(F.ForestStream, "_draw", half)


def test_stream_refuted_with_half_noise(monkeypatch):
    assert verdict("continual.release.stream") == H
    _halve_forest_noise(monkeypatch)
    assert verdict("continual.release.stream") == R


def test_privacy_refuted_with_half_noise(monkeypatch):
    assert verdict("continual.release.privacy") == H
    _halve_forest_noise(monkeypatch)
    assert verdict("continual.release.privacy") == R


def test_privacy_refuted_with_heavier_weights_in_the_release(monkeypatch):
    import dpverify.continual.fda as D

    real = D.fda_forest_weights
    monkeypatch.setattr(D, "fda_forest_weights", lambda n: real(n) * 1.001)
    assert verdict("continual.release.privacy") == R


@pytest.mark.parametrize("factor", [1.3, pytest.param(0.7, marks=pytest.mark.slow)])
def test_simulation_detects_a_30_percent_variance_error_in_bm(monkeypatch, factor):
    """(The unmutated verdict is checked by tests/continual/test_experiments_claims.py.)"""
    _scaled_method(monkeypatch, "binary", factor)
    assert verdict("continual.exp.simulation") == R


def test_fenwick_as_bm_refuted_when_fenwick_is_worse(monkeypatch):
    assert verdict("continual.fenwick_as_bm") == H
    _scaled_method(monkeypatch, "fenwick", 1.1)
    assert verdict("continual.fenwick_as_bm") == R


def test_normalisation_refuted_for_a_suboptimal_diagonal(monkeypatch):
    import dpverify.continual.fda as D

    assert verdict("continual.normalisation") == H
    monkeypatch.setattr(D, "fda_weights", lambda n: np.full(n, (1 - 1e-12) / n.bit_length()))
    assert verdict("continual.normalisation") == R


@pytest.mark.parametrize("cid", ["continual.erratum.eq5_4_upper", "continual.erratum.thm5_4_cites_alg5_2",
                                 "continual.erratum.eq5_15_dimension"])
def test_errata_need_the_library_matrices(monkeypatch, cid):
    CE = home(cid)

    assert verdict(cid) == E
    monkeypatch.setattr(CE, "fenwick_recombination", lambda n: CE.fenwick_strategy(n))
    monkeypatch.setattr(CE, "fenwick_strategy", _printed_loop_strategy)
    assert verdict(cid) == R


def test_step6_erratum_needs_the_stopping_rule(monkeypatch):
    CE = home("continual.erratum.thm5_1_step6")

    assert verdict("continual.erratum.thm5_1_step6") == E
    monkeypatch.setattr(CE, "fenwick_strategy", _printed_loop_strategy)
    assert verdict("continual.erratum.thm5_1_step6") == R


def test_errata_inconclusive_on_another_text(monkeypatch):
    CE = home("continual.erratum.eq5_4_upper")

    monkeypatch.setattr(CE, "seed_text", lambda seed: "some other text")
    assert verdict("continual.erratum.eq5_4_upper") == I
