"""Peak memory of ``dpverify continual release`` on a large CSV (issue 10: < 500 MB at 10^8 rows).

Writes a CSV of N rows (``day,count``) to a temporary directory, runs the release in a
subprocess and reads the child's peak RSS and CPU seconds (user + system) from
``resource.getrusage(RUSAGE_SELF)`` in the child.  The release streams (chunks of 65,536 rows,
O(log N) state), so the peak should not grow with N.  ``--horizon H`` builds the strategy for
H releases on the smaller file: the state of an H-row release without its hours of CSV.

Usage: ``python benchmarks/bench_release_memory.py``          (N = 10^6 and 10^7, fda)
       ``python benchmarks/bench_release_memory.py --huge``   (also N = 10^8: ~1.3 GB of CSV, minutes)
       ``python benchmarks/bench_release_memory.py --sizes 1000000 --horizon 100000000 --method fda elders``
       ``python benchmarks/bench_release_memory.py --sizes 10000000 --noise discrete laplace``  (CPU ratio)
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


def write_csv(path: Path, n: int, chunk: int = 1 << 14) -> None:
    """``day,count`` rows 0..n-1, random counts in [0, 100), in small chunks.

    Small chunks keep this process small: Linux keeps the high-water RSS across ``exec``, so the
    child's ``ru_maxrss`` is at least this process's peak at the fork (1 << 20 rows a chunk put a
    floor of about 134 MB under every measurement).
    """
    rng = np.random.default_rng(0)
    with path.open("w") as fh:
        fh.write("day,count\n")
        for lo in range(0, n, chunk):
            m = min(chunk, n - lo)
            counts = rng.integers(0, 100, size=m)
            fh.write("".join(f"{lo + i},{c}\n" for i, c in enumerate(counts.tolist())))


def run(n: int, method: str, tmp: Path, noise: str = "discrete", horizon: int | None = None) -> dict:
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
        f" '--seed', '0', '--method', {method!r}, '--noise', {noise!r}, '--output', {str(out)!r}]"
        + (f" + ['--horizon', '{horizon}']" if horizon else "") + ")\n"
        "u = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(u.ru_utime + u.ru_stime, u.ru_maxrss, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    cpu, peak_kb = p.stderr.strip().splitlines()[-1].split()
    rows = sum(1 for _ in out.open()) - 1
    out.unlink()
    return {"n": n, "method": method, "noise": noise, "peak_rss_mb": int(peak_kb) / 1024, "seconds": dt,
            "cpu": float(cpu), "rows_out": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--huge", action="store_true", help="also N = 10^8 rows")
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="explicit row counts (overrides --huge)")
    ap.add_argument("--method", nargs="+", default=["fda"], help="continual methods (default fda)")
    ap.add_argument("--noise", nargs="+", default=["discrete"], choices=("discrete", "laplace"),
                    help="noises (default discrete); with both, the CPU ratio exact / float per method")
    ap.add_argument("--horizon", type=int, default=None, help="--horizon of the release (default: the row count)")
    args = ap.parse_args()
    ns = args.sizes or [10**6, 10**7] + ([10**8] if args.huge else [])
    with tempfile.TemporaryDirectory() as d:
        for n in ns:
            for method in args.method:
                cpu = {}
                for noise in args.noise:
                    r = run(n, method, Path(d), noise, args.horizon)
                    cpu[noise] = r["cpu"]
                    ok = "OK" if r["peak_rss_mb"] < 500 else "OVER 500 MB"
                    h = f" horizon {args.horizon:,}" if args.horizon else ""
                    print(f"N = {n:>11,}{h}  {method} {noise}: peak RSS {r['peak_rss_mb']:7.1f} MB"
                          f"  CPU {r['cpu']:7.1f} s  wall {r['seconds']:7.1f} s  ({r['rows_out']:,} rows out)  {ok}", flush=True)
                    if r["rows_out"] != n:
                        raise SystemExit(f"expected {n} output rows, got {r['rows_out']}")
                if len(cpu) == 2:
                    q = cpu["discrete"] / cpu["laplace"]
                    verdict = "ok" if q <= 1.5 else "MISSED"
                    print(f"    {method}: CPU exact / float = {q:.2f}x  (target <= 1.5x: {verdict})", flush=True)


if __name__ == "__main__":
    main()
