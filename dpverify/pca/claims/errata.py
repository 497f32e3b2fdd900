"""Gu, Zhang and Song's errata, all in one place: the printed statement fails, the corrected one holds.

- ``pca.erratum.eq3_decomposition``: eq. (3) writes Σ = UᵀΛU with the eigenvectors as the
  columns of U; it is Σ = UΛUᵀ.

Each check records the printed excerpt and confirms it in the paper's text when that text is
available (:func:`dpverify.claims.seeds.seed_text`; a missing excerpt makes the verdict
``inconclusive``).  The verdict comes from :func:`dpverify.toolkit.erratum_outcome`.
"""

from __future__ import annotations

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims import seed_text
from dpverify.toolkit import erratum_outcome

SEED = "001"

#: the summaries these claims give for the verdicts other than ``erratum``
SUMMARIES = {Verdict.REFUTED: "Neither the printed nor the corrected reading holds.",
             Verdict.HOLDS: "The printed reading holds."}


def _printed(excerpt: str) -> dict:
    """The printed excerpt, and whether it is in the paper's text (None when the text is not available)."""
    text = seed_text(SEED)
    return {"printed_excerpt": excerpt, "found_in_paper": None if text is None else excerpt in text}


@claim("pca.erratum.eq3_decomposition", source=Source(SEED, "§1 / Alg. 1 step 4", "eq. (3): Σ = UᵀΛU"),
       method="exact computation", expected="erratum",
       statement="Σ = UᵀΛU, where the columns of U are the eigenvectors of Σ for λ1 ≥ λ2 ≥ … ≥ λp.")
def _eq3(thorough: bool = False) -> Outcome:
    from dpverify.pca.ppca import fit_ppca

    found = _printed("Σ=UTΛU,U的各列")
    rng = np.random.default_rng(1)
    printed_bad, corrected_ok = 0, True
    for p in range(2, 9):
        X = rng.normal(size=(200, p)) @ rng.normal(size=(p, p))
        fit = fit_ppca(X, 1)
        U, lam = np.asarray(fit.U), np.asarray(fit.eigvals)  # the library's eigenvectors as columns
        S = np.cov(X, rowvar=False, bias=True)
        printed_bad += not np.allclose(U.T @ np.diag(lam) @ U, S, atol=1e-8 * np.abs(S).max())
        corrected_ok &= np.allclose(U @ np.diag(lam) @ U.T, S, atol=1e-8 * np.abs(S).max())
    return erratum_outcome(printed_holds=printed_bad != 7, corrected_holds=corrected_ok, evidence=found,
                           found_in_seed=found["found_in_paper"], summaries=SUMMARIES,
                           why="With the eigenvectors as the columns of U, Σ = UΛUᵀ; UᵀΛU ≠ Σ in general "
                               "(it is Σ only when the eigenvectors are U's rows).")
