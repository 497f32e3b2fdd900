"""Width and time of the certified DP-SGD bracket on a sweep, and every installed accountant
classified against it.

Run: ``python benchmarks/bench_bracket.py [--n 60] [--json out.json] [--no-accountants]``.
The sweep is a seeded draw (seed 0) of ``--n`` distinct configurations from the grid
sigma in {0.5, 0.8, 1, 2, 5} x q in {1e-4, 1e-3, 1e-2, 0.1} x T in {10^2, 10^3, 10^4, 10^5}
x delta in {1e-5, 1e-7, 1e-9}, plus q = 1 rows checked against the exact Gaussian closed form.
Targets (issue 28): width <= 1 % of epsilon and <= 10 s per configuration (CPU time,
``time.process_time`` with ``OMP_NUM_THREADS=1``; wall time is printed beside it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy.optimize import brentq  # noqa: E402
from scipy.special import log_ndtr  # noqa: E402

from dpverify.atomic import atomic_write_text  # noqa: E402
from dpverify.conform import bracket_details  # noqa: E402
from dpverify.conform.accountants import accountants  # noqa: E402


def gaussian_epsilon(mu: float, delta: float) -> float:
    """epsilon(delta) of mu-GDP: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    def f(e):
        return math.exp(log_ndtr(-e / mu + mu / 2)) - math.exp(e + log_ndtr(-e / mu - mu / 2)) - delta
    return brentq(f, 0.0, mu * mu + 50 * mu, xtol=1e-14)


def configs(n: int) -> list[tuple[float, float, int, float]]:
    grid = list(itertools.product([0.5, 0.8, 1.0, 2.0, 5.0], [1e-4, 1e-3, 1e-2, 0.1],
                                  [100, 1000, 10_000, 100_000], [1e-5, 1e-7, 1e-9]))
    pick = np.random.default_rng(0).choice(len(grid), size=min(n, len(grid)), replace=False)
    return [grid[i] for i in sorted(pick)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--json")
    ap.add_argument("--no-accountants", action="store_true")
    ap.add_argument("--max-cells", type=int, default=1 << 24)
    ap.add_argument("--max-seconds", type=float, default=10.0,
                    help="CPU seconds a configuration may use (no further grid after that)")
    ap.add_argument("--part", default="1/1", help="k/m: run the k-th of m interleaved shares")
    ap.add_argument("--max-memory", type=float, default=4.0,
                    help="GiB of address space each accountant's child process may add: an "
                         "accountant that needs more is a defect row instead of exhausting the machine")
    ap.add_argument("--accountant-timeout", type=float, default=600.0,
                    help="seconds each accountant may run (its child is killed after: a defect row)")
    ap.add_argument("--reverse", action="store_true", help="run the configurations last first")
    a = ap.parse_args(argv)
    rows = []
    print(f"{'sigma':>5} {'q':>7} {'T':>7} {'delta':>7} {'low':>12} {'high':>12} "
          f"{'width%':>7} {'cpu s':>6} {'wall s':>6} {'cells':>9} exact/accountants")
    cases = [(s, 1.0, t, d) for s, t, d in [(1.0, 10, 1e-5), (2.0, 1000, 1e-9), (5.0, 100, 1e-7)]]
    k, m = (int(v) for v in a.part.split("/"))
    todo = (cases + configs(a.n))[k - 1::m]
    for sigma, q, steps, delta in todo[::-1] if a.reverse else todo:
        try:
            r = bracket_details(sigma, q, steps, delta, stream=None, max_cells=a.max_cells,
                                max_seconds=a.max_seconds)
        except Exception as exc:  # noqa: BLE001 - a row, not the end of the sweep
            print(f"{sigma:5g} {q:7g} {steps:7d} {delta:7g} error {type(exc).__name__}: {exc}")
            continue
        width = (r.high - r.low) / r.high if r.high > 0 else 0.0
        row = {"sigma": sigma, "q": q, "steps": steps, "delta": delta, "low": r.low,
               "high": r.high, "width": width, "seconds": r.seconds, "cpu_seconds": r.cpu_seconds,
               "cells": r.cells}
        if q == 1.0:
            exact = gaussian_epsilon(math.sqrt(steps) / sigma, delta)
            row["exact"] = exact
            note = f"exact {exact:.6g} {'IN' if r.low <= exact <= r.high else 'OUTSIDE'}"
        elif a.no_accountants:
            note = ""
        else:
            acc = accountants({"noise_multiplier": sigma, "sample_rate": q, "steps": steps,
                               "delta": delta}, bracket=(r.low, r.high),
                              max_memory_gib=a.max_memory, timeout=a.accountant_timeout)
            row["accountants"] = [{k: x[k] for k in ("accountant", "version", "epsilon",
                                                     "verdict", "looseness", "note")} for x in acc]
            note = " ".join(f"{x['accountant']}={x['verdict']}" for x in acc)
        rows.append(row)
        print(f"{sigma:5g} {q:7g} {steps:7d} {delta:7g} {r.low:12.6g} {r.high:12.6g} "
              f"{100 * width:7.3f} {r.cpu_seconds:6.2f} {r.seconds:6.2f} {r.cells:9d} {note}", flush=True)
    sweep = [r for r in rows if r["q"] != 1.0] or rows
    ok = sum(r["width"] <= 0.01 and r["cpu_seconds"] <= 10 for r in sweep)
    print(f"# {len(sweep)} configurations: {ok} meet width <= 1% and <= 10 s CPU; max width "
          f"{100 * max(r['width'] for r in sweep):.3f}%, median CPU time "
          f"{np.median([r['cpu_seconds'] for r in sweep]):.2f} s, max "
          f"{max(r['cpu_seconds'] for r in sweep):.1f} s (wall max {max(r['seconds'] for r in sweep):.1f} s)")
    if a.json:
        atomic_write_text(a.json, json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
