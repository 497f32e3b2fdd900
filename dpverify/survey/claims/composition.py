"""The survey's composition theorems: sequential (m·ε, Σ ε_i) and parallel (max ε_i).

Ids ``primitives.sequential_composition`` and ``primitives.parallel_composition``.  Composed laws
are built by the library's :func:`~dpverify.primitives.composition.product_law`; the bounds are the
library's :func:`~dpverify.primitives.composition.sequential_epsilon` and
:func:`~dpverify.primitives.composition.parallel_epsilon`; the budget
:class:`~dpverify.primitives.composition.Accountant` must spend by the sequential theorem.
"""

from __future__ import annotations

import numpy as np

from dpverify.audit import max_privacy_loss
from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.primitives.composition import Accountant, BudgetExceeded, parallel_epsilon, product_law, sequential_epsilon
from dpverify.survey.derivations import random_channel_pair

S_SEQ = Source("002", "ϵ:隐私预算 — 顺序组成", "sequential composition m·ε")
S_PAR = Source("002", "ϵ:隐私预算 — 并行组成", "parallel composition max ε_i")


def _loss(p, q) -> float:
    """The privacy loss of a pair of laws, both directions."""
    return max(max_privacy_loss(p, q), max_privacy_loss(q, p))


def _accountant_disagreements(rnd: np.random.Generator) -> int:
    """How often the accountant refuses or accepts spending contrary to Σ ε_i ≤ budget.

    200 random spending sequences, then 3 at the boundary Σ ε_i = budget, where the composition is
    exactly budget-DP and the accountant must accept, also when the float sum rounds above the
    budget (0.1 + 0.2 + 0.7 = 1 + 2⁻⁵²).
    """
    bad = 0
    for _ in range(200):
        eps_list = [float(x) for x in rnd.uniform(0.05, 0.6, size=int(rnd.integers(1, 6)))]
        budget = float(rnd.uniform(0.2, 2.0))
        acc, refused_at = Accountant(budget), None
        for i, e in enumerate(eps_list):
            try:
                acc.spend(e, f"M{i}")
            except BudgetExceeded:
                refused_at = i
                break
        partial = np.cumsum(eps_list)
        first_over = next((i for i, s in enumerate(partial) if s > budget * (1 + 1e-12)), None)
        bad += refused_at != first_over or (refused_at is None and abs(acc.spent - partial[-1]) > 1e-12)
    for budget, eps_list in ((1.0, [0.5, 0.5]), (1.0, [0.1, 0.2, 0.7]), (0.3, [0.1, 0.2])):
        acc = Accountant(budget)
        try:
            for e in eps_list:
                acc.spend(e)
        except BudgetExceeded:
            bad += 1
    return int(bad)


@claim("primitives.sequential_composition", source=S_SEQ, method="exact computation", expected="holds",
       statement="Running m mechanisms that are each ε-DP on the same data gives (m·ε)-DP",
       proof="survey/composition.md")
def _sequential(thorough: bool = False) -> Outcome:
    rnd = np.random.default_rng(4)
    worst, gap = 0.0, 0.0
    for _ in range(300 if thorough else 60):
        m = int(rnd.integers(1, 4))
        pairs = [random_channel_pair(rnd, int(rnd.integers(2, 6)), epsilon=float(rnd.uniform(0.1, 1.5)))
                 for _ in range(m)]
        each = [_loss(p, q) for p, q in pairs]  # ε_i of M_i
        P = product_law(*[p for p, _ in pairs])
        Q = product_law(*[q for _, q in pairs])
        worst = max(worst, _loss(P, Q) / sequential_epsilon(each))  # ε of the composed output over Σ ε_i
        # tightness: the loss of the product is the sum of the losses (one ordered direction)
        gap = max(gap, abs(max_privacy_loss(P, Q) - sum(max_privacy_loss(p, q) for p, q in pairs)))
    # the library's budget accountant applies the theorem: spending ε_1..ε_m succeeds iff Σ ε_i ≤ budget
    acc_bad = _accountant_disagreements(rnd)
    ok = worst <= 1 + 1e-9 and gap < 1e-9 and acc_bad == 0
    ev = {"max_composed_eps_over_sum_eps_i": worst, "max|loss(P,Q) − Σ loss_i|": gap,
          "accountant_disagreements_(of_200_random_and_3_boundary)": acc_bad, "seed": 4}
    if ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary=(
        "The composed mechanism loses more than Σ ε_i" if worst > 1 + 1e-9 else
        "The loss of the product is not the sum of the losses" if gap >= 1e-9 else
        "The budget accountant refuses or accepts spending contrary to Σ ε_i ≤ budget") + ".")


@claim("primitives.parallel_composition", source=S_PAR, method="exact computation", expected="holds",
       statement="Mechanisms M_i that are ε_i-DP on disjoint subsets of the data together give max ε_i-DP",
       proof="survey/composition.md")
def _parallel(thorough: bool = False) -> Outcome:
    rnd = np.random.default_rng(5)
    worst = 0.0
    for _ in range(200 if thorough else 40):
        m = int(rnd.integers(2, 4))
        pairs = [random_channel_pair(rnd, int(rnd.integers(2, 5)), epsilon=float(e)) for e in rnd.uniform(0.1, 2.0, m)]
        each = [_loss(p, q) for p, q in pairs]
        P = product_law(*[p for p, _ in pairs])
        comp = 0.0
        for j in range(m):  # the changed record lies in subset j: only M_j's input changes
            Q = product_law(*[(q if i == j else p) for i, (p, q) in enumerate(pairs)])
            comp = max(comp, _loss(P, Q))
        worst = max(worst, abs(comp - parallel_epsilon(each)))
    # the accountant refuses to spend past its budget and records nothing on refusal
    acc = Accountant(1.0)
    acc.spend(0.6, "f1")
    refused = False
    try:
        acc.spend(0.5, "f2")
    except BudgetExceeded:
        refused = True
    ok = worst <= 1e-9 and refused and len(acc.ledger) == 1
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"max|composed_eps − max_i eps_i|": worst, "accountant_refused_overspend": refused, "seed": 5})
