"""Benchmarks of the statistical auditor: tightness, speed, time to refute the buggy mechanisms.

Run: ``python benchmarks/bench_audit.py`` (add ``--quick`` for a shorter run).  Everything is
measured in this run and printed with the ratio to its target; nothing is hard-coded.

Targets (issue 4): Laplace ε = 1 → ε_lb ≥ 0.98 at 99 % from 10^6 samples per input in < 2 s;
Laplace ε = 0.1 → ε_lb ≥ 0.098 from 10^7; ≥ 10 M Laplace samples/s/core through the pipeline
(scalar outputs); each buggy mechanism refuted in < 60 s.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from dpverify.audit import epsilon_lower_bound  # noqa: E402
from dpverify.audit.mechanisms import (  # noqa: E402
    BinDifference,
    HistogramLaplace,
    LaplaceMechanism,
    NoisyMax,
    SparseVector,
)
from dpverify.audit.statistical import PatternCode  # noqa: E402
from dpverify.selftest.controls import ExponentialMechanism  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def row(name, value, target, ok, extra=""):
    print(f"{name:52s} {value:>12.5g}  target {target:<8g} ratio {value / target:7.3f}  {'OK  ' if ok else 'MISS'} {extra}")


def main(quick: bool = False) -> int:
    seeds = range(3 if quick else 5)
    misses = 0
    print("== tightness (confidence 0.99; target = every seed; sel = selection_fraction) ==")
    for eps, n, target, tmax, sel in [(1.0, 10**6, 0.98, 2.0, 0.5), (0.1, 10**7, 0.098, None, 0.5),
                                      (0.1, 10**7, 0.098, None, 0.2)]:
        vals, times = [], []
        for s in seeds:
            r, dt = timed(lambda: epsilon_lower_bound(LaplaceMechanism(eps), 0.0, 1.0, samples=n, rng=s,
                                                      selection_fraction=sel))
            vals.append(r.epsilon)
            times.append(dt)
        ok = min(vals) >= target and (tmax is None or max(times) < tmax)
        misses += not ok
        met = sum(v >= target for v in vals)
        limit = "" if tmax is None else f" < {tmax}s"
        row(f"Laplace eps={eps} sel={sel}: min eps_lb, {len(vals)} seeds, n={n:.0e}", min(vals), target, ok,
            f"(mean {np.mean(vals):.5f}, {met}/{len(vals)} seeds >= target, max time {max(times):.2f}s{limit})")

    print("== speed: Laplace samples per second through the pipeline (both inputs counted) ==")
    n = 10**7
    _, dt = timed(lambda: epsilon_lower_bound(LaplaceMechanism(1.0), 0.0, 1.0, samples=n, rng=0))
    rate = 2 * n / dt
    g = np.random.default_rng(0)
    _, dt_raw = timed(lambda: [g.laplace(0.0, 1.0, 1 << 19) for _ in range(2 * n // (1 << 19))])
    raw = (2 * n // (1 << 19)) * (1 << 19) / dt_raw
    ok = rate >= 1e7
    misses += not ok
    row("pipeline samples/s (one process, scalar outputs)", rate, 1e7, ok,
        f"(raw numpy Laplace generation {raw:.3g}/s; pipeline/raw = {rate / raw:.2f})")

    print("== buggy mechanisms: time to refute claimed eps = 1 at confidence 0.99 ==")
    svt_d, svt_dp = [0.0] * 10, [1.0] * 5 + [-1.0] * 5
    bugs = [
        ("half-scale Laplace", LaplaceMechanism(1.0, scale_factor=0.5), 0.0, 1.0, {}),
        ("noise 15% too small", LaplaceMechanism(1.0, scale_factor=0.85), 0.0, 1.0, {}),
        ("histogram, add/remove sensitivity under substitution", HistogramLaplace(1.0, 4, 1.0), [0, 1, 2, 3],
         [1, 1, 2, 3], {"statistic": BinDifference(0, 1)}),
        ("exponential mechanism without the 2", ExponentialMechanism(1.0, factor=1.0), [0.0, 5.0, 5.0],
         [1.0, 4.0, 4.0], {}),
        ("noisy max returning the value (Laplace)", NoisyMax(1.0, returns="value"), [1.0] * 5, [2.0, 0, 0, 0, 0], {}),
        ("noisy max returning the value (exponential)", NoisyMax(1.0, noise="exponential", returns="value"),
         [1.0] * 5, [2.0, 0, 0, 0, 0], {}),
        ("SVT without query noise (Lyu Alg. 5)", SparseVector(1.0, variant="no_query_noise"), svt_d, svt_dp,
         {"statistic": PatternCode()}),
        ("SVT without cutoff (Lyu Alg. 6)", SparseVector(1.0, variant="no_cutoff"), svt_d, svt_dp,
         {"statistic": PatternCode()}),
        ("SVT, noise not scaled by c (Lyu Alg. 4, Lee-Clifton)", SparseVector(1.0, variant="lee_clifton"), svt_d,
         svt_dp, {"statistic": PatternCode()}),
    ]
    for name, mech, d, dp, kw in bugs:
        n, total, r = 10_000, 0.0, None
        while total < 60:
            r, dt = timed(lambda: epsilon_lower_bound(mech, d, dp, samples=n, rng=1, **kw))
            total += dt
            if r.refutes(1.0):
                break
            n *= 4
        ok = r.refutes(1.0) and total < 60
        misses += not ok
        row(f"refute: {name}", total, 60, ok, f"(s; eps_lb {r.epsilon:.3f} from n={n:.0e} per input)")
    try:
        from dpverify.audit.floating_point import TextbookLaplace, fp_attack_statistic

        mech = TextbookLaplace(0.1)
        (r, dt) = timed(lambda: epsilon_lower_bound(mech, 0.0, 1.0, samples=10**6, rng=3,
                                                    statistic=fp_attack_statistic(1.0)))
        ok = r.refutes(0.1)
        misses += not ok
        row("refute: textbook float Laplace claiming eps=0.1", dt, 60, ok, f"(s; eps_lb {r.epsilon:.3f})")
    except ImportError:
        print("floating-point attack: module not available")
    print(f"\n{'all targets met' if misses == 0 else f'{misses} target(s) missed'}")
    return 0 if misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
