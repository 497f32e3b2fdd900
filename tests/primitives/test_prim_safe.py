"""The safe (grid) Laplace release: validation, exact grid outputs, law of the integer part.

Statistical test seeded; false alarm 1e-6 (p-value threshold) stated below.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpverify.primitives import safe_laplace_mechanism


def test_validation():
    with pytest.raises(ValueError, match="grid"):
        safe_laplace_mechanism(1.0, 1.0, 1.0, grid=0.3)
    with pytest.raises(ValueError, match="grid"):
        safe_laplace_mechanism(1.0, 1.0, 1.0, grid=-0.25)
    with pytest.raises(ValueError, match="epsilon"):
        safe_laplace_mechanism(1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="value"):
        safe_laplace_mechanism([np.nan], 1.0, 1.0)
    with pytest.raises(ValueError, match="too large"):
        safe_laplace_mechanism(2.0**60, 1.0, 1.0, grid=1.0)


def test_outputs_on_grid_and_input_not_mutated():
    v = np.array([0.3, 7.1])
    x = safe_laplace_mechanism(v, 2.0, 0.5, rng=0, grid=2.0**-4)
    assert v.tolist() == [0.3, 7.1]
    assert np.all(x * 16 == np.rint(x * 16))


def test_integer_noise_law():
    """(x/g − rint(v/g)) is two-sided geometric with r = exp(−ε/K); chi-square, false alarm 1e-6."""
    g, d, eps = 2.0**-2, 1.0, 0.8
    K = math.floor(d / g) + 1
    x = safe_laplace_mechanism(1.3, d, eps, rng=5, size=200_000, grid=g)
    k = np.rint(x / g).astype(int) - int(np.rint(1.3 / g))
    r = math.exp(-eps / K)
    ks = np.arange(-10, 11)
    pk = (1 - r) / (1 + r) * r ** np.abs(ks)
    tail = (1 - pk.sum()) / 2
    obs = np.concatenate([[np.sum(k < -10)], [np.sum(k == j) for j in ks], [np.sum(k > 10)]])
    exp = np.concatenate([[tail], pk, [tail]]) * k.size
    assert stats.chisquare(obs, exp).pvalue > 1e-6
