"""The exact LDP checker's self-check (id ``audit.ldp.checker``).

:func:`dpverify.audit.check_ldp` and :func:`dpverify.audit.ldp_epsilon` are compared, in exact
rational arithmetic, with a brute force over every input pair and every output set on seeded
random mechanisms with rational entries.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims import SELF_TEST

S_LDP = Source(SELF_TEST, "exact LDP checker", "(ε,δ)-LDP of a design matrix as seed 003 §2 defines it")


def _brute(P, E, per_output: bool):
    """max over input pairs (a, c) and output sets S (or single outputs) of P(S|a) − E·P(S|c), at least 0."""
    n, m = len(P), len(P[0])
    if per_output:
        return max(Fraction(0), max(P[a][j] - E * P[c][j] for a in range(n) for c in range(n) for j in range(m)))
    best = Fraction(0)
    for a in range(n):
        for c in range(n):
            for r in range(1, m + 1):
                for S in itertools.combinations(range(m), r):
                    best = max(best, sum(P[a][j] for j in S) - E * sum(P[c][j] for j in S))
    return best


def _random_mechanism(rnd: random.Random) -> list[list[Fraction]]:
    """An n × m row-stochastic matrix (2 ≤ n, m ≤ 4) with small rational entries."""
    n, m = rnd.randint(2, 4), rnd.randint(2, 4)
    P = []
    for _ in range(n):
        w = [rnd.randint(0, 5) for _ in range(m)]
        if sum(w) == 0:
            w[0] = 1
        P.append([Fraction(x, sum(w)) for x in w])
    return P


def _first_failure(P, r: Fraction, rnd: random.Random):
    """The first disagreement of the checker with the brute force on ``P`` at e^ε = r, or None."""
    from dpverify.audit import check_ldp, ldp_epsilon

    eps = sp.log(sp.Rational(r.numerator, r.denominator))
    for definition in ("standard", "per_output"):
        got = check_ldp(P, eps, 0, definition, exact=True).required_delta
        want = _brute(P, r, definition == "per_output")
        if got != want:
            return {"P": [[str(x) for x in row] for row in P], "E": str(r), "definition": definition,
                    "checker": str(got), "brute_force": str(want)}
        d = Fraction(rnd.randint(0, 30), 100)
        e_min = ldp_epsilon(P, d, definition, exact=True)
        if e_min != sp.oo and sp.exp(e_min) > 1:
            Em = sp.exp(e_min)
            below = sp.log(Em - sp.Rational(1, 10**6))
            if not check_ldp(P, e_min, d, definition, exact=True).holds or check_ldp(P, below, d, definition, exact=True).holds:
                return {"P": [[str(x) for x in row] for row in P], "delta": str(d), "definition": definition,
                        "smallest_eps": str(e_min), "why": "smallest epsilon not tight"}
    return None


@claim(
    "audit.ldp.checker",
    source=S_LDP,
    statement="The exact LDP checker's tight δ equals the brute-force maximum of P(S|i1) − e^ε P(S|i2) over all "
    "input pairs and output sets S (standard) or single outputs (per-output), and its smallest ε is tight.",
    method="property",
    expected="holds",
    proof="rr/definitions.md",
)
def _checker(thorough: bool = False) -> Outcome:
    rnd = random.Random(17)
    trials = 400 if thorough else 40
    fail = None
    for _ in range(trials):
        P = _random_mechanism(rnd)
        r = Fraction(rnd.randint(101, 400), 100)
        fail = _first_failure(P, r, rnd)
        if fail:
            break
    return Outcome(Verdict.HOLDS if fail is None else Verdict.REFUTED,
                   {"random_rational_mechanisms": trials, "seed": 17, "failure": fail})
