"""Optimal per-node weights for the elders tree (option ``weights="total"`` or ``"minimax"``).

The program of :mod:`dpverify.continual.weights` on the elders strategy: node v
gets noise of scale f_v/ε on its (integer) block sum with Σ_{v ∋ s} 1/f_v <= 1 for
every count s (ε-DP by the same argument as the uniform tree, with per-node
scales, ``continual/elders_privacy.md``); a node that holds no count of
the horizon (it starts after n) gets no noise (f_v = 0: its value 0 is public).
Uniform weights are f_v = L.  The optimum is certified by its dual (the
:class:`~dpverify.continual.weights.WeightsResult` is kept with the factors).
The conic program grows with n: it is used for ``n <= 8191``.  Past it the total objective is
solved in closed form on the tree (:mod:`dpverify.continual.tree_weights`, up to ``n <= 2^20``) and
the minimax objective by the dual ascent over release weights on that closed form
(:mod:`dpverify.continual.tree_minimax`, up to ``n <= 2^16``; at 2^20 its primal recovery does not
yet reach the 1e-6 gap), each with the same certificate: exact feasibility and the dual bound at its
multipliers.  Weights that are not certified are refused (RuntimeError), never used.

Example
-------
>>> from dpverify.continual import expected_mse
>>> opt = expected_mse(40, 1.0, "elders", branching=5, weights="total").sum()
>>> bool(opt < expected_mse(40, 1.0, "elders", branching=5).sum())
True
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dpverify.validation import check_positive_int
from dpverify.continual.elders_tree import elders_levels, elders_strategy_parts

__all__ = ["elders_node_factors", "check_weights"]

_MAX_N = 8191  # the conic solve (both objectives)
_MAX_N_TREE = 2**20  # the closed-form tree solve (total objective) past the conic one
_MAX_N_MINIMAX = 2**16  # the dual ascent (minimax objective): certified at 8191 and 2^16, not yet at 2^20
_WEIGHTS = ("uniform", "total", "minimax")


def check_weights(weights, n: int) -> str:
    """``"uniform"`` (Lap(L/ε) on every node), or the optimum for ``"total"`` / ``"minimax"`` MSE.

    Example
    -------
    >>> check_weights("total", 100)
    'total'
    """
    if not isinstance(weights, str) or weights not in _WEIGHTS:
        raise ValueError(f"weights must be one of {_WEIGHTS}, got {weights!r}")
    n = check_positive_int(n, "n")
    limit = {"uniform": None, "total": _MAX_N_TREE, "minimax": _MAX_N_MINIMAX}[weights]
    if limit is not None and n > limit:
        raise ValueError(f"weights={weights!r} solves a tree program: n must be <= {limit}, got {n}")
    return weights


def elders_node_factors(n: int, k: int, objective: str):
    """``(R, factors_by_level, result)``: node v of level j, index i has scale factors[j][i] / ε.

    Kept for the next call: the last 8 results up to n = 8191 (the conic solves), only the last one
    above (its R alone is about 300 MB at n = 2^20).

    Example
    -------
    >>> R, f, res = elders_node_factors(10, 3, "total")
    >>> res.certified, len(f) == elders_levels(10, 3)
    (True, True)
    """
    return (_node_factors_small if n <= _MAX_N else _node_factors_large)(n, k, objective)


def _node_factors(n: int, k: int, objective: str):
    from dpverify.continual.tree_minimax import tree_minimax_weights
    from dpverify.continual.tree_weights import elders_parents, tree_optimal_weights
    from dpverify.continual.weights import optimal_weights

    R, A, offsets = elders_strategy_parts(n, k)
    if n > _MAX_N:  # past the conic solve: the solves on the tree
        solve = tree_optimal_weights if objective == "total" else tree_minimax_weights
        res = solve(R, A, elders_parents(offsets, k))
        if not res.certified:  # the ascent stopped short: never use uncertified weights silently
            raise RuntimeError(f"{objective} weights at n={n}, k={k}: relative gap {res.relative_gap:.2e} not certified")
    else:
        res = optimal_weights(R, A, objective)
    w = float(A.data[0])  # the uniform entry (1/L)(1 - 2^-40) of A
    with np.errstate(divide="ignore"):
        f_all = np.where(np.isinf(res.weights) | (res.weights == 0), 0.0, 1.0 / (res.weights * w))  # 0: no noise / never read
    factors = [np.concatenate([[0.0], f_all[off : off + top]]) for off, top in offsets]
    for f in factors:
        f.setflags(write=False)
    return R, factors, res


_node_factors_small = lru_cache(maxsize=8)(_node_factors)
_node_factors_large = lru_cache(maxsize=1)(_node_factors)


def weighted_mse(n: int, k: int, objective: str, epsilon: float, noise: str) -> np.ndarray:
    """Exact per-release MSE with the optimal factors (independent node noises).

    Example
    -------
    >>> weighted_mse(10, 3, "minimax", 1.0, "laplace").shape
    (10,)
    """
    R, factors, _ = elders_node_factors(n, k, objective)
    f = np.concatenate([x[1:] for x in factors])
    if noise == "laplace":
        var = 2.0 * (f / epsilon) ** 2
    else:
        with np.errstate(divide="ignore", over="ignore"):
            r = np.exp(-epsilon / f)
            var = np.where(f > 0, 2.0 * r / np.expm1(-epsilon / np.where(f > 0, f, 1.0)) ** 2, 0.0)
    L = elders_levels(n, k)
    return (abs(R) / L) @ var  # proof: elders-weighted-mse
