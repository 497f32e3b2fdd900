"""push_many of the k-ary and binary streams (issue 30): the releases of one push per count, vectorised;
the binary stream releases integers under discrete noise."""

import numpy as np
import pytest

from dpverify.continual import binary, kary, release, stream, streams

pytestmark = pytest.mark.filterwarnings("ignore:noise=.laplace.:UserWarning")

CASES = [("kary-fda", {"branching": 2}), ("kary-fda", {"branching": 3}), ("kary-fda", {"branching": 16}),
         ("binary", {}), ("binary", {"levels": 20})]


def _chunked(s, a, seed):
    """Push ``a`` in random chunks (some empty, some one push per count)."""
    rng, out, i = np.random.default_rng(seed), [], 0
    while i < a.size:
        m = int(rng.integers(0, 900))
        if rng.random() < 0.15:
            out += [s.push(int(x)) for x in a[i : i + m]]
        else:
            out += s.push_many(a[i : i + m]).tolist()
        i += m
    return np.array(out)


@pytest.mark.parametrize("noise", ["laplace", "discrete"])
@pytest.mark.parametrize("method, opts", CASES)
def test_push_many_gives_the_releases_of_one_push_per_count(method, opts, noise, monkeypatch):
    """Same seed: the same integers (discrete) or the same floats bit for bit (Laplace), across the
    aligned noise runs and the pieces push_many splits a chunk into (both made small here)."""
    module = kary if method == "kary-fda" else binary
    monkeypatch.setattr(streams, "PIECE", 301)  # the pieces push_many splits a chunk into
    monkeypatch.setattr(module, "CHUNK", 1000)  # the batch release and the stream read the same name
    n = 9000
    a = np.random.default_rng(1).integers(0, 6, size=n)
    one = stream(n, 0.7, method, rng=3, noise=noise, **opts)
    expected = np.array([one.push(int(x)) for x in a])
    got = _chunked(stream(n, 0.7, method, rng=3, noise=noise, **opts), a, seed=len(opts) + 7)
    assert np.array_equal(got, expected)  # exact equality, floats included
    assert np.array_equal(got, release(a, 0.7, method, rng=3, noise=noise, **opts))
    whole = stream(n, 0.7, method, rng=3, noise=noise, **opts).push_many(a)
    assert whole.dtype == (np.int64 if noise == "discrete" else np.float64)
    assert np.array_equal(whole, expected)


@pytest.mark.parametrize("method, opts", CASES[1:4])
def test_push_many_checks_its_input_and_keeps_the_stream_on_refusal(method, opts):
    s = stream(6, 1.0, method, rng=0, noise="discrete", **opts)
    t = stream(6, 1.0, method, rng=0, noise="discrete", **opts)
    s.push_many([1, 2])
    for bad, exc in [([1, -1], ValueError), ([0.5], ValueError), (["1"], TypeError), ([1] * 5, ValueError),
                     ([2**61, 2**61], ValueError)]:
        with pytest.raises(exc, match="counts"):
            s.push_many(bad)
        assert s.t == 2
    a = np.array([3, 0, 1, 4])
    assert s.push_many(a).tolist() == [t.push(x) for x in (1, 2, 3, 0, 1, 4)][2:]
    assert a.tolist() == [3, 0, 1, 4]  # input not mutated
    with pytest.raises(ValueError, match="cannot push 1 more"):
        s.push_many([1])


@pytest.mark.parametrize("levels", [None, 7])
def test_binary_stream_releases_exact_integers_under_discrete_noise(levels):
    """Integer counts + integer noise are integers: push returns an int, exact beyond 2^53 (a float
    loses the low bits there), equal to the batch release; Laplace noise gives floats."""
    a = np.array([2**55 + 1, 3, 2**54 + 7, 1, 0])
    s = binary.BinaryMechanismStream(a.size, 1.0, rng=5, noise="discrete", levels=levels)
    out = [s.push(int(x)) for x in a]
    assert all(type(v) is int for v in out)
    assert out == binary.binary_release(a, 1.0, rng=5, noise="discrete", levels=levels).tolist()
    f = binary.BinaryMechanismStream(2, 1.0, rng=5, noise="laplace", levels=levels)
    assert type(f.push(1)) is float


@pytest.mark.parametrize("scale", [2.5, 1 / (0.1 * (2 / 7)), 700.0, float(2**45 + 12345) / 3])
def test_equal_scales_take_the_one_scale_path_with_the_per_draw_draws(scale):
    """The sampler sends an array of equal scales (a binary or Fenwick release) to its one-scale path:
    draw for draw what the per-draw path gives on the same words (each draw reading its own stream,
    so an extra entry of another scale changes nothing else), at unit and coarse-grid scales."""
    from dpverify.primitives.sampling import discrete_laplace_words

    n = 20_000
    w = np.random.default_rng(9).integers(0, 2**64, size=(n + 1, 4), dtype=np.uint64)
    extra = lambda i: np.random.default_rng([9, i]).bit_generator.random_raw  # noqa: E731
    same = discrete_laplace_words(np.full(n, scale), w[:n], extra)
    mixed = discrete_laplace_words(np.append(np.full(n, scale), 3.0), w, extra)  # not all equal: per draw
    assert np.array_equal(same, mixed[:n])
    assert not np.array_equal(same, discrete_laplace_words(np.full(n, scale * 1.5), w[:n], extra))  # can fail
