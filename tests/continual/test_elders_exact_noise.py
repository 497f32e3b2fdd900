"""elders' discrete node noise is the library's exact sampler; its scale guard; its push_many (issue 30).

Seeded statistical checks: chi-square tests reject at p < 1e-6 (false-alarm rate 1e-6 per test),
proportions use 6.1 standard errors (rate < 1.1e-9).  The parity check has a control: the former
transform ⌊b·E₁⌋ − ⌊b·E₂⌋ of the same node exponentials fails it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpverify.continual.elders import elders_noise_sums, elders_release
from dpverify.continual.elders_stream import EldersStream
from dpverify.continual.node_noise import NodeNoise

Z = 6.1


def test_node_noise_parity_fair_at_2_53_and_the_old_transform_is_not():
    nn = NodeNoise.from_rng(np.random.default_rng(0), scale=2.0**53, noise="discrete")
    x = np.concatenate([nn.nodes(j, 1, 40_000) for j in range(3)])
    assert abs(np.mean(x % 2) - 0.5) < Z * math.sqrt(0.25 / x.size)
    old = NodeNoise(key=nn.key, scale=2.0**53, noise="laplace")
    e1, e2 = old.exponentials(0, 1, 120_000)
    y = np.floor(2.0**53 * e1) - np.floor(2.0**53 * e2)
    assert abs(np.mean(y % 2) - 0.5) > Z * math.sqrt(0.25 / y.size)


def test_node_noise_law_chi_square():
    b = 2.5
    x = NodeNoise.from_rng(1, scale=b, noise="discrete").nodes(2, 1, 100_000)
    r = math.exp(-1 / b)
    ks = np.arange(-10, 11)
    p = (1 - r) / (1 + r) * r ** np.abs(ks).astype(float)
    obs = np.append([np.sum(x == k) for k in ks], np.sum(np.abs(x) > 10))
    exp = np.append(p, 1 - p.sum()) * x.size
    assert stats.chisquare(obs, exp).pvalue > 1e-6


def test_node_noise_is_addressed_by_node():
    nn = NodeNoise.from_rng(2, scale=700.0, noise="discrete")
    whole = nn.nodes(1, 5, 300)
    assert (whole == np.concatenate([nn.nodes(1, 5 + i, 1) for i in range(300)])).all()
    f = np.linspace(0, 2, 300)
    part = nn.nodes(1, 5, 300, f)
    assert (part[f == 0] == 0).all()
    assert (part == np.concatenate([nn.nodes(1, 5 + i, 1, f[i : i + 1]) for i in range(300)])).all()


def test_scale_guard_as_fda():
    with pytest.raises(ValueError, match="epsilon"):
        elders_release([1, 2, 3], 1e-16, rng=0, noise="discrete")
    with pytest.raises(ValueError, match="epsilon"):
        EldersStream(10, 1e-16, rng=0, noise="discrete")
    elders_release([1, 2, 3], 1e-6, rng=0, noise="discrete")  # scale L·1e6 < 2^40: accepted
    from dpverify.continual.fda import fda_release

    with pytest.raises(ValueError, match="epsilon"):
        fda_release([1, 2, 3], 1e-16, rng=0, noise="discrete")


@pytest.mark.parametrize("noise,branching", [("discrete", 2), ("discrete", 5), ("laplace", 3)])
def test_push_many_equals_pushing_one_by_one(noise, branching):
    n = 700
    a = np.random.default_rng(1).integers(0, 4, n)
    one = EldersStream(n, 1.0, rng=7, noise=noise, branching=branching)
    o1 = np.array([one.push(int(v)) for v in a])
    many = EldersStream(n, 1.0, rng=7, noise=noise, branching=branching)
    out, i, g = [], 0, np.random.default_rng(3)
    while i < n:
        m = int(g.integers(0, 50))
        if g.random() < 0.3:
            out.append(np.array([many.push(int(a[i]))]))
            i += 1
        else:
            out.append(many.push_many(a[i : i + m]))
            i += min(m, n - i)
    o2 = np.concatenate(out)
    batch = elders_release(a, 1.0, rng=7, noise=noise, branching=branching)
    if noise == "discrete":
        assert o2.dtype == np.int64 and (o1 == o2).all() and (o1 == batch).all()
    else:
        assert np.allclose(o1, o2, rtol=0, atol=1e-9) and np.allclose(o1, batch, rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="counts"):
        many.push_many([1])


def test_noise_sums_on_a_range_match_the_full_run():
    nn = NodeNoise.from_rng(5, scale=3.0, noise="discrete")
    full = elders_noise_sums(1000, 3, nn)
    assert (elders_noise_sums(1000, 3, nn, None, 377, 742) == full[376:742]).all()
