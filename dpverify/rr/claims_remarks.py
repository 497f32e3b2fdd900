"""Seed 003 §3.3 remarks comparing the ε-DP and (ε,δ)-DP optima (true statements that had no claim)."""

from __future__ import annotations

import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.rr import symbolic as S
from dpverify.toolkit import symbolic_equal


def _deterministic(vertex, subs) -> bool:
    p00, p11 = (sp.nsimplify(v.subs(subs)) for v in vertex)
    return all(x in (0, 1) for x in (p00, p11))


@claim("rr.sec3_3.delta_better", source=Source("003", "§3.3", "'(ε,δ)-DP 情形的效用比 ε-DP 情形好'"),
       method="symbolic", expected="holds",
       statement="The optimal (ε,δ)-DP mechanism has higher utility than the optimal ε-DP mechanism "
                 "(at some loss of privacy): u*_II ≥ u*_I for every π0, strictly for 0 < π0 < 1 and δ > 0.")
def _delta_better(thorough: bool = False) -> Outcome:
    r1, r2 = S.binary_regimes(False), S.binary_regimes(True)
    diffs, ok = [], len(r1) == len(r2) == 3
    for a, b in zip(r1, r2):
        same_interval = symbolic_equal(a.lower, b.lower).equal is True and symbolic_equal(a.upper, b.upper).equal is True
        d = sp.factor(b.u - a.u)  # in E = e^ε, δ, π0
        # d ≥ 0 on the regime, and > 0 inside (0, 1): evaluate the sign at interior points exactly
        pts = [(sp.Rational(e), sp.Rational(dl), p) for e in ("11/10", "2", "7") for dl in ("1/100", "1/3", "9/10")
               for p in (sp.Rational(1, 100), sp.Rational(1, 2), sp.Rational(99, 100))]
        inside = [(E_, dl, p) for E_, dl, p in pts
                  if a.lower.subs(S.E, E_) <= p <= a.upper.subs(S.E, E_)]
        ok &= same_interval and all(d.subs({S.E: E_, S.delta: dl, S.pi0: p}) > 0 for E_, dl, p in inside)
        diffs.append(str(d))
    ev = {"u_II_minus_u_I_by_regime": diffs,
          "note": "the differences are (1−π0)δ, δ/(e^ε+1) and π0δ: zero only at π0 ∈ {0, 1} or δ = 0"}
    if ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary="In some regime the (ε,δ) optimum is not above the ε-DP optimum.")


@claim("rr.sec3_3.no_deterministic", source=Source("003", "§3.3", "Fig. 8: (ε,δ)-DP avoids deterministic mechanisms"),
       method="symbolic", expected="holds",
       statement="When π0 is large or small the optimal ε-DP mechanism degenerates to a deterministic one; "
                 "the optimal (ε,δ)-DP mechanism (0 < δ < 1) is never deterministic.")
def _no_det(thorough: bool = False) -> Outcome:
    vals = [{S.E: sp.Rational(e), S.delta: sp.Rational(dl)} for e in ("11/10", "3") for dl in ("1/10", "1/2", "9/10")]
    r1, r2 = S.binary_regimes(False), S.binary_regimes(True)
    det1 = [all(_deterministic(r.vertex, v) for v in vals) for r in r1]
    det2 = [any(_deterministic(r.vertex, v) for v in vals) for r in r2]
    ok = det1 == [True, False, True] and not any(det2)
    ev = {"model_I_vertices": [str(r.vertex) for r in r1], "model_I_deterministic": det1,
          "model_II_vertices": [str(r.vertex) for r in r2], "model_II_deterministic_somewhere": det2}
    if ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary="The deterministic/non-deterministic pattern of the optima differs "
                   "from the remark.")


@claim("rr.sec4.counts", source=Source("003", "§4", "model (19)–(20): counts of variables and constraints"),
       method="exact computation", expected="holds",
       statement="Model (19)–(20) has n² variables, n²(n−1) differential-privacy constraints, n row-sum constraints "
                 "and n² non-negativity constraints; eliminating one variable per row leaves n(n−1) variables, "
                 "n²(n−1) privacy constraints, n constraints '≤ 1' and n(n−1) non-negativity constraints.")
def _counts(thorough: bool = False) -> Outcome:
    import numpy as np

    from dpverify.rr.lp import ldp_lp

    rows, ok = [], True
    for n in range(2, (9 if thorough else 6) + 1):
        c, A_ub, b_ub, A_eq, b_eq = ldp_lp(np.full(n, 1.0 / n), 1.0, 0.1)
        nvar, ndp, neq = A_eq.shape[1], A_ub.shape[0], A_eq.shape[0]
        # eliminate the last variable of each row via its row sum: every privacy row stays a (non-trivial) row,
        # the eliminated variable's p ≥ 0 becomes Σ_rest ≤ 1; the kept variables keep p ≥ 0
        keep = np.ones(nvar, bool)
        keep[np.arange(n) * n + (n - 1)] = False
        elim_rows = [A_eq[i].toarray().ravel()[keep] for i in range(neq)]
        n_le_one = sum(1 for r in elim_rows if np.count_nonzero(r) == n - 1)
        dense = A_ub.toarray()
        reduced_dp = dense[:, keep].copy()
        for a in range(n):  # substitute p_{a,n−1} = 1 − Σ_{k<n−1} p_{ak}
            e = a * n + (n - 1)
            cols_a = [int(np.flatnonzero(keep)[:].tolist().index(a * n + k)) for k in range(n - 1)]
            reduced_dp[:, cols_a] -= dense[:, [e]]
        got = (nvar, ndp, neq, nvar, int(keep.sum()), int(np.count_nonzero(np.abs(reduced_dp).sum(axis=1) > 0)),
               n_le_one, int(keep.sum()))
        want = (n * n, n * n * (n - 1), n, n * n, n * (n - 1), n * n * (n - 1), n, n * (n - 1))
        ok &= got == want
        rows.append([n, list(got)])
    ev = {"rows[n, (vars, dp, row sums, nonneg, reduced vars, reduced dp, ≤1, reduced nonneg)]": rows}
    if ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary="The library's LP of (19)–(20) has other counts than printed.")
