"""The survey's (α, β)-usefulness of Laplace answers (id ``primitives.usefulness_laplace``): an erratum.

Printed: m answers with Lap(Δf/ε) noise satisfy Pr(max_f |F(D) − F̂(D)| ≤ α) **>** 1 − β for
α = (Δf/ε)·ln(m/β).  For m = 1 the probability is exactly 1 − β, so the strict inequality fails;
the corrected ``≥ 1 − β`` holds for every m (strictly for m ≥ 2).  α comes from the library's
:func:`~dpverify.primitives.usefulness.laplace_alpha`, the failure probability from its exact law
and a seeded simulation.
"""

from __future__ import annotations

import math

import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.primitives.usefulness import laplace_alpha, laplace_failure_probability, simulate_failure_probability
from dpverify.toolkit import erratum_outcome, symbolic_equal

S_USE = Source("002", "(α, β)-usefulness ((α,β)可用性)", "Pr(max_f |F(D) − F̂(D)| ≤ α) > 1 − β")
CASES = [(1.0, 1.0, 10, 0.05), (2.0, 0.5, 100, 0.01), (1.0, 0.1, 1, 0.1), (1.0, 2.0, 3, 0.2)]  # (Δf, ε, m, β)


def _library_cases(derived, symbols, thorough: bool):
    """The library's α, exact and simulated failure probabilities on :data:`CASES`.

    Returns (all agree with the corrected bound, failure < β strictly for every m ≥ 2, rows).
    """
    bsym, m, beta = symbols
    rows, ok, strict_m_ge_2 = [], True, True
    for (df, eps, mm, bb) in CASES:
        al = laplace_alpha(df, eps, mm, bb)
        sym_val = float(derived.subs({bsym: df / eps, m: mm, beta: bb}))
        exact = laplace_failure_probability(al, df, eps, mm)
        trials = 400_000 if thorough else 40_000
        sim = simulate_failure_probability(al, df, eps, mm, trials, rng=6)
        # simulation vs exact: |sim − exact| within 5.3 binomial sd (two-sided false alarm ≈ 1e-7)
        sd = math.sqrt(exact * (1 - exact) / trials)
        # corrected statement (≥ 1 − β): failure ≤ β for every m, simulation agreeing with the exact law
        ok = ok and abs(al - sym_val) < 1e-9 * max(1, al) and exact <= bb * (1 + 1e-12) and abs(sim - exact) <= 5.3 * sd
        if mm >= 2:
            strict_m_ge_2 = strict_m_ge_2 and exact < bb
        rows.append([df, eps, mm, bb, round(al, 6), exact, sim])
    return ok, strict_m_ge_2, rows


@claim("primitives.usefulness_laplace", source=S_USE, method="symbolic", expected="erratum",
       statement="m answers with Lap(Δf/ε) noise are (α, β)-useful for α = (Δf/ε)·ln(m/β) "
                 "(Laplace tail + union bound), i.e. Pr(max_f |F(D) − F̂(D)| ≤ α) > 1 − β (strict, as printed)",
       proof="survey/usefulness.md")
def _usefulness(thorough: bool = False) -> Outcome:
    x, a, bsym, beta, m = sp.symbols("x alpha b beta m", positive=True)
    tail = 2 * sp.integrate(sp.exp(-x / bsym) / (2 * bsym), (x, a, sp.oo))  # Pr[|Lap(b)| > α]
    derived = sp.simplify(sp.solve(sp.Eq(m * tail, beta), a)[0])
    sym_ok = symbolic_equal(derived, bsym * sp.log(m / beta)).equal is True
    # exact failure probability of m independent answers at that α: 1 − (1 − e^{−α/b})^m
    fail_m = 1 - (1 - sp.exp(-derived / bsym)) ** m
    fail_1 = sp.simplify(fail_m.subs(m, 1))  # = β exactly: Pr(max ≤ α) = 1 − β, not > 1 − β
    m1_equality = symbolic_equal(fail_1, beta).equal is True
    cases_ok, strict_m_ge_2, rows = _library_cases(derived, (bsym, m, beta), thorough)
    # the strict '>' for m ≥ 2: 1 − (1 − β/m)^m < β (Bernoulli); symbolically at m = 2 the gap is β²/4
    gap2 = sp.factor(sp.simplify(beta - fail_m.subs(m, 2)))
    corrected = sym_ok and cases_ok and strict_m_ge_2 and symbolic_equal(gap2, beta**2 / 4).equal is True
    evidence = {"tail": tail, "alpha": derived, "failure_probability_m=1": fail_1,
                "m=1_equality_(printed_strict_>_fails)": m1_equality, "beta_minus_failure_m=2": gap2,
                "cases[Δf, ε, m, β, α, exact_fail, sim_fail]": rows,
                "corrected": "Pr(max_f |F(D) − F̂(D)| ≤ α) ≥ 1 − β for α = (Δf/ε)·ln(m/β); strict for m ≥ 2",
                "seed": 6}
    return erratum_outcome(
        printed_holds=not m1_equality, corrected_holds=bool(corrected), evidence=evidence,
        why="For m = 1, Pr(|Lap(b)| ≤ b·ln(1/β)) = 1 − β exactly, so the printed strict '> 1 − β' fails; "
            "the corrected '≥ 1 − β' holds for every m (strict for m ≥ 2).",
        summaries={Verdict.REFUTED: "The union-bound α fails even the corrected bound Pr(max ≤ α) ≥ 1 − β.",
                   Verdict.HOLDS: "The failure probability stays strictly below β for every m checked."})
