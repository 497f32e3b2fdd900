"""The paper's FDA by name (``fda-paper``): Alg. 4/5 as printed at any N, its privacy, its law and its claims."""

from __future__ import annotations

import csv
import warnings
from fractions import Fraction

import numpy as np
import pytest

import dpverify.continual  # noqa: F401  (registers the library's methods)
from dpverify.continual import fda_paper as P
from dpverify.continual import expected_mse, release, strategy, stream
from dpverify.continual.fda import coef, fda_errors, fda_forest_optimum, fda_weights


def _alg52_M(n: int) -> np.ndarray:
    """Alg. 5.2 of seed 000 (with the erratum pt <= N), written out here independently of the library."""
    M = np.zeros((n, n))
    for p in range(1, n + 1):
        pt = p
        while pt <= n:
            M[pt - 1, p - 1] = 1
            pt += pt & -pt
    return M


def test_bound_is_the_smallest_complete_size():
    for n in range(1, 300):
        T = P.paper_bound(n)
        assert T >= n and (T + 1) & T == 0 and (T - 1) // 2 < n


@pytest.mark.parametrize("m", range(1, 11))
def test_equal_to_the_forest_fda_at_complete_sizes(m):
    n = 2**m - 1
    assert np.array_equal(P.fda_paper_weights(n), dpverify.continual.fda.fda_forest_weights(n))
    assert np.array_equal(expected_mse(n, 1.0, "fda-paper"), expected_mse(n, 1.0, "fda"))
    a = np.random.default_rng(m).integers(0, 9, n)
    assert np.array_equal(release(a, 0.7, "fda-paper", rng=m), release(a, 0.7, "fda", rng=m))
    s = stream(n, 0.7, "fda-paper", rng=m)
    assert [s.push(int(x)) for x in a] == release(a, 0.7, "fda", rng=m).tolist()


@pytest.mark.parametrize("n", [2, 4, 5, 6, 8, 12, 33, 100, 200])
def test_weights_are_alg4_of_the_bound(n):
    m = P.paper_bound(n).bit_length()
    literal = np.array([coef(k, m) for k in range(1, n + 1)]) * (1 - 1e-12)
    assert np.max(np.abs(P.fda_paper_weights(n) / literal - 1)) < 1e-12
    assert np.allclose(P.fda_paper_weights_at(np.arange(1, n + 1), n), P.fda_paper_weights(n), rtol=1e-13)


def test_the_papers_numbers_at_other_n():
    # the paper prints FDA numbers at N = 2^m - 1 only (eq. 20): at other N the releases are the first N of T's
    for m in range(1, 15):
        total = expected_mse(2**m - 1, 1.0, "fda-paper").sum()
        assert abs(total / (2 * fda_errors(m)[m]) - 1) < 1e-11
    for n in (2, 5, 12, 100, 1000, 1500):
        T = P.paper_bound(n)
        assert np.array_equal(expected_mse(n, 1.0, "fda-paper"), expected_mse(T, 1.0, "fda-paper")[:n])


def test_forest_is_086_of_the_paper_at_1000_by_the_matrix_route():
    # totals from the factorizations (2 ‖R‖_F² / ε²), not from the method's MSE function
    def total(method):
        R, A = strategy(1000, method)
        assert np.allclose((R @ A).toarray(), np.tril(np.ones((1000, 1000))))
        return 2 * float(R.multiply(R).sum())

    r = total("fda") / total("fda-paper")
    assert round(r, 2) == 0.86 and abs(r - 2 * fda_forest_optimum(1000) / expected_mse(1000, 1.0, "fda-paper").sum()) < 1e-9
    assert round(2 * fda_forest_optimum(1023) / total("fda-paper"), 2) != 0.86  # the figure is N = 1000's


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12, 31, 32, 100, 777])
def test_sensitivity_by_the_matrix_route(n):
    lam = fda_weights(P.paper_bound(n))[:n]
    A = np.diag(lam) @ _alg52_M(n)  # Σ_N M_N, built here
    col = np.abs(A).sum(axis=0)
    stated = P.fda_paper_sensitivity(n)
    assert abs(col.max() - float(stated)) < 1e-15 and stated <= 1
    R, As = strategy(n, "fda-paper")
    assert np.allclose(As.toarray(), A, rtol=0, atol=0)
    exact = max(sum((Fraction(float(x)) for x in A[:, p] if x), Fraction(0)) for p in range(n))
    assert exact <= 1 and abs(float(exact) - float(stated)) < 1e-15


def test_sensitivity_flips_with_inflated_weights(monkeypatch):
    real = P.fda_paper_weights
    monkeypatch.setattr(P, "fda_paper_weights", lambda n: real(n) * (1 + 1e-9))
    assert P.fda_paper_sensitivity(100) > 1


def _normalised_sq_error(n, eps, noise, reps, seed, mse):
    g = np.random.default_rng(seed)
    a = np.random.default_rng(1).integers(0, 4, n)
    s = np.cumsum(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = np.stack([release(a, eps, "fda-paper", rng=g, noise=noise) for _ in range(reps)])
    stat = ((out - s) ** 2 / mse).mean(axis=1)  # E = 1 per release when mse is the exact per-release MSE
    return out, float((stat.mean() - 1) / (stat.std(ddof=1) / np.sqrt(reps)))


@pytest.mark.parametrize("noise", ["discrete", "laplace"])
def test_release_has_the_stated_law(noise):
    # false-alarm rate: |z| > 5 has probability < 1e-6 per noise (normal approximation of the mean of 400 draws)
    n, eps = 1000, 0.8
    mse = expected_mse(n, eps, "fda-paper", noise=noise)
    out, z = _normalised_sq_error(n, eps, noise, 400, 7, mse)
    assert abs(z) < 5
    assert (out.dtype.kind == "i") == (noise == "discrete")
    # the check can flip: the forest fda's MSE (0.86x) is rejected by the same statistic on the same draws
    _, z_wrong = _normalised_sq_error(n, eps, noise, 400, 7, expected_mse(n, eps, "fda", noise=noise))
    assert abs(z_wrong) > 5


def test_cli_release_by_name(tmp_path):
    from dpverify.cli import main

    inp = tmp_path / "in.csv"
    with inp.open("w", newline="") as fh:
        csv.writer(fh).writerows([["n"]] + [[v] for v in [3, 0, 5, 2, 7, 1, 1, 4, 0, 2]])
    out = tmp_path / "out.csv"
    assert main(["continual", "release", "--input", str(inp), "--column", "n", "--epsilon", "1", "--seed", "4",
                 "--method", "fda-paper", "--output", str(out)]) == 0
    with out.open(newline="") as fh:
        vals = [int(r[0]) for r in list(csv.reader(fh))[1:]]
    assert vals == release([3, 0, 5, 2, 7, 1, 1, 4, 0, 2], 1.0, "fda-paper", rng=4).tolist()


def test_bad_input():
    with pytest.raises(ValueError, match="n"):
        P.paper_bound(0)
    with pytest.raises(TypeError):
        P.fda_paper_weights("5")
    with pytest.raises(ValueError, match=r"t must be in \[1, 5\]"):
        P.fda_paper_weights_at([6], 5)
    with pytest.raises(ValueError, match="n"):
        P.fda_paper_sensitivity(-1)


# ------------------------------------------------------------------ the claims flip

def _verdict(cid):
    from dpverify.claims import all_claims, get_claim

    all_claims()
    return get_claim(cid).check(thorough=False).verdict


@pytest.mark.parametrize("cid, mutate", [
    ("continual.fda_paper.as_printed", lambda real: (lambda n: fda_weights(n))),        # the (5.10) optimum at N
    ("continual.fda_paper.privacy", lambda real: (lambda n: real(n) * (1 + 1e-9))),     # too little noise
    ("continual.fda_paper.paper_numbers", lambda real: (lambda n: real(n) * 0.99)),     # mis-scaled weights
    ("continual.fda_paper.vs_forest", lambda real: (lambda n: fda_weights(2 * P.paper_bound(n) + 1)[:n])),  # T too big
])
def test_each_claim_holds_and_flips(monkeypatch, cid, mutate):
    from dpverify.claims import Verdict

    assert _verdict(cid) == Verdict.HOLDS
    monkeypatch.setattr(P, "fda_paper_weights", mutate(P.fda_paper_weights))
    assert _verdict(cid) == Verdict.REFUTED
