"""Optimal per-node weights for every tree of the room, both objectives, certified by the dual."""

import numpy as np
import pytest

from dpverify.continual import expected_mse, strategy
from dpverify.continual.exact import max_column_norm_exact
from dpverify.continual.weights import dual_bound, optimal_weights

TREES = ["binary", "honaker", "boost", "privelet", "fenwick", "fda", "kary-fda", "elders"]


@pytest.mark.parametrize("method", TREES)
@pytest.mark.parametrize("objective", ["total", "minimax"])
def test_certified_and_no_worse_than_the_method(method, objective):
    n = 16
    R, A = strategy(n, method)
    res = optimal_weights(R, A, objective)
    assert res.certified and res.relative_gap < 1e-6
    d = np.where(np.isfinite(res.weights), res.weights, 0.0)
    import scipy.sparse as sp

    assert max_column_norm_exact(sp.diags(d) @ abs(A), 1) <= 1  # exactly feasible
    own = expected_mse(n, 1.0, method) / 2  # units of 2/ε²
    value = own.sum() if objective == "total" else own.max()
    assert res.objective <= value * (1 + 1e-9)


def test_dual_bound_refuses_bad_multipliers():
    R, A = strategy(4, "fenwick")
    with pytest.raises(ValueError, match="mu"):
        dual_bound(R, A, [-1.0, 0, 0, 0])
    with pytest.raises(ValueError, match="objective"):
        optimal_weights(R, A, "median")
