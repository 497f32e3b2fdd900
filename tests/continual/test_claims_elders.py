"""The elders claims come out as expected, and the checks can flip."""

import numpy as np

from dpverify.claims import Verdict
from dpverify.continual.claims import elders as ce


def test_honaker_ratio_holds():
    assert ce._honaker_ratio().verdict == Verdict.HOLDS


def test_gaussian_crossover_holds_under_the_huu_constant():
    o = ce._gaussian_crossover()
    assert o.verdict == Verdict.HOLDS and o.evidence["best_k"] == 19
    assert abs(o.evidence["c_limit_HUU_constant"] - 0.92) <= 0.005


def test_factorization_holds_and_flips(monkeypatch):
    assert ce._factorization().verdict == Verdict.HOLDS
    import dpverify.continual.elders_tree as el

    monkeypatch.setattr(el, "_node_weight", lambda L: 1.0 / L * (1 + 2.0**-30))  # a strategy over sensitivity 1
    assert ce._factorization().verdict == Verdict.REFUTED


def test_best_f_is_the_integer_minimum():
    f, k = ce._best_f()
    assert k == 19 and all(ce._f(j) >= f for j in range(2, 1000))
    assert np.isclose(1 / (4 * np.log(2) ** 3) / f, 4.0456, atol=1e-4)


def test_matrix_verifier_holds_and_flips(monkeypatch):
    assert ce._matrix_verifier().verdict == Verdict.HOLDS
    import dpverify.continual.matrix as mx

    real = mx.row_sq_norms
    monkeypatch.setattr(mx, "row_sq_norms", lambda B: real(B) * (1 + 1e-6))  # a variance formula off by 1e-6
    assert ce._matrix_verifier().verdict == Verdict.REFUTED


# ---------------------------------------------------------------- each claim flips under a mutation (by id)

def _verdict(cid):
    from dpverify.claims import get_claim, run_claims

    (r,) = run_claims([get_claim(cid)])
    assert r.error is None, r.error
    return r.verdict


def test_honaker_ratio_claim_refuted_when_the_elders_total_doubles(monkeypatch):
    import dpverify.continual.elders_tree as el

    real = el.elders_digit_sum_total
    monkeypatch.setattr(el, "elders_digit_sum_total", lambda n, k: 2 * real(n, k))
    assert _verdict("continual.elders.honaker_ratio") == Verdict.REFUTED


def test_gaussian_crossover_claim_refuted_when_a_variance_doubles(monkeypatch):
    real = ce._f  # Laplace node variance taken as 4L²/ε²: the exponent doubles to 1.83
    monkeypatch.setattr(ce, "_f", lambda k: 2 * real(k))
    assert _verdict("continual.elders.gaussian_crossover") == Verdict.REFUTED


def test_factorization_and_matrix_claims_flip_by_id(monkeypatch):
    import dpverify.continual.elders_tree as el
    import dpverify.continual.matrix as mx

    monkeypatch.setattr(el, "_node_weight", lambda L: 1.0 / L * (1 + 2.0**-30))
    assert _verdict("continual.elders.factorization") == Verdict.REFUTED
    real = mx.row_sq_norms
    monkeypatch.setattr(mx, "row_sq_norms", lambda B: real(B) * (1 + 1e-6))
    assert _verdict("continual.matrix.verifier") == Verdict.REFUTED


def test_optimal_weights_scale_holds_and_flips(monkeypatch):
    """The tree solve's claim holds, and flips when the solver returns weights 1 % off its optimum
    (the certificate's gap then exceeds 1e-6, so the result is no longer certified)."""
    import dpverify.continual.tree_weights as tw

    cid = "continual.elders.optimal_weights_scale"
    assert ce._optimal_weights_scale().verdict == Verdict.HOLDS, cid
    real = tw.tree_optimal_weights

    def off(R, A, parent):
        res = real(R, A, parent)
        d = res.weights.copy()
        d[np.isfinite(d) & (d > 0)] *= 0.99  # feasible (less weight), but not optimal
        return tw.certify_weights(R, A, d, res.multipliers)

    monkeypatch.setattr(tw, "tree_optimal_weights", off)
    assert ce._optimal_weights_scale().verdict == Verdict.REFUTED, cid
