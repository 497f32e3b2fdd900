"""Speed of the rr room and the LDP checker (one run; prints times and ratios).

Targets (issue 3): the per-output check of a 2000 × 2000 mechanism in under a second; the n-ary LP
for n = 30 in seconds.  Run: ``python benchmarks/bench_rr.py``.
"""

from __future__ import annotations

import time

import numpy as np

from dpverify.audit import check_ldp
from dpverify.rr import optimal_mechanism, optimal_utility, solve_lp


def timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t


def main() -> None:
    rng = np.random.default_rng(0)
    n = 2000
    pi = rng.dirichlet(np.ones(n))
    P, _ = optimal_mechanism(pi, 2.0, 0.01)
    res, t_po = timed(check_ldp, P, 2.0, 0.01, "per_output")
    print(f"per-output check, {n}x{n}: {t_po:.3f} s (target < 1 s) holds={res.holds}")
    m = 200
    Q = rng.dirichlet(np.ones(m), size=m)
    _, t_po_s = timed(check_ldp, Q, 1.0, 0.1, "per_output")
    _, t_std_s = timed(check_ldp, Q, 1.0, 0.1, "standard")
    print(f"{m}x{m}: standard (O(n^2 m)) {t_std_s:.3f} s vs per-output (O(n m)) {t_po_s:.4f} s: "
          f"ratio {t_std_s / max(t_po_s, 1e-9):.0f}")
    pi30 = rng.dirichlet(np.ones(30))
    sol, t_lp = timed(solve_lp, pi30, 0.5, 0.05)
    u, t_cf = timed(optimal_utility, pi30, 0.5, 0.05)
    print(f"n-ary LP n=30 (HiGHS, per-output, {30 * 30 * 29} constraints): {t_lp:.3f} s (target: seconds); "
          f"|u_LP - u_closed| = {abs(sol.u - u):.2e}; certified={sol.certificate.ok(1e-9)}")
    print(f"closed form n=30: {t_cf * 1e3:.3f} ms; LP / closed form ratio {t_lp / max(t_cf, 1e-9):.0f}")
    sol_c, t_cvx = timed(solve_lp, pi30, 0.5, 0.05, solver="cvxpy")
    print(f"n-ary LP n=30 (cvxpy/Clarabel): {t_cvx:.3f} s; cvxpy / HiGHS ratio {t_cvx / t_lp:.2f}; "
          f"|u_cvxpy - u_closed| = {abs(sol_c.u - u):.2e}")


if __name__ == "__main__":
    main()
