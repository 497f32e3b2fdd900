"""Start-up time of ``dpverify --help`` and ``dpverify --version``, against ``python3 -c "import numpy"``.

Target: both under 0.3 s (the command table is lazy: a room is imported only
when its command runs).  All timings are taken in the same run, so the ratio
to importing numpy is meaningful on a loaded machine too.

    python3 benchmarks/bench_cli_startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CASES = {
    'python3 -c "import numpy"': [sys.executable, "-c", "import numpy"],
    "dpverify --help": [sys.executable, "-m", "dpverify", "--help"],
    "dpverify --version": [sys.executable, "-m", "dpverify", "--version"],
    "dpverify rr --help": [sys.executable, "-m", "dpverify", "rr", "--help"],
}
TARGET = 0.3


def measure(cmd: list[str], repeat: int) -> float:
    """The median wall-clock seconds of ``repeat`` runs (after one warm-up run)."""
    subprocess.run(cmd, capture_output=True, check=True)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per command (default 7)")
    args = ap.parse_args()
    res = {name: measure(cmd, args.repeat) for name, cmd in CASES.items()}
    base = res['python3 -c "import numpy"']
    print(f"{'command':28s} {'median s':>9s} {'× numpy import':>15s}")
    for name, t in res.items():
        print(f"{name:28s} {t:9.3f} {t / base:15.2f}")
    slow = [n for n in ("dpverify --help", "dpverify --version") if res[n] >= TARGET]
    print("target: --help and --version under %.1f s: %s" % (TARGET, "met" if not slow else f"MISSED by {slow}"))
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
