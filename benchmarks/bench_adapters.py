"""Throughput of the library adapters (samples per second through ``checked_sample``) and the
time of the floating-point attack on diffprivlib's Laplace.

Run: ``python benchmarks/bench_adapters.py`` (needs ``pip install 'dpverify[adapters]'``).
Everything is measured in this run; the ratio column compares each adapter with dpverify's own
vectorised Laplace primitive measured alongside.
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from dpverify.audit import checked_sample, epsilon_lower_bound  # noqa: E402
from dpverify.audit.adapters import from_diffprivlib, from_opendp  # noqa: E402
from dpverify.audit.floating_point import fp_attack_statistic  # noqa: E402
from dpverify.audit.produced import produced_mechanisms  # noqa: E402


def rate(mech, data, n) -> float:
    g = np.random.default_rng(0)
    checked_sample(mech, data, g, min(n, 100))  # warm-up (builds the measurement)
    t = time.perf_counter()
    checked_sample(mech, data, g, n)
    return n / (time.perf_counter() - t)


def main() -> None:
    own = produced_mechanisms()["primitives.laplace_mechanism"].factory(epsilon=1.0, sensitivity=1.0)
    base = rate(own, 0.0, 1_000_000)
    cases = [
        ("dpverify laplace_mechanism (reference)", own, 0.0, 1_000_000),
        ("OpenDP laplace, float (vector domain, one call)", from_opendp("laplace", scale=1.0), 0.0, 100_000),
        ("OpenDP laplace, int (vector domain, one call)", from_opendp("laplace", scale=1.0, T="int"), 0, 100_000),
        ("OpenDP geometric (vector domain, one call)", from_opendp("geometric", scale=1.0), 0, 100_000),
        ("OpenDP gaussian, float (vector domain, one call)", from_opendp("gaussian", scale=1.0), 0.0, 50_000),
        ("OpenDP randomized_response_bool (one call each)", from_opendp("randomized_response_bool", prob=0.75), 1,
         20_000),
        ("OpenDP randomized_response, 4 categories (one call each)",
         from_opendp("randomized_response", categories=[0, 1, 2, 3], prob=0.5), 1, 20_000),
        ("diffprivlib Laplace (randomise loop)", from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1.0), 0.0,
         100_000),
        ("diffprivlib Geometric (randomise loop)", from_diffprivlib("Geometric", epsilon=1.0), 0, 100_000),
        ("diffprivlib GaussianAnalytic (randomise loop)",
         from_diffprivlib("GaussianAnalytic", epsilon=1.0, delta=1e-5, sensitivity=1.0), 0.0, 100_000),
        ("diffprivlib Binary (randomise loop)", from_diffprivlib("Binary", epsilon=1.0, value0="a", value1="b"), 0,
         100_000),
        ("diffprivlib Exponential, 3 candidates (randomise loop)",
         from_diffprivlib("Exponential", epsilon=1.0, sensitivity=1.0), [0.0, 1.0, 2.0], 50_000),
    ]
    print(f"{'mechanism':58s} {'samples/s':>12s} {'vs reference':>13s}")
    for label, mech, data, n in cases:
        r = base if mech is own else rate(mech, data, n)
        print(f"{label:58s} {r:12,.0f} {r / base:13.2e}")
    m = from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1.0)
    t = time.perf_counter()
    res = epsilon_lower_bound(m, 0.0, 1.0, samples=100_000, confidence=0.99, rng=1, statistic=fp_attack_statistic(1.0))
    dt = time.perf_counter() - t
    print(f"\nfloating-point attack on diffprivlib Laplace (claim ε = 1), 10^5 samples per input, 99 %: "
          f"ε_lb = {res.epsilon:.2f} (count_q = {res.count_q}) in {dt:.2f} s")


if __name__ == "__main__":
    main()
