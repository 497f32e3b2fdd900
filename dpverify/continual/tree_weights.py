"""Optimal per-node weights on a tree strategy, in closed form: the total-MSE program past the conic solver.

When the nodes of a strategy form a forest and every count lies in the nodes of
one root-to-node path (the elders and k-ary trees: a count lies in one node per
level, nested), with one value a_v on each row of |A|, the total program of
:mod:`dpverify.continual.weights`

    min_d Σ_v c_v / d_v²   s.t.  Σ_{v ∋ s} a_v d_v <= 1 for every count s

is solved exactly bottom-up.  With e_v = a_v d_v and c'_v = c_v a_v², a subtree
given the budget b has optimum K_v / b² (the program is homogeneous), and

    K_v = (c'_v^(1/3) + S_v^(1/3))³,     S_v = Σ_{children u} K_u,

the node taking e_v = b·c'_v^(1/3) / (c'_v^(1/3) + S_v^(1/3)) and passing the rest to
its children.  The multipliers follow from the same recursion: the mass of μ
over the counts of v is 2 K_v / b_v³; a count gets the part of its deepest node's
mass not passed to that node's children.  The result is certified exactly as
the conic solve is: the weights are rounded to exact feasibility
(:func:`~dpverify.continual.weights.round_feasible`) and the gap is taken against
:func:`~dpverify.continual.weights.dual_bound` at μ.  Time and memory are
O(nnz(R) + nnz(A)); no dense matrix is formed.  Proof:
``continual/weights_duality.md`` (section "The tree solver").

Example
-------
>>> from dpverify.continual import strategy
>>> from dpverify.continual.weights import optimal_weights
>>> from dpverify.continual.elders_tree import elders_strategy_parts
>>> R, A, offsets = elders_strategy_parts(40, 5)
>>> res = tree_optimal_weights(R, A, elders_parents(offsets, 5))
>>> res.certified, abs(res.objective / optimal_weights(R, A).objective - 1) < 1e-6
(True, True)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.validation import check_positive_int, check_real
from dpverify.continual.exact import max_column_norm_exact
from dpverify.continual.weights import WeightsResult, dual_bound, reweighting_parts, round_feasible

__all__ = ["elders_parents", "tree_optimal_weights", "certify_weights"]


def elders_parents(offsets, k: int) -> np.ndarray:
    """Parent row of each row of an elders strategy (-1 at the top level): node (j, i) lies in (j + 1, ⌈i/k⌉).

    ``offsets``: per level (first row, nodes), as returned by
    :func:`~dpverify.continual.elders_tree.elders_strategy_parts`.

    Example
    -------
    >>> from dpverify.continual.elders_tree import elders_strategy_parts
    >>> elders_parents(elders_strategy_parts(4, 3)[2], 3).tolist()     # level 0: nodes 1..4, level 1: 1..2
    [4, 4, 4, 5, -1, -1]
    """
    k = check_positive_int(k, "k", maximum=2 ** 62)
    if isinstance(offsets, np.ndarray) and offsets.ndim == 2 and offsets.shape[1] == 2 and offsets.size <= 2 * 64:
        offsets = [tuple(item) for item in offsets.tolist()]  # (first row, nodes) per level, as an array
    if not isinstance(offsets, (list, tuple)) or not offsets:
        raise ValueError(f"offsets must be a non-empty list of (first row, nodes), got {offsets!r}")
    row = 0
    for item in offsets:  # levels are stored one after another from row 0
        if (not isinstance(item, (list, tuple)) or len(item) != 2
                or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in item)
                or item[0] != row or item[1] < 0):
            raise ValueError(f"offsets must list (first row, nodes) of consecutive levels from row 0, got {item!r}")
        row += int(item[1])
    parent = np.full(int(offsets[-1][0]) + int(offsets[-1][1]), -1, dtype=np.int64)
    for (off, top), (noff, ntop) in zip(offsets[:-1], offsets[1:]):
        i = np.arange(1, top + 1, dtype=np.int64)
        up = -(-i // k)  # node (j, i) = ((i-1)k^j, i k^j] lies in ((i'-1)k^(j+1), i' k^(j+1)], i' = ceil(i/k)
        parent[off : off + top] = np.where(up <= ntop, noff + up - 1, -1)
    return parent


def _check_forest(absA, parent: np.ndarray) -> np.ndarray:
    """Depth of each row; raises unless every column's support is one path up to a root."""
    depth = np.zeros(parent.size, dtype=np.int64)
    cur = parent.copy()
    for _ in range(parent.size + 1):
        on = cur >= 0
        if not on.any():
            break
        depth += on
        cur[on] = parent[cur[on]]
    else:
        raise ValueError("parent has a cycle")
    C = sp.coo_matrix(absA)
    v, s = C.row.astype(np.int64), C.col.astype(np.int64)
    n = absA.shape[1]
    keys = np.sort(v * n + s)
    up = parent[v]
    pk = up[up >= 0] * n + s[up >= 0]
    pos = np.minimum(np.searchsorted(keys, pk), keys.size - 1)
    roots = np.bincount(s[up < 0], minlength=n)
    held = np.bincount(s, minlength=n) > 0
    per_depth = np.bincount(s * (int(depth.max(initial=0)) + 1) + depth[v])  # nodes of a column at one depth
    closed = not pk.size or (keys[pos] == pk).all()  # every node's parent holds the count too
    if not closed or (per_depth > 1).any() or (roots[held] != 1).any():
        raise ValueError("strategy is not a tree: a count's nodes are not one path to a root of parent")
    return depth


def _row_values(absA) -> np.ndarray:
    """a_v, the one value on row v of |A| (0 on an empty row); raises if a row has two values."""
    A = sp.csr_matrix(absA)
    counts = np.diff(A.indptr)
    a = np.zeros(A.shape[0])
    nz = counts > 0
    if A.data.size:
        hi = np.maximum.reduceat(A.data, A.indptr[:-1][nz])
        lo = np.minimum.reduceat(A.data, A.indptr[:-1][nz])
        if (hi != lo).any():
            raise ValueError("strategy rows must each hold one value (|A_vs| = a_v on the counts of v)")
        a[nz] = hi
    return a


def _solve(c2, parent, depth, measuring, count_rows, count_cols, n):
    """Bottom-up K, top-down budgets; returns e (= a d) and μ per count (derivation in the module docstring)."""
    K, S = np.zeros(c2.size), np.zeros(c2.size)
    cb, sb = np.cbrt(c2), np.zeros(c2.size)
    for D in range(int(depth.max(initial=0)), -1, -1):
        v = np.flatnonzero((depth == D) & measuring)
        sb[v] = np.cbrt(S[v])
        K[v] = (cb[v] + sb[v]) ** 3  # proof: tree-K
        p = parent[v]
        np.add.at(S, p[p >= 0], K[v[p >= 0]])
    b, e, rest = np.zeros(c2.size), np.zeros(c2.size), np.ones(c2.size)
    for D in range(int(depth.max(initial=0)) + 1):
        v = np.flatnonzero((depth == D) & measuring)
        p = parent[v]
        b[v] = np.where(p >= 0, b[np.maximum(p, 0)] * rest[np.maximum(p, 0)], 1.0)  # b_p - e_p, without cancellation
        tot = cb[v] + sb[v]
        e[v] = b[v] * np.where(tot > 0, cb[v] / np.where(tot > 0, tot, 1.0), 0.0)  # proof: tree-split
        rest[v] = np.where(tot > 0, sb[v] / np.where(tot > 0, tot, 1.0), 1.0)
    with np.errstate(over="ignore"):
        mass = np.where(b > 0, 2.0 * ((cb + sb) / np.where(b > 0, b, 1.0)) ** 3, 0.0)  # proof: tree-mass
    passed = np.zeros(c2.size)
    has = parent >= 0
    np.add.at(passed, parent[has & measuring], mass[has & measuring])
    resid = np.maximum(mass - passed, 0.0)  # 0 up to rounding on a node with children
    deepest = np.full(n, -1, dtype=np.int64)
    order = np.argsort(depth[count_rows], kind="stable")
    deepest[count_cols[order]] = count_rows[order]  # the last write per count: its deepest node
    share = np.bincount(deepest[deepest >= 0], minlength=c2.size)
    mu = np.zeros(n)
    ok = deepest >= 0
    mu[ok] = resid[deepest[ok]] / share[deepest[ok]]
    return e, mu


def certify_weights(R, A, d, mu, *, tol: float = 1e-6) -> WeightsResult:
    """The certificate of a given d (no rounding): exact max column sum of D|A|, total, and the dual bound at μ.

    Example
    -------
    >>> import scipy.sparse as sp
    >>> I = sp.identity(2, format="csr")
    >>> r = certify_weights(I, I, [1.0, 1.0], [2.0, 2.0])
    >>> r.objective, r.dual_bound, r.certified
    (2.0, 2.0, True)
    >>> certify_weights(I, I, [1.0, 1.0 + 2.0**-40], [2.0, 2.0]).certified   # over the budget
    False
    """
    tol = check_real(tol, "tol", positive=True)
    absA, B2, keep = reweighting_parts(R, A)
    try:
        d = np.asarray(d, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"d must be an array of real weights, got {type(d).__name__}") from None
    if d.shape != (absA.shape[0],) or np.isnan(d).any() or (d < 0).any():
        raise ValueError(f"d must be one non-negative weight per strategy row ({absA.shape[0]}), got shape {d.shape}")
    if not np.isfinite(d[keep]).all() or (d[keep] == 0).any():
        raise ValueError("d must be finite and positive on every row a release uses")
    s = max_column_norm_exact(sp.diags(d[keep]) @ absA[keep], 1)
    c = np.asarray(B2.sum(axis=0)).ravel()[keep]
    primal = float(c @ (1.0 / d[keep] ** 2))
    return WeightsResult(d, primal, dual_bound(R, A, mu), "total", float(s), tol, np.array(mu, dtype=float))


def tree_parts(R, A, parent) -> dict:
    """The checked pieces of a tree strategy for the tree solvers (here and in :mod:`~dpverify.continual.tree_minimax`).

    Keys: ``absA, B2, keep`` (as :func:`~dpverify.continual.weights.reweighting_parts`), ``a`` (the value of
    each row of |A|), ``measuring`` (a > 0), ``parent``, ``depth``, ``rows, cols`` (the entries of |A|).
    Raises ValueError unless every count's nodes are one path to a root and each row of A holds one value.

    Example
    -------
    >>> from dpverify.continual.elders_tree import elders_strategy_parts
    >>> R, A, offsets = elders_strategy_parts(4, 3)
    >>> tree_parts(R, A, elders_parents(offsets, 3))["depth"].tolist()
    [1, 1, 1, 1, 0, 0]
    """
    absA, B2, keep = reweighting_parts(R, A)
    parent = np.asarray(parent)
    if parent.shape != (absA.shape[0],) or not np.issubdtype(parent.dtype, np.integer):
        raise ValueError(f"parent must be an integer array with one entry per strategy row ({absA.shape[0]})")
    if ((parent < -1) | (parent >= parent.size)).any():
        raise ValueError("parent entries must be -1 or a row index")
    parent = parent.astype(np.int64)
    a = _row_values(absA)
    depth = _check_forest(absA, parent)
    C = sp.coo_matrix(absA)
    return {"absA": absA, "B2": B2, "keep": keep, "a": a, "measuring": a > 0, "parent": parent, "depth": depth,
            "rows": C.row.astype(np.int64), "cols": C.col.astype(np.int64)}


def tree_total_at(parts: dict, c: np.ndarray):
    """``(d, s, mu)``: the total optimum for node costs c (c_v = Σ_t λ_t B_tv²), rounded to exact feasibility.

    ``s`` is the exact max column sum of D|A| (at most 1 - 2^-40), ``mu`` the multipliers of the
    closed form (one per count; with these, ``dual_bound`` at the same λ is the optimum up to rounding).

    Example
    -------
    >>> from dpverify.continual.elders_tree import elders_strategy_parts
    >>> R, A, offsets = elders_strategy_parts(12, 3)
    >>> parts = tree_parts(R, A, elders_parents(offsets, 3))
    >>> d, s, mu = tree_total_at(parts, np.asarray(parts["B2"].sum(axis=0)).ravel())
    >>> bool(s <= 1 - 2.0**-40), mu.shape
    (True, (12,))
    """
    a, measuring, keep, absA = parts["a"], parts["measuring"], parts["keep"], parts["absA"]
    e, mu = _solve(c * a * a, parts["parent"], parts["depth"], measuring, parts["rows"], parts["cols"],
                   absA.shape[1])
    d = np.zeros(absA.shape[0])
    d[measuring] = e[measuring] / a[measuring]
    d[~measuring] = np.inf  # rows measuring no count: value 0, released without noise (as the conic solve)
    d[measuring & ~keep] = 0.0  # rows no release uses: not released
    d[keep] *= 1 - 2.0**-39  # the paths sum to 1 up to rounding: scale once so one exact check usually suffices
    d[keep], s = round_feasible(d[keep], absA[keep])  # proof: tree-round
    return d, s, mu


def tree_optimal_weights(R, A, parent, *, tol: float = 1e-6) -> WeightsResult:
    """The total-MSE optimum on a tree strategy (closed form, see the module docstring), certified by its dual.

    ``parent[v]``: the row of v's parent node (-1 for a root).  Raises ValueError
    if a count's nodes are not one path to a root or a row of A holds two values.

    Example
    -------
    >>> from dpverify.continual.elders_tree import elders_strategy_parts
    >>> R, A, offsets = elders_strategy_parts(12, 3)
    >>> r = tree_optimal_weights(R, A, elders_parents(offsets, 3))
    >>> r.certified, r.relative_gap < 1e-9
    (True, True)
    """
    tol = check_real(tol, "tol", positive=True)
    if not tol < 1:
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    parts = tree_parts(R, A, parent)
    keep, B2 = parts["keep"], parts["B2"]
    c = np.asarray(B2.sum(axis=0)).ravel()
    d, s, mu = tree_total_at(parts, c)
    primal = float(c[keep] @ (1.0 / d[keep] ** 2))
    return WeightsResult(d, primal, dual_bound(R, A, mu), "total", s, tol, mu)  # proof: tree-certificate
