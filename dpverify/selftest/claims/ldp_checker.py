"""The exact LDP checker's self-checks (ids ``audit.ldp.checker`` and ``audit.ldp.float_exact``).

:func:`dpverify.audit.check_ldp` and :func:`dpverify.audit.ldp_epsilon` are compared, in exact
rational arithmetic, with a brute force over every input pair and every output set on seeded
random mechanisms with rational entries (``audit.ldp.checker``); and the float checker's decisions,
a few ulps either side of the exact δ, with 300-bit interval arithmetic, including the issue-26
mechanism that the former absolute tolerance accepted (``audit.ldp.float_exact``).
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims import SELF_TEST

S_LDP = Source(SELF_TEST, "exact LDP checker", "(ε,δ)-LDP of a design matrix as Zhou, Lu and Wu §2 define it")


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


# ----------------------------------------------------------------------------- float mode is exact


def _interval_delta(P, eps: float, definition: str):
    """Rigorous bounds (lo, hi) on the exact tight δ of the float matrix ``P`` at the exact float ε (300-bit intervals)."""
    import mpmath

    iv = mpmath.iv
    old, iv.prec = iv.prec, 300
    try:
        with mpmath.workprec(300):
            E = iv.exp(iv.mpf(eps))
            M = [[iv.mpf(x) for x in row] for row in P.tolist()]
            zero = mpmath.mpf(0)

            def pos(x):
                return iv.mpf([max(mpmath.mpf(x.a), zero), max(mpmath.mpf(x.b), zero)])

            n, m = len(M), len(M[0])
            if definition == "per_output":
                terms = [pos(M[a][j] - E * M[c][j]) for a in range(n) for c in range(n) for j in range(m)]
            else:
                terms = [sum((pos(M[a][j] - E * M[c][j]) for j in range(m)), iv.mpf(0))
                         for a in range(n) for c in range(n) if a != c]
            return max(mpmath.mpf(t.a) for t in terms), max(mpmath.mpf(t.b) for t in terms)
    finally:
        iv.prec = old


def _near_floats(rnd: random.Random):
    """A random float mechanism, ε, and (via the reference) claims a few ulps either side of its exact δ."""
    import math

    import numpy as np

    from dpverify.audit.exact.certified import ExpE

    n, m = rnd.randint(2, 3), rnd.randint(2, 6)
    W = np.array([[float(rnd.randint(0, 9)) for _ in range(m)] for _ in range(n)])
    W[:, 0] += 1
    P = W / W.sum(axis=1, keepdims=True)
    eps = rnd.choice([math.log(2), math.log(4), 0.1, 1.0, rnd.uniform(0.01, 5)])
    if rnd.random() < 0.5:  # a column on the line p = e^ε q in floats (then only exact arithmetic decides)
        s = float(ExpE(eps).scale(P[1, 1:2])[0])
        if s < P[0, 1] + P[0, 0]:
            P[0, 0] -= s - P[0, 1]
            P[0, 1] = s
    return P, eps


@claim(
    "audit.ldp.float_exact",
    source=S_LDP,
    statement="The float LDP checker never accepts a mechanism whose exact δ (at the exact e^ε of the float ε) "
    "exceeds the claim, nor refutes one within it: on seeded float mechanisms with claims a few ulps either side "
    "of the exact δ and columns on the line p = e^ε q, its decision equals a 300-bit interval computation, and "
    "the issue-26 mechanism (m = 100,001, exact δ 8.0e-11, claim 1e-11) is refuted.",
    method="property",
    expected="holds",
    proof="audit/hockey_stick.md",
)
def _float_exact(thorough: bool = False) -> Outcome:
    import numpy as np

    from dpverify.audit import check_ldp

    rnd = random.Random(26)
    wrong_accepts, wrong_rejects, cases, first = 0, 0, 0, None
    for _ in range(400 if thorough else 40):
        P, eps = _near_floats(rnd)
        for definition in ("standard", "per_output"):
            lo, hi = _interval_delta(P, eps, definition)
            for k in (-2, -1, 1, 2):
                d = float(lo)
                for _ in range(abs(k)):
                    d = float(np.nextafter(d, np.inf if k > 0 else -np.inf))
                if not 0 <= d < 1 or lo <= d < hi:
                    continue
                cases += 1
                got = check_ldp(P, eps, d, definition).holds
                if got != (hi <= d):
                    wrong_accepts += got
                    wrong_rejects += not got
                    first = first or {"P": P.tolist(), "epsilon": eps, "delta": d, "definition": definition,
                                      "checker": got}
    m = 100_001
    p = np.full(m, 1.0 / m)
    q = p.copy()
    q[0] -= 9e-11
    q[1] += 9e-11
    issue = check_ldp(np.vstack([p, q]), 1e-6, 1e-11)
    ok = wrong_accepts == 0 and wrong_rejects == 0 and not issue.holds and cases > 0
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"seed": 26, "cases": cases, "wrong_accepts": wrong_accepts, "wrong_rejects": wrong_rejects,
                    "first_failure": first, "issue_26_holds": issue.holds,
                    "issue_26_required_delta": issue.required_delta, "issue_26_error_bound": issue.error_bound})
