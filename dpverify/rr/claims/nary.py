"""Zhou, Lu and Wu's paper, the n-ary model (19)–(20) of §4–§5: the closed-form optimum (derived here), the
extreme-point results the paper cites and the counts of the model's variables and constraints.

The erratum in the model's (ε,δ) definition is in :mod:`dpverify.rr.claims.errata`.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim

SEED = "003"


def _rand_rational_instance(rnd: random.Random):
    n = rnd.randint(2, 6)
    w = [rnd.choice([0, 0, 1, 2, 3, 5, 8, 13]) + rnd.randint(0, 3) for _ in range(n)]
    if sum(w) == 0:
        w[0] = 1
    pi = [Fraction(x, sum(w)) for x in w]
    Ev = Fraction(rnd.randint(101, 600), 100)
    d = rnd.choice([Fraction(0), Fraction(rnd.randint(1, 95), 100)])
    return pi, Ev, d


@claim(
    "rr.nary.closed_form",
    source=Source(SEED, "§4–§5", "model (19)–(20), closed form left open"),
    statement="(Derived here; the paper leaves it open.) For every n ≥ 2, ε > 0, δ ∈ [0,1): "
    "u* = δ + (1−δ)·max_k e^ε Π_k/(e^ε+k−1), Π_k the sum of the k largest π_i, attained by δI + (1−δ)·(k-RR on "
    "the k most likely inputs).",
    method="solver cross-check",
    expected="holds",
    proof="rr/nary_optimum.md",
)
def _nary_closed_form(thorough: bool = False) -> Outcome:
    from dpverify.rr.lp import solve_lp
    from dpverify.rr.nary import exact_optimum, optimal_utility, verify_certificate_exact

    rnd = random.Random(3)
    n_exact = 2000 if thorough else 150
    exact_fail = None
    for _ in range(n_exact):
        pi, Ev, d = _rand_rational_instance(rnd)
        res = verify_certificate_exact(pi, Ev, d, exact_optimum(pi, Ev, d))
        if not all(res.values()):
            exact_fail = {"pi": [str(x) for x in pi], "E": str(Ev), "delta": str(d), "checks": res}
            break
    rng = np.random.default_rng(4)
    n_lp = 3000 if thorough else 60
    worst, worst_cert, lp_fail = 0.0, 0.0, None
    for _ in range(n_lp):
        n = int(rng.integers(2, 9))
        pi = rng.dirichlet(np.full(n, rng.choice([0.2, 1.0, 5.0])))
        pi = pi / pi.sum()
        e = float(rng.uniform(0.02, 4.0))
        d = float(rng.choice([0.0, rng.uniform(0, 0.9)]))
        sol = solve_lp(pi, e, d)
        c = sol.certificate
        diff = abs(sol.u - optimal_utility(pi, e, d))
        r = max(c.primal_infeasibility, c.dual_infeasibility, c.complementary_slackness, c.duality_gap)
        worst, worst_cert = max(worst, diff), max(worst_cert, r)
        if (diff > 1e-9 or r > 1e-9) and lp_fail is None:
            lp_fail = {"pi": pi.round(6).tolist(), "epsilon": e, "delta": d, "u_lp": sol.u, "diff": diff}
    ok = exact_fail is None and lp_fail is None
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"exact_certificates_checked": n_exact, "exact_failure": exact_fail, "lp_instances": n_lp,
         "lp_max_abs_diff": worst, "lp_max_certificate_residual": worst_cert, "lp_tolerance": 1e-9,
         "lp_failure": lp_fail, "seeds": [3, 4]},
    )


@claim(
    "rr.sec4.holohan",
    source=Source(SEED, "§4", "results of refs. [11], [12] on LDP extreme points"),
    statement="In an ε-LDP design matrix a column is either all zero or all positive; the extreme points with "
    "exactly one non-zero column have that column all ones; those with exactly two non-zero columns have "
    "entries e^ε/(e^ε+1) or 1/(e^ε+1); the LP optimum is attained at an extreme point.",
    method="exact computation",
    expected="holds",
)
def _sec4_holohan(thorough: bool = False) -> Outcome:
    """Vertex enumeration of the n × n ε-LDP polytope (n = 2 by default; n = 2, 3 when thorough)."""
    from dpverify.rr.nary import extreme_points, optimal_utility

    rng = np.random.default_rng(6)
    cases = [(2, e) for e in (0.1, 1.0, 2.5)] + ([(3, e) for e in (0.3, 1.0, 2.0)] if thorough else [])
    fails, counts, worst = [], {}, 0.0
    for n, e in cases:
        V = extreme_points(n, e)
        counts[f"n={n},eps={e}"] = len(V)
        Ev = math.exp(e)
        for P in V:
            nz = P > 1e-12
            cols = nz.any(axis=0)
            if not np.array_equal(nz[:, cols], np.ones((n, cols.sum()), bool)):
                fails.append({"n": n, "eps": e, "P": P.round(6).tolist(), "why": "mixed column"})
            if cols.sum() == 1 and not np.allclose(P[:, cols], 1):
                fails.append({"n": n, "eps": e, "P": P.round(6).tolist(), "why": "one column not all ones"})
            if cols.sum() == 2:
                vals = P[:, cols].ravel()
                ok = np.all(np.isclose(vals, Ev / (Ev + 1)) | np.isclose(vals, 1 / (Ev + 1)))
                if not ok:
                    fails.append({"n": n, "eps": e, "P": P.round(6).tolist(), "why": "two-column entries"})
        for _ in range(20):
            pi = rng.dirichlet(np.ones(n))
            pi = pi / pi.sum()
            best = float((V[:, np.arange(n), np.arange(n)] @ pi).max())
            worst = max(worst, abs(best - optimal_utility(pi, e)))
    ok = not fails and worst < 1e-9
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"vertex_counts": counts, "failures": fails[:3], "max_abs_diff_extreme_point_vs_closed_form": worst,
         "note": "for delta > 0 the column property fails, e.g. the optimum [[1,0],[1-delta,delta]] of (15)"},
    )


@claim("rr.sec4.counts", source=Source(SEED, "§4", "model (19)–(20): counts of variables and constraints"),
       method="exact computation", expected="holds",
       statement="Model (19)–(20) has n² variables, n²(n−1) differential-privacy constraints, n row-sum constraints "
                 "and n² non-negativity constraints; eliminating one variable per row leaves n(n−1) variables, "
                 "n²(n−1) privacy constraints, n constraints '≤ 1' and n(n−1) non-negativity constraints.")
def _counts(thorough: bool = False) -> Outcome:
    from dpverify.rr.lp import ldp_lp

    rows, ok = [], True
    for n in range(2, (9 if thorough else 6) + 1):
        c, A_ub, b_ub, A_eq, b_eq = ldp_lp(np.full(n, 1.0 / n), 1.0, 0.1)
        nvar, ndp, neq = A_eq.shape[1], A_ub.shape[0], A_eq.shape[0]
        # eliminate the last variable of each row via its row sum: every privacy row stays a (non-trivial) row,
        # the eliminated variable's p ≥ 0 becomes Σ_rest ≤ 1; the kept variables keep p ≥ 0
        keep = np.ones(nvar, bool)
        keep[np.arange(n) * n + (n - 1)] = False
        elim_rows = [A_eq[i].toarray().ravel()[keep] for i in range(neq)]
        n_le_one = sum(1 for r in elim_rows if np.count_nonzero(r) == n - 1)
        dense = A_ub.toarray()
        reduced_dp = dense[:, keep].copy()
        for a in range(n):  # substitute p_{a,n−1} = 1 − Σ_{k<n−1} p_{ak}
            e = a * n + (n - 1)
            cols_a = [int(np.flatnonzero(keep)[:].tolist().index(a * n + k)) for k in range(n - 1)]
            reduced_dp[:, cols_a] -= dense[:, [e]]
        got = (nvar, ndp, neq, nvar, int(keep.sum()), int(np.count_nonzero(np.abs(reduced_dp).sum(axis=1) > 0)),
               n_le_one, int(keep.sum()))
        want = (n * n, n * n * (n - 1), n, n * n, n * (n - 1), n * n * (n - 1), n, n * (n - 1))
        ok &= got == want
        rows.append([n, list(got)])
    ev = {"rows[n, (vars, dp, row sums, nonneg, reduced vars, reduced dp, ≤1, reduced nonneg)]": rows}
    if ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary="The library's LP of (19)–(20) has other counts than printed.")
