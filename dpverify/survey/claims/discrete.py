"""The library's discrete analogues of the survey's mechanisms (ids ``primitives.geometric_dp``, ``primitives.krr_dp``).

The survey's Laplace section is continuous; it mentions neither mechanism, so these claims cite the
library itself (:data:`~dpverify.claims.model.SELF_TEST`): two-sided geometric noise (the discrete
Laplace mechanism, :func:`~dpverify.primitives.additive.geometric_mechanism`) and k-ary randomized
response (:func:`~dpverify.primitives.randomized_response.krr_matrix`).  Both are imported when the
check runs, so a test that replaces them in their module changes the verdict.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpverify.audit import max_privacy_loss
from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims import SELF_TEST
from dpverify.toolkit import symbolic_equal

S_GEO = Source(SELF_TEST, "library mechanism", "two-sided geometric (discrete Laplace) noise")
S_KRR = Source(SELF_TEST, "library mechanism", "k-ary randomized response")


def _geometric_window_loss() -> float:
    """The largest |ln P_0(k) − ln P_shift(k)| / ε over |k| ≤ 60, shifts 1..Δ, for three (Δ, ε)."""
    worst = 0.0
    for d, e in [(1, 1.0), (3, 0.5), (2, 2.0)]:
        rr = math.exp(-e / d)
        ks = np.arange(-60, 61)
        for shift in range(1, d + 1):
            ratio = (np.abs(ks - shift) - np.abs(ks)) * (-math.log(rr))  # ln P_0(k) − ln P_shift(k)
            worst = max(worst, float(np.max(np.abs(ratio))) / e)
    return worst


def _geometric_sampler_pvalue(thorough: bool) -> float:
    """Chi-square p-value of the library's geometric sampler against its law (|k| ≤ 6 plus the tails)."""
    from scipy import stats

    from dpverify.primitives.additive import geometric_mechanism

    e, d = 0.9, 2
    x = geometric_mechanism(0, d, e, rng=8, size=100_000 if not thorough else 1_000_000)
    rr = math.exp(-e / d)
    ks = np.arange(-6, 7)
    pk = (1 - rr) / (1 + rr) * rr ** np.abs(ks)
    tail = (1 - pk.sum()) / 2
    obs = np.concatenate([[np.sum(x < -6)], [np.sum(x == j) for j in ks], [np.sum(x > 6)]])
    return float(stats.chisquare(obs, np.concatenate([[tail], pk, [tail]]) * x.size).pvalue)


@claim("primitives.geometric_dp", source=S_GEO, method="exact computation", expected="holds",
       statement="For integer queries, f(D) + two-sided geometric noise P(k) ∝ exp(−ε|k|/Δf) is ε-DP "
                 "(the discrete analogue of the Laplace mechanism)",
       proof="survey/laplace_dp.md")
def _geometric(thorough: bool = False) -> Outcome:
    k = sp.Symbol("k", integer=True)
    s = sp.Symbol("s", integer=True, positive=True)
    eps, dfs = sp.symbols("epsilon Delta", positive=True)
    r = sp.exp(-eps / dfs)
    # ln P_{f(D)=0}(k) − ln P_{f(D')=s}(k) = (ε/Δ)(|k − s| − |k|)
    log_ratio = sp.expand_log(sp.log(r ** sp.Abs(k) / r ** sp.Abs(k - s)), force=True)
    # |k − s| − |k| ≤ s (triangle inequality), with equality for every k ≤ 0; on k ≥ s it is −s
    sup_expr = sp.simplify(log_ratio.subs(k, -k**2))  # any k ≤ 0
    low_expr = sp.simplify(log_ratio.subs(k, s + k**2))  # any k ≥ s
    worst = _geometric_window_loss()  # exact check of the sup over a window
    pval = _geometric_sampler_pvalue(thorough)  # the sampler follows that law (reject only below p = 1e-6)
    ok = (worst <= 1 + 1e-12 and pval > 1e-6 and symbolic_equal(sup_expr, eps * s / dfs).equal is True
          and symbolic_equal(low_expr, -eps * s / dfs).equal is True)
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"log_ratio": log_ratio, "on_k_le_0": sup_expr, "on_k_ge_s": low_expr, "max_loss_over_eps": worst,
                    "sampler_chi2_pvalue": pval, "seed": 8, "false_alarm": "1e-6 (sampler test)"})


@claim("primitives.krr_dp", source=S_KRR, method="exact computation", expected="holds",
       statement="k-ary randomized response (keep with probability e^ε/(e^ε + k − 1)) is ε-DP, and tight",
       proof="survey/composition.md")
def _krr(thorough: bool = False) -> Outcome:
    from dpverify.primitives.randomized_response import krr_matrix

    worst, gap = 0.0, 0.0
    for k in range(2, 12):
        for e in (0.1, 0.5, 1.0, 3.0):
            P = krr_matrix(k, e)
            loss = max(max_privacy_loss(P[i], P[j]) for i in range(k) for j in range(k) if i != j)
            worst = max(worst, loss / e)
            gap = max(gap, abs(loss - e))
    return Outcome(Verdict.HOLDS if worst <= 1 + 1e-12 and gap < 1e-9 else Verdict.REFUTED,
                   {"max_loss_over_eps": worst, "max|loss − ε|": gap})
