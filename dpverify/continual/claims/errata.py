"""Every erratum of the thesis chapter and Cai, Wu and Wang's paper that the room records (``continual.erratum.*``), in one place.

Each check shows by computation that the printed reading fails and that the corrected one holds on the
library's matrices, and returns :func:`dpverify.toolkit.erratum_outcome`.  Where a check quotes the paper, the
excerpt is confirmed in the paper's text when it is available (:func:`printed`; without it the recorded excerpt
is used and the evidence says so); an excerpt missing from the paper's text makes the verdict ``inconclusive``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims import seed_text
from dpverify.claims.seeds import check_prefix
from dpverify.toolkit import erratum_outcome
from dpverify.continual.fenwick_tree import fenwick_recombination, fenwick_strategy
from dpverify.continual.seed_facts import packaged_reference_facts, reference_facts

# the summaries of the verdicts other than ``erratum`` (the ``why`` of each claim), as these claims always gave them
_SUMMARIES = {Verdict.HOLDS: "", Verdict.REFUTED: "The corrected statement fails as well."}
_SEED_SUMMARIES = {Verdict.HOLDS: "The printed reading holds.",
                   Verdict.REFUTED: "Neither the printed nor the corrected reading holds.",
                   Verdict.INCONCLUSIVE: "The printed excerpt is not in this copy of the paper's text."}


def _tril(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n)))


@claim(
    "continual.erratum.alg5_2_loop",
    source=Source("000", "§5.3", "Alg. 5.2 line 4"),
    statement="Alg. 5.2 builds M with the loop `while pt < N`.",
    method="exact computation",
    expected="erratum",
)
def _err_loop(thorough: bool = False) -> Outcome:
    def build(n, inclusive):
        M = np.zeros((n, n))
        for p in range(1, n + 1):
            pt = p
            while (pt <= n) if inclusive else (pt < n):
                M[pt - 1, p - 1] = 1
                pt += pt & -pt
        return M

    ns = range(1, 41)
    printed_singular = [n for n in ns if abs(np.linalg.det(build(n, False))) < 0.5]
    corrected_ok = all(
        np.array_equal(build(n, True), fenwick_strategy(n).toarray()) and abs(np.linalg.det(build(n, True)) - 1) < 1e-9
        for n in ns
    )
    return erratum_outcome(
        printed_holds=not (len(printed_singular) > 0), corrected_holds=corrected_ok,
        evidence={"printed_singular_for_n": f"{len(printed_singular)}/{len(ns)}", "corrected": "while pt <= N: det M = 1"},
        why="With `while pt < N` the entry M[N, N] is never set and M is singular; `while pt ≤ N` gives det M = 1.",
        summaries=_SUMMARIES,
    )


@claim(
    "continual.erratum.alg5_3_index",
    source=Source("000", "§5.3", "Alg. 5.3 lines 5-6"),
    statement="Alg. 5.3 builds B by setting B[pt, p] = 1 along pt ← pt − lowbit(pt).",
    method="exact computation",
    expected="erratum",
)
def _err_b(thorough: bool = False) -> Outcome:
    fails, holds = 0, 0
    ns = range(2, 65)
    for n in ns:
        B = fenwick_recombination(n)
        M = fenwick_strategy(n)
        printed = B.T  # B[pt, p] instead of B[p, pt]
        fails += abs(printed @ M - sp.csr_matrix(_tril(n))).sum() > 0
        holds += abs(B @ M - sp.csr_matrix(_tril(n))).sum() == 0
    return erratum_outcome(
        printed_holds=not (fails > 0), corrected_holds=holds == len(ns),
        evidence={"printed_fails_W=BM_for": f"{fails}/{len(ns)}", "corrected": "B[p, pt] = 1 (s_p sums its descent path, eq. 5.6)"},
        why="B[pt, p] = 1 builds Bᵀ, for which BM ≠ W; B[p, pt] = 1 (row p sums its descent path) gives W = BM.",
        summaries=_SUMMARIES,
    )


@claim(
    "continual.erratum.thm5_1_walk",
    source=Source("000", "§5.3", "proof of Thm 5.1"),
    statement="In the proof of Thm 5.1 the upward walk of column 1 is pt = pt − lowbit(pt), giving 2^(t−1) + 2^(t−1) = 2^t.",
    method="exact computation",
    expected="erratum",
)
def _err_walk(thorough: bool = False) -> Outcome:
    def walk(n, sign):
        pt, steps = 1, 0
        while 0 < pt <= n:
            steps += 1
            pt = pt + sign * (pt & -pt)
        return steps

    ns = range(2, 2049)
    printed_wrong = sum(walk(n, -1) != n.bit_length() for n in ns)
    corrected_ok = all(walk(n, +1) == n.bit_length() == fenwick_strategy(n)[:, 0].nnz for n in range(2, 300))
    return erratum_outcome(
        printed_holds=not (printed_wrong == len(ns)), corrected_holds=corrected_ok,
        evidence={"printed_walk_length_from_1": walk(100, -1), "corrected": "pt = pt + lowbit(pt): 2^(t-1) -> 2^t"},
        why="pt − lowbit(pt) walks from 1 to 0 in one step; the upward walk is pt + lowbit(pt) (2^(t−1) → 2^t).",
        summaries=_SUMMARIES,
    )


# The former claim "continual.erratum.thm5_1_floor" is withdrawn: the proof's implication
# 2^(t−1) ≤ N ⇒ t ≤ log₂N + 1 is true as printed, and its count " log2N +1" carries the same stripped floor
# as the theorem statement (004 prints "?lb N ? +1"), which dpverify reads as ⌊log₂N⌋ + 1.  The floor
# reading is checked by continual.thm5.1 and continual.thm5.symbolic.


@claim(
    "continual.erratum.proof_references",
    source=Source("000", "§5.3-5.4", "proofs of Thm 5.3 and Thm 5.4"),
    statement="The proof of Thm 5.4 takes the block structure of M from 'Algorithm 5.4'; the proof of Thm 5.3 "
    "argues with the right inverse of 'matrix L'.",
    method="exact computation",
    expected="erratum",
)
def _err_refs(thorough: bool = False) -> Outcome:
    # corrected: the block relations hold for Alg. 5.2's M, and M M⁺ = I for M = M_N
    ok_blocks = True
    for m in range(2, 11):
        n, h = 2**m - 1, 2 ** (m - 1)
        M = fenwick_strategy(n).tocsc()
        for a in range(1, h):
            col_a = set(M[:, a - 1].indices[M[:, a - 1].indices < h - 1] + 1)
            col_b = set(M[:, h + a - 1].indices + 1)
            ok_blocks &= {h + t for t in col_a} == {t for t in col_b if t > h} and h in M[:, a - 1].indices + 1
    Mn = fenwick_strategy(40).toarray()
    ok_inverse = bool(np.allclose(Mn @ (Mn.T @ np.linalg.inv(Mn @ Mn.T)), np.eye(40)))
    from dpverify.claims.seeds import seed_text

    text = seed_text("000")
    if text is not None:
        facts, origin = reference_facts(text), "the paper's text"
    else:  # no paper text beside the install: the facts recorded from it (a test keeps them equal)
        facts, origin = packaged_reference_facts(), "facts packaged from the paper's text (sha256 recorded)"
    printed_fails = (
        facts["citations_of_alg_5.4"] > 0 and facts["definitions_of_alg_5.4"] == 0 and facts["mentions_of_matrix_L"] > 0
    )
    return erratum_outcome(
        printed_holds=not (printed_fails), corrected_holds=ok_blocks and ok_inverse,
        evidence={
            "read_from": origin,
            "algorithms_named": facts["algorithms_named"],
            "citations_of_alg_5.4": facts["citations_of_alg_5.4"],
            "definitions_of_alg_5.4": facts["definitions_of_alg_5.4"],
            "mentions_of_matrix_L": facts["mentions_of_matrix_L"],
            "corrected": "Alg. 5.2's M has the block structure; M M⁺ = I for M = M_N",
        },
        why="The thesis has no Algorithm 5.4 (M comes from Alg. 5.2) and no matrix L (the right inverse is of M).",
        summaries=_SUMMARIES,
    )


def printed(seed: str, excerpt: str) -> dict:
    """Whether ``excerpt`` is in the paper's text (None when that text is not available).

    Example
    -------
    >>> printed("nonexistent-seed", "x")["found_in_paper"] is None
    True
    """
    check_prefix(seed, "seed")
    if not isinstance(excerpt, str) or not excerpt:
        raise (ValueError if isinstance(excerpt, str) else TypeError)(
            f"excerpt must be non-empty text, got {excerpt!r} of type {type(excerpt).__name__}")
    text = seed_text(seed)
    return {"printed_excerpt": excerpt, "found_in_paper": None if text is None else excerpt in text}


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
    return erratum_outcome(printed_holds=not (bad == 38), corrected_holds=corrected, evidence=f,
                           found_in_seed=f["found_in_paper"], summaries=_SEED_SUMMARIES,
                           why="W_ij = 1 for i < j puts the ones above the diagonal (not lower "
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
    return erratum_outcome(printed_holds=not (m_fails == 8), corrected_holds=b_ok, evidence=f,
                           found_in_seed=f["found_in_paper"], summaries=_SEED_SUMMARIES,
                           why="The relation holds for B, which Alg. 5.3 builds; Alg. 5.2 builds M, "
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
    else:  # the two lines as recorded from the paper's text
        steps = {4: "4. while pt<N", 6: "6. pt←pt+lowbit(pt);"}
    f["alg5_2_step4"], f["alg5_2_step6"] = steps.get(4), steps.get(6)
    printed_fails = "while" not in (steps.get(6) or "") and "lowbit" in (steps.get(6) or "")
    corrected = "while" in (steps.get(4) or "")
    # the stopping rule itself: the loop of column 1 stops after ⌊log₂N⌋ + 1 entries
    corrected &= all(fenwick_strategy(n)[:, 0].nnz == n.bit_length() for n in range(1, 200))
    return erratum_outcome(printed_holds=not (printed_fails), corrected_holds=corrected, evidence=f,
                           found_in_seed=f["found_in_paper"], summaries=_SEED_SUMMARIES,
                           why="Step 6 of Alg. 5.2 is the update pt ← pt + lowbit(pt); the loop "
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
    return erratum_outcome(printed_holds=not (wrong == 10), corrected_holds=ok, evidence=f,
                           found_in_seed=f["found_in_paper"], summaries=_SEED_SUMMARIES,
                           why="M_{2^{m−1}−1}ᵀ R⁽¹⁾ has 2^{m−1} − 1 rows: the all-ones vector of ① is "
                               "(2^{m−1} − 1)×1, not (2^m − 1)×1.")
