"""The survey's exponential mechanism: φ ∝ exp(ε q(D,φ)/(2Δq)) is ε-DP, and its factor 2 matters.

Ids ``primitives.expmech_dp`` and ``primitives.expmech_factor2``.  The output laws come from the
library's :func:`~dpverify.primitives.exponential.exponential_probabilities`; their privacy loss
from the exact checker :func:`dpverify.audit.max_privacy_loss`.
"""

from __future__ import annotations

import numpy as np

from dpverify.audit import max_privacy_loss
from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.primitives.exponential import exponential_probabilities
from dpverify.survey.derivations import random_neighbour_scores

S_EXP = Source("002", "指数机制", "return φ ∝ exp(ε q(D,φ) / (2Δq))")


@claim("primitives.expmech_dp", source=S_EXP, method="exact computation", expected="holds",
       statement="The exponential mechanism returning φ ∝ exp(ε q(D,φ)/(2Δq)) is ε-DP",
       proof="survey/exponential_mechanism.md")
def _expmech(thorough: bool = False) -> Outcome:
    rnd = np.random.default_rng(2)
    worst = 0.0
    trials = 20000 if thorough else 800
    for _ in range(trials):
        k = int(rnd.integers(2, 8))
        eps, dq = float(rnd.uniform(0.1, 3)), float(rnd.uniform(0.5, 2))
        q, q2 = random_neighbour_scores(rnd, k, dq)
        p, p2 = exponential_probabilities(q, dq, eps), exponential_probabilities(q2, dq, eps)
        worst = max(worst, max_privacy_loss(p, p2) / eps, max_privacy_loss(p2, p) / eps)
    # near-extremal instance: one score up by Δq, all others down by Δq, output 0 unlikely
    q = np.array([0.0, 30.0, 30.0])
    q2 = q + np.array([1.0, -1.0, -1.0])
    near = max_privacy_loss(exponential_probabilities(q2, 1.0, 1.0), exponential_probabilities(q, 1.0, 1.0))
    ok = worst <= 1 + 1e-9 and near <= 1 + 1e-9
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"max_loss_over_eps_random": worst, "instances": trials, "seed": 2,
                    "extremal_loss_eps1": near})


@claim("primitives.expmech_factor2", source=S_EXP, method="exact computation", expected="holds",
       statement="The factor 2 matters: with exp(ε q/Δq) the mechanism is not ε-DP in general (loss up to 2ε), "
                 "but it is ε-DP when every score moves in the same direction (monotone q)",
       proof="survey/exponential_mechanism.md")
def _factor2(thorough: bool = False) -> Outcome:
    q = np.array([0.0, 30.0, 30.0])
    q2 = q + np.array([1.0, -1.0, -1.0])
    loss = max_privacy_loss(exponential_probabilities(q2, 1.0, 1.0, factor=1.0),
                            exponential_probabilities(q, 1.0, 1.0, factor=1.0))
    rnd = np.random.default_rng(3)
    worst_mono = 0.0
    for _ in range(4000 if thorough else 1000):
        k = int(rnd.integers(2, 8))
        eps = float(rnd.uniform(0.1, 3))
        a, a2 = random_neighbour_scores(rnd, k, 1.0, monotone=True)
        p, p2 = (exponential_probabilities(v, 1.0, eps, factor=1.0) for v in (a, a2))
        worst_mono = max(worst_mono, max_privacy_loss(p, p2) / eps, max_privacy_loss(p2, p) / eps)
    ok = loss > 1.0 and worst_mono <= 1 + 1e-9
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"counterexample_scores": [q.tolist(), q2.tolist()], "loss_factor1_eps1": loss,
                    "max_loss_over_eps_monotone_factor1": worst_mono, "seed": 3})
