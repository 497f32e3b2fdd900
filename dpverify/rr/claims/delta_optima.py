"""Zhou, Lu and Wu's paper: the (ε, δ) optima are (ε, δ)-LDP, decided exactly for every ε > 0.

- ``rr.model2.optimum_ldp``: the three design matrices printed with (15) are (ε, δ)-LDP over output sets on
  the whole regime E = e^ε > 1, δ ∈ (0, 1) (π0 only chooses which one is optimal), by the sign test of
  :func:`dpverify.rr.symbolic.sign_everywhere` on every (pair, output set); and, by a second route,
  :func:`dpverify.exact.prove` with ε a positive symbol on a stated grid of δ (whether δ/2 is refuted is
  recorded in the evidence, ``half_delta_verdict``; the statement does not claim δ is tight).
- ``rr.nary.optimum_ldp``: the n-ary optimum δI + (1 − δ)·(k-RR on the k most likely inputs) of
  :func:`dpverify.rr.optimal_mechanism` (its symbolic law :class:`dpverify.rr.mechanisms.OptimumLaw`, piece by
  piece in ε) is (ε, δ)-LDP for every ε > 0, on a stated grid of priors π and of δ, with δ tight.

Proof: ``rr/delta_optima.md``.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.rr import symbolic as sym
from dpverify.rr.symbolic import E, delta

SEED = "003"
EPS = sp.Symbol("epsilon", positive=True)
#: the δ grid of the second route (the sign test covers every δ in (0, 1))
DELTAS = tuple(sp.Rational(*f) for f in ((1, 100), (1, 20), (1, 10), (3, 20), (1, 5), (1, 2), (9, 10)))
#: the priors of the n-ary claim: dyadic entries, so the floats the room reads are these rationals exactly
PRIORS = ((0.5, 0.5), (0.875, 0.125), (0.75, 0.125, 0.125), (0.5, 0.25, 0.25), (0.25, 0.25, 0.25, 0.25),
          (0.375, 0.25, 0.1875, 0.125, 0.0625))
NARY_DELTAS = (sp.Rational(1, 16), sp.Rational(1, 4), sp.Rational(1, 2))


def _printed() -> dict:
    """The design matrices of (15), as printed (the statement under test), in E = e^ε and δ."""
    mid = (delta + E) / (E + 1)
    return {"pi0 <= 1/(e^eps+1)": sp.Matrix([[delta, 1 - delta], [0, 1]]),
            "in between": sp.Matrix([[mid, (1 - delta) / (E + 1)], [(1 - delta) / (E + 1), mid]]),
            "pi0 >= e^eps/(e^eps+1)": sp.Matrix([[1, 0], [1 - delta, delta]])}


def _slacks(M: sp.Matrix) -> list[dict]:
    """δ + e^ε M[j](S) − M[i](S) for every ordered pair and non-empty output set S, with its sign for all E, δ."""
    rows = []
    outs = range(M.shape[1])
    for i, j in itertools.permutations(range(M.shape[0]), 2):
        for r in range(1, M.shape[1] + 1):
            for S in itertools.combinations(outs, r):
                slack = sp.factor(sp.cancel(delta + E * sum(M[j, o] for o in S) - sum(M[i, o] for o in S)))
                rows.append({"pair": [i, j], "outputs": list(S), "slack": str(slack),
                             "sign": sym.sign_everywhere(slack, True)})
    return rows


def _grid_route(M: sp.Matrix) -> tuple[bool, list[dict]]:
    """prove() at each δ of the grid with ε symbolic: proved at δ, refuted at δ/2 (δ is needed)."""
    from dpverify.exact import prove, render_set

    ok, rows = True, []
    for d in DELTAS:
        law = M.subs({E: sp.exp(EPS), delta: d})
        try:
            r, half = prove(law, epsilon=EPS, delta=d), prove(law, epsilon=EPS, delta=d / 2)
        except ValueError as exc:  # not a law at this δ (an entry outside [0, 1], a row not summing to 1)
            ok = False
            rows.append({"delta": str(d), "verdict": "not a law", "reason": str(exc)[:300]})
            continue
        row = {"delta": str(d), "verdict": r.verdict, "half_delta_verdict": half.verdict}
        if r.counterexample is not None:
            row["fails_for_epsilon"] = f"{r.counterexample.epsilon_fails} = {render_set(r.counterexample.epsilon_fails)}"
        ok &= r.verdict == "proved"
        rows.append(row)
    return ok, rows


@claim(
    "rr.model2.optimum_ldp",
    source=Source(SEED, "§3.2.1", "eq. (15)"),
    statement="The optimal design matrices of (15), [[δ,1−δ],[0,1]], the symmetric matrix with diagonal "
    "(δ+e^ε)/(e^ε+1) and [[1,0],[1−δ,δ]], are (ε,δ)-LDP (over output sets) for every ε > 0 and δ ∈ (0,1).",
    method="symbolic",
    expected="holds",
    proof="rr/delta_optima.md",
)
def _model2_optimum_ldp(thorough: bool = False) -> Outcome:
    ok, evidence = True, {}
    for name, M in _printed().items():
        slacks = _slacks(M)
        whole = all(s["sign"] in (0, 1) for s in slacks)
        grid_ok, grid = _grid_route(M)
        ok &= whole and grid_ok
        evidence[name] = {"matrix": str(M.tolist()), "whole_regime_proved": whole,
                          "tight": any(s["sign"] == 0 for s in slacks), "slacks": slacks,
                          "delta_grid_epsilon_symbolic": grid}
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"regime": "every e^eps > 1 and delta in (0, 1) (sign test); pi0 only picks the matrix",
                    "delta_grid": [str(d) for d in DELTAS], "matrices": evidence})


def _nary_case(pi: tuple, d, tight: bool) -> dict:
    """prove_mechanism on the room's optimum (symbolic law, piece by piece in ε) at δ, and at δ/2 if ``tight``."""
    from dpverify.exact import prove_mechanism
    from dpverify.mechanisms.protocol import SymbolicLaw
    from dpverify.rr.mechanisms import optimal

    m = optimal(pi=pi, epsilon=1.0, delta=float(d))
    r = prove_mechanism(m)
    law = m.symbolic_law(EPS)
    halved = SymbolicLaw(EPS, pieces=law.pieces, inputs=law.inputs, pairs=law.pairs, delta=law.delta / 2)

    class _Half:
        symbolic_law = staticmethod(lambda e: halved)

    half = prove_mechanism(_Half()) if tight else None
    return {"pi": list(pi), "delta": str(d), "law_delta": str(law.delta), "pieces": [str(w) for w, _ in law.pieces],
            "verdict": r.verdict, "reason": r.reason, "half_delta_verdict": half.verdict if tight else "not run"}


@claim(
    "rr.nary.optimum_ldp",
    source=Source(SEED, "§4–§5", "model (19)–(20), closed form derived here"),
    statement="(Derived here.) The n-ary optimum δI + (1−δ)·(k-RR on the k most likely inputs) is (ε,δ)-LDP "
    "over output sets for every ε > 0: proved exactly with ε symbolic for the priors (1/2,1/2), (7/8,1/8), "
    "(3/4,1/8,1/8), (1/2,1/4,1/4), (1/4,1/4,1/4,1/4), (3/8,1/4,3/16,1/8,1/16) and δ ∈ {1/16, 1/4, 1/2}; δ is "
    "tight (δ/2 is refuted; checked at δ = 1/4, and at every δ of the grid in a thorough run).",
    method="symbolic",
    expected="holds",
    proof="rr/delta_optima.md",
)
def _nary_optimum_ldp(thorough: bool = False) -> Outcome:
    rows = [_nary_case(pi, d, thorough or d == sp.Rational(1, 4)) for pi in PRIORS for d in NARY_DELTAS]
    ok = all(r["verdict"] == "proved" and r["half_delta_verdict"] in ("refuted", "not run") for r in rows)
    pieces = int(np.sum([len(r["pieces"]) for r in rows]))
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"cases": rows, "priors": [list(p) for p in PRIORS], "delta_grid": [str(d) for d in NARY_DELTAS],
                    "pieces_proved": pieces, "epsilon": "a positive symbol: every epsilon > 0"})
