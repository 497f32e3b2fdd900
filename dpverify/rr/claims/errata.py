"""Zhou, Lu and Wu's errata, all in one place: each printed statement fails, and the corrected one holds.

- ``rr.model2.standard_form``: model II's standard form keeps model I's b; the rows from (14)
  need e^ε + δ (§3.2.2);
- ``rr.sec4.case2``: §4's case 2) states the implication the wrong way round;
- ``rr.nary.definition``: for n > 2 the printed (ε,δ) condition is per-output LDP, weaker than
  (ε,δ)-LDP over sets (§2, §4).

Each verdict comes from :func:`dpverify.toolkit.erratum_outcome`, the library's one erratum rule.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.rr import symbolic as sym
from dpverify.rr.compare import proven_equal
from dpverify.rr.symbolic import E, delta, pi0
from dpverify.toolkit import erratum_outcome

SEED = "003"

#: these claims' outcomes carry no summary sentence (their evidence names the corrected statement)
NO_SUMMARY = {Verdict.HOLDS: "", Verdict.REFUTED: "", Verdict.ERRATUM: ""}


@claim(
    "rr.model2.standard_form",
    source=Source(SEED, "§3.2.2", "b of model II"),
    statement="Model II in standard form has the same X, C, A as model I and b = (1−δ, 1−δ, e^ε, e^ε, 1, 1)ᵀ.",
    method="symbolic",
    expected="erratum",
    proof="rr/binary_optimum.md",
)
def _model2_standard_form(thorough: bool = False) -> Outcome:
    mid = (E + delta) / (E + 1)
    stated = {(1, 2, 3, 4, 7, 8): (mid, mid), (1, 2, 3, 4, 5, 8): (1, delta), (1, 2, 3, 4, 6, 7): (delta, 1)}
    printed_b_ok, corrected_ok, got = True, True, {}
    for basis, (a, b) in stated.items():
        _, x_p = sym.reduced_costs(basis, True, paper_b=True)
        _, x_c = sym.reduced_costs(basis, True, paper_b=False)
        printed_b_ok &= proven_equal(x_p[0], a) and proven_equal(x_p[1], b)
        corrected_ok &= proven_equal(x_c[0], a) and proven_equal(x_c[1], b)
        got[str(list(basis))] = {"printed_b": [str(x_p[0]), str(x_p[1])], "corrected_b": [str(x_c[0]), str(x_c[1])]}
    # (14)'s third and fourth inequalities, moved to standard form, have right-hand side e^ε + δ:
    rhs = sp.expand(-(sym.binary_constraints(True)[2][0] - (sym.p00 + E * sym.p11)))
    corrected_ok &= proven_equal(rhs, E + delta)
    return erratum_outcome(
        printed_holds=printed_b_ok,
        corrected_holds=corrected_ok,
        summaries=NO_SUMMARY,
        evidence={
            "basic_solutions": got,
            "rhs_of_rows_3_4_from_eq14": str(rhs),
            "corrected_statement": "b = (1−δ, 1−δ, e^ε+δ, e^ε+δ, 1, 1)ᵀ; with the printed b the bases give "
            "p00 = p11 = e^ε/(e^ε+1), (1, 0), (0, 1) — the model I points, not the stated model II solutions",
        },
    )


@claim(
    "rr.sec4.case2",
    source=Source(SEED, "§4", "case 2)"),
    statement="When π0 ≥ 1/(e^ε+1), 1−π0 ≥ e^ε/(e^ε+1) and the optimum is 1−π0.",
    method="symbolic",
    expected="erratum",
    proof="rr/binary_optimum.md",
)
def _sec4_case2(thorough: bool = False) -> Outcome:
    u_star = sym.symbolic_optimum(0)
    # the printed implication, tested on a grid of (ε, π0) satisfying its hypothesis
    counter = None
    for e in (0.1, 0.5, 1.0, 2.0):
        Ev = math.exp(e)
        for p in np.linspace(1 / (Ev + 1), 1, 9):
            u = float(u_star.subs({sym.eps: e, pi0: p}))
            if not (1 - p >= Ev / (Ev + 1) - 1e-12 and abs(u - (1 - p)) < 1e-12):
                counter = {"epsilon": e, "pi0": float(p), "1-pi0": float(1 - p), "e/(e+1)": Ev / (Ev + 1), "u*": u}
                break
        if counter:
            break
    # the corrected statement: π0 ≤ 1/(E+1) ⇒ 1−π0 ≥ E/(E+1) (identity: 1 − 1/(E+1) = E/(E+1)), and the
    # derived optimum there is 1−π0
    reg = sym.binary_regimes(False)[0]
    corrected = (proven_equal(reg.upper, 1 / (E + 1)) and proven_equal(reg.u, 1 - pi0)
                 and proven_equal(1 - 1 / (E + 1), E / (E + 1)))
    return erratum_outcome(
        printed_holds=counter is None,
        corrected_holds=corrected,
        summaries=NO_SUMMARY,
        evidence={"counterexample": counter,
                  "corrected_statement": "π0 ≤ 1/(e^ε+1) ⇒ 1−π0 ≥ e^ε/(e^ε+1), optimum 1−π0",
                  "corrected_holds": corrected},
    )


@claim(
    "rr.nary.definition",
    source=Source(SEED, "§2, §4", "(ε,δ)-DP definition and model (20)"),
    statement="P is (ε,δ)-DP if p_{i1 j} ≤ e^ε p_{i2 j} + δ for all i1, i2, j — used as the (ε,δ) definition for "
    "n-ary mechanisms in model (20).",
    method="exact computation",
    expected="erratum",
    proof="rr/definitions.md",
)
def _nary_definition(thorough: bool = False) -> Outcome:
    from dpverify.audit import check_ldp
    from dpverify.rr import optimal_mechanism
    from dpverify.rr.lp import solve_lp
    from dpverify.toolkit import finite_mechanism_privacy

    # a 4-output mechanism that passes the per-output condition but not the standard (set) definition
    q, h = "1/4", "1/2"
    P = [[q, q, q, q], [h, h, "0", "0"], [q, q, q, q], [q, q, q, q]]
    eps_ex, d_ex = sp.log(sp.Rational(11, 10)), Fraction(1, 4)
    per = check_ldp(P, eps_ex, d_ex, "per_output", exact=True)
    std = check_ldp(P, eps_ex, d_ex, "standard", exact=True)
    counterexample = per.holds and not std.holds
    # binary outputs: the definitions coincide (the only non-trivial sets are singletons)
    rng = np.random.default_rng(5)
    binary_same = True
    for _ in range(200):
        Q = rng.dirichlet(np.ones(2), size=int(rng.integers(2, 5)))
        e, d = float(rng.uniform(0.01, 2)), float(rng.uniform(0, 0.5))
        a, b = check_ldp(Q, e, d, "per_output"), check_ldp(Q, e, d, "standard")
        binary_same &= abs(a.required_delta - b.required_delta) < 1e-12
    # corrected statement: the optimum of model (20) is the same under the standard definition,
    # and the closed-form optimum satisfies both
    worst = 0.0
    both = True
    for _ in range(12 if not thorough else 200):
        n = int(rng.integers(3, 6))
        pi = rng.dirichlet(np.ones(n))
        e, d = float(rng.uniform(0.05, 2)), float(rng.uniform(0.01, 0.6))
        worst = max(worst, abs(solve_lp(pi, e, d, "standard").u - solve_lp(pi, e, d, "per_output").u))
        Pm, _ = optimal_mechanism(pi, e, d)
        both &= all(finite_mechanism_privacy(Pm, epsilon=e, delta=d, definition=dfn, atol=1e-12).verdict is Verdict.HOLDS
                    for dfn in ("standard", "per_output"))
    return erratum_outcome(
        printed_holds=not counterexample,
        corrected_holds=binary_same and worst < 1e-8 and both,
        summaries=NO_SUMMARY,
        evidence={"counterexample_P": P, "epsilon": "log(11/10)", "delta": "1/4",
                  "per_output_required_delta": str(per.required_delta),
                  "standard_required_delta": str(std.required_delta),
                  "violating_set": list(std.outputs), "rows": list(std.rows),
                  "binary_definitions_coincide": binary_same, "lp_standard_vs_per_output_max_diff": worst,
                  "closed_form_passes_both": both,
                  "corrected_statement": "for n > 2 the printed condition is per-output LDP, weaker than (ε,δ)-LDP "
                  "over sets; for binary outputs they coincide, and the optimal utility of model (20) is the same "
                  "under both"},
    )
