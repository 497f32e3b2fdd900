"""FDA: the optimal diagonal weighting of the Fenwick strategy, for any n (seeds 000 §5.4, 004 §4).

Problem (5.10): minimise ``f(λ) = Σ_i ||B(:,i)||² / λ_i²`` subject to
``M_nᵀ λ <= 1``, ``λ > 0``.  The constraints say: along every upward path of
the Fenwick forest the weights sum to at most 1.  The forest of n nodes is a
set of binomial trees, one per set bit 2^k of n (roots = descent path of n);
a non-root node of level k (lowbit 2^k) heads a binomial tree whose children
are binomial trees of levels 0..k-1 and has ``||B(:,i)||² = 2^k``; the root
of level k has ``||B(:,r)||² = 1 + (n mod 2^k)``.  The objective is
homogeneous of degree -2 in λ, so a subtree given the budget β contributes
its budget-1 optimum divided by β²; minimising ``w/ℓ² + S/(1-ℓ)²`` over the
node's own share ℓ gives (``proofs/continual/fda_any_n.md``)

    ℓ = w^(1/3) / (w^(1/3) + S^(1/3)),  optimum (w^(1/3) + S^(1/3))³,

with ``S = err_k = Σ_{t<k} E_t`` the optimum of the children forest and
``E_k = (2^(k/3) + err_k^(1/3))³``.  For n = 2^m - 1 this is the paper's
recursion (Thm 5.4): ``err_m = err_{m-1} + (err_{m-1}^(1/3) + 2^((m-1)/3))³``.
λ_i is its share ℓ times the budget left by its ancestors,
``Π (1 - ℓ_a)``: computed for all nodes in O(n) strided passes (top level
down), or for chosen nodes in O(log n) each (the paper's Alg. 4, coef(k, m)).

Example
-------
>>> from dpverify.continual.fda import fda_weights
>>> fda_weights(3).round(4).tolist()
[0.4425, 0.5575, 1.0]
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_counts, check_finite_array, check_positive_int
from dpverify.continual.fenwick import _check_times, check_n, column_sq_norms
from dpverify.continual.methods import ContinualMethod, register_method
from dpverify.proofdocs import proven

__all__ = [
    "fda_errors",
    "fda_level_shares",
    "fda_weights",
    "fda_weights_at",
    "fda_optimum",
    "fda_forest_weights",
    "fda_forest_optimum",
    "fda_forest_weights_at",
    "fda_expected_mse",
    "fda_release",
    "fda_strategy",
    "fda_forest_strategy",
    "coef",
    "solve_diagonal_cvxpy",
    "kkt_certificate",
]

# Rounding guard: the computed λ are scaled by (1 - _GUARD) so that every
# column sum of ΣM is <= 1 despite float rounding (< 30 terms, each within a
# few ulp); the MSE changes by a relative 2e-12.
_GUARD = 1e-12
_MAX_LEVELS = 900


@proven("proofs/continual/fda_derivation.md")
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


@proven("proofs/continual/fda_any_n.md")
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


@proven("proofs/continual/fda_any_n.md")
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


@proven("proofs/continual/fda_any_n.md")
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

    Reference: seed 000 Thm 5.4 / eq. (5.11) (n = 2^m - 1); any n: proofs/continual/fda_any_n.md.
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
    ``proofs/continual/fda_any_n.md``).  n = 2^m - 1: exactly ``fda_weights(n)``.

    Example
    -------
    >>> bool(np.array_equal(fda_forest_weights(7), fda_weights(7))), fda_forest_weights(8)[7]
    (True, np.float64(0.999999999999))
    """
    from dpverify.continual.forest import complete_blocks

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
    ``proofs/continual/fda_any_n.md``); at n = 2^m it is ``fda_forest_optimum(2^m - 1)`` plus the m roots'
    share of the one extra release, continuous in n.

    Example
    -------
    >>> fda_forest_optimum(7) == fda_optimum(7), round(fda_forest_optimum(8) / fda_optimum(8), 4)
    (True, 0.603)
    """
    from dpverify.continual.forest import complete_blocks

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

    Example
    -------
    >>> bool(np.allclose(fda_forest_weights_at([1, 8, 10], 10), fda_forest_weights(10)[[0, 7, 9]], rtol=1e-14))
    True
    """
    from dpverify.continual.forest import block_of, complete_blocks

    n = check_n(n)
    t = _check_times(t, "t").ravel()
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


def fda_expected_mse(n: int, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of each FDA release (forest of complete blocks): ``Σ_{nodes on its path} var_i``.

    ``var_i = 2/(ε λ_i)²`` (Laplace) or ``2r/(1-r)², r = e^{-ελ_i}`` (discrete).

    Example
    -------
    >>> round(float(fda_expected_mse(3, 1.0).sum()), 4)   # 2 · fda_optimum(3)
    25.0839
    """
    from dpverify.continual.fenwick import node_variances
    from dpverify.continual.forest import complete_blocks, forest_descent_sums

    n = check_n(n, per_node=48, what=f"fda_expected_mse(n={n})")
    return forest_descent_sums(node_variances(fda_forest_weights(n), epsilon, noise), complete_blocks(n))


def fda_strategy(n: int):
    """``(R, A) = (B Σ⁻¹, Σ M)`` with :func:`fda_weights` on the Fenwick forest of n (problem 5.10).

    The ``fda`` method releases with :func:`fda_forest_strategy` instead (no spike at n = 2^m).

    Example
    -------
    >>> R, A = fda_strategy(5)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((5, 5))))), bool(abs(A).sum(axis=0).max() <= 1)
    (True, True)
    """
    from dpverify.continual.fenwick import weighted_strategy

    n = check_n(n, per_node=24 * int(n).bit_length() + 64 if isinstance(n, int) else 0, what=f"fda_strategy(n={n})")
    return weighted_strategy(fda_weights(n))


def fda_forest_strategy(n: int):
    """``(R, A)``: A = Σ M of the forest of complete blocks, R @ A = W (lower-triangular ones), sparse.

    Example
    -------
    >>> R, A = fda_forest_strategy(8)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((8, 8))))), bool(abs(A).sum(axis=0).max() <= 1)
    (True, True)
    """
    import scipy.sparse as sp

    from dpverify.continual.fenwick import fenwick_recombination, fenwick_strategy
    from dpverify.continual.forest import complete_blocks

    n = check_n(n, per_node=12 * int(n).bit_length() ** 2 + 64 if isinstance(n, int) else 0, what=f"fda_forest_strategy(n={n})")
    lam = fda_forest_weights(n)
    blocks = complete_blocks(n)
    M = sp.block_diag([fenwick_strategy(s) for _, s in blocks], format="csr")
    B = sp.block_diag([fenwick_recombination(s) for _, s in blocks], format="lil")
    B = B.tocsr()
    # release t also adds the roots of every earlier block (their descent path from the block's end)
    rows, cols = [], []
    for (o, s), (o2, s2) in ((b1, b2) for i2, b2 in enumerate(blocks) for b1 in blocks[:i2]):
        roots = o + np.flatnonzero(B[o + s - 1].toarray().ravel()[o : o + s])
        tt = np.arange(o2, o2 + s2)
        rows.append(np.repeat(tt, roots.size))
        cols.append(np.tile(roots, tt.size))
    if rows:
        extra = sp.csr_matrix((np.ones(sum(r.size for r in rows)), (np.concatenate(rows), np.concatenate(cols))),
                              shape=(n, n))
        B = (B + extra).tocsr()
    return (B @ sp.diags(1.0 / lam)).tocsr(), (sp.diags(lam) @ M).tocsr()


def fda_release(counts, epsilon: float, rng=None, noise: str = "discrete") -> np.ndarray:
    """Batch FDA release of all running totals (forest of complete blocks), exact node arithmetic.

    Example
    -------
    >>> fda_release([1, 2, 3], 1e9, rng=0, noise="discrete").tolist()
    [1, 3, 6]
    """
    a = check_counts(counts, "counts", nonempty=True)
    return _fda_release(a, epsilon, rng, noise)


def _fda_release(a, epsilon, rng, noise):
    # input validated by dpverify.continual.release (or fda_release)
    return _fda_stream(a.size, epsilon, rng, noise).push_many(a)


def _fda_stream(n, epsilon, rng, noise):
    from dpverify.continual.forest import ForestStream, complete_blocks

    if n <= _PRECOMPUTE:  # all λ in O(n) once (at most 8 MB); beyond, O(log n) per node as needed
        lam = fda_forest_weights(n)
        return ForestStream(n, epsilon, complete_blocks(n), lambda t: lam[t - 1], rng=rng, noise=noise)
    return ForestStream(n, epsilon, complete_blocks(n), lambda t: fda_forest_weights_at(t, n), rng=rng, noise=noise)


_PRECOMPUTE = 1 << 20


register_method(
    ContinualMethod(
        name="fda",
        description="FDA: optimal diagonal weights on a forest of complete Fenwick blocks (2^m - 1 each), any n",
        expected_mse=fda_expected_mse,
        strategy=fda_forest_strategy,
        release=_fda_release,
        stream=_fda_stream,
        online=True,
        reference="seed 000 §5.4 Thm 5.4; seed 004 Alg. 4/5; any n: proofs/continual/fda_any_n.md",
    )
)


def coef(k: int, m: int) -> float:
    """λ_k for n = 2^m - 1 by the paper's Alg. 4, literally (seed 004 §4.3): O(m) scalar walk.

    ``div`` starts at 2^(m-1); a node left of the split is in the scaled copy
    (multiply by α_t), right of it in the unscaled copy (shift by div); at the
    split point the node takes its share 1 - α_t.  α_t = 1 - λ_{2^(t-1)} is the
    optimal split of the size-(2^t - 1) problem (``proofs/continual/fda_derivation.md``).

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


def solve_diagonal_cvxpy(n: int, *, tol: float = 1e-12) -> tuple[np.ndarray, float]:
    """Solve (5.10) with cvxpy/Clarabel (a general convex solver, independent of the recursion).

    Returns ``(λ, f*)``.  Solved in the variables x_i = 1/λ_i, where it reads
    ``min Σ w_i x_i²  s.t.  Σ_{i on the path of p} 1/x_i <= 1`` -- the same problem,
    but with a strongly convex objective: Clarabel then gets λ to ~1e-7 (worst
    seen 3e-6, n = 23) and f* to ~1e-9, where in λ itself (flat objective) λ
    came out only to ~1e-6 at n = 4095.  Only the constraints of the leaf
    columns (odd p) are passed: the upward path of an inner node p is a suffix
    of the path of its child p - 1, so with λ > 0 its constraint is implied
    (same feasible set).  The objective is divided by the plain-Fenwick value
    Σw·Δ² (within a factor 4 of f*, and independent of the recursion) for
    conditioning; the status may be ``optimal_inaccurate`` at these tolerances.

    Example
    -------
    >>> lam, f = solve_diagonal_cvxpy(3)
    >>> bool(np.allclose(lam, fda_weights(3), rtol=1e-6)), round(f, 6) == round(fda_optimum(3), 6)
    (True, True)
    """
    import warnings

    import cvxpy as cp

    from dpverify.continual.fenwick import fenwick_strategy

    n = check_n(n, per_node=4096, what=f"solve_diagonal_cvxpy(n={n})")
    w = column_sq_norms(n)
    leaf_cols = fenwick_strategy(n)[:, 0::2]
    scale = w.sum() * n.bit_length() ** 2  # f at the plain Fenwick weights 1/Δ
    x = cp.Variable(n, pos=True)
    obj = cp.Minimize(cp.sum(cp.multiply(w / scale, cp.square(x))))
    prob = cp.Problem(obj, [leaf_cols.T @ cp.inv_pos(x) <= 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=500)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy status {prob.status} for n={n}")
    return 1.0 / np.asarray(x.value, dtype=float), float(prob.value * scale)


@proven("proofs/continual/fda_any_n.md")
def kkt_certificate(n: int, weights=None) -> dict:
    """KKT check of λ for (5.10): multipliers μ = M⁻¹ (2 w / λ³) must be >= 0, complementary.

    Stationarity of ``Σ w_i/λ_i² + μᵀ(Mᵀλ - 1)`` is ``M μ = 2 w / λ³``; M is
    invertible, and row i of M covers node i's own interval, whose other
    counts are exactly its children's intervals, so ``μ_i = g_i - Σ_{children c} g_c``
    (O(n)).  For this convex problem KKT (μ >= 0, feasibility, μ_p (1 - u_p) = 0)
    proves global optimality.  Returns the worst violations (relative).

    Tolerance, stated honestly: this is a floating-point certificate, not an exact one.  The
    μ_i are differences of O(log n) float terms, so an exact zero multiplier can come out
    slightly negative: the library accepts ``min_mu_rel >= -1e-12`` and
    ``max_slack_times_mu_rel < 1e-9`` (seen: >= -1.5e-15 and <= 1.0e-12 for every n < 2000).
    ``max_colsum <= 1`` is checked exactly on the float weights (the 1 - 1e-12 guard).
    It certifies :func:`fda_weights` (the Fenwick forest of n); the release's forest of
    complete blocks is certified per block in ``proofs/continual/fda_any_n.md``.

    Example
    -------
    >>> c = kkt_certificate(7)
    >>> c["min_mu_rel"] >= -1e-12, c["max_colsum"] <= 1, c["max_slack_times_mu_rel"] < 1e-9   # μ ≥ 0 up to rounding
    (True, True, True)
    >>> kkt_certificate(3, [0.5, 0.5, 1.0])["max_slack_times_mu_rel"] > 0.1   # 1/2, 1/2, 1: not optimal
    True
    """
    from dpverify.continual.fenwick import strategy_column_sums

    n = check_n(n, per_node=96, what=f"kkt_certificate(n={n})")
    lam = fda_weights(n) if weights is None else check_finite_array(weights, "weights", shape=(n,))
    if (lam <= 0).any():
        raise ValueError(f"weights must be > 0, got {lam[lam <= 0][0]!r}")
    w = column_sq_norms(n)
    g = 2.0 * w / lam**3
    i = np.arange(1, n + 1)
    parent = i + (i & -i)
    has_parent = parent <= n
    child_sum = np.bincount(parent[has_parent] - 1, weights=g[has_parent], minlength=n)
    mu = g - child_sum  # proof: kkt-mu
    u = strategy_column_sums(lam)
    scale = g.max()
    return {
        "min_mu_rel": float(mu.min() / scale),
        "max_colsum": float(u.max()),
        "max_slack_times_mu_rel": float(np.max(np.abs(mu * (1.0 - u))) / scale),
        "n_tight": int(np.sum(u > 1 - 1e-9)),
    }
