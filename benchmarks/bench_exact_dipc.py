"""DiPC's kinds of examples beyond CheckDP's 17 (:mod:`dpverify.exact.dipc`), decided for every ε > 0, with CPU times.

DiPC (Barthe, Chadha, Jagannath, Sistla, Viswanathan, LICS 2020) decides ε-DP and (ε, δ)-DP for all ε.
The examples, what each one is and why, are in :mod:`dpverify.exact.dipc`: Lyu et al.'s sparse-vector
Algorithm 3 (Algorithms 1, 4, 5, 6 are CheckDP's and in ``bench_exact_checkdp.py``), report noisy max with
Lap(1/ε) under two adjacencies, a histogram under add/remove and replace one record, randomized response,
and (ε, δ) decisions (randomized response with a δ-leak, Lyu's Algorithm 5, the noisy max value).

Measured (2026-11-26, 2 cores shared): 12/12 verdicts as found, each under 2.5 s CPU (the noisy max value
at δ = 1/10 on 3 queries is the slowest).

Run: ``python3 benchmarks/bench_exact_dipc.py [--only NAME ...] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import sys

from dpverify.exact.dipc import EXAMPLES, decide
from dpverify.progress import progress


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    names = a.only or list(EXAMPLES)
    unknown = [n for n in names if n not in EXAMPLES]
    if unknown:
        raise SystemExit(f"unknown example(s): {unknown}; known: {sorted(EXAMPLES)}")
    rows = []
    with progress("dipc examples", total=len(names)) as tick:
        for name in names:
            r = decide(name)
            r["right"] = r["verdict"] == r["expected"]
            rows.append(r)
            extra = "" if "epsilon_needed" not in r else f"  ε′ = {r['epsilon_needed']}; fails for {r['fails_for']}"
            print(f"{name:24s} δ={r['delta']:5s} {r['verdict']:8s} {r['cpu_seconds']:7.2f} s cpu  {r['size']}{extra}",
                  flush=True)
            tick(note=name)
    print(f"right verdicts: {sum(r['right'] for r in rows)}/{len(rows)}")
    if a.json:
        from dpverify.atomic import atomic_write_text
        atomic_write_text(a.json, json.dumps(rows, indent=1, ensure_ascii=False))
    return 0 if all(r["right"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
