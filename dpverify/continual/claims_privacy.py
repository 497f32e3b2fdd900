"""continual.release.privacy: the released strategies spend at most ε, checked without the room's own
strategy() and column-sum routine (the weights read back from a release; ΣM's column sums exact)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.continual.fda import fda_weights

_V = Verdict


@claim(
    "continual.release.privacy",
    source=Source("000", "§5.4", "eq. (5.8)-(5.9): Δ_{ΣM} ≤ 1"),
    statement="Every weighted strategy released by the library has max column ℓ1 norm of ΣM ≤ 1, so the release is ε-DP "
    "with Lap(1/ε) on ΣMa (equivalently per-node scale 1/(ελ_i)); checked on the weights a release really uses, "
    "with M rebuilt from its definition and the column sums in exact arithmetic.",
    method="property",
    proof="continual/release_privacy.md",
)
def _privacy(thorough: bool = False) -> Outcome:
    # Independent of the room's strategy() and strategy_column_sums(): (1) the weights the release really
    # uses are read back from a release run (recorded Laplace draws η; x = B⁻¹(y − W a) by eq. (5.6), λ = η/x);
    # (2) the column sums of ΣM are recomputed from the definition of M (Alg. 5.2: the upward path
    # p, p + lowbit(p), …) in exact integer arithmetic on the binary expansions of the float weights.
    import warnings

    from dpverify.continual import release
    from dpverify.continual.fda import fda_forest_weights
    from dpverify.continual.fenwick import _plain_weights

    # the FDA release is a forest of complete blocks of sizes 2^m - 1 (proofs/continual/fda_any_n.md):
    # its blocks are recomputed here from that definition, not taken from the room
    weights = {"fenwick": _plain_weights, "fda": fda_forest_weights}
    blocks_of = {"fenwick": lambda n: [(0, n)], "fda": _greedy_blocks}
    rng = np.random.default_rng(7)
    ns = [1, 2, 3, 13] + [int(x) for x in rng.integers(4, 2000, size=30 if thorough else 8)]
    worst_excess, worst_used_gap, naive_gap = Fraction(-1), 0.0, 0.0
    for n in ns:
        a = rng.integers(0, 4, n)
        for method in ("naive", "fenwick", "fda"):
            g = _RecordingLaplace(n)
            with warnings.catch_warnings():  # the continuous noise is recorded on purpose
                warnings.simplefilter("ignore", UserWarning)
                y = release(a, 1.0, method, rng=g, noise="laplace")
            eta = np.concatenate(g.draws)
            if method == "naive":  # y_t − y_{t−1} − a_t = η_t: Lap(1/ε) on each count, sensitivity 1
                naive_gap = max(naive_gap, float(np.max(np.abs(np.diff(y, prepend=0.0) - a - eta))))
                continue
            w = weights[method](n)
            blocks = blocks_of[method](n)
            used = _weights_from_release(y, a, eta, blocks)
            worst_used_gap = max(worst_used_gap, float(np.max(np.abs(used / w - 1))))
            worst_excess = max(worst_excess, max(_exact_max_path_sum(w[o:o + m]) for o, m in blocks) - 1)
    big = [2**20 - 1, 10**6 + 7] if thorough else [2**16 - 1, 10**5 + 3]
    big_excess = max(max(_exact_max_path_sum(fda_forest_weights(n)[o:o + m]) for o, m in _greedy_blocks(n)) - 1
                     for n in big)
    big_excess = max(big_excess, max(_exact_max_path_sum(fda_weights(n)) - 1 for n in big))  # the plain weighting too
    ok = worst_excess <= 0 and big_excess <= 0 and worst_used_gap < 1e-6 and naive_gap < 1e-9
    ev = {"max_column_l1_minus_1_exact": float(max(worst_excess, big_excess)),
          "max_column_l1_exceeds_1": bool(worst_excess > 0 or big_excess > 0),
          "weights_used_by_release_vs_weight_function_rel_gap": worst_used_gap,
          "naive_noise_is_lap(1/eps)_gap": naive_gap, "n_checked": ns, "large_n": big}
    if ok:
        return Outcome(_V.HOLDS, ev)
    return Outcome(_V.REFUTED, ev, summary=(
        "A released strategy's column ℓ1 norm of ΣM exceeds 1 (exact arithmetic)" if worst_excess > 0 or big_excess > 0
        else "The release does not use the weights whose column sums were checked (or the naive noise is not Lap(1/ε)).")
        + ".")


class _RecordingLaplace(np.random.Generator):
    """A Generator recording every Laplace draw (the release's noise vector η)."""

    def __init__(self, seed: int):
        super().__init__(np.random.PCG64(seed))
        self.draws: list = []

    def laplace(self, loc=0.0, scale=1.0, size=None):
        out = super().laplace(loc, scale, size)
        self.draws.append(np.array(out, dtype=float, copy=True))
        return out


def _greedy_blocks(n: int) -> list[tuple[int, int]]:
    """The forest's blocks by their definition: greedily the largest 2^m - 1 that fits, left to right."""
    out, o = [], 0
    while o < n:
        m = 1
        while 2 ** (m + 1) - 1 <= n - o:
            m += 1
        out.append((o, 2**m - 1))
        o += 2**m - 1
    return out


def _weights_from_release(y: np.ndarray, a: np.ndarray, eta: np.ndarray, blocks) -> np.ndarray:
    """λ_t = η_t / x_t with x = B⁻¹(y − W a): x_t = e_t − e_{o + i − lowbit i} for t = o + i in block (o, size),
    e = y − cumsum(a) (eq. 5.6 within each block; e_o carries the earlier blocks' roots)."""
    n = y.size
    e = np.concatenate([[0.0], y - np.cumsum(a)])
    t = np.arange(1, n + 1)
    o = np.zeros(n, dtype=np.int64)
    for off, size in blocks:
        o[off:off + size] = off
    i = t - o
    x = e[t] - e[o + i - (i & -i)]
    return eta / x


def _exact_max_path_sum(w) -> Fraction:
    """max_p Σ_{pt on the upward path of p} λ_pt, exactly: Python integers on the common binary denominator."""
    ratios = [float(v).as_integer_ratio() for v in w]
    K = max(d.bit_length() - 1 for _, d in ratios)
    lam = [num << (K - (d.bit_length() - 1)) for num, d in ratios]
    n = len(lam)
    u = [0] * (n + 2)
    best = 0
    for p in range(n, 0, -1):  # the parent p + lowbit(p) > p is done first (Alg. 5.2, corrected: pt ≤ N)
        par = p + (p & -p)
        u[p] = lam[p - 1] + (u[par] if par <= n else 0)
        best = max(best, u[p])
    return Fraction(best, 1 << K)
