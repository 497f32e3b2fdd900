"""How soon the command line answers: every command's ``--help``, ``--version`` and the ``claims`` listing.

Target (issue 29): each ``dpverify CMD --help`` within max(0.3 s, 2 × ``import numpy``), and
``dpverify claims`` (a listing) too.  Every timing is taken in the same run, interleaved, so the
ratio to importing numpy holds on a loaded machine.  ``--help`` runs without the packages'
``__init__`` files (``dpverify.cli._help``): it costs the command module and what it imports.

    python3 benchmarks/bench_cli_startup.py [--repeat 5] [--json]

Exit status 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NUMPY = 'python3 -c "import numpy"'


def cases() -> dict[str, list[str]]:
    """The commands timed: importing numpy, then every dpverify command's help, then the listing."""
    from dpverify.cli import commands

    dp = [sys.executable, "-m", "dpverify"]
    out = {NUMPY: [sys.executable, "-c", "import numpy"],
           "dpverify --help": dp + ["--help"], "dpverify --version": dp + ["--version"]}
    for name in commands():
        out[f"dpverify {name} --help"] = dp + [name, "--help"]
    out["dpverify claims"] = dp + ["claims"]
    return out


def measure(table: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """The median wall-clock seconds of each command over ``repeat`` rounds (one warm-up round first)."""
    times: dict[str, list[float]] = {k: [] for k in table}
    for rnd in range(repeat + 1):
        for name, cmd in table.items():  # interleaved: a burst of load hits every command alike
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=False, cwd=ROOT)
            if rnd:
                times[name].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds (default 5)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    res = measure(cases(), args.repeat)
    base = res[NUMPY]
    target = max(0.3, 2 * base)
    missed = [n for n in res if n != NUMPY and res[n] > target]
    if args.json:
        print(json.dumps({"seconds": res, "target_seconds": target, "missed": missed}, indent=2))
    else:
        print(f"{'command':34s} {'median s':>9s} {'× numpy import':>15s}")
        for name, t in res.items():
            print(f"{name:34s} {t:9.3f} {t / base:15.2f}" + ("   MISSED" if name in missed else ""))
        print(f"target: every command within max(0.3 s, 2 × import numpy) = {target:.3f} s: "
              + ("met" if not missed else f"missed by {len(missed)}: {', '.join(missed)}"))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
