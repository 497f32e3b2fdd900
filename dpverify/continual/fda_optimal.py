"""FDA's optimum: the optimal diagonal weights of the Fenwick strategy, for any n (thesis chapter 5, §5.4; Cai, Wu, Wang 2016, §4).

Problem (5.10): minimise ``f(λ) = Σ_i ||B(:,i)||² / λ_i²`` subject to
``M_nᵀ λ <= 1``, ``λ > 0``.  The constraints say: along every upward path of
the Fenwick forest the weights sum to at most 1.  The forest of n nodes is a
set of binomial trees, one per set bit 2^k of n (roots = descent path of n);
a non-root node of level k (lowbit 2^k) heads a binomial tree whose children
are binomial trees of levels 0..k-1 and has ``||B(:,i)||² = 2^k``; the root
of level k has ``||B(:,r)||² = 1 + (n mod 2^k)``.  The objective is
homogeneous of degree -2 in λ, so a subtree given the budget β contributes
its budget-1 optimum divided by β²; minimising ``w/ℓ² + S/(1-ℓ)²`` over the
node's own share ℓ gives (``continual/fda_any_n.md``)

    ℓ = w^(1/3) / (w^(1/3) + S^(1/3)),  optimum (w^(1/3) + S^(1/3))³,

with ``S = err_k = Σ_{t<k} E_t`` the optimum of the children forest and
``E_k = (2^(k/3) + err_k^(1/3))³``.  For n = 2^m - 1 this is the paper's
recursion (Thm 5.4): ``err_m = err_{m-1} + (err_{m-1}^(1/3) + 2^((m-1)/3))³``.
λ_i is its share ℓ times the budget left by its ancestors,
``Π (1 - ℓ_a)``: computed for all nodes in O(n) strided passes (top level
down), or for chosen nodes in O(log n) each (the paper's Alg. 4, coef(k, m)).

Example
-------
>>> fda_weights(3).round(4).tolist()
[0.4425, 0.5575, 1.0]
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_elements, check_positive_int
from dpverify.continual.checks import check_n, check_times
from dpverify.continual.forest import block_of, complete_blocks
from dpverify.proofdocs import proven

__all__ = ["fda_errors", "fda_level_shares", "fda_optimum", "fda_weights", "fda_weights_at", "fda_forest_weights",
           "fda_forest_optimum", "fda_forest_weights_at", "coef"]

# Rounding guard: the computed λ are scaled by (1 - _GUARD) so that every
# column sum of ΣM is <= 1 despite float rounding (< 30 terms, each within a
# few ulp); the MSE changes by a relative 2e-12.
_GUARD = 1e-12
_MAX_LEVELS = 900


@proven("continual/fda_derivation.md")
def fda_errors(levels: int) -> np.ndarray:
    """``err_0..err_levels``: the optimum of (5.10) for n = 2^m - 1, m = 0..levels (err_0 = 0).

    Example
    -------
    >>> fda_errors(2).round(6).tolist()
    [0.0, 1.0, 12.541966]
    """
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or levels < 0:
        raise ValueError(f"levels must be an integer >= 0, got {levels!r}")
    if levels > _MAX_LEVELS:
        raise ValueError(f"levels must be <= {_MAX_LEVELS} (err_levels ~ levels³ 2^levels overflows float64), got {levels!r}")
    err = np.zeros(int(levels) + 1)
    for k in range(int(levels)):
        err[k + 1] = err[k] + (np.cbrt(2.0**k) + np.cbrt(err[k])) ** 3  # proof: err-recursion
    return err


@proven("continual/fda_any_n.md")
def fda_level_shares(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The node's own share ℓ of its budget: ``(inner[k], root[k])`` for level k = 0..floor(log2 n).

    ``inner[k]`` for non-root nodes (weight 2^k), ``root[k]`` for the root of
    level k (weight 1 + n mod 2^k; NaN where n has no bit k).

    Example
    -------
    >>> inner, root = fda_level_shares(5)              # 5 = 101b: roots at levels 0 and 2
    >>> inner[0], bool(np.isnan(root[1])), root[0]     # leaves keep their whole budget
    (np.float64(1.0), True, np.float64(1.0))
    """
    n = check_n(n)
    top = n.bit_length()
    err = fda_errors(top)[:top]
    k = np.arange(top)
    s = np.cbrt(err)
    w_inner = np.cbrt(2.0**k)
    inner = w_inner / (w_inner + s)  # proof: share
    c = 1.0 + (n % (2**k))
    w_root = np.cbrt(c)
    root = np.where((n >> k) & 1 == 1, w_root / (w_root + s), np.nan)
    return inner, root


@proven("continual/fda_any_n.md")
def fda_optimum(n: int) -> float:
    """Minimum of f in (5.10) for n: ``Σ_roots (c_r^(1/3) + err_k^(1/3))³``; the total MSE is 2/ε² times it.

    Example
    -------
    >>> round(fda_optimum(3), 6)   # 1 + (1 + 2^(1/3))^3: node 3 alone, nodes 1-2 as one tree
    12.541966
    """
    n = check_n(n)
    top = n.bit_length()
    err = fda_errors(top)[:top]
    k = np.arange(top)
    bits = (n >> k) & 1 == 1
    c = 1.0 + (n % (2**k))
    return float(np.sum((np.cbrt(c[bits]) + np.cbrt(err[bits])) ** 3))  # proof: optimum


@proven("continual/fda_any_n.md")
def fda_weights(n: int) -> np.ndarray:
    """The optimal λ_1..λ_n of (5.10) for any n >= 1, in O(n) (all λ for n = 2^25 - 1 well under a second).

    Parameters
    ----------
    n : number of releases (nodes), n >= 1

    Returns
    -------
    numpy float array of length n; every upward-path sum (column of ΣM) is <= 1.

    Example
    -------
    >>> from dpverify.continual.fenwick import strategy_column_sums
    >>> lam = fda_weights(7)
    >>> bool(strategy_column_sums(lam).max() <= 1), lam[6]   # node 7 is a root alone
    (True, np.float64(0.999999999999))

    Reference: thesis chapter 5, Thm 5.4 / eq. (5.11) (n = 2^m - 1); any n: continual/fda_any_n.md.
    """
    n = check_n(n, per_node=32, what=f"fda_weights(n={n})")
    inner, root = fda_level_shares(n)
    return _tree_weights(n, inner, root)


def _tree_weights(n: int, inner: np.ndarray, root: np.ndarray) -> np.ndarray:
    """λ of one Fenwick forest of n nodes, given the node shares by level (inner) and of the roots."""
    top = n.bit_length()
    keep = 1.0 - _GUARD
    # q[i] = budget node i passes to its children = G_i (1 - ℓ_i), G_i = budget it receives
    # (1 at a root, else q[parent]); parent of i = i + lowbit(i); levels filled from the top down.
    q = np.empty(n + 1)
    for k in range(top - 1, 0, -1):
        step = 1 << k
        nodes = q[step :: 2 * step]  # level k: i = step, 3 step, 5 step, ...
        parents = q[2 * step :: 2 * step]  # their parents i + step = 2 step, 4 step, ...
        m = min(parents.size, nodes.size)
        np.multiply(parents[:m], 1.0 - inner[k], out=nodes[:m])  # proof: budget
        if m < nodes.size:  # the last node of the level is a root: budget 1, its own share
            nodes[-1] = 1.0 - root[k]
    # level 0 (odd i) are leaves (share 1): λ_i = the budget they receive (q's odd slots are free)
    lam_odd = q[1::2]
    odd_parents = q[2::2]
    m = min(odd_parents.size, lam_odd.size)
    np.multiply(odd_parents[:m], keep, out=lam_odd[:m])
    if m < lam_odd.size:
        lam_odd[-1] = keep  # n odd: node n is a root of level 0
    # levels k >= 1, in place: λ_i = G_i ℓ_i = q_i ℓ_i / (1 - ℓ_i)
    for k in range(1, top):
        step = 1 << k
        qk = q[step :: 2 * step]
        is_root = step * (2 * qk.size) > n  # the last node of this level is a root
        last = qk[-1] * (root[k] / (1.0 - root[k])) * keep if is_root else None
        qk *= inner[k] / (1.0 - inner[k]) * keep
        if is_root:
            qk[-1] = last
    return q[1:]


def fda_weights_at(nodes, n: int) -> np.ndarray:
    """λ_i for chosen nodes i (1-based) in O(log n) each: walk up to the root (the paper's Alg. 4).

    Example
    -------
    >>> import numpy as np
    >>> bool(np.allclose(fda_weights_at([1, 5, 7], 7), fda_weights(7)[[0, 4, 6]]))
    True
    """
    n = check_n(n)
    raw = np.asarray(nodes)
    check_elements(raw, "nodes")
    if raw.size and (raw.dtype == bool or not np.issubdtype(raw.dtype, np.integer)):
        raise TypeError(f"nodes must be integers, got dtype {raw.dtype}")
    i = np.array(raw, dtype=np.int64, copy=True).ravel()
    if i.size and (i.min() < 1 or i.max() > n):
        raise ValueError(f"nodes must be in [1, {n}], got values in [{i.min()}, {i.max()}]")
    inner, root = fda_level_shares(n)
    inner_r = np.where(np.isnan(root), inner, root)

    def share(j):
        lb = j & -j
        k = np.log2(lb).astype(np.int64)
        is_root = j + lb > n
        return np.where(is_root, inner_r[k], inner[k])

    out = share(i)
    cur = i
    live = np.ones(i.size, dtype=bool)
    while True:
        cur = cur + (cur & -cur)
        live &= cur <= n
        if not live.any():
            break
        idx = np.flatnonzero(live)
        out[idx] *= 1.0 - share(cur[idx])
    return out * (1.0 - _GUARD)


def fda_forest_weights(n: int) -> np.ndarray:
    """λ_1..λ_n of the FDA *release*: the optimal weights of the forest of complete blocks, O(n).

    The n counts are split greedily into blocks of sizes 2^m - 1
    (:func:`dpverify.continual.forest.complete_blocks`); each block is the
    Fenwick forest of its local index, whose roots serve every later release
    (weight ``n - t + 1`` for a root at position t).  Every count's path lies
    in one block, so the sensitivity is the largest path sum, <= 1; the
    weights are optimal for this forest (same recursion as :func:`fda_weights`,
    ``continual/fda_any_n.md``).  n = 2^m - 1: exactly ``fda_weights(n)``.

    Example
    -------
    >>> bool(np.array_equal(fda_forest_weights(7), fda_weights(7))), fda_forest_weights(8)[7]
    (True, np.float64(0.999999999999))
    """
    n = check_n(n, per_node=32, what=f"fda_forest_weights(n={n})")
    lam = np.empty(n)
    for o, size in complete_blocks(n):
        inner, root = _block_shares(n, o, size)
        lam[o : o + size] = _tree_weights(size, inner, root)
    return lam


def _block_shares(n: int, o: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Shares by level of the block (o, size = 2^m - 1): inner nodes, and its roots (one per level)."""
    inner, _ = fda_level_shares(size)  # inner shares depend on the level only
    top = size.bit_length()
    k = np.arange(top)
    s = np.cbrt(fda_errors(top)[:top])
    r = size - (1 << k) + 1  # local position of the root of level k
    w_root = np.cbrt((n - (o + r) + 1).astype(float))  # a root serves releases o + r .. n
    return inner, w_root / (w_root + s)  # proof: forest-share


def fda_forest_optimum(n: int) -> float:
    """Optimum of the FDA forest of complete blocks: ``Σ_blocks Σ_roots (c_r^(1/3) + err_k^(1/3))³``.

    A root of level k at position r serves ``c_r = n - r + 1`` releases; the total MSE is 2/ε² times
    this.  Equal to :func:`fda_optimum` at n = 2^m - 1, never above it (checked for every n < 2100 in
    ``continual/fda_any_n.md``); at n = 2^m it is ``fda_forest_optimum(2^m - 1)`` plus the m roots'
    share of the one extra release, continuous in n.

    Example
    -------
    >>> fda_forest_optimum(7) == fda_optimum(7), round(fda_forest_optimum(8) / fda_optimum(8), 4)
    (True, 0.603)
    """
    n = check_n(n)
    total = 0.0
    for o, size in complete_blocks(n):
        top = size.bit_length()
        err = fda_errors(top)[:top]
        k = np.arange(top)
        c = (n - (o + size - (1 << k) + 1) + 1).astype(float)  # root of level k at local size - 2^k + 1
        total += float(np.sum((np.cbrt(c) + np.cbrt(err)) ** 3))  # proof: forest-optimum
    return total


def fda_forest_weights_at(t, n: int) -> np.ndarray:
    """λ_t of :func:`fda_forest_weights` for chosen 1-based positions t, O(log n) each (walk up the block).

    The reference for the release beyond 2^20, which takes the same floats, bit for bit, from
    per-level share tables (:class:`dpverify.continual.fda_runs.FdaRunWeights`, O(1) a node).

    Example
    -------
    >>> bool(np.allclose(fda_forest_weights_at([1, 8, 10], 10), fda_forest_weights(10)[[0, 7, 9]], rtol=1e-14))
    True
    """
    n = check_n(n)
    t = check_times(t, "t").ravel()
    if t.size and (t.min() < 1 or t.max() > n):
        raise ValueError(f"t must be in [1, {n}], got values in [{t.min()}, {t.max()}]")
    o, size, i = block_of(t, complete_blocks(n))
    err = fda_errors(n.bit_length())
    cerr = np.cbrt(err)

    def share(j):
        lb = j & -j
        k = np.log2(lb).astype(np.int64)
        is_root = j + lb > size
        w = np.where(is_root, (n - (o + j) + 1), lb).astype(float)
        return np.cbrt(w) / (np.cbrt(w) + cerr[k])

    out = share(i)
    cur = i.copy()
    live = np.ones(t.size, dtype=bool)
    while True:
        cur = cur + (cur & -cur)
        live &= cur <= size
        if not live.any():
            break
        idx = np.flatnonzero(live)
        sh = share(np.where(live, cur, 1))
        out[idx] *= 1.0 - sh[idx]
    return out * (1.0 - _GUARD)


def coef(k: int, m: int) -> float:
    """λ_k for n = 2^m - 1 by the paper's Alg. 4, literally (Cai, Wu, Wang 2016, §4.3): O(m) scalar walk.

    ``div`` starts at 2^(m-1); a node left of the split is in the scaled copy
    (multiply by α_t), right of it in the unscaled copy (shift by div); at the
    split point the node takes its share 1 - α_t.  α_t = 1 - λ_{2^(t-1)} is the
    optimal split of the size-(2^t - 1) problem (``continual/fda_derivation.md``).

    Example
    -------
    >>> round(coef(2, 2), 6) == round(float(fda_weights(3)[1]) / (1 - 1e-12), 6)
    True
    """
    m = check_positive_int(m, "m")
    if m > _MAX_LEVELS:
        raise ValueError(f"m must be <= {_MAX_LEVELS} (err_m overflows float64 beyond), got {m}")
    k = check_positive_int(k, "k")
    if k > 2**m - 1:
        raise ValueError(f"k must be <= 2^m - 1 = {2**m - 1}, got {k}")
    err = fda_errors(m)
    alpha = np.cbrt(err) / (np.cbrt(err) + np.cbrt(2.0 ** np.arange(m + 1)))  # α_{t} = alpha[t - 1]
    lam, kt, t, div = 1.0, k, m, 2 ** (m - 1)
    while div != kt:
        if kt < div:
            lam *= alpha[t - 1]  # left half: the α-scaled copy
        else:
            kt -= div  # right half: the unscaled copy
        t -= 1
        div //= 2
    return float(lam * (1.0 - alpha[t - 1]))
