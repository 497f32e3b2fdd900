"""A user's room: composition theorems for ε-DP, checked exactly on their worst case.

Run it with ``dpverify verify examples/composition`` or ``pytest examples/composition``.
Every id starts with this room's name, ``composition``.
"""

from __future__ import annotations

import math

from rr_composition import advanced_epsilon, delta_binomial, delta_outputs, exact_epsilon

from dpverify.audit import ldp_epsilon
from dpverify.claims import Outcome, Source, Verdict, claim

BOOK = "Dwork & Roth, The Algorithmic Foundations of Differential Privacy, 2014"
GRID = [(k, e, d) for k in (10, 50, 200) for e in (0.01, 0.1, 0.5) for d in (1e-5, 1e-9)]


@claim("composition.basic", source=Source(paper=BOOK, section="§3.5.1", equation="Thm 3.16"),
       statement="The k-fold composition of ε-DP mechanisms is kε-DP, and no better in general.",
       method="exact computation")
def _basic(thorough: bool = False) -> Outcome:
    rows = []
    for k in range(1, 9):
        for e in (0.1, 0.5, 1.0):
            p = math.exp(e) / (1 + math.exp(e))
            law = [[math.comb(k, j) * p**j * (1 - p) ** (k - j) for j in range(k + 1)],
                   [math.comb(k, j) * (1 - p) ** j * p ** (k - j) for j in range(k + 1)]]
            rows.append((k, e, ldp_epsilon(law), exact_epsilon(k, e)))
    worst = max(abs(got - k * e) for k, e, got, _ in rows)
    second = max(abs(ref - k * e) for k, e, _, ref in rows)
    ok = worst < 1e-9 and second < 1e-12
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"cases": len(rows), "max_|exact_eps - k*eps|": worst, "max_|largest_loss - k*eps|": second},
                   summary="the exact ε of k-fold randomized response is kε on every case" if ok
                   else "the exact ε of k-fold randomized response is not kε")


@claim("composition.advanced", source=Source(paper=BOOK, section="§3.5.2", equation="Thm 3.20"),
       statement="For every δ' > 0 the k-fold composition of ε-DP mechanisms is (ε', δ')-DP with "
                 "ε' = √(2k ln(1/δ')) ε + k ε (e^ε − 1).",
       method="exact computation")
def _advanced(thorough: bool = False) -> Outcome:
    grid = GRID + ([(k, e, d) for k in (1000, 2000) for e in (0.01, 0.05) for d in (1e-6,)] if thorough else [])
    worst, where = 0.0, None
    for k, e, d in grid:
        ratio = delta_binomial(k, e, advanced_epsilon(k, e, d)) / d
        if ratio > worst:
            worst, where = ratio, {"k": k, "epsilon": e, "delta_prime": d}
    cross = abs(delta_outputs(12, 0.3, advanced_epsilon(12, 0.3, 1e-2)) - delta_binomial(12, 0.3, advanced_epsilon(12, 0.3, 1e-2)))
    ok = worst <= 1.0 and cross < 1e-12
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"cases": len(grid), "max_exact_delta/delta_prime": worst, "at": where,
                    "two_routes_differ_by": cross},
                   summary=f"the exact δ(ε') of the worst case is at most δ' on all {len(grid)} cases "
                           f"(at most {worst:.3g} δ')" if ok else "the exact δ(ε') exceeds δ'")


@claim("composition.advanced_first_term_only", source=Source(paper=BOOK, section="§3.5.2", equation="Thm 3.20"),
       statement="(A common misreading) ε' = √(2k ln(1/δ')) ε suffices: the term k ε (e^ε − 1) can be dropped.",
       method="exact computation", expected="refuted")
def _first_term_only(thorough: bool = False) -> Outcome:
    for k, e, d in GRID:
        eps_prime = math.sqrt(2 * k * math.log(1 / d)) * e
        got = delta_binomial(k, e, eps_prime)
        if got > d:
            return Outcome(Verdict.REFUTED, {"k": k, "epsilon": e, "delta_prime": d, "eps_prime": eps_prime,
                                             "exact_delta": got, "exact_delta/delta_prime": got / d},
                           summary=f"k = {k}, ε = {e}: the exact δ(ε') is {got / d:.3g} times δ' = {d}")
    return Outcome(Verdict.HOLDS, {"cases": len(GRID)}, summary="no case of the grid exceeds δ'")
