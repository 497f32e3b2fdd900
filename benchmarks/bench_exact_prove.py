"""Time :func:`dpverify.exact.prove` on the issue-27 targets (2 cores shared: also report CPU time).

Targets: a 2 x 2 law in under 1 s; a 10 x 10 law with rational entries in e^ε in under 10 s; k-ary
randomized response with the binary keep probability e^ε / (1 + e^ε): ``epsilon_needed`` equals
ε + log(k − 1) exactly (checked with ``sympy.simplify``). Then the catalogue
(:func:`dpverify.exact.catalogue.prove_catalogue`): the families proved for every ε > 0, with CPU seconds.

    python3 benchmarks/bench_exact_prove.py [--seed 1] [--k 3 5 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sympy as sp

from dpverify.exact import prove

EPS = sp.Symbol("epsilon", positive=True)
E = sp.exp(EPS)


def timed(label, fn, target=None):
    """Run ``fn``; print wall and CPU seconds, the verdict and whether the wall-time target is met."""
    t0, c0 = time.perf_counter(), time.process_time()
    r = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    ok = "" if target is None else ("  target < %g s: %s" % (target, "met" if wall < target else "MISSED"))
    print(f"{label:<46} {r.verdict:<8} wall {wall:6.2f} s  cpu {cpu:6.2f} s{ok}")
    return r


def random_law(n, rng):
    """An n x n law: row weights c0 + c1 e^ε + c2 e^{2ε} with small random integers, normalised."""
    W = [[int(rng.integers(1, 6)) + int(rng.integers(0, 4)) * E + int(rng.integers(0, 3)) * E ** 2
          for _ in range(n)] for _ in range(n)]
    return sp.Matrix(n, n, lambda i, o: W[i][o] / sum(W[i]))


def kary(k, keep):
    return sp.Matrix(k, k, lambda i, o: keep if i == o else (1 - keep) / (k - 1))


def truncated_geometric(n):
    a = sp.exp(-EPS)
    return sp.Matrix(n, n, lambda t, o: a ** t / (1 + a) if o == 0 else a ** (n - 1 - t) / (1 + a)
                     if o == n - 1 else (1 - a) / (1 + a) * a ** abs(o - t))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--k", type=int, nargs="+", default=[3, 5, 10])
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    keep = E / (1 + E)
    timed("2x2 binary randomized response", lambda: prove(kary(2, keep), epsilon=EPS), 1.0)
    timed("2x2 [[3/4,1/4],[1/4,3/4]] (holds iff eps >= ln 3)",
          lambda: prove(sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]]),
                        epsilon=EPS), 1.0)
    timed("10x10 k-RR (optimal keep e^eps/(e^eps+9))", lambda: prove(kary(10, E / (E + 9)), epsilon=EPS), 10.0)
    timed("10x10 truncated geometric, neighbours",
          lambda: prove(truncated_geometric(10), epsilon=EPS,
                        pairs=[(i, i + 1) for i in range(9)] + [(i + 1, i) for i in range(9)]), 10.0)
    timed(f"10x10 random law (seed {a.seed}), every pair", lambda: prove(random_law(10, rng), epsilon=EPS), 10.0)
    for k in a.k:
        r = timed(f"{k}-ary RR with binary keep e^eps/(1+e^eps)", lambda: prove(kary(k, keep), epsilon=EPS))
        need = r.counterexample.epsilon_needed
        print(f"    epsilon_needed = {need}; equals eps + log(k-1): {sp.simplify(need - EPS - sp.log(k - 1)) == 0}")
    from dpverify.exact.catalogue import prove_catalogue

    c0 = time.process_time()
    s = prove_catalogue()
    print(f"{s.summary()}  cpu {time.process_time() - c0:.2f} s")
    for row in s.with_status("proved"):
        print(f"    {row.family:<40} cpu {row.seconds:5.2f} s")


if __name__ == "__main__":
    main()
