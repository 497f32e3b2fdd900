"""Cai, Wu and Wang's Alg. 5 (the online FDA release) as printed, instrumented to count its work.

Alg. 5 (004 §4.3), for t = 1..T, T = 2^m − 1:

1. ``for t = 1 to T``;  2. ``p ← lb(lowbit(t))`` (the level of node t);
3. (lost in extraction) node t's true value c_t = a_t + the stored values of levels 0..p−1 (its children);
4. ``for i = 1 to p − 1: ĉ_i = 0`` (the slots below level p are freed: space reuse);
5. ``λ_t ← coef(t, m)`` (Alg. 4);  6. (lost) the noisy weighted node ĉ_p = λ_t c_t + Lap(1/ε);
7. (lost) k ← t, s ← 0;  8. ``while k > 0``:  9. ``q ← lb(lowbit(k))``;  10. ``λ_k ← coef(k, m)``;
11–12. (lost) s ← s + ĉ_q / λ_k;  13. ``k ← k − lowbit(k)``;  14. ``wend``; release s_t = s.

The lost lines are filled with the only operations the surviving ones and eq. (5.6)/(5.8) allow.
Line 10 calls ``coef`` -- itself an O(log N) loop -- for every node of t's descent path, so a release
costs O(log² N) coef-loop iterations, not the O(log N) of the unweighted Fenwick release; the library's
stream (:class:`dpverify.continual.fenwick.FenwickStream`) stores λ with each node instead.

:func:`coef_counted` is Alg. 4 written out with an iteration counter (the same walk as
:func:`dpverify.continual.fda.coef`); :func:`alg5_release` runs Alg. 5 on given noise and returns
the releases with the counts.

Example
-------
>>> r = alg5_release([1, 0, 2], epsilon=1e9, m=2, noise="discrete", rng=0)
>>> r.releases.tolist(), r.coef_calls
([1, 1, 3], 7)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.validation import as_generator, check_counts, check_finite_array, check_positive_int
from dpverify.continual.fda import fda_errors
from dpverify.continual.checks import check_eps
from dpverify.primitives.sampling import discrete_laplace

__all__ = ["Alg5Result", "alpha_table", "coef_counted", "alg5_release"]


def alpha_table(m: int) -> np.ndarray:
    """α_1..α_m of the recursion (α_t = alpha[t − 1]): the optimal split of the size-(2^t − 1) problem.

    Example
    -------
    >>> from dpverify.continual.fda import fda_weights
    >>> abs(float(alpha_table(2)[1]) - (1 - float(fda_weights(3)[1]))) < 1e-9   # α_2 = 1 − λ_2 at N = 3
    True
    """
    m = check_positive_int(m, "m")
    err = fda_errors(m)
    return np.cbrt(err) / (np.cbrt(err) + np.cbrt(2.0 ** np.arange(m + 1)))


def coef_counted(k: int, m: int, alpha: np.ndarray, counter: list | None = None) -> float:
    """Alg. 4 coef(k, m) with its loop iterations added to ``counter[0]`` (``counter`` None: not counted).

    ``alpha`` holds α_1..α_m (:func:`alpha_table`), each in [0, 1]; ``m`` is at most 62 (k <= 2^m − 1
    must fit an int64 time step).

    Example
    -------
    >>> from dpverify.continual.fda import fda_weights
    >>> c = [0]
    >>> lam = coef_counted(1, 3, alpha_table(3), c)
    >>> abs(lam - float(fda_weights(7)[0])) < 1e-9, c[0]   # the optimum of (5.10); two halvings of div
    (True, 2)
    """
    m = check_positive_int(m, "m", maximum=62)
    k = check_positive_int(k, "k")
    if k > 2**m - 1:
        raise ValueError(f"k must be <= 2^m − 1 = {2**m - 1}, got {k}")
    alpha = check_finite_array(alpha, "alpha", ndim=1)
    if len(alpha) < m:
        raise ValueError(f"alpha must hold α_1..α_m ({m} values), got {len(alpha)}")
    if ((alpha < 0) | (alpha > 1)).any():
        raise ValueError(f"alpha must hold splits in [0, 1], got {alpha[(alpha < 0) | (alpha > 1)][0]!r}")
    if counter is None:
        counter = [0]
    elif not isinstance(counter, list) or not counter or not isinstance(counter[0], (int, np.integer)) \
            or isinstance(counter[0], (bool, np.bool_)):
        raise TypeError(f"counter must be a list whose first item is an integer count, got {counter!r}")
    lam, kt, t, div = 1.0, k, m, 2 ** (m - 1)  # 1-2: λ ← 1, kt ← k, t ← m, div ← 2^(m−1)
    while div != kt:  # 3
        counter[0] += 1
        if kt < div:  # 4: left half, the α-scaled copy
            lam *= alpha[t - 1]
        else:  # 5: right half, the unscaled copy
            kt -= div
        t -= 1  # 6: div halves every iteration: O(log N)
        div //= 2
    return float(lam * (1.0 - alpha[t - 1]))  # 8


@dataclass(frozen=True)
class Alg5Result:
    """Releases of Alg. 5 and its instrumented cost.

    ``coef_calls`` / ``coef_iterations`` in total; ``per_release_iterations[t−1]`` the coef-loop
    iterations of release t (lines 5 and 10); ``slots`` the size of the node store (m levels);
    ``max_live_slots`` the most slots holding a node at once.

    Example
    -------
    >>> alg5_release([0, 0, 0], epsilon=1.0, m=2, rng=0).slots
    2
    """

    releases: np.ndarray
    coef_calls: int
    coef_iterations: int
    per_release_iterations: np.ndarray
    per_release_path: np.ndarray
    slots: int
    max_live_slots: int


def alg5_release(counts, *, epsilon: float, m: int, noise: str = "laplace", rng=None) -> Alg5Result:
    """Run Alg. 5 on T = 2^m − 1 counts; node noise drawn like the batch release (one draw per node).

    With ``noise="laplace"`` node t gets λ_t c_t + Lap(1/ε) (all T draws at once, as
    ``dpverify.continual.release`` does); with ``"discrete"`` c_t + a two-sided geometric of scale
    1/(ε λ_t). Seeded alike, the releases equal the batch release with weights coef(·, m).

    Example
    -------
    >>> alg5_release([2, 1, 0], epsilon=1e9, m=2, noise="discrete", rng=0).per_release_path.tolist()
    [1, 1, 2]
    """
    m = check_positive_int(m, "m", maximum=61)  # T = 2^m − 1 counts: int64 positions
    eps = check_eps(epsilon)
    a = check_counts(counts, "counts", nonempty=True)
    T = 2**m - 1
    if a.size != T:
        raise ValueError(f"counts must have 2^m − 1 = {T} entries, got {a.size}")
    if noise not in ("laplace", "discrete"):
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    g = as_generator(rng)
    alpha = alpha_table(m)
    counter = [0]
    if noise == "laplace":
        eta = g.laplace(0.0, 1.0 / eps, size=T)
    else:  # the scales need every λ_t first (the batch release draws them the same way)
        eta = discrete_laplace(1.0 / (eps * np.array([coef_counted(t, m, alpha, [0]) for t in range(1, T + 1)])), T, g)
    true = [0] * m  # exact node values by level (the children of the next node)
    noisy = [0.0] * m  # ĉ by level
    live = [False] * m
    out = np.zeros(T, dtype=np.int64 if noise == "discrete" else float)
    per_it, per_path = np.zeros(T, dtype=np.int64), np.zeros(T, dtype=np.int64)
    calls, max_live = 0, 0
    for t in range(1, T + 1):  # 1
        before = counter[0]
        p = (t & -t).bit_length() - 1  # 2: p ← lb(lowbit(t))
        c = int(a[t - 1]) + sum(true[i] for i in range(p))  # 3: c_t = a_t + its children (levels < p)
        for i in range(p):  # 4: free the slots below level p
            true[i], noisy[i], live[i] = 0, 0.0, False
        lam_t = coef_counted(t, m, alpha, counter)  # 5
        calls += 1
        true[p], live[p] = c, True
        noisy[p] = lam_t * c + eta[t - 1] if noise == "laplace" else c + int(eta[t - 1])  # 6
        max_live = max(max_live, sum(live))
        k, s, path = t, 0, 0  # 7
        while k > 0:  # 8
            q = (k & -k).bit_length() - 1  # 9
            lam_k = coef_counted(k, m, alpha, counter)  # 10: coef again, for every node of the path
            calls += 1
            s = s + (noisy[q] / lam_k if noise == "laplace" else noisy[q])  # 11-12
            path += 1
            k -= k & -k  # 13
        out[t - 1] = s
        per_it[t - 1], per_path[t - 1] = counter[0] - before, path
    return Alg5Result(out, calls, counter[0], per_it, per_path, m, max_live)
