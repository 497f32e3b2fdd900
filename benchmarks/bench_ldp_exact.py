"""The certified float LDP decision (issue 26, finding 1): its speed, and its wrong accepts (must be 0).

1. Time of :func:`dpverify.audit.check_ldp` on a 2 × m mechanism at m = 10^3, 10^5, 10^6, both
   definitions, when the float value is clear of its rounding bound ("float") and when the claim is
   one ulp from the exact δ ("exact fallback": the violating outputs are summed exactly and e^ε is
   bracketed by rationals).
2. A seeded sweep of structured mechanisms (m from 2 to 10^6, columns on the line p = e^ε q, claims
   a few ulps either side of the exact δ): decisions against 400-bit interval arithmetic.  Counts the
   checker's wrong accepts and wrong rejects (both must be 0), and, for comparison, the wrong accepts
   of the former rule "float δ ≤ claim + 8(m + 1)·2^-53".

Run: ``python benchmarks/bench_ldp_exact.py [--sweep N]`` (default N = 200).
"""

from __future__ import annotations

import argparse
import math
import time

import mpmath
import numpy as np

from dpverify.audit import check_ldp
from dpverify.audit.exact.certified import ExpE

PREC = 400


def timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t


def mechanism(m: int) -> np.ndarray:
    """p uniform; q moves 10^-9 of mass from output 0 to output 1 (at ε = 10^-6, δ ≈ 10^-9 in both orders)."""
    p = np.full(m, 1.0 / m)
    q = p.copy()
    q[0] -= 1e-9
    q[1] += 1e-9
    return np.vstack([p, q])


def reference(types: np.ndarray, counts, eps: float, definition: str):
    """(lo, hi) bounds on the exact tight δ of the matrix with distinct columns ``types`` × multiplicities ``counts``."""
    iv = mpmath.iv
    old, iv.prec = iv.prec, PREC
    try:
        with mpmath.workprec(PREC):
            E = iv.exp(iv.mpf(eps))
            cols = [[iv.mpf(x) for x in types[:, t].tolist()] for t in range(types.shape[1])]
            zero = mpmath.mpf(0)

            def pos(x):
                return iv.mpf([max(mpmath.mpf(x.a), zero), max(mpmath.mpf(x.b), zero)])

            n = types.shape[0]
            if definition == "per_output":
                terms = [pos(c[a] - E * c[b]) for c in cols for a in range(n) for b in range(n)]
            else:
                terms = [sum((int(k) * pos(c[a] - E * c[b]) for c, k in zip(cols, counts)), iv.mpf(0))
                         for a in range(n) for b in range(n) if a != b]
            return max(mpmath.mpf(t.a) for t in terms), max(mpmath.mpf(t.b) for t in terms)
    finally:
        iv.prec = old


def random_case(rng: np.random.Generator):
    m = int(rng.choice([2, 10, 1000, 100_001, 10**6]))
    K = int(rng.integers(1, min(4, m) + 1))
    cuts = np.sort(rng.choice(np.arange(1, m), size=K - 1, replace=False)) if K > 1 else np.array([], dtype=int)
    counts = np.diff(np.concatenate([[0], cuts, [m]])).astype(int)
    n = int(rng.integers(2, 4))
    eps = float(rng.choice([math.log(2), math.log(4), 1e-6, 0.1, 1.0, float(rng.uniform(0.01, 10))]))
    W = rng.integers(0, 10, size=(n, K)).astype(float)
    W[:, 0] += 1
    types = W / (W @ counts)[:, None]
    if K > 1 and rng.random() < 0.5:  # a column type on the line p = e^ε q in floats
        s = float(ExpE(eps).scale(types[1, 1:2])[0])
        rest = types[0, 0] - (s - types[0, 1]) * counts[1] / counts[0]
        if rest >= 0:
            types[0, 0], types[0, 1] = rest, s
    return types, counts, eps


def sweep(N: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    out = {"decisions": 0, "wrong_accepts": 0, "wrong_rejects": 0, "old_rule_wrong_accepts": 0, "exact_fallbacks": 0,
           "largest_m": 0}
    for _ in range(N):
        types, counts, eps = random_case(rng)
        P = np.repeat(types, counts, axis=1)
        m = P.shape[1]
        for definition in ("standard", "per_output"):
            lo, hi = reference(types, counts, eps, definition)
            for k in (-3, -1, 0, 1, 3):
                d = float(lo)
                for _ in range(abs(k)):
                    d = math.nextafter(d, math.inf if k > 0 else -math.inf)
                if not 0 <= d < 1 or lo <= d < hi:
                    continue  # the reference cannot decide (never seen) or not a valid δ
                r = check_ldp(P, eps, d, definition)
                truth = hi <= d
                out["decisions"] += 1
                out["largest_m"] = max(out["largest_m"], m)
                out["exact_fallbacks"] += r.method == "exact fallback"
                out["wrong_accepts"] += r.holds and not truth
                out["wrong_rejects"] += (not r.holds) and truth
                old_holds = d > 0 and r.required_delta <= d + 8.0 * (m + 1) * 2.0**-53
                out["old_rule_wrong_accepts"] += old_holds and not truth
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", type=int, default=200)
    args = ap.parse_args()
    print("m        definition  case            holds  method          bound     time")
    for m in (10**3, 10**5, 10**6):
        P = mechanism(m)
        for definition in ("standard", "per_output"):
            r0, _ = timed(check_ldp, P, 1e-6, 0.5, definition)  # warm-up
            r, t_clear = timed(check_ldp, P, 1e-6, 1e-7, definition)
            print(f"{m:<8d} {definition:<11s} float-clear     {r.holds!s:<6s} {r.method:<15s} {r.error_bound:.1e}  "
                  f"{t_clear:.3f} s")
            d = math.nextafter(r.required_delta, 0.0)  # one ulp below the float δ: within the bound
            r2, t_exact = timed(check_ldp, P, 1e-6, d, definition)
            print(f"{m:<8d} {definition:<11s} exact-fallback  {r2.holds!s:<6s} {r2.method:<15s} {r2.error_bound:.1e}  "
                  f"{t_exact:.3f} s")
            r3, t_zero = timed(check_ldp, P, 1e-6, 0.0, definition)
            print(f"{m:<8d} {definition:<11s} delta = 0       {r3.holds!s:<6s} {r3.method:<15s} {r3.error_bound:.1e}  "
                  f"{t_zero:.3f} s")
    t = time.perf_counter()
    res = sweep(args.sweep)
    print(f"sweep of {args.sweep} seeded structured mechanisms (m up to {res['largest_m']:,}), "
          f"{res['decisions']} decisions a few ulps from the exact δ in {time.perf_counter() - t:.1f} s:")
    print(f"  wrong accepts {res['wrong_accepts']} (target 0), wrong rejects {res['wrong_rejects']}, "
          f"exact fallbacks {res['exact_fallbacks']}; the former rule's wrong accepts {res['old_rule_wrong_accepts']}")


if __name__ == "__main__":
    main()
