"""Wall time of checking a user's own claims, and what the pytest plugin adds, measured in one run.

    python benchmarks/bench_external_claims.py

Targets (issue 12):
- ``dpverify verify FILE`` on a file of 3 cheap claims, in a fresh interpreter: < 2 s of wall
  time (only that file is imported: no shipped room, no sympy);
- the pytest plugin adds < 1 s to a run beyond the checks: ``pytest claims_cheap.py`` (the plugin
  turns the 3 claims into items) against ``pytest test_cheap.py`` (the same 3 checks written as
  plain test functions that import dpverify.claims too), both in fresh interpreters.
Each time is the median of 5 runs; the pytest runs are 9 interleaved pairs, and the overhead
is the median of the paired differences.
"""

import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

CLAIMS = '''
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("bench.sum", source=Source("paper", "§1"), statement="1 + 1 = 2", method="exact computation")
def check_sum(thorough=False):
    return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 1 + 1})

@claim("bench.product", source=Source("paper", "§2"), statement="2 · 2 = 5", method="exact computation",
       expected="refuted")
def check_product(thorough=False):
    return Outcome(Verdict.REFUTED if 2 * 2 != 5 else Verdict.HOLDS, {"product": 4}, summary="2 · 2 is 4")

@claim("bench.square", source=Source("paper", "§3"), statement="3² = 9", method="exact computation")
def check_square(thorough=False):
    return Outcome(Verdict.HOLDS if 3 ** 2 == 9 else Verdict.REFUTED, {"square": 9})
'''

PLAIN = '''
from dpverify.claims import Outcome, Verdict


def test_sum():
    assert Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 1 + 1}).verdict is Verdict.HOLDS


def test_product():
    assert Outcome(Verdict.REFUTED if 2 * 2 != 5 else Verdict.HOLDS, {"product": 4}).verdict is Verdict.REFUTED


def test_square():
    assert Outcome(Verdict.HOLDS if 3 ** 2 == 9 else Verdict.REFUTED, {"square": 9}).verdict is Verdict.HOLDS
'''


def wall(cmd, cwd, runs=5):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return statistics.median(times)


def main():
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "claims_cheap.py").write_text(textwrap.dedent(CLAIMS))
        (d / "test_cheap.py").write_text(textwrap.dedent(PLAIN))
        py = sys.executable
        t_verify = wall([py, "-m", "dpverify", "verify", "claims_cheap.py", "--json"], d)
        t_import = wall([py, "-c", "import dpverify.claims"], d)
        base = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "dpverify.pytest_plugin", "-m", "not slow"]
        # interleaved pairs, so that the load of a shared machine hits both sides alike
        pairs = [(wall(base + ["claims_cheap.py"], d, runs=1), wall(base + ["test_cheap.py"], d, runs=1))
                 for _ in range(9)]
        t_plugin = statistics.median(a for a, _ in pairs)
        t_plain = statistics.median(b for _, b in pairs)
        overhead = statistics.median(a - b for a, b in pairs)
    print(f"{'measurement':<62} {'seconds':>8}")
    print(f"{'dpverify verify claims_cheap.py --json (target < 2 s)':<62} {t_verify:8.3f}")
    label = "  of which: python -c 'import dpverify.claims'"
    print(f"{label:<62} {t_import:8.3f}")
    print(f"{'pytest claims_cheap.py (3 claims as items)':<62} {t_plugin:8.3f}")
    print(f"{'pytest test_cheap.py (the same checks as test functions)':<62} {t_plain:8.3f}")
    print(f"{'plugin overhead: median paired difference (target < 1 s)':<62} {overhead:8.3f}")
    ok = t_verify < 2 and overhead < 1
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
