"""The ideal auditor on the StatDP / DP-Sniper suite: which published bounds a budget can reach.

For every suite mechanism with a finite output space (``dpverify.audit.suite.exact``), over the
candidate pairs its relation generates (the StatDP patterns and the random pairs of
``relation.candidates(default_rng(0))``) and DP-Sniper's own pair, compute the exact laws and
print the best pair, its exact ε, and the bound of the ideal auditor (events ordered by the exact
likelihood ratio, every draw spent on estimation, counts at their expected values, one-sided
Clopper–Pearson at α/2 each) at ``--n`` draws per input (single events, and with dpverify's
pooled event of both orders), under the conditional test of Poisson(n) draw counts (one bound at α,
as ``audit()`` at δ = 0), and at ``--n-final`` (DP-Sniper's final sample size, 2·10^8), beside
DP-Sniper's published 90 %-confidence bound.  "reach" says whether the ideal auditor reaches
DP-Sniper's bound at ``--n`` with one of these tests: when it does not, no auditor of these pairs
using them can, at typical counts; "P(reach)" is the chance that the binomial test does by luck
(the best event fixed in advance, the counts binomial).

    python3 benchmarks/bench_audit_oracle.py            # about 20 s
    python3 benchmarks/bench_audit_oracle.py --only SVT1,SVT4
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpverify._progress import progress
from dpverify.audit.suite import CASES
from dpverify.audit.suite.exact import COVERED, exact_law
from dpverify.audit.suite.oracle import best_event_bound, exact_epsilon, reach_probability

#: DP-Sniper's reference pair per mechanism (Bichsel et al., S&P 2021, §6.1 / their code base).
_X = ([0.0] * 5 + [1.0] * 5, [1.0] * 5 + [0.0] * 5)
DPSNIPER_PAIRS = {
    "SVT1": _X, "SVT2": _X, "SVT5": _X, "SVT6": _X,
    "SVT4": ([1.0] * 10, [2.0] * 5 + [0.0] * 5),
    "ReportNoisyMax1": ([1.0] * 5, [0.0, 2.0, 2.0, 2.0, 2.0]),
    "ReportNoisyMax2": ([1.0] * 5, [0.0, 2.0, 2.0, 2.0, 2.0]),
    "TruncatedGeometric": ([2.0], [1.0]),
}


def _label(a, b, i) -> str:
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    if all(v == round(v) and 0 <= v <= 9 for v in np.r_[a, b]):
        return "".join(str(int(v)) for v in a) + " vs " + "".join(str(int(v)) for v in b)
    return f"random pair #{i}"


def _pairs(m, name):
    pairs = [(np.asarray(a, float).ravel(), np.asarray(b, float).ravel())
             for a, b in m.relation.candidates(np.random.default_rng(0))]
    sniper = tuple(np.asarray(v, float) for v in DPSNIPER_PAIRS[name])
    keys = {frozenset((a.tobytes(), b.tobytes())) for a, b in pairs}
    if frozenset((sniper[0].tobytes(), sniper[1].tobytes())) not in keys:
        pairs.append(sniper)
    return pairs, sniper


def evaluate(case, n: int, n_final: int, confidence: float, tick) -> list[dict]:
    """One row per candidate pair: exact ε and the ideal bounds at n and n_final."""
    m = case.make()
    pairs, sniper = _pairs(m, case.name)
    laws = {}
    rows = []
    for i, (a, b) in enumerate(pairs):
        for x in (a, b):
            if x.tobytes() not in laws:
                laws[x.tobytes()] = exact_law(m, x)[1]
                tick(1, note=case.name)
        p, q = laws[a.tobytes()], laws[b.tobytes()]
        single = best_event_bound(p, q, n=n, confidence=confidence)
        is_sniper = frozenset((a.tobytes(), b.tobytes())) == frozenset((sniper[0].tobytes(), sniper[1].tobytes()))
        rows.append({
            "pair": (a, b), "label": _label(*(sniper if is_sniper else (a, b)), i), "exact": exact_epsilon(p, q), "ideal": single.epsilon,
            "pooled": best_event_bound(p, q, n=n, confidence=confidence, pooled=True).epsilon,
            "poisson": best_event_bound(p, q, n=n, confidence=confidence, test="poisson").epsilon,
            "final": best_event_bound(p, q, n=n_final, confidence=confidence).epsilon,
            "p_event": single.p_event, "q_event": single.q_event,
            "luck": reach_probability(single.p_event, single.q_event, n=n, confidence=confidence, target=case.dpsniper),
            "sniper": is_sniper,
        })
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**7, help="draws per input (the issue's budget)")
    ap.add_argument("--n-final", type=int, default=2 * 10**8, help="DP-Sniper's final sample size")
    ap.add_argument("--confidence", type=float, default=0.9)
    ap.add_argument("--only", default="", help="comma-separated names")
    args = ap.parse_args()
    only = {s for s in args.only.split(",") if s}
    cases = [c for c in CASES if c.name in COVERED and (not only or c.name in only)]
    if only - {c.name for c in cases}:
        raise SystemExit(f"--only: no exact law for {sorted(only - {c.name for c in cases})}; covered: {COVERED}")
    n_laws = sum(len({x.tobytes() for pr in _pairs(c.make(), c.name)[0] for x in pr}) for c in cases)
    t0 = time.monotonic()
    results = []
    with progress("exact laws", total=n_laws) as tick:
        for case in cases:
            results.append((case, evaluate(case, args.n, args.n_final, args.confidence, tick)))
    n_s, f_s = f"{args.n:.0e}".replace("+0", ""), f"{args.n_final:.0e}".replace("+0", "")
    print(f"ideal auditor, confidence {args.confidence}; bounds at {n_s} draws per input (single event, pooled) "
          f"and at {f_s}; P(S), Q(S): the single event's exact probabilities")
    print(f"{'mechanism':<19} {'which':<8} {'pair':<28} {'exact ε':>8} {'@' + n_s:>7} {'pooled':>7} {'Poisson':>7} "
          f"{'@' + f_s:>7} {'P(S)':>7} {'Q(S)':>7} {'DP-Sniper':>9} reach@{n_s} {'P(reach)':>8}")
    for case, rows in results:
        best = max(rows, key=lambda r: max(r["ideal"], r["pooled"], r["poisson"]))
        shown = [("best=DPS" if best["sniper"] else "best", best)] + \
            [("DPS", r) for r in rows if r["sniper"] and r is not best]
        for which, r in shown:
            reach = "yes" if max(r["ideal"], r["pooled"], r["poisson"]) >= case.dpsniper else "no"
            print(f"{case.name:<19} {which:<8} {r['label']:<28} {r['exact']:>8.4f} {r['ideal']:>7.4f} "
                  f"{r['pooled']:>7.4f} {r['poisson']:>7.4f} {r['final']:>7.4f} {r['p_event']:>7.4f} {r['q_event']:>7.4f} "
                  f"{case.dpsniper:>9.4f} {reach:<9} {r['luck']:>8.3g}")
    for case, rows in results:
        best = max(rows, key=lambda r: max(r["ideal"], r["pooled"], r["poisson"]))
        if best["label"].startswith("random"):
            a, b = (np.round(v, 3).tolist() for v in best["pair"])
            print(f"{case.name} {best['label']}: {a} vs {b}")
    print("best: the pair with the largest ideal bound at the budget; DPS: DP-Sniper's pair; "
          "Poisson: the single event under the conditional test of Poisson(n) draw counts (audit() at δ = 0); "
          "reach: max(single, pooled, Poisson) >= DP-Sniper's bound at expected counts; P(reach): probability that the "
          "single event, fixed in advance, reaches it over the binomial counts")
    print(f"({len(results)} mechanisms, {sum(len(r) for _, r in results)} pairs, {time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
