"""Claims: the balanced-digit subtraction tree ("elders", arXiv:2408.07021) and the matrix-mechanism verifier.

The paper's full text is public (arXiv HTML v1 and v3; LIPIcs vol. 329, FORC 2025, paper 10), but
what this library's authors could read of it is its abstract (v1 and v3) and its table of
contents; the body (Sections 3–5, Appendices B and C) was not available to them.  Its three
published numbers — the best k = 19, the factor ≈ 4 below Honaker (v1's abstract), the exponent
0.92 of the crossover with the bound of Henzinger, Upadhyay and Upadhyay — are checked on the
reconstruction of :mod:`dpverify.continual.elders` (see its docstring), each with the reading stated
in the evidence; all three reproduce.  Default runs use exact totals (O(L) closed forms and
O(n log n) sums); ``--thorough`` extends the range of N.
"""

from __future__ import annotations

from math import log

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims import SELF_TEST


_SRC = "arXiv:2408.07021 (Andersson, Pagh, Steiner, Torkamani, FORC 2025, LIPIcs 329 paper 10; abstract read)"
#: the leading term of the Gaussian noise of the bound the abstract compares with (Henzinger, Upadhyay,
#: Upadhyay, SODA 2023): C_{ε,δ}² ≈ 4 ln(1/δ)/ε² as δ → 0, twice the classical σ² ≈ 2 ln(1/δ)/ε²
HUU_C2_PER_LN = 4.0


def _f(k: int) -> float:
    """Leading constant of the elders mean MSE: E|digit| / ln³k, per (2/ε²)(ln N)³."""
    mean_abs = (k * k - 1) / (4 * k) if k % 2 else k / 4  # E|d| over one period of the digit set
    return mean_abs / log(k) ** 3


def _best_f(kmax: int = 400) -> tuple[float, int]:
    # for k > e³ both (k² - 1)/(4k) / ln³k and k/4 / ln³k increase ((ln k - 3)/ln⁴k > 0), so the
    # search up to kmax covers every k once f(kmax) exceeds the best value found
    best = min((_f(k), k) for k in range(2, kmax + 1))
    assert _f(kmax) > best[0]
    return best


@claim(
    "continual.elders.honaker_ratio",
    source=Source(_SRC, "abstract of v1", "≈ 4× below Honaker asymptotically"),
    statement="The k-ary tree with subtraction (best k) has about 4 times smaller mean squared error "
    "than Honaker's estimator on the binary tree, asymptotically in the horizon N.",
    method="exact computation",
    proof="continual/elders_privacy.md",
)
def _honaker_ratio(thorough: bool = False) -> Outcome:
    import sympy

    from dpverify.continual.api import expected_mse
    from dpverify.continual.elders_tree import elders_best_branching, elders_digit_sum_total, elders_levels

    Ns = [2**10, 2**14, 2**16, 2**18] + ([2**20, 2**22] if thorough else [])
    ratios = {}
    for N in Ns:
        k = elders_best_branching(N)
        elders = 2 * elders_levels(N, k) ** 2 * elders_digit_sum_total(N, k)  # exact total, ε = 1
        ratios[N] = (k, float(expected_mse(N, 1.0, "honaker").sum() / elders))
    fstar, kstar = _best_f()
    # Honaker (binary, uniform): node estimates v_j = 1/(1/σ² + 1/(2 v_{j-1})) -> σ²/2, L/2 nodes per
    # release, σ² = 2 L²/ε², L = log2 N: mean -> (2/ε²) (ln N)³ / (4 ln³2).  Elders: (2/ε²)(ln N)³ f(k).
    v = sympy.symbols("v", positive=True)
    fixed = sympy.solve(sympy.Eq(v, 1 / (1 + 1 / (2 * v))), v)  # σ = 1
    assert fixed == [sympy.Rational(1, 2)]
    k = sympy.Integer(kstar)
    limit = (1 / (4 * sympy.log(2) ** 3)) / ((k**2 - 1) / (4 * k * sympy.log(k) ** 3))
    lim = float(limit)
    finite = [r for _, r in ratios.values()]
    ok = 3.5 <= lim <= 4.5 and all(3.5 <= r <= 4.5 for r in finite)
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {
            "exact_ratio_honaker/elders(N: (best k, ratio))": {N: (k_, round(r, 4)) for N, (k_, r) in ratios.items()},
            "limit_ratio": str(sympy.simplify(limit)),
            "limit_ratio_value": round(lim, 4),
            "best_k_asymptotically": kstar,
            "honaker_node_variance_limit/σ²": str(fixed[0]),
            "reading": "mean (= total/N) MSE, ε = 1, uniform Lap(L/ε) per node for both; Honaker = the library's "
            "online Honaker estimator on the binary tree (uniform level budget)",
        },
        summary="" if ok else "The exact ratio or its limit left [3.5, 4.5].",
    )


@claim(
    "continual.elders.gaussian_crossover",
    source=Source(_SRC, "abstract",
                  "k = 19 improves on the bound of Henzinger–Upadhyay–Upadhyay when δ = O(T^-0.92)"),
    statement="The k-ary tree with subtraction under Laplace noise (pure ε-DP) with k = 19 improves asymptotically "
    "on the mean squared error bound of Henzinger, Upadhyay and Upadhyay (SODA 2023) for (ε, δ)-DP Gaussian "
    "factorization mechanisms when δ = O(T^-0.92).",
    method="exact computation",
    expected=Verdict.HOLDS,
)
def _gaussian_crossover(thorough: bool = False) -> Outcome:
    from dpverify.continual.elders_tree import elders_best_branching, elders_digit_sum_total, elders_levels

    fstar, kstar = _best_f()
    # The bound of Henzinger-Upadhyay-Upadhyay: the square-root factorization (the best known for continual
    # counting) with Gaussian noise of constant C²: mean MSE -> (ln T / π)² C², C² ≈ 4 ln(1/δ)/ε² to leading
    # order.  Elders, best k: (2/ε²) f* (ln T)³.  Equal when ln(1/δ) = (2/4) π² f* ln T: δ* = T^-c,
    # c = π² f*/2; elders is better for δ below T^-c.  Classical σ² ≈ 2 ln(1/δ)/ε² instead of C² gives 2c.
    c = float(np.pi**2 * fstar * 2 / HUU_C2_PER_LN)
    finite = {}
    for T in [2**12, 2**16] + ([2**20, 2**24] if thorough else []):
        i = np.arange(1, T)
        f = np.concatenate([[1.0], np.cumprod((2 * i - 1) / (2 * i))])  # coefficients of (1 - x)^(-1/2)
        cs = np.cumsum(f**2)
        gauss_per_c2 = cs.mean() * cs[-1]  # mean row norm² of B times max column norm² of A (C² = 1)
        k = elders_best_branching(T)
        lap = 2 * elders_levels(T, k) ** 2 * elders_digit_sum_total(T, k) / T
        finite[T] = round(float(lap / (HUU_C2_PER_LN * gauss_per_c2) / log(T)), 3)  # ln(1/δ*)/ln T, ε = 1
    # For comparison: Gaussian noise (classical σ²) on the same tree (l2 sensitivity √L), best k for it.
    g_best = min(((k * k - 1) / (4 * k) if k % 2 else k / 4) / log(k) ** 2 for k in range(2, 200))
    # 0.92 is c rounded to two digits, upwards: δ = O(T^-0.92) then lies inside the region δ < T^-c
    reproduced = kstar == 19 and abs(c - 0.92) <= 0.005 and c <= 0.92
    return Outcome(
        Verdict.HOLDS if reproduced else Verdict.REFUTED,
        {
            "c_limit_HUU_constant": round(c, 4),
            "best_k": kstar,
            "c_of_k(17..21)": {k: round(float(np.pi**2 * _f(k) * 2 / HUU_C2_PER_LN), 4) for k in range(17, 22)},
            "c_finite_T_HUU_constant(exact norms)": finite,
            "c_limit_classical_sigma": round(2 * c, 4),
            "c_limit_same_tree_gaussian_classical_sigma": round(fstar / g_best, 4),
            "reading": "crossover δ* = T^-c where the mean MSE of elders (Laplace Lap(L/ε) per node, best k) equals "
            "the mean MSE of the square-root factorization with Gaussian noise of HUU's constant "
            "C² ≈ 4 ln(1/δ)/ε² (its leading term as δ -> 0); elders is better for δ < T^-c",
            "constant": "C_ε,δ = (2/ε)·sqrt(4/9 + ln((1/δ)·sqrt(2/π))), the constant of the Gaussian factorization "
            "bound of Fichtenberger–Henzinger–Upadhyay (ICML 2023) that HUU (SODA 2023) carry; its square is "
            "4 ln(1/δ)/ε² + O(1/ε²).  Neither text was read here: the constant is quoted, not re-derived",
        },
        summary="" if reproduced else f"The crossover exponent under HUU's constant is {c:.3f} at best k = {kstar}, "
        "not 0.92 at k = 19.",
    )


@claim(
    "continual.elders.factorization",
    source=Source(SELF_TEST, "continual/elders.py", "strategy and sensitivity"),
    statement="dpverify's elders strategy factors the running counts exactly (S·M = W in integers) and its "
    "stored strategy has exact (rational) max column l1 norm at most 1; a strategy with one level too few is refuted.",
    method="exact computation",
    proof="continual/elders_privacy.md",
)
def _factorization(thorough: bool = False) -> Outcome:
    from dpverify.continual.elders_tree import elders_levels, elders_strategy
    from dpverify.continual.exact import max_column_norm_exact

    bad, worst, mutant = [], 0.0, []
    for n in range(1, 121 if thorough else 41):
        for k in (2, 3, 4, 5, 8, 19):
            R, A = elders_strategy(n, branching=k)
            L = elders_levels(n, k)
            S = np.rint(R.toarray() / L).astype(np.int64)
            M = (A.toarray() != 0).astype(np.int64)
            sens = max_column_norm_exact(A, 1)
            worst = max(worst, float(sens))
            if not np.array_equal(S @ M, np.tril(np.ones((n, n), dtype=np.int64))) or sens > 1:
                bad.append((n, k))
            if L > 1:  # the mutant: noise calibrated to L - 1 levels
                mutant.append(max_column_norm_exact(A * (L / (L - 1)), 1) > 1)
    caught = all(mutant)
    ok = not bad and caught
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"failures": bad[:10], "max_exact_sensitivity": worst, "mutant_L_minus_1_refuted_everywhere": caught},
        summary="" if ok else "A strategy failed to factor W or exceeded sensitivity 1, or the mutant went undetected.",
    )


@claim(
    "continual.matrix.verifier",
    source=Source(SELF_TEST, "continual/matrix.py", "MatrixMechanism"),
    statement="MatrixMechanism, given only FDA's strategy ΣM and reconstruction BΣ⁻¹, reproduces the room's exact "
    "FDA total MSE at N = 4095, and it refutes a user's claim that the unweighted Fenwick strategy M has "
    "sensitivity 1 (its exact sensitivity is ⌊log₂N⌋ + 1).",
    method="exact computation",
    proof="continual/weights_duality.md",
)
def _matrix_verifier(thorough: bool = False) -> Outcome:
    import scipy.sparse as sp

    from dpverify.continual.api import expected_mse, strategy
    from dpverify.continual.fenwick import fenwick_recombination, fenwick_strategy
    from dpverify.continual.hdmm import prefix_workload
    from dpverify.continual.matrix import MatrixMechanism

    n = 4095
    R, A = strategy(n, "fda")
    mm = MatrixMechanism(prefix_workload(n), A, R)
    total = mm.total_mse(1.0)
    room = float(expected_mse(n, 1.0, "fda").sum())
    rel = abs(total - room) / room
    claimed = MatrixMechanism(prefix_workload(n), fenwick_strategy(n), fenwick_recombination(n))
    sens = mm.sensitivity(1)
    wrong = claimed.sensitivity(1)
    ok = rel <= 1e-9 and sens <= 1 and wrong == n.bit_length()
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"fda_total_via_matrix": total, "fda_total_room": room, "relative_difference": rel,
         "fda_sensitivity_exact_rounded_up": sens, "user_claim_sensitivity": 1,
         "unweighted_fenwick_sensitivity_exact": wrong, "workload_nnz_dense_would_be": n * (n + 1) // 2,
         "strategy_sparse": bool(sp.issparse(A))},
        summary="" if ok else "MatrixMechanism disagreed with the room's FDA formula or missed the wrong sensitivity.",
    )


@claim(
    "continual.elders.optimal_weights_scale",
    source=Source(SELF_TEST, "continual/tree_weights.py", "tree_optimal_weights"),
    statement="The closed-form tree solve of the elders total-MSE weights agrees with the conic solve to 1e-6 "
    "relative where both run, and at n = 2^16 (2^20 with --thorough) its weights are exactly feasible with a "
    "certified relative gap <= 1e-6 against the dual bound; weights 2^-30 over the budget are refused.",
    method="exact computation",
    proof="continual/weights_duality.md",
)
def _optimal_weights_scale(thorough: bool = False) -> Outcome:
    from dpverify.continual.elders_tree import elders_best_branching, elders_strategy_parts
    from dpverify.continual.tree_weights import certify_weights, elders_parents, tree_optimal_weights
    from dpverify.continual.weights import optimal_weights

    R, A, off = elders_strategy_parts(600, 5)
    small = tree_optimal_weights(R, A, elders_parents(off, 5))
    agree = abs(small.objective / optimal_weights(R, A, "total").objective - 1)
    n = 2**20 if thorough else 2**16
    k = elders_best_branching(n)
    R, A, off = elders_strategy_parts(n, k)
    res = tree_optimal_weights(R, A, elders_parents(off, k))
    d = res.weights.copy()
    d[np.isfinite(d) & (d > 0)] *= 1 + 2.0**-30  # the mutant: a hair over the budget
    refused = not certify_weights(R, A, d, res.multipliers).certified
    uniform = float(np.abs(R).sum()) * float(np.abs(R.data).max())  # R = ±L: Σ_t Σ_j |d_j(t)| · L² (units 2/ε²)
    ok = agree <= 1e-6 and small.certified and res.certified and refused
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"conic_vs_tree_within_1e-6_n600_k5": bool(agree <= 1e-6), "n": n, "branching": k,
         "total_2_over_eps2": float(f"{res.objective:.10g}"), "relative_gap_below_1e-9": bool(res.relative_gap < 1e-9),
         "exact_max_column_l1_at_most_1": bool(res.max_column_l1 <= 1),
         "total_over_uniform": round(res.objective / uniform, 6), "over_budget_mutant_refused": refused},
        summary="" if ok else "The tree solve disagreed with the conic solve, was not certified, or accepted the mutant.",
    )

