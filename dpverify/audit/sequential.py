"""Error spending for the auditor's sequential budget.

The estimation budget is spent in stages of growing size; stage k is tested at level α_k with
Σ_k α_k = α, and the audit stops at the first stage whose bound refutes the claim.  Each stage
uses fresh samples and a one-shot test at level α_k, so by the union bound all the stages' bounds
hold together with probability ≥ 1 − α, whatever the stopping rule looks at
(``dpverify/audit/proofs/selection.md``).  A correct mechanism is never stopped early by a true bound, so it
uses the whole budget; most of the confidence is kept for the last, largest stage.

Example
-------
>>> plan = stage_plan(1_000_000, 0.1)
>>> [n for n, _ in plan], round(sum(a for _, a in plan), 12)
([15625, 62500, 921875], 0.1)
"""

from __future__ import annotations

from dpverify.validation import check_confidence, check_nonneg_int, check_positive_int
from dpverify.proofdocs import proven

__all__ = ["ALPHA_SHARES", "SIZE_SHARES", "stage_plan"]

SIZE_SHARES = (1 / 64, 1 / 16)  # the early stages' share of the estimation budget; the last takes the rest
ALPHA_SHARES = (0.05, 0.1)  # their share of α; the last stage gets 1 − Σ = 0.85


@proven("audit/selection.md")
def stage_plan(n: int, alpha: float, *, min_stage: int = 2_000) -> list[tuple[int, float]]:
    """Stages (size, level) for an estimation budget of ``n`` draws per input at total level ``alpha``.

    Early stages smaller than ``min_stage`` are dropped (their α goes to the last stage).

    Example
    -------
    >>> stage_plan(1000, 0.05)
    [(1000, 0.05)]
    """
    n = check_positive_int(n, "n")
    alpha = check_confidence(alpha, "alpha")
    min_stage = check_nonneg_int(min_stage, "min_stage")
    stages, used, spent = [], 0, 0.0
    for s, a in zip(SIZE_SHARES, ALPHA_SHARES):
        m = int(n * s)
        if m >= min_stage:
            stages.append((m, alpha * a))  # proof: alpha-spending
            used += m
            spent += alpha * a
    stages.append((n - used, alpha - spent))  # proof: alpha-last
    return stages
