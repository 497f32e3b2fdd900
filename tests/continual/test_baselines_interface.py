"""The generic interface over every registered factorization method (issue 6 item 5):
R·A = W, max column l1 of A <= 1, expected_mse = (2/ε²) diag(R Rᵀ); a broken strategy fails."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.continual import expected_mse, method_names, strategy
from dpverify.continual.methods import get_method

FACTORIZATIONS = [m for m in method_names() if get_method(m).strategy is not None]
OPTIONS = {
    "binary": [{}, {"levels": 12}],
    "honaker": [{}, {"branching": 3}, {"branching": 4, "weights": "optimized"}],
    "kary-fda": [{}, {"branching": 3}, {"branching": 5, "objective": "minimax"}],
}

# float Laplace is requested explicitly here (it warns: the floating-point attack)
pytestmark = pytest.mark.filterwarnings("ignore:noise=.laplace.:UserWarning")


def _check(n, meth, opts, eps=0.7):
    R, A = strategy(n, meth, **opts)
    R, A = R.toarray(), A.toarray()
    assert np.allclose(R @ A, np.tril(np.ones((n, n))), atol=1e-9)
    assert np.abs(A).sum(axis=0).max() <= 1 + 1e-12
    mse = expected_mse(n, eps, meth, **opts)
    assert np.allclose(mse, 2 / eps**2 * (R**2).sum(axis=1), rtol=1e-9)


def test_every_method_of_the_issue_is_registered():
    assert {"binary", "boost", "privelet", "honaker", "kary-fda", "naive", "fenwick", "fda"} <= set(FACTORIZATIONS)


@pytest.mark.parametrize("meth", FACTORIZATIONS)
@settings(max_examples=12)
@given(m=st.integers(0, 6), extra=st.integers(0, 40))
def test_factorization_contract(meth, m, extra):
    static = get_method(meth).leaves_power_of_two
    n = 2**m if static else 2**m + extra
    for opts in OPTIONS.get(meth, [{}]):
        _check(n, meth, opts)


def test_a_broken_strategy_fails_the_contract():
    """Scaling A up by 1 % (noise too small for ε) breaks the l1 bound; the check must notice."""
    R, A = strategy(20, "kary-fda", branching=3)
    A = (A * 1.01).toarray()
    assert np.abs(A).sum(axis=0).max() > 1
    R, A = strategy(16, "privelet")
    R2 = R.toarray().copy()
    R2[3, 0] += 1e-3  # a wrong recombination no longer reproduces W
    assert not np.allclose(R2 @ A.toarray(), np.tril(np.ones((16, 16))), atol=1e-9)


MINE = [("binary", {}), ("kary-fda", {}), ("kary-fda", {"branching": 3, "objective": "minimax"}),
        ("honaker", {}), ("honaker", {"branching": 3, "weights": "optimized"}), ("boost", {}), ("privelet", {})]


@pytest.mark.parametrize("meth,opts", MINE)
def test_release_reproducible_unmutated_and_exact_at_huge_epsilon(meth, opts):
    from dpverify.continual import release

    a = np.random.default_rng(0).integers(0, 10, size=64)
    keep = a.copy()
    r1 = release(a, 1.0, meth, rng=42, **opts, noise="laplace")
    r2 = release(a, 1.0, meth, rng=np.random.default_rng(42), **opts, noise="laplace")
    assert np.array_equal(r1, r2) and np.array_equal(a, keep)
    assert not np.array_equal(r1, release(a, 1.0, meth, rng=43, **opts, noise="laplace"))
    assert np.allclose(release(a, 1e12, meth, rng=0, **opts, noise="laplace"), np.cumsum(a), atol=1e-6)
    if meth in ("binary", "kary-fda"):
        out = release(a, 1e12, meth, rng=0, noise="discrete", **opts)
        assert out.dtype.kind == "i" and np.array_equal(out, np.cumsum(a))


@pytest.mark.parametrize("meth,opts,noise", [("binary", {}, "laplace"), ("binary", {}, "discrete"),
                                             ("kary-fda", {"branching": 4}, "discrete")])
def test_node_noise_has_the_privacy_scale(meth, opts, noise):
    """Recover the node noise Z = M W⁻¹ (ŝ − s) and compare each node's variance with the scale the
    privacy proof uses: Lap(1/(ελ_i)) (variance 2/(ελ_i)²) or DLap (2r/(1−r)², r = e^{−ελ_i});
    binary: λ_i = 1/L.  Seeded, 3000 releases; |z| > 6 has probability < 1e-8 per node."""
    from dpverify.continual import release
    from dpverify.continual.kary import kary_strategy_matrix, kary_weights

    n, eps, reps = 40, 0.7, 3000
    k = opts.get("branching", 2)
    lam = np.full(n, 1.0 / n.bit_length()) if meth == "binary" else kary_weights(n, k)
    M = kary_strategy_matrix(n, k)
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, size=n)
    Z = np.empty((reps, n))
    for r in range(reps):
        d = release(a, eps, meth, rng=rng, noise=noise, **opts) - np.cumsum(a)
        Z[r] = M @ np.diff(d, prepend=0)
    if noise == "laplace":
        var = 2 / (eps * lam) ** 2
    else:
        q = np.exp(-eps * lam)
        var = 2 * q / (1 - q) ** 2
    se = np.std(Z**2, axis=0, ddof=1) / np.sqrt(reps)
    assert np.max(np.abs((np.mean(Z**2, axis=0) - var) / se)) < 6
    assert np.max(np.abs((np.mean(Z**2, axis=0) - var / 2) / se)) > 6  # half the noise would be caught
