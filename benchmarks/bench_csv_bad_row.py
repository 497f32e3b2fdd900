"""Time to refuse a CSV with one bad row in the middle (issue 31, item 5: < 30 s at 10^7 rows).

Writes a CSV of N rows (``day,count``) to a temporary directory with the count of the middle
row replaced by ``oops``, runs ``dpverify continual release --method fenwick`` on it in a
subprocess and prints the seconds until it exits.  The first pass validates every row before
any noise is drawn, so the run must exit with status 2, name the bad line, and write no output.

Usage: ``python benchmarks/bench_csv_bad_row.py``            (N = 10^7)
       ``python benchmarks/bench_csv_bad_row.py --n 1000000``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_csv(path: Path, n: int, bad: int, chunk: int = 1 << 20) -> None:
    """``day,count`` rows 0..n-1 (random counts in [0, 100)); data row ``bad`` (0-based) holds ``oops``."""
    rng = np.random.default_rng(0)
    with path.open("w") as fh:
        fh.write("day,count\n")
        for lo in range(0, n, chunk):
            m = min(chunk, n - lo)
            counts = rng.integers(0, 100, size=m).tolist()
            if lo <= bad < lo + m:
                counts[bad - lo] = "oops"
            fh.write("".join(f"{lo + i},{c}\n" for i, c in enumerate(counts)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10**7, help="data rows (default 10^7)")
    args = ap.parse_args()
    bad = args.n // 2
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "in.csv", Path(d) / "out.csv"
        t0 = time.perf_counter()
        write_csv(src, args.n, bad)
        print(f"wrote {args.n} rows ({src.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")
        cmd = [sys.executable, "-m", "dpverify", "continual", "release", "--input", str(src), "--column", "count",
               "--epsilon", "1", "--method", "fenwick", "--seed", "0", "--output", str(out)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.perf_counter() - t0
        msg = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
        line = bad + 2  # the header is line 1
        ok = proc.returncode == 2 and f"line {line} " in msg and not out.exists()
        print(f"exit {proc.returncode} after {secs:.1f} s: {msg.replace(d, '<tmp>')}")
        print(f"refused {args.n} rows (bad row at line {line}) in {secs:.1f} s: "
              f"{'OK' if ok and secs < 30 else 'FAIL'} (target < 30 s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
