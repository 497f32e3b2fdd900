"""k-ary Fenwick trees with the optimal diagonal (the k-ary FDA), for any n and any k >= 2.

Beyond the paper (seed 004 §6 leaves "further improvement" open).  Write t in
base k and let v = v_k(t) be its number of trailing zero digits.  Node t sums
the counts ``a_j`` for ``t - k^v < j <= t`` (for k = 2 this is the Fenwick
node of eq. 5.5); release t adds the nodes on its descent path
``t, t - k^{v(t)}, ...`` (eq. 5.6 with ``lowbit`` replaced by ``k^{v_k(t)}``),
so it uses as many nodes as the digit sum of t.  Equivalently: the complete
k-ary tree with the last child of every node removed.  The strategy M is
unit lower triangular, W = B·M, and the diagonal weighting Σ of (5.8) gives
the problem (5.10) with these M and B.

Optimal diagonal (``proofs/continual/kary_recursion.md``).  Let E_j be the
optimum of (5.10) for n = k^j - 1.  The n = k^j - 1 problem splits into k
copies of the k^(j-1) - 1 problem and k - 1 top nodes at times c k^(j-1); the
c-th top node serves w_c = (k - c) k^(j-1) releases and shares its budget
with the copy below it, so with the copy scaled by α:

    h_c(α) = E_{j-1}/α² + w_c/(1-α)²,   α* = E^(1/3) / (E^(1/3) + w^(1/3)),
    min h_c = (E^(1/3) + w^(1/3))³,
    E_j = E_{j-1} + Σ_{c=1}^{k-1} (E_{j-1}^(1/3) + ((k-c) k^(j-1))^(1/3))³       (k-ary eq. 20)

For k = 2 this is the paper's recursion.  Any n: its base-k digits d_j give
d_j top nodes at level j (serving w = n - time + 1 releases each) over full
copies, and the rest recurses (``kary_optimum``).  The *minimax* variant
minimises the largest per-release error instead; the same block structure
gives a one-dimensional equation per level (``kary_minimax_value``).

Example
-------
>>> import numpy as np
>>> from dpverify.continual.kary import kary_weights
>>> from dpverify.continual.fda import fda_weights
>>> bool(np.allclose(kary_weights(11, 2), fda_weights(11)))
True
"""

from __future__ import annotations

import numbers
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from dpverify.continual.fenwick import _check_eps, _check_result, check_n
from dpverify.validation import check_budget, as_generator, check_counts, check_finite_array, check_nonneg_int, check_positive_int
from dpverify.primitives.sampling import discrete_laplace
from dpverify.proofdocs import proven

__all__ = [
    "check_branching",
    "kary_levels",
    "kary_digits",
    "kary_node_span",
    "kary_strategy_matrix",
    "kary_recombination",
    "kary_column_sq_norms",
    "kary_errors",
    "kary_optimum",
    "kary_minimax_value",
    "kary_weights",
    "kary_path_sums",
    "kary_expected_mse",
    "kary_strategy",
    "kary_release",
    "KaryStream",
    "best_branching",
]

_GUARD = 1e-12  # λ scaled by (1 - _GUARD) so float rounding never lifts a column sum of ΣM above 1
_MAX_BRANCHING = 64
_OBJECTIVES = ("total", "minimax")
_K = "k (the branching factor)"  # how messages name a parameter k


def check_branching(k, name: str = "branching") -> int:
    """The branching factor: an integer >= 2.

    Example
    -------
    >>> check_branching(16)
    16
    """
    k = check_positive_int(k, name)
    if k < 2:
        raise ValueError(f"{name} must be >= 2, got {k}")
    check_budget(16 * k, f"{name} = {k}")  # the recursion over the digits holds O(k) floats per level
    return k


def _check_objective(objective: str) -> str:
    if objective not in _OBJECTIVES:
        raise ValueError(f"objective must be one of {_OBJECTIVES}, got {objective!r}")
    return objective


def kary_levels(n: int, k: int) -> int:
    """Number of levels ``floor(log_k n) + 1`` (integer arithmetic).

    Example
    -------
    >>> kary_levels(4095, 16), kary_levels(4096, 16)
    (3, 4)
    """
    n = check_n(n)
    k = check_branching(k, _K)
    L, p = 0, 1
    while p <= n:
        L, p = L + 1, p * k
    return L


def kary_digits(n: int, k: int) -> list[int]:
    """Base-k digits of n, least significant first.

    Example
    -------
    >>> kary_digits(11, 3)
    [2, 0, 1]
    """
    n = check_nonneg_int(n, "n")
    k = check_branching(k, _K)
    out = []
    while n:
        n, d = divmod(n, k)
        out.append(d)
    return out


def kary_node_span(t, k: int) -> np.ndarray:
    """``k^{v_k(t)}``: how many counts node t covers (the k-ary ``lowbit``), vectorised, t >= 1.

    Example
    -------
    >>> kary_node_span([1, 3, 9, 18, 27], 3).tolist()
    [1, 3, 9, 9, 27]
    """
    k = check_branching(k, _K)
    if isinstance(t, (str, bytes)):
        raise TypeError(f"t must be integer node times, got {type(t).__name__}")
    t_in = np.asarray(t)
    if t_in.dtype == bool or not np.issubdtype(t_in.dtype, np.integer):
        raise TypeError(f"t must be integer node times >= 1, got dtype {t_in.dtype}")
    t = t_in.astype(np.int64)
    if (t < 1).any():
        raise ValueError(f"t must be >= 1, got {t[t < 1].ravel()[0]!r}")
    span = np.ones(t.shape, dtype=np.int64)
    tmax = int(t.max()) if t.size else 0
    p = k
    while p <= tmax:  # no t >= 1 is a multiple of p > max t (and p stays inside int64)
        m = t % p == 0
        if not m.any():
            return span
        span[m] = p
        p *= k
    return span


def _spans(n: int, k: int) -> np.ndarray:
    """``kary_node_span(1..n)`` by strided writes, O(n)."""
    span = np.ones(n + 1, dtype=np.int64)
    p = k
    while p <= n:
        span[p::p] = p
        p *= k
    return span[1:]


def kary_strategy_matrix(n: int, k: int) -> sp.csr_matrix:
    """The k-ary strategy M (0/1, CSR): row t has ones at columns ``t - k^{v_k(t)} < j <= t``.

    Example
    -------
    >>> kary_strategy_matrix(4, 3).toarray().astype(int).tolist()
    [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1]]
    """
    n = check_n(n, per_node=24 * int(n).bit_length() + 64 if isinstance(n, int) else 0, what=f"kary_strategy_matrix(n={n})")
    k = check_branching(k, _K)
    t = np.arange(1, n + 1, dtype=np.int64)
    length = kary_node_span(t, k)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.arange(nnz, dtype=np.int64) + np.repeat(t - length - indptr[:-1], length)
    return sp.csr_matrix((np.ones(nnz), indices, indptr), shape=(n, n))


def _descent_edges(n: int, k: int):
    """(row, node) pairs of B: release t uses t, t - k^{v(t)}, ... (1-based)."""
    t = np.arange(1, n + 1, dtype=np.int64)
    rows, cols = [], []
    cur, live = t, t
    while cur.size:
        rows.append(live)
        cols.append(cur)
        cur = cur - kary_node_span(cur, k)  # proof: kary-descent
        keep = cur > 0
        cur, live = cur[keep], live[keep]
    return np.concatenate(rows), np.concatenate(cols)


def kary_recombination(n: int, k: int) -> sp.csr_matrix:
    """The k-ary recombination B (0/1, CSR): row t has ones on the descent path of t.

    Example
    -------
    >>> kary_recombination(5, 3).toarray().astype(int).tolist()[4]
    [0, 0, 1, 1, 1]
    """
    n = check_n(n, per_node=24 * int(n).bit_length() + 64 if isinstance(n, int) else 0, what=f"kary_recombination(n={n})")
    k = check_branching(k, _K)
    r, c = _descent_edges(n, k)
    return sp.csr_matrix((np.ones(r.size), (r - 1, c - 1)), shape=(n, n))


@proven("proofs/continual/kary_recursion.md")
def kary_column_sq_norms(n: int, k: int) -> np.ndarray:
    """``||B(:, i)||²``: the releases that use node i.

    Node i (level v, digit d at position v) serves the releases that agree with
    i above position v and have digit >= d there: ``t in [i, hi]`` with
    ``hi = (i // k^(v+1) + 1) k^(v+1) - 1``, capped at n.

    Example
    -------
    >>> kary_column_sq_norms(8, 3).tolist()
    [2.0, 1.0, 6.0, 2.0, 1.0, 3.0, 2.0, 1.0]
    """
    n = check_n(n, per_node=48, what=f"kary_column_sq_norms(n={n})")
    k = check_branching(k, _K)
    i = np.arange(1, n + 1, dtype=np.int64)
    span = kary_node_span(i, k)
    block = span * k
    hi = (i // block + 1) * block - 1
    return (np.minimum(hi, n) - i + 1).astype(float)  # proof: kary-colnorm


def kary_errors(levels: int, k: int) -> np.ndarray:
    """``E_0..E_levels``: optimum of (5.10) for the k-ary tree with n = k^j - 1 (E_0 = 0).

    Example
    -------
    >>> from dpverify.continual.fda import fda_errors
    >>> bool(np.allclose(kary_errors(5, 2), fda_errors(5)))
    True
    """
    k = check_branching(k, _K)
    if isinstance(levels, bool) or not isinstance(levels, (numbers.Integral, np.integer)) or levels < 0:
        raise ValueError(f"levels must be an integer >= 0, got {levels!r}")
    if levels * np.log2(k) > 900:
        raise ValueError(f"levels must be <= 900 / log2(k) = {int(900 / np.log2(k))} for k = {k} "
                         f"(E_levels ~ k^levels overflows float64), got {levels!r}")
    return np.array(_errors(k, int(levels)))


@lru_cache(maxsize=256)
def _errors(k: int, levels: int) -> tuple:
    E = [0.0]
    for j in range(1, levels + 1):
        e = E[-1]
        w = (k - np.arange(1, k)) * float(k) ** (j - 1)
        E.append(e + float(np.sum((np.cbrt(e) + np.cbrt(w)) ** 3)))  # proof: kary-err
    return tuple(E)


def _groups(n: int, k: int):
    """The top-level groups of n, top level first: (level j, time of each of its d_j top nodes)."""
    digits = kary_digits(n, k)
    pos = 0
    for j in range(len(digits) - 1, -1, -1):
        d = digits[j]
        times = pos + np.arange(1, d + 1, dtype=np.int64) * k**j
        yield j, times
        pos += d * k**j


@proven("proofs/continual/kary_recursion.md")
def kary_optimum(n: int, k: int) -> float:
    """Minimum of f in (5.10) for the k-ary tree of n nodes (total MSE = 2/ε² times it).

    ``Σ_j Σ_{top nodes of level j} (E_j^(1/3) + w^(1/3))³`` with w = n - time + 1.

    Example
    -------
    >>> from dpverify.continual.fda import fda_optimum
    >>> bool(np.isclose(kary_optimum(100, 2), fda_optimum(100)))
    True
    """
    n = check_n(n)
    k = check_branching(k, _K)
    E = _errors(k, kary_levels(n, k))
    total = 0.0
    for j, times in _groups(n, k):
        w = (n - times + 1).astype(float)
        total += float(np.sum((np.cbrt(E[j]) + np.cbrt(w)) ** 3))  # proof: kary-optimum
    return total


@lru_cache(maxsize=64)
def _full_total(k: int, j: int) -> np.ndarray:
    """Optimal λ for n = k^j - 1 (read-only array)."""
    if j == 0:
        out = np.zeros(0)
    else:
        out = _assemble_total(k**j - 1, k)
    out.setflags(write=False)
    return out


def _assemble_total(n: int, k: int) -> np.ndarray:
    E = _errors(k, kary_levels(n, k))
    parts = []
    for j, times in _groups(n, k):
        sub = _full_total(k, j)
        for time in times:
            w = float(n - time + 1)
            e3, w3 = np.cbrt(E[j]), np.cbrt(w)
            alpha = e3 / (e3 + w3)  # proof: kary-alpha
            parts.append(alpha * sub)
            parts.append(np.array([1.0 - alpha]))
    return np.concatenate(parts) if parts else np.zeros(0)


def _solve_group(d: int, g_sub: float, g_tail: float) -> tuple[float, np.ndarray]:
    """Minimax over one group: top budgets β_1..β_d equalising the largest release errors.

    Releases under top node c see ``S_{c-1} + g_sub / (1 - β_c)²`` (S_c = Σ_{c'<=c} 1/β_c'²),
    those after the group ``S_d + g_tail``.  All equal T; ``T - S_d(T) - g_tail`` increases in T.
    """
    if g_sub == 0.0:  # level-0 leaves: nothing below them, full budget
        return d + g_tail, np.ones(d)

    def betas(T):
        S, out = 0.0, np.empty(d)
        for c in range(d):
            room = T - S
            if room <= g_sub:
                return None, np.inf
            b = 1.0 - np.sqrt(g_sub / room)  # proof: kary-minimax-beta
            out[c] = b
            S += 1.0 / b**2
        return out, S

    lo, hi = g_sub, 2.0 * (g_sub + g_tail + d) + 1.0
    while True:
        _, S = betas(hi)
        if hi - S - g_tail > 0:
            break
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        _, S = betas(mid)
        if mid - S - g_tail > 0:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-15 * hi:
            break
    b, _ = betas(hi)
    return hi, b


@lru_cache(maxsize=256)
def _full_minimax_value(k: int, j: int) -> float:
    return 0.0 if j == 0 else _minimax_plan(k**j - 1, k)[0]


def _minimax_plan(n: int, k: int) -> tuple[float, list]:
    """The minimax value of n and, per group (top level first), its level j and top budgets β."""
    groups = list(_groups(n, k))
    g_tail = 0.0  # the tail after the group of level j is everything of lower levels
    solved = []
    for j, times in reversed(groups):
        if times.size:
            g_tail, b = _solve_group(times.size, _full_minimax_value(k, j), g_tail)
        else:
            b = np.zeros(0)
        solved.append((j, b))
    return g_tail, solved[::-1]


@lru_cache(maxsize=64)
def _full_minimax(k: int, j: int) -> np.ndarray:
    lam = np.zeros(0) if j == 0 else _assemble_minimax(k**j - 1, k)
    lam.setflags(write=False)
    return lam


def _assemble_minimax(n: int, k: int) -> np.ndarray:
    parts = []
    for j, b in _minimax_plan(n, k)[1]:
        sub = _full_minimax(k, j)
        for beta in b:
            parts.append((1.0 - beta) * sub)
            parts.append(np.array([beta]))
    return np.concatenate(parts) if parts else np.zeros(0)


def kary_minimax_value(n: int, k: int) -> float:
    """Smallest possible largest per-release value ``max_t Σ_{path(t)} 1/λ_i²`` (times 2/ε² for the MSE).

    Example
    -------
    >>> round(kary_minimax_value(3, 2), 4)   # FDA's total-optimal weights give 5.1072 for n = 3
    4.5465
    """
    n = check_n(n)
    k = check_branching(k, _K)
    return float(_minimax_plan(n, k)[0])


def kary_weights(n: int, k: int, objective: str = "total") -> np.ndarray:
    """Optimal node weights λ_1..λ_n of the k-ary tree, O(n): ``"total"`` (5.10) or ``"minimax"``.

    Every column sum of ΣM is <= 1 (so Lap(1/ε) on ΣMa is ε-DP).

    Example
    -------
    >>> lam = kary_weights(8, 3)
    >>> round(float((kary_strategy_matrix(8, 3).T @ lam).max()), 9)   # the l1 sensitivity of ΣM
    1.0
    """
    n = check_n(n, per_node=48, what=f"kary_weights(n={n})")
    k = check_branching(k, _K)
    _check_objective(objective)
    lam = _assemble_total(n, k) if objective == "total" else _assemble_minimax(n, k)
    return lam * (1.0 - _GUARD)


def kary_path_sums(x, k: int) -> np.ndarray:
    """``B x`` for the k-ary tree: ``y_t = x_t + y_{t - k^{v_k(t)}}``, O(n) strided passes.

    The parent of t (lowest non-zero digit d at position v) has digit d − 1 there: for d = 1 a
    node of a higher level, else the same level.  So levels are done from the top down and, within
    a level, digits in increasing order; each step is one strided slice.

    Example
    -------
    >>> kary_path_sums(np.ones(5), 3).tolist()
    [1.0, 2.0, 1.0, 2.0, 3.0]
    """
    if isinstance(x, (str, bytes)) or np.asarray(x).dtype.kind not in "iuf":
        raise TypeError(f"x must be a numeric 1-d array, got {x!r}")
    x = np.asarray(x)
    if x.dtype.kind == "f":
        x = check_finite_array(x, "x", ndim=1)
    elif x.ndim != 1:
        raise ValueError(f"x must be 1-dimensional, got shape {x.shape}")
    n = x.size
    k = check_branching(k, _K)
    y = np.zeros(n + 1, dtype=np.float64 if x.dtype.kind == "f" else np.int64)
    y[1:] = x
    p = 1
    while p * k <= n:
        p *= k
    while p >= 1:  # level with span p, from the top down
        for d in range(1, k):
            tgt = y[d * p :: k * p]  # t = q k p + d p
            if not tgt.size:
                break
            tgt += y[(d - 1) * p :: k * p][: tgt.size]  # proof: kary-pathsum
        p //= k
    return y[1:]


def best_branching(n: int, objective: str = "total") -> int:
    """The library's default k: the k in 2..64 with the smallest total (or largest-release) error for n.

    Example
    -------
    >>> best_branching(4095), best_branching(4095, "minimax")
    (16, 8)
    """
    n = check_n(n)
    _check_objective(objective)
    return _best_branching(n, objective)


@lru_cache(maxsize=128)
def _best_branching(n: int, objective: str) -> int:
    ks = range(2, _MAX_BRANCHING + 1)
    f = kary_optimum if objective == "total" else kary_minimax_value
    vals = [f(n, k) for k in ks]
    return int(ks[int(np.argmin(vals))])


def _resolve(n, branching, objective):
    _check_objective(objective)
    return best_branching(n, objective) if branching is None else check_branching(branching)


@proven("proofs/continual/kary_recursion.md")
def kary_expected_mse(
    n: int, epsilon: float, *, branching: int | None = None, objective: str = "total", noise: str = "laplace"
) -> np.ndarray:
    """Exact MSE of each release of the weighted k-ary tree: ``Σ_{path(t)} var_i``, no Monte Carlo.

    ``noise="laplace"``: node variance ``2/(ε λ_i)²``; ``"discrete"``: two-sided geometric with
    ``r = exp(-ε λ_i)``, variance ``2r/(1-r)²``.

    Example
    -------
    >>> from dpverify.continual.fda import fda_weights
    >>> from dpverify.continual.fenwick import weighted_expected_mse   # k = 2: FDA on the Fenwick forest of n
    >>> bool(np.allclose(kary_expected_mse(20, 1.0, branching=2), weighted_expected_mse(fda_weights(20), 1.0)))
    True
    """
    n = check_n(n, per_node=64, what=f"kary_expected_mse(n={n})")
    eps = _check_eps(epsilon)
    k = _resolve(n, branching, objective)
    lam = kary_weights(n, k, objective)
    if noise == "laplace":
        var = 2.0 / (eps * lam) ** 2  # proof: kary-var
    elif noise == "discrete":
        var = 2.0 * np.exp(-eps * lam) / np.expm1(-eps * lam) ** 2
    else:
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    return _check_result(kary_path_sums(var, k), epsilon)


def kary_strategy(n: int, *, branching: int | None = None, objective: str = "total"):
    """``(R, A) = (B Σ⁻¹, Σ M)`` of the weighted k-ary tree (R @ A = W, max column l1 of A <= 1).

    Example
    -------
    >>> R, A = kary_strategy(5, branching=3)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((5, 5)))))
    True
    """
    n = check_n(n, per_node=24 * int(n).bit_length() + 64 if isinstance(n, int) else 0, what=f"kary_strategy(n={n})")
    k = _resolve(n, branching, objective)
    lam = kary_weights(n, k, objective)
    M = kary_strategy_matrix(n, k)
    B = kary_recombination(n, k)
    return (B @ sp.diags(1.0 / lam)).tocsr(), (sp.diags(lam) @ M).tocsr()


def kary_node_sums(a: np.ndarray, k: int) -> np.ndarray:
    """``M a``: node t = s_t - s_{t - k^{v_k(t)}} from the prefix sums, exact integers.

    Example
    -------
    >>> kary_node_sums(np.array([1, 2, 3, 4]), 3).tolist()   # node 3 covers counts 1..3
    [1, 2, 6, 4]
    """
    a = check_counts(a, "a")
    k = check_branching(k, _K)
    s = np.zeros(a.size + 1, dtype=np.int64)
    np.cumsum(a, out=s[1:])
    t = np.arange(1, a.size + 1, dtype=np.int64)
    return s[1:] - s[t - _spans(a.size, k)]


_CHUNK = 4096  # noise is drawn in chunks of nodes, in node order (batch and stream alike)


def _node_noise(lam: np.ndarray, eps: float, g: np.random.Generator, noise: str) -> np.ndarray:
    """Noise of a run of nodes: Lap(1/ε) for the weighted node, or integer DLap(1/(ελ_i)) for the count."""
    if noise == "laplace":
        return g.laplace(0.0, 1.0 / eps, size=lam.size)
    return discrete_laplace(1.0 / (eps * lam), lam.size, g)


@proven("proofs/continual/kary_recursion.md")
def kary_release(counts, epsilon: float, rng=None, noise: str = "laplace", *, branching: int | None = None,
                 objective: str = "total") -> np.ndarray:
    """Batch release ``B Σ⁻¹ (Σ M a + Lap(1/ε))``; ``noise="discrete"``: ``B (M a + DLap(1/(ελ)))``, integers.

    Example
    -------
    >>> out = kary_release([1, 0, 2, 5], 1.0, rng=0, branching=3)
    >>> out.shape
    (4,)
    """
    a = check_counts(counts, "counts")
    if a.size < 1:
        raise ValueError("counts must be non-empty")
    eps = _check_eps(epsilon)
    g = as_generator(rng)
    k = _resolve(a.size, branching, objective)
    lam = kary_weights(a.size, k, objective)
    c = kary_node_sums(a, k)
    if noise not in ("laplace", "discrete"):
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    z = np.concatenate([_node_noise(lam[lo : lo + _CHUNK], eps, g, noise) for lo in range(0, a.size, _CHUNK)])
    if noise == "discrete":
        return kary_path_sums(c + z, k)  # integer nodes, DLap(1/(ελ_i)) each
    # ε-DP: every column sum of ΣM is <= 1, so Lap(1/ε) on ΣMa suffices
    y = lam * c + z  # proof: kary-release
    return kary_path_sums(y / lam, k)


class KaryStream:
    """Online k-ary release: ``push(a_t)`` returns the noisy s_t in O(log_k n) work.

    Keeps, per level j, the true count since the last multiple of k^j (node t
    of level v is ``acc[v]``) and the noisy release at the last multiple of
    k^j (the base ``ŝ_{t - k^v}`` of eq. 5.6).  Noise is drawn from ``rng`` in
    chunks of 4096 nodes in node order, as the batch release draws it, so the
    same seed gives the same releases.

    Example
    -------
    >>> s = KaryStream(4, 1.0, rng=0, branching=3)
    >>> len([s.push(c) for c in (1, 0, 2, 1)]), s.remaining
    (4, 0)
    """

    def __init__(self, n: int, epsilon: float, rng=None, noise: str = "laplace", *, branching: int | None = None,
                 objective: str = "total"):
        self.n = check_n(n)
        self.epsilon = _check_eps(epsilon)
        if noise not in ("laplace", "discrete"):
            raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
        self.noise = noise
        self.k = _resolve(self.n, branching, objective)
        # the weights of all n nodes are precomputed (about 17 bytes a node at the peak): refuse beyond the budget
        check_budget(24 * self.n, f"the kary-fda stream of n={self.n} releases (O(n) precomputed weights)")
        self._lam = kary_weights(self.n, self.k, objective)
        self._rng = as_generator(rng)
        L = kary_levels(self.n, self.k)
        self._acc = [0] * (L + 1)
        self._base = [0 if noise == "discrete" else 0.0] * (L + 1)
        self.t = 0
        self._buf = None
        self._lo = 0

    @property
    def remaining(self) -> int:
        return self.n - self.t

    def _draw(self):
        # the same chunks, in the same order, as kary_release
        lo = self.t
        self._buf = _node_noise(self._lam[lo : lo + _CHUNK], self.epsilon, self._rng, self.noise)
        self._lo = lo

    def push(self, a_t) -> float:
        """Add the count of release t = pushes + 1; return the noisy s_t (refuses push n + 1)."""
        if isinstance(a_t, bool) or not isinstance(a_t, numbers.Real):
            raise TypeError(f"a_t must be a non-negative integer, got {a_t!r}")
        if not np.isfinite(a_t) or a_t < 0 or a_t != int(a_t):
            raise ValueError(f"a_t must be a non-negative integer, got {a_t!r}")
        if self.t >= self.n:
            raise ValueError(f"stream is bounded: n={self.n} releases already made, cannot push release {self.t + 1}")
        if self._buf is None or self.t - self._lo >= self._buf.size:
            self._draw()
        t = self.t + 1
        a = int(a_t)
        v, r = 0, t
        while r % self.k == 0:
            v, r = v + 1, r // self.k
        acc = self._acc
        for j in range(len(acc)):
            acc[j] += a
        c = acc[v]  # node t covers the counts since the last multiple of k^v
        lam = self._lam[t - 1]
        if self.noise == "laplace":
            s = self._base[v] + (lam * c + self._buf[t - 1 - self._lo]) / lam
        else:
            s = self._base[v] + (c + int(self._buf[t - 1 - self._lo]))
        for j in range(v + 1):
            acc[j] = 0
            self._base[j] = s
        self.t = t
        return s


def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(
        ContinualMethod(
            name="kary-fda",
            description="k-ary Fenwick tree with the optimal diagonal (options branching=k, objective='total'|'minimax')",
            expected_mse=kary_expected_mse,
            strategy=kary_strategy,
            release=kary_release,
            stream=KaryStream,
            online=True,
            reference="beyond seed 004: k-ary analogue of Thm 5.4 (proofs/continual/kary_recursion.md)",
        )
    )


_register()
