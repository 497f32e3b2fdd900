"""Errata of seed 000's printed text that the earlier claims did not flag.

Each check records the printed excerpt, confirms it in the seed text when the seed is available
(``dpverify.claims.seeds``; without it the recorded excerpt is used and the evidence says so), shows
by computation that the printed reading fails and that the corrected one holds on the library's
matrices.  A missing excerpt (a different seed text) makes the verdict ``inconclusive``.
"""

from __future__ import annotations

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims.seeds import seed_text
from dpverify.continual.fenwick import fenwick_recombination, fenwick_strategy


def printed(seed: str, excerpt: str) -> dict:
    """Whether ``excerpt`` is in the seed's text (None when the seed file is not available).

    Example
    -------
    >>> printed("nonexistent-seed", "x")["found_in_seed"] is None
    True
    """
    text = seed_text(seed)
    return {"printed_excerpt": excerpt, "found_in_seed": None if text is None else excerpt in text}


def verdict(found, printed_fails: bool, corrected_holds: bool, why: str) -> Outcome:
    """ERRATUM when the printed reading fails and the corrected one holds; otherwise HOLDS/REFUTED/INCONCLUSIVE.

    Example
    -------
    >>> verdict({"found_in_seed": True}, True, True, "x").verdict.value
    'erratum'
    """
    ev = dict(found)
    if found["found_in_seed"] is False:
        return Outcome(Verdict.INCONCLUSIVE, ev, summary="The printed excerpt is not in this copy of the seed text.")
    if not corrected_holds:
        return Outcome(Verdict.REFUTED, ev, summary="Neither the printed nor the corrected reading holds.")
    if printed_fails:
        return Outcome(Verdict.ERRATUM, ev, summary=why)
    return Outcome(Verdict.HOLDS, ev, summary="The printed reading holds.")


def _tril_ok(n: int) -> bool:
    return abs(fenwick_recombination(n) @ fenwick_strategy(n) - np.tril(np.ones((n, n)))).sum() == 0


@claim("continual.erratum.eq5_4_upper", source=Source("000", "§5.3", "eq. (5.4)"), method="exact computation",
       expected="erratum",
       statement="The workload W of the running counts is lower triangular and satisfies W_ij = 1 for i < j.")
def _w_upper(thorough: bool = False) -> Outcome:
    f = printed("000", "Wij=1,i<j")
    bad = 0
    for n in range(2, 40):
        i, j = np.indices((n, n))
        Wp = (i < j).astype(int)  # as printed: ones above the diagonal
        a = np.random.default_rng(n).integers(0, 5, n)
        bad += (not np.array_equal(Wp @ a, np.cumsum(a))) or np.array_equal(Wp, np.tril(Wp))
    corrected = all(_tril_ok(n) for n in range(1, 40))  # W_ij = 1 for i ≥ j is B·M, the running counts
    return verdict(f, bad == 38, corrected, "W_ij = 1 for i < j puts the ones above the diagonal (not lower "
                   "triangular, not the running counts); the workload has W_ij = 1 for i ≥ j, which equals B·M.")


@claim("continual.erratum.thm5_4_cites_alg5_2", source=Source("000", "§5.4.3", "proof of Thm 5.4, before (5.12)"),
       method="exact computation", expected="erratum",
       statement="By Algorithm 5.2, B_{2^m−1}(a, t) = 1 iff B_{2^m−1}(b, 2^{m−1} + t) = 1 (b = 2^{m−1} + a), "
                 "giving B's block structure (5.12).")
def _b_cites(thorough: bool = False) -> Outcome:
    f = printed("000", "根据算法5.2,不难发现B2m-1(a,t)=1")
    b_ok, m_fails = True, 0
    for m in range(2, 10):
        n, h = 2**m - 1, 2 ** (m - 1)
        for name, X in (("B", fenwick_recombination(n).toarray()), ("M", fenwick_strategy(n).toarray())):
            rel = all(np.array_equal(X[a - 1, : h - 1] != 0, X[h + a - 1, h:] != 0) and X[h + a - 1, h - 1] == 1
                      for a in range(1, h))
            if name == "B":
                b_ok &= rel
            else:
                m_fails += not rel
    return verdict(f, m_fails == 8, b_ok, "The relation holds for B, which Alg. 5.3 builds; Alg. 5.2 builds M, "
                   "for which it fails (the proof should cite Algorithm 5.3; 004: Algorithm 3).")


@claim("continual.erratum.thm5_1_step6", source=Source("000", "§5.3", "proof of Thm 5.1"), method="exact computation",
       expected="erratum",
       statement="By the test of step 6 of Alg. 5.2 the construction of column 1 stops when pt > N.")
def _step6(thorough: bool = False) -> Outcome:
    f = printed("000", "根据步骤6的判断条件")
    text = seed_text("000")
    steps = {}
    if text is not None:
        blk = text[text.index("算法5.2求解策略矩阵M"): text.index("算法5.3求解矩阵B")]
        for line in blk.splitlines():
            line = line.strip()
            if line[:2] in {f"{d}." for d in range(1, 10)}:
                steps[int(line[0])] = line
    else:  # the two lines as recorded from the seed
        steps = {4: "4. while pt<N", 6: "6. pt←pt+lowbit(pt);"}
    f["alg5_2_step4"], f["alg5_2_step6"] = steps.get(4), steps.get(6)
    printed_fails = "while" not in (steps.get(6) or "") and "lowbit" in (steps.get(6) or "")
    corrected = "while" in (steps.get(4) or "")
    # the stopping rule itself: the loop of column 1 stops after ⌊log₂N⌋ + 1 entries
    corrected &= all(fenwick_strategy(n)[:, 0].nnz == n.bit_length() for n in range(1, 200))
    return verdict(f, printed_fails, corrected, "Step 6 of Alg. 5.2 is the update pt ← pt + lowbit(pt); the loop "
                   "test (while pt ≤ N) is step 4.")


@claim("continual.erratum.eq5_15_dimension", source=Source("000", "§5.4.3", "(5.15), sub-condition ①"),
       method="exact computation", expected="erratum",
       statement="Sub-condition ① of (5.15) reads M_{2^{m−1}−1}ᵀ R⁽¹⁾ ≤ (1 − λ_{2^{m−1}}) I_{(2^m−1)×1}.")
def _dim(thorough: bool = False) -> Outcome:
    f = printed("000", "MT2m-1-1R(1)2m-1≤(1-λ2m-1)I(2m-1)×1")
    wrong, ok = 0, True
    for m in range(2, 12):
        h = 2 ** (m - 1)
        lhs_rows = fenwick_strategy(h - 1).T.shape[0] if h > 1 else 0  # M_{2^{m−1}−1}ᵀ R⁽¹⁾ has 2^{m−1} − 1 rows
        wrong += lhs_rows != 2**m - 1
        # corrected: the first 2^{m−1} − 1 rows of M_{2^m−1}ᵀ R are M_{2^{m−1}−1}ᵀ R⁽¹⁾ + λ_{2^{m−1}} 1
        n = 2**m - 1
        R = np.random.default_rng(m).uniform(0.1, 1, n)
        full = fenwick_strategy(n).T @ R
        part = (fenwick_strategy(h - 1).T @ R[: h - 1] if h > 1 else np.zeros(0)) + R[h - 1]
        ok &= lhs_rows == h - 1 and np.allclose(full[: h - 1], part)
    return verdict(f, wrong == 10, ok, "M_{2^{m−1}−1}ᵀ R⁽¹⁾ has 2^{m−1} − 1 rows: the all-ones vector of ① is "
                   "(2^{m−1} − 1)×1, not (2^m − 1)×1.")
