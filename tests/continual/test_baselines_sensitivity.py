"""Every strategy in the room has max column l1 norm exactly <= 1 (rational check, and float sums too),
and expected_mse accepts noise="discrete" for every method that releases with it."""

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator

from dpverify.continual import expected_mse, method_names, release, strategy
from dpverify.continual.exact import max_column_norm_exact
from dpverify.continual.methods import get_method


def _cases():
    out = []
    for m in method_names():
        if get_method(m).strategy is None:
            continue
        for n in (7, 64, 512, 1024):
            if not (get_method(m).leaves_power_of_two and n & (n - 1)):  # static methods: n = 2^m only
                out.append((m, n))
    return out


@pytest.mark.parametrize("method,n", _cases())
def test_sensitivity_is_exactly_at_most_one(method, n):
    R, A = strategy(n, method)
    assert max_column_norm_exact(A, 1) <= 1
    assert float(abs(A).sum(axis=0).max()) <= 1.0
    x = np.random.default_rng(0).normal(size=n)
    Rx = R @ (A @ x)
    assert np.allclose(Rx, np.cumsum(x), atol=1e-8 * np.abs(np.cumsum(x)).max())
    if not isinstance(R, LinearOperator):
        assert R.shape == (n, A.shape[0])


@pytest.mark.parametrize("method", method_names())
def test_discrete_expected_mse_wherever_discrete_release_exists(method):
    n = 16
    try:
        release(np.ones(n, dtype=int), 1.0, method, rng=0, noise="discrete")
    except ValueError:
        with pytest.raises(ValueError, match="noise"):
            expected_mse(n, 1.0, method, noise="discrete")
        return
    d = expected_mse(n, 1.0, method, noise="discrete")
    assert d.shape == (n,) and np.isfinite(d).all() and (d > 0).all()
    assert d.sum() < expected_mse(n, 1.0, method).sum()  # DLap(b) has variance below Lap(b)'s 2b²


def test_binary_discrete_mse_matches_simulation():
    """Seeded: 4000 releases of n = 16; total within 5 standard errors (false alarm ≈ 6e-7)."""
    n, reps = 16, 4000
    a = np.arange(n) % 3
    err = np.array([release(a, 1.0, "binary", rng=r, noise="discrete") - np.cumsum(a) for r in range(reps)])
    tot = (err.astype(float) ** 2).sum(axis=1)
    ex = expected_mse(n, 1.0, "binary", noise="discrete").sum()
    assert abs(tot.mean() - ex) < 5 * tot.std() / np.sqrt(reps)
