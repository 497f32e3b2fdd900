"""Optimal elders weights (total MSE) past the conic solver: time, certificate, and MSE against FDA and uniform.

Run: ``python benchmarks/bench_elders_weights.py`` (``--sizes 8191 65536`` for a quicker run).

Target (issue 30, item 5): the total-MSE optimum at n = 2^16 and 2^20 with a certified relative
gap <= 1e-6, each in <= 60 s (time = building the strategy + solving + certifying; wall and
CPU seconds of this process are printed, the target is on wall time).  At n = 8191
the conic solve (cvxpy) is timed beside the tree solve and the two objectives are compared.
MSE columns are at ε = 1 with Laplace noise, each method at its default (elders: the best branching).
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[8191, 2**16, 2**20])
    args = ap.parse_args()

    from dpverify.continual import expected_mse
    from dpverify.continual.elders_tree import elders_best_branching, elders_strategy_parts
    from dpverify.continual.tree_weights import elders_parents, tree_optimal_weights
    from dpverify.continual.weights import optimal_weights
    from dpverify.progress import progress

    rows = []
    with progress("elders weights", total=len(args.sizes)) as tick:
        for n in args.sizes:
            k = elders_best_branching(n)
            t0, c0 = time.perf_counter(), time.process_time()
            R, A, offsets = elders_strategy_parts(n, k)
            res = tree_optimal_weights(R, A, elders_parents(offsets, k))
            t_tree, c_tree = time.perf_counter() - t0, time.process_time() - c0
            conic = ""
            if n <= 8191:
                t0 = time.perf_counter()
                ref = optimal_weights(R, A, "total")
                conic = f"conic {time.perf_counter() - t0:.1f} s, rel diff {res.objective / ref.objective - 1:+.1e}"
            opt = expected_mse(n, 1.0, "elders", branching=k, weights="total")
            uni = expected_mse(n, 1.0, "elders", branching=k)
            fda = expected_mse(n, 1.0, "fda")
            ok = res.certified and res.relative_gap <= 1e-6 and t_tree <= 60
            rows.append((n, k, (t_tree, c_tree), res, opt, uni, fda, conic, ok))
            tick(note=f"n={n}")
    print(f"{'n':>8} {'k':>3} {'wall s':>7} {'cpu s':>6} {'primal (2/eps^2)':>18} {'dual':>18} {'rel gap':>9} cert")
    for n, k, (t, c), res, *_ in rows:
        print(f"{n:>8} {k:>3} {t:>7.2f} {c:>6.2f} {res.objective:>18.10e} {res.dual_bound:>18.10e} "
              f"{res.relative_gap:>9.2e} {res.certified}")
    print(f"\n{'n':>8} {'total opt/FDA':>13} {'max opt/FDA':>11} {'total opt/unif':>14} {'max opt/unif':>12}  target")
    for n, k, t, res, opt, uni, fda, conic, ok in rows:
        print(f"{n:>8} {opt.sum() / fda.sum():>13.4f} {opt.max() / fda.max():>11.4f} {opt.sum() / uni.sum():>14.4f} "
              f"{opt.max() / uni.max():>12.4f}  {'ok' if ok else 'MISSED'} (gap <= 1e-6, <= 60 s) {conic}")


if __name__ == "__main__":
    main()
