"""A user's room: LDP frequency oracles (Wang, Blocki, Li, Jha, USENIX Security 2017), checked by dpverify.

Run it with ``dpverify verify examples/ldp_frequency_oracles`` or ``pytest examples/ldp_frequency_oracles``.
Every id starts with this room's name, ``oracles``.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from oracles import grr_estimate, grr_matrix, grr_sample, oue_pq, sue_pq, ue_matrix

from dpverify.audit import ldp_epsilon
from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.toolkit import check_equal, finite_mechanism_privacy

PAPER = "Wang, Blocki, Li, Jha, USENIX Security 2017"


@claim("oracles.grr_is_ldp", source=Source(paper=PAPER, section="§4.1", equation="Direct encoding"),
       statement="Generalised randomized response with p = e^ε/(e^ε + d − 1) is ε-LDP, and no less.",
       method="exact computation")
def _grr_is_ldp(thorough: bool = False) -> Outcome:
    worst = 0.0
    for d in (2, 3, 5, 16):
        for e in (0.1, 1.0, 4.0):
            out = finite_mechanism_privacy(grr_matrix(e, d), epsilon=e, atol=1e-12)
            if out.verdict is not Verdict.HOLDS:
                return Outcome(Verdict.REFUTED, {"d": d, "epsilon": e, **dict(out.evidence)}, summary=out.summary)
            worst = max(worst, abs(ldp_epsilon(grr_matrix(e, d)) - e))
    return Outcome(Verdict.HOLDS if worst < 1e-9 else Verdict.REFUTED, {"cases": 12, "max_|exact_eps - eps|": worst},
                   summary="ε-LDP on every case, with exact ε equal to ε")


@claim("oracles.grr_variance", source=Source(paper=PAPER, section="§4.1", equation="eq. (6)"),
       statement="Per user whose value is not v, the estimator's variance is (e^ε + d − 2)/(e^ε − 1)².",
       method="symbolic")
def _grr_variance(thorough: bool = False) -> Outcome:
    e, d = sp.Symbol("epsilon", positive=True), sp.Symbol("d", integer=True, positive=True)
    p = sp.exp(e) / (sp.exp(e) + d - 1)
    q = 1 / (sp.exp(e) + d - 1)
    derived = q * (1 - q) / (p - q) ** 2          # Var of (1[y = v] − q)/(p − q) when Pr(y = v) = q
    return check_equal(derived, (sp.exp(e) + d - 2) / (sp.exp(e) - 1) ** 2, assumptions=d >= 2,
                       what="GRR's per-user variance")


@claim("oracles.oue_is_ldp", source=Source(paper=PAPER, section="§4.2", equation="OUE"),
       statement="Optimised unary encoding (p = 1/2, q = 1/(e^ε + 1)) is ε-LDP.",
       method="exact computation")
def _oue_is_ldp(thorough: bool = False) -> Outcome:
    eps = [(d, e, ldp_epsilon(ue_matrix(*oue_pq(e), d))) for d in (2, 3, 5) for e in (0.5, 1.0, 2.0)]
    worst = max(abs(got - e) for _, e, got in eps)
    return Outcome(Verdict.HOLDS if worst < 1e-9 else Verdict.REFUTED, {"cases": len(eps), "max_|exact_eps - eps|": worst},
                   summary="the exact ε of OUE equals ε on every case")


@claim("oracles.sue_full_epsilon", source=Source(paper=PAPER, section="§4.2", equation="SUE"),
       statement="(A tempting shortcut) unary encoding with p = e^ε/(e^ε + 1), q = 1 − p per bit is ε-LDP.",
       method="exact computation", expected="refuted")
def _sue_full_epsilon(thorough: bool = False) -> Outcome:
    d, e = 3, 1.0
    p = math.exp(e) / (math.exp(e) + 1)
    got = ldp_epsilon(ue_matrix(p, 1 - p, d))
    right = ldp_epsilon(ue_matrix(*sue_pq(e), d))
    verdict = Verdict.REFUTED if got > e + 1e-9 else Verdict.HOLDS
    return Outcome(verdict, {"d": d, "epsilon": e, "exact_eps_of_the_shortcut": got, "exact_eps_with_eps/2_per_bit": right},
                   summary=f"two bits change between two values, so the shortcut is {got:.3g}-LDP, not {e}-LDP")


@claim("oracles.grr_unbiased", source=Source(paper=PAPER, section="§4.1", equation="eq. (5)"),
       statement="GRR's count estimate (count − n q)/(p − q) is unbiased.",
       method="simulation")
def _grr_unbiased(thorough: bool = False) -> Outcome:
    rng = np.random.default_rng(2017)
    d, e, n, reps = 4, 1.0, 2000, 400 if thorough else 200
    values = np.repeat(np.arange(d), [800, 600, 400, 200])
    est = np.array([grr_estimate(grr_sample(values, e, d, rng), e, d) for _ in range(reps)])
    z = (est.mean(axis=0) - np.bincount(values, minlength=d)) / (est.std(axis=0, ddof=1) / math.sqrt(reps))
    # |z| > 4.0 on any of 4 coordinates: a false alarm with probability < 4 · 6.4e-5 ≈ 2.6e-4
    ok = bool(np.all(np.abs(z) < 4.0))
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"replicates": reps, "z_scores": np.round(z, 3).tolist(), "false_alarm_rate": 2.6e-4, "seed": 2017},
                   summary="the mean estimate is within 4 standard errors of the true counts" if ok
                   else "the mean estimate is biased")
