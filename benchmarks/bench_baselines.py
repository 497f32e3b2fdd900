"""Speed of the baselines and the k-ary FDA, as ratios measured in one run.

    python benchmarks/bench_baselines.py

Also prints how far the online methods are from the offline p-Identity optimum and the L1 lower bound
(issue 13).

Targets (issue 6): the m = 1..25 static comparison (Boost, Privelet vs FDA) in under a minute;
everything exact in O(N log N) — the k-ary weights and exact MSE for N = 2^25 − 1 against FDA's,
and the k-ary release against the naive release (N draws and a cumulative sum).
"""

import time

import numpy as np

from dpverify.continual import expected_mse, release, stream
from dpverify.continual.experiments import comparison_table, static_vs_fda
from dpverify.continual.fda import fda_weights
from dpverify.continual.kary import kary_weights


def clock(fn, *a, **k):
    t = time.perf_counter()
    out = fn(*a, **k)
    return time.perf_counter() - t, out


def main():
    rows = []
    t_fast, _ = clock(static_vs_fda, 25)
    t_full, _ = clock(static_vs_fda, 25, per_release=True)
    rows.append(("static comparison m=1..25, O(log n) totals", t_fast, None))
    rows.append(("static comparison m=1..25, exact per-release arrays (target < 60 s)", t_full, None))

    n = 2**25 - 1
    t_f, _ = clock(fda_weights, n)
    t_k, _ = clock(kary_weights, n, 16)
    rows.append((f"kary_weights(2^25-1, k=16) / fda_weights (FDA {t_f:.3f} s)", t_k, t_k / t_f))
    t_fm, _ = clock(expected_mse, n, 1.0, "fda")
    t_km, _ = clock(expected_mse, n, 1.0, "kary-fda", branching=16)
    rows.append((f"exact MSE kary-fda / fda, n = 2^25-1 (FDA {t_fm:.2f} s)", t_km, t_km / t_fm))
    t_bm, _ = clock(expected_mse, 2**25, 1.0, "boost")
    rows.append(("exact MSE boost, n = 2^25", t_bm, None))

    n = 2**22 - 1
    a = np.random.default_rng(0).poisson(3, n)
    t_naive, _ = clock(release, a, 1.0, "naive", rng=1)
    for meth, opts in [("fda", {}), ("kary-fda", {"branching": 16}), ("binary", {}), ("honaker", {})]:
        t_m, _ = clock(release, a, 1.0, meth, rng=1, **opts)
        rows.append((f"batch release {meth} {opts} / naive, n = 2^22-1 (naive {t_naive:.2f} s)", t_m, t_m / t_naive))

    m = 200_000
    for meth, opts in [("fda", {}), ("kary-fda", {"branching": 16}), ("binary", {}), ("honaker", {})]:
        s = stream(m, 1.0, meth, rng=2, **opts)
        t = time.perf_counter()
        for _ in range(m):
            s.push(1)
        dt = (time.perf_counter() - t) / m
        rows.append((f"stream push {meth} {opts}, µs per release", dt * 1e6, None))

    t_tab, _ = clock(comparison_table, 2**20 - 1)
    rows.append(("comparison table at 2^20 - 1 (all methods, exact)", t_tab, None))

    for name, sec, ratio in rows:
        r = "" if ratio is None else f"   ratio {ratio:6.2f}"
        print(f"{name:85s} {sec:9.3f}{r}")

    # how far the online methods are from the offline references (exact totals, ε = 1)
    from dpverify.continual.experiments import factorization_lower_bound
    from dpverify.continual.hdmm import p_identity, prefix_workload

    n = 1023
    t_off, off = clock(p_identity, prefix_workload(n), p=32, rng=0)
    lb = factorization_lower_bound(n, 1.0)
    print(f"\noffline references at N = {n}: p-Identity (HDMM-style, p = 32, {t_off:.1f} s) {off.total_mse(1.0):,.0f}; "
          f"L1 SVD lower bound {lb:,.0f}")
    for meth in ("fda", "kary-fda", "honaker", "binary", "elders"):
        tot = expected_mse(n, 1.0, meth).sum()
        print(f"  {meth:10s} total {tot:14,.0f}   / offline p-Identity {tot / off.total_mse(1.0):6.2f}   / lower bound {tot / lb:6.2f}")


if __name__ == "__main__":
    main()
