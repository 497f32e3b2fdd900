"""Claims on Thms 5.1-5.4 of the thesis chapter (sensitivity, MSE, invertibility and the optimal diagonal of the
Fenwick strategy), checked on the library's matrices; ``thorough=True`` widens the sweeps."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.continual.fda import fda_optimum, fda_weights, solve_diagonal_cvxpy
from dpverify.continual.fenwick import fenwick_expected_mse
from dpverify.continual.fenwick_tree import fenwick_recombination, fenwick_strategy, popcount


def _holds(ok: bool) -> Verdict:
    return Verdict.HOLDS if ok else Verdict.REFUTED


def _tril(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n)))


@claim(
    "continual.thm5.1",
    source=Source("000", "§5.3", "Thm 5.1"),
    statement="‖M_N‖₁ = ‖M_N(:,1)‖₁ ≥ ‖M_N(:,j)‖₁ for j > 1, and ‖M_N‖₁ = ⌊log₂N⌋ + 1.",
    method="exact computation",
    proof="continual/fenwick_forest.md",
)
def _thm51(thorough: bool = False) -> Outcome:
    # Column p of M_N is the upward path p_0 = p, p_{j+1} = p_j + lowbit(p_j) cut at N, so
    # ||M_N(:,p)|| = #{j : p_j <= N}.  Hence max_p ||M_N(:,p)|| = count of column 1 for EVERY N <= L
    # iff p_j >= 1_j = 2^j for all p <= L and all j: one table covers all N <= L at once.
    L = 2**22 if thorough else 2**16
    p = np.arange(1, L + 1, dtype=np.int64)
    cur, j, worst = p.copy(), 0, 0
    while cur.size:
        worst = max(worst, int(np.sum(cur < (1 << j))))  # p_j < 2^j would refute
        cur = cur + (cur & -cur)
        cur = cur[cur <= L]
        j += 1
    N = np.arange(1, L + 1)
    col1 = np.zeros(L, dtype=np.int64)
    for t in range(L.bit_length()):
        col1 += (1 << t) <= N  # column 1 walks 1, 2, 4, ...
    floor_ok = bool(np.array_equal(col1, np.floor(np.log2(N)).astype(np.int64) + 1))
    # direct column sums of the matrices for small N (independent of the argument above)
    direct_bad = [
        n
        for n in range(1, (1024 if thorough else 256) + 1)
        if not (
            (cs := np.asarray(abs(fenwick_strategy(n)).sum(axis=0)).ravel()).max() == cs[0] == n.bit_length()
        )
    ]
    ok = worst == 0 and floor_ok and not direct_bad
    return Outcome(
        _holds(ok),
        {"every_N_up_to": L, "paths_below_2^j": worst, "col1_is_floor_log2_plus_1": floor_ok, "direct_bad_n": direct_bad[:5]},
    )


@claim(
    "continual.thm5.2",
    source=Source("000", "§5.3", "Thm 5.2 and the MSE paragraph after it"),
    statement="Row p of B has popcount(p) ones; hence trace(BᵀB) = Σ_{p≤N} popcount(p), which is m·2^(m−1) for N = 2^m − 1.",
    method="symbolic",
    proof="continual/fenwick_forest.md",
)
def _thm52(thorough: bool = False) -> Outcome:
    import sympy

    from dpverify.continual.symbolic import popcount_sum_closed_form

    L = 2**18 if thorough else 2**15
    B = fenwick_recombination(L)  # row p of B_N does not depend on N >= p: B_N is a leading block
    rows = np.diff(B.indptr)
    pc = popcount(np.arange(1, L + 1))
    rows_ok = bool(np.array_equal(rows, pc))
    m = sympy.Symbol("m", integer=True, positive=True)
    closed = popcount_sum_closed_form(m)
    csum = np.cumsum(pc)
    bad = [k for k in range(1, L.bit_length()) if int(csum[2**k - 2]) != int(closed.subs(m, k))]
    trace_ok = all(
        int((fenwick_recombination(n).T @ fenwick_recombination(n)).diagonal().sum()) == int(csum[n - 1])
        for n in (1, 2, 3, 7, 100, 255, 1000)
    )
    return Outcome(
        _holds(rows_ok and not bad and trace_ok),
        {"rows_checked": L, "closed_form": closed, "closed_form_bad_m": bad, "trace_matches": trace_ok},
    )


@claim(
    "continual.fenwick_mse",
    source=Source("000", "§5.3", "eq. (5.2) and the MSE paragraph after Thm 5.2"),
    statement="The plain Fenwick mechanism has total MSE (2/ε²)(⌊log₂N⌋+1)²·Σ_p popcount(p), "
    "O(N log³ N) in total and O(log³ N) per release.",
    method="exact computation",
    proof="continual/fenwick_forest.md",
)
def _fenwick_mse(thorough: bool = False) -> Outcome:
    eps = 0.7
    worst = 0.0
    for n in (1, 2, 3, 5, 64, 100, 255, 511):
        M, B = fenwick_strategy(n), fenwick_recombination(n)
        delta = np.asarray(abs(M).sum(axis=0)).max()
        by_trace = 2 / eps**2 * (B.multiply(B)).sum() * delta**2  # eq. (5.2)
        closed = 2 / eps**2 * n.bit_length() ** 2 * popcount(np.arange(1, n + 1)).sum()
        per_release = fenwick_expected_mse(n, eps).sum()
        worst = max(worst, abs(by_trace / closed - 1), abs(per_release / closed - 1))
    # per release: 2 Δ² popcount(p)/ε² <= 2 Δ³/ε² with Δ = floor(log2 N) + 1, equality at p = 2^Δ - 1
    ratios = []
    for k in range(1, (24 if thorough else 18) + 1):
        n = 2**k - 1
        mse = fenwick_expected_mse(n, 1.0)
        ratios.append(float(mse.max() / (2 * n.bit_length() ** 3)))
    ok = worst < 1e-10 and max(ratios) <= 1 + 1e-10 and min(ratios) >= 1 - 1e-10
    return Outcome(_holds(ok), {"max_rel_diff": worst, "max_per_release_over_2log3": max(ratios)})


@claim(
    "continual.thm5.3",
    source=Source("000", "§5.3", "Def. 5.3 / Thm 5.3"),
    statement="If M has full row rank (B = W M⁺), the low-rank mechanism is linearly consistent; "
    "M_N is invertible, so the Fenwick mechanism is linearly consistent.",
    method="property",
    proof="continual/fenwick_forest.md",
)
def _thm53(thorough: bool = False) -> Outcome:
    rng = np.random.default_rng(53)
    worst = 0.0
    for _ in range(40 if thorough else 10):
        n, k, r = rng.integers(3, 9), None, None
        r = int(rng.integers(1, n))  # rank of W
        W = rng.normal(size=(n + 2, r)) @ rng.normal(size=(r, n))  # rank-deficient workload: many v give z
        k = int(rng.integers(r, n + 1))
        M = rng.normal(size=(k, n))  # full row rank (generic)
        B = W @ np.linalg.pinv(M)
        # v1 W = v2 W: v2 = v1 + (left null vector of W)
        null = np.linalg.svd(W.T)[2][r:]
        v1 = rng.normal(size=n + 2)
        v2 = v1 + rng.normal(size=null.shape[0]) @ null
        y = M @ rng.normal(size=n) + rng.laplace(size=k)
        worst = max(worst, abs(v1 @ B @ y - v2 @ B @ y) / (1 + abs(v1 @ B @ y)))
    # the hypothesis matters: M = [[1],[1]] (rank 1 < 2 rows), W = [[1],[1]], B = I is not consistent
    Mb, Bb = np.array([[1.0], [1.0]]), np.eye(2)
    yb = Mb @ np.array([3.0]) + np.array([0.5, -0.25])
    counter = abs(np.array([1.0, 0.0]) @ Bb @ yb - np.array([0.0, 1.0]) @ Bb @ yb)
    unit_lower = all(
        (lambda M: np.array_equal(M.diagonal(), np.ones(n)) and sp.triu(M, 1).nnz == 0)(fenwick_strategy(n))
        for n in range(1, 257)
    )
    ok = worst < 1e-8 and counter > 0 and unit_lower
    return Outcome(
        _holds(ok),
        {"max_rel_disagreement": worst, "rank_deficient_counterexample_gap": float(counter), "M_N_unit_lower_triangular_n<=256": unit_lower},
    )


@claim(
    "continual.m3_example",
    source=Source("000", "§5.4", "worked example M₃"),
    statement="For N = 3 the plain Fenwick mechanism has MSE 32/ε²; scaling row 3 of M by 2 (B column 3 by ½) "
    "keeps Δ = 2 and gives 26/ε².",
    method="exact computation",
    proof="continual/fda_any_n.md",
)
def _m3(thorough: bool = False) -> Outcome:
    def mse_times_eps2(M, B):  # eq. (5.2) in exact rationals
        delta = max(sum(abs(M[i][j]) for i in range(3)) for j in range(3))
        tr = sum(B[i][j] ** 2 for i in range(3) for j in range(3))
        return 2 * tr * delta**2

    M = [[Fraction(int(x)) for x in row] for row in fenwick_strategy(3).toarray()]
    B = [[Fraction(int(x)) for x in row] for row in fenwick_recombination(3).toarray()]
    plain = mse_times_eps2(M, B)
    M2 = [row[:] for row in M]
    M2[2] = [2 * x for x in M2[2]]
    B2 = [row[:] for row in B]
    for i in range(3):
        B2[i][2] /= 2
    WB = [[sum(B2[i][k] * M2[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    still_w = WB == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    scaled = mse_times_eps2(M2, B2)
    fda = 2 * fda_optimum(3)
    ok = plain == 32 and scaled == 26 and still_w and fda < 26
    return Outcome(_holds(ok), {"plain_eps2_mse": str(plain), "scaled_eps2_mse": str(scaled), "optimal_eps2_mse": fda})


def _cvxpy_sizes(thorough: bool):
    return [2**m - 1 for m in range(1, (13 if thorough else 9))]


@claim(
    "continual.thm5.4",
    source=Source("000", "§5.4", "Thm 5.4 / eq. (5.11)"),
    statement="For N = 2^m − 1 the optimal weights of (5.10) satisfy R_{2^m−1} = (α·R_{2^{m−1}−1}, 1−α, R_{2^{m−1}−1}) "
    "for some α ∈ (0,1).",
    method="solver cross-check",
    proof="continual/fda_derivation.md",
    timeout=600.0,
)
def _thm54(thorough: bool = False) -> Outcome:
    worst_struct, worst_lam, worst_opt = 0.0, 0.0, 0.0
    alphas = []
    solved = {}
    for n in _cvxpy_sizes(thorough):
        lam, opt = solved[n] = solve_diagonal_cvxpy(n)  # independent of the recursion
        ref = fda_weights(n)
        worst_lam = max(worst_lam, float(np.max(np.abs(lam / ref - 1))))
        worst_opt = max(worst_opt, abs(opt / fda_optimum(n) - 1))
        if n >= 3:
            h = n // 2  # R = (α R_h, 1 − α, R_h)
            prev, _ = solved[h]
            a = 1 - lam[h]
            alphas.append(float(a))
            worst_struct = max(
                worst_struct,
                float(np.max(np.abs(lam[:h] / (a * prev) - 1))),
                float(np.max(np.abs(lam[h + 1 :] / prev - 1))),
            )
    ok = worst_struct < 2e-6 and worst_lam < 1e-6 and worst_opt < 1e-6 and all(0 < a < 1 for a in alphas)
    return Outcome(
        _holds(ok),
        {
            "N": f"2^m-1, m=1..{len(_cvxpy_sizes(thorough))}",
            "cvxpy_structure_rel_dev": worst_struct,
            "cvxpy_vs_recursion_lambda_rel": worst_lam,
            "cvxpy_vs_recursion_optimum_rel": worst_opt,
            "alpha": [round(a, 6) for a in alphas[:6]],
        },
    )
