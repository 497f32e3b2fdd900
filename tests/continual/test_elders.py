"""The balanced-digit subtraction tree ("elders"): digits, exact MSE, strategy, batch = stream, noise scale."""

import numpy as np
import pytest

from dpverify.continual import expected_mse, method_names, release, strategy, stream
from dpverify.continual.elders import (
    elders_best_branching,
    elders_digit_range,
    elders_digit_sum_total,
    elders_digits,
    elders_levels,
)
from dpverify.continual.exact import max_column_norm_exact
from dpverify.continual.node_noise import NodeNoise


def test_registered_online():
    assert "elders" in method_names(online=True)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 20])
def test_digits_reconstruct_t_and_stay_in_the_digit_set(k):
    t = np.arange(1, 3000)
    d = elders_digits(t, k)
    lo, hi = elders_digit_range(k)
    assert d.min() >= lo and d.max() <= hi
    assert np.array_equal((d * k ** np.arange(d.shape[0])[:, None]).sum(axis=0), t)
    assert elders_digit_sum_total(2999, k) == int(np.abs(d).sum())
    L = elders_levels(2999, k)
    with pytest.raises(ValueError, match="too few"):
        elders_digits(t, k, L - 1)


@pytest.mark.parametrize("n,k", [(1, 3), (7, 3), (26, 3), (60, 4), (100, 5), (400, 9), (255, 2)])
def test_strategy_factorizes_and_mse_is_its_row_norms(n, k):
    R, A = strategy(n, "elders", branching=k)
    assert np.allclose((R @ A).toarray(), np.tril(np.ones((n, n))), atol=1e-9)
    assert max_column_norm_exact(A, 1) <= 1  # exactly, as rationals
    assert float(abs(A).sum(axis=0).max()) <= 1.0  # and as floats
    dense = 2.0 * (R.toarray() ** 2).sum(axis=1)  # (2/ε²) diag(R Rᵀ), ε = 1
    assert np.allclose(dense, expected_mse(n, 1.0, "elders", branching=k))


def test_issue_totals_are_reproduced_exactly():
    # the issue's table: best k, uniform Lap(L/ε), ε = 1
    assert elders_best_branching(4095) == 20
    assert expected_mse(4095, 1.0, "elders").sum() == 1_108_170
    assert 2 * elders_levels(2**20, 19) ** 2 * elders_digit_sum_total(2**20, 19) == 1_203_171_800


@pytest.mark.parametrize("noise", ["laplace", "discrete"])
@pytest.mark.parametrize("k", [2, 3, 6])
def test_stream_equals_batch(noise, k):
    n = 200
    a = np.random.default_rng(1).poisson(3, n)
    batch = release(a, 0.8, "elders", rng=7, noise=noise, branching=k)
    s = stream(n, 0.8, "elders", rng=7, noise=noise, branching=k)
    online = np.array([s.push(int(x)) for x in a])
    if noise == "discrete":
        assert batch.dtype.kind == "i" and np.array_equal(batch, online)
    else:
        assert np.allclose(batch, online, rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="bounded"):
        s.push(1)


def test_stream_state_is_logarithmic():
    s = stream(2**40, 1.0, "elders", rng=0)
    for _ in range(1000):
        s.push(1)
    assert len(s._d) == s.levels <= 16
    assert all(t is None or len(t) == s.k for t in s._tab)


def test_exact_mse_matches_simulation():
    """Seeded: 4000 releases of n = 30 (k = 3); total MSE within 5 standard errors (false alarm ≈ 6e-7)."""
    n, reps, eps = 30, 4000, 1.0
    a = np.arange(n) % 3
    exact = expected_mse(n, eps, "elders", branching=3)
    err = np.array([release(a, eps, "elders", rng=r, branching=3) - np.cumsum(a) for r in range(reps)])
    tot = (err**2).sum(axis=1)
    assert abs(tot.mean() - exact.sum()) < 5 * tot.std() / np.sqrt(reps)
    derr = np.array([release(a, eps, "elders", rng=r, branching=3, noise="discrete") - np.cumsum(a) for r in range(reps)])
    dtot = (derr**2).sum(axis=1)
    dex = expected_mse(n, eps, "elders", branching=3, noise="discrete").sum()
    assert abs(dtot.mean() - dex) < 5 * dtot.std() / np.sqrt(reps)
    assert dex < exact.sum()  # the discrete law has a smaller variance than Laplace of the same scale


def test_node_noise_has_the_scale_privacy_needs():
    """Node noise Lap(b): E|z| = b, sd b; 20000 nodes, 6 standard errors (false alarm ≈ 2e-9)."""
    b, m = 3.0, 20000
    z = NodeNoise.from_rng(4, scale=b).nodes(2, 1, m)
    assert abs(np.abs(z).mean() - b) < 6 * b / np.sqrt(m)
    assert abs(np.abs(z / 2).mean() - b) > 6 * b / np.sqrt(m)  # half the noise would fail
    k = NodeNoise.from_rng(4, scale=b, noise="discrete").nodes(0, 1, m)
    r = np.exp(-1 / b)
    p0 = (1 - r) / (1 + r)
    assert abs(np.mean(k == 0) - p0) < 6 * np.sqrt(p0 * (1 - p0) / m)


def test_optimal_weights_beat_uniform_and_are_certified():
    from dpverify.continual.elders_weights import elders_node_factors

    n, k = 60, 5
    uni = expected_mse(n, 1.0, "elders", branching=k)
    tot = expected_mse(n, 1.0, "elders", branching=k, weights="total")
    mm = expected_mse(n, 1.0, "elders", branching=k, weights="minimax")
    assert tot.sum() < uni.sum() and mm.max() < uni.max()
    for obj in ("total", "minimax"):
        _, factors, res = elders_node_factors(n, k, obj)
        assert res.certified
        # per count: Σ over its nodes of 1/f <= 1 (privacy of the per-node scales)
        R, A = strategy(n, "elders", branching=k)
        f = np.concatenate([x[1:] for x in factors])
        inv = np.where(f > 0, 1 / np.where(f > 0, f, 1), 0)
        assert ((A != 0).T.astype(float) @ inv).max() <= 1 + 1e-12


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: expected_mse(10, 1.0, "elders", branching=1), "branching"),
        (lambda: expected_mse(10, 1.0, "elders", branching=65), "branching"),
        (lambda: expected_mse(10, 1.0, "elders", branching=2.5), "branching"),
        (lambda: expected_mse(10, 1.0, "elders", weights="best"), "weights"),
        (lambda: expected_mse(2**16 + 1, 1.0, "elders", weights="minimax"), "n must be"),
        (lambda: expected_mse(10, float("nan"), "elders"), "epsilon"),
        (lambda: release([1, -1], 1.0, "elders"), "counts"),
        (lambda: release([1, 2], 1.0, "elders", noise="gauss"), "noise"),
        (lambda: stream(3, 1.0, "elders").push(-1), "a_t"),
        (lambda: strategy(2**26, "elders"), "too large"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
