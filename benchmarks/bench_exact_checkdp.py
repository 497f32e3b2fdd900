"""CheckDP's 17 programs (discrete versions) proved or refuted for every ε > 0, each refutation confirmed by the auditor.

For each program of :mod:`dpverify.exact.programs.checkdp`: its exact law on every input of
``--queries`` integer queries in {0, …, ``--values`` − 1} (rows; T = 1, NN = 1 for the sparse-vector
family, T = 1 and M = 2 for smartsum, whose loop stops after q[T]), the neighbouring pairs of CheckDP's
adjacency (both orders), and the decision :func:`dpverify.exact.programs.tails.prove_program` with ε a
positive symbol (the decision of :func:`dpverify.exact.prove` on the law's entries in Q(t), made exact
for gap outputs past the window by their closed-form tails, ``exact/closed_forms.md`` §4).  A law with
other threshold-dependent outputs cut into a window and a rest cell is not exact for a proof (its
"proved" is ``unknown``); its refutations are sound (a partition of the outputs is a post-processing).

Each refutation is then confirmed by the statistical auditor on the program's own sampler
(:mod:`dpverify.exact.programs.confirm`): from the exact law alone, before any draw,
:func:`plan_confirmation` picks the ε (a grid 0.05…3.5), the failing ordered pair and the output set
(columns by decreasing ratio) that need the fewest draws, and checks the set's failure exactly; then
:func:`confirm` runs the auditor's estimation step (Poisson conditional test, 99 %, seed ``--seed``) on
1.2× the draws that give 90 % power (at least 10^5, at most ``--max-draws`` per input) from the
vectorised sampler.  "confirmed" is ε_lb > ε: if the program were ε-DP this happens with probability ≤ 1 %.

Measured (2026-11-26, default options, 2 cores shared with 6 other sessions; CPU = time.process_time,
wall 2–4× CPU from the load): 17/17 right verdicts; 8/8 counterexamples confirmed by the auditor.
Decision CPU 0.1–12 s, adaptivesparsevector 16.3 s (4 queries; 28 s CPU and 130 s wall before the
gcd-free sums of ``programs/lazyfrac`` and the coefficient-built sign polynomials of ``tails``; half of
the rest is ``exact.law.prepare_field``'s denominator factorisation).  badadaptivesparsevector's
violating outputs at (0000, 1111) have probability ~1e-6: it is audited at (13,13,13,21) vs
(14,14,14,20) (``AUDIT_AT``): ε = 0.238, 11 outputs, p = 4.0e-4, q = 3.0e-4, ε_lb = 0.248 from
1.13·10^8 draws per input (58 s CPU); every other audit takes < 0.6 s CPU (10^5–8·10^5 draws).

Run: ``python3 benchmarks/bench_exact_checkdp.py [--queries 3] [--values 3] [--only NAME ...] [--json FILE]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time

from dpverify.exact.programs import neighbour_pairs, program_law
from dpverify.exact.programs.checkdp import ALL
from dpverify.exact.programs.confirm import confirm, plan_confirmation
from dpverify.exact.programs.tails import prove_program
from dpverify.progress import progress



#: Programs whose violation needs more queries than ``--queries``: decided on one neighbouring pair
#: (every query 0 vs every query 1), which is sound for a refutation.  With NN = 1 and geometric noise
#: the threshold-dependent value's loss in its lower tail is k·ε/4 for a true answer at query k
#: (badgap: ε/4 per query), so badgapsparsevector first fails at 5 queries; badadaptive (3ε/8 per
#: query before the answer, ε/8 for it) at 4.  The adaptive program is run on the same pair as its bad twin.
SPECIAL = {"badgapsparsevector": 5, "badadaptivesparsevector": 4, "adaptivesparsevector": 4}

#: Where the auditor confirms a refutation when the decision's own pairs are a poor place for it:
#: (inputs, window). badadaptive's violating outputs at (0000, 1111) have probability ~1e-6 at
#: ε = 0.25 (three "below" answers need a threshold noise far below 0). At (13,13,13,21) vs
#: (14,14,14,20) the three below-answers sit where the top branch's test is in its lower tail at
#: ρ ≈ 0 and the fourth query's released value is likely: the best set has probability ~4e-4 with
#: ln(p/q) − ε ≈ 0.028 at ε ≈ 0.24 (found by :func:`plan_confirmation` over (13|17, 21|25) and windows
#: 4, 10, 16; window 10 helps, 16 does not).  The set's failure there is decided exactly (``exact_fail``).
AUDIT_AT = {"badadaptivesparsevector": ([(13, 13, 13, 21), (14, 14, 14, 20)], 10)}


def inputs_of(name: str, queries: int, values: int):
    if name in SPECIAL:
        n = SPECIAL[name]
        return [(0,) * n, (1,) * n]
    return list(itertools.product(range(values), repeat=queries))


def params_of(name: str, size: int) -> dict:
    if "sparse" in name or name.startswith("svt"):
        return {"T": 1, "NN": 1}
    if "smartsum" in name:
        return {"T": 1, "M": 2}  # two outputs (a step and a block end): 20 columns, within prove's 50
    return {}


def audit(name: str, law, res, max_draws: int, seed: int) -> dict:
    """The auditor on the program's sampler at the exact refutation's best (ε, pair, output set)."""
    t0, c0 = time.monotonic(), time.process_time()
    if name in AUDIT_AT:
        inputs, window = AUDIT_AT[name]
        law = program_law(ALL[name][0], inputs, window=window, **params_of(name, len(inputs[0])))
        pairs = [(0, 1), (1, 0)]
    else:
        pairs = [tuple(p) for p in res.certificate.get("failing_pairs", [])][:16] or [res.counterexample.pair]
    plan = plan_confirmation(law, pairs)
    if plan["pair"] is None:
        return {"confirmed": False, "note": "no choice of the grid violates numerically"}
    draws = int(min(max_draws, max(100_000, 1.2 * plan["draws_needed"])))
    row = confirm(law, plan, samples=draws, seed=seed)
    i, j = plan["pair"]
    row.update(pair=[list(law.inputs[i]), list(law.inputs[j])], outputs=len(plan["outputs"]),
               p=plan["p"], q=plan["q"], draws_needed_90=round(plan["draws_needed"]), exact_fail=plan["exact_fail"],
               cpu=round(time.process_time() - c0, 2), wall=round(time.monotonic() - t0, 2))
    return row


def _cell_text(group) -> str:
    """A column (a group of merged cells) in short words: per slot '=v', a cell of a value, or 'rest'."""
    def one(key):
        return "(" + ", ".join(str(e[1]) if e[0] == "=" else "".join(map(str, e[1])) for e in key) + ")"
    return " ∪ ".join(one(k) for k in group)


def run_one(name: str, queries: int, values: int, max_draws: int, seed: int) -> dict:
    prog, relation, correct = ALL[name]
    inputs = inputs_of(name, queries, values)
    t0, c0 = time.monotonic(), time.process_time()
    law = program_law(prog, inputs, **params_of(name, queries))
    pairs = neighbour_pairs(inputs, relation)
    res = prove_program(law, pairs)
    seconds, cpu = time.monotonic() - t0, time.process_time() - c0
    verdict = res.verdict
    row = {"program": name, "correct": correct, "verdict": verdict, "seconds": round(seconds, 2),
           "cpu": round(cpu, 2), "inputs": len(inputs), "columns": len(law.columns), "pairs": len(pairs),
           "exact_law": law.exact, "reason": res.reason}
    ce = res.counterexample
    if ce is not None:
        i, j = ce.pair
        row["counterexample"] = {"pair": [list(law.inputs[i]), list(law.inputs[j])],
                                 "outputs": [_cell_text(law.columns[k]) for k in ce.outputs],
                                 "epsilon_needed": str(ce.epsilon_needed)}
        row["audit"] = audit(name, law, res, max_draws, seed)
    right = (verdict == "proved") if correct else (verdict == "refuted")
    row["right"] = right
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=3)
    ap.add_argument("--values", type=int, default=3)
    ap.add_argument("--max-draws", type=int, default=150_000_000, help="auditor's draws per input at most")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    names = a.only or list(ALL)
    unknown = [n for n in names if n not in ALL]
    if unknown:
        raise SystemExit(f"unknown program(s): {unknown}; known: {sorted(ALL)}")
    rows = []
    with progress("checkdp programs", total=len(names)) as tick:
        for name in names:
            row = run_one(name, a.queries, a.values, a.max_draws, a.seed)
            rows.append(row)
            ce = row.get("counterexample")
            au = row.get("audit", {})
            extra = "" if ce is None else ((f"  pair {ce['pair']} outputs {ce['outputs']} ε′ = {ce['epsilon_needed']}")[:220]
                                           + f"\n    audit at ε = {au.get('epsilon')}, pair {au.get('pair')}: ε_lb "
                                           f"{au.get('epsilon_lb', math.nan):.3f} confirmed={au['confirmed']} "
                                           f"({au.get('draws')} draws per input, {au.get('cpu')} s CPU)")
            print(f"{name:25s} {row['verdict']:10s} {row['cpu']:7.2f} s CPU {row['seconds']:7.2f} s wall{extra}",
                  flush=True)
            tick(note=name)
    audited = [r["audit"] for r in rows if "audit" in r]
    print(f"right verdicts: {sum(r['right'] for r in rows)}/{len(rows)}; max CPU {max(r['cpu'] for r in rows):.1f} s; "
          f"confirmed by the auditor: {sum(a['confirmed'] for a in audited)}/{len(audited)}")
    if a.json:
        from dpverify.atomic import atomic_write_text
        atomic_write_text(a.json, json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
