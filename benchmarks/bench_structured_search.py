"""A searched audit on a small integer domain: the exponential-mechanism median over {0..5}^5 that
forgot the factor ½ (true ε 1.771 against a claim of 1, :mod:`dpverify.audit.suite.median`).

The violation needs the records split around the median (x = (0, 0, 4, 4, 4), y = (5, 0, 4, 4, 4));
the base candidates of the relation (the StatDP patterns around the input of ones, 6 random pairs)
reach it only by chance.  For each seed this prints the audit with the relation searched (base
candidates, then the local search of :mod:`dpverify.audit.local_search`) and, for comparison, the
audit of the base candidates alone (the same relation's ``candidates`` given as explicit pairs: no
local search), with the exact ε of each winning pair.

    python3 benchmarks/bench_structured_search.py [--samples 1000000] [--seeds 10] [--confidence 0.99]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpverify.audit import audit
from dpverify.audit.suite import ExponentialMedian


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10**6)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--confidence", type=float, default=0.99)
    args = ap.parse_args(argv)
    m = ExponentialMedian(1.0, halved=False)
    print(f"{m.name}: claim ε = {m.epsilon:g}, true ε = {m.true_epsilon:.4f}, {args.samples:,} draws per input, "
          f"confidence {args.confidence:g}")
    print(f"{'seed':>4} {'searched':>9} {'pair ε':>7} {'s':>5}   {'base only':>9} {'pair ε':>7} {'s':>5}   pair found")
    hits = {"searched": 0, "base": 0}
    for seed in range(args.seeds):
        t0 = time.perf_counter()
        r = audit(m, epsilon=m.epsilon, samples=args.samples, rng=seed, confidence=args.confidence)
        t1 = time.perf_counter()
        base = m.relation.candidates(np.random.default_rng(seed))
        b = audit(m, epsilon=m.epsilon, pairs=base, samples=args.samples, rng=seed, confidence=args.confidence)
        t2 = time.perf_counter()
        hits["searched"] += r.verdict().value == "refuted"
        hits["base"] += b.verdict().value == "refuted"
        pair = f"{r.pair[0].astype(int).tolist()} vs {r.pair[1].astype(int).tolist()}"
        print(f"{seed:>4} {r.epsilon:>9.4f} {m.pair_epsilon(*r.pair):>7.3f} {t1 - t0:>5.1f}   {b.epsilon:>9.4f} "
              f"{m.pair_epsilon(*b.pair):>7.3f} {t2 - t1:>5.1f}   {pair}", flush=True)
    print(f"refuted: searched {hits['searched']} of {args.seeds}, base candidates only {hits['base']} of {args.seeds}")


if __name__ == "__main__":
    main()
