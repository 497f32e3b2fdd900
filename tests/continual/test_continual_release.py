"""Batch and online release: exactness of the post-processing, noise scale, streams, bad input."""

import math

import numpy as np
import pytest

from dpverify.continual import expected_mse, fenwick_strategy, release, stream
from dpverify.continual.fda import fda_weights
from dpverify.continual.fenwick import descent_sums, node_sums

METHODS = ["naive", "fenwick", "fda"]

# float Laplace is requested explicitly here (it warns: the floating-point attack)
pytestmark = pytest.mark.filterwarnings("ignore:noise=.laplace.:UserWarning")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("noise", ["laplace", "discrete"])
def test_release_shape_type_and_reproducible(method, noise):
    a = np.array([3, 0, 2, 5, 1, 1, 0])
    keep = a.copy()
    r1 = release(a, 1.0, method, rng=42, noise=noise)
    r2 = release(a, 1.0, method, rng=np.random.default_rng(42), noise=noise)
    assert r1.shape == (7,) and np.array_equal(r1, r2)
    assert np.array_equal(a, keep)
    if noise == "discrete":
        assert r1.dtype.kind == "i"
    assert not np.array_equal(r1, release(a, 1.0, method, rng=43, noise=noise))


@pytest.mark.parametrize("method", METHODS)
def test_huge_epsilon_gives_the_truth(method):
    a = np.random.default_rng(0).integers(0, 10, size=200)
    out = release(a, 1e12, method, rng=0, noise="discrete")
    assert np.array_equal(out, np.cumsum(a))
    out = release(a, 1e12, method, rng=0)
    assert np.allclose(out, np.cumsum(a), atol=1e-6)


def test_discrete_node_noise_has_the_privacy_scale():
    """Recover the node noise Z = M W⁻¹ (s - s_true) of an FDA release and compare its per-node
    variance with 2r/(1-r)², r = exp(-ελ_i) (levels pooled).  Seeded; |z| > 6 has probability < 1e-8."""
    n, eps, reps = 63, 0.7, 3000
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, size=n)
    lam = fda_weights(n)
    M = fenwick_strategy(n)
    Z = np.empty((reps, n))
    for k in range(reps):
        d = release(a, eps, "fda", rng=rng, noise="discrete") - np.cumsum(a)
        Z[k] = M @ np.diff(d, prepend=0)  # node noise = M (W⁻¹ d)
    r = np.exp(-eps * lam)
    var = 2 * r / (1 - r) ** 2
    z = (np.mean(Z**2, axis=0) - var) / (np.std(Z**2, axis=0, ddof=1) / math.sqrt(reps))
    assert np.max(np.abs(z)) < 6
    # and it is not the scale of the unweighted mechanism (the test can fail)
    r_bad = np.exp(-eps)
    z_bad = (np.mean(Z**2, axis=0) - 2 * r_bad / (1 - r_bad) ** 2) / (np.std(Z**2, axis=0, ddof=1) / math.sqrt(reps))
    assert np.max(np.abs(z_bad)) > 6


@pytest.mark.parametrize("method", ["fenwick", "fda"])
def test_continuous_weighted_node_noise_is_laplace_one_over_epsilon(method):
    """The ε-DP vector is ΣMa + Lap(1/ε): recover η = Σ M W⁻¹ (s - s_true) and check that every
    coordinate has variance 2/ε² (seeded; |z| > 6 has probability < 1e-8 per node), and that the
    unweighted scale would be rejected."""
    n, eps, reps = 31, 1.5, 3000
    rng = np.random.default_rng(8)
    a = rng.integers(0, 4, size=n)
    lam = fda_weights(n) if method == "fda" else np.full(n, (1 - 1e-12) / n.bit_length())
    M = fenwick_strategy(n)
    E = np.empty((reps, n))
    for k in range(reps):
        d = release(a, eps, method, rng=rng, noise="laplace") - np.cumsum(a)
        E[k] = lam * (M @ np.diff(d, prepend=0.0))
    z = (np.mean(E**2, axis=0) - 2 / eps**2) / (np.std(E**2, axis=0, ddof=1) / math.sqrt(reps))
    assert np.max(np.abs(z)) < 6
    z_bad = (np.mean((E / lam) ** 2, axis=0) - 2 / eps**2) / (np.std((E / lam) ** 2, axis=0, ddof=1) / math.sqrt(reps))
    assert np.max(np.abs(z_bad)) > 6


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("noise", ["laplace", "discrete"])
def test_simulated_mse_matches_exact(method, noise):
    """Seeded; total squared error over 37 releases, |z| > 5 has probability < 1e-6."""
    rng = np.random.default_rng(99)
    a = rng.integers(0, 9, size=37)
    sq = np.array([np.sum((release(a, 0.9, method, rng=rng, noise=noise) - np.cumsum(a)) ** 2) for _ in range(1500)])
    exp = expected_mse(37, 0.9, method, noise=noise).sum()
    assert abs(sq.mean() - exp) < 5 * sq.std(ddof=1) / math.sqrt(sq.size)


@pytest.mark.parametrize("method", METHODS)
def test_stream_equals_batch_laplace(method):
    a = np.random.default_rng(3).integers(0, 7, size=5000)
    s = stream(5000, 0.8, method, rng=11, noise="laplace")
    online = np.array([s.push(int(x)) for x in a])
    batch = release(a, 0.8, method, rng=11, noise="laplace")
    assert np.allclose(online, batch, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_stream_discrete_integers_and_bound(method):
    s = stream(5, 1.0, method, rng=1, noise="discrete")
    outs = [s.push(x) for x in (1, 2, 0, 3.0, np.int64(4))]
    assert all(isinstance(v, (int, np.integer)) for v in outs)
    assert s.remaining == 0
    with pytest.raises(ValueError, match="n=5"):
        s.push(1)


@pytest.mark.parametrize("bad", [-1, 1.5, float("nan"), float("inf"), "3", None, True])
def test_stream_bad_count(bad):
    s = stream(3, 1.0, "fda", rng=0)
    with pytest.raises((ValueError, TypeError), match="a_t"):
        s.push(bad)
    assert s.remaining == 3  # nothing consumed
    s.push(2)
    assert s.remaining == 2


def test_stream_per_push_is_constant_state():
    s = stream(2**20, 1.0, "fda", rng=0)
    for _ in range(1000):
        s.push(1)
    assert len(s._path) <= 21  # (0, ...) and at most one entry per bit of t


@pytest.mark.parametrize(
    "counts, match",
    [
        ([1, -1, 2], "counts"),
        ([1, 0.5, 2], "counts"),
        ([1, float("nan")], "counts"),
        ([[1, 2], [3, 4]], "counts"),
        ([], "counts"),
        ("123", "counts"),
    ],
)
def test_release_bad_counts(counts, match):
    with pytest.raises((ValueError, TypeError), match=match):
        release(counts, 1.0, "fda", rng=0)


@pytest.mark.parametrize("eps", [0, -1.0, float("nan"), float("inf"), "1", None])
def test_bad_epsilon(eps):
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        release([1, 2], eps, "fda", rng=0)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        expected_mse(3, eps, "fda")
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        stream(3, eps, "fda")


@pytest.mark.parametrize("n", [0, -2, 2.5, True])
def test_bad_n(n):
    with pytest.raises((ValueError, TypeError), match="n"):
        expected_mse(n, 1.0, "fda")
    with pytest.raises((ValueError, TypeError), match="n"):
        stream(n, 1.0, "fda")


def test_bad_method_noise_rng():
    with pytest.raises(ValueError, match="method"):
        release([1], 1.0, "nope")
    with pytest.raises(ValueError, match="noise"):
        release([1], 1.0, "fda", noise="gauss")
    with pytest.raises((ValueError, TypeError), match="rng"):
        release([1], 1.0, "fda", rng=-1)
    with pytest.raises((ValueError, TypeError), match="noise"):
        expected_mse(3, 1.0, "fda", noise="gauss")


def test_large_release_runs():
    a = np.ones(2**20 - 1, dtype=np.int64)
    out = release(a, 1.0, "fda", rng=0, noise="discrete")
    assert out.shape == a.shape and out.dtype.kind == "i"
    assert np.array_equal(descent_sums(node_sums(a)), np.cumsum(a))


# ---------------------------------------------------------------- issue 10: defaults, extremes, sizes

def test_release_defaults_to_the_exact_discrete_sampler():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default must not warn
        out = release([3, 1, 4], 1.0, "fda", rng=0)
        s = stream(3, 1.0, "fda", rng=0)
        pushed = [s.push(x) for x in (3, 1, 4)]
    assert out.dtype.kind == "i" and all(type(v) is int for v in pushed)
    assert out.tolist() == pushed


@pytest.mark.parametrize("call", ["release", "stream"])
def test_float_laplace_on_request_warns_naming_the_attack(call):
    with pytest.warns(UserWarning, match="floating-point attack"):
        if call == "release":
            out = release([3, 1, 4], 1.0, "fda", rng=0, noise="laplace")
            assert out.dtype.kind == "f"
        else:
            stream(3, 1.0, "fda", rng=0, noise="laplace")


def _all_methods():
    import dpverify.continual  # noqa: F401  (registers)
    from dpverify.continual.methods import method_names

    return method_names()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("eps", [1e308, 2.0**70, 5e-324, 1e-200])
@pytest.mark.parametrize("noise", ["discrete", "laplace"])
def test_extreme_epsilon_is_an_error_naming_epsilon_or_a_finite_result(eps, noise):
    """Every method, every entry point: a ValueError naming epsilon (or the noise the method needs),
    or a finite result; never NaN/inf, OverflowError or ZeroDivisionError."""
    a = [3, 0, 2, 5, 1, 1, 0, 4]
    for m in _all_methods():
        for what in ("release", "stream", "mse"):
            try:
                if what == "release":
                    r = np.asarray(release(a, eps, m, rng=0, noise=noise), dtype=float)
                elif what == "stream":
                    s = stream(8, eps, m, rng=0, noise=noise)
                    r = np.array([s.push(x) for x in a], dtype=float)
                else:
                    r = expected_mse(8, eps, m, **({"noise": noise} if noise == "discrete" else {}))
            except (ValueError, TypeError) as exc:
                assert any(w in str(exc) for w in ("epsilon", "noise", "online", "power of two")), (m, what, exc)
                continue
            assert np.isfinite(r).all(), (m, what, r)


def test_sizes_beyond_the_memory_budget_are_refused(monkeypatch):
    for n in (10**10, 2**70):
        with pytest.raises(ValueError, match="budget|2\\^62"):
            expected_mse(n, 1.0, "fda")
    with pytest.raises(ValueError, match="n must be < 2"):
        stream(2**70, 1.0, "fda")
    s = stream(10**15, 1.0, "fda", rng=0)  # O(log n) state: a huge horizon is fine
    assert isinstance(s.push(1), int) and len(s._path) <= 2
    monkeypatch.setenv("DPVERIFY_MEMORY_BUDGET", str(10**6))
    with pytest.raises(ValueError, match="kary-fda stream"):
        stream(10**6, 1.0, "kary-fda")
    with pytest.raises(ValueError, match="budget"):
        release(np.ones(10**5, dtype=int), 1.0, "fda")


def test_push_many_matches_push_and_refuses_overflow():
    a = np.random.default_rng(1).integers(0, 50, size=10000)
    for m in ("naive", "fenwick", "fda"):
        s1, s2 = stream(10000, 0.3, m, rng=4), stream(10000, 0.3, m, rng=4)
        one = [s1.push(int(x)) for x in a]
        many = np.concatenate([s2.push_many(a[lo:lo + 997]) for lo in range(0, 10000, 997)])
        assert many.tolist() == one, m
        with pytest.raises(ValueError, match="bounded"):
            s2.push_many([1])
        s3 = stream(4, 1.0, m, rng=0)
        with pytest.raises(ValueError, match="2\\^62"):
            s3.push_many([2**61, 2**61])


def test_forest_stream_validates_its_inputs():
    from dpverify.continual.forest import ForestStream, block_of, forest_descent_sums
    from dpverify.continual.checks import check_noise_scale

    ones = lambda t: np.ones(len(t))  # noqa: E731
    for blocks in ([(0, 2), (3, 1)], [(0, 0), (0, 3)], [(1, 3)], []):
        with pytest.raises(ValueError, match="blocks"):
            ForestStream(3, 1.0, blocks, ones)
    with pytest.raises(TypeError, match="blocks"):
        ForestStream(3, 1.0, "abc", ones)
    with pytest.raises(TypeError, match="weights_at"):
        ForestStream(3, 1.0, [(0, 3)], None)
    for bad in (lambda t: -np.ones(len(t)), lambda t: np.full(len(t), np.nan), lambda t: np.ones(1)):
        with pytest.raises(ValueError, match="weights_at"):
            ForestStream(3, 1.0, [(0, 3)], bad).push(1)
    with pytest.raises(ValueError, match="t must be in"):
        block_of(np.array([0, 5]), [(0, 3)])
    with pytest.raises(ValueError, match="blocks must cover"):
        forest_descent_sums(np.ones(4), [(0, 3)])
    with pytest.raises(ValueError, match="epsilon"):
        check_noise_scale(1e-300, 1e-10, "discrete")
