"""The snapping Laplace mechanism stays ε-DP on vector queries (ℓ1 sensitivity Δ over m entries).

Regression: the integer sensitivity was K = ⌊Δ/g⌋ + 1, right for scalars but not for m ≥ 3
entries — three entries changed by (102.25, 102.25, 819.5)·g (ℓ1 change exactly Δ = 1 at
g = 2⁻¹⁰) round to a change of 1026 grid steps, so the privacy loss of the two-sided geometric
noise of scale K/ε was 1026/1025·ε > ε.  The exact loss of the released integers is
ε·‖k − k'‖₁/K (product of discrete Laplace laws), computed here without sampling.
"""

from __future__ import annotations

import numpy as np

from dpverify.primitives.additive import _grid_sensitivity, safe_laplace_mechanism

G = 2.0**-10


def _loss_over_eps(v, vp, delta, g=G):
    dk = np.abs(np.rint(np.asarray(vp) / g) - np.rint(np.asarray(v) / g)).sum()
    return dk / _grid_sensitivity(delta, g, np.asarray(v).size)


def test_three_entry_counterexample_is_covered():
    v = G * np.array([0.375, 0.375, 0.25])
    vp = v + G * np.array([102.25, 102.25, 819.5])
    assert np.abs(vp - v).sum() == 1.0
    assert np.abs(np.rint(vp / G) - np.rint(v / G)).sum() == 1026  # > ⌊1/g⌋ + 1 = 1025
    assert _loss_over_eps(v, vp, 1.0) <= 1.0


def test_random_worst_case_search_stays_within_epsilon():
    rng = np.random.default_rng(11)
    worst = 0.0
    for m in (1, 2, 3, 5, 8):
        for _ in range(3000):
            share = rng.dirichlet(np.ones(m))
            delta = float(rng.uniform(0.1, 3.0))
            v = G * (rng.integers(-50, 50, m) + rng.uniform(-0.5, 0.5, m))
            vp = v + rng.choice([-1.0, 1.0], m) * delta * share
            worst = max(worst, _loss_over_eps(v, vp, delta))
    assert worst <= 1.0
    assert worst > 0.99  # the search reaches the bound: it is tight, not just safe


def test_scalar_behaviour_unchanged_and_on_grid():
    assert _grid_sensitivity(1.0, G, 1) == 1025
    x = safe_laplace_mechanism([10.3, 2.0, 7.7], 1.0, 0.5, rng=0)
    assert x.shape == (3,) and bool((x / G == np.rint(x / G)).all())
