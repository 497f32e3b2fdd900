"""Zhou, Lu and Wu's paper, models I and II (§2–§3): the feasible regions' vertices, the optima (4) and (15),
the tie segments, the extreme points of §4 and the §3.3 remarks comparing the two optima.

Every printed formula is compared with the derivation of :mod:`dpverify.rr.symbolic`
(:func:`dpverify.rr.compare.proven_equal`: equal only when proven).
"""

from __future__ import annotations

import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.rr import symbolic as sym
from dpverify.rr.compare import proven_equal, same_point_sets
from dpverify.rr.symbolic import E, delta, pi0

SEED = "003"


# ----------------------------------------------------------------------------- vertices


@claim(
    "rr.model1.vertices",
    source=Source(SEED, "§2.2.1", "Fig. 1"),
    statement="The feasible region of model I has the vertices A(0,1), B(e^ε/(e^ε+1), e^ε/(e^ε+1)), "
    "C(1,0) and D(1/(e^ε+1), 1/(e^ε+1)).",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _model1_vertices(thorough: bool = False) -> Outcome:
    printed = [(0, 1), (E / (E + 1), E / (E + 1)), (1, 0), (1 / (E + 1), 1 / (E + 1))]
    derived = sym.binary_vertices(False)
    ok, missing, extra = same_point_sets(derived, printed)
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"derived_vertices": [tuple(map(str, v)) for v in derived], "missing": str(missing), "extra": str(extra)},
    )


@claim(
    "rr.model2.vertices",
    source=Source(SEED, "§3.2.1", "Fig. 5"),
    statement="The feasible region of model II has the vertices A(0,1−δ), B(0,1), C(δ,1), "
    "D((δ+e^ε)/(e^ε+1), (δ+e^ε)/(e^ε+1)), E(1,δ), F(1,0), G(1−δ,0), H((1−δ)/(e^ε+1), (1−δ)/(e^ε+1)).",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _model2_vertices(thorough: bool = False) -> Outcome:
    D = (delta + E) / (E + 1)
    H = (1 - delta) / (E + 1)
    printed = [(0, 1 - delta), (0, 1), (delta, 1), (D, D), (1, delta), (1, 0), (1 - delta, 0), (H, H)]
    derived = sym.binary_vertices(True)
    ok, missing, extra = same_point_sets(derived, printed)
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"derived_vertices": [tuple(map(str, v)) for v in derived], "missing": str(missing), "extra": str(extra)},
    )


# ----------------------------------------------------------------------------- optima (4), (15)


def _compare_regimes(with_delta: bool, printed: list) -> Outcome:
    """printed: [(lower, upper, u, (p00, p11))] in π0 order."""
    derived = sym.binary_regimes(with_delta)
    rows, ok = [], len(derived) == len(printed)
    for r, (lo, hi, u, (a, b)) in zip(derived, printed):
        same = proven_equal(r.lower, lo) and proven_equal(r.upper, hi) and proven_equal(r.u, u) and proven_equal(r.vertex[0], a) and proven_equal(r.vertex[1], b)
        ok &= same
        rows.append({"pi0_from": str(r.lower), "pi0_to": str(r.upper), "u": str(r.u), "p00_p11": str(r.vertex), "as_printed": same})
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {"derived_regimes": rows, "n_printed": len(printed)})


@claim(
    "rr.model1.optimum",
    source=Source(SEED, "§2.2.1", "eq. (4)"),
    statement="u* = π0 if π0 ≥ e^ε/(e^ε+1); e^ε/(e^ε+1) if 1/(e^ε+1) ≤ π0 ≤ e^ε/(e^ε+1); 1−π0 if "
    "π0 ≤ 1/(e^ε+1); attained by [[0,1],[0,1]], the symmetric RR matrix, [[1,0],[1,0]].",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _model1_optimum(thorough: bool = False) -> Outcome:
    lo, hi = 1 / (E + 1), E / (E + 1)
    printed = [(0, lo, 1 - pi0, (0, 1)), (lo, hi, hi, (hi, hi)), (hi, 1, pi0, (1, 0))]
    return _compare_regimes(False, printed)


@claim(
    "rr.model2.optimum",
    source=Source(SEED, "§3.2.1", "eq. (15)"),
    statement="u* = π0 + (1−π0)δ if π0 ≥ e^ε/(e^ε+1); (δ+e^ε)/(e^ε+1) in between; π0δ + 1 − π0 if "
    "π0 ≤ 1/(e^ε+1); attained by [[δ,1−δ],[0,1]], the symmetric matrix with diagonal (δ+e^ε)/(e^ε+1), [[1,0],[1−δ,δ]].",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _model2_optimum(thorough: bool = False) -> Outcome:
    lo, hi = 1 / (E + 1), E / (E + 1)
    mid = (delta + E) / (E + 1)
    printed = [(0, lo, pi0 * delta + 1 - pi0, (delta, 1)), (lo, hi, mid, (mid, mid)), (hi, 1, pi0 + (1 - pi0) * delta, (1, delta))]
    return _compare_regimes(True, printed)


# ----------------------------------------------------------------------------- ties, §4 extreme points


@claim(
    "rr.model1.ties",
    source=Source(SEED, "§2.2.2", "cases 4), 5); eqs. (10)–(12)"),
    statement="When π0/π1 = e^ε every point of segment BC (p11 = e^ε(1 − p00), e^ε/(e^ε+1) ≤ p00 ≤ 1) is optimal "
    "with u = e^ε/(e^ε+1); when π0/π1 = 1/e^ε every point of AB (p11 = 1 − p00/e^ε, 0 ≤ p00 ≤ e^ε/(e^ε+1)) is.",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _model1_ties(thorough: bool = False) -> Outcome:
    from dpverify.toolkit import finite_mechanism_privacy

    t = sp.Symbol("t", nonnegative=True)
    hi = E / (E + 1)
    checks = {}
    # BC at π0 = E/(E+1); AB at π0 = 1/(E+1); parametrised by t ∈ [0, 1] along the segment
    segs = {
        "BC": (hi, hi + t * (1 - hi), lambda x: E * (1 - x)),
        "AB": (1 / (E + 1), t * hi, lambda x: 1 - x / E),
    }
    for name, (p0, x, y_of) in segs.items():
        y = y_of(x)
        u = p0 * x + (1 - p0) * y
        checks[f"{name}_utility_constant"] = proven_equal(u, hi)
        # u* there, from both derived regimes meeting at this π0
        meeting = [r for r in sym.binary_regimes(False) if proven_equal(r.lower, p0) or proven_equal(r.upper, p0)]
        checks[f"{name}_equals_u_star"] = len(meeting) == 2 and all(proven_equal(r.u.subs(pi0, p0), hi) for r in meeting)
        # every point of the segment is feasible: the constraints of (3) hold for all t ∈ [0, 1], E > 1
        g_vals = [g.subs({sym.p00: x, sym.p11: y}) for g, _ in sym.binary_constraints(False)]
        feas = True
        for tv in (0, sp.Rational(1, 3), sp.Rational(1, 2), 1):
            for Ev in (sp.Rational(11, 10), 2, 7):
                feas &= all(gv.subs({t: tv, E: Ev}) <= 0 for gv in g_vals)
                Pm = [[x.subs({t: tv, E: Ev}), 1 - x.subs({t: tv, E: Ev})], [1 - y.subs({t: tv, E: Ev}), y.subs({t: tv, E: Ev})]]
                feas &= finite_mechanism_privacy(Pm, epsilon=sp.log(Ev), exact=True).verdict is Verdict.HOLDS
        checks[f"{name}_segment_feasible"] = bool(feas)
    ok = all(checks.values())
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {"checks": checks})


@claim(
    "rr.sec4.extreme_points",
    source=Source(SEED, "§4", "extreme points of the binary LDP polytope"),
    statement="The extreme points of the binary ε-LDP region are [[1,0],[1,0]], [[0,1],[0,1]], the symmetric RR "
    "matrix and its anti-diagonal twin, with utilities π0, 1−π0, e^ε/(e^ε+1), 1/(e^ε+1).",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _sec4_extreme(thorough: bool = False) -> Outcome:
    hi, lo = E / (E + 1), 1 / (E + 1)
    printed = [((1, 0), pi0), ((0, 1), 1 - pi0), ((hi, hi), hi), ((lo, lo), lo)]
    derived = sym.binary_vertices(False)
    ok, missing, extra = same_point_sets(derived, [v for v, _ in printed])
    utilities_ok = all(proven_equal(pi0 * a + (1 - pi0) * b, u) for (a, b), u in printed)
    return Outcome(
        Verdict.HOLDS if ok and utilities_ok else Verdict.REFUTED,
        {"vertices_match": ok, "utilities_match": utilities_ok, "missing": str(missing), "extra": str(extra)},
    )


# ----------------------------------------------------------------------------- §3.3 remarks: ε-DP against (ε,δ)-DP


def _deterministic(vertex, subs) -> bool:
    p00, p11 = (sp.nsimplify(v.subs(subs)) for v in vertex)
    return all(x in (0, 1) for x in (p00, p11))


@claim("rr.sec3_3.delta_better", source=Source(SEED, "§3.3", "'(ε,δ)-DP 情形的效用比 ε-DP 情形好'"),
       method="symbolic", expected="holds",
       statement="The optimal (ε,δ)-DP mechanism has higher utility than the optimal ε-DP mechanism "
                 "(at some loss of privacy): u*_II ≥ u*_I for every π0, strictly for 0 < π0 < 1 and δ > 0.")
def _delta_better(thorough: bool = False) -> Outcome:
    r1, r2 = sym.binary_regimes(False), sym.binary_regimes(True)
    diffs, ok = [], len(r1) == len(r2) == 3
    for a, b in zip(r1, r2):
        same_interval = proven_equal(a.lower, b.lower) and proven_equal(a.upper, b.upper)
        d = sp.factor(b.u - a.u)  # in E = e^ε, δ, π0
        # d ≥ 0 on the regime, and > 0 inside (0, 1): evaluate the sign at interior points exactly
        pts = [(sp.Rational(e), sp.Rational(dl), p) for e in ("11/10", "2", "7") for dl in ("1/100", "1/3", "9/10")
               for p in (sp.Rational(1, 100), sp.Rational(1, 2), sp.Rational(99, 100))]
        inside = [(E_, dl, p) for E_, dl, p in pts
                  if a.lower.subs(sym.E, E_) <= p <= a.upper.subs(sym.E, E_)]
        ok &= same_interval and all(d.subs({sym.E: E_, sym.delta: dl, sym.pi0: p}) > 0 for E_, dl, p in inside)
        diffs.append(str(d))
    ev = {"u_II_minus_u_I_by_regime": diffs,
          "note": "the differences are (1−π0)δ, δ/(e^ε+1) and π0δ: zero only at π0 ∈ {0, 1} or δ = 0"}
    if ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary="In some regime the (ε,δ) optimum is not above the ε-DP optimum.")


@claim("rr.sec3_3.no_deterministic", source=Source(SEED, "§3.3", "Fig. 8: (ε,δ)-DP avoids deterministic mechanisms"),
       method="symbolic", expected="holds",
       statement="When π0 is large or small the optimal ε-DP mechanism degenerates to a deterministic one; "
                 "the optimal (ε,δ)-DP mechanism (0 < δ < 1) is never deterministic.")
def _no_det(thorough: bool = False) -> Outcome:
    vals = [{sym.E: sp.Rational(e), sym.delta: sp.Rational(dl)} for e in ("11/10", "3") for dl in ("1/10", "1/2", "9/10")]
    r1, r2 = sym.binary_regimes(False), sym.binary_regimes(True)
    det1 = [all(_deterministic(r.vertex, v) for v in vals) for r in r1]
    det2 = [any(_deterministic(r.vertex, v) for v in vals) for r in r2]
    ok = det1 == [True, False, True] and not any(det2)
    ev = {"model_I_vertices": [str(r.vertex) for r in r1], "model_I_deterministic": det1,
          "model_II_vertices": [str(r.vertex) for r in r2], "model_II_deterministic_somewhere": det2}
    if ok:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary="The deterministic/non-deterministic pattern of the optima differs "
                   "from the remark.")
