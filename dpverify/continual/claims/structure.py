"""Claims on the Fenwick factorization itself (thesis chapter 5, §5.3-5.4; Cai, Wu, Wang 2016, §3): W = B·M, the Fenwick tree
as accurate as the binary-tree method, and the Δ ≤ 1 normalisation of the weighted strategy."""

from __future__ import annotations

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.continual.fda import fda_weights
from dpverify.continual.fenwick_tree import fenwick_recombination, fenwick_strategy


def _holds(ok: bool) -> Verdict:
    return Verdict.HOLDS if ok else Verdict.REFUTED


@claim(
    "continual.w_eq_bm",
    source=Source("000", "§5.3", "Alg. 5.2, Alg. 5.3, eq. (5.7)"),
    statement="The Fenwick strategy M and recombination B factor the running-count workload: W = B·M.",
    method="exact computation",
    proof="continual/fenwick_forest.md",
)
def _w_eq_bm(thorough: bool = False) -> Outcome:
    n_max = 1024 if thorough else 200
    extra = [2047, 2048, 2049, 4095] if thorough else [511, 512]
    bad = []
    for n in list(range(1, n_max + 1)) + extra:
        P = (fenwick_recombination(n) @ fenwick_strategy(n)).tocoo()
        # W = B M  iff  B M has exactly the n(n+1)/2 lower-triangular entries, all equal to 1
        if not (P.nnz == n * (n + 1) // 2 and np.all(P.data == 1) and np.all(P.col <= P.row)):
            bad.append(n)
    return Outcome(_holds(not bad), {"checked_n": f"1..{n_max} and {extra}", "failing_n": bad[:5]})


@claim("continual.fenwick_as_bm", source=Source("000", "§5.4.1", "Fenwick model as accurate as the binary-tree method [15]"),
       method="exact computation", expected="holds",
       statement="The (unweighted) Fenwick-tree release is as accurate as Chan–Shi–Song's binary-tree method: "
                 "the same MSE at every release.")
def _fenwick_bm(thorough: bool = False) -> Outcome:
    from dpverify.continual import expected_mse

    rows, worst = [], 0.0
    for n in [1, 2, 3, 7, 100, 255, 1000, 4095, 4096] + ([5000, 2**16 - 1] if thorough else []):
        f, b = expected_mse(n, 1.0, "fenwick"), expected_mse(n, 1.0, "binary")
        gap = float(np.max(np.abs(f / b - 1)))
        worst = max(worst, gap)
        rows.append([n, gap])
    ev = {"rows[n, max |MSE_fenwick/MSE_binary − 1|]": rows,
          "note": "the gap 2e-12 is the library's 1 − 1e-12 rounding guard on the Fenwick weights"}
    if worst < 1e-9:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary=f"The per-release MSEs differ by up to {worst:.3g} (relative).")


@claim("continual.normalisation", source=Source("000", "§5.4.2", "B′ = αBΣ⁻¹, L′ = α⁻¹ΣM: restricting Δ_{ΣM} ≤ 1"),
       method="exact computation", expected="holds",
       statement="The MSE (5.9) (2/ε²)·trace(BᵀBΣ⁻²)·Δ²_{ΣM} is unchanged by scaling Σ, so normalising "
                 "Δ_{ΣM} ≤ 1 (problem (5.10)) loses nothing: the optimum of (5.10) is the optimum over all Σ.")
def _normalisation(thorough: bool = False) -> Outcome:
    from dpverify.continual.fda import fda_weights

    rng = np.random.default_rng(8)
    worst, opt_ok = 0.0, True
    for n in [3, 7, 20, 63] + ([255, 1000] if thorough else []):
        M, B = fenwick_strategy(n).toarray(), fenwick_recombination(n).toarray()
        colsq = (B**2).sum(axis=0)

        def mse(lam):  # (5.9) without 2/ε²
            return float((colsq / lam**2).sum() * np.abs(lam[:, None] * M).sum(axis=0).max() ** 2)

        for _ in range(5):
            lam = rng.uniform(0.05, 3.0, n)
            c = rng.uniform(0.01, 100.0)
            worst = max(worst, abs(mse(c * lam) / mse(lam) - 1))
            # any Σ rescaled to Δ = 1 is feasible for (5.10) with the same MSE; none beats the optimum
            opt_ok &= mse(fda_weights(n)) <= mse(lam) * (1 + 1e-9)
        w = fda_weights(n)
        for _ in range(20):  # nor does any nearby Σ (local optimality of the normalised optimum)
            opt_ok &= mse(w) <= mse(w * (1 + 0.02 * rng.standard_normal(n))) * (1 + 1e-9)
    ev = {"max_relative_change_under_scaling": worst, "random_sigma_never_beats_(5.10)_optimum": bool(opt_ok)}
    if worst < 1e-12 and opt_ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary="Scaling Σ changes the MSE or a Σ beats the normalised optimum.")
