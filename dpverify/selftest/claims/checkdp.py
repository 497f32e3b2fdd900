"""CheckDP's benchmark programs decided exactly for every ε > 0 (ids ``audit.checkdp.*``).

Each claim builds the exact output law of one program of :mod:`dpverify.exact.programs.checkdp`
(geometric noise, integer queries, every input of 3 queries in {0, 1}) and decides "ε-DP for every
ε > 0" under CheckDP's adjacency with :func:`dpverify.exact.programs.tails.prove_program` (the
decision of :func:`dpverify.exact.prove`, exact for gap outputs past the window).  The correct programs must be
proved, the incorrect ones refuted; the counterexample (pair, outputs, exact ε′) is the evidence.
The programs are looked up by name at run time, so a planted bug in one flips its claim
(``tests/exact/test_programs_claims.py``).  The full benchmark with audits of every counterexample is
``benchmarks/bench_exact_checkdp.py``.
"""

from __future__ import annotations

import itertools

from dpverify.claims import SELF_TEST, Outcome, Source, Verdict, claim

S_CHECKDP = Source(SELF_TEST, "CheckDP benchmark (Wang, Ding, Kifer, Zhang, CCS 2020)",
                   "examples/*.c of github.com/cmla-psu/checkdp, with geometric noise and integer queries")
INPUTS = list(itertools.product(range(2), repeat=3))


def _decide(name: str, **params) -> Outcome:
    from dpverify.exact.programs import checkdp, neighbour_pairs, program_law
    from dpverify.exact.programs.tails import prove_program

    _, relation, _ = checkdp.ALL[name]
    prog = getattr(checkdp, name)  # by attribute: a patched program is the one decided
    law = program_law(prog, INPUTS, **params)
    res = prove_program(law, neighbour_pairs(INPUTS, relation))
    ev = {"program": name, "inputs": len(INPUTS), "columns": len(law.columns), "relation": relation,
          "verdict": res.verdict, "exact_law": law.exact}
    ce = res.counterexample
    if ce is not None:
        ev.update(pair=str([INPUTS[i] for i in ce.pair]), outputs=str([law.columns[k] for k in ce.outputs]),
                  epsilon_needed=str(ce.epsilon_needed))
    if res.verdict == "proved":  # prove_program: exact over every output (gap tails decided)
        return Outcome(Verdict.HOLDS, ev, summary=f"{name}: proved ε-DP for every ε > 0 on {len(INPUTS)} inputs")
    if res.verdict == "refuted":
        return Outcome(Verdict.REFUTED, ev, summary=f"{name}: refuted, ε′ = {ce.epsilon_needed}")
    return Outcome(Verdict.INCONCLUSIVE, ev, summary=f"{name}: {res.verdict} (exact law: {law.exact})")


@claim("audit.checkdp.partialsum", source=S_CHECKDP, method="exact computation", expected="holds", proof="exact/closed_forms.md",
       statement="partialsum (sum(q) + geometric noise of scale 1/ε) is ε-DP for every ε > 0, one query changing by ≤ 1")
def _partialsum(thorough: bool = False) -> Outcome:
    return _decide("partialsum")


@claim("audit.checkdp.badpartialsum", source=S_CHECKDP, method="exact computation", expected="refuted", proof="exact/closed_forms.md",
       statement="badpartialsum (noise of scale 1/(2ε)) is ε-DP for every ε > 0 (CheckDP: it is not)")
def _badpartialsum(thorough: bool = False) -> Outcome:
    return _decide("badpartialsum")


@claim("audit.checkdp.noisymax", source=S_CHECKDP, method="exact computation", expected="holds", proof="exact/closed_forms.md",
       statement="noisymax (argmax of q[i] + geometric(2/ε)) is ε-DP for every ε > 0, every query changing by ≤ 1")
def _noisymax(thorough: bool = False) -> Outcome:
    return _decide("noisymax")


@claim("audit.checkdp.badsparsevector1", source=S_CHECKDP, method="exact computation", expected="refuted", proof="exact/closed_forms.md",
       statement="badsparsevector1 (no query noise, no cut-off; T = 1) is ε-DP for every ε > 0 (CheckDP: it is not)")
def _badsparsevector1(thorough: bool = False) -> Outcome:
    return _decide("badsparsevector1", T=1, NN=1)


@claim("audit.checkdp.gapsparsevector", source=S_CHECKDP, method="exact computation", expected="holds",
       proof="exact/closed_forms.md",
       statement="gapsparsevector (the gap q[i] + geometric(4NN/ε) − T̄ released when ≥ 0; NN = 1, T = 1) is ε-DP "
                 "for every ε > 0 over every single gap value (window cells plus closed-form tails)")
def _gapsparsevector(thorough: bool = False) -> Outcome:
    return _decide("gapsparsevector", T=1, NN=1)
