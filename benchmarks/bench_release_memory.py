"""Peak memory of ``dpverify continual release`` on a large CSV (issue 10: < 500 MB at 10^8 rows).

Writes a CSV of N rows (``day,count``) to a temporary directory, runs the release in a
subprocess and reads the child's peak RSS from ``resource.getrusage(RUSAGE_CHILDREN)``.
The release streams (chunks of 65,536 rows, O(log N) state), so the peak should not grow with N.

Usage: ``python benchmarks/bench_release_memory.py``          (N = 10^6 and 10^7)
       ``python benchmarks/bench_release_memory.py --huge``   (also N = 10^8: ~1.3 GB of CSV, minutes)
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_csv(path: Path, n: int, chunk: int = 1 << 20) -> None:
    rng = np.random.default_rng(0)
    with path.open("w") as fh:
        fh.write("day,count\n")
        for lo in range(0, n, chunk):
            m = min(chunk, n - lo)
            counts = rng.integers(0, 100, size=m)
            fh.write("".join(f"{lo + i},{c}\n" for i, c in enumerate(counts.tolist())))


def run(n: int, method: str, tmp: Path) -> dict:
    src = tmp / f"in_{n}.csv"
    if not src.exists():
        write_csv(src, n)
    out = tmp / f"out_{n}_{method}.csv"
    if out.exists():
        out.unlink()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    code = (
        "import resource, sys\n"
        "from dpverify.cli import main\n"
        f"rc = main(['continual', 'release', '--input', {str(src)!r}, '--column', 'count', '--epsilon', '1',"
        f" '--seed', '0', '--method', {method!r}, '--output', {str(out)!r}])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    peak_kb = int(p.stderr.strip().splitlines()[-1])
    rows = sum(1 for _ in out.open()) - 1
    out.unlink()
    return {"n": n, "method": method, "peak_rss_mb": peak_kb / 1024, "seconds": dt, "rows_out": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--huge", action="store_true", help="also N = 10^8 rows")
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="explicit row counts (overrides --huge)")
    ap.add_argument("--method", default="fda", help="continual method (default fda)")
    args = ap.parse_args()
    ns = args.sizes or [10**6, 10**7] + ([10**8] if args.huge else [])
    with tempfile.TemporaryDirectory() as d:
        for n in ns:
            r = run(n, args.method, Path(d))
            ok = "OK" if r["peak_rss_mb"] < 500 else "OVER 500 MB"
            print(f"N = {n:>11,}  {r['method']}: peak RSS {r['peak_rss_mb']:7.1f} MB  {r['seconds']:7.1f} s  "
                  f"({r['rows_out']:,} rows out)  {ok}", flush=True)
            if r["rows_out"] != n:
                raise SystemExit(f"expected {n} output rows, got {r['rows_out']}")


if __name__ == "__main__":
    main()
