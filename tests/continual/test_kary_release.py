"""k-ary FDA releases: batch = stream, noise of the scale privacy needs, exact MSE = simulation."""

import numpy as np
import pytest

from dpverify.continual import expected_mse, release, stream
from dpverify.continual.kary import kary_node_span, kary_weights

# float Laplace is requested explicitly here (it warns: the floating-point attack)
pytestmark = pytest.mark.filterwarnings("ignore:noise=.laplace.:UserWarning")


@pytest.mark.parametrize("opts", [{"branching": 3}, {"branching": 4, "objective": "minimax"}, {}])
def test_stream_equals_batch(opts):
    n = 100
    a = np.random.default_rng(1).poisson(3, n)
    batch = release(a, 0.7, "kary-fda", rng=np.random.default_rng(5), **opts, noise="laplace")
    s = stream(n, 0.7, "kary-fda", rng=np.random.default_rng(5), **opts, noise="laplace")
    online = np.array([s.push(int(x)) for x in a])
    assert np.array_equal(batch, online)
    with pytest.raises(ValueError, match="bounded"):
        s.push(1)


def test_discrete_noise_gives_integers_and_stream_matches():
    n = 50
    a = np.arange(n) % 4
    out = release(a, 1.0, "kary-fda", rng=3, noise="discrete", branching=3)
    assert out.dtype.kind == "i"
    s = stream(n, 1.0, "kary-fda", rng=3, noise="discrete", branching=3)
    assert np.array_equal(out, [s.push(int(x)) for x in a])


def test_noise_scale_is_what_privacy_needs():
    """Recover the node noise η from a release: η_t = λ_t (ĉ_t − c_t) must be Lap(1/ε).

    E|η| = 1/ε with sd 1/ε per node; over n = 4000 nodes the test allows 6 standard errors
    (false-alarm rate ≈ 2e-9 under the normal approximation)."""
    n, eps, k = 4000, 0.5, 3
    a = np.random.default_rng(0).poisson(2, n)
    out = release(a, eps, "kary-fda", rng=11, branching=k, noise="laplace")
    t = np.arange(1, n + 1)
    parent = t - kary_node_span(t, k)
    s_hat = np.concatenate([[0.0], out])
    c_hat = s_hat[t] - s_hat[parent]
    s = np.concatenate([[0], np.cumsum(a)])
    c = s[t] - s[parent]
    eta = kary_weights(n, k) * (c_hat - c)
    assert abs(np.abs(eta).mean() - 1 / eps) < 6 * (1 / eps) / np.sqrt(n)
    # a mechanism with half the noise would fail this check
    assert abs(np.abs(eta / 2).mean() - 1 / eps) > 6 * (1 / eps) / np.sqrt(n)


@pytest.mark.parametrize("opts", [{"branching": 3}, {"branching": 5, "objective": "minimax"}])
def test_exact_mse_matches_simulation(opts):
    """Seeded: 3000 releases of n = 40; per-release and total MSE within 5 standard errors
    (false-alarm rate ≈ 6e-7 per comparison, 41 comparisons)."""
    n, reps, eps = 40, 3000, 1.0
    rng = np.random.default_rng(2024)
    exact = expected_mse(n, eps, "kary-fda", **opts)
    err = np.empty((reps, n))
    for r in range(reps):
        a = rng.poisson(4, n)
        err[r] = (release(a, eps, "kary-fda", rng=rng, **opts, noise="laplace") - np.cumsum(a)) ** 2
    se = err.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(err.mean(axis=0) - exact) < 5 * se)
    tot = err.sum(axis=1)
    assert abs(tot.mean() - exact.sum()) < 5 * tot.std(ddof=1) / np.sqrt(reps)


def test_discrete_expected_mse_matches_simulation():
    """Two-sided geometric noise: exact variance 2r/(1−r)², r = e^{−ελ}; 4000 reps, 5 se (≈6e-7)."""
    from dpverify.continual.kary import kary_expected_mse

    n, reps = 30, 4000
    rng = np.random.default_rng(7)
    exact = kary_expected_mse(n, 1.0, branching=3, noise="discrete").sum()
    tot = np.empty(reps)
    for r in range(reps):
        a = rng.poisson(4, n)
        tot[r] = np.sum((release(a, 1.0, "kary-fda", rng=rng, noise="discrete", branching=3) - np.cumsum(a)) ** 2)
    assert abs(tot.mean() - exact) < 5 * tot.std(ddof=1) / np.sqrt(reps)


def test_bad_input_not_mutated():
    a = np.array([1, 2, 3])
    before = a.copy()
    release(a, 1.0, "kary-fda", rng=0, branching=2)
    assert np.array_equal(a, before)
    for bad, exc in [([1, -1], ValueError), ([1.5], ValueError), ([np.nan], ValueError)]:
        with pytest.raises(exc, match="counts"):
            release(bad, 1.0, "kary-fda", rng=0)
    for eps in (0, -1, np.nan, np.inf):
        with pytest.raises(ValueError, match="epsilon"):
            release([1], eps, "kary-fda")
    s = stream(3, 1.0, "kary-fda", rng=0)
    for bad in (-1, 1.5, np.nan):
        with pytest.raises(ValueError, match="a_t"):
            s.push(bad)
    with pytest.raises(TypeError, match="a_t"):
        s.push("1")


@pytest.mark.parametrize("noise", ["laplace", "discrete"])
@pytest.mark.parametrize("meth,opts", [("kary-fda", {"branching": 16}), ("binary", {})])
def test_stream_equals_batch_across_noise_chunks(meth, opts, noise):
    """n larger than the noise chunk (CHUNK = 2^15 nodes): stream and batch still draw the same noise."""
    from dpverify.continual.streams import CHUNK

    n = CHUNK + 7000
    assert n > CHUNK
    a = np.random.default_rng(4).poisson(2, n)
    batch = release(a, 1.0, meth, rng=8, noise=noise, **opts)
    s = stream(n, 1.0, meth, rng=8, noise=noise, **opts)
    online = np.array([s.push(int(x)) for x in a])
    if noise == "discrete":
        assert batch.dtype.kind == "i" and np.array_equal(batch, online)
    else:
        assert np.allclose(batch, online, rtol=0, atol=1e-8)
