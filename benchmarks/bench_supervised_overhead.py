"""What supervision costs: every shipped claim run in this process, then supervised (``--jobs 1``), in one run.

Issue 31's target: the supervised default adds at most 10 % to the wall time of ``dpverify
verify`` over an in-process run.  Both runs use the same claims, in the same order, one after
the other in one process (the machine's load is shared by both); ``--repeat`` alternates the
order and reports each pair.  The in-process run goes first by default, so it pays for the
first imports of the libraries the checks use; the supervised workers are forked after it and
inherit them, as ``dpverify verify`` (whose parent imports the rooms, not the checks' libraries)
does not: ``--cold`` runs the supervised run first instead, which is the harder case for it.

Usage::

    python3 benchmarks/bench_supervised_overhead.py [--only PREFIX] [--repeat N] [--cold]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def _run(claims, supervised: bool) -> tuple[float, float, int]:
    from dpverify.claims.runner import run_claims

    t0, c0 = time.perf_counter(), os.times()
    results = run_claims(claims, jobs=1, supervised=supervised)
    c1 = os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + (
        c1.children_system - c0.children_system)
    return time.perf_counter() - t0, cpu, sum(not r.as_expected for r in results)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="claim id prefix")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--cold", action="store_true", help="run the supervised run first")
    args = ap.parse_args()
    from dpverify.claims.registry import all_claims

    claims = all_claims(args.only)
    print(f"{len(claims)} claims")
    for k in range(args.repeat):
        order = [True, False] if (args.cold ^ (k % 2 == 1)) else [False, True]
        got = {}
        for supervised in order:
            got[supervised] = _run(claims, supervised)
            wall, cpu, bad = got[supervised]
            print(f"  {'supervised' if supervised else 'in-process'}: {wall:7.1f} s wall, {cpu:7.1f} s CPU, "
                  f"{bad} not as expected", flush=True)
        ratio = got[True][0] / got[False][0]
        print(f"pair {k + 1}: supervised / in-process wall = {ratio:.3f} "
              f"({'within' if ratio <= 1.10 else 'OVER'} the 1.10 target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
