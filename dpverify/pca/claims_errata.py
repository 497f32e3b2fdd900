"""Seed 001, eq. (3): Σ = UᵀΛU with the eigenvectors as the columns of U."""

from __future__ import annotations

import numpy as np

from dpverify.claims import Outcome, Source, claim
from dpverify.continual.claims_errata import printed, verdict


@claim("pca.erratum.eq3_decomposition", source=Source("001", "§1 / Alg. 1 step 4", "eq. (3): Σ = UᵀΛU"),
       method="exact computation", expected="erratum",
       statement="Σ = UᵀΛU, where the columns of U are the eigenvectors of Σ for λ1 ≥ λ2 ≥ … ≥ λp.")
def _eq3(thorough: bool = False) -> Outcome:
    from dpverify.pca.ppca import fit_ppca

    f = printed("001", "Σ=UTΛU,U的各列")
    rng = np.random.default_rng(1)
    printed_bad, corrected_ok = 0, True
    for p in range(2, 9):
        X = rng.normal(size=(200, p)) @ rng.normal(size=(p, p))
        fit = fit_ppca(X, 1)
        U, lam = np.asarray(fit.U), np.asarray(fit.eigvals)  # the library's eigenvectors as columns
        S = np.cov(X, rowvar=False, bias=True)
        printed_bad += not np.allclose(U.T @ np.diag(lam) @ U, S, atol=1e-8 * np.abs(S).max())
        corrected_ok &= np.allclose(U @ np.diag(lam) @ U.T, S, atol=1e-8 * np.abs(S).max())
    return verdict(f, printed_bad == 7, corrected_ok, "With the eigenvectors as the columns of U, Σ = UΛUᵀ; "
                   "UᵀΛU ≠ Σ in general (it is Σ only when the eigenvectors are U's rows).")
