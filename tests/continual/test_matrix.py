"""MatrixMechanism: exact sensitivity and variances, causality, certified reweighting, references, bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import aslinearoperator

from dpverify.continual import MatrixMechanism, expected_mse, strategy
from dpverify.continual.experiments import factorization_lower_bound
from dpverify.continual.fda import fda_optimum
from dpverify.continual.hdmm import p_identity, p_identity_objective, prefix_workload
from dpverify.continual.matrix import gaussian_sigma
from dpverify.continual.matrix_table import compare, format_table


def W(n):
    return np.tril(np.ones((n, n)))


@pytest.mark.parametrize("method", ["naive", "fenwick", "fda", "kary-fda", "binary", "honaker", "elders", "boost"])
def test_variances_equal_the_rooms_exact_mse(method):
    n = 32
    R, A = strategy(n, method)
    mm = MatrixMechanism(W(n), A, R)
    assert mm.sensitivity(1) <= 1
    np.testing.assert_allclose(mm.variances(0.5), expected_mse(n, 0.5, method) * mm.sensitivity(1) ** 2, rtol=1e-9)


def test_solved_reconstruction_is_least_squares():
    n = 20
    R, A = strategy(n, "fenwick")  # square: B = W A⁻¹ is the library's R
    np.testing.assert_allclose(MatrixMechanism(sp.csr_matrix(W(n)), A).variances(1.0), expected_mse(n, 1.0, "fenwick"))
    R, A = strategy(n, "elders", branching=3)  # tall: B = W A⁺ (offline, uses every node)
    mm = MatrixMechanism(W(n), A)
    Ad = A.toarray()
    B = W(n) @ np.linalg.pinv(Ad)
    np.testing.assert_allclose(mm.variances(1.0), 2 * (B**2).sum(axis=1) * mm.sensitivity(1) ** 2, rtol=1e-8)
    assert mm.total_mse(1.0) < MatrixMechanism(W(n), A, R).total_mse(1.0)


def test_sensitivity_is_exact_and_rounded_up():
    A = np.full((10, 3), 0.1)  # fl(0.1) > 1/10
    mm = MatrixMechanism(np.ones((1, 10)) @ np.ones((10, 3)) * 0 + np.ones((1, 3)), A, np.full((1, 10), 1.0))
    assert mm.sensitivity_exact(1) > 1 and mm.sensitivity(1) >= float(mm.sensitivity_exact(1))
    assert mm.sensitivity(2) ** 2 >= float(mm.sensitivity_exact(2))


def test_gaussian_calibration_is_tight():
    from scipy.stats import norm

    eps, delta = 0.8, 1e-6
    s = gaussian_sigma(eps, delta)
    d = lambda s: norm.cdf(1 / (2 * s) - eps * s) - np.exp(eps) * norm.cdf(-1 / (2 * s) - eps * s)
    assert d(s) <= delta < d(s * (1 - 1e-6))
    mm = MatrixMechanism(W(4), np.eye(4))
    np.testing.assert_allclose(mm.variances(eps, "gaussian", delta=delta), s**2 * np.arange(1, 5))


def test_causality():
    R, A = strategy(27, "elders", branching=3)
    mm = MatrixMechanism(W(27), A, R)
    assert mm.is_causal() and not mm.factors_causal()
    R, A = strategy(27, "fenwick")
    assert MatrixMechanism(W(27), A, R).factors_causal()
    assert not MatrixMechanism(np.triu(np.ones((3, 3))), np.eye(3)).is_causal()


def test_reweighting_fenwick_is_fda():
    """FDA's program (seed 000 eq. 5.10) is the diagonal reweighting of the Fenwick strategy."""
    n = 13
    R, A = strategy(n, "fenwick")
    mm, cert = MatrixMechanism(W(n), A, R).reweighted()
    assert cert.certified and mm.sensitivity(1) <= 1
    assert np.isclose(mm.total_mse(1.0) / 2, fda_optimum(n), rtol=1e-6)
    assert cert.dual_bound <= fda_optimum(n) * (1 + 1e-9)
    mm2, cert2 = MatrixMechanism(W(n), A, R).reweighted("minimax")
    assert cert2.certified and mm2.variances(1.0).max() <= mm.variances(1.0).max()


def test_lower_bound_below_every_method():
    n = 64
    lb = MatrixMechanism(W(n), np.eye(n)).lower_bound(1.0)
    assert np.isclose(lb, factorization_lower_bound(n, 1.0))
    for row in compare(MatrixMechanism(W(n), np.eye(n)), 1.0):
        assert row["total_mse"] >= lb
    assert "naive" in format_table(compare(MatrixMechanism(W(n), np.eye(n)), 1.0))


def test_hdmm_gradient_and_total():
    rng = np.random.default_rng(3)
    n, p = 9, 3
    th = rng.random((p, n))
    f, g = p_identity_objective(th, prefix_workload(n))
    h = 1e-6
    for i, j in [(0, 0), (1, 4), (2, 8)]:
        e = np.zeros_like(th)
        e[i, j] = h
        num = (p_identity_objective(th + e, W(n))[0] - p_identity_objective(th - e, W(n))[0]) / (2 * h)
        assert np.isclose(num, g[i, j], rtol=1e-5, atol=1e-7)
    res = p_identity(prefix_workload(n), p=2, rng=0, maxiter=200)
    mm = MatrixMechanism(W(n), res.strategy)  # B = W A⁺ and the exact sensitivity 1
    assert np.isclose(mm.sensitivity(1), 1.0)
    assert np.isclose(mm.total_mse(1.0), res.total_mse(1.0), rtol=1e-8)
    assert res.total_mse(1.0) < expected_mse(n, 1.0, "naive").sum()


def test_operator_inputs():
    n = 16
    R, A = strategy(n, "fenwick")
    mm = MatrixMechanism(aslinearoperator(sp.csr_matrix(W(n))), A, aslinearoperator(R))
    np.testing.assert_allclose(mm.variances(1.0), expected_mse(n, 1.0, "fenwick"))


@pytest.mark.parametrize(
    "args,match",
    [
        ((W(3), np.array([[1.0, 0, 0], [1.0, 0, 0], [0, 0, 1.0]])), "singular"),
        ((W(3), np.ones((2, 3))), "singular"),
        ((W(3), np.eye(3), np.eye(3)), "does not equal workload"),
        ((W(3), np.eye(4)), "strategy has 4 columns"),
        ((W(3), np.eye(3), np.eye(2)), "reconstruction must have shape"),
        ((W(3), np.full((3, 3), np.nan)), "strategy has a NaN"),
        ((np.full((3, 3), np.inf), np.eye(3)), "workload has a NaN"),
        ((np.ones(3), np.eye(3)), "workload must be 2-dimensional"),
        ((W(3), aslinearoperator(np.eye(3))), "pass its reconstruction"),
        ((W(3), "eye"), "strategy must be"),
    ],
)
def test_bad_input(args, match):
    with pytest.raises((ValueError, TypeError), match=match):
        MatrixMechanism(*args)


def test_bad_calls():
    mm = MatrixMechanism(W(3), np.eye(3))
    with pytest.raises(ValueError, match="epsilon"):
        mm.variances(0.0)
    with pytest.raises(ValueError, match="needs delta"):
        mm.variances(1.0, "gaussian")
    with pytest.raises(ValueError, match="noise"):
        mm.variances(1.0, "cauchy")
    with pytest.raises(ValueError, match="p must be"):
        mm.sensitivity(3)
    big = aslinearoperator(sp.identity(10_000, format="csr"))
    with pytest.raises(ValueError, match="too large"):
        MatrixMechanism(big, big, big).sensitivity(1)  # an operator strategy is materialised: 10^8 entries
