"""FDA weights for any n: recursion, Alg. 4, KKT certificate, cvxpy cross-check, properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.continual import expected_mse, fda_weights, strategy
from dpverify.continual.fda import (
    coef,
    fda_errors,
    fda_optimum,
    fda_weights_at,
    kkt_certificate,
    solve_diagonal_cvxpy,
)
from dpverify.continual.fenwick import column_sq_norms, strategy_column_sums


@pytest.mark.parametrize("n", list(range(1, 130)) + [255, 256, 1000, 4095, 4096, 10**5 + 1])
def test_weights_feasible_tight_and_optimal_value(n):
    lam = fda_weights(n)
    assert lam.shape == (n,) and np.all(lam > 0)
    u = strategy_column_sums(lam)
    assert u.max() <= 1.0
    assert u[0::2].min() > 1 - 1e-11  # every leaf path spends the whole budget
    assert abs((column_sq_norms(n) / lam**2).sum() / fda_optimum(n) - 1) < 1e-10


@pytest.mark.parametrize("n", [1, 2, 3, 7, 12, 100, 1023, 3000])
def test_vectorised_pass_equals_per_node_walk(n):
    assert np.allclose(fda_weights(n), fda_weights_at(np.arange(1, n + 1), n), rtol=1e-13, atol=0)


@pytest.mark.parametrize("m", range(1, 9))
def test_alg4_coef_literal(m):
    n = 2**m - 1
    c = np.array([coef(k, m) for k in range(1, n + 1)])
    assert np.allclose(c * (1 - 1e-12), fda_weights(n), rtol=1e-13, atol=0)


def test_kkt_every_n_up_to_2000():
    for n in range(1, 2001):
        c = kkt_certificate(n)
        assert c["min_mu_rel"] > -1e-12 and c["max_slack_times_mu_rel"] < 1e-9 and c["max_colsum"] <= 1


def test_kkt_detects_suboptimal_weights():
    lam = fda_weights(63)
    lam2 = lam.copy()
    lam2[[0, 2]] *= 0.9  # feasible but not optimal
    lam2[1] += 0.1 * lam[0]
    c = kkt_certificate(63, lam2)
    assert c["min_mu_rel"] < -1e-6 or c["max_slack_times_mu_rel"] > 1e-6


@pytest.mark.parametrize("n", [1, 3, 5, 7, 10, 31, 63, 100, 127, 200, 255])
def test_cvxpy_cross_check(n):
    lam, opt = solve_diagonal_cvxpy(n)
    assert abs(opt / fda_optimum(n) - 1) < 1e-6
    assert np.max(np.abs(lam / fda_weights(n) - 1)) < 1e-5


@pytest.mark.parametrize("m", range(1, 9))
def test_cvxpy_recursion_sizes_to_1e_6(m):
    n = 2**m - 1
    lam, opt = solve_diagonal_cvxpy(n)
    assert abs(opt / fda_optimum(n) - 1) < 1e-6
    assert np.max(np.abs(lam / fda_weights(n) - 1)) < 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("n", [511, 1023, 2047, 4095])
def test_cvxpy_cross_check_large(n):
    lam, opt = solve_diagonal_cvxpy(n)
    assert abs(opt / fda_optimum(n) - 1) < 1e-6
    assert np.max(np.abs(lam / fda_weights(n) - 1)) < 1e-6


@pytest.mark.slow
def test_cvxpy_cross_check_large_any_n():
    lam, opt = solve_diagonal_cvxpy(3001)
    assert abs(opt / fda_optimum(3001) - 1) < 1e-6
    assert np.max(np.abs(lam / fda_weights(3001) - 1)) < 1e-5


def test_recursion_matches_paper_form():
    err = fda_errors(30)
    for m in range(1, 31):
        e = err[m - 1]
        assert abs(err[m] - (e + (np.cbrt(e) + 2 ** ((m - 1) / 3)) ** 3)) <= 1e-12 * err[m]
        assert abs(fda_optimum(2**m - 1) / err[m] - 1) < 1e-12


def test_m3_improves_on_paper_hand_scaling():
    assert abs(2 * fda_optimum(3) - 2 * (1 + (1 + 2 ** (1 / 3)) ** 3)) < 1e-12
    assert 2 * fda_optimum(3) < 26 < 32


def test_expected_mse_totals():
    from dpverify.continual.fda import fda_forest_optimum

    for n in (1, 2, 3, 10, 4095, 4096, 5000):
        assert abs(expected_mse(n, 0.5, "fda").sum() / (2 / 0.25 * fda_forest_optimum(n)) - 1) < 1e-10
        assert fda_forest_optimum(n) <= fda_optimum(n) * (1 + 1e-12)
        assert np.allclose(expected_mse(n, 0.5, "naive"), 2 * np.arange(1, n + 1) / 0.25)
    # FDA beats plain Fenwick in total for every n >= 2 (n = 2 is two blocks of one count: 2 + 4 < 8 + 8)
    assert abs(expected_mse(2, 1.0, "fda").sum() - 6.0) < 1e-9
    for n in range(2, 300):
        assert expected_mse(n, 1.0, "fda").sum() < expected_mse(n, 1.0, "fenwick").sum()


@settings(max_examples=40)
@given(n=st.integers(min_value=1, max_value=400), method=st.sampled_from(["naive", "fenwick", "fda"]))
def test_every_strategy_factors_w_and_has_sensitivity_at_most_one(n, method):
    R, A = strategy(n, method)
    assert np.allclose((R @ A).toarray(), np.tril(np.ones((n, n))))
    assert abs(A).sum(axis=0).max() <= 1.0


@settings(max_examples=40)
@given(n=st.integers(min_value=1, max_value=200_000))
def test_fda_weights_any_n_property(n):
    lam = fda_weights(n)
    assert strategy_column_sums(lam).max() <= 1.0
    assert np.all(np.isfinite(lam)) and lam.min() > 0


@settings(max_examples=20)
@given(n=st.integers(min_value=2, max_value=3000), factor=st.floats(min_value=1.001, max_value=2.0))
def test_broken_strategy_is_caught(n, factor):
    assert strategy_column_sums(factor * fda_weights(n)).max() > 1.0


def test_weights_any_n_large_fast_enough_to_run():
    lam = fda_weights(2**22 - 1)
    assert lam.size == 2**22 - 1 and strategy_column_sums(lam).max() <= 1.0


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, None])
def test_bad_n(bad):
    with pytest.raises((ValueError, TypeError), match="n"):
        fda_weights(bad)


def test_bad_nodes():
    with pytest.raises(ValueError, match="nodes"):
        fda_weights_at([0, 1], 3)
    with pytest.raises(ValueError, match="nodes"):
        fda_weights_at([4], 3)


# ---------------------------------------------------------------- the forest of complete blocks (issue 10, N = 2^m)

def test_fda_has_no_spike_at_powers_of_two():
    """Per-release MSE is continuous in N around 2^m: N = 2^m is N = 2^m - 1 plus one block of one count.

    Exact computation (no sampling).  The old Fenwick-forest weighting put one node over every count:
    its last release at N = 4096 had MSE 26,176 against 1,797 (the largest) at N = 4095."""
    from dpverify.continual.fda import fda_weights
    from dpverify.continual.fenwick import weighted_expected_mse

    for m in (5, 8, 12):
        N = 2**m
        prev = expected_mse(N - 1, 1.0, "fda")
        for n in range(N - 2, N + 4):
            e = expected_mse(n, 1.0, "fda")
            # the first N - 2 releases change by a small relative amount, and no release jumps
            assert e.max() <= 1.05 * prev.max(), (n, e.max(), prev.max())
            assert abs(e[-1] / expected_mse(n - 1, 1.0, "fda")[-1] - 1) < 0.5, n
        e = expected_mse(N, 1.0, "fda")
        assert np.allclose(e[: N - 1], prev, rtol=0.1)  # the first 2^m - 1 releases move by < 10%
        # the test can fail: the old weighting spikes at 2^m
        old = weighted_expected_mse(fda_weights(N), 1.0)
        assert old[-1] > 2 * prev.max()


def test_forest_weights_exact_sensitivity_at_most_one():
    """Every count's path sum of the float λ, added in exact rational arithmetic, is <= 1 (no ulp over)."""
    from fractions import Fraction

    from dpverify.continual.fda import fda_forest_weights
    from dpverify.continual.forest import block_of, complete_blocks

    for n in list(range(1, 70)) + [127, 128, 129, 255, 256, 1000, 1023, 1024, 1025]:
        lam = [Fraction(float(x)) for x in fda_forest_weights(n)]
        blocks = complete_blocks(n)
        worst = Fraction(0)
        for p in range(1, n + 1):
            o, size, i = (int(x[0]) for x in block_of(np.array([p]), blocks))
            s, j = Fraction(0), i
            while j <= size:  # the upward path of count p inside its block
                s += lam[o + j - 1]
                j += j & -j
            worst = max(worst, s)
        assert worst <= 1, (n, float(worst - 1))
        assert worst > 1 - Fraction(1, 10**9)  # tight: the optimum spends the whole budget


def test_forest_weights_at_and_strategy_agree():
    from dpverify.continual import strategy
    from dpverify.continual.fda import fda_forest_weights, fda_forest_weights_at

    for n in (1, 2, 8, 9, 30, 64, 100):
        lam = fda_forest_weights(n)
        assert np.allclose(fda_forest_weights_at(np.arange(1, n + 1), n), lam, rtol=1e-13, atol=0)
        R, A = strategy(n, "fda")
        assert np.allclose((R @ A).toarray(), np.tril(np.ones((n, n))))
        assert abs(A).sum(axis=0).max() <= 1
        # exact MSE from the factorization: 2/ε² ||R row||² (Laplace) equals expected_mse
        assert np.allclose(2 * np.asarray(R.multiply(R).sum(axis=1)).ravel(), expected_mse(n, 1.0, "fda"), rtol=1e-12)


def test_forest_optimum_is_a_kkt_point_of_its_forest():
    """Each block is a Fenwick forest with root weights c_r = n - r + 1: the shares are optimal (KKT: μ >= 0
    up to rounding 1e-12, complementary slackness) for the block problem."""
    from dpverify.continual.fda import fda_forest_weights
    from dpverify.continual.forest import complete_blocks

    for n in (8, 9, 100, 1024):
        lam = fda_forest_weights(n)
        for o, size in complete_blocks(n):
            i = np.arange(1, size + 1)
            lb = i & -i
            parent = i + lb
            root = parent > size
            w = np.where(root, n - (o + i) + 1, lb).astype(float)
            g = 2 * w / lam[o : o + size] ** 3
            has = ~root
            mu = g - np.bincount(parent[has] - 1, weights=g[has], minlength=size)
            assert mu.min() / g.max() >= -1e-12
