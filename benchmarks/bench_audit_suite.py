"""The StatDP / DP-Sniper benchmark suite through ``audit()`` with the pair searched.

Prints, per mechanism, the true ε, our 90 %-confidence lower bound, the time, DP-Sniper's
published bound (estimated on 2·10^8 draws per input) and DP-Sniper's own bound at 1.07·10^7 draws
per input (its check stage, from its reference log: ``Case.dpsniper_1e7``); ``--seeds K`` adds a soundness sweep (K seeds per mechanism with finite true ε:
how often the bound exceeds the true ε; at 90 % confidence at most ~10 % may, by chance).

    nice -n 10 python3 benchmarks/bench_audit_suite.py --samples 2000000 --seeds 20 --sweep-samples 100000
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor

from dpverify.audit import audit
from dpverify.audit.suite import CASES


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=10**7)
    ap.add_argument("--confidence", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=0, help="soundness sweep: seeds per correct mechanism")
    ap.add_argument("--sweep-samples", type=int, default=10**5, help="draws per input in the soundness sweep")
    ap.add_argument("--only", default="", help="comma-separated names")
    ap.add_argument("--jobs", type=int, default=2,
                    help="worker processes for the final audit's chunks (the benchmark's 2 cores; 1: in-process)")
    args = ap.parse_args()
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        _run(args, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def _run(args, pool) -> None:
    only = {s for s in args.only.split(",") if s}
    print(f"{'mechanism':<20} {'true ε':>8} {'ours':>8} {'time s':>7} {'DP-Sniper':>9} {'at 10^7':>8}  pair found")
    for case in CASES:
        if only and case.name not in only:
            continue
        m = case.make()
        t = time.monotonic()
        r = audit(m, epsilon=m.epsilon, samples=args.samples, rng=args.seed, confidence=args.confidence,
                  stop_early=False, executor=pool)  # the whole budget: the strongest bound
        dt = time.monotonic() - t
        pair = f"{r.pair[0].tolist()} vs {r.pair[1].tolist()} ({r.statistic})"
        print(f"{case.name:<20} {m.true_epsilon:>8.4g} {r.epsilon:>8.4f} {dt:>7.1f} {case.dpsniper:>9.4f} {case.dpsniper_1e7:>8.4f}  {pair}",
              flush=True)
    if not args.seeds:
        return
    print(f"\nsoundness sweep: {args.seeds} seeds, {args.sweep_samples:,} draws per input, confidence {args.confidence}")
    total_runs = total_over = 0
    for case in CASES:
        m = case.make()
        if (only and case.name not in only) or not math.isfinite(m.true_epsilon):
            continue
        over = sum(audit(m, epsilon=m.epsilon, samples=args.sweep_samples, rng=1000 + s, confidence=args.confidence,
                         stop_early=False, executor=pool).epsilon > m.true_epsilon for s in range(args.seeds))
        total_runs, total_over = total_runs + args.seeds, total_over + over
        print(f"{case.name:<20} {over}/{args.seeds} bounds above the true ε {m.true_epsilon:.4g}", flush=True)
    print(f"all: {total_over}/{total_runs} (at most ~{1 - args.confidence:.0%} expected by chance)")


if __name__ == "__main__":
    main()
