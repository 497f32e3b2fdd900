"""Exact MSEs of the baselines against independent dense linear algebra, releases against the
algorithms they implement, and seeded simulations."""

import numpy as np
import pytest

from dpverify.continual import expected_mse, release, stream
from dpverify.continual.baselines import (
    boost_expected_mse,
    honaker_level_weights,
    privelet_expected_mse,
    static_total_mse,
    tree_matrix,
)
from dpverify.continual.digits import honaker_nodes
from dpverify.continual.fenwick import fenwick_expected_mse

# float Laplace is requested explicitly here (it warns: the floating-point attack)
pytestmark = pytest.mark.filterwarnings("ignore:noise=.laplace.:UserWarning")


def _W(n):
    return np.tril(np.ones((n, n)))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 100, 4095, 4096])
def test_binary_mechanism_equals_plain_fenwick(n):
    """CSS's binary mechanism with L = floor(log2 n)+1 is the plain Fenwick mechanism (two implementations)."""
    assert np.allclose(expected_mse(n, 0.5, "binary"), fenwick_expected_mse(n, 0.5))


def test_binary_stream_equals_batch_and_levels_option():
    n = 77
    a = np.random.default_rng(3).poisson(2, n)
    b = release(a, 1.0, "binary", rng=9)
    s = stream(n, 1.0, "binary", rng=9)
    assert np.allclose([s.push(int(x)) for x in a], b, rtol=0, atol=1e-9)
    assert np.allclose(expected_mse(n, 1.0, "binary", levels=9), expected_mse(n, 1.0, "binary") * (9 / 7) ** 2)
    with pytest.raises(ValueError, match="levels"):
        expected_mse(n, 1.0, "binary", levels=6)  # 6 < 7 p-sums: not ε-DP


@pytest.mark.parametrize("m", range(0, 7))
def test_boost_variance_is_least_squares(m):
    """2ℓ²/ε² · diag(W (HᵀH)⁻¹ Wᵀ) by dense inversion vs the Haar closed form."""
    n = 2**m
    H = tree_matrix(n).toarray()
    W = _W(n)
    direct = 2 * (m + 1) ** 2 * np.diag(W @ np.linalg.inv(H.T @ H) @ W.T)
    assert np.allclose(boost_expected_mse(n, 1.0), direct, rtol=1e-10)
    assert static_total_mse(n, 1.0, "boost") == pytest.approx(direct.sum(), rel=1e-10)


@pytest.mark.parametrize("m", range(0, 7))
def test_privelet_variance_from_the_wavelet_matrix(m):
    """Build the Haar coefficient matrix C (c = C a) and its inverse densely; noise Lap(ρ/(εW(c)))."""
    n = 2**m
    rho = m + 1
    rows, weights = [np.full(n, 1.0 / n)], [float(n)]
    for h in range(m, 0, -1):
        size = 2**h
        for b in range(n // size):
            r = np.zeros(n)
            r[b * size : b * size + size // 2] = 1.0 / size
            r[b * size + size // 2 : (b + 1) * size] = -1.0 / size
            rows.append(r)
            weights.append(float(size))
    C = np.array(rows)
    var = 2 * (rho / np.array(weights)) ** 2
    P = _W(n) @ np.linalg.inv(C)
    assert np.allclose(privelet_expected_mse(n, 1.0), (P**2) @ var, rtol=1e-10)
    assert static_total_mse(n, 1.0, "privelet") == pytest.approx(((P**2) @ var).sum(), rel=1e-10)


def test_boost_release_is_least_squares_of_the_noisy_tree():
    """Hay's two passes = lstsq(H, y); the noise is re-drawn with the same seed in the same order."""
    n, eps = 32, 0.8
    m = 5
    a = np.random.default_rng(0).poisson(3, n)
    out = release(a, eps, "boost", rng=42, noise="laplace")
    g = np.random.default_rng(42)
    H = tree_matrix(n).toarray()
    y = H @ a
    off = 0
    for h in range(m + 1):  # levels drawn leaves first, as tree_matrix orders them
        size = n >> h
        y[off : off + size] = y[off : off + size] + g.laplace(0.0, (m + 1) / eps, size=size)
        off += size
    xhat = np.linalg.lstsq(H, y, rcond=None)[0]
    assert np.allclose(out, np.cumsum(xhat), atol=1e-9)


@pytest.mark.parametrize("meth", ["boost", "privelet"])
def test_static_release_is_exact_without_noise(meth):
    a = np.random.default_rng(1).poisson(5, 64)
    assert np.allclose(release(a, 1e12, meth, rng=0, noise="laplace"), np.cumsum(a), atol=1e-6)


def _gls_online(n, k, lam, eps=1.0):
    """Honaker's online estimate by brute force: for each t, GLS of s_t from the nodes inside [1, t]."""
    nodes, lev = [], []
    for j in range(lam.size):
        size = k**j
        for b in range(n // size):
            r = np.zeros(n)
            r[b * size : (b + 1) * size] = 1
            nodes.append(r)
            lev.append(j)
    N = np.array(nodes)
    var = 2 / (eps * lam[np.array(lev)]) ** 2
    end = np.array([np.flatnonzero(r).max() + 1 for r in N])
    out = np.empty(n)
    for t in range(1, n + 1):
        sel = end <= t
        X = N[sel][:, :t]
        Winv = np.diag(1 / var[sel])
        cov = np.linalg.inv(X.T @ Winv @ X)
        w = np.ones(t)
        out[t - 1] = w @ cov @ w
    return out


@pytest.mark.parametrize("n,k,weights", [(13, 2, "uniform"), (20, 3, "uniform"), (17, 2, "random"), (30, 4, "optimized")])
def test_honaker_online_is_the_blue(n, k, weights):
    if weights == "random":
        L = len(np.base_repr(n, k))
        w = np.random.default_rng(n).random(L) + 0.2
        weights = w / w.sum()
    lam = honaker_level_weights(n, k, weights)
    got = expected_mse(n, 1.0, "honaker", branching=k, weights=weights)
    assert np.allclose(got, _gls_online(n, k, lam), rtol=1e-9)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_honaker_offline_equals_boost(m):
    """Honaker's estimator from the whole tree (all 2^m leaves measured) is Boost's least squares."""
    n = 2**m
    lam = honaker_level_weights(n, 2, "uniform")
    assert lam.size == m + 1
    N = tree_matrix(n).toarray()
    var = 2 / lam[0] ** 2
    cov = np.linalg.inv(N.T @ N / var)
    assert np.allclose(np.diag(_W(n) @ cov @ _W(n).T), boost_expected_mse(n, 1.0), rtol=1e-10)
    assert honaker_nodes(n, 2, m + 1) == [n >> j for j in range(m + 1)]


def test_honaker_optimized_beats_uniform_and_is_stationary():
    """The optimised shares give a smaller total than uniform and than small perturbations of themselves."""
    n, k = 500, 4
    lam = honaker_level_weights(n, k, "optimized")
    opt = expected_mse(n, 1.0, "honaker", branching=k, weights="optimized").sum()
    assert opt < expected_mse(n, 1.0, "honaker", branching=k).sum()
    rng = np.random.default_rng(0)
    for _ in range(20):
        w = lam * np.exp(0.02 * rng.standard_normal(lam.size))
        w = w / w.sum() * (1 - 1e-12)
        assert expected_mse(n, 1.0, "honaker", branching=k, weights=w).sum() >= opt * (1 - 1e-9)


@pytest.mark.parametrize(
    "meth,n,opts",
    [("binary", 50, {}), ("boost", 32, {}), ("privelet", 32, {}), ("honaker", 45, {}),
     ("honaker", 45, {"branching": 3, "weights": "optimized"})],
)
def test_exact_mse_matches_simulation(meth, n, opts):
    """Seeded, 3000 releases; per-release and total within 5 standard errors (≈6e-7 each)."""
    reps = 3000
    rng = np.random.default_rng(99)
    exact = expected_mse(n, 1.0, meth, **opts)
    err = np.empty((reps, n))
    for r in range(reps):
        a = rng.poisson(4, n)
        err[r] = (release(a, 1.0, meth, rng=rng, **opts, noise="laplace") - np.cumsum(a)) ** 2
    se = err.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(err.mean(axis=0) - exact) < 5 * se)
    tot = err.sum(axis=1)
    assert abs(tot.mean() - exact.sum()) < 5 * tot.std(ddof=1) / np.sqrt(reps)


@pytest.mark.parametrize("opts", [{}, {"branching": 3}, {"branching": 4, "weights": "optimized"}])
def test_honaker_stream_matches_simulation_and_batch_without_noise(opts):
    """The stream is the same estimator: exact at huge ε; 2000 seeded runs within 5 se (≈6e-7)."""
    n = 30
    a = np.random.default_rng(5).poisson(3, n)
    s = stream(n, 1e12, "honaker", rng=0, **opts, noise="laplace")
    assert np.allclose([s.push(int(x)) for x in a], np.cumsum(a), atol=1e-6)
    rng = np.random.default_rng(17)
    reps = 2000
    tot = np.empty(reps)
    for r in range(reps):
        s = stream(n, 1.0, "honaker", rng=rng, **opts, noise="laplace")
        tot[r] = np.sum((np.array([s.push(int(x)) for x in a]) - np.cumsum(a)) ** 2)
    exact = expected_mse(n, 1.0, "honaker", **opts).sum()
    assert abs(tot.mean() - exact) < 5 * tot.std(ddof=1) / np.sqrt(reps)


def test_static_bad_input():
    with pytest.raises(ValueError, match="power of two"):
        expected_mse(12, 1.0, "boost")
    with pytest.raises(ValueError, match="power of two"):
        release([1, 2, 3], 1.0, "privelet")
    with pytest.raises(ValueError, match="noise"):
        release([1, 2], 1.0, "boost", noise="discrete")
    with pytest.raises(ValueError, match="cannot run online"):
        stream(4, 1.0, "privelet")
    with pytest.raises(ValueError, match="weights"):
        expected_mse(8, 1.0, "honaker", weights=[0.5, 0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="weights"):
        expected_mse(8, 1.0, "honaker", weights="best")
    # (n > 1024 is no longer refused by strategy(): R comes as a LinearOperator, test_baselines_operator.py)
