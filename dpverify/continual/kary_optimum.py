"""The optimal diagonal of the k-ary Fenwick tree (the k-ary FDA), for any n and any k >= 2.

Optimal diagonal (``continual/kary_recursion.md``).  Let E_j be the optimum of (5.10) for
n = k^j - 1.  The n = k^j - 1 problem splits into k copies of the k^(j-1) - 1 problem and k - 1
top nodes at times c k^(j-1); the c-th top node serves w_c = (k - c) k^(j-1) releases and shares
its budget with the copy below it, so with the copy scaled by α:

    h_c(α) = E_{j-1}/α² + w_c/(1-α)²,   α* = E^(1/3) / (E^(1/3) + w^(1/3)),
    min h_c = (E^(1/3) + w^(1/3))³,
    E_j = E_{j-1} + Σ_{c=1}^{k-1} (E_{j-1}^(1/3) + ((k-c) k^(j-1))^(1/3))³       (k-ary eq. 20)

For k = 2 this is the paper's recursion.  Any n: its base-k digits d_j give d_j top nodes at
level j (serving w = n - time + 1 releases each) over full copies, and the rest recurses
(``kary_optimum``).  The *minimax* variant minimises the largest per-release error instead; the
same block structure gives a one-dimensional equation per level (``kary_minimax_value``).

Example
-------
>>> import numpy as np
>>> from dpverify.continual.fda import fda_weights
>>> bool(np.allclose(kary_weights(11, 2), fda_weights(11)))
True
"""

from __future__ import annotations

import numbers
from functools import lru_cache

import numpy as np

from dpverify.continual.checks import check_n
from dpverify.continual.kary_tree import K_NAME, check_branching, kary_digits, kary_levels
from dpverify.proofdocs import proven

__all__ = ["OBJECTIVES", "check_objective", "resolve_branching", "kary_errors", "kary_optimum",
           "kary_minimax_value", "kary_weights", "best_branching"]

_GUARD = 1e-12  # λ scaled by (1 - _GUARD) so float rounding never lifts a column sum of ΣM above 1

_MAX_BRANCHING = 64

OBJECTIVES = ("total", "minimax")


def check_objective(objective: str) -> str:
    """The objective of the optimal diagonal: ``"total"`` (the sum of the errors) or ``"minimax"``.

    Example
    -------
    >>> check_objective("minimax")
    'minimax'
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    return objective


def kary_errors(levels: int, k: int) -> np.ndarray:
    """``E_0..E_levels``: optimum of (5.10) for the k-ary tree with n = k^j - 1 (E_0 = 0).

    Example
    -------
    >>> from dpverify.continual.fda import fda_errors
    >>> bool(np.allclose(kary_errors(5, 2), fda_errors(5)))
    True
    """
    k = check_branching(k, K_NAME)
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


@proven("continual/kary_recursion.md")
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
    k = check_branching(k, K_NAME)
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
    k = check_branching(k, K_NAME)
    return float(_minimax_plan(n, k)[0])


def kary_weights(n: int, k: int, objective: str = "total") -> np.ndarray:
    """Optimal node weights λ_1..λ_n of the k-ary tree, O(n): ``"total"`` (5.10) or ``"minimax"``.

    Every column sum of ΣM is <= 1 (so Lap(1/ε) on ΣMa is ε-DP).

    Example
    -------
    >>> from dpverify.continual.kary_tree import kary_strategy_matrix
    >>> lam = kary_weights(8, 3)
    >>> round(float((kary_strategy_matrix(8, 3).T @ lam).max()), 9)   # the l1 sensitivity of ΣM
    1.0
    """
    n = check_n(n, per_node=48, what=f"kary_weights(n={n})")
    k = check_branching(k, K_NAME)
    check_objective(objective)
    lam = _assemble_total(n, k) if objective == "total" else _assemble_minimax(n, k)
    return lam * (1.0 - _GUARD)


def best_branching(n: int, objective: str = "total") -> int:
    """The library's default k: the k in 2..64 with the smallest total (or largest-release) error for n.

    Example
    -------
    >>> best_branching(4095), best_branching(4095, "minimax")
    (16, 8)
    """
    n = check_n(n)
    check_objective(objective)
    return _best_branching(n, objective)


@lru_cache(maxsize=128)
def _best_branching(n: int, objective: str) -> int:
    ks = range(2, _MAX_BRANCHING + 1)
    f = kary_optimum if objective == "total" else kary_minimax_value
    vals = [f(n, k) for k in ks]
    return int(ks[int(np.argmin(vals))])


def resolve_branching(n: int, branching: int | None = None, objective: str = "total") -> int:
    """``branching`` checked, or the best branching for n and the objective when it is None.

    Example
    -------
    >>> resolve_branching(100, 3, "total"), resolve_branching(7, None, "total")
    (3, 8)
    """
    n = check_n(n)
    check_objective(objective)
    return best_branching(n, objective) if branching is None else check_branching(branching)
