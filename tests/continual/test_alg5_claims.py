"""Alg. 5 as printed: input validation, agreement with the batch release, and its instrumented cost."""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.continual.alg5 import alg5_release, alpha_table, coef_counted
from dpverify.continual.fda import coef, fda_weights


def test_coef_counted_is_alg4():
    for m in range(1, 8):
        al = alpha_table(m)
        for k in range(1, 2**m):
            c = [0]
            assert coef_counted(k, m, al, c) == pytest.approx(coef(k, m), rel=1e-12)
            assert c[0] <= m - 1


@pytest.mark.parametrize("m", [1, 3, 6])
def test_releases_are_the_running_counts_without_noise(m):
    a = np.random.default_rng(m).integers(0, 9, 2**m - 1)
    r = alg5_release(a, epsilon=1e12, m=m, noise="discrete", rng=0)
    assert np.array_equal(r.releases, np.cumsum(a))
    assert r.slots == m and r.max_live_slots == max(bin(t).count("1") for t in range(1, 2**m))


def test_cost_is_quadratic_in_m():
    its = [alg5_release(np.zeros(2**m - 1, int), epsilon=1.0, m=m, rng=0).per_release_iterations.max() for m in (4, 8)]
    # worst release t = 2^m − 1: line 5 costs m − 1 iterations, line 10 for the path node at level q costs
    # m − 1 − q (div halves down to lowbit): m − 1 + m(m − 1)/2 = m(m + 1)/2 − 1, i.e. Θ(log² N)
    assert its == [4 * 5 // 2 - 1, 8 * 9 // 2 - 1]
    # the same count by walking the worst release directly
    m = 8
    al = alpha_table(m)
    t = 2**m - 1
    c = [0]
    coef_counted(t, m, al, c)
    k = t
    while k:
        coef_counted(k, m, al, c)
        k -= k & -k
    assert c[0] == its[1]


def test_weights_are_the_optimum():
    m = 5
    al = alpha_table(m)
    w = np.array([coef_counted(t, m, al, [0]) for t in range(1, 2**m)])
    assert np.allclose(w, fda_weights(2**m - 1), rtol=1e-9)


@pytest.mark.parametrize("bad,err", [
    (dict(counts=[1, 2], m=2), ValueError),
    (dict(counts=[1, 2, 3], m=2, noise="gauss"), ValueError),
    (dict(counts=[1, -2, 3], m=2), ValueError),
    (dict(counts=[1, 2, 3], m=0), ValueError),
    (dict(counts=[1, 2, 3], m=2, epsilon=0.0), ValueError),
])
def test_validation(bad, err):
    kw = {"epsilon": 1.0, **bad}
    with pytest.raises(err):
        alg5_release(**kw)


def test_coef_counted_validation():
    with pytest.raises(ValueError, match="k must be"):
        coef_counted(8, 3, alpha_table(3), [0])
    with pytest.raises(ValueError, match="alpha"):
        coef_counted(1, 3, alpha_table(3)[:2], [0])
