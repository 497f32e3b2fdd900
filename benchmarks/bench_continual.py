"""Speed of the continual room, as ratios measured in one run.

Run: ``python benchmarks/bench_continual.py`` (``--log2n 20`` for a quicker run).

Targets (issue 2):
- all FDA weights for N = 2^25 - 1 in well under a second;
- batch FDA release of N = 2^25 - 1 running totals within 3x the naive release
  (N Laplace draws and a cumulative sum), same run, same noise type;
- the cvxpy cross-check of (5.10) for N = 4095 in under a minute;
- against dpcrpy (if installed): batch release >= 30x its throughput, online push
  no slower per release than its ``dpRelease``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def best_of(f, repeat: int = 3) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2n", type=int, default=25)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from dpverify.continual import release, stream
    from dpverify.continual.fda import fda_weights, solve_diagonal_cvxpy

    n = 2**args.log2n - 1
    rows = []
    fda_weights(n)  # touch the memory once
    t_w = best_of(lambda: fda_weights(n), args.repeat)
    rows.append((f"fda_weights(2^{args.log2n}-1)", f"{t_w:.3f} s", "target < 1 s", "ok" if t_w < 1 else "MISSED"))

    a = np.random.default_rng(0).integers(0, 5, size=n)
    for noise in ("laplace", "discrete"):
        t_naive = best_of(lambda: release(a, 1.0, "naive", rng=1, noise=noise), args.repeat)
        t_fda = best_of(lambda: release(a, 1.0, "fda", rng=1, noise=noise), args.repeat)
        r = t_fda / t_naive
        rows.append(
            (f"batch release 2^{args.log2n}-1, {noise}", f"fda {t_fda:.2f} s / naive {t_naive:.2f} s = {r:.2f}x",
             "target <= 3x", "ok" if r <= 3 else "MISSED")
        )

    t0 = time.perf_counter()
    solve_diagonal_cvxpy(4095)
    t_cvx = time.perf_counter() - t0
    rows.append(("cvxpy (5.10), N = 4095", f"{t_cvx:.2f} s", "target < 60 s", "ok" if t_cvx < 60 else "MISSED"))

    try:
        import dpcrpy
    except ImportError:
        dpcrpy = None
    if dpcrpy is not None:
        k = 16
        m_ = 2**k - 1
        mech = dpcrpy.FDA(kOrder=k, noiMech=dpcrpy.noiMech.LapNoiMech(epsilon=1.0))
        t0 = time.perf_counter()
        for _ in range(m_):
            mech.dpRelease(1)
        per_theirs = (time.perf_counter() - t0) / m_
        s = stream(m_, 1.0, "fda", rng=0)
        push = s.push
        t0 = time.perf_counter()
        for _ in range(m_):
            push(1)
        per_push = (time.perf_counter() - t0) / m_
        nb = 2**20 - 1
        ab = np.ones(nb, dtype=np.int64)
        per_batch = best_of(lambda: release(ab, 1.0, "fda", rng=0), args.repeat) / nb
        rows.append(
            ("dpcrpy FDA dpRelease", f"{per_theirs * 1e6:.2f} µs/release", "", "")
        )
        rows.append(
            ("batch vs dpcrpy throughput", f"{per_theirs / per_batch:.0f}x ({per_batch * 1e9:.0f} ns/release)",
             "target >= 30x", "ok" if per_theirs / per_batch >= 30 else "MISSED")
        )
        rows.append(
            ("online push vs dpRelease", f"{per_push * 1e6:.2f} µs vs {per_theirs * 1e6:.2f} µs = {per_push / per_theirs:.2f}x",
             "target <= 1x", "ok" if per_push <= per_theirs else "MISSED")
        )
    else:
        rows.append(("dpcrpy", "not installed: comparison skipped", "", ""))

    w = max(len(r[0]) for r in rows)
    for r in rows:
        print(f"{r[0]:<{w}}  {r[1]:<48} {r[2]:<14} {r[3]}")


if __name__ == "__main__":
    main()
