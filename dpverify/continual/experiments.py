"""The experiments of Cai, Wu and Wang's paper, §5, and the beyond-FDA comparison, computed exactly.

Every number here is an exact expected squared error (closed form or exact
sums; ε = 1 as in the paper unless given); :func:`simulate_mse` repeats a
release with a seeded generator to confirm them the way the paper measured
(500 repetitions).

- §5.1 :func:`naive_vs_fda` — where the naive method stops being better (N = 4095).
- §5.2 :func:`bm_vs_fda` — per-release ratio binary mechanism / FDA.
- §5.3 :func:`static_vs_fda` — Boost and Privelet over 2^m leaves vs FDA over 2^m − 1, m = 1..25.
- beyond: :func:`comparison_table` — total, mean and largest per-release MSE of every method, with
  :func:`factorization_lower_bound` (no factorization R·A = W with ||A||_1 <= 1 does better).

Example
-------
>>> from dpverify.continual.experiments import bm_vs_fda
>>> r = bm_vs_fda(63)
>>> r.fda_better_fraction > 0.5
True
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from dpverify.validation import as_generator, check_budget, check_epsilon, check_positive_int, check_work
from dpverify.continual.api import expected_mse, release
from dpverify.continual.baselines import (
    honaker_level_variances,
    honaker_level_weights,
    static_total_mse,
)
from dpverify.continual.digits import digit_sums
from dpverify.continual.fda import fda_optimum
from dpverify.continual.checks import check_eps, check_result, check_n
from dpverify.continual.kary import best_branching, check_branching
from dpverify.proofdocs import proven

__all__ = [
    "NaiveCrossover",
    "RatioSummary",
    "StaticComparison",
    "TableRow",
    "naive_vs_fda",
    "bm_vs_fda",
    "static_vs_fda",
    "w_singular_values",
    "factorization_lower_bound",
    "best_honaker",
    "comparison_table",
    "simulate_mse",
]


@dataclass(frozen=True)
class NaiveCrossover:
    """§5.1: naive MSE 2t/ε² against FDA's per-release MSE.

    ``first``: first release where naive is worse; ``last``: last release where naive is
    better; ``majority``: centre of the first window (``window`` releases) in which naive is
    better in fewer than half the releases; ``mean_equal``: t with 2t/ε² = FDA's mean MSE.

    Example
    -------
    >>> r = naive_vs_fda(n=63, window=10)
    >>> isinstance(r, NaiveCrossover), r.n
    (True, 63)
    """

    n: int
    first: int
    last: int
    majority: int
    mean_equal: float
    window: int


def naive_vs_fda(n: int = 4095, epsilon: float = 1.0, window: int = 100) -> NaiveCrossover:
    """Where the naive method stops being better than FDA (exact per-release MSEs); Cai, Wu, Wang 2016, §5.1.

    Example
    -------
    >>> c = naive_vs_fda(4095)
    >>> c.first, c.last, c.majority
    (128, 545, 391)
    """
    n = check_positive_int(n, "n")
    window = check_positive_int(window, "window")
    if window > n:
        raise ValueError(f"window must be <= n = {n}, got {window}")
    f = expected_mse(n, epsilon, "fda")
    nv = expected_mse(n, epsilon, "naive")
    t = np.arange(1, n + 1)
    worse = nv > f
    better = nv < f
    frac = np.convolve(better.astype(float), np.ones(window) / window, mode="valid")
    below = np.flatnonzero(frac < 0.5)
    return NaiveCrossover(
        n=n,
        first=int(t[worse][0]) if worse.any() else -1,
        last=int(t[better][-1]) if better.any() else 0,
        majority=int(below[0] + window // 2 + 1) if below.size else -1,
        mean_equal=float(f.mean() / (2.0 / check_epsilon(epsilon) ** 2)),
        window=window,
    )


@dataclass(frozen=True)
class RatioSummary:
    """§5.2: r_t = MSE_BM(t) / MSE_FDA(t) and how even each method's errors are.

    Example
    -------
    >>> r = bm_vs_fda(n=63)
    >>> isinstance(r, RatioSummary), r.n, r.levels
    (True, 63, 6)
    """

    n: int
    levels: int
    median: float
    fraction_2_to_4: float
    max: float
    min: float
    fda_better_fraction: float
    cv_fda: float
    cv_bm: float
    max_over_mean_fda: float
    max_over_mean_bm: float


def bm_vs_fda(n: int = 4095, epsilon: float = 1.0, levels: int | None = None) -> RatioSummary:
    """Per-release ratio of the binary mechanism (``levels`` L, default floor(log2 n)+1) to FDA; Cai, Wu, Wang 2016, §5.2.

    Example
    -------
    >>> round(bm_vs_fda(4095).max, 2)
    6.03
    """
    n = check_positive_int(n, "n")
    opts = {} if levels is None else {"levels": levels}
    b = expected_mse(n, epsilon, "binary", **opts)
    f = expected_mse(n, epsilon, "fda")
    r = b / f
    return RatioSummary(
        n=n,
        levels=int(levels if levels is not None else n.bit_length()),
        median=float(np.median(r)),
        fraction_2_to_4=float(np.mean((r >= 2) & (r <= 4))),
        max=float(r.max()),
        min=float(r.min()),
        fda_better_fraction=float(np.mean(r > 1)),
        cv_fda=float(f.std() / f.mean()),
        cv_bm=float(b.std() / b.mean()),
        max_over_mean_fda=float(f.max() / f.mean()),
        max_over_mean_bm=float(b.max() / b.mean()),
    )


@dataclass(frozen=True)
class StaticComparison:
    """§5.3: mean per-release MSE of Boost, Privelet (n = 2^m leaves) and FDA (n = 2^m − 1).

    Example
    -------
    >>> r = static_vs_fda(m_max=3)
    >>> isinstance(r, StaticComparison), r.m.tolist()
    (True, [1, 2, 3])
    """

    m: np.ndarray
    boost: np.ndarray
    privelet: np.ndarray
    fda: np.ndarray

    @property
    def boost_ratio(self) -> np.ndarray:
        return self.boost / self.fda

    @property
    def privelet_ratio(self) -> np.ndarray:
        return self.privelet / self.fda


def static_vs_fda(m_max: int = 25, epsilon: float = 1.0, *, per_release: bool = False) -> StaticComparison:
    """Mean per-release MSE for m = 1..m_max (FDA needs m >= 1: N = 2^m − 1 >= 1).

    ``per_release=False`` sums the closed forms over t in O(log n) per m; ``True`` sums
    the exact per-release arrays (O(n) per m, ~2^26 values at m = 25).  Cai, Wu, Wang 2016, §5.3.

    Example
    -------
    >>> s = static_vs_fda(25)
    >>> s.boost_ratio[[0, 24]].round(4).tolist()
    [2.6667, 0.6255]
    """
    m_max = check_positive_int(m_max, "m_max", maximum=61)  # n = 2^m_max < 2^62 positions
    eps = check_eps(epsilon)
    if not isinstance(per_release, (bool, np.bool_)):
        raise TypeError(f"per_release must be True or False, got {per_release!r}")
    if per_release:
        check_budget(64.0 * 2**m_max, f"m_max = {m_max} with per_release=True (arrays of 2^m_max releases)")
    ms = np.arange(1, m_max + 1)
    bo, pr, fd = [], [], []
    for m in ms:
        n = 2 ** int(m)
        if per_release:
            bo.append(expected_mse(n, eps, "boost").mean())
            pr.append(expected_mse(n, eps, "privelet").mean())
        else:
            bo.append(static_total_mse(n, eps, "boost") / n)
            pr.append(static_total_mse(n, eps, "privelet") / n)
        fd.append(2.0 / eps**2 * fda_optimum(n - 1) / (n - 1))
    return StaticComparison(ms, np.array(bo), np.array(pr), np.array(fd))


@proven("continual/baselines_lower_bound.md")
def w_singular_values(n: int) -> np.ndarray:
    """Singular values of the n×n lower-triangular ones matrix W, descending:
    ``σ_j = 1 / (2 sin((2j − 1)π / (2(2n + 1))))``, j = 1..n (``continual/baselines_lower_bound.md``).

    Example
    -------
    >>> w_singular_values(2).round(4).tolist()   # W = [[1, 0], [1, 1]]
    [1.618, 0.618]
    """
    n = check_n(n, per_node=32, what=f"w_singular_values(n={n})")
    j = np.arange(1, n + 1)
    return 1.0 / (2.0 * np.sin((2 * j - 1) * np.pi / (2.0 * (2 * n + 1))))  # proof: w-singular


@proven("continual/baselines_lower_bound.md")
def factorization_lower_bound(n: int, epsilon: float = 1.0) -> float:
    """Lower bound on the total MSE of ``R (A a + Lap(1/ε))`` over all R·A = W with ||A||_1 <= 1:
    ``(2/ε²) ||W||_*² / n`` (nuclear norm; Li–Miklau's SVD bound, valid since column l1 >= l2).

    Example
    -------
    >>> round(factorization_lower_bound(2, 1.0), 4)   # 2 · (φ + 1/φ)² / 2 = 5
    5.0
    """
    eps = check_eps(epsilon)
    s = w_singular_values(n)
    bound = 2.0 / eps**2 * float(s.sum()) ** 2 / n  # proof: svd-bound
    return float(check_result(np.asarray(bound), epsilon))


def best_honaker(n: int, ks=range(2, 17)) -> tuple[int, float]:
    """The branching k (with optimised level shares) of the smallest total Honaker MSE, and that total/(2/ε²).

    Example
    -------
    >>> from dpverify.continual.baselines import honaker_expected_mse
    >>> k, total = best_honaker(15, ks=range(2, 5))
    >>> k in (2, 3, 4), bool(np.isclose(total, honaker_expected_mse(15, 1.0, branching=k, weights="optimized").sum() / 2))
    (True, True)
    """
    n = check_positive_int(n, "n")
    if isinstance(ks, (str, bytes)):
        raise TypeError(f"ks must be an iterable of branching factors, got {ks!r}")
    try:
        ks = iter(ks)
    except TypeError:
        raise TypeError(f"ks must be an iterable of branching factors, got {ks!r}") from None
    best = None
    for k in ks:
        k = check_branching(k, "ks")
        lam = honaker_level_weights(n, k, "optimized")
        tot = float(honaker_level_variances(lam, k, 1.0) @ digit_sums(n, k, lam.size)) / 2.0
        if best is None or tot < best[1]:
            best = (k, tot)
    if best is None:
        raise ValueError("ks must contain at least one branching factor >= 2, got none")
    return best


@dataclass(frozen=True)
class TableRow:
    """One method in the comparison: exact total, mean and largest per-release MSE (ε as given).

    Example
    -------
    >>> rows = comparison_table(7)
    >>> isinstance(rows[0], TableRow), rows[0].total > 0
    (True, True)
    """

    label: str
    method: str
    options: dict
    online: bool
    total: float
    mean: float
    max: float


def comparison_table(n: int, epsilon: float = 1.0) -> list[TableRow]:
    """Every method at n releases, exact.  Static methods run over 2^⌈log2(n+1)⌉ leaves and are
    scored on their first n releases; the last row is the lower bound for any factorization
    (its ``max`` is the bound on the mean, which also bounds the largest release).

    Example
    -------
    >>> rows = comparison_table(63)
    >>> fda = next(r for r in rows if r.method == "fda")
    >>> all(r.total >= rows[-1].total for r in rows[:-1]), fda.online
    (True, True)
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    k_tot = best_branching(n, "total")
    k_mm = best_branching(n, "minimax")
    k_hon, _ = best_honaker(n)
    specs = [
        ("naive", "naive", {}, True),
        ("binary mechanism (CSS, L = ⌊log2 n⌋+1)", "binary", {}, True),
        ("Fenwick, unweighted", "fenwick", {}, True),
        ("FDA (paper)", "fda", {}, True),
        ("FDA structure, minimax weights", "kary-fda", {"branching": 2, "objective": "minimax"}, True),
        ("Honaker online, binary tree", "honaker", {}, True),
        (f"Honaker online, k={k_hon}, optimised levels", "honaker", {"branching": k_hon, "weights": "optimized"}, True),
        (f"k-ary FDA, k={k_tot}", "kary-fda", {"branching": k_tot}, True),
        (f"k-ary FDA minimax, k={k_mm}", "kary-fda", {"branching": k_mm, "objective": "minimax"}, True),
    ]
    rows = []
    for label, meth, opts, online in specs:
        v = expected_mse(n, eps, meth, **opts)
        rows.append(TableRow(label, meth, opts, online, float(v.sum()), float(v.mean()), float(v.max())))
    leaves = 1 << (n - 1).bit_length()  # smallest power of two >= n
    for meth in ("boost", "privelet"):
        v = expected_mse(leaves, eps, meth)[:n]
        rows.append(TableRow(f"{meth} (offline, {leaves} leaves)", meth, {}, False, float(v.sum()), float(v.mean()),
                             float(v.max())))
    lb = factorization_lower_bound(n, eps)
    rows.append(TableRow("lower bound, any factorization", "bound", {}, False, lb, lb / n, lb / n))
    return rows


def simulate_mse(method: str, n: int, epsilon: float, reps: int, rng=None, *, noise: str = "laplace",
                 **options) -> np.ndarray:
    """Empirical per-release MSE over ``reps`` seeded releases of synthetic counts (Poisson(5) each rep).

    The error of these linear mechanisms does not depend on the data (the paper's remark in §5);
    the counts are redrawn anyway so the check does not rely on it.  ``noise`` is the noise whose
    MSE is simulated: ``"laplace"`` (the default, as :func:`expected_mse`'s; synthetic counts, so the
    float-Laplace warning of ``release`` is silenced here) or ``"discrete"``.

    Example
    -------
    >>> simulate_mse("naive", 3, 1.0, 4, rng=0).shape
    (3,)
    """
    n = check_positive_int(n, "n")
    reps = check_positive_int(reps, "reps")
    check_work(float(n) * reps, f"reps={reps} releases of n={n} counts")
    g = as_generator(rng)
    acc = np.zeros(n)
    for _ in range(reps):
        a = g.poisson(5.0, size=n)
        s = np.cumsum(a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            out = release(a, epsilon, method, rng=g, noise=noise, **options)
        acc += (np.asarray(out, dtype=float) - s) ** 2
    return acc / reps
