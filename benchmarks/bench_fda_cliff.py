"""No cliff past 2^20 (issue 30 item 2): batch FDA release time / naive release time, n = 2^10 .. 2^25.

Both releases run through ``dpverify.continual.release`` on the same counts in the same run, timed
in CPU seconds of this process (``time.process_time``, robust to other load on a shared machine),
best of ``--repeat`` (more below 2^17, where one release takes a millisecond).  Up to n = 2^20 FDA precomputes all weights; beyond, each run of 4096 nodes
takes its weights from per-level share tables (``dpverify.continual.fda_runs``).  Target: every
ratio <= 3 (both noises).

Run: ``python benchmarks/bench_fda_cliff.py`` (both noises to 2^25: about 100 CPU seconds, 6 minutes
wall on a loaded 2-core machine, peak memory 2.7 GB at 2^25; ``--exact-max-log2n`` limits the exact noise).
``--kary`` adds the k-ary FDA (float noise).  ``--max-log2n 22`` for a quicker run.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from dpverify.progress import progress


def cpu_time(f, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def sizes(max_log2n: int) -> list[tuple[str, int]]:
    out = []
    for k in range(10, max_log2n + 1):
        if k == 20:
            out += [("2^20-1", 2**20 - 1), ("2^20", 2**20), ("2^20+1", 2**20 + 1)]
        else:
            out.append((f"2^{k}", 2**k))
    return out


def ratio(a, method: str, noise: str, repeat: int) -> tuple[float, float]:
    from dpverify.continual import release

    t_naive = cpu_time(lambda: release(a, 1.0, "naive", rng=1, noise=noise), repeat)
    t_m = cpu_time(lambda: release(a, 1.0, method, rng=1, noise=noise), repeat)
    return t_m, t_m / t_naive


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-log2n", type=int, default=25)
    ap.add_argument("--exact-max-log2n", type=int, default=25)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many (1 above 2^22)")
    ap.add_argument("--kary", action="store_true", help="also the k-ary FDA with float noise")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="noise='laplace'")  # measured on purpose, beside the exact noise

    rows = []
    todo = sizes(args.max_log2n)
    t_start = time.perf_counter()
    with progress("fda cliff", total=len(todo), unit="sizes") as tick:
        for label, n in todo:
            a = np.random.default_rng(0).integers(0, 5, size=n)
            rep = max(args.repeat, min(50, 2**17 // n)) if n <= 2**22 else 1
            t_f, r_f = ratio(a, "fda", "laplace", rep)
            row = [label, f"{t_f:8.3f}", f"{r_f:5.2f}"]
            if n <= 2**args.exact_max_log2n:
                t_e, r_e = ratio(a, "fda", "discrete", rep)
                row += [f"{t_e:8.3f}", f"{r_e:5.2f}"]
            else:
                row += ["       -", "    -"]
            if args.kary:
                row.append(f"{ratio(a, 'kary-fda', 'laplace', rep)[1]:5.2f}")
            rows.append(row)
            tick(note=label)
            del a
    head = ["n", "fda float s", "/naive", "fda exact s", "/naive"] + (["kary /naive"] if args.kary else [])
    print(" | ".join(head))
    for row in rows:
        print(" | ".join(row))
    worst = max(float(r[2]) for r in rows)
    worst_e = [float(r[4]) for r in rows if r[4].strip() != "-"]
    print(f"worst float ratio {worst:.2f} (target <= 3: {'ok' if worst <= 3 else 'MISSED'})")
    if worst_e:
        print(f"worst exact ratio {max(worst_e):.2f} (target <= 3: {'ok' if max(worst_e) <= 3 else 'MISSED'})")
    print(f"wall time {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
